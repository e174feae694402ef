/* The reduce ladder on the GPU, from the seeds' racy kernel to a one-pass
 * kernel with 16-byte loads, and CUB as the reference. Every kernel is a
 * template over the operation OP, the input type T and the accumulator A
 * (sums widen: int -> long long, float -> double); each rung's entry,
 * after its launcher, picks the instance from the plan (REDUCE_DISPATCH).
 * Grids are sized by the context's device (a->ctx->device). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/gpu-reduce.h"
#include "reduce.h"


/* Elements each thread of the seed's grid-stride kernels handles. */
#define PER_THREAD 100
#define TREE_BLOCK 256
#define ANY_BLOCK 1000 /* not a power of two, on purpose */
#define BEST_BLOCK 1024
#define BEST_DEPTH 4 /* 16-byte loads in flight per thread */

/* The rungs' scratch, buffers of the plan (kl__reduce_gpu_scratch). */
#define PARTIALS(a) ((a)->buffers[REDUCE_PARTIALS])
#define RETIRED(a) ((unsigned int *)(a)->buffers[REDUCE_RETIRED])
#define HOST_PARTIALS(a) ((a)->buffers[REDUCE_HOST_PARTIALS])
/* The persistent grid of the best rung, worked out by the setup. */
#define BEST_BLOCKS(a) ((int)(a)->state.integer[0])
#define BEST_THREADS(a) ((int)(a)->state.integer[1])

extern __shared__ __align__(16) unsigned char dynamic_shared[];

template <int OP, typename A>
__global__ void set_identity(A *out) {
  *out = kl_identity<OP, A>();
}

template <int OP, typename A>
static kl_status start_at_identity(A *out, cudaStream_t s) {
  set_identity<OP, A><<<1, 1, 0, s>>>(out);
  KL_GPU_CHECK_LAUNCH(set_identity);
  return KL_OK;
}

/* The rungs that combine into the output as they go: start it at the
 * operation's identity, then launch threads of block size over n elements,
 * per_block elements to a block, in chunks of at most the largest grid. */
template <typename T, typename A>
using into_output_kernel = void (*)(const T *, A *, int64_t);

template <int OP, typename T, typename A>
static kl_status into_output(const kl_args *a, into_output_kernel<T, A> kernel,
                             int threads, int64_t per_block,
                             const char *name) {
  cudaStream_t s = (cudaStream_t)a->stream;
  A *out = (A *)a->buffers[REDUCE_OUT];
  kl_status st = start_at_identity<OP>(out, s);
  if (st != KL_OK) return st;
  const T *x = (const T *)a->buffers[REDUCE_IN];
  KL_GPU_CHUNKS(REDUCE_N(a->plan), per_block, offset, count) {
    kernel<<<kl__gpu_blocks(count, per_block), threads, 0, s>>>(x + offset,
                                                                 out, count);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
      return KL_FAIL(KL_DEVICE, "launch of %s failed: %s", name,
                     cudaGetErrorString(err));
  }
  return KL_OK;
}

static __device__ int64_t thread_index(void) {
  return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ int64_t grid_threads(void) {
  return (int64_t)gridDim.x * blockDim.x;
}

/* The partials rungs' count: one per warp-sized block of PER_THREAD
 * elements a thread. */
static unsigned partial_count(int64_t n, int lanes) {
  return kl__gpu_blocks(n, (int64_t)lanes * PER_THREAD);
}

/* ---- scratch of every GPU rung ------------------------------------------- */

extern "C" kl_status kl__reduce_gpu_scratch(kl_plan *p) {
  /* Room for the largest partial count of any rung: one per warp of the
   * partials rungs, or one per block of a resident grid; 8 bytes hold any
   * accumulator. The warp is that of the device the plan is made for (the
   * run's context's). */
  KL_TRY(kl__plan_has_device(p));
  int64_t capacity = partial_count(REDUCE_N(p), p->device->lanes);
  if (capacity < 65536) capacity = 65536;
  kl_status st = kl__plan_scratch(p, REDUCE_PARTIALS, "partials", KL_U8,
                                  8 * capacity, KL_MEM_DEVICE, 0);
  /* The retirement counter starts at zero; the last block leaves it so. */
  if (st == KL_OK)
    st = kl__plan_scratch(p, REDUCE_RETIRED, "retired", KL_I32, 1,
                          KL_MEM_DEVICE, KL_BUFFER_ZEROED);
  if (st == KL_OK)
    st = kl__plan_scratch(p, REDUCE_HOST_PARTIALS, "host partials", KL_U8,
                          8 * capacity, KL_MEM_PAGEABLE, 0);
  return st;
}

/* ---- 1. the seed's race: read, combine, write back, unguarded ---------- */

template <int OP, typename T, typename A>
__global__ void racy_kernel(const T *__restrict__ x, A *out, int64_t n) {
  int64_t i = thread_index();
  /* volatile keeps one load and one store per thread, as the seed wrote
   * it; threads overwrite each other's updates, which is the lesson. */
  volatile A *target = out;
  if (i < n) *target = kl_combine<OP>(*target, (A)x[i]);
}

template <int OP, typename T, typename A>
static kl_status racy(const kl_args *a) {
  return into_output<OP, T, A>(a, racy_kernel<OP, T, A>, 256, 256,
                               "racy_kernel");
}

extern "C" kl_status kl__reduce_gpu_racy(const kl_args *a) {
  REDUCE_DISPATCH(racy, a, a);
}

/* ---- 2. one global atomic per element ----------------------------------- */

template <int OP, typename T, typename A>
__global__ void atomic_kernel(const T *__restrict__ x, A *out, int64_t n) {
  int64_t i = thread_index();
  if (i < n) kl_atomic<OP>(out, (A)x[i]);
}

template <int OP, typename T, typename A>
static kl_status atomic(const kl_args *a) {
  return into_output<OP, T, A>(a, atomic_kernel<OP, T, A>, 256, 256,
                               "atomic_kernel");
}

extern "C" kl_status kl__reduce_gpu_atomic(const kl_args *a) {
  REDUCE_DISPATCH(atomic, a, a);
}

/* ---- 3. shared-memory atomics, one global atomic per block -------------- */

template <int OP, typename T, typename A>
__global__ void shared_atomic_kernel(const T *__restrict__ x, A *out,
                                     int64_t n) {
  __shared__ A block_result;
  int64_t i = thread_index();
  if (threadIdx.x == 0) block_result = kl_identity<OP, A>();
  __syncthreads();
  if (i < n) kl_atomic<OP>(&block_result, (A)x[i]);
  __syncthreads();
  if (threadIdx.x == 0) kl_atomic<OP>(out, block_result);
}

template <int OP, typename T, typename A>
static kl_status shared_atomic(const kl_args *a) {
  return into_output<OP, T, A>(a, shared_atomic_kernel<OP, T, A>, 256, 256,
                               "shared_atomic_kernel");
}

extern "C" kl_status kl__reduce_gpu_shared_atomic(const kl_args *a) {
  REDUCE_DISPATCH(shared_atomic, a, a);
}

/* ---- 4 and 5. warp shuffles, one shared atomic per warp ----------------- */

/* per_thread elements per thread, strided by the whole grid; then the
 * warp's sum by shuffles, one shared atomic per warp and one global atomic
 * per block. Rung 4 runs it with one element per thread, rung 5 with
 * PER_THREAD. */
template <int OP, typename T, typename A>
__global__ __launch_bounds__(1024) void shuffle_kernel(
    const T *__restrict__ x, A *out, int64_t n) {
  __shared__ A block_result;
  if (threadIdx.x == 0) block_result = kl_identity<OP, A>();
  __syncthreads();
  A v = kl_identity<OP, A>();
  for (int64_t i = thread_index(); i < n; i += grid_threads())
    v = kl_combine<OP>(v, (A)x[i]);
  v = kl_warp_reduce<OP>(v);
  if (threadIdx.x % warpSize == 0) kl_atomic<OP>(&block_result, v);
  __syncthreads();
  if (threadIdx.x == 0) kl_atomic<OP>(out, block_result);
}

template <int OP, typename T, typename A>
static kl_status warp_shuffle(const kl_args *a) {
  return into_output<OP, T, A>(a, shuffle_kernel<OP, T, A>, 1024, 1024,
                               "shuffle_kernel");
}

extern "C" kl_status kl__reduce_gpu_warp_shuffle(const kl_args *a) {
  REDUCE_DISPATCH(warp_shuffle, a, a);
}

template <int OP, typename T, typename A>
static kl_status grid_stride(const kl_args *a) {
  return into_output<OP, T, A>(a, shuffle_kernel<OP, T, A>, 1024,
                               1024 * PER_THREAD, "shuffle_kernel");
}

extern "C" kl_status kl__reduce_gpu_grid_stride(const kl_args *a) {
  REDUCE_DISPATCH(grid_stride, a, a);
}

/* ---- 6 and 7. one partial per warp -------------------------------------- */

/* Blocks of one warp each; lane 0 stores the warp's result. */
template <int OP, typename T, typename A>
__global__ void warp_partials_kernel(const T *__restrict__ x, A *partials,
                                     int64_t n) {
  A v = kl_identity<OP, A>();
  for (int64_t i = thread_index(); i < n; i += grid_threads())
    v = kl_combine<OP>(v, (A)x[i]);
  v = kl_warp_reduce<OP>(v);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

template <int OP, typename T, typename A>
static kl_status warp_partials(const kl_args *a, unsigned blocks) {
  warp_partials_kernel<OP, T, A>
      <<<blocks, a->ctx->device.lanes, 0, (cudaStream_t)a->stream>>>(
          (const T *)a->buffers[REDUCE_IN], (A *)PARTIALS(a), REDUCE_N(a->plan));
  KL_GPU_CHECK_LAUNCH(warp_partials_kernel);
  return KL_OK;
}

template <int OP, typename T, typename A>
static kl_status partials_host(const kl_args *a) {
  cudaStream_t s = (cudaStream_t)a->stream;
  unsigned blocks = partial_count(REDUCE_N(a->plan), a->ctx->device.lanes);
  kl_status st = warp_partials<OP, T, A>(a, blocks);
  if (st != KL_OK) return st;
  A *host = (A *)HOST_PARTIALS(a);
  KL_GPU_CHECK(cudaMemcpyAsync(host, PARTIALS(a), sizeof(A) * blocks,
                               cudaMemcpyDeviceToHost, s));
  KL_GPU_CHECK(cudaStreamSynchronize(s));
  A result = kl_identity<OP, A>();
  for (unsigned b = 0; b < blocks; b++) result = kl_combine<OP>(result, host[b]);
  host[0] = result;
  KL_GPU_CHECK(cudaMemcpyAsync(a->buffers[REDUCE_OUT], host, sizeof(A),
                               cudaMemcpyHostToDevice, s));
  /* The host copy must not change before the copy has read it. */
  KL_GPU_CHECK(cudaStreamSynchronize(s));
  return KL_OK;
}

extern "C" kl_status kl__reduce_gpu_partials_host(const kl_args *a) {
  REDUCE_DISPATCH(partials_host, a, a);
}

/* The partials, read 16 bytes at a time by one block. */
template <int OP, typename A>
__global__ void sum_partials_kernel(const A *__restrict__ partials, A *out,
                                    int64_t count) {
  const int per_load = 16 / sizeof(A);
  const int64_t loads = count / per_load;
  A v = kl_identity<OP, A>();
  for (int64_t i = threadIdx.x; i < loads; i += blockDim.x) {
    uint4 raw = ((const uint4 *)partials)[i];
    A part[16 / sizeof(A)];
    memcpy(part, &raw, sizeof raw);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(A); k++) v = kl_combine<OP>(v, part[k]);
  }
  for (int64_t i = loads * per_load + threadIdx.x; i < count; i += blockDim.x)
    v = kl_combine<OP>(v, partials[i]);
  v = kl_block_reduce<OP>(v);
  if (threadIdx.x == 0) *out = v;
}

template <int OP, typename T, typename A>
static kl_status partials_device(const kl_args *a) {
  unsigned blocks = partial_count(REDUCE_N(a->plan), a->ctx->device.lanes);
  kl_status st = warp_partials<OP, T, A>(a, blocks);
  if (st != KL_OK) return st;
  sum_partials_kernel<OP, A><<<1, 1024, 0, (cudaStream_t)a->stream>>>(
      (const A *)PARTIALS(a), (A *)a->buffers[REDUCE_OUT], blocks);
  KL_GPU_CHECK_LAUNCH(sum_partials_kernel);
  return KL_OK;
}

extern "C" kl_status kl__reduce_gpu_partials_device(const kl_args *a) {
  REDUCE_DISPATCH(partials_device, a, a);
}

/* ---- 8. two passes, tree in shared memory (seed 004's reduction1) ------- */

/* The last warp's step by shuffles: sh[0 .. live) hold the partials. */
template <int OP, typename A>
static __device__ A finish_in_warp(const A *sh, int live) {
  A v = kl_identity<OP, A>();
  if ((int)threadIdx.x < warpSize) {
    if ((int)threadIdx.x < live) v = sh[threadIdx.x];
    v = kl_warp_reduce<OP>(v);
  }
  return v;
}

/* The tree for power-of-two block sizes, halving until one warp's worth
 * of partials is left. The seed went on with warp-synchronous volatile
 * shared-memory steps; with independent thread scheduling those race, so
 * the last steps are shuffles instead. Returns in thread 0. */
template <int OP, typename A>
static __device__ A tree_pow2(A *sh, A v, int size) {
  const int tid = threadIdx.x;
  for (int half = size / 2; half >= warpSize; half /= 2) {
    if (tid < half) sh[tid] = kl_combine<OP>(sh[tid], sh[tid + half]);
    __syncthreads();
  }
  v = finish_in_warp<OP>(sh, size < warpSize ? size : warpSize);
  __syncthreads(); /* sh may be reused */
  return v;
}

/* Any block size: fold the part above the largest power of two onto the
 * part below, then the power-of-two tree. */
template <int OP, typename A>
static __device__ A tree_any(A *sh, A v) {
  const int tid = threadIdx.x;
  int pow2 = blockDim.x;
  while (pow2 & (pow2 - 1)) pow2 &= pow2 - 1;
  sh[tid] = v;
  __syncthreads();
  if (tid >= pow2) sh[tid - pow2] = kl_combine<OP>(sh[tid - pow2], sh[tid]);
  __syncthreads();
  return tree_pow2<OP>(sh, v, pow2);
}

template <int OP, typename TIN, typename A>
static __device__ A strided_partial(const TIN *__restrict__ in, int64_t n) {
  A v = kl_identity<OP, A>();
  for (int64_t i = thread_index(); i < n; i += grid_threads())
    v = kl_combine<OP>(v, (A)in[i]);
  return v;
}

/* One pass of the two-pass scheme: out[block] = the block's result. The
 * block size must be a power of two. */
template <int OP, typename TIN, typename A>
__global__ void tree_kernel(const TIN *__restrict__ in, A *out, int64_t n) {
  A *sh = (A *)dynamic_shared;
  A v = strided_partial<OP, TIN, A>(in, n);
  sh[threadIdx.x] = v;
  __syncthreads();
  v = tree_pow2<OP>(sh, v, blockDim.x);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* The same for any block size. */
template <int OP, typename TIN, typename A>
__global__ void tree_any_kernel(const TIN *__restrict__ in, A *out,
                                int64_t n) {
  A *sh = (A *)dynamic_shared;
  A v = tree_any<OP>(sh, strided_partial<OP, TIN, A>(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* The same with the block size a compile-time constant: every loop bound
 * is known, so the tree unrolls into straight-line code. */
template <int BLOCK, int OP, typename TIN, typename A>
__global__ __launch_bounds__(BLOCK) void tree_unrolled_kernel(
    const TIN *__restrict__ in, A *out, int64_t n) {
  __shared__ A sh[BLOCK];
  const int tid = threadIdx.x;
  A v = kl_identity<OP, A>();
  for (int64_t i = (int64_t)blockIdx.x * BLOCK + tid; i < n;
       i += (int64_t)gridDim.x * BLOCK)
    v = kl_combine<OP>(v, (A)in[i]);
  sh[tid] = v;
  __syncthreads();
#pragma unroll
  for (int half = BLOCK / 2; half > 0; half /= 2) {
    if (half < warpSize) break;
    if (tid < half) sh[tid] = kl_combine<OP>(sh[tid], sh[tid + half]);
    __syncthreads();
  }
  v = finish_in_warp<OP>(sh, BLOCK < warpSize ? BLOCK : warpSize);
  if (tid == 0) out[blockIdx.x] = v;
}

/* Blocks for a grid that fills the device once, or fewer for small n. */
static unsigned resident_grid(const kl_args *a, int block) {
  const kl_device *d = &a->ctx->device;
  const int64_t n = REDUCE_N(a->plan);
  int64_t resident = (int64_t)d->compute_units *
                     (d->max_threads_per_unit / block);
  int64_t needed = kl__gpu_blocks(n, block);
  return (unsigned)(needed < resident ? needed : resident);
}

enum { TREE_POW2, TREE_UNROLLED, TREE_ANY };

template <int OP, typename T, typename A>
static kl_status tree_launch(const kl_args *a, int kind) {
  cudaStream_t s = (cudaStream_t)a->stream;
  const int block = kind == TREE_ANY ? ANY_BLOCK : TREE_BLOCK;
  const unsigned blocks = resident_grid(a, block);
  const size_t shared = sizeof(A) * block;
  const T *x = (const T *)a->buffers[REDUCE_IN];
  A *partials = (A *)PARTIALS(a), *out = (A *)a->buffers[REDUCE_OUT];
  if (kind == TREE_UNROLLED) {
    tree_unrolled_kernel<TREE_BLOCK, OP, T, A>
        <<<blocks, TREE_BLOCK, 0, s>>>(x, partials, REDUCE_N(a->plan));
    KL_GPU_CHECK_LAUNCH(tree_unrolled_kernel);
    tree_unrolled_kernel<TREE_BLOCK, OP, A, A>
        <<<1, TREE_BLOCK, 0, s>>>(partials, out, blocks);
    KL_GPU_CHECK_LAUNCH(tree_unrolled_kernel);
  } else if (kind == TREE_ANY) {
    tree_any_kernel<OP, T, A><<<blocks, block, shared, s>>>(x, partials,
                                                           REDUCE_N(a->plan));
    KL_GPU_CHECK_LAUNCH(tree_any_kernel);
    tree_any_kernel<OP, A, A><<<1, block, shared, s>>>(partials, out, blocks);
    KL_GPU_CHECK_LAUNCH(tree_any_kernel);
  } else {
    tree_kernel<OP, T, A><<<blocks, block, shared, s>>>(x, partials,
                                                       REDUCE_N(a->plan));
    KL_GPU_CHECK_LAUNCH(tree_kernel);
    tree_kernel<OP, A, A><<<1, block, shared, s>>>(partials, out, blocks);
    KL_GPU_CHECK_LAUNCH(tree_kernel);
  }
  return KL_OK;
}

template <int OP, typename T, typename A>
static kl_status tree(const kl_args *a) {
  return tree_launch<OP, T, A>(a, TREE_POW2);
}

extern "C" kl_status kl__reduce_gpu_tree(const kl_args *a) {
  REDUCE_DISPATCH(tree, a, a);
}

template <int OP, typename T, typename A>
static kl_status tree_unrolled(const kl_args *a) {
  return tree_launch<OP, T, A>(a, TREE_UNROLLED);
}

extern "C" kl_status kl__reduce_gpu_tree_unrolled(const kl_args *a) {
  REDUCE_DISPATCH(tree_unrolled, a, a);
}

template <int OP, typename T, typename A>
static kl_status tree_any_block(const kl_args *a) {
  return tree_launch<OP, T, A>(a, TREE_ANY);
}

extern "C" kl_status kl__reduce_gpu_tree_any_block(const kl_args *a) {
  REDUCE_DISPATCH(tree_any_block, a, a);
}

/* ---- 9. one pass, one atomic per block (reduction2) --------------------- */

template <int OP, typename T, typename A>
__global__ void tree_atomic_kernel(const T *__restrict__ x, A *out,
                                   int64_t n) {
  A *sh = (A *)dynamic_shared;
  A v = tree_any<OP>(sh, strided_partial<OP, T, A>(x, n));
  if (threadIdx.x == 0) kl_atomic<OP>(out, v);
}

template <int OP, typename T, typename A>
static kl_status single_pass_atomic(const kl_args *a) {
  cudaStream_t s = (cudaStream_t)a->stream;
  A *out = (A *)a->buffers[REDUCE_OUT];
  kl_status st = start_at_identity<OP>(out, s);
  if (st != KL_OK) return st;
  tree_atomic_kernel<OP, T, A>
      <<<resident_grid(a, TREE_BLOCK), TREE_BLOCK,
         sizeof(A) * TREE_BLOCK, s>>>((const T *)a->buffers[REDUCE_IN], out,
                                      REDUCE_N(a->plan));
  KL_GPU_CHECK_LAUNCH(tree_atomic_kernel);
  return KL_OK;
}

extern "C" kl_status kl__reduce_gpu_single_pass_atomic(const kl_args *a) {
  REDUCE_DISPATCH(single_pass_atomic, a, a);
}

/* ---- 10. one pass, fence and retirement counter (reduction3) ------------ */

/* Every block stores its partial, fences it out to the device, and takes a
 * ticket; the block that takes the last ticket knows every partial is
 * visible and combines them. atomicInc with limit gridDim.x - 1 wraps the
 * counter back to zero on that last ticket, ready for the next launch. */
template <int OP, typename A>
static __device__ bool retire(A v, A *partials, unsigned int *counter) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    __threadfence();
    last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  return last;
}

/* The partials were written by other multiprocessors: read them past this
 * one's L1, which is not coherent with theirs. */
template <typename A>
static __device__ A load_fresh(const A *p) {
  return *(const volatile A *)p;
}

template <int OP, typename T, typename A>
__global__ void fence_kernel(const T *__restrict__ x, A *out, A *partials,
                             unsigned int *counter, int64_t n) {
  A *sh = (A *)dynamic_shared;
  A v = tree_any<OP>(sh, strided_partial<OP, T, A>(x, n));
  if (!retire<OP>(v, partials, counter)) return;
  v = kl_identity<OP, A>();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    v = kl_combine<OP>(v, load_fresh(&partials[b]));
  v = tree_any<OP>(sh, v);
  if (threadIdx.x == 0) *out = v;
}

template <int OP, typename T, typename A>
static kl_status single_pass_fence(const kl_args *a) {
  fence_kernel<OP, T, A>
      <<<resident_grid(a, TREE_BLOCK), TREE_BLOCK,
         sizeof(A) * TREE_BLOCK, (cudaStream_t)a->stream>>>(
          (const T *)a->buffers[REDUCE_IN], (A *)a->buffers[REDUCE_OUT],
          (A *)PARTIALS(a), RETIRED(a), REDUCE_N(a->plan));
  KL_GPU_CHECK_LAUNCH(fence_kernel);
  return KL_OK;
}

extern "C" kl_status kl__reduce_gpu_single_pass_fence(const kl_args *a) {
  REDUCE_DISPATCH(single_pass_fence, a, a);
}

/* ---- 11. the fastest: 16-byte loads, several in flight, one pass -------- */

/* A persistent grid (as many blocks as fit at once) strides over the array
 * in 16-byte vectors, BEST_DEPTH loads issued before the first is used and
 * as many independent accumulators, so each thread keeps 64 bytes in
 * flight. Elements before the first 16-byte boundary and after the last
 * whole vector are done one by one. Then a shuffle-based block reduction
 * and the retirement counter: one launch, no atomics on the data, and the
 * same combining order in every run. */
/* Two blocks of 1024 per SM fill its 2048 threads only at <= 32 registers
 * a thread; left alone the compiler took 44-48, which halved residency and
 * cost 3-7% of bandwidth. At 32 nothing spills. */
template <int OP, typename T, typename A>
__global__ __launch_bounds__(BEST_BLOCK, 2048 / BEST_BLOCK) void best_kernel(
    const T *__restrict__ x, A *out, A *partials, unsigned int *counter,
    int64_t n) {
  const int per_vector = 16 / sizeof(T);
  const int64_t tid = thread_index(), stride = grid_threads();
  int64_t head = (int64_t)((16 - ((uintptr_t)x & 15)) & 15) / (int64_t)sizeof(T);
  if ((uintptr_t)x % sizeof(T) != 0 || head > n) head = n;
  const int64_t vectors = (n - head) / per_vector;
  const uint4 *xv = (const uint4 *)(x + head);

  A acc[BEST_DEPTH];
#pragma unroll
  for (int k = 0; k < BEST_DEPTH; k++) acc[k] = kl_identity<OP, A>();
  int64_t v = tid;
  for (; v + (BEST_DEPTH - 1) * stride < vectors; v += BEST_DEPTH * stride) {
    uint4 raw[BEST_DEPTH];
#pragma unroll
    for (int k = 0; k < BEST_DEPTH; k++)
      raw[k] = kl_load_streaming(xv + v + k * stride);
#pragma unroll
    for (int k = 0; k < BEST_DEPTH; k++) {
      T e[16 / sizeof(T)];
      memcpy(e, &raw[k], sizeof e);
#pragma unroll
      for (int j = 0; j < 16 / (int)sizeof(T); j++)
        acc[k] = kl_combine<OP>(acc[k], (A)e[j]);
    }
  }
  for (; v < vectors; v += stride) {
    uint4 raw = kl_load_streaming(xv + v);
    T e[16 / sizeof(T)];
    memcpy(e, &raw, sizeof e);
#pragma unroll
    for (int j = 0; j < 16 / (int)sizeof(T); j++)
      acc[0] = kl_combine<OP>(acc[0], (A)e[j]);
  }
  for (int64_t i = tid; i < head; i += stride)
    acc[1 % BEST_DEPTH] = kl_combine<OP>(acc[1 % BEST_DEPTH], (A)x[i]);
  for (int64_t i = head + vectors * per_vector + tid; i < n; i += stride)
    acc[2 % BEST_DEPTH] = kl_combine<OP>(acc[2 % BEST_DEPTH], (A)x[i]);
#pragma unroll
  for (int k = 1; k < BEST_DEPTH; k++) acc[0] = kl_combine<OP>(acc[0], acc[k]);

  A r = kl_block_reduce<OP>(acc[0]);
  /* One block (a small array): no partials, no counter. */
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *out = r;
    return;
  }
  if (!retire<OP>(r, partials, counter)) return;
  r = kl_identity<OP, A>();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    r = kl_combine<OP>(r, load_fresh(&partials[b]));
  r = kl_block_reduce<OP>(r);
  if (threadIdx.x == 0) *out = r;
}

template <int OP, typename T, typename A>
static int best_grid(int64_t n, const kl_device *d) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, best_kernel<OP, T, A>, BEST_BLOCK, 0) != cudaSuccess ||
      per_sm < 1)
    per_sm = 1;
  int64_t resident = (int64_t)per_sm * d->compute_units;
  int64_t needed = kl__gpu_blocks(n, (int64_t)BEST_BLOCK * (16 / sizeof(T)));
  return (int)(needed < resident ? needed : resident);
}

template <int OP, typename T, typename A>
static kl_status best(const kl_args *a) {
  best_kernel<OP, T, A><<<BEST_BLOCKS(a), BEST_THREADS(a), 0,
                          (cudaStream_t)a->stream>>>(
      (const T *)a->buffers[REDUCE_IN], (A *)a->buffers[REDUCE_OUT],
      (A *)PARTIALS(a), RETIRED(a), REDUCE_N(a->plan));
  KL_GPU_CHECK_LAUNCH(best_kernel);
  return KL_OK;
}

extern "C" kl_status kl__reduce_gpu_best(const kl_args *a) {
  REDUCE_DISPATCH(best, a, a);
}

/* The setup of every GPU rung works out the best rung's persistent grid. */
template <int OP, typename T, typename A>
static int best_grid_for(const kl_args *a) {
  return best_grid<OP, T, A>(REDUCE_N(a->plan), &a->ctx->device);
}

static int best_blocks(const kl_args *a) {
  REDUCE_DISPATCH(best_grid_for, a, a);
}

/* A grid of one block (n up to BEST_BLOCK vectors) gets only the warps
 * that have BEST_DEPTH vectors to load: at 1K doubles 128 threads, not
 * 1024 of which 896 would only wait at the block's barriers. */
static int best_threads(const kl_args *a, int blocks) {
  if (blocks > 1) return BEST_BLOCK;
  const int64_t per_vector = 16 / kl_type_size(a->plan->type);
  const int64_t vectors = (REDUCE_N(a->plan) + per_vector - 1) / per_vector;
  const int64_t lanes = a->ctx->device.lanes > 0 ? a->ctx->device.lanes : 32;
  int64_t threads = (vectors + BEST_DEPTH - 1) / BEST_DEPTH;
  threads = (threads + lanes - 1) / lanes * lanes;
  return (int)(threads < BEST_BLOCK ? threads : BEST_BLOCK);
}

extern "C" kl_status kl__reduce_gpu_setup(kl_args *a) {
  a->state.integer[0] = best_blocks(a);
  a->state.integer[1] = best_threads(a, (int)a->state.integer[0]);
  return KL_OK;
}
