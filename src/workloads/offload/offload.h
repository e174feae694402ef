/* offload: map's y = a x^2 + b x + c over host arrays larger than the
 * device holds, in chunks: each chunk to the device, map's kernel, and
 * back, on 1 to 4 streams, from pageable or pinned memory. The pattern
 * of seed 000 section 3.4 applied to data that never fits at once.
 * Cost model: 4 bytes of x in and 4 of y out per element, 8n, as map's;
 * the ceiling is transfer's duplex copy of the same bytes. */
#ifndef KL_OFFLOAD_H
#define KL_OFFLOAD_H

#include "../map/map.h"

/* x and y on the host in map's places, then the device chunks. */
enum { OFFLOAD_DEVICE_X = MAP_Y + 1, OFFLOAD_DEVICE_Y };
enum { OFFLOAD_PARAM_N, OFFLOAD_PARAM_CHUNK };
enum { OFFLOAD_H2D, OFFLOAD_KERNEL, OFFLOAD_D2H };

/* constants: map's a, b, c, then the rung's stream count, which its
 * scratch hook sets (a run sees the plan, not the rung). */
#define OFFLOAD_STREAM_COUNT 3

#ifdef __cplusplus
extern "C" {
#endif
extern const char *const kl__offload_phases[];
/* Each rung's scratch hook: its host placement and stream count. */
kl_status kl__offload_gpu_pageable_1_scratch(kl_plan *p);
kl_status kl__offload_gpu_pageable_2_scratch(kl_plan *p);
kl_status kl__offload_gpu_pageable_3_scratch(kl_plan *p);
kl_status kl__offload_gpu_pageable_4_scratch(kl_plan *p);
kl_status kl__offload_gpu_pinned_1_scratch(kl_plan *p);
kl_status kl__offload_gpu_pinned_2_scratch(kl_plan *p);
kl_status kl__offload_gpu_pinned_3_scratch(kl_plan *p);
kl_status kl__offload_gpu_pinned_4_scratch(kl_plan *p);
kl_status kl__offload_gpu_setup(kl_args *a);
void kl__offload_gpu_teardown(kl_args *a);
kl_status kl__offload_gpu_chunks(const kl_args *a, kl_reps *reps);
#ifdef __cplusplus
}
#endif

#endif
