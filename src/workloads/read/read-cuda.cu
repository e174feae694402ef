#include "../../backends/gpu.h"
#include "read.h"

/* A grid that fills the device once, each thread reading 16 bytes at a
 * time with a stride of the grid; a block's XOR gathered in shared memory
 * and added to x by one atomic. x is zeroed first (8 bytes), so a run
 * writes nothing but x. */
#define READ_BLOCK 256

template <typename W>
static __device__ __forceinline__ W fold16(uint4 q);
template <>
__device__ __forceinline__ unsigned fold16<unsigned>(uint4 q) {
  return q.x ^ q.y ^ q.z ^ q.w;
}
template <>
__device__ __forceinline__ unsigned long long fold16<unsigned long long>(
    uint4 q) {
  return ((unsigned long long)q.y << 32 | q.x) ^
         ((unsigned long long)q.w << 32 | q.z);
}

/* W: the element's word (unsigned for f32, unsigned long long for f64). */
template <typename W>
__global__ void read_kernel(const W *__restrict__ a, int64_t n,
                            unsigned long long *__restrict__ x) {
  __shared__ W part[READ_BLOCK];
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t per = 16 / sizeof(W);
  const int64_t vectors = n / per; /* cudaMalloc'd: 256-byte aligned */
  const uint4 *v = (const uint4 *)a;
  W acc = 0;
  for (int64_t i = first; i < vectors; i += stride) acc ^= fold16<W>(v[i]);
  for (int64_t i = vectors * per + first; i < n; i += stride) acc ^= a[i];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = READ_BLOCK / 2; s > 0; s /= 2) {
    if ((int)threadIdx.x < s) part[threadIdx.x] ^= part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicXor(x, (unsigned long long)part[0]);
}

template <typename W>
static kl_status launch(const kl_args *a) {
  const int64_t n = a->plan->n;
  const kl_device *d = &a->ctx->device;
  cudaStream_t on = (cudaStream_t)a->stream;
  unsigned long long *x = (unsigned long long *)a->buffers[READ_X];
  KL_GPU_CHECK(cudaMemsetAsync(x, 0, sizeof *x, on));
  const int64_t resident =
      (int64_t)d->compute_units * (d->max_threads_per_unit / READ_BLOCK);
  const int64_t needed = kl__gpu_blocks((n + 3) / 4, READ_BLOCK);
  const unsigned blocks =
      (unsigned)(needed < resident ? needed : resident > 0 ? resident : 1);
  read_kernel<W><<<blocks, READ_BLOCK, 0, on>>>((const W *)a->buffers[READ_A],
                                                n, x);
  KL_GPU_CHECK_LAUNCH(read_kernel<W>);
  return KL_OK;
}

extern "C" kl_status kl__read_gpu(const kl_args *a) {
  if (kl_type_size(a->plan->type) == 8) return launch<unsigned long long>(a);
  return launch<unsigned>(a);
}
