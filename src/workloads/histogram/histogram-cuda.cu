/* The histogram ladder on the GPU: seed 001's kernels (v1 to v4_5), made
 * to take any length and any alignment, then 16-byte loads on a
 * persistent grid with a block's, a warp's, and finally a bank's own
 * sub-histogram. Every kernel is a template over the count type C:
 * unsigned int below 2^32 bytes, unsigned long long from 2^32 on
 * (histogram.h). Shared-memory counters are 32-bit; a block never counts
 * more than 2^31 bytes (block_limit), so they cannot wrap. LESSONS.md has
 * the measurements behind each choice. */
#include "histogram-gpu.h"

#define SEED_BLOCK 256 /* the seed's block: one thread per bin */
#define FAT_WORDS 32   /* 4-byte words per thread in the fat kernels (N) */
#define PERSISTENT_BLOCK 1024
#define BEST_DEPTH 2 /* 16-byte loads in flight per thread */
/* The persistent grids, worked out by the setup (kl__histogram_gpu_setup). */
enum { GRID_VEC16, GRID_WARP, GRID_BEST };
#define PERSISTENT_GRID(a, k) ((int)(a)->state.integer[k])

extern __shared__ unsigned shared_counts[];

static __device__ int64_t thread_index(void) {
  return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ int64_t grid_threads(void) {
  return (int64_t)gridDim.x * blockDim.x;
}

template <typename C>
static __device__ __forceinline__ void count_global(C *counts, unsigned bin) {
  atomicAdd(counts + bin, (C)1);
}

/* ---- 1. one global atomic per byte [seed v1] -------------------------- */

template <typename C>
__global__ void global_atomic_kernel(const uint8_t *__restrict__ data,
                                     int64_t n, C *counts) {
  int64_t i = thread_index();
  if (i < n) count_global(counts, data[i]);
}

#define DATA(a) HIST_BYTES(a)
#define COUNTS(a) ((C *)(a)->buffers[HIST_COUNTS])

template <typename C>
static kl_status global_atomic(const kl_args *a) {
  kl_status st = start_counts<C>(a);
  if (st != KL_OK) return st;
  KL_GPU_CHUNKS(HIST_LENGTH(a->plan), SEED_BLOCK, offset, count) {
    global_atomic_kernel<C>
        <<<kl__gpu_blocks(count, SEED_BLOCK), SEED_BLOCK, 0,
           (cudaStream_t)a->stream>>>(DATA(a) + offset, count, COUNTS(a));
    KL_GPU_CHECK_LAUNCH(global_atomic_kernel);
  }
  return KL_OK;
}

extern "C" kl_status kl__histogram_gpu_global_atomic(const kl_args *a) {
  HIST_DISPATCH(global_atomic, a);
}

/* ---- the edges of the 4-byte-word kernels ------------------------------ */

/* The head and tail bytes around the aligned words, fewer than 4 each. */
template <typename C>
__global__ void edges_kernel(const uint8_t *__restrict__ data, int64_t n,
                             aligned_span s, int width, C *counts) {
  const int64_t t = threadIdx.x;
  if (t < s.head) count_global(counts, data[t]);
  const int64_t tail = s.head + s.words * width + t;
  if (t < width && tail < n) count_global(counts, data[tail]);
}

template <typename C>
static kl_status count_edges(const kl_args *a, aligned_span s, int width) {
  const int64_t n = HIST_LENGTH(a->plan);
  if (s.head == 0 && s.head + s.words * width == n) return KL_OK;
  edges_kernel<C><<<1, width, 0, (cudaStream_t)a->stream>>>(DATA(a), n, s,
                                                            width, COUNTS(a));
  KL_GPU_CHECK_LAUNCH(edges_kernel);
  return KL_OK;
}

/* ---- 2. four bytes per thread, global atomics [seed v2] ----------------- */

template <typename C>
__global__ void four_per_thread_kernel(const unsigned *__restrict__ words,
                                       int64_t count, C *counts) {
  int64_t i = thread_index();
  if (i >= count) return;
  unsigned w = words[i];
  for (int k = 0; k < 4; k++, w >>= 8) count_global(counts, w & 255u);
}

template <typename C>
static kl_status four_per_thread(const kl_args *a) {
  const aligned_span s = split_aligned<4>(DATA(a), HIST_LENGTH(a->plan));
  const unsigned *words = (const unsigned *)(DATA(a) + s.head);
  kl_status st = start_counts<C>(a);
  if (st == KL_OK) st = count_edges<C>(a, s, 4);
  if (st != KL_OK) return st;
  KL_GPU_CHUNKS(s.words, SEED_BLOCK, offset, count) {
    four_per_thread_kernel<C>
        <<<kl__gpu_blocks(count, SEED_BLOCK), SEED_BLOCK, 0,
           (cudaStream_t)a->stream>>>(words + offset, count, COUNTS(a));
    KL_GPU_CHECK_LAUNCH(four_per_thread_kernel);
  }
  return KL_OK;
}

extern "C" kl_status kl__histogram_gpu_four_per_thread(const kl_args *a) {
  HIST_DISPATCH(four_per_thread, a);
}

/* ---- 3 to 5. a shared histogram per block of 256 threads ---------------- */

/* Each thread counts per_thread words of count into its block's shared
 * histogram: word g*per_thread + k (CONTIGUOUS, seed v4_5) or g + k*T
 * (interleaved by the T threads of the grid, seeds v3 and v4); then one
 * global atomic per bin of the block. */
template <typename C, bool CONTIGUOUS>
__global__ __launch_bounds__(SEED_BLOCK) void shared_kernel(
    const unsigned *__restrict__ words, int64_t count, int per_thread,
    C *counts) {
  __shared__ unsigned block_counts[HIST_BINS];
  block_counts[threadIdx.x] = 0;
  __syncthreads();
  const int64_t g = thread_index(), threads = grid_threads();
  for (int k = 0; k < per_thread; k++) {
    const int64_t i = CONTIGUOUS ? g * per_thread + k : g + k * threads;
    if (i >= count) break;
    unsigned w = words[i];
    for (int b = 0; b < 4; b++, w >>= 8) atomicAdd(&block_counts[w & 255u], 1u);
  }
  __syncthreads();
  const unsigned mine = block_counts[threadIdx.x];
  if (mine) atomicAdd(counts + threadIdx.x, (C)mine);
}

template <typename C, bool CONTIGUOUS>
static kl_status shared_blocks(const kl_args *a, int per_thread) {
  const aligned_span s = split_aligned<4>(DATA(a), HIST_LENGTH(a->plan));
  const unsigned *words = (const unsigned *)(DATA(a) + s.head);
  kl_status st = start_counts<C>(a);
  if (st == KL_OK) st = count_edges<C>(a, s, 4);
  if (st != KL_OK) return st;
  const int64_t per_block = (int64_t)SEED_BLOCK * per_thread;
  KL_GPU_CHUNKS(s.words, per_block, offset, count) {
    shared_kernel<C, CONTIGUOUS>
        <<<kl__gpu_blocks(count, per_block), SEED_BLOCK, 0,
           (cudaStream_t)a->stream>>>(words + offset, count, per_thread,
                                      COUNTS(a));
    KL_GPU_CHECK_LAUNCH(shared_kernel);
  }
  return KL_OK;
}

template <typename C>
static kl_status shared(const kl_args *a) {
  return shared_blocks<C, false>(a, 1);
}

extern "C" kl_status kl__histogram_gpu_shared(const kl_args *a) {
  HIST_DISPATCH(shared, a);
}

template <typename C>
static kl_status fat_interleaved(const kl_args *a) {
  return shared_blocks<C, false>(a, FAT_WORDS);
}

extern "C" kl_status kl__histogram_gpu_fat_interleaved(const kl_args *a) {
  HIST_DISPATCH(fat_interleaved, a);
}

template <typename C>
static kl_status fat_contiguous(const kl_args *a) {
  return shared_blocks<C, true>(a, FAT_WORDS);
}

extern "C" kl_status kl__histogram_gpu_fat_contiguous(const kl_args *a) {
  HIST_DISPATCH(fat_contiguous, a);
}

/* ---- 6 to 8. 16-byte loads on a persistent grid ------------------------- */

/* Where a thread's counts go in shared memory: one histogram per block
 * (bin b at b), one per warp (at warp * 256 + b), or one per bank (bin b
 * of column c at b * BANKS + c, c = thread % BANKS: every lane of a warp
 * increments in a bank of its own, whatever the bytes). */
enum { PER_BLOCK, PER_WARP, PER_BANK };

template <int LAYOUT>
static __host__ __device__ int shared_words(int threads, int warp) {
  return LAYOUT == PER_BLOCK  ? HIST_BINS
         : LAYOUT == PER_WARP ? HIST_BINS * (threads / warp)
                              : HIST_BINS * BANKS;
}

template <int LAYOUT>
static __device__ __forceinline__ void count_byte(unsigned *mine,
                                                  unsigned byte) {
  atomicAdd(mine + byte * (LAYOUT == PER_BANK ? BANKS : 1), 1u);
}

template <int LAYOUT>
static __device__ __forceinline__ void count_word(unsigned *mine, unsigned w) {
#pragma unroll
  for (int k = 0; k < 4; k++) count_byte<LAYOUT>(mine, (w >> (8 * k)) & 255u);
}

template <int LAYOUT>
static __device__ __forceinline__ void count_vector(unsigned *mine, uint4 v) {
  count_word<LAYOUT>(mine, v.x);
  count_word<LAYOUT>(mine, v.y);
  count_word<LAYOUT>(mine, v.z);
  count_word<LAYOUT>(mine, v.w);
}

/* DEPTH loads of 16 bytes in flight per thread, strided by the grid; the
 * head and tail bytes by the first block; the block's sub-histograms
 * summed per bin into one global atomic each. */
template <typename C, int LAYOUT, int DEPTH>
__global__ __launch_bounds__(PERSISTENT_BLOCK) void persistent_kernel(
    const uint8_t *__restrict__ data, int64_t n, C *counts) {
  unsigned *h = shared_counts;
  const int words = shared_words<LAYOUT>(blockDim.x, warpSize);
  for (int i = threadIdx.x; i < words; i += blockDim.x) h[i] = 0;
  __syncthreads();
  unsigned *mine = LAYOUT == PER_BLOCK ? h
                   : LAYOUT == PER_WARP
                       ? h + HIST_BINS * (threadIdx.x / warpSize)
                       : h + threadIdx.x % BANKS;
  const aligned_span s = split_aligned<16>(data, n);
  const uint4 *v = (const uint4 *)(data + s.head);
  const int64_t stride = grid_threads();
  int64_t i = thread_index();
  for (; i + (DEPTH - 1) * stride < s.words; i += DEPTH * stride) {
    uint4 r[DEPTH];
#pragma unroll
    for (int d = 0; d < DEPTH; d++) r[d] = kl_load_streaming(v + i + d * stride);
#pragma unroll
    for (int d = 0; d < DEPTH; d++) count_vector<LAYOUT>(mine, r[d]);
  }
  for (; i < s.words; i += stride) count_vector<LAYOUT>(mine, kl_load_streaming(v + i));
  if (blockIdx.x == 0) {
    const int64_t t = threadIdx.x, tail = s.head + s.words * 16 + t;
    if (t < s.head) count_byte<LAYOUT>(mine, data[t]);
    if (t < 16 && tail < n) count_byte<LAYOUT>(mine, data[tail]);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
    unsigned sum = 0;
    if (LAYOUT == PER_BLOCK) {
      sum = h[b];
    } else if (LAYOUT == PER_WARP) {
      for (int w = 0; w < (int)blockDim.x / warpSize; w++) sum += h[w * HIST_BINS + b];
    } else {
      sum = sum_columns(h, b);
    }
    if (sum) atomicAdd(counts + b, (C)sum);
  }
}

template <int LAYOUT>
static size_t persistent_shared_bytes(int lanes) {
  return sizeof(unsigned) *
         (size_t)shared_words<LAYOUT>(PERSISTENT_BLOCK, lanes);
}

template <typename C, int LAYOUT, int DEPTH>
static kl_status persistent(const kl_args *a, int resident) {
  kl_status st = start_counts<C>(a);
  if (st != KL_OK) return st;
  const int64_t n = HIST_LENGTH(a->plan);
  persistent_kernel<C, LAYOUT, DEPTH>
      <<<(unsigned)block_limit(n, resident), PERSISTENT_BLOCK,
         persistent_shared_bytes<LAYOUT>(a->ctx->device.lanes),
         (cudaStream_t)a->stream>>>(DATA(a), n, COUNTS(a));
  KL_GPU_CHECK_LAUNCH(persistent_kernel);
  return KL_OK;
}

template <typename C>
static kl_status vec16(const kl_args *a) {
  return persistent<C, PER_BLOCK, 4>(a, PERSISTENT_GRID(a, GRID_VEC16));
}

extern "C" kl_status kl__histogram_gpu_vec16(const kl_args *a) {
  HIST_DISPATCH(vec16, a);
}

template <typename C>
static kl_status warp_private(const kl_args *a) {
  return persistent<C, PER_WARP, 4>(a, PERSISTENT_GRID(a, GRID_WARP));
}

extern "C" kl_status kl__histogram_gpu_warp_private(const kl_args *a) {
  HIST_DISPATCH(warp_private, a);
}

template <typename C>
static kl_status best(const kl_args *a) {
  return persistent<C, PER_BANK, BEST_DEPTH>(a, PERSISTENT_GRID(a, GRID_BEST));
}

extern "C" kl_status kl__histogram_gpu_best(const kl_args *a) {
  HIST_DISPATCH(best, a);
}

/* ---- setup: the persistent grids ----------------------------------------- */

/* Blocks of the kernel resident on the whole device at once. */
template <typename C, int LAYOUT, int DEPTH>
static kl_status resident_blocks(const kl_device *d, int64_t *out) {
  int per_sm = 0;
  KL_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, persistent_kernel<C, LAYOUT, DEPTH>, PERSISTENT_BLOCK,
      persistent_shared_bytes<LAYOUT>(d->lanes)));
  *out = (int64_t)(per_sm > 0 ? per_sm : 1) * d->compute_units;
  return KL_OK;
}

template <typename C>
static kl_status grids(kl_args *a) {
  const kl_device *d = &a->ctx->device;
  int64_t *grid = a->state.integer;
  kl_status st = resident_blocks<C, PER_BLOCK, 4>(d, &grid[GRID_VEC16]);
  if (st == KL_OK)
    st = resident_blocks<C, PER_WARP, 4>(d, &grid[GRID_WARP]);
  if (st == KL_OK)
    st = resident_blocks<C, PER_BANK, BEST_DEPTH>(d, &grid[GRID_BEST]);
  return st;
}

extern "C" kl_status kl__histogram_gpu_setup(kl_args *a) {
  HIST_DISPATCH(grids, a);
}
