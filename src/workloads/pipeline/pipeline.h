/* pipeline: the integral of integrate (seed 000 section 3.3) over
 * `intervals` consecutive intervals of 40000 pi (8: 0 to 320000 pi, the
 * seed's section 3.4), n midpoints each, computed interval by interval so
 * that kernels, copies and host sums can overlap. Point g of the whole
 * range is x_g = (g + 0.5) h, h = 40000 pi / n, as integrate's rule; each
 * interval's midpoint sum is integrate's, so the exact result is
 * intervals times integrate's M_n. One output, the integral, in pinned
 * host memory: every rung ends on the host.
 * Phases: kernels, device-to-host copies, host work (kl_trace events). */
#ifndef KL_PIPELINE_H
#define KL_PIPELINE_H

#include "../integrate/integrate.h"

/* The output, then a rung's scratch: partial sums on the device and on
 * the host, each interval's result on the device and on the host (the
 * best rung: block sums and retirement counters in the first two). */
enum {
  PIPE_OUT,
  PIPE_PARTIALS,
  PIPE_HOST_PARTIALS,
  PIPE_RESULTS,
  PIPE_HOST_RESULTS
};
/* constants: the step h; the partial sums per interval (per stream for the
 * best rung: its block sums), which the scratch hook sets. */
enum { PIPE_H, PIPE_PER_INTERVAL };
enum { PIPE_PARAM_N, PIPE_PARAM_INTERVALS, PIPE_PARAM_STREAMS };
enum { PIPE_KERNEL, PIPE_D2H, PIPE_HOST };

/* rung variant: how f is evaluated (INTEGRATE_PLAIN, _SINCOS), plus this
 * bit where every interval's partial sums cross to the host. */
#define PIPE_COPIES_PARTIALS 16
#define PIPE_MAX_INTERVALS 64
#define PIPE_MAX_N (INT64_C(1) << 34)

static inline int64_t kl__pipe_intervals(const kl_plan *p) {
  return (int64_t)p->value[PIPE_PARAM_INTERVALS];
}

#ifdef __cplusplus
extern "C" {
#endif
extern const char *const kl__pipe_phases[];
kl_status kl__pipe_serial(const kl_args *a, kl_reps *reps);
kl_status kl__pipe_omp(const kl_args *a, kl_reps *reps);

kl_status kl__pipe_gpu_pageable_scratch(kl_plan *p);
kl_status kl__pipe_gpu_pinned_scratch(kl_plan *p);
kl_status kl__pipe_gpu_best_scratch(kl_plan *p);
kl_status kl__pipe_gpu_setup(kl_args *a);
kl_status kl__pipe_gpu_graph_setup(kl_args *a);
void kl__pipe_gpu_teardown(kl_args *a);
kl_status kl__pipe_gpu_sum_on_cpu(const kl_args *a, kl_reps *reps);
kl_status kl__pipe_gpu_hide_cpu(const kl_args *a, kl_reps *reps);
kl_status kl__pipe_gpu_double_buffer(const kl_args *a, kl_reps *reps);
kl_status kl__pipe_gpu_hide_copy(const kl_args *a, kl_reps *reps);
kl_status kl__pipe_gpu_kernel_overlap(const kl_args *a, kl_reps *reps);
kl_status kl__pipe_gpu_default_stream(const kl_args *a, kl_reps *reps);
kl_status kl__pipe_gpu_graph(const kl_args *a, kl_reps *reps);
#ifdef __cplusplus
}
#endif

#endif
