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
kl_status kl__map_omp(const kl_args *a);
kl_status kl__map_gpu_thread(const kl_args *a);
kl_status kl__map_gpu_grid_stride(const kl_args *a);
kl_status kl__map_gpu_vec4(const kl_args *a);
#ifdef __cplusplus
}
#endif

#endif
