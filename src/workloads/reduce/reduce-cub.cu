/* reduce's vendor rung: CUB's DeviceReduce (hipCUB in a HIP build that
 * has it). Built only where the library is found. */
#include <string.h>

#include "../../backends/gpu-cub.h"
#include "../../backends/gpu-reduce.h"
#include "reduce.h"

/* cuda::minimum and cuda::maximum keep or drop a NaN by the order they
 * meet it in; floating min and max go through kl_combine instead, which
 * keeps it. Integers keep CUB's own operators, which it may map to
 * hardware reductions. */
template <int OP, typename A>
struct nan_aware {
  __host__ __device__ A operator()(A a, A b) const {
    return kl_combine<OP>(a, b);
  }
};

template <int OP, typename T, typename A>
static kl_status cub_reduce(const kl_args *a, void *temp, size_t *bytes) {
  const T *x = (const T *)a->buffers[REDUCE_IN];
  A *out = (A *)a->buffers[REDUCE_OUT];
  cudaStream_t s = (cudaStream_t)a->stream;
  const int64_t n = REDUCE_N(a->plan);
  /* The initial value's type is the accumulator's: int sums widen. */
  if constexpr (OP == KL_OP_SUM)
    KL_GPU_CHECK(cub::DeviceReduce::Reduce(temp, *bytes, x, out, n,
                                           cuda::std::plus<>(), (A)0, s));
  else if constexpr (cuda::std::is_floating_point_v<A>)
    KL_GPU_CHECK(cub::DeviceReduce::Reduce(temp, *bytes, x, out, n,
                                           nan_aware<OP, A>(),
                                           kl_identity<OP, A>(), s));
  else if constexpr (OP == KL_OP_MIN)
    KL_GPU_CHECK(cub::DeviceReduce::Reduce(temp, *bytes, x, out, n,
                                           cuda::minimum<>(),
                                           kl_identity<OP, A>(), s));
  else
    KL_GPU_CHECK(cub::DeviceReduce::Reduce(temp, *bytes, x, out, n,
                                           cuda::maximum<>(),
                                           kl_identity<OP, A>(), s));
  return KL_OK;
}

template <int OP, typename T, typename A>
static kl_status cub_rung(const kl_args *a) {
  size_t bytes = (size_t)a->plan->buffers[REDUCE_CUB_TEMP].count;
  return cub_reduce<OP, T, A>(a, a->buffers[REDUCE_CUB_TEMP], &bytes);
}

template <int OP, typename T, typename A>
static kl_status cub_size(const kl_args *a, size_t *bytes) {
  return cub_reduce<OP, T, A>(a, NULL, bytes);
}

static kl_status temp_bytes(const kl_args *a, size_t *bytes) {
  REDUCE_DISPATCH(cub_size, a, a, bytes);
}

extern "C" kl_status kl__reduce_gpu_cub_scratch(kl_plan *p) {
  kl_status st = kl__reduce_gpu_scratch(p);
  kl_args query;
  size_t bytes = 0;
  memset(&query, 0, sizeof query);
  query.plan = p;
  if (st == KL_OK) st = temp_bytes(&query, &bytes);
  if (st != KL_OK) return st;
  return kl__plan_scratch(p, REDUCE_CUB_TEMP, "CUB temporary storage", KL_U8,
                          bytes ? (int64_t)bytes : 1, KL_MEM_DEVICE, 0);
}

extern "C" kl_status kl__reduce_gpu_cub(const kl_args *a) {
  REDUCE_DISPATCH(cub_rung, a, a);
}
