/* integrate's vendor rung: cub::DeviceReduce::TransformReduce over a
 * counting iterator (hipCUB in a HIP build that has it). Built only where
 * the library is found. */
#include <string.h>

#include "../../backends/gpu-cub.h"
#include "integrand-gpu.h"

/* Point i's value by the plain rule: the one functor CUB needs. */
template <typename T> struct integrand_at {
  double h;
  __device__ double operator()(long long i) const {
    return value<T, INTEGRATE_PLAIN>(point(i, h));
  }
};

template <typename T>
static cudaError_t cub_reduce(void *temp, size_t *bytes, const kl_args *a) {
  integrand_at<T> op = {a->plan->constants[INTEGRATE_H]};
  return cub::DeviceReduce::TransformReduce(
      temp, *bytes, thrust::counting_iterator<long long>(0),
      (double *)a->buffers[INTEGRATE_OUT], (long long)a->plan->n,
      cuda::std::plus<>{}, op, 0.0, (cudaStream_t)a->stream);
}

static cudaError_t reduce_of_type(void *temp, size_t *bytes,
                                  const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return cudaErrorInvalidValue,
                    return cub_reduce<T>(temp, bytes, a));
  return cudaErrorInvalidValue;
}

/* The temporary storage CUB asks for, as a scratch buffer. */
extern "C" kl_status kl__integrate_gpu_cub_scratch(kl_plan *p) {
  kl_args query;
  size_t bytes = 0;
  memset(&query, 0, sizeof query);
  query.plan = p;
  KL_GPU_CHECK(reduce_of_type(NULL, &bytes, &query));
  return kl__plan_scratch(p, INTEGRATE_SCRATCH, "CUB temporary storage",
                          KL_U8, bytes ? (int64_t)bytes : 1, KL_MEM_DEVICE, 0);
}

extern "C" kl_status kl__integrate_gpu_cub(const kl_args *a) {
  size_t bytes = (size_t)a->plan->buffers[INTEGRATE_SCRATCH].count;
  KL_GPU_CHECK(reduce_of_type(a->buffers[INTEGRATE_SCRATCH], &bytes, a));
  integrate_scale<<<1, 1, 0, (cudaStream_t)a->stream>>>(
      (double *)a->buffers[INTEGRATE_OUT], a->plan->constants[INTEGRATE_H]);
  KL_GPU_CHECK_LAUNCH(integrate_scale);
  return KL_OK;
}
