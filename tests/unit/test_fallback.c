/* A library call's rung that cannot serve its problem stands aside for
 * its fallback, and that one for its own, down to the backend's library
 * rung (kl__run_library, library.c; kl_rung.fallback, model.h). A fake
 * workload, added to the registry here, has four rungs on the serial
 * backend, each writing its own mark into x:
 *   fake-top      the library rung: its setup declines an even n
 *                 (KL_UNAVAILABLE); mark 1; falls back to fake-middle
 *   fake-middle   its plan declines n = 0 mod 4, and asks for more host
 *                 memory than there is at n = 10; mark 2; falls back to
 *                 fake-bottom
 *   fake-bottom   serves every n; mark 3; no fallback: the library rung
 *   fake-wrong    its setup fails (KL_DEVICE): an error, not a decline
 * so n = 5 runs fake-top, 6 fake-middle, 8 and 10 fake-bottom. A decline
 * leaves the caller's x as it was until the rung that serves writes it;
 * an error is returned as it is, with nothing handed on. */
#include <stdio.h>
#include <string.h>

#include "core/harness.h"
#include "expect.h"
#include "fake-workload.h"

static const kl_param params[] = {
    {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
     .help = "elements", .default_value = 16, .min = 1, .max = 1 << 20,
     .step = 1},
};

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)p, (void)r, (void)in, (void)out;
  v->passed = 1;
}

static kl_status mark(const kl_args *a, double value) {
  double *x = a->buffers[0];
  for (int64_t i = 0; i < a->plan->n; i++) x[i] = value;
  return KL_OK;
}
static kl_status top(const kl_args *a) { return mark(a, 1); }
static kl_status middle(const kl_args *a) { return mark(a, 2); }
static kl_status bottom(const kl_args *a) { return mark(a, 3); }

static kl_status top_setup(kl_args *a) {
  return a->plan->n % 2 == 0
             ? kl__usage(KL_UNAVAILABLE, "fake-top: no even n")
             : KL_OK;
}

static kl_status middle_scratch(kl_plan *p) {
  if (p->n % 4 == 0)
    return kl__usage(KL_UNAVAILABLE, "fake-middle: no n of 4 k");
  /* 2^50 doubles at n = 10: more host memory than any host has. */
  return kl__plan_scratch(p, 1, "room", KL_F64,
                          p->n == 10 ? (int64_t)1 << 50 : 1,
                          KL_MEM_PAGEABLE, 0);
}

static kl_status wrong_setup(kl_args *a) {
  (void)a;
  return kl__usage(KL_DEVICE, "fake-wrong: its setup failed");
}

#define F64 KL_TYPE_BIT(KL_F64)
static kl_rung rungs[] = {
    {.name = "fake-bottom", .summary = "serves every n", .run = bottom,
     .types = F64},
    {.name = "fake-middle", .summary = "no n of 4 k", .run = middle,
     .scratch = middle_scratch, .fallback = "fake-bottom", .types = F64},
    {.name = "fake-top", .summary = "no even n", .run = top,
     .setup = top_setup, .fallback = "fake-middle", .library = F64,
     .types = F64},
    {.name = "fake-wrong", .summary = "its setup fails", .run = top,
     .setup = wrong_setup, .fallback = "fake-bottom", .types = F64},
};

static kl_workload fake = {
    .name = "fake-fallback", .summary = "rungs that stand aside",
    .tolerance = "exact", .source = "test_fallback",
    .metric = KL_METRIC_GBS, .unit = "GB/s", .types = F64,
    .default_type = KL_F64, .params = params, .param_count = 1,
    .plan = fake_plan, .init = fake_init, .check = check,
    .cost = fake_cost,
    .rungs = rungs, .rung_count = 3};

/* A library call of size n on the serial backend: its status, and the
 * mark x holds (every element, else -1); x starts at 0. */
static kl_status call(int64_t n, double *got) {
  double x[16] = {0};
  void *buffers[KL_MAX_BUFFERS] = {x};
  kl_problem pb = {.size = sizeof pb, .n = n, .type = KL_F64, .params = NULL};
  kl_context *ctx = NULL;
  kl_status st = kl_context_open("serial", &ctx);
  EXPECT(st == KL_OK);
  if (st == KL_OK) st = kl__run_library(ctx, &fake, &pb, buffers, 0);
  kl_context_close(ctx);
  *got = x[0];
  for (int64_t i = 1; i < n; i++)
    if (x[i] != x[0]) *got = -1;
  printf("n %lld: %s, x = %g%s%s\n", (long long)n, kl_status_name(st), *got,
         st != KL_OK ? ": " : "", st != KL_OK ? kl_last_error() : "");
  return st;
}

int main(void) {
  for (size_t i = 0; i < sizeof rungs / sizeof *rungs; i++)
    rungs[i].backend = kl_backend_find("serial");
  kl__workload_add(&fake);
  double got = 0;
  EXPECT(call(5, &got) == KL_OK && got == 1);  /* fake-top serves */
  EXPECT(call(6, &got) == KL_OK && got == 2);  /* top's setup declines */
  EXPECT(call(8, &got) == KL_OK && got == 3);  /* and middle's plan */
  EXPECT(call(10, &got) == KL_OK && got == 3); /* middle does not fit */
  /* An error is not a decline: fake-wrong as the library rung. */
  rungs[2].library = 0;
  rungs[3].library = F64;
  fake.rung_count = 4;
  EXPECT(call(5, &got) == KL_DEVICE && got == 0);
  EXPECT(strstr(kl_last_error(), "fake-wrong: its setup failed") != NULL);
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
