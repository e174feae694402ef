/* gemm, the pipelined SIMT rung: the fastest CUDA-core kernel of the
 * ladder. Each block computes a BM x BN tile of C with 256 threads; each
 * thread keeps a TM x TN micro-tile of accumulators in registers. Tiles of
 * A and B travel global -> shared by asynchronous copies (cp.async) into
 * STAGES buffers, so the loads of tile t + STAGES - 1 are in flight while
 * tile t is multiplied. Under HIP there is no cp.async: the same kernel
 * copies synchronously, with two buffers (the AMD devices' 64 KB of LDS).
 *
 * Layouts (column-major inputs, element (i, j) at i + j * ld):
 *   A tile, shared [k][m]: A is contiguous along m, so a column segment of
 *     A lands as one row of the tile, untransposed. Fragments are read
 *     along m, 16 bytes at a time.
 *   B tile, shared [n][k], each row padded by 16 bytes: B is contiguous
 *     along k, so a column segment of B lands as one row of the tile, also
 *     untransposed. Fragments are read along k, 16 bytes at a time (4
 *     floats / 2 doubles: that many steps of k for one column of the
 *     micro-tile), and the padding makes the row stride an odd number of
 *     16-byte chunks, so the rows read together fall in distinct banks.
 * The arithmetic of the tile choice: per k step a float thread loads 8 + 8
 * values (four 16-byte loads) for 64 FMAs, and with the lane pairing a
 * 16-byte shared load takes two passes, so the four schedulers keep the
 * shared pipe half busy (double, 8 x 4: 12 values for 32 DFMAs, three
 * quarters busy). */
#include <stdint.h>

#include "../../backends/gpu.h"
#include "gemm.h"

#include <stdio.h>
#include <stdlib.h>

#define THREADS 256

/* ---- copies global -> shared ----------------------------------------------
 * kl_async_copy (backends/gpu.h): W elements, the first `valid` from
 * global memory and the rest zeros: the edges of the matrices (rows past m
 * or k, columns past n) arrive as zeros, so they add nothing to the
 * products, and NaN in the rows between a matrix's rows and its leading
 * dimension never enters them. When valid is 0, src is the matrix's base
 * (a valid address of at least one element) and nothing is read. */

/* ---- 16-byte fragments and small helpers ------------------------------- */
static __device__ __forceinline__ void load16(const float *p, float *o) {
  const float4 v = *(const float4 *)p;
  o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
}
static __device__ __forceinline__ void load16(const double *p, double *o) {
  const double2 v = *(const double2 *)p;
  o[0] = v.x, o[1] = v.y;
}
static __device__ __forceinline__ void store16(float *p, const float *o) {
  *(float4 *)p = make_float4(o[0], o[1], o[2], o[3]);
}
static __device__ __forceinline__ void store16(double *p, const double *o) {
  *(double2 *)p = make_double2(o[0], o[1]);
}
static __device__ __forceinline__ float fmadd(float a, float b, float c) {
  return fmaf(a, b, c);
}
static __device__ __forceinline__ double fmadd(double a, double b,
                                               double c) {
  return fma(a, b, c);
}

/* Elements of T in 16 bytes: the width of every fragment read. */
#define VEC_OF(T) ((int)(16 / sizeof(T)))

/* Tile geometry of one instance. The 256 threads are 8 groups of 32
 * (a warp on NVIDIA; on a 64-lane device two groups share a wavefront,
 * which changes speed, not results), arranged 2 (m) x 4 (n); a group's 32
 * threads are arranged 8 (m) x 4 (n); a thread owns TM x TN elements. */
#define BM_OF(TM) (2 * 8 * (TM))
#define BN_OF(TN) (4 * 4 * (TN))
/* B rows are BK + one 16-byte chunk long: BK / VEC + 1 chunks, an odd
 * number, so 8 consecutive rows start in 8 different 16-byte bank groups
 * (row r starts in group r * odd mod 8). */
#define BSTRIDE_OF(T, BK) ((BK) + VEC_OF(T))

template <typename T, int TM, int TN, int BK, int STAGES>
static size_t shared_bytes(void) {
  return (size_t)STAGES *
         ((size_t)BK * BM_OF(TM) + (size_t)BN_OF(TN) * BSTRIDE_OF(T, BK)) *
         sizeof(T);
}

/* Copies of one k tile: A's tile is BK rows of BM / W chunks, B's BN rows
 * of BK / W chunks, dealt to the threads in order, so consecutive threads
 * take consecutive chunks of one column of the matrix (coalesced reads).
 * A whole number of tile rows per pass of the 256 threads keeps a thread's
 * position along the row (a_chunk_m, b_chunk_k) the same in every pass;
 * pass r moves it r * THREADS / (chunks per row) rows down the tile. */
template <typename T, int TM, int W>
static __device__ __forceinline__ int a_chunk_m(void) {
  return (int)threadIdx.x % (BM_OF(TM) / W) * W;
}
template <typename T, int TM, int W>
static __device__ __forceinline__ int a_chunk_k(void) {
  return (int)threadIdx.x / (BM_OF(TM) / W);
}
template <typename T, int BK, int W>
static __device__ __forceinline__ int b_chunk_k(void) {
  return (int)threadIdx.x % (BK / W) * W;
}
template <typename T, int BK, int W>
static __device__ __forceinline__ int b_chunk_n(void) {
  return (int)threadIdx.x / (BK / W);
}

/* A tile wholly inside the matrices (the common case): no guards. as, bs:
 * this thread's first chunk in the stage; a_src, b_src: its first chunk in
 * A and B for this tile, kept by the caller from tile to tile, so no
 * address is rebuilt from threadIdx and k0 here. Each thread's chunks are
 * A_STEP columns of A and B_STEP columns of B apart. */
template <typename T, int TM, int TN, int BK, int W>
static __device__ __forceinline__ void copy_tile(T *as, T *bs,
                                                 const T *a_src, int64_t lda,
                                                 const T *b_src,
                                                 int64_t ldb) {
  constexpr int BM = BM_OF(TM), BN = BN_OF(TN);
  constexpr int BSTRIDE = BSTRIDE_OF(T, BK);
  constexpr int A_ROW = BM / W, B_ROW = BK / W;
  constexpr int A_COPIES = BK * A_ROW / THREADS;
  constexpr int B_COPIES = BN * B_ROW / THREADS;
  constexpr int A_STEP = THREADS / A_ROW, B_STEP = THREADS / B_ROW;
  static_assert(THREADS % A_ROW == 0 && THREADS % B_ROW == 0, "copy rows");
  static_assert(A_COPIES * THREADS == BK * A_ROW, "A copies");
  static_assert(B_COPIES * THREADS == BN * B_ROW, "B copies");
#pragma unroll
  for (int r = 0; r < A_COPIES; r++)
    kl_async_copy<T, W>(as + r * A_STEP * BM, a_src + r * A_STEP * lda, W);
#pragma unroll
  for (int r = 0; r < B_COPIES; r++)
    kl_async_copy<T, W>(bs + r * B_STEP * BSTRIDE, b_src + r * B_STEP * ldb, W);
}

/* A tile that crosses an edge of A or B (past m, n or k): every chunk
 * guarded, addresses from scratch (this is the rare path). as, bs: the
 * stage's base. */
template <typename T, int TM, int TN, int BK, int W>
static __device__ __forceinline__ void copy_tile_edge(
    T *as, T *bs, const T *A, int64_t lda, const T *B, int64_t ldb,
    int64_t n, int64_t k, int64_t k0, int64_t m0, int64_t n0,
    int a_valid) {
  constexpr int BM = BM_OF(TM), BN = BN_OF(TN);
  constexpr int BSTRIDE = BSTRIDE_OF(T, BK);
  constexpr int A_ROW = BM / W, B_ROW = BK / W;
  constexpr int A_COPIES = BK * A_ROW / THREADS;
  constexpr int B_COPIES = BN * B_ROW / THREADS;
  constexpr int A_STEP = THREADS / A_ROW, B_STEP = THREADS / B_ROW;
  const int a_k = a_chunk_k<T, TM, W>(), a_m = a_chunk_m<T, TM, W>();
  const int b_n = b_chunk_n<T, BK, W>(), b_k = b_chunk_k<T, BK, W>();
  as += a_k * BM + a_m;
  bs += b_n * BSTRIDE + b_k;
#pragma unroll
  for (int r = 0; r < A_COPIES; r++) {
    /* Row kk of the tile is column k0 + kk of A: all W elements past k
     * are zeros, else the a_valid of them inside m. */
    const int kk = a_k + r * A_STEP;
    const int valid = k0 + kk < k ? a_valid : 0;
    const T *src = valid ? A + (k0 + kk) * lda + m0 + a_m : A;
    kl_async_copy<T, W>(as + r * A_STEP * BM, src, valid);
  }
  /* Row nn of the tile is column n0 + nn of B, its elements k0 + b_k on:
   * those inside k if the column is inside n. */
  const int64_t left = k - (k0 + b_k);
  const int k_valid = left <= 0 ? 0 : left >= W ? W : (int)left;
#pragma unroll
  for (int r = 0; r < B_COPIES; r++) {
    const int nn = b_n + r * B_STEP;
    const int valid = n0 + nn < n ? k_valid : 0;
    const T *src = valid ? B + (n0 + nn) * ldb + k0 + b_k : B;
    kl_async_copy<T, W>(bs + r * B_STEP * BSTRIDE, src, valid);
  }
}

/* Fragments from shared memory: A's for step s of the tile (TM values
 * along m), B's for group q of VEC steps (VEC steps of k for each of the
 * TN columns). as, bs: this thread's origin in the stage. */
template <typename T, int TM, int BK>
static __device__ __forceinline__ void frag_a(const T *as, int s, T *a) {
  constexpr int VEC = VEC_OF(T), BM = BM_OF(TM);
#pragma unroll
  for (int g = 0; g < TM / VEC; g++)
    load16(as + s * BM + g * 8 * VEC, &a[g * VEC]);
}
template <typename T, int TN, int BK>
static __device__ __forceinline__ void frag_b(const T *bs, int q,
                                              T (*b)[VEC_OF(T)]) {
  constexpr int VEC = VEC_OF(T), BSTRIDE = BSTRIDE_OF(T, BK);
#pragma unroll
  for (int j = 0; j < TN; j++) load16(bs + 4 * j * BSTRIDE + q * VEC, b[j]);
}

/* One step of k: TM x TN FMAs. Column by column, down and up in turn:
 * b[j][kk] stays in the operand reuse cache over TM consecutive FMAs, and
 * a[i] over the turn from one column to the next. On the H100 at 8192: 42
 * TFLOP/s row by row, 44.9 column by column, 45.7 serpentine (register
 * bank conflicts showed as dispatch stalls). */
template <typename T, int TM, int TN>
static __device__ __forceinline__ void fma_step(T (*acc)[TN], const T *a,
                                                T (*b)[VEC_OF(T)], int kk) {
#pragma unroll
  for (int j = 0; j < TN; j++)
#pragma unroll
    for (int step = 0; step < TM; step++) {
      const int i = j % 2 ? TM - 1 - step : step;
      acc[i][j] = fmadd(a[i], b[j][kk], acc[i][j]);
    }
}

extern __shared__ __align__(16) unsigned char pipelined_shared[];

/* C = alpha A B + beta C for the tiles tile_offset + blockIdx.x of a
 * tiles_m x tiles_n grid of tiles. W: elements per copy (16, 8 or 4
 * bytes), which the leading dimensions and pointers allow. c_vector: C's
 * pointer and ldc allow 16-byte accesses. LEAD: 0, one barrier at the top
 * of each k tile, then the refill, then the tile's math (each tile starts
 * with its first fragment loads exposed); 1 to VEC, the barrier LEAD steps
 * before the end of the tile, the next tile's first fragments loaded after
 * it, under the last LEAD steps of math, and the refill after the math
 * (LESSONS.md, "What did not work": ptxas hoists the FFMAs above the
 * barrier, so LEAD 1, 2 and 4 compile alike). */
/* SPLIT: the block computes a k-range of its tile, split_k elements long,
 * and adds alpha times it into C with atomics (C was scaled by beta
 * first); blocks tile_offset + b % split_tiles, split b / split_tiles. */
template <typename T, int TM, int TN, int BK, int STAGES, int W, int MINB,
          int LEAD, bool SPLIT>
__global__ __launch_bounds__(THREADS, MINB) void pipelined_kernel(
    int64_t m, int64_t n, int64_t k, T alpha, const T *__restrict__ A,
    int64_t lda, const T *__restrict__ B, int64_t ldb, T beta, T *C,
    int64_t ldc, int c_vector, int64_t tile_offset, int64_t tiles_m,
    int64_t tiles_n, int64_t split_tiles, int64_t split_k) {
  constexpr int VEC = VEC_OF(T);
  constexpr int BM = BM_OF(TM), BN = BN_OF(TN);
  constexpr int BSTRIDE = BSTRIDE_OF(T, BK);
  constexpr int A_STAGE = BK * BM, B_STAGE = BN * BSTRIDE;
  constexpr int GROUPS = BK / VEC;
  static_assert(TM % VEC == 0 && BK % VEC == 0, "fragments are 16 bytes");
  static_assert(STAGES >= 2, "at least two buffers");
  static_assert(LEAD >= 0 && LEAD <= VEC, "barrier within the last group");

  T *As = (T *)pipelined_shared;
  T *Bs = As + STAGES * A_STAGE;

  int64_t m0, n0;
  if (SPLIT) {
    /* This block's k-range, as a problem of its own: A and B start at
     * k_lo, and k shrinks to the range (a multiple of BK but the last). */
    const int64_t k_lo = (int64_t)(blockIdx.x / split_tiles) * split_k;
    kl__gemm_tile_origin(tile_offset + blockIdx.x % split_tiles, tiles_m, tiles_n, BM,
                BN, &m0, &n0);
    A += k_lo * lda;
    B += k_lo;
    k = k - k_lo < split_k ? k - k_lo : split_k;
  } else {
    kl__gemm_tile_origin(tile_offset + blockIdx.x, tiles_m, tiles_n, BM, BN, &m0,
                &n0);
  }
  /* A tile cut by the end of m or n moves back to end there, recomputing
   * rows or columns of the tile before it, which it does not store: its
   * copies then take the unguarded path (1000^3 in float: 0.83x cuBLAS
   * with the guarded edge tiles). m keeps 16-byte runs of A and C aligned
   * where it is a whole number of them, else the edge tiles stay. */
  const int64_t m_own = m0, n_own = n0; /* what this tile stores */
  if (m0 + BM > m && m >= BM && m % (16 / (int)sizeof(T)) == 0) m0 = m - BM;
  if (n0 + BN > n && n >= BN) n0 = n - BN;

  const int tid = threadIdx.x;
  /* Lane bits: tm takes bits 1-3, tn bits 0 and 4. Then the A fragment's
   * address (a function of tm) is the same for lanes l and l ^ 1, and B's
   * (a function of tn) for lanes l and l ^ 2: the pairing under which a
   * 16-byte shared load returns in two passes instead of four. Within 16
   * lanes, A reads 8 distinct consecutive chunks (128 bytes: every bank
   * once) and B reads 2 rows, adjacent, hence in different bank groups. */
  const int group = tid / 32, lane = tid % 32;
  const int tm = (lane >> 1) & 7;
  const int tn = (lane & 1) | ((lane >> 3) & 2);
  /* This thread's rows of the block tile: a_off + g * 8 * VEC + v for
   * g < TM / VEC, v < VEC (each group of 8 threads along m covers 8 VEC
   * consecutive rows, so its 16-byte reads are contiguous); its columns:
   * b_col + 4 j for j < TN (columns 4 apart, so the 4 tn of a group read
   * 4 consecutive B rows: distinct bank groups, as above). */
  const int a_off = (group & 1) * (8 * TM) + tm * VEC;
  const int b_col = (group >> 1) * (4 * TN) + tn;

  /* Elements of this thread's A chunks inside m: the same for every k. */
  const int a_m = a_chunk_m<T, TM, W>(), a_k = a_chunk_k<T, TM, W>();
  const int b_k = b_chunk_k<T, BK, W>(), b_n = b_chunk_n<T, BK, W>();
  const int64_t a_left = m - (m0 + a_m);
  const int a_valid = a_left <= 0 ? 0 : a_left >= W ? W : (int)a_left;
  const int64_t k_tiles = (k + BK - 1) / BK;
  /* Tiles issued before this one lie wholly inside the matrices when the
   * block's tile of C lies inside m and n and the k tile inside k: only
   * those take the unguarded copies. */
  const int64_t k_full = m0 + BM <= m && n0 + BN <= n ? k / BK : 0;
  /* This thread's chunks: offsets in a stage, and sources in A and B for
   * the next tile to issue (advanced by one tile per issue; used only for
   * tiles below k_full, so they never point outside the matrices then). */
  T *const a_dst = As + a_k * BM + a_m;
  T *const b_dst = Bs + b_n * BSTRIDE + b_k;
  const T *a_src = A + a_k * lda + m0 + a_m;
  const T *b_src = B + (n0 + b_n) * ldb + b_k;
  const int64_t a_tile_step = BK * lda;

  /* Prologue: the first tiles in flight, one commit group each, empty
   * groups past the last tile, so that group t is always tile t. With
   * LEAD 0 a buffer stays free for the refill at the top of tile 0; else
   * every buffer is filled, since refills happen after a tile's math. */
  constexpr int PRE = LEAD ? STAGES : STAGES - 1;
#pragma unroll
  for (int s = 0; s < PRE; s++) {
    if (s < k_full)
      copy_tile<T, TM, TN, BK, W>(a_dst + s * A_STAGE, b_dst + s * B_STAGE,
                                  a_src, lda, b_src, ldb);
    else if (s < k_tiles)
      copy_tile_edge<T, TM, TN, BK, W>(As + s * A_STAGE, Bs + s * B_STAGE,
                                       A, lda, B, ldb, n, k, (int64_t)s * BK,
                                       m0, n0, a_valid);
    a_src += a_tile_step, b_src += BK;
    kl_async_commit();
  }

  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = 0;

  if (LEAD == 0) {
    /* Buffers of tile kt (read now) and of tile kt + STAGES - 1 (filled
     * now), counted modulo STAGES. */
    int stage = 0, fill = STAGES - 1;
    for (int64_t kt = 0; kt < k_tiles; kt++) {
      /* STAGES - 1 + kt groups are committed; tile kt is group kt, so at
       * most STAGES - 2 may still be in flight. The barrier then makes
       * every thread's copies of tile kt visible to all, and tells that
       * everyone has finished multiplying tile kt - 1, whose buffer is
       * refilled next. */
      kl_async_wait<STAGES - 2>();
      __syncthreads();
      {
        const int64_t next = kt + STAGES - 1;
        if (next < k_full)
          copy_tile<T, TM, TN, BK, W>(a_dst + fill * A_STAGE,
                                      b_dst + fill * B_STAGE, a_src, lda,
                                      b_src, ldb);
        else if (next < k_tiles)
          copy_tile_edge<T, TM, TN, BK, W>(
              As + fill * A_STAGE, Bs + fill * B_STAGE, A, lda, B, ldb, n, k,
              next * BK, m0, n0, a_valid);
        a_src += a_tile_step, b_src += BK;
        kl_async_commit();
        fill = fill == STAGES - 1 ? 0 : fill + 1;
      }
      const T *as = As + stage * A_STAGE + a_off;
      const T *bs = Bs + stage * B_STAGE + b_col * BSTRIDE;
#pragma unroll
      for (int q = 0; q < GROUPS; q++) {
        T b[TN][VEC];
        frag_b<T, TN, BK>(bs, q, b);
#pragma unroll
        for (int kk = 0; kk < VEC; kk++) {
          T a[TM];
          frag_a<T, TM, BK>(as, q * VEC + kk, a);
          fma_step<T, TM, TN>(acc, a, b, kk);
        }
      }
      stage = stage == STAGES - 1 ? 0 : stage + 1;
    }
  } else {
    /* STAGES groups are committed; tile 0 is group 0. */
    kl_async_wait<STAGES - 1>();
    __syncthreads();
    /* Fragments of step 0 (A) and group 0 (B) of the tile about to be
     * multiplied: loaded under the previous tile's last steps. */
    T a0[TM], b0[TN][VEC];
    frag_a<T, TM, BK>(As + a_off, 0, a0);
    frag_b<T, TN, BK>(Bs + b_col * BSTRIDE, 0, b0);
    int stage = 0;
    for (int64_t kt = 0; kt < k_tiles; kt++) {
      const int next_stage = stage == STAGES - 1 ? 0 : stage + 1;
      const T *as = As + stage * A_STAGE + a_off;
      const T *bs = Bs + stage * B_STAGE + b_col * BSTRIDE;
      /* Per step and per group, so that each value is one name; the
       * compiler renames them onto the registers it has. */
      T a[BK][TM], b[GROUPS][TN][VEC];
#pragma unroll
      for (int i = 0; i < TM; i++) a[0][i] = a0[i];
#pragma unroll
      for (int j = 0; j < TN; j++)
#pragma unroll
        for (int v = 0; v < VEC; v++) b[0][j][v] = b0[j][v];
#pragma unroll
      for (int s = 0; s < BK; s++) {
        const int q = s / VEC, kk = s % VEC;
        if (s < BK - LEAD) {
          /* Next step's A, next group's B, one step / one group ahead. */
          frag_a<T, TM, BK>(as, s + 1, a[s + 1]);
          if (kk == 0 && q + 1 < GROUPS) frag_b<T, TN, BK>(bs, q + 1, b[q + 1]);
        } else if (s == BK - LEAD) {
          /* The rest of this tile's fragments are read before the barrier,
           * which then tells that every thread is done with this buffer
           * (refilled after the math below) and, after the wait, that
           * tile kt + 1 has landed: STAGES + kt groups are committed, tile
           * kt + 1 is group kt + 1. Past the last tile the loads below
           * read a buffer nobody writes, and their values go unused. */
#pragma unroll
          for (int u = s + 1; u < BK; u++) frag_a<T, TM, BK>(as, u, a[u]);
          kl_async_wait<STAGES - 2>();
          __syncthreads();
          frag_a<T, TM, BK>(As + next_stage * A_STAGE + a_off, 0, a0);
          frag_b<T, TN, BK>(Bs + next_stage * B_STAGE + b_col * BSTRIDE, 0,
                            b0);
        }
        fma_step<T, TM, TN>(acc, a[s], b[q], kk);
      }
      /* Refill this tile's buffer with tile kt + STAGES, after the math,
       * so the FMAs above never wait behind the copies' address work. */
      const int64_t next = kt + STAGES;
      if (next < k_full)
        copy_tile<T, TM, TN, BK, W>(a_dst + stage * A_STAGE,
                                    b_dst + stage * B_STAGE, a_src, lda,
                                    b_src, ldb);
      else if (next < k_tiles)
        copy_tile_edge<T, TM, TN, BK, W>(As + stage * A_STAGE,
                                         Bs + stage * B_STAGE, A, lda, B, ldb,
                                         n, k, next * BK, m0, n0, a_valid);
      a_src += a_tile_step, b_src += BK;
      kl_async_commit();
      stage = next_stage;
    }
  }
  /* Drain the (empty) groups still committed before the block exits. */
  kl_async_wait<0>();

  /* Epilogue: C(row, col) for the micro-tile, guarded by m and n; rows
   * past m are never written. With beta == 0, C is not read (BLAS). A
   * whole 16-byte run inside m goes as one access when C allows it. */
#pragma unroll
  for (int j = 0; j < TN; j++) {
    const int64_t col = n0 + b_col + 4 * j;
    if (col >= n || col < n_own) continue;
    T *c_col = C + col * ldc;
#pragma unroll
    for (int g = 0; g < TM / VEC; g++) {
      const int64_t row = m0 + a_off + g * 8 * VEC;
      if (row >= m || row < m_own) continue; /* runs never straddle m_own */
      T *p = c_col + row;
      T v[VEC];
#pragma unroll
      for (int e = 0; e < VEC; e++) v[e] = alpha * acc[g * VEC + e][j];
      if (SPLIT) {
#pragma unroll
        for (int e = 0; e < VEC; e++)
          if (row + e < m) atomicAdd(p + e, v[e]);
      } else if (c_vector && row + VEC <= m) {
        if (beta != (T)0) {
          T old[VEC];
          load16(p, old);
#pragma unroll
          for (int e = 0; e < VEC; e++) v[e] = fmadd(beta, old[e], v[e]);
        }
        store16(p, v);
      } else {
#pragma unroll
        for (int e = 0; e < VEC; e++)
          if (row + e < m)
            p[e] = beta != (T)0 ? fmadd(beta, p[e], v[e]) : v[e];
      }
    }
  }
}

/* ---- host side ----------------------------------------------------------- */

/* The widest copy, in elements, that A's and B's pointers and leading
 * dimensions keep aligned for every column: 16 bytes when both allow it. */
static int copy_width(const kl_args *a, const kl__gemm_shape *s,
                      size_t size) {
  const uintptr_t p = (uintptr_t)a->buffers[GEMM_A] |
                      (uintptr_t)a->buffers[GEMM_B];
  for (int w = (int)(16 / size); w > 1; w /= 2)
    if (p % (w * size) == 0 && s->lda % w == 0 && s->ldb % w == 0) return w;
  return 1;
}

#if defined(KL_HAVE_SASS)
/* cuda-rescheduled's image as its context keeps it (the setup, below):
 * the loaded library and the kernels found in it so far, each beside
 * ptxas's stub of the same instance, so that a launch looks a kernel up
 * by name once a context. Under the context's contract (one thread at a
 * time), like kl__gpu_fit's answers. 18 float instances exist (3 tiles, 3
 * copy widths, split or whole); a table that is full still answers, by
 * name. */
enum { IMAGE_KERNELS = 32 };
typedef struct rescheduled_image {
  cudaLibrary_t library;
  int count;
  struct {
    const void *stub;
    cudaKernel_t kernel;
  } found[IMAGE_KERNELS];
} rescheduled_image;

/* The image's kernel of the float instance whose ptxas stub is *fn, into
 * *fn: from the table, or found by its mangled name (the Itanium C++
 * ABI's, as nvcc's host compiler writes it: the template's arguments are
 * its only variable part) and added to it. */
static kl_status image_kernel(rescheduled_image *image, const void **fn,
                              int tm, int tn, int bk, int stages, int w,
                              int minb, int lead, int split) {
  for (int i = 0; i < image->count; i++)
    if (image->found[i].stub == *fn) {
      *fn = (const void *)image->found[i].kernel;
      return KL_OK;
    }
  char name[160];
  snprintf(name, sizeof name,
           "_Z16pipelined_kernelIfLi%dELi%dELi%dELi%dELi%dELi%dELi%dELb%d"
           "EEvlllT_PKS0_lS2_lS0_PS0_lilllll",
           tm, tn, bk, stages, w, minb, lead, split);
  cudaKernel_t kernel;
  KL_GPU_CHECK(cudaLibraryGetKernel(&kernel, image->library, name));
  if (image->count < IMAGE_KERNELS) {
    image->found[image->count].stub = *fn;
    image->found[image->count].kernel = kernel;
    image->count++;
  }
  *fn = (const void *)kernel;
  return KL_OK;
}
#endif

/* The kernel of one instance: ptxas's, or where the rung's state holds a
 * rescheduled image the same instance from it (its float kernels). */
template <typename T, int TM, int TN, int BK, int STAGES, int W, int MINB,
          int LEAD, bool SPLIT>
static kl_status kernel_of(const kl_args *a, const void **fn) {
  *fn = (const void *)pipelined_kernel<T, TM, TN, BK, STAGES, W, MINB, LEAD,
                                       SPLIT>;
#if defined(KL_HAVE_SASS)
  rescheduled_image *image = (rescheduled_image *)a->state.pointer[0];
  if (sizeof(T) == 4 && image)
    return image_kernel(image, fn, TM, TN, BK, STAGES, W, MINB, LEAD,
                        (int)SPLIT);
#else
  (void)a;
#endif
  return KL_OK;
}

/* One launch of either kernel of an instance, its arguments by address
 * (cudaLaunchKernel: a kernel from an image has no <<< >>> form). */
template <typename T>
static kl_status start(const void *fn, int64_t blocks, size_t smem,
                       cudaStream_t stream, int64_t m, int64_t n, int64_t k,
                       T alpha, const T *A, int64_t lda, const T *B,
                       int64_t ldb, T beta, T *C, int64_t ldc, int c_vector,
                       int64_t tile_offset, int64_t tiles_m, int64_t tiles_n,
                       int64_t split_tiles, int64_t split_k) {
  void *args[] = {&m,    &n,   &k,        &alpha,       &A,
                  &lda,  &B,   &ldb,      &beta,        &C,
                  &ldc,  &c_vector, &tile_offset, &tiles_m, &tiles_n,
                  &split_tiles, &split_k};
  KL_GPU_CHECK(cudaLaunchKernel(fn, dim3((unsigned)blocks), dim3(THREADS),
                                args, smem, stream));
  return KL_OK;
}

template <typename T, int TM, int TN, int BK, int STAGES, int W, int MINB,
          int LEAD>
static kl_status launch(const kl_args *a, const kl__gemm_shape *s) {
  constexpr int BM = BM_OF(TM), BN = BN_OF(TN);
  const size_t smem = shared_bytes<T, TM, TN, BK, STAGES>();
  const T *A = (const T *)a->buffers[GEMM_A];
  const T *B = (const T *)a->buffers[GEMM_B];
  T *C = (T *)a->buffers[GEMM_C];
  const int vec_bytes = 16;
  const int c_vector = (uintptr_t)C % vec_bytes == 0 &&
                       s->ldc % (vec_bytes / (int)sizeof(T)) == 0;
  const int64_t tiles_m = (s->m + BM - 1) / BM;
  const int64_t tiles_n = (s->n + BN - 1) / BN;
  const int64_t tiles = tiles_m * tiles_n;
  cudaStream_t stream = (cudaStream_t)a->stream;
  const void *whole_fn, *split_fn;
  KL_TRY((kernel_of<T, TM, TN, BK, STAGES, W, MINB, LEAD, false>(
      a, &whole_fn)));
  /* The kernels' shared-memory opt-in and fit, once a context. */
  int per_sm = 0, unused = 0;
  KL_TRY(kl__gpu_fit(a->ctx, whole_fn, THREADS, smem, 1, &per_sm));
  int64_t split_tiles, split_k;
  kl__gemm_tail_split(tiles, (int64_t)per_sm * a->ctx->device.compute_units,
                      s->k, BK, &split_tiles, &split_k);
  const int64_t whole = tiles - split_tiles;
  if (split_tiles) {
    KL_TRY((kernel_of<T, TM, TN, BK, STAGES, W, MINB, LEAD, true>(
        a, &split_fn)));
    KL_TRY(kl__gpu_fit(a->ctx, split_fn, THREADS, smem, 1, &unused));
    /* The split tiles are the last ones: scale them, then sum into them. */
    kl__gemm_scale_tiles<T, BM, BN>
        <<<(unsigned)split_tiles, THREADS, 0, stream>>>(
        s->m, s->n, (T)s->beta, C, s->ldc, whole, tiles_m, tiles_n);
    KL_GPU_CHECK_LAUNCH(kl__gemm_scale_tiles);
    const int64_t splits = (s->k + split_k - 1) / split_k;
    KL_TRY(start<T>(split_fn, split_tiles * splits, smem, stream, s->m, s->n,
                    s->k, (T)s->alpha, A, s->lda, B, s->ldb, (T)s->beta, C,
                    s->ldc, c_vector, whole, tiles_m, tiles_n, split_tiles,
                    split_k));
  }
  /* One block per tile, in launches of at most KL_GPU_MAX_BLOCKS. */
  for (int64_t offset = 0; offset < whole; offset += KL_GPU_MAX_BLOCKS) {
    const int64_t left = whole - offset;
    KL_TRY(start<T>(whole_fn,
                    left < KL_GPU_MAX_BLOCKS ? left : KL_GPU_MAX_BLOCKS,
                    smem, stream, s->m, s->n, s->k, (T)s->alpha, A, s->lda,
                    B, s->ldb, (T)s->beta, C, s->ldc, c_vector, offset,
                    tiles_m, tiles_n, 0, 0));
  }
  return KL_OK;
}

/* The tuning of each type: k step, buffers, blocks per SM the registers
 * are capped for, and LEAD (see the kernel); measured on the H100 and H200
 * at 8192 (LESSONS.md). float: BK 16, 6 buffers of 18 KB, one block per SM,
 * so up to 255 registers (it takes 168): BK 32 with 4 buffers was 1%
 * slower, BK 8 2%; at two blocks the cap of 128 left no room to schedule
 * loads ahead. double: BK 16, 4 buffers of 25.6 KB, one block per SM (170
 * registers; with two the 128 cap spills once the next tile's fragments
 * are loaded early). Under HIP copies are synchronous and a block has 64 KB
 * of LDS: two buffers, BK 16, the barrier at the top of each tile. */
#define F32_BK 16
#define F32_STAGES (KL_GPU_ASYNC_COPIES ? 6 : 2)
#define F32_MINB 1
#define F32_LEAD (KL_GPU_ASYNC_COPIES ? 4 : 0)
#define F64_BK 16
#define F64_STAGES (KL_GPU_ASYNC_COPIES ? 4 : 2)
#define F64_MINB (KL_GPU_ASYNC_COPIES ? 1 : 2)
#define F64_LEAD (KL_GPU_ASYNC_COPIES ? 2 : 0)

/* float with TM x TN a thread (16 TM x 16 TN tiles), at the widest copy
 * A's and B's alignment allows. */
template <int TM, int TN>
static kl_status launch_float(const kl_args *a, const kl__gemm_shape *s) {
  switch (copy_width(a, s, sizeof(float))) {
  case 4:
    return launch<float, TM, TN, F32_BK, F32_STAGES, 4, F32_MINB, F32_LEAD>(
        a, s);
  case 2:
    return launch<float, TM, TN, F32_BK, F32_STAGES, 2, F32_MINB, F32_LEAD>(
        a, s);
  default:
    return launch<float, TM, TN, F32_BK, F32_STAGES, 1, F32_MINB, F32_LEAD>(
        a, s);
  }
}

extern "C" kl_status kl__gemm_gpu_pipelined(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  if (a->plan->type == KL_F32) {
    /* 256 x 128 tiles, 16 x 8 per thread (cuBLAS's SGEMM tile on the
     * H100), where there are at least one and a half waves of them (one
     * block an SM): a third fewer shared loads a FMA than 8 x 8, 1-2%
     * faster from 4096^3 and 3-8% at k = 256 (LESSONS.md);
     * else 128 x 128 tiles, 8 x 8; 128 x 64 (8 x 4) where the problem has
     * fewer 128 x 128 tiles than the GPU has SMs. -p pipelined_tile
     * forces one. */
    const int64_t sms = a->ctx->device.compute_units;
    int pick = (int)a->plan->value[GEMM_P_PIPELINED_TILE];
    if (pick == GEMM_F32_AUTO) {
      if (kl__gemm_large_tiles_pay(kl__gemm_tiles(&s, 256, 128), sms))
        pick = GEMM_F32_256X128;
      else
        pick = kl__gemm_tiles(&s, 128, 128) >= sms ? GEMM_F32_128X128
                                                   : GEMM_F32_128X64;
    }
    if (pick == GEMM_F32_256X128) return launch_float<16, 8>(a, &s);
    return pick == GEMM_F32_128X64 ? launch_float<8, 4>(a, &s)
                                   : launch_float<8, 8>(a, &s);
  }
  if (a->plan->type == KL_F64) {
    /* 128 x 64 tiles, 8 x 4 per thread. */
    if (copy_width(a, &s, sizeof(double)) == 2)
      return launch<double, 8, 4, F64_BK, F64_STAGES, 2, F64_MINB, F64_LEAD>(
          a, &s);
    return launch<double, 8, 4, F64_BK, F64_STAGES, 1, F64_MINB, F64_LEAD>(
        a, &s);
  }
  return kl__usage(KL_UNAVAILABLE, "gemm pipelined: type %s not supported",
                   kl_type_name(a->plan->type));
}

/* ---- cuda-rescheduled: the float kernels above, rescheduled in SASS ------
 * The build compiles this file once more to an sm_90 cubin, and
 * scripts/sass-schedule.py reorders each float kernel's FFMAs there, after
 * ptxas, so that more operands come from the reuse cache and fewer reads
 * share a register bank; the image is linked in as kl__gemm_pipelined_sm90
 * (CMakeLists.txt, KL_SASS). The setup finds it loaded in the run's
 * context, or loads it there; the launches above then take its kernels.
 * Only where the build made it (an sm_90 target and Python 3), and only
 * on an sm_90 device. */
#if defined(KL_HAVE_SASS)
extern "C" const unsigned char kl__gemm_pipelined_sm90[];

static void unload_image(void *thing) {
  rescheduled_image *image = (rescheduled_image *)thing;
  (void)cudaLibraryUnload(image->library);
  free(image);
}

/* The image, loaded once a context (loading instruments every kernel of it
 * under compute-sanitizer) and released when the context closes. */
extern "C" kl_status kl__gemm_gpu_rescheduled_setup(kl_args *a) {
  if (a->ctx->device.arch != 90)
    return kl__usage(KL_UNAVAILABLE, "gemm rescheduled: its image is sm_90 "
                     "SASS (this GPU is sm_%d)", a->ctx->device.arch);
  kl__gpu_keep *kept = kl__gpu_kept(a->ctx, KL_GPU_KEEP_SASS);
  if (!kept)
    return KL_FAIL(KL_DEVICE, "gemm rescheduled: no GPU context to keep "
                   "its image in");
  if (!kept->thing) {
    rescheduled_image *image =
        (rescheduled_image *)calloc(1, sizeof *image);
    if (!image) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
    const kl_status st = KL_GPU_STATUS(cudaLibraryLoadData(
        &image->library, kl__gemm_pipelined_sm90, NULL, NULL, 0, NULL, NULL,
        0));
    if (st != KL_OK) {
      free(image);
      return st;
    }
    kept->thing = image;
    kept->release = unload_image;
  }
  a->state.pointer[0] = kept->thing;
  return KL_OK;
}

extern "C" void kl__gemm_gpu_rescheduled_teardown(kl_args *a) {
  a->state.pointer[0] = NULL;
}

extern "C" kl_status kl__gemm_gpu_rescheduled(const kl_args *a) {
  if (a->plan->type != KL_F32)
    return kl__usage(KL_USAGE, "gemm rescheduled: float only");
  return kl__gemm_gpu_pipelined(a);
}
#endif
