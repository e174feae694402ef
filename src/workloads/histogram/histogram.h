/* histogram: counts of the 256 byte values of a byte stream (seed 001).
 * Counts are uint32 below 2^32 bytes and uint64 from 2^32 on, so that no
 * count can wrap. The check is exact: every count against a serial count
 * of the same bytes, and the counts add up to n.
 * Cost model: every byte read once (n bytes); the 256 counts are
 * negligible. One increment per byte (items = n). */
#ifndef KL_HISTOGRAM_H
#define KL_HISTOGRAM_H

#include "../../core/internal.h"

#define HIST_BINS 256

/* The plan's buffers: the bytes and the counts, then the rungs' scratch
 * (CUB's temporary storage and its own counts, where it cannot write
 * into the output directly). */
enum { HIST_DATA, HIST_COUNTS, HIST_CUB_TEMP, HIST_CUB_COUNTS };
/* The parameters, in the workload's order. */
enum { HIST_P_N, HIST_P_INPUTS, HIST_P_VALUE, HIST_P_OFFSET };
#define HIST_INPUTS(p) ((int)(p)->value[HIST_P_INPUTS])
enum { HIST_RANDOM, HIST_ALL_SAME, HIST_SKEWED };

/* What a rung counts in one run: the bytes of the current chunk (the
 * whole input unless it is a file larger than memory, run chunk by
 * chunk); on chunks after the first it adds to the counts instead of
 * overwriting them. */
#define HIST_LENGTH(p) ((p)->chunk_n)
#define HIST_ACCUMULATE(p) ((p)->chunk > 0)
/* The bytes start `offset` bytes into the data buffer (a parameter, 0 by
 * default), so that the tests can give every rung an unaligned start;
 * the bytes before them are not counted. */
#define HIST_OFFSET(p) ((int64_t)(p)->value[HIST_P_OFFSET])
#define HIST_BYTES(a)                                                         \
  ((const uint8_t *)(a)->buffers[HIST_DATA] + HIST_OFFSET((a)->plan))
/* Counts are 64-bit from this many bytes on. */
#define HIST_WIDE_FROM (INT64_C(1) << 32)
static inline kl_type kl__histogram_count_type(int64_t n) {
  return n >= HIST_WIDE_FROM ? KL_U64 : KL_U32;
}

#ifdef __cplusplus
extern "C" {
#endif
kl_status kl__histogram_omp_atomic(const kl_args *a);
kl_status kl__histogram_omp_interleaved(const kl_args *a);
kl_status kl__histogram_omp_blocks(const kl_args *a);

/* The OpenCL rungs (histogram-cl.c, histogram.cl). */
kl_status kl__histogram_cl_local(const kl_args *a);
kl_status kl__histogram_cl_setup(kl_args *a);
kl_status kl__histogram_cl_vector(const kl_args *a);
kl_status kl__histogram_cl_vector_setup(kl_args *a);

/* The CUDA ladder, in order (histogram-cuda.cu), and the persistent
 * rungs' grids (the setup of every GPU rung). */
kl_status kl__histogram_gpu_global_atomic(const kl_args *a);
kl_status kl__histogram_gpu_four_per_thread(const kl_args *a);
kl_status kl__histogram_gpu_shared(const kl_args *a);
kl_status kl__histogram_gpu_fat_interleaved(const kl_args *a);
kl_status kl__histogram_gpu_fat_contiguous(const kl_args *a);
kl_status kl__histogram_gpu_vec16(const kl_args *a);
kl_status kl__histogram_gpu_warp_private(const kl_args *a);
kl_status kl__histogram_gpu_best(const kl_args *a);
kl_status kl__histogram_gpu_setup(kl_args *a);
/* Thread-block clusters with distributed shared memory
 * (histogram-cluster-nvidia.cu) and CUB (histogram-cub.cu). */
kl_status kl__histogram_gpu_cluster(const kl_args *a);
kl_status kl__histogram_gpu_cub(const kl_args *a);
kl_status kl__histogram_gpu_cub_scratch(kl_plan *p);
#ifdef __cplusplus
}
#endif

#endif
