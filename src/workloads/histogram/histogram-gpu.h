/* What the GPU rungs of histogram share (histogram-cuda.cu and
 * histogram-cluster-nvidia.cu). */
#ifndef KL_HISTOGRAM_GPU_H
#define KL_HISTOGRAM_GPU_H

#include <stdint.h>

#include "../../backends/gpu.h"
#include "histogram.h"

/* Shared memory has 32 four-byte banks, on NVIDIA and AMD GPUs alike:
 * the fastest rungs give each bank its own sub-histogram. A constant of
 * the memory, not the warp width. */
#define BANKS 32
/* The most bytes one block counts into its 32-bit shared counters, so
 * that they cannot wrap. */
#define BLOCK_BYTES_MAX (INT64_C(1) << 31)

/* The bytes before the first W-aligned word (head) and the whole aligned
 * words after them; what follows the last whole word is the tail, fewer
 * than W bytes. */
typedef struct aligned_span {
  int64_t head, words;
} aligned_span;

template <int W>
static __host__ __device__ aligned_span split_aligned(const uint8_t *data,
                                                      int64_t n) {
  int64_t head = (int64_t)((W - (uintptr_t)data % W) % W);
  if (head > n) head = n;
  aligned_span s = {head, (n - head) / W};
  return s;
}

/* At least `resident` blocks, and enough to keep each one within
 * BLOCK_BYTES_MAX: exact up to 2^52 bytes with the largest grid. */
static inline int64_t block_limit(int64_t n, int64_t resident) {
  int64_t least = (n + BLOCK_BYTES_MAX - 1) / BLOCK_BYTES_MAX;
  int64_t blocks = resident > least ? resident : least;
  return blocks < KL_GPU_MAX_BLOCKS ? blocks : KL_GPU_MAX_BLOCKS;
}

/* Bin b of per-bank sub-histograms laid out as word b * BANKS + column,
 * summed over the columns: starting at column b % BANKS, so that the
 * threads summing consecutive bins read different banks. */
static __device__ __forceinline__ unsigned sum_columns(const unsigned *h,
                                                       int b) {
  unsigned sum = 0;
  for (int c = 0; c < BANKS; c++) sum += h[b * BANKS + (c + b) % BANKS];
  return sum;
}

/* One instance per count type, family<C>(a): the plan's, 32-bit below
 * 2^32 bytes, 64-bit from there (histogram.h). */
#define HIST_DISPATCH(family, a)                                              \
  do {                                                                        \
    if ((a)->plan->buffers[HIST_COUNTS].type == KL_U64)                       \
      return family<unsigned long long>(a);                                   \
    return family<unsigned>(a);                                               \
  } while (0)

/* Zero the counts before the first chunk; later chunks add to them. */
template <typename C>
static kl_status start_counts(const kl_args *a) {
  if (HIST_ACCUMULATE(a->plan)) return KL_OK;
  KL_GPU_CHECK(cudaMemsetAsync(a->buffers[HIST_COUNTS], 0,
                               HIST_BINS * sizeof(C), (cudaStream_t)a->stream));
  return KL_OK;
}

#endif
