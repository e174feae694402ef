#include "../../backends/gpu-reduce.h"
#include "read.h"

/* The read ceiling on the GPU: reading as reduce's fastest rung reads
 * (cuda-best), so that no read-dominated rung outruns its ceiling. A
 * persistent grid (as many blocks as are resident at once, fewer for a
 * small array) strides over a in 16-byte vectors, READ_DEPTH loads issued
 * before the first is used, into as many XOR accumulators. A block's XOR
 * goes to its partial; the block that retires last (a fence and a counter
 * that wraps back to zero) folds the partials into x. One launch: no
 * memset of x (a second launch was 1% of the time at 512 MiB). */
#define READ_BLOCK 1024
#define READ_DEPTH 4

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

/* Thread 0 gets the XOR of the block's values; every thread calls it. */
static __device__ unsigned long long block_xor(unsigned long long v) {
  __shared__ unsigned long long warp_xor[KL_MAX_WARPS];
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  const int warps = (blockDim.x + warpSize - 1) / warpSize;
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v ^= __shfl_down_sync(KL_FULL_MASK, v, offset);
  if (lane == 0) warp_xor[warp] = v;
  __syncthreads();
  v = 0;
  if (warp == 0) {
    v = lane < warps ? warp_xor[lane] : 0;
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
      v ^= __shfl_down_sync(KL_FULL_MASK, v, offset);
  }
  return v;
}

/* W: the element's word (unsigned for f32, unsigned long long for f64).
 * 32 registers a thread keep two blocks of 1024 on an SM. */
template <typename W>
__global__ __launch_bounds__(READ_BLOCK, 2048 / READ_BLOCK) void read_kernel(
    const W *__restrict__ a, int64_t n, unsigned long long *x,
    unsigned long long *partials, unsigned int *counter) {
  const int64_t per = 16 / sizeof(W);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t vectors = n / per; /* cudaMalloc'd: 256-byte aligned */
  const uint4 *v = (const uint4 *)a;
  W acc[READ_DEPTH];
#pragma unroll
  for (int k = 0; k < READ_DEPTH; k++) acc[k] = 0;
  int64_t i = first;
  for (; i + (READ_DEPTH - 1) * stride < vectors; i += READ_DEPTH * stride) {
    uint4 raw[READ_DEPTH];
#pragma unroll
    for (int k = 0; k < READ_DEPTH; k++)
      raw[k] = kl_load_streaming(v + i + k * stride);
#pragma unroll
    for (int k = 0; k < READ_DEPTH; k++) acc[k] ^= fold16<W>(raw[k]);
  }
  for (; i < vectors; i += stride) acc[0] ^= fold16<W>(kl_load_streaming(v + i));
  for (int64_t j = vectors * per + first; j < n; j += stride) acc[1] ^= a[j];
#pragma unroll
  for (int k = 1; k < READ_DEPTH; k++) acc[0] ^= acc[k];

  unsigned long long r = block_xor((unsigned long long)acc[0]);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = r;
    __threadfence();
    last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  r = 0;
  /* Written by other multiprocessors: read past this one's L1. */
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    r ^= *(const volatile unsigned long long *)&partials[b];
  __syncthreads(); /* block_xor's shared words are reused */
  r = block_xor(r);
  if (threadIdx.x == 0) *x = r;
}

template <typename W>
static unsigned grid_for(int64_t n, const kl_device *d) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, read_kernel<W>, READ_BLOCK, 0) != cudaSuccess ||
      per_sm < 1)
    per_sm = 1;
  const int64_t resident = (int64_t)per_sm * d->compute_units;
  const int64_t needed =
      kl__gpu_blocks(n, (int64_t)READ_BLOCK * (16 / sizeof(W)));
  return (unsigned)(needed < resident ? needed : resident);
}

static bool wide(const kl_plan *p) { return kl_type_size(p->type) == 8; }

/* A partial per block of the largest grid the device keeps resident. */
extern "C" kl_status kl__read_gpu_scratch(kl_plan *p) {
  KL_TRY(kl__plan_has_device(p));
  const int64_t blocks = (int64_t)p->device->compute_units *
                         (p->device->max_threads_per_unit / READ_BLOCK + 1);
  kl_status st = kl__plan_scratch(p, READ_PARTIALS, "partials", KL_U64,
                                  blocks, KL_MEM_DEVICE, 0);
  /* The counter starts at zero; the last block leaves it so. */
  if (st == KL_OK)
    st = kl__plan_scratch(p, READ_RETIRED, "retired", KL_I32, 1,
                          KL_MEM_DEVICE, KL_BUFFER_ZEROED);
  return st;
}

extern "C" kl_status kl__read_gpu_setup(kl_args *a) {
  const kl_device *d = &a->ctx->device;
  a->state.integer[0] = wide(a->plan) ? grid_for<unsigned long long>(a->plan->n, d)
                                      : grid_for<unsigned>(a->plan->n, d);
  return KL_OK;
}

template <typename W>
static kl_status launch(const kl_args *a) {
  read_kernel<W><<<(unsigned)a->state.integer[0], READ_BLOCK, 0,
                   (cudaStream_t)a->stream>>>(
      (const W *)a->buffers[READ_A], a->plan->n,
      (unsigned long long *)a->buffers[READ_X],
      (unsigned long long *)a->buffers[READ_PARTIALS],
      (unsigned int *)a->buffers[READ_RETIRED]);
  KL_GPU_CHECK_LAUNCH(read_kernel<W>);
  return KL_OK;
}

extern "C" kl_status kl__read_gpu(const kl_args *a) {
  if (wide(a->plan)) return launch<unsigned long long>(a);
  return launch<unsigned>(a);
}
