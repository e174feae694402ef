/* The parts a test's fake workload shares (test_tune_params.c,
 * test_fallback.c): one buffer, x, of n doubles that the rung writes;
 * no inputs to make; 8 bytes an element moved. Its check and its rungs
 * are the test's own. */
#ifndef KL_TEST_FAKE_WORKLOAD_H
#define KL_TEST_FAKE_WORKLOAD_H

#include "core/harness.h"

static kl_status fake_plan(kl_plan *p) {
  p->buffer_count = 1;
  p->buffers[0] = (kl_buffer_spec){"x", KL_F64, p->n, KL_OUT,
                                   KL_MEM_PAGEABLE, 0};
  return KL_OK;
}

static void fake_init(const kl_plan *p, void *const *host) {
  (void)p;
  (void)host;
}

static void fake_cost(const kl_plan *p, const kl_rung *r,
                      const double *counts, kl_cost *c) {
  (void)r;
  (void)counts;
  c->bytes = 8.0 * (double)p->n;
  c->items = (double)p->n;
}

#endif
