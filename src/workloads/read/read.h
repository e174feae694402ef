/* read: the read ceiling. Every element of a read once, nothing written
 * but one word: x, the XOR of a's elements' bits (a u64; an f32 array's
 * words widened). Counted as one array moved. Its ceiling-flagged rung on
 * each backend is the ceiling of the work that reads its bytes and writes
 * next to nothing (reduce, histogram): a copy moves each byte twice
 * through the memory system, so against a copy such work can pass 100%.
 * XOR is exact and the same in any order, so every rung's x is checked
 * bit for bit. */
#ifndef KL_READ_H
#define KL_READ_H

#include "../../core/internal.h"

/* The plan's buffers, then the GPU rung's scratch: a partial per block and
 * the retirement counter. */
enum { READ_A, READ_X, READ_PARTIALS, READ_RETIRED };

#ifdef __cplusplus
extern "C" {
#endif
kl_status kl__read_omp(const kl_args *a);
kl_status kl__read_acc(const kl_args *a);
kl_status kl__read_gpu(const kl_args *a);
kl_status kl__read_gpu_scratch(kl_plan *p);
kl_status kl__read_gpu_setup(kl_args *a);
/* The OpenCL rung (read-cl.c, read.cl). */
kl_status kl__read_cl(const kl_args *a);
kl_status kl__read_cl_setup(kl_args *a);
kl_status kl__read_cl_scratch(kl_plan *p);
#ifdef __cplusplus
}
#endif

#endif
