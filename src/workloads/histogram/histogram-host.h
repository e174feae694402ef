/* What histogram's host rungs share (histogram.c, histogram-omp.c). */
#ifndef KL_HISTOGRAM_HOST_H
#define KL_HISTOGRAM_HOST_H

#include <string.h>

#include "histogram.h"

/* A rung's loop for one count type: counts n bytes into counts, which
 * hold zeros or the earlier chunks' counts. */
typedef void (*hist_loop32)(const uint8_t *x, int64_t n, uint32_t *counts);
typedef void (*hist_loop64)(const uint8_t *x, int64_t n, uint64_t *counts);

/* Run the loop of the plan's count type over the current chunk, the
 * counts zeroed first on the first chunk. */
static inline kl_status kl__histogram_host_run(const kl_args *a,
                                               hist_loop32 u32,
                                               hist_loop64 u64) {
  const kl_plan *p = a->plan;
  const uint8_t *x = HIST_BYTES(a);
  const int wide = p->buffers[HIST_COUNTS].type == KL_U64;
  if (!HIST_ACCUMULATE(p))
    memset(a->buffers[HIST_COUNTS], 0,
           HIST_BINS * (wide ? sizeof(uint64_t) : sizeof(uint32_t)));
  if (wide) u64(x, HIST_LENGTH(p), (uint64_t *)a->buffers[HIST_COUNTS]);
  else u32(x, HIST_LENGTH(p), (uint32_t *)a->buffers[HIST_COUNTS]);
  return KL_OK;
}

#endif
