/* histogram's vendor rung: CUB's DeviceHistogram::HistogramEven (hipCUB
 * in a HIP build that has it), 256 bins of width 1 over [0, 256). Built
 * only where the library is found. */
#include <string.h>

#include "../../backends/gpu-cub.h"
#include "histogram.h"

/* 257 levels: bin b holds the samples in [b, b + 1). The levels are int,
 * as 256 does not fit the samples' type. */
template <typename C>
static cudaError_t histogram_even(const kl_args *a, void *temp, size_t *bytes,
                                  C *counts) {
  return cub::DeviceHistogram::HistogramEven(
      temp, *bytes, HIST_BYTES(a), counts,
      HIST_BINS + 1, 0, HIST_BINS, (int64_t)HIST_LENGTH(a->plan),
      (cudaStream_t)a->stream);
}

/* CUB overwrites its output; a later chunk of a file is counted into
 * scratch and added to the counts. */
template <typename C>
__global__ void add_counts(C *counts, const C *more) {
  counts[threadIdx.x] += more[threadIdx.x];
}

template <typename C>
static kl_status cub_rung(const kl_args *a) {
  size_t bytes = (size_t)a->plan->buffers[HIST_CUB_TEMP].count;
  C *counts = (C *)a->buffers[HIST_COUNTS];
  if (!HIST_ACCUMULATE(a->plan)) {
    KL_GPU_CHECK(histogram_even<C>(a, a->buffers[HIST_CUB_TEMP], &bytes, counts));
    return KL_OK;
  }
  C *more = (C *)a->buffers[HIST_CUB_COUNTS];
  KL_GPU_CHECK(histogram_even<C>(a, a->buffers[HIST_CUB_TEMP], &bytes, more));
  add_counts<C><<<1, HIST_BINS, 0, (cudaStream_t)a->stream>>>(counts, more);
  KL_GPU_CHECK_LAUNCH(add_counts);
  return KL_OK;
}

template <typename C>
static kl_status temp_bytes(const kl_plan *p, size_t *bytes) {
  kl_args query;
  memset(&query, 0, sizeof query);
  query.plan = p;
  KL_GPU_CHECK(histogram_even<C>(&query, NULL, bytes, (C *)NULL));
  return KL_OK;
}

extern "C" kl_status kl__histogram_gpu_cub_scratch(kl_plan *p) {
  const kl_type count_type = p->buffers[HIST_COUNTS].type;
  size_t bytes = 0;
  kl_status st = count_type == KL_U64 ? temp_bytes<unsigned long long>(p, &bytes)
                                      : temp_bytes<unsigned>(p, &bytes);
  if (st == KL_OK)
    st = kl__plan_scratch(p, HIST_CUB_TEMP, "CUB temporary storage", KL_U8,
                          bytes ? (int64_t)bytes : 1, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, HIST_CUB_COUNTS, "CUB counts of a chunk",
                          count_type, HIST_BINS, KL_MEM_DEVICE, 0);
  return st;
}

extern "C" kl_status kl__histogram_gpu_cub(const kl_args *a) {
  if (a->plan->buffers[HIST_COUNTS].type == KL_U64)
    return cub_rung<unsigned long long>(a);
  return cub_rung<unsigned>(a);
}
