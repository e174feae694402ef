/* map: y[i] = a*x[i]^2 + b*x[i] + c over float arrays (seed 000, §3.1).
 * Cost model: x read once and y written once, 8 bytes per element; 5 flops
 * per element as the formula is written (3 multiplies, 2 adds). */
#ifndef KL_MAP_H
#define KL_MAP_H

#include "../../core/internal.h"

enum { MAP_X, MAP_Y };
enum { MAP_A, MAP_B, MAP_C };

#ifdef __cplusplus
extern "C" {
#endif
/* What offload shares: the coefficients a, b, c into the plan's constants
 * 0..2, x's random inputs, the check of y (buffers MAP_X, MAP_Y of any
 * plan that keeps map's layout) and the vec4 kernel over n elements on a
 * stream (the grid-stride one, sized for device d, where x or y is not
 * 16-byte aligned). */
void kl__map_constants(kl_plan *p);
void kl__map_init(const kl_plan *p, void *const *host);
void kl__map_check(const kl_plan *p, const kl_rung *r, void *const *in,
                   void *const *out, kl_verdict *v);
kl_status kl__map_gpu_apply(const float *x, float *y, int64_t n,
                            const double *constants, const kl_device *d,
                            void *stream);
kl_status kl__map_serial(const kl_args *a);
kl_status kl__map_omp(const kl_args *a);
kl_status kl__map_acc(const kl_args *a);
kl_status kl__map_gpu_thread(const kl_args *a);
kl_status kl__map_gpu_grid_stride(const kl_args *a);
kl_status kl__map_gpu_vec4(const kl_args *a);
kl_status kl__map_gpu_host_clock(const kl_args *a, kl_reps *reps);
/* The OpenCL rungs (map-cl.c, map.cl). */
kl_status kl__map_cl_thread(const kl_args *a);
kl_status kl__map_cl_vec4(const kl_args *a);
kl_status kl__map_cl_host_clock(const kl_args *a, kl_reps *reps);
kl_status kl__map_cl_thread_setup(kl_args *a);
kl_status kl__map_cl_vec4_setup(kl_args *a);
#ifdef __cplusplus
}
#endif

#endif
