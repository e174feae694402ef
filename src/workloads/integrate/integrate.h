/* integrate: I = integral over [0, 40000 pi] of sin^2(2x) cos^2(x) dx by the
 * midpoint rule with n points (seed 000, section 3.3). Every rung uses the
 * same points, x_i = (i + 0.5) h computed in double and rounded once to the
 * evaluation type T, evaluates f in T, sums in double and multiplies the sum
 * by h once at the end. One output: the integral, a double.
 * Cost model (docs/workloads/integrate.md): per point two transcendental
 * calls and 7 flops; 8 bytes per run, the result. */
#ifndef KL_INTEGRATE_H
#define KL_INTEGRATE_H

#include <math.h>

#include "../../core/internal.h"

/* The one output, then a GPU rung's scratch buffers. */
enum { INTEGRATE_OUT, INTEGRATE_SCRATCH };
enum { INTEGRATE_H }; /* constants[0]: the step h, shared by every rung */

/* How a rung evaluates f, which sets the evaluation error its check allows:
 * sin(2x) and cos(x) in T; 4 sin^2 x cos^4 x from one sincos; or the
 * fast single-precision intrinsics after reducing x by the period pi. */
enum { INTEGRATE_PLAIN, INTEGRATE_SINCOS, INTEGRATE_FAST };

#define INTEGRATE_PERIODS 40000.0 /* the interval is [0, 40000 pi] */
#define INTEGRATE_PI 3.14159265358979323846
#define INTEGRATE_MAX_N (INT64_C(1) << 40)
/* (i + 0.5) * h, 2x, the three products and the accumulation. */
#define INTEGRATE_FLOPS_PER_POINT 7.0

/* The point rule of the host rungs, one point each: the point in double,
 * rounded once to T, f evaluated in T, returned exactly as a double. */
static inline double kl__integrand_f32(int64_t i, double h) {
  float x = (float)(((double)i + 0.5) * h);
  float s = sinf(2.0f * x), c = cosf(x);
  return (double)(s * s * (c * c));
}

static inline double kl__integrand_f64(int64_t i, double h) {
  double x = ((double)i + 0.5) * h;
  double s = sin(2.0 * x), c = cos(x);
  return s * s * (c * c);
}

#ifdef __cplusplus
extern "C" {
#endif
/* The interval's length, 40000 pi, and the midpoint sum over n points of
 * it in exact arithmetic (integrate.c derives it), times h: what every rung
 * approximates, and pipeline's, per interval. */
double kl__integrate_length(void);
double kl__integrate_midpoint_exact(int64_t n);
/* The bound G + E + S + H of integrate.c's check in double, for a range of
 * length L, f evaluated by `kernel` (INTEGRATE_PLAIN, _SINCOS), and
 * `sums` values summed (S = gamma_sums L); and the verdict on one result
 * against the exact sum within a bound. */
double kl__integrate_bound_f64(int kernel, double L, double sums);
void kl__integrate_verdict(double got, double exact, double bound,
                           kl_verdict *v);
kl_status kl__integrate_omp(const kl_args *a);

kl_status kl__integrate_gpu_atomic(const kl_args *a);
kl_status kl__integrate_gpu_shared_atomic(const kl_args *a);
kl_status kl__integrate_gpu_warp_shuffle(const kl_args *a);
kl_status kl__integrate_gpu_grid_stride(const kl_args *a);
kl_status kl__integrate_gpu_partials_scratch(kl_plan *p);
kl_status kl__integrate_gpu_partials_host(const kl_args *a);
kl_status kl__integrate_gpu_partials_device(const kl_args *a);
kl_status kl__integrate_gpu_fast(const kl_args *a);
kl_status kl__integrate_gpu_best_scratch(kl_plan *p);
kl_status kl__integrate_gpu_best(const kl_args *a);
kl_status kl__integrate_gpu_cub_scratch(kl_plan *p);
kl_status kl__integrate_gpu_cub(const kl_args *a);
#ifdef __cplusplus
}
#endif

#endif
