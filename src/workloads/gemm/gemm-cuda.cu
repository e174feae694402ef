/* The teaching rungs of gemm on the GPU (seed 000 §3.5.2-3.5.6): one
 * element per thread, square shared-memory tiles, register tiles, the same
 * register tile pushed into local memory, padded shared arrays and tiles
 * sized at run time. The fast rungs live in gemm-pipelined-cuda.cu and
 * gemm-dmma-nvidia.cu, cuBLAS in gemm-cublas.cu.
 *
 * Unlike the seed, which drops boundary checks from §3.5.4 on, every kernel
 * takes any m, n, k >= 1 and any leading dimensions: tiles that cross an
 * edge are loaded with zeros in the missing places and stored only where C
 * exists. That matters twice over here: A's and B's rows past m and k are
 * NaN (gemm.h), so a zero product must come from a zero, never from reading
 * past the edge; and C's rows past m belong to nobody.
 *
 * Every kernel is a template over the element type T (float or double);
 * the tile shapes are compile-time constants except in the dynamic rung,
 * whose point is that they are not. */
#include <stdint.h>
#include <string.h>

#include "../../backends/gpu.h"
#include "gemm.h"

/* gridDim.y and gridDim.z stop at 65535 on both vendors; kernels loop over
 * the tiles a grid does not cover. */
#define GRID_Y_MAX 65535

/* Blocks of 256 threads with 8 x 8 float accumulators fit two to a
 * multiprocessor (65536 registers) only at <= 128 registers a thread: ask
 * the compiler for that. Double accumulators alone take 128, so one. */
#define MIN_BLOCKS(T, threads) (sizeof(T) == 4 && (threads) <= 256 ? 2 : 1)

static __host__ __device__ inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* A grid over tiles_m x tiles_n tiles, within the y limit and within
 * KL_GPU_MAX_BLOCKS blocks in all (HIP's work-item limit). */
static dim3 tile_grid(int64_t tiles_m, int64_t tiles_n) {
  int64_t gy = tiles_n < GRID_Y_MAX ? tiles_n : GRID_Y_MAX;
  int64_t gx_max = KL_GPU_MAX_BLOCKS / gy;
  int64_t gx = tiles_m < gx_max ? tiles_m : gx_max;
  return dim3((unsigned)(gx < 1 ? 1 : gx), (unsigned)(gy < 1 ? 1 : gy), 1);
}

/* Launch one of the rungs' kernels (they share a signature) over the
 * tiles of C, tile_m x tile_n elements each, on the rung's stream. */
template <typename T>
static kl_status launch_tiles(void (*kernel)(kl__gemm_shape, const T *,
                                             const T *, T *),
                              const char *name, int64_t tile_m,
                              int64_t tile_n, dim3 block, const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  kernel<<<tile_grid(cdiv(s.m, tile_m), cdiv(s.n, tile_n)), block, 0,
           (cudaStream_t)a->stream>>>(s, (const T *)a->buffers[GEMM_A],
                                      (const T *)a->buffers[GEMM_B],
                                      (T *)a->buffers[GEMM_C]);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return KL_FAIL(KL_DEVICE, "launch of %s failed: %s", name,
                   cudaGetErrorString(err));
  return KL_OK;
}
#define LAUNCH_TILES(kernel, tile_m, tile_n, block, a)                        \
  launch_tiles(kernel, #kernel, tile_m, tile_n, block, a)

/* A rung's entry: its launcher's instance for the plan's element type,
 * family<float> or family<double>. */
#define GEMM_DISPATCH(family, a)                                              \
  do {                                                                        \
    switch ((a)->plan->type) {                                                \
    case KL_F32:                                                              \
      return family<float>(a);                                                \
    case KL_F64:                                                              \
      return family<double>(a);                                               \
    default:                                                                  \
      return KL_FAIL(KL_UNAVAILABLE, "gemm " #family ": no %s kernel",       \
                     kl_type_name((a)->plan->type));                          \
    }                                                                         \
  } while (0)

/* C(i, j) = alpha acc + beta C(i, j), where C has that element. With beta
 * zero C is not read at all: the BLAS rule, and C holds NaN then. */
template <typename T>
static __device__ __forceinline__ void store_c(T *C, const kl__gemm_shape &s,
                                               int64_t i, int64_t j, T acc) {
  if (i >= s.m || j >= s.n) return;
  T *c = C + i + j * s.ldc;
  T v = (T)s.alpha * acc;
  if (s.beta != 0.0) v += (T)s.beta * *c;
  *c = v;
}

/* One column j of a thread's register tile: acc[I] goes to row
 * i0 + (I / G) * gap + (I % G) * STEP. Testing the column once and the
 * rows against one limit keeps the 64 stores of an 8 x 8 tile from holding
 * 64 addresses and predicates at once (28 registers more, measured). */
template <typename T, int NI, int G, int STEP>
static __device__ __forceinline__ void store_column(
    T *C, const kl__gemm_shape &s, int64_t i0, int64_t j, int gap,
    const T *acc) {
  if (j >= s.n) return;
  T *cj = C + i0 + j * s.ldc;
  const int64_t lim = s.m - i0;
  const T alpha = (T)s.alpha, beta = (T)s.beta;
#pragma unroll
  for (int I = 0; I < NI; I++) {
    const int off = (I / G) * gap + (I % G) * STEP;
    if (off < lim) {
      T v = alpha * acc[I];
      if (s.beta != 0.0) v += beta * cj[off];
      cj[off] = v;
    }
  }
}

/* 16-byte loads need a 16-byte aligned base and a leading dimension that
 * keeps every column on that boundary; an odd lda falls back to scalars. */
template <typename T>
static __device__ __forceinline__ bool vector_ok(const T *M, int64_t ld) {
  return ((uintptr_t)M & 15) == 0 && ld % (16 / (int64_t)sizeof(T)) == 0;
}

/* Four consecutive elements of shared memory, 16 bytes at a time: one
 * load for float, two for double. p must be 16-byte aligned. */
template <typename T>
static __device__ __forceinline__ void load4(const T *p, T *dst) {
#pragma unroll
  for (int q = 0; q < 4 * (int)sizeof(T) / 16; q++) {
    uint4 raw = ((const uint4 *)p)[q];
    memcpy(dst + q * (16 / sizeof(T)), &raw, 16);
  }
}

/* ---- tile loads with compile-time shapes ----------------------------------
 * A ROWS x COLS tile of the column-major matrix M, at (r0, c0), shared by
 * THREADS threads, in two steps so a kernel can issue the global loads of
 * the next tile before it computes on the current one:
 *   fetch_tile: global memory -> each thread's registers;
 *   stash_tile: registers -> shared memory, at S[r + c * LDS], or
 *               S[c + r * LDS] when TRANSPOSED.
 * Interior tiles of an aligned matrix move in 16-byte vectors (one column
 * segment of 16 / sizeof(T) rows per thread); tiles on an edge, and
 * matrices whose columns are not 16-byte aligned, move element by element
 * with zeros outside rows_lim x cols_lim. fetch_tile says which it did;
 * stash_tile must be told the same. */
template <typename T, int ROWS, int COLS, int THREADS>
struct tile_shape {
  static const int VEC = 16 / (int)sizeof(T);
  static const int PER = ROWS * COLS / THREADS; /* elements per thread */
  static const bool CAN_VEC =
      ROWS % VEC == 0 && (ROWS / VEC * COLS) % THREADS == 0;
  /* A thread keeps one row (or one vector of rows) and steps across the
   * columns by CSTEP (or VSTEP): one pointer and one stride a tile, where
   * independent (row, column) pairs per element kept a 64-bit offset each
   * live across the whole k loop and doubled the register count. */
  static const int CSTEP = THREADS / ROWS;
  static const int VSTEP = CAN_VEC ? THREADS / (ROWS / VEC) : 1;
};

template <typename T, int ROWS, int COLS, int THREADS>
static __device__ __forceinline__ bool fetch_tile(
    const T *__restrict__ M, int64_t ld, int64_t r0, int64_t c0,
    int64_t rows_lim, int64_t cols_lim, bool aligned, int tid, T *regs) {
  typedef tile_shape<T, ROWS, COLS, THREADS> sh;
  static_assert(THREADS % ROWS == 0 && COLS % (THREADS / ROWS) == 0,
                "a thread keeps one row of the tile");
  const bool vec = sh::CAN_VEC && aligned && r0 + ROWS <= rows_lim &&
                   c0 + COLS <= cols_lim;
  if (vec) {
    const int rv = tid % (ROWS / sh::VEC), c = tid / (ROWS / sh::VEC);
    const T *p = M + (r0 + rv * sh::VEC) + (c0 + c) * ld;
    const int64_t step = sh::VSTEP * ld;
#pragma unroll
    for (int t = 0; t < sh::PER / sh::VEC; t++, p += step) {
      uint4 raw = *(const uint4 *)p;
      memcpy(regs + t * sh::VEC, &raw, 16);
    }
  } else {
    const int64_t r = r0 + tid % ROWS, c = c0 + tid / ROWS;
    const T *p = M + r + c * ld;
    const int64_t step = sh::CSTEP * ld;
#pragma unroll
    for (int t = 0; t < sh::PER; t++, p += step)
      regs[t] = r < rows_lim && c + t * sh::CSTEP < cols_lim ? *p : (T)0;
  }
  return vec;
}

template <typename T, int ROWS, int COLS, int THREADS, int LDS,
          bool TRANSPOSED>
static __device__ __forceinline__ void stash_tile(T *S, bool vec, int tid,
                                                  const T *regs) {
  typedef tile_shape<T, ROWS, COLS, THREADS> sh;
  if (vec) {
    const int rv = tid % (ROWS / sh::VEC), c = tid / (ROWS / sh::VEC);
#pragma unroll
    for (int t = 0; t < sh::PER / sh::VEC; t++) {
      const int col = c + t * sh::VSTEP;
      if (!TRANSPOSED && LDS % sh::VEC == 0) {
        uint4 raw;
        memcpy(&raw, regs + t * sh::VEC, 16);
        *(uint4 *)(S + rv * sh::VEC + col * LDS) = raw;
      } else {
#pragma unroll
        for (int e = 0; e < sh::VEC; e++) {
          const int r = rv * sh::VEC + e;
          S[TRANSPOSED ? col + r * LDS : r + col * LDS] =
              regs[t * sh::VEC + e];
        }
      }
    }
  } else {
    const int r = tid % ROWS, c = tid / ROWS;
#pragma unroll
    for (int t = 0; t < sh::PER; t++) {
      const int col = c + t * sh::CSTEP;
      S[TRANSPOSED ? col + r * LDS : r + col * LDS] = regs[t];
    }
  }
}

/* ---- 1. naive: one element of C per thread (dcu.cc) ----------------------
 * 8 x 8 blocks, x along the rows so that neighbouring threads read
 * neighbouring elements of A's columns; both dimensions stride by the grid. */
#define NAIVE_BLOCK 8

template <typename T>
__global__ void naive_kernel(kl__gemm_shape s, const T *__restrict__ A,
                             const T *__restrict__ B, T *C) {
  const int64_t stride_i = (int64_t)gridDim.x * blockDim.x;
  const int64_t stride_j = (int64_t)gridDim.y * blockDim.y;
  for (int64_t j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; j < s.n;
       j += stride_j)
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < s.m;
         i += stride_i) {
      const T *a = A + i, *b = B + j * s.ldb;
      T acc = 0;
      for (int64_t l = 0; l < s.k; l++, a += s.lda) acc += *a * b[l];
      store_c(C, s, i, j, acc);
    }
}

template <typename T>
static kl_status naive(const kl_args *a) {
  return LAUNCH_TILES(naive_kernel<T>, NAIVE_BLOCK, NAIVE_BLOCK,
                      dim3(NAIVE_BLOCK, NAIVE_BLOCK), a);
}

extern "C" kl_status kl__gemm_gpu_naive(const kl_args *a) {
  GEMM_DISPATCH(naive, a);
}

/* ---- 2. square shared-memory tiles (shared.cc) ---------------------------
 * A block of TILE x TILE threads computes a TILE x TILE tile of C, one
 * element each, from TILE x TILE tiles of A and B staged in shared memory:
 * each element loaded from global memory serves TILE threads. The seed's
 * 8 x 8 block skipped the barriers because 64 threads were one DCU
 * wavefront; on 32-lane warps they are two, so every size synchronizes. */
template <typename T, int TILE>
__global__ __launch_bounds__(TILE *TILE) void shared_kernel(
    kl__gemm_shape s, const T *__restrict__ A, const T *__restrict__ B,
    T *C) {
  __shared__ T A_sub[TILE * TILE];
  __shared__ T B_sub[TILE * TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t tiles_m = cdiv(s.m, TILE), tiles_n = cdiv(s.n, TILE);
  for (int64_t ti = blockIdx.x; ti < tiles_m; ti += gridDim.x)
    for (int64_t tj = blockIdx.y; tj < tiles_n; tj += gridDim.y) {
      const int64_t row = ti * TILE + tx, col = tj * TILE + ty;
      T acc = 0;
      for (int64_t k0 = 0; k0 < s.k; k0 += TILE) {
        /* x runs down the columns of both tiles: coalesced reads. */
        A_sub[tx + ty * TILE] = row < s.m && k0 + ty < s.k
                                    ? A[row + (k0 + ty) * s.lda]
                                    : (T)0;
        B_sub[tx + ty * TILE] = k0 + tx < s.k && col < s.n
                                    ? B[(k0 + tx) + col * s.ldb]
                                    : (T)0;
        __syncthreads();
#pragma unroll
        for (int l = 0; l < TILE; l++)
          acc += A_sub[tx + l * TILE] * B_sub[l + ty * TILE];
        __syncthreads();
      }
      store_c(C, s, row, col, acc);
    }
}

template <typename T, int TILE>
static kl_status shared_tiles(const kl_args *a) {
  return LAUNCH_TILES((shared_kernel<T, TILE>), TILE, TILE, dim3(TILE, TILE),
                      a);
}

template <typename T>
static kl_status shared8(const kl_args *a) {
  return shared_tiles<T, 8>(a);
}

extern "C" kl_status kl__gemm_gpu_shared8(const kl_args *a) {
  GEMM_DISPATCH(shared8, a);
}
template <typename T>
static kl_status shared16(const kl_args *a) {
  return shared_tiles<T, 16>(a);
}

extern "C" kl_status kl__gemm_gpu_shared16(const kl_args *a) {
  GEMM_DISPATCH(shared16, a);
}
template <typename T>
static kl_status shared32(const kl_args *a) {
  return shared_tiles<T, 32>(a);
}

extern "C" kl_status kl__gemm_gpu_shared32(const kl_args *a) {
  GEMM_DISPATCH(shared32, a);
}

/* ---- 3. register tiles (more_elements.cc) --------------------------------
 * The seed's Nsub x Nsub_ naming: a block of BX x BY threads computes a
 * BM x BM tile of C from BM x BK tiles of A and BK x BM tiles of B, each
 * thread (BM / BX) x (BM / BY) elements spaced BX rows and BY columns
 * apart, as the seed lays them out: at each step of k a warp reads
 * consecutive elements of A_sub (no bank conflicts) and one or two columns
 * of B_sub (broadcasts).
 *
 * The accumulators are an array indexed only by the unrolled loops'
 * compile-time counters, so the compiler can give each element a register;
 * §3.5.5 (the local_memory rung) is what happens when it cannot. */
template <typename T, int BM, int BK, int BX, int BY, int UNROLL>
__global__ __launch_bounds__(BX *BY, MIN_BLOCKS(T, BX *BY)) void regtile_kernel(
    kl__gemm_shape s, const T *__restrict__ A, const T *__restrict__ B,
    T *C) {
  const int NX = BM / BX, NY = BM / BY, THREADS = BX * BY;
  typedef tile_shape<T, BM, BK, THREADS> a_tile;
  typedef tile_shape<T, BK, BM, THREADS> b_tile;
  __shared__ __align__(16) T A_sub[BM * BK]; /* A_sub[i + kk * BM] */
  __shared__ __align__(16) T B_sub[BK * BM]; /* B_sub[kk + j * BK] */
  const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + ty * BX;
  const bool a_aligned = vector_ok(A, s.lda), b_aligned = vector_ok(B, s.ldb);
  const int64_t tiles_m = cdiv(s.m, BM), tiles_n = cdiv(s.n, BM);
  for (int64_t ti = blockIdx.x; ti < tiles_m; ti += gridDim.x)
    for (int64_t tj = blockIdx.y; tj < tiles_n; tj += gridDim.y) {
      const int64_t r0 = ti * BM, c0 = tj * BM;
      T c[NX * NY];
#pragma unroll
      for (int q = 0; q < NX * NY; q++) c[q] = 0;
      for (int64_t k0 = 0; k0 < s.k; k0 += BK) {
        T ra[a_tile::PER], rb[b_tile::PER];
        const bool va = fetch_tile<T, BM, BK, THREADS>(
            A, s.lda, r0, k0, s.m, s.k, a_aligned, tid, ra);
        const bool vb = fetch_tile<T, BK, BM, THREADS>(
            B, s.ldb, k0, c0, s.k, s.n, b_aligned, tid, rb);
        stash_tile<T, BM, BK, THREADS, BM, false>(A_sub, va, tid, ra);
        stash_tile<T, BK, BM, THREADS, BK, false>(B_sub, vb, tid, rb);
        __syncthreads();
#pragma unroll UNROLL
        for (int kk = 0; kk < BK; kk++) {
          T av[NX], bv[NY];
#pragma unroll
          for (int I = 0; I < NX; I++) av[I] = A_sub[tx + I * BX + kk * BM];
#pragma unroll
          for (int J = 0; J < NY; J++) bv[J] = B_sub[kk + (ty + J * BY) * BK];
#pragma unroll
          for (int J = 0; J < NY; J++)
#pragma unroll
            for (int I = 0; I < NX; I++) c[I + J * NX] += av[I] * bv[J];
        }
        __syncthreads();
      }
#pragma unroll
      for (int J = 0; J < NY; J++)
        store_column<T, NX, NX, BX>(C, s, r0 + tx, c0 + ty + J * BY, 0,
                                    c + J * NX);
    }
}

template <typename T, int BM, int BK, int BX, int BY, int UNROLL>
static kl_status regtile(const kl_args *a) {
  return LAUNCH_TILES((regtile_kernel<T, BM, BK, BX, BY, UNROLL>), BM, BM,
                      dim3(BX, BY), a);
}

/* The seed's first configuration: Nsub = Nsub_ = 64 by 32 x 32 threads,
 * each thread 2 x 2 elements. The seed's two 64 x 64 double tiles filled
 * the DCU's 64 KiB exactly; NVIDIA caps static shared memory at 48 KiB a
 * block, so double keeps the 64 x 64 tile of C but takes k 32 at a time
 * (32 KiB for both types). */
template <typename T>
static kl_status regtile_64x64(const kl_args *a) {
  return regtile<T, 64, 256 / (int)sizeof(T), 32, 32, 256 / (int)sizeof(T)>(a);
}

extern "C" kl_status kl__gemm_gpu_regtile_64x64(const kl_args *a) {
  GEMM_DISPATCH(regtile_64x64, a);
}

/* The seed's best: Nsub = 128, Nsub_ = 16 by 16 x 16 threads, 8 x 8
 * elements a thread. Its k loop stays rolled: unrolled, the compiler runs
 * the shared loads of several steps ahead and needs 180 registers (float)
 * where 124 do, and with <= 128 two blocks fit on a multiprocessor. The
 * 64 x 64 kernel, four accumulators a thread, unrolls fully. */
template <typename T>
static kl_status regtile_128x16(const kl_args *a) {
  return regtile<T, 128, 16, 16, 16, 1>(a);
}

extern "C" kl_status kl__gemm_gpu_regtile_128x16(const kl_args *a) {
  GEMM_DISPATCH(regtile_128x16, a);
}

/* ---- 4. the accumulators in local memory (§3.5.5) ------------------------
 * regtile_128x16 with the seed's other way of writing the loops: striding
 * by blockDim, a value known only at run time, and indexing the
 * accumulators by i / blockDim.x. Registers cannot be indexed, so an array
 * the compiler cannot resolve to fixed elements at compile time lives in
 * local memory (the thread's slice of device memory, through L1), and every
 * += becomes a load and a store there. The results are right; the time is
 * the lesson: this rung is meant to be slow. */
#define LOCAL_BM 128
#define LOCAL_BK 16
#define LOCAL_B 16

template <typename T>
__global__ __launch_bounds__(LOCAL_B *LOCAL_B) void local_memory_kernel(
    kl__gemm_shape s, const T *__restrict__ A, const T *__restrict__ B,
    T *C) {
  const int NX = LOCAL_BM / LOCAL_B, NY = LOCAL_BM / LOCAL_B;
  const int THREADS = LOCAL_B * LOCAL_B;
  typedef tile_shape<T, LOCAL_BM, LOCAL_BK, THREADS> a_tile;
  typedef tile_shape<T, LOCAL_BK, LOCAL_BM, THREADS> b_tile;
  __shared__ __align__(16) T A_sub[LOCAL_BM * LOCAL_BK];
  __shared__ __align__(16) T B_sub[LOCAL_BK * LOCAL_BM];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + ty * blockDim.x;
  const bool a_aligned = vector_ok(A, s.lda), b_aligned = vector_ok(B, s.ldb);
  const int64_t tiles_m = cdiv(s.m, LOCAL_BM), tiles_n = cdiv(s.n, LOCAL_BM);
  for (int64_t ti = blockIdx.x; ti < tiles_m; ti += gridDim.x)
    for (int64_t tj = blockIdx.y; tj < tiles_n; tj += gridDim.y) {
      const int64_t r0 = ti * LOCAL_BM, c0 = tj * LOCAL_BM;
      T c[NX * NY];
      for (int q = 0; q < NX * NY; q++) c[q] = 0;
      for (int64_t k0 = 0; k0 < s.k; k0 += LOCAL_BK) {
        T ra[a_tile::PER], rb[b_tile::PER];
        const bool va = fetch_tile<T, LOCAL_BM, LOCAL_BK, THREADS>(
            A, s.lda, r0, k0, s.m, s.k, a_aligned, tid, ra);
        const bool vb = fetch_tile<T, LOCAL_BK, LOCAL_BM, THREADS>(
            B, s.ldb, k0, c0, s.k, s.n, b_aligned, tid, rb);
        stash_tile<T, LOCAL_BM, LOCAL_BK, THREADS, LOCAL_BM, false>(A_sub, va,
                                                                    tid, ra);
        stash_tile<T, LOCAL_BK, LOCAL_BM, THREADS, LOCAL_BK, false>(B_sub, vb,
                                                                    tid, rb);
        __syncthreads();
        for (int kk = 0; kk < LOCAL_BK; kk++)
          for (int j = ty; j < LOCAL_BM; j += blockDim.y)
            for (int i = tx; i < LOCAL_BM; i += blockDim.x)
              c[i / blockDim.x + (j / blockDim.y) * NX] +=
                  A_sub[i + kk * LOCAL_BM] * B_sub[kk + j * LOCAL_BK];
        __syncthreads();
      }
      for (int j = ty; j < LOCAL_BM; j += blockDim.y)
        for (int i = tx; i < LOCAL_BM; i += blockDim.x)
          store_c(C, s, r0 + i, c0 + j, c[i / blockDim.x + (j / blockDim.y) * NX]);
    }
}

template <typename T>
static kl_status local_memory(const kl_args *a) {
  return LAUNCH_TILES(local_memory_kernel<T>, LOCAL_BM, LOCAL_BM,
                      dim3(LOCAL_B, LOCAL_B), a);
}

extern "C" kl_status kl__gemm_gpu_local_memory(const kl_args *a) {
  GEMM_DISPATCH(local_memory, a);
}

/* c (8 x 8, column-major) += av bv^T: the rank-1 update of a k step, in
 * the padded and dynamic rungs. */
template <typename T>
static __device__ __forceinline__ void outer_product_8x8(T *c, const T *av,
                                                         const T *bv) {
#pragma unroll
  for (int J = 0; J < 8; J++)
#pragma unroll
    for (int I = 0; I < 8; I++) c[I + J * 8] += av[I] * bv[J];
}

/* ---- 5a. padded shared memory (§3.5.6) -----------------------------------
 * A 128 x 128 tile of C by 256 threads, 8 x 8 elements each, k 16 at a
 * time. Each thread owns two 4-row groups 64 rows apart and two 4-column
 * groups 64 columns apart, so that it reads its operands from shared memory
 * four at a time (16-byte loads): A_sub is stored k-major as loaded
 * (A_sub[i + kk * 128]), B_sub transposed (B_sub[j + kk * LDB]) so that a
 * thread's columns are contiguous too.
 *
 * The transpose is where banks collide: a thread fetches 16 bytes running
 * down one column of B and scatters them into 16 / sizeof(T) rows of B_sub;
 * with rows 128 elements long, every row starts in the same bank and the
 * threads of a warp land on a handful of banks, 4-way (float) or 8-way
 * (double). One 16-byte pad a row (the seed's extra row, here an extra 16
 * bytes to keep the 16-byte reads aligned) shifts each row four banks:
 * double becomes conflict-free, float 2-way.
 *
 * The global loads of the next k-slice are issued into registers before the
 * current one is multiplied, so their latency hides behind 16 x 64 FMAs.
 * The k loop is unrolled by UNROLL: 1 keeps float at 128 registers (two
 * blocks a multiprocessor); double, one block at any count, ran 10% faster
 * unrolled by 2 on the H100 (16.1 -> 17.7 TFLOP/s at 4096; 4 was slower). */
#define PAD_BM 128
#define PAD_BK 16
#define PAD_THREADS 256

template <typename T, int UNROLL>
__global__ __launch_bounds__(PAD_THREADS, MIN_BLOCKS(T, PAD_THREADS)) void padded_kernel(
    kl__gemm_shape s, const T *__restrict__ A, const T *__restrict__ B,
    T *C) {
  const int LDB = PAD_BM + 16 / (int)sizeof(T), HALF = PAD_BM / 2;
  typedef tile_shape<T, PAD_BM, PAD_BK, PAD_THREADS> a_tile;
  typedef tile_shape<T, PAD_BK, PAD_BM, PAD_THREADS> b_tile;
  __shared__ __align__(16) T A_sub[PAD_BK * PAD_BM];
  __shared__ __align__(16) T B_sub[PAD_BK * LDB];
  const int tid = threadIdx.x;
  /* 16 x 16 threads, arranged so that each run of 32 threads covers 8 row
   * groups x 4 column groups: its reads of A_sub then span 128 contiguous
   * bytes and of B_sub 64. (Any warp size is correct; 32 is fastest.) */
  const int tr = tid % 8 + 8 * (tid / 32 % 2);
  const int tc = tid / 8 % 4 + 4 * (tid / 64);
  const bool a_aligned = vector_ok(A, s.lda), b_aligned = vector_ok(B, s.ldb);
  const int64_t tiles_m = cdiv(s.m, PAD_BM), tiles_n = cdiv(s.n, PAD_BM);
  for (int64_t ti = blockIdx.x; ti < tiles_m; ti += gridDim.x)
    for (int64_t tj = blockIdx.y; tj < tiles_n; tj += gridDim.y) {
      const int64_t r0 = ti * PAD_BM, c0 = tj * PAD_BM;
      T c[64];
#pragma unroll
      for (int q = 0; q < 64; q++) c[q] = 0;
      T ra[a_tile::PER], rb[b_tile::PER];
      bool va = fetch_tile<T, PAD_BM, PAD_BK, PAD_THREADS>(
          A, s.lda, r0, 0, s.m, s.k, a_aligned, tid, ra);
      bool vb = fetch_tile<T, PAD_BK, PAD_BM, PAD_THREADS>(
          B, s.ldb, 0, c0, s.k, s.n, b_aligned, tid, rb);
      for (int64_t k0 = 0; k0 < s.k; k0 += PAD_BK) {
        stash_tile<T, PAD_BM, PAD_BK, PAD_THREADS, PAD_BM, false>(A_sub, va,
                                                                  tid, ra);
        stash_tile<T, PAD_BK, PAD_BM, PAD_THREADS, LDB, true>(B_sub, vb, tid,
                                                              rb);
        __syncthreads();
        if (k0 + PAD_BK < s.k) {
          va = fetch_tile<T, PAD_BM, PAD_BK, PAD_THREADS>(
              A, s.lda, r0, k0 + PAD_BK, s.m, s.k, a_aligned, tid, ra);
          vb = fetch_tile<T, PAD_BK, PAD_BM, PAD_THREADS>(
              B, s.ldb, k0 + PAD_BK, c0, s.k, s.n, b_aligned, tid, rb);
        }
#pragma unroll UNROLL
        for (int kk = 0; kk < PAD_BK; kk++) {
          T av[8], bv[8];
          load4(A_sub + kk * PAD_BM + tr * 4, av);
          load4(A_sub + kk * PAD_BM + HALF + tr * 4, av + 4);
          load4(B_sub + kk * LDB + tc * 4, bv);
          load4(B_sub + kk * LDB + HALF + tc * 4, bv + 4);
          outer_product_8x8(c, av, bv);
        }
        __syncthreads();
      }
#pragma unroll
      for (int J = 0; J < 8; J++)
        store_column<T, 8, 4, 1>(C, s, r0 + tr * 4,
                                 c0 + (J / 4) * HALF + tc * 4 + J % 4, HALF,
                                 c + J * 8);
    }
}

template <typename T>
static kl_status padded(const kl_args *a) {
  return LAUNCH_TILES((padded_kernel<T, sizeof(T) == 4 ? 1 : 2>), PAD_BM,
                      PAD_BM, dim3(PAD_THREADS), a);
}

extern "C" kl_status kl__gemm_gpu_padded(const kl_args *a) {
  GEMM_DISPATCH(padded, a);
}

/* ---- 5b. tiles sized at run time, dynamic shared memory ------------------
 * The padded kernel's scheme with the tile chosen per problem: tm x tn
 * threads, each still 8 x 8 elements (compile-time, so they stay in
 * registers), make a (8 tm) x (8 tn) tile of C, k taken bk at a time. The
 * shared arrays' size is known only at launch, so they are one extern
 * __shared__ buffer sized by the launch's third argument (the seed's last
 * remark in §3.5.7) and carved up here. The k loop is unrolled by 2
 * (H100, 4096: double 9.3 -> 9.7 TFLOP/s, float level). */
#define DYN_R 8 /* elements a thread, in each direction */
#define DYN_MAX_THREADS 256
#define DYN_MAX_SHARED (48 * 1024) /* without the opt-in attribute */

extern __shared__ __align__(16) unsigned char gemm_dynamic_shared[];

template <typename T, int UNROLL>
__global__ __launch_bounds__(DYN_MAX_THREADS, MIN_BLOCKS(T, DYN_MAX_THREADS)) void dynamic_kernel(
    kl__gemm_shape s, const T *__restrict__ A, const T *__restrict__ B,
    T *C, int tm, int tn, int bk) {
  const int VEC = 16 / (int)sizeof(T);
  const int bm = DYN_R * tm, bn = DYN_R * tn, ldb = bn + VEC;
  const int threads = tm * tn, tid = threadIdx.x;
  const int tr = tid % tm, tc = tid / tm;
  T *A_sub = (T *)gemm_dynamic_shared; /* bk x bm, A_sub[i + kk * bm] */
  T *B_sub = A_sub + bk * bm;          /* bk x ldb, B_sub[j + kk * ldb] */
  const bool a_aligned = vector_ok(A, s.lda), b_aligned = vector_ok(B, s.ldb);
  const int64_t tiles_m = cdiv(s.m, bm), tiles_n = cdiv(s.n, bn);
  for (int64_t ti = blockIdx.x; ti < tiles_m; ti += gridDim.x)
    for (int64_t tj = blockIdx.y; tj < tiles_n; tj += gridDim.y) {
      const int64_t r0 = ti * bm, c0 = tj * bn;
      T c[DYN_R * DYN_R];
#pragma unroll
      for (int q = 0; q < DYN_R * DYN_R; q++) c[q] = 0;
      for (int64_t k0 = 0; k0 < s.k; k0 += bk) {
        /* A: down the columns, 16 bytes a thread where the tile is inside
         * and aligned; B: the same, scattered into B_sub's rows. */
        if (a_aligned && r0 + bm <= s.m && k0 + bk <= s.k) {
          const int per_col = bm / VEC;
          for (int v = tid; v < per_col * bk; v += threads) {
            const int rv = v % per_col, kk = v / per_col;
            *(uint4 *)(A_sub + rv * VEC + kk * bm) =
                *(const uint4 *)(A + (r0 + rv * VEC) + (k0 + kk) * s.lda);
          }
        } else {
          for (int e = tid; e < bm * bk; e += threads) {
            const int i = e % bm, kk = e / bm;
            A_sub[i + kk * bm] = r0 + i < s.m && k0 + kk < s.k
                                     ? A[(r0 + i) + (k0 + kk) * s.lda]
                                     : (T)0;
          }
        }
        if (b_aligned && k0 + bk <= s.k && c0 + bn <= s.n) {
          const int per_col = bk / VEC;
          for (int v = tid; v < per_col * bn; v += threads) {
            const int kv = v % per_col, j = v / per_col;
            T e[16 / sizeof(T)];
            uint4 raw =
                *(const uint4 *)(B + (k0 + kv * VEC) + (c0 + j) * s.ldb);
            memcpy(e, &raw, 16);
#pragma unroll
            for (int q = 0; q < VEC; q++) B_sub[j + (kv * VEC + q) * ldb] = e[q];
          }
        } else {
          for (int e = tid; e < bk * bn; e += threads) {
            const int kk = e % bk, j = e / bk;
            B_sub[j + kk * ldb] = k0 + kk < s.k && c0 + j < s.n
                                      ? B[(k0 + kk) + (c0 + j) * s.ldb]
                                      : (T)0;
          }
        }
        __syncthreads();
        const T *as = A_sub + tr * 4, *bs = B_sub + tc * 4;
#pragma unroll UNROLL
        for (int kk = 0; kk < bk; kk++, as += bm, bs += ldb) {
          T av[8], bv[8];
          load4(as, av);
          load4(as + bm / 2, av + 4);
          load4(bs, bv);
          load4(bs + bn / 2, bv + 4);
          outer_product_8x8(c, av, bv);
        }
        __syncthreads();
      }
#pragma unroll
      for (int J = 0; J < 8; J++)
        store_column<T, 8, 4, 1>(C, s, r0 + tr * 4,
                                 c0 + (J / 4) * (bn / 2) + tc * 4 + J % 4,
                                 bm / 2, c + J * 8);
    }
}

/* The tile for a shape: the largest of 128 x 128, 128 x 64, 64 x 128 and
 * 64 x 64 (more reuse of each loaded element) that still gives every
 * multiprocessor a tile, preferring the one that wastes least on the edges;
 * when none fills the GPU, the one with the most tiles. Then the deepest
 * k-slice of 32, 16 or 8 that fits 48 KiB and does not run far past k. */
template <typename T>
static void dynamic_tile(const kl__gemm_shape *s, int compute_units, int *tm,
                         int *tn, int *bk, size_t *bytes) {
  static const int cand[4][2] = {{16, 16}, {16, 8}, {8, 16}, {8, 8}};
  const int64_t sms = compute_units > 0 ? compute_units : 1;
  int best = -1;
  int64_t best_area = 0, best_waste = 0, most = 0;
  for (int c = 0; c < 4; c++) {
    const int64_t bm = DYN_R * cand[c][0], bn = DYN_R * cand[c][1];
    const int64_t tiles = cdiv(s->m, bm) * cdiv(s->n, bn);
    const int64_t waste = cdiv(s->m, bm) * bm * cdiv(s->n, bn) * bn;
    if (tiles >= sms && (best < 0 || bm * bn > best_area ||
                         (bm * bn == best_area && waste < best_waste))) {
      best = c;
      best_area = bm * bn;
      best_waste = waste;
    }
  }
  if (best < 0)
    for (int c = 0; c < 4; c++) {
      const int64_t tiles = cdiv(s->m, DYN_R * cand[c][0]) *
                            cdiv(s->n, DYN_R * cand[c][1]);
      if (tiles > most) {
        most = tiles;
        best = c;
      }
    }
  *tm = cand[best][0];
  *tn = cand[best][1];
  const int vec = 16 / (int)sizeof(T);
  const size_t per_k =
      sizeof(T) * (size_t)(DYN_R * *tm + DYN_R * *tn + vec);
  *bk = 32;
  while (*bk > 8 && ((size_t)*bk * per_k > DYN_MAX_SHARED ||
                     (int64_t)*bk / 2 >= s->k))
    *bk /= 2;
  *bytes = (size_t)*bk * per_k;
}

template <typename T>
static kl_status dynamic(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  int tm, tn, bk;
  size_t bytes;
  dynamic_tile<T>(&s, a->ctx->device.compute_units, &tm, &tn, &bk, &bytes);
  dynamic_kernel<T, 2>
      <<<tile_grid(cdiv(s.m, DYN_R * tm), cdiv(s.n, DYN_R * tn)), tm * tn,
         bytes, (cudaStream_t)a->stream>>>(
          s, (const T *)a->buffers[GEMM_A], (const T *)a->buffers[GEMM_B],
          (T *)a->buffers[GEMM_C], tm, tn, bk);
  KL_GPU_CHECK_LAUNCH(dynamic_kernel);
  return KL_OK;
}

extern "C" kl_status kl__gemm_gpu_dynamic(const kl_args *a) {
  GEMM_DISPATCH(dynamic, a);
}
