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

/* Either kernel over the plan's arrays, in chunks of at most the largest
 * grid. */
template <typename T>
static kl_status launch(void (*kernel)(const T *, const T *, T *, T, int64_t),
                        const char *name, const kl_args *a) {
  const kl_plan *p = a->plan;
  KL_GPU_CHUNKS(p->n, STREAM_BLOCK, offset, count) {
    kernel<<<kl__gpu_blocks(count, STREAM_BLOCK), STREAM_BLOCK, 0,
             (cudaStream_t)a->stream>>>(
        (const T *)a->buffers[STREAM_A] + offset,
        (const T *)a->buffers[STREAM_B] + offset,
        (T *)a->buffers[STREAM_C] + offset, (T)p->constants[STREAM_SCALAR],
        count);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
      return KL_FAIL(KL_DEVICE, "launch of %s failed: %s", name,
                     cudaGetErrorString(err));
  }
  return KL_OK;
}

extern "C" kl_status kl__stream_gpu_copy(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return launch<T>(copy_kernel<T>, "copy_kernel<T>", a));
  return KL_OK;
}

extern "C" kl_status kl__stream_gpu_triad(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return launch<T>(triad_kernel<T>, "triad_kernel<T>", a));
  return KL_OK;
}

extern "C" kl_status kl__stream_gpu_memcpy(const kl_args *a) {
  size_t bytes = (size_t)a->plan->n * kl_type_size(a->plan->type);
  KL_GPU_CHECK(cudaMemcpyAsync(a->buffers[STREAM_C], a->buffers[STREAM_A],
                               bytes, cudaMemcpyDeviceToDevice,
                               (cudaStream_t)a->stream));
  return KL_OK;
}
