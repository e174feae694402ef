#include "../../backends/gpu.h"
#include "stream.h"

/* BabelStream's shape: one element per thread, 1024-thread blocks. The
 * backend's ceiling is the runtime's memcpy, not these kernels. */
#define STREAM_BLOCK 1024

template <typename T>
__global__ void copy_kernel(const T *__restrict__ a, const T *__restrict__ b,
                            T *__restrict__ c, T s, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  (void)b, (void)s;
  if (i < n) c[i] = a[i];
}

template <typename T>
__global__ void triad_kernel(const T *__restrict__ a, const T *__restrict__ b,
                             T *__restrict__ c, T s, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + s * b[i];
}

#define STREAM_LAUNCH(kernel, T, args)                                        \
  do {                                                                        \
    const kl_plan *p_ = (args)->plan;                                         \
    KL_GPU_CHUNKS(p_->n, STREAM_BLOCK, offset, count) {                       \
      kernel<<<kl__gpu_blocks(count, STREAM_BLOCK), STREAM_BLOCK, 0,          \
               (cudaStream_t)(args)->stream>>>(                               \
          (const T *)(args)->buffers[STREAM_A] + offset,                      \
          (const T *)(args)->buffers[STREAM_B] + offset,                      \
          (T *)(args)->buffers[STREAM_C] + offset,                            \
          (T)p_->constants[STREAM_SCALAR], count);                            \
      KL_GPU_CHECK_LAUNCH(kernel);                                            \
    }                                                                         \
  } while (0)

extern "C" kl_status kl__stream_gpu_copy(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    STREAM_LAUNCH(copy_kernel<T>, T, a));
  return KL_OK;
}

extern "C" kl_status kl__stream_gpu_triad(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    STREAM_LAUNCH(triad_kernel<T>, T, a));
  return KL_OK;
}
extern "C" kl_status kl__stream_gpu_memcpy(const kl_args *a) {
  size_t bytes = (size_t)a->plan->n * kl_type_size(a->plan->type);
  KL_GPU_CHECK(cudaMemcpyAsync(a->buffers[STREAM_C], a->buffers[STREAM_A],
                               bytes, cudaMemcpyDeviceToDevice,
                               (cudaStream_t)a->stream));
  return KL_OK;
}
