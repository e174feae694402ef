/* gemm on FP64 tensor cores: mma.sync f64 (DMMA) fed by a multi-stage
 * cp.async pipeline. Hopper's FP64 tensor peak (67 TFLOP/s on an H100 SXM)
 * is twice its FP64 CUDA-core peak, and there is no wgmma for f64, so
 * warp-level mma.sync is the way to it, as in cuBLAS.
 *
 * Layout of the work (column-major A, B, C):
 *  - a block computes a BM x BN tile of C, looping over k in BK slices
 *    held in STAGES shared buffers, filled by cp.async STAGES slices ahead;
 *  - each slice of A (BM x BK) lands in shared memory as [k][m], which is
 *    how column-major A lies in memory, so rows of 16-byte copies;
 *    each slice of B (BK x BN) lands as [n][k], likewise; both swizzled;
 *  - warps tile the block WM x WN; a warp's tile is made of 16 x 8 mma
 *    tiles, 8 deep (mma.m16n8k8).
 * Fragment ownership (PTX ISA, mma .f64): lane = 4 g + t. A: element
 * (g + 8h, t + 4j) in register 2j + h; B: (t + 4j, g) in register j;
 * C: (g + 8h, 2t + e) in register 2h + e. LESSONS.md (cuda-dmma, and "What
 * did not work") has the measurements behind each choice. */
#include "../../backends/gpu.h"
#include "gemm.h"

#include <stdlib.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define KL_DMMA_DEVICE 1
#endif

/* ---- PTX wrappers ---------------------------------------------------------- */

static __device__ __forceinline__ unsigned shared_address(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

/* Copy `bytes` (0 up to VEC doubles) from global to shared and zero the
 * rest of the VEC doubles: edges of the matrices become zeros that add
 * nothing, without a branch in the inner loop. */
template <int VEC>
static __device__ __forceinline__ void copy_async(double *dst,
                                                  const double *src,
                                                  int bytes) {
  if (VEC == 2)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(
                     shared_address(dst)),
                 "l"(src), "r"(bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(
                     shared_address(dst)),
                 "l"(src), "r"(bytes));
}

static __device__ __forceinline__ void commit_copies(void) {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int PENDING>
static __device__ __forceinline__ void wait_copies(void) {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

static __device__ __forceinline__ void dmma(double *c, const double *a,
                                            const double *b) {
#if defined(KL_DMMA_DEVICE)
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
  (void)c, (void)a, (void)b;
  __trap();
#endif
}

/* ---- the kernel --------------------------------------------------------------
 * mma.m16n8k8 wants, per lane, A at rows (g, g + 8) and k (t, t + 4), and
 * B at k (t, t + 4). Which rows of C a 16-row mma tile stands for, and
 * which k a step takes in which order, are ours to choose, so long as A,
 * B and C agree: mma row r is matrix row 2r (r < 8) or 2(r - 8) + 1, and
 * mma k q is 2q (q < 4) or 2(q - 4) + 1. Then each lane's pairs are
 * neighbours in memory: rows 2g and 2g + 1 of A's [k][m] slice, k 2t and
 * 2t + 1 of B's [n][k] slice, so every fragment comes in one 16-byte load,
 * half the shared-load instructions of 8-byte ones. The lane's four C
 * values are then the 2 x 2 block at rows 2g, 2g + 1, columns 2t, 2t + 1.
 *
 * Shared memory is unpadded and swizzled instead: 16-byte chunk c of a
 * slice row sits at c ^ swizzle(row). A 16-byte load is served a
 * quarter-warp at a time (lanes g = 2p, 2p + 1, t = 0..3), and these eight
 * must hit eight different 16-byte bank groups: in A they differ in g's
 * low bit and in the row's t, so the chunk's bits 1-2 take t (A_SWIZZLE);
 * in B they differ in t and in g's low bit, which takes the chunk's bit 2
 * (B_SWIZZLE). Without padding a stage is 25-33% smaller, which buys a
 * fourth stage at two blocks per SM. */
static __device__ __forceinline__ int a_chunk(int row, int chunk) {
  return chunk ^ (((row >> 1) & 3) << 1);
}
static __device__ __forceinline__ int b_chunk(int col, int chunk) {
  return chunk ^ ((col & 1) << 2);
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES>
struct dmma_config {
  enum {
    WARPS_M = BM / WM,
    WARPS_N = BN / WN,
    THREADS = WARPS_M * WARPS_N * 32,
    TILES_M = WM / 16, /* mma tiles per warp */
    TILES_N = WN / 8,
    STEPS = BK / 8,    /* mma k-steps per slice */
    A_STAGE = BK * BM, /* doubles */
    B_STAGE = BN * BK,
    SHARED_BYTES = STAGES * (A_STAGE + B_STAGE) * 8
  };
};

/* Where a thread's 16-byte copies of a slice wholly inside the matrices
 * come from, kept from slice to slice: the pointers move by a slice, the
 * per-pass strides stay. Recomputing them from the thread index each
 * slice cost some hundred instructions on the path to the mma. */
typedef struct copy_sources {
  const double *a, *b;     /* this thread's first chunk of the slice */
  int64_t b_pass;          /* between B's chunks within a slice */
  int64_t a_slice, b_slice; /* from one slice to the next */
  int a_dst, b_dst; /* this thread's first chunk in a stage (doubles) */
} copy_sources;

/* A thread's share of a slice of A: the A_THREADS_A_COLUMN threads of
 * one k-column of the slice take its pairs p, p + that count, ... so that
 * a thread's copies lie at fixed distances from its first, in memory (one
 * column of A) and in the stage (the swizzle moves bits 1-2 of a chunk,
 * and the distances are multiples of 8 chunks): one address each, with
 * offsets the compiler folds into the copies. Eight or more threads a
 * column make each copy instruction of a warp whole 128-byte lines. */
template <int BM, int BK, int THREADS>
struct a_share {
  enum { THREADS_A_COLUMN = THREADS / BK, PAIRS = BM / 2 / (THREADS / BK) };
};

template <int BM, int BN, int BK, int THREADS>
static __device__ __forceinline__ copy_sources copy_sources_of(
    const double *a, const double *b, const kl__gemm_shape &s, int64_t m0,
    int64_t n0) {
  typedef a_share<BM, BK, THREADS> share;
  static_assert(THREADS % BK == 0 && share::THREADS_A_COLUMN % 8 == 0 &&
                    (BM / 2) % share::THREADS_A_COLUMN == 0,
                "a slice of A: whole 128-byte lines a copy instruction, "
                "distances of 8 chunks or more");
  copy_sources c;
  const int a_col = threadIdx.x / share::THREADS_A_COLUMN;
  const int a_pair = threadIdx.x % share::THREADS_A_COLUMN;
  const int b_col = threadIdx.x / (BK / 2), b_pair = threadIdx.x % (BK / 2);
  c.a = a + a_col * s.lda + m0 + 2 * a_pair;
  c.b = b + (n0 + b_col) * s.ldb + 2 * b_pair;
  c.b_pass = (int64_t)(THREADS / (BK / 2)) * s.ldb;
  c.a_slice = (int64_t)BK * s.lda;
  c.b_slice = BK;
  c.a_dst = a_col * BM + 2 * a_chunk(a_col, a_pair);
  c.b_dst = b_col * BK + 2 * b_chunk(b_col, b_pair);
  return c;
}

/* A slice wholly inside the matrices: no bounds. A: a_share above; B:
 * consecutive threads take consecutive pairs down one column of B, whole
 * 128-byte lines. A pair is one 16-byte copy, or two 8-byte ones where
 * odd leading dimensions leave it unaligned. */
template <int VEC>
static __device__ __forceinline__ void copy_pair(double *dst,
                                                 const double *src) {
  if (VEC == 2) {
    copy_async<2>(dst, src, 16);
  } else {
    copy_async<1>(dst, src, 8);
    copy_async<1>(dst + 1, src + 1, 8);
  }
}

template <int BM, int BN, int BK, int THREADS, int VEC>
static __device__ __forceinline__ void load_slice_inside(
    double *a_s, double *b_s, const double *a_src, const double *b_src,
    const copy_sources &c) {
  typedef a_share<BM, BK, THREADS> share;
#pragma unroll
  for (int r = 0; r < share::PAIRS; r++)
    copy_pair<VEC>(a_s + c.a_dst + 2 * r * share::THREADS_A_COLUMN,
                   a_src + 2 * r * share::THREADS_A_COLUMN);
  /* B's columns q * b_cols apart keep the first one's swizzle (b_cols is
   * even), so a thread's copies are its first plus fixed distances. */
  const int b_cols = THREADS / (BK / 2);
  static_assert(b_cols % 2 == 0, "B: an even count of columns a pass");
#pragma unroll
  for (int q = 0; q < BN / b_cols; q++)
    copy_pair<VEC>(b_s + c.b_dst + q * b_cols * BK, b_src + q * c.b_pass);
}

/* A copy cut by the edge of a matrix: the `valid` doubles inside it come
 * one by one, the rest are zero-filled from the matrix's first element
 * (`base`, which always exists) with nothing read. A wide copy with a short
 * src-size reads only src-size bytes, but its address range is the whole
 * width: for the last element of an allocation of exactly ld * (cols - 1)
 * + rows doubles it ends 8 bytes past the end, which compute-sanitizer
 * reports and which a range-checking memory system may fault on. Only
 * edge slices take this path. */
template <int VEC>
static __device__ __forceinline__ void copy_edge(double *dst,
                                                 const double *src,
                                                 const double *base,
                                                 int valid) {
  if (valid == VEC) {
    copy_async<VEC>(dst, src, 8 * VEC);
    return;
  }
#pragma unroll
  for (int v = 0; v < VEC; v++)
    copy_async<1>(dst + v, v < valid ? src + v : base, v < valid ? 8 : 0);
}

/* Load the k-slice at k0 of A and B into the stage buffers a_s, b_s, for
 * slices at the edges (or with leading dimensions too odd for 16-byte
 * copies). Not inlined: it runs only for edge tiles, and inlined into the
 * k-loop it changed the scheduling of the interior path, whose speed is
 * the rung's (8192^3 on the H100: 0.90x cuBLAS inlined, 0.92x not). */
template <int BM, int BN, int BK, int THREADS, int VEC>
static __device__ __noinline__ void load_slice(
    double *a_s, double *b_s, const double *a, const double *b,
    const kl__gemm_shape &s, int64_t m0, int64_t n0, int64_t k0) {
  /* Edges, and leading dimensions too odd for 16-byte copies: each copy
   * checks its bounds and zero-fills what lies outside. */
  const int a_copies = BK * (BM / VEC);
#pragma unroll
  for (int idx = threadIdx.x; idx < a_copies; idx += THREADS) {
    const int row = idx / (BM / VEC), e = (idx % (BM / VEC)) * VEC;
    const int64_t m = m0 + e, k = k0 + row;
    int64_t valid = k < s.k ? s.m - m : 0;
    valid = valid < 0 ? 0 : valid > VEC ? VEC : valid;
    copy_edge<VEC>(a_s + row * BM + 2 * a_chunk(row, e / 2) + e % 2,
                   a + k * s.lda + m, a, (int)valid);
  }
  const int b_copies = BN * (BK / VEC);
#pragma unroll
  for (int idx = threadIdx.x; idx < b_copies; idx += THREADS) {
    const int col = idx / (BK / VEC), e = (idx % (BK / VEC)) * VEC;
    const int64_t n = n0 + col, k = k0 + e;
    int64_t valid = n < s.n ? s.k - k : 0;
    valid = valid < 0 ? 0 : valid > VEC ? VEC : valid;
    copy_edge<VEC>(b_s + col * BK + 2 * b_chunk(col, e / 2) + e % 2,
                   b + n * s.ldb + k, b, (int)valid);
  }
}

/* Where a lane's fragments lie in a stage, in doubles. With kk a multiple
 * of 8, A's row kk + 2t + h has (row >> 1) & 3 = t, so its swizzle is the
 * lane's own constant: one base, then compile-time offsets. B's swizzle
 * flips bit 2 of the chunk kk / 2 + t for odd g: kk ^ b_flip. */
typedef struct lane_offsets {
  int a;      /* + kk * BM + h * BM + i * 16 */
  int b;      /* + j * 8 * BK + (kk ^ b_flip) */
  int b_flip; /* 8 for odd g, else 0 */
} lane_offsets;

template <int BM, int BK>
static __device__ __forceinline__ lane_offsets lane_offsets_of(int wm, int wn,
                                                               int g, int t) {
  lane_offsets o;
  o.a = 2 * t * BM + wm + 2 * (g ^ (2 * t));
  o.b = (wn + g) * BK + 2 * t;
  o.b_flip = (g & 1) * 8;
  return o;
}

template <int BM, int BK, int TILES_M, int TILES_N>
static __device__ __forceinline__ double2 a_fragment(const double *a_s,
                                                     const lane_offsets &o,
                                                     int kk, int i, int h) {
  return *(const double2 *)(a_s + o.a + (kk + h) * BM + i * 16);
}

template <int BM, int BK, int TILES_M, int TILES_N>
static __device__ __forceinline__ double2 b_fragment(const double *b_s,
                                                     const lane_offsets &o,
                                                     int kk, int j) {
  return *(const double2 *)(b_s + o.b + j * 8 * BK + (kk ^ o.b_flip));
}

static __device__ __forceinline__ void mma_tile(double *acc, const double2 *a,
                                                double2 b) {
  /* Registers a0..a3: (g, t) (g + 8, t) (g, t + 4) (g + 8, t + 4) = rows
   * 2g, 2g + 1 at k 2t, then at k 2t + 1. */
  const double av[4] = {a[0].x, a[0].y, a[1].x, a[1].y};
  const double bv[2] = {b.x, b.y};
  dmma(acc, av, bv);
}

template <int BM, int BK, int TILES_M, int TILES_N>
static __device__ __forceinline__ void load_b(double2 (&b)[TILES_N],
                                              const double *b_s,
                                              const lane_offsets &o, int kk) {
#pragma unroll
  for (int j = 0; j < TILES_N; j++)
    b[j] = b_fragment<BM, BK, TILES_M, TILES_N>(b_s, o, kk, j);
}

template <int BM, int BK, int TILES_M, int TILES_N>
static __device__ __forceinline__ void load_a(double2 (&a)[TILES_M][2],
                                              const double *a_s,
                                              const lane_offsets &o, int kk) {
#pragma unroll
  for (int i = 0; i < TILES_M; i++)
#pragma unroll
    for (int h = 0; h < 2; h++)
      a[i][h] = a_fragment<BM, BK, TILES_M, TILES_N>(a_s, o, kk, i, h);
}

template <int TILES_M, int TILES_N>
static __device__ __forceinline__ void multiply(
    double (&acc)[TILES_M][TILES_N][4], const double2 (&a)[TILES_M][2],
    const double2 (&b)[TILES_N]) {
#pragma unroll
  for (int i = 0; i < TILES_M; i++)
#pragma unroll
    for (int j = 0; j < TILES_N; j++) mma_tile(acc[i][j], a[i], b[j]);
}

/* The warp's accumulators, zeroed for a new tile. */
template <int TILES_M, int TILES_N>
static __device__ __forceinline__ void zero_tile(
    double (&acc)[TILES_M][TILES_N][4]) {
#pragma unroll
  for (int i = 0; i < TILES_M; i++)
#pragma unroll
    for (int j = 0; j < TILES_N; j++)
#pragma unroll
      for (int r = 0; r < 4; r++) acc[i][j][r] = 0;
}

/* Where tile t of a tiles_m x tiles_n grid lies. A tile cut by the end of
 * m or n moves back to end there, recomputing rows or columns of the tile
 * before it, which it does not store: its copies are then all inside the
 * matrices and take the fast path, where bounds-checked copies made each
 * such tile slower than the rest and the last wave as slow as they were
 * (1000^3: 0.64x cuBLAS). A's pairs must stay 16-byte aligned for VEC 2,
 * so an odd m keeps its edge tiles. */
typedef struct tile_place {
  int64_t m0, n0;       /* the tile computed */
  int64_t m_own, n_own; /* where the part this tile stores begins */
  bool inside;          /* every copy inside the matrices */
} tile_place;

template <int BM, int BN, int VEC>
static __device__ __forceinline__ tile_place place_tile(
    const kl__gemm_shape &s, int64_t t, int64_t tiles_m, int64_t tiles_n) {
  tile_place p;
  kl__gemm_tile_origin(t, tiles_m, tiles_n, BM, BN, &p.m0, &p.n0);
  p.m_own = p.m0, p.n_own = p.n0;
  if (p.m0 + BM > s.m && s.m >= BM && (VEC == 1 || s.m % 2 == 0))
    p.m0 = s.m - BM;
  if (p.n0 + BN > s.n && s.n >= BN) p.n0 = s.n - BN;
  p.inside = p.m0 + BM <= s.m && p.n0 + BN <= s.n;
  return p;
}

/* SPLIT: the block computes a k-range of its tile, split_k long, and adds
 * alpha times it into C with atomics (C was scaled by beta first): tile
 * tile_offset + b % split_tiles, range b / split_tiles, for block b.
 * PERSIST (not with SPLIT): block b computes tiles tile_offset + b,
 * + gridDim.x, ... below tile_end, and its copy stream runs on from one
 * tile into the next: the refills of a tile's last STAGES slices bring
 * the next tile's first STAGES, so that they land while this tile's last
 * mma and its C stores run (where k is short, each tile's wait for its
 * first slices was a large share of its time: LESSONS.md, "What did not
 * work").
 * Needs at least STAGES slices. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int VEC,
          int MIN_BLOCKS, bool SPLIT, bool PERSIST>
static __global__ void __launch_bounds__(
    dmma_config<BM, BN, BK, WM, WN, STAGES>::THREADS, MIN_BLOCKS)
    dmma_kernel(kl__gemm_shape s, const double *__restrict__ a,
                const double *__restrict__ b, double *__restrict__ c,
                int64_t tiles_m, int64_t tiles_n, int64_t tile_offset,
                int64_t split_tiles, int64_t split_k, int64_t tile_end) {
  typedef dmma_config<BM, BN, BK, WM, WN, STAGES> cfg;
  static_assert(!(SPLIT && PERSIST), "a split block computes one range");
  extern __shared__ __align__(16) double shared[];
  double *a_s = shared;
  double *b_s = shared + STAGES * cfg::A_STAGE;

  int64_t tile = tile_offset + blockIdx.x;
  if (SPLIT) {
    /* A split tail's blocks let the whole tiles' kernel after them start
     * in the slots they leave (it reads nothing they write). */
    kl_gpu_start_next();
    /* The block's k-range as a problem of its own: A and B start at k_lo
     * and k shrinks to the range (a multiple of BK but the last). */
    const int64_t k_lo = (int64_t)(blockIdx.x / split_tiles) * split_k;
    tile = tile_offset + blockIdx.x % split_tiles;
    a += k_lo * s.lda;
    b += k_lo;
    s.k = s.k - k_lo < split_k ? s.k - k_lo : split_k;
  }
  tile_place p = place_tile<BM, BN, VEC>(s, tile, tiles_m, tiles_n);

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = (warp % cfg::WARPS_M) * WM, wn = (warp / cfg::WARPS_M) * WN;

  double acc[cfg::TILES_M][cfg::TILES_N][4];
  zero_tile<cfg::TILES_M, cfg::TILES_N>(acc);

  const int slices = (int)((s.k + BK - 1) / BK);
  const int full_slices = (int)(s.k / BK);
  copy_sources src = copy_sources_of<BM, BN, BK, cfg::THREADS>(a, b, s, p.m0,
                                                               p.n0);
#pragma unroll
  for (int st = 0; st < STAGES; st++) {
    if (p.inside && st < full_slices)
      load_slice_inside<BM, BN, BK, cfg::THREADS, VEC>(
          a_s + st * cfg::A_STAGE, b_s + st * cfg::B_STAGE,
          src.a + st * src.a_slice, src.b + st * src.b_slice, src);
    else if (st < slices)
      load_slice<BM, BN, BK, cfg::THREADS, VEC>(
          a_s + st * cfg::A_STAGE, b_s + st * cfg::B_STAGE, a, b, s, p.m0,
          p.n0, (int64_t)st * BK);
    commit_copies(); /* empty groups keep the count uniform */
  }
  const double *a_next = src.a + STAGES * src.a_slice;
  const double *b_next = src.b + STAGES * src.b_slice;
  wait_copies<STAGES - 1>();
  __syncthreads();

  /* Fragments are loaded a k-step ahead of the mma that use them: the next
   * step's A into a second buffer at the start of a step, and each B
   * fragment into its own registers as soon as the mma of this step that
   * read it are issued, so one B set rolls over and both fit in 255
   * registers. For the last step of a slice the next fragments come from
   * the next stage, after the barrier that publishes it; that barrier also
   * frees this slice's stage, refilled with slice + STAGES once the mma
   * are issued. */
  const lane_offsets o = lane_offsets_of<BM, BK>(wm, wn, g, t);
  double2 a_frag[2][cfg::TILES_M][2], b_frag[cfg::TILES_N];
  load_a<BM, BK, cfg::TILES_M, cfg::TILES_N>(a_frag[0], a_s, o, 0);
  load_b<BM, BK, cfg::TILES_M, cfg::TILES_N>(b_frag, b_s, o, 0);
  /* The stage of the slice being multiplied: slice % STAGES for one tile,
   * running on across a persistent block's tiles. */
  int stage = 0;
  for (;;) {
    /* PERSIST: the next tile's first chunks in A and B, set when its
     * first slice is copied (an edge tile takes the bounds-checked
     * copies, its place worked out again there). */
    const int64_t next_tile = tile + gridDim.x;
    const bool more = PERSIST && next_tile < tile_end;
    const double *next_a = a, *next_b = b;
    bool next_inside = false;
    for (int slice = 0; slice < slices; slice++) {
      if (!PERSIST) stage = slice % STAGES;
#pragma unroll
      for (int st = 0; st < cfg::STEPS; st++) {
        /* STEPS is even (BK a multiple of 16), so step parity is global. */
        const int cur = st % 2;
        const bool last = st == cfg::STEPS - 1;
        const int following = PERSIST ? (stage == STAGES - 1 ? 0 : stage + 1)
                                      : (slice + 1) % STAGES;
        int from = stage, kk = (st + 1) * 8;
        if (last) {
          /* Slice + 1 has landed once at most STAGES - 2 copy groups are
           * in flight. */
          wait_copies<STAGES - 2>();
          __syncthreads();
          from = following;
          kk = 0;
          /* After the last slice this loads the next tile's first slice,
           * or a stage no copy is in flight to, values no mma uses:
           * cheaper than a predicate on each load. */
        }
        const double *as = a_s + from * cfg::A_STAGE;
        const double *bs = b_s + from * cfg::B_STAGE;
        load_a<BM, BK, cfg::TILES_M, cfg::TILES_N>(a_frag[1 - cur], as, o,
                                                   kk);
#pragma unroll
        for (int j = 0; j < cfg::TILES_N; j++) {
#pragma unroll
          for (int i = 0; i < cfg::TILES_M; i++)
            mma_tile(acc[i][j], a_frag[cur][i], b_frag[j]);
          b_frag[j] =
              b_fragment<BM, BK, cfg::TILES_M, cfg::TILES_N>(bs, o, kk, j);
        }
        if (last) {
          const int next = slice + STAGES;
          double *a_fill = a_s + stage * cfg::A_STAGE;
          double *b_fill = b_s + stage * cfg::B_STAGE;
          if (p.inside && next < full_slices)
            load_slice_inside<BM, BN, BK, cfg::THREADS, VEC>(
                a_fill, b_fill, a_next, b_next, src);
          else if (next < slices)
            load_slice<BM, BN, BK, cfg::THREADS, VEC>(
                a_fill, b_fill, a, b, s, p.m0, p.n0, (int64_t)next * BK);
          else if (more) {
            const int j = next - slices; /* the next tile's slice */
            if (j == 0) {
              const tile_place q =
                  place_tile<BM, BN, VEC>(s, next_tile, tiles_m, tiles_n);
              const copy_sources n =
                  copy_sources_of<BM, BN, BK, cfg::THREADS>(a, b, s, q.m0,
                                                            q.n0);
              next_a = n.a, next_b = n.b, next_inside = q.inside;
            }
            if (next_inside && j < full_slices) {
              load_slice_inside<BM, BN, BK, cfg::THREADS, VEC>(
                  a_fill, b_fill, next_a + j * src.a_slice,
                  next_b + j * src.b_slice, src);
            } else if (j < slices) {
              const tile_place q =
                  place_tile<BM, BN, VEC>(s, next_tile, tiles_m, tiles_n);
              load_slice<BM, BN, BK, cfg::THREADS, VEC>(
                  a_fill, b_fill, a, b, s, q.m0, q.n0, (int64_t)j * BK);
            }
          }
          commit_copies();
          a_next += src.a_slice;
          b_next += src.b_slice;
        }
        if (PERSIST && last) stage = following;
      }
    }

    /* The lane's C values: rows 2g (acc 0, 1) and 2g + 1 (acc 2, 3),
     * columns 2t (acc 0, 2) and 2t + 1 (acc 1, 3). A column's two rows are
     * neighbours in C: one 16-byte store where C allows it, so a warp's
     * store fills whole 128-byte lines. BLAS semantics: with beta = 0, C
     * is not read. */
    const bool c_pairs = !SPLIT && s.ldc % 2 == 0 &&
                         ((uintptr_t)c & 15) == 0 && (p.m0 & 1) == 0;
#pragma unroll
    for (int i = 0; i < cfg::TILES_M; i++)
#pragma unroll
      for (int j = 0; j < cfg::TILES_N; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
          const int64_t row = p.m0 + wm + i * 16 + 2 * g;
          const int64_t col = p.n0 + wn + j * 8 + 2 * t + e;
          if (col < p.n_own || col >= s.n) continue;
          double *q = c + col * s.ldc + row;
          const double v[2] = {s.alpha * acc[i][j][e],
                               s.alpha * acc[i][j][2 + e]};
          if (c_pairs && row >= p.m_own && row + 1 < s.m) {
            double2 out = make_double2(v[0], v[1]);
            if (s.beta != 0) {
              const double2 old = *(const double2 *)q;
              out.x = v[0] + s.beta * old.x;
              out.y = v[1] + s.beta * old.y;
            }
            *(double2 *)q = out;
            continue;
          }
#pragma unroll
          for (int h = 0; h < 2; h++) {
            if (row + h < p.m_own || row + h >= s.m) continue;
            if (SPLIT)
              atomicAdd(q + h, v[h]);
            else
              q[h] = s.beta == 0 ? v[h] : v[h] + s.beta * q[h];
          }
        }
    if (!more) break;

    /* The next tile: its first STAGES slices are in flight or landed, its
     * first fragments loaded by the last step above. */
    tile = next_tile;
    p = place_tile<BM, BN, VEC>(s, tile, tiles_m, tiles_n);
    src.a = next_a, src.b = next_b;
    a_next = next_a + STAGES * src.a_slice;
    b_next = next_b + STAGES * src.b_slice;
    zero_tile<cfg::TILES_M, cfg::TILES_N>(acc);
  }
  wait_copies<0>();
  /* Whole tiles launched early beside a split tail (launch()) end after
   * it, so that the work after the product on the stream finds all of C
   * written (launched the usual way, this returns at once; the persistent
   * blocks never follow a split tail). */
  if (!SPLIT && !PERSIST) kl_gpu_wait_prior();
}

/* The most slices for which the tiles run persistent: where a tile is
 * this short, its first slices' wait is a large share of its time (H100,
 * 64 x 64 tiles, against one block a tile: k 128, 8 slices, 0.77 -> 0.91x
 * cuBLAS at 8192^2; k 256 0.95 -> 0.98x at 4096^2 and 0.98 -> 1.1x at
 * 2000x1800; k 384-448 2-3% less time at 4096^2, 10% at 2000x1800, 0.8%
 * more at 8192^2: LESSONS.md, "What did not work"). Only tiles of at most
 * 64 x 64 have the persistent form: larger ones spill in it (255
 * registers), and the rule gives them no k of 512 or more. */
#define PERSIST_SLICES 28
#define PERSIST_TILE (64 * 64)

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int VEC,
          int MIN_BLOCKS>
static kl_status launch(kl_context *ctx, const kl__gemm_shape &s,
                        const double *a, const double *b, double *c,
                        cudaStream_t stream, int64_t sms, int persist_choice) {
  typedef dmma_config<BM, BN, BK, WM, WN, STAGES> cfg;
  const int64_t tiles_m = (s.m + BM - 1) / BM, tiles_n = (s.n + BN - 1) / BN;
  const int64_t tiles = tiles_m * tiles_n;
  typedef void (*kernel)(kl__gemm_shape, const double *, const double *,
                         double *, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t);
  const kernel whole_tiles =
      dmma_kernel<BM, BN, BK, WM, WN, STAGES, VEC, MIN_BLOCKS, false, false>;
  const kernel k_ranges =
      dmma_kernel<BM, BN, BK, WM, WN, STAGES, VEC, MIN_BLOCKS, true, false>;
  kernel persistent = NULL;
  if constexpr (BM * BN <= PERSIST_TILE)
    persistent =
        dmma_kernel<BM, BN, BK, WM, WN, STAGES, VEC, MIN_BLOCKS, false, true>;
  /* Beyond 48 KB of shared memory a kernel must opt in (kl__gpu_fit, once
   * a context), with the driver's carveout as before (the largest shared
   * one: 8192^3 within the runs' spread, 58.6-59.3 against 58.5-59.9
   * TFLOP/s on the H100). */
  int per_sm = 0, unused = 0;
  KL_TRY(kl__gpu_fit(ctx, (const void *)whole_tiles, cfg::THREADS,
                     cfg::SHARED_BYTES, 0, &per_sm));
  /* Short k (at most PERSIST_SLICES slices, at least STAGES) and more
   * than a wave of tiles: a wave of persistent blocks over every tile,
   * each tile's first slices copied under the last mma of the one before
   * (-p dmma_persist=off|on turns it off or on wherever k allows). The
   * tiles past the last whole wave go to the first blocks, one more each,
   * at the SMs' lighter load: not split, which cost more than it gained
   * here (4096^2 x 128 on the H100: 119 -> 108 us; LESSONS.md). */
  const int64_t slices = (s.k + BK - 1) / BK, slots = (int64_t)per_sm * sms;
  const int persist = persistent && slices >= STAGES && tiles > slots &&
                      (persist_choice != GEMM_PERSIST_AUTO
                           ? persist_choice == GEMM_PERSIST_ON
                           : slices <= PERSIST_SLICES);
  if (persist) {
    KL_TRY(kl__gpu_fit(ctx, (const void *)persistent, cfg::THREADS,
                       cfg::SHARED_BYTES, 0, &unused));
    persistent<<<(unsigned)slots, cfg::THREADS, cfg::SHARED_BYTES, stream>>>(
        s, a, b, c, tiles_m, tiles_n, 0, 0, 0, tiles);
    KL_GPU_CHECK_LAUNCH(dmma_kernel);
    return KL_OK;
  }
  int64_t split_tiles, split_k;
  kl__gemm_tail_split(tiles, slots, s.k, BK, &split_tiles, &split_k);
  const int64_t whole = tiles - split_tiles;
  if (split_tiles) {
    /* The split tiles are the last ones: scale them, then sum into them. */
    kl__gemm_scale_tiles<double, BM, BN>
        <<<(unsigned)split_tiles, cfg::THREADS, 0, stream>>>(
            s.m, s.n, s.beta, c, s.ldc, whole, tiles_m, tiles_n);
    KL_GPU_CHECK_LAUNCH(kl__gemm_scale_tiles);
    const int64_t splits = (s.k + split_k - 1) / split_k;
    KL_TRY(kl__gpu_fit(ctx, (const void *)k_ranges, cfg::THREADS,
                       cfg::SHARED_BYTES, 0, &unused));
    k_ranges<<<(unsigned)(split_tiles * splits), cfg::THREADS,
               cfg::SHARED_BYTES, stream>>>(s, a, b, c, tiles_m, tiles_n,
                                            whole, split_tiles, split_k, 0);
    KL_GPU_CHECK_LAUNCH(dmma_kernel);
  }
  /* One block per tile, in launches of at most KL_GPU_MAX_BLOCKS. */
  for (int64_t offset = 0; offset < whole; offset += KL_GPU_MAX_BLOCKS) {
    const int64_t left = whole - offset;
    const unsigned blocks =
        (unsigned)(left < KL_GPU_MAX_BLOCKS ? left : KL_GPU_MAX_BLOCKS);
    /* The first launch after a split tail early: its blocks take the slots
     * the tail's leave, then those the tail's blocks free as they end
     * (LESSONS.md, "What did not work"). */
    KL_GPU_LAUNCH_SHARED(split_tiles != 0 && offset == 0, whole_tiles, blocks,
                         cfg::THREADS, cfg::SHARED_BYTES, stream, s, a, b, c,
                         tiles_m, tiles_n, offset, (int64_t)0, (int64_t)0,
                         (int64_t)0);
  }
  return KL_OK;
}

/* 16-byte copies need 16-byte aligned sources: even leading dimensions
 * and aligned bases. Otherwise 8-byte copies, twice as many. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
static kl_status dispatch(kl_context *ctx, const kl__gemm_shape &s,
                          const double *a, const double *b, double *c,
                          cudaStream_t stream, int64_t sms, int persist) {
  const int aligned = s.lda % 2 == 0 && s.ldb % 2 == 0 &&
                      (uintptr_t)a % 16 == 0 && (uintptr_t)b % 16 == 0;
  return aligned ? launch<BM, BN, BK, WM, WN, STAGES, 2, MIN_BLOCKS>(
                       ctx, s, a, b, c, stream, sms, persist)
                 : launch<BM, BN, BK, WM, WN, STAGES, 1, MIN_BLOCKS>(
                       ctx, s, a, b, c, stream, sms, persist);
}

extern "C" kl_status kl__gemm_gpu_dmma(const kl_args *a) {
  const kl_plan *p = a->plan;
  if (p->type != KL_F64)
    return kl__usage(KL_USAGE, "gemm dmma: double only");
  if (a->ctx->device.arch < 90)
    return kl__usage(KL_UNAVAILABLE, "gemm dmma: needs an sm_90 GPU (this "
                     "one is sm_%d)", a->ctx->device.arch);
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  const double *A = (const double *)a->buffers[GEMM_A];
  const double *B = (const double *)a->buffers[GEMM_B];
  double *C = (double *)a->buffers[GEMM_C];
  cudaStream_t stream = (cudaStream_t)a->stream;
  kl_context *ctx = a->ctx;
  const int64_t sms = ctx->device.compute_units;
  /* The tile is a tuning choice (LESSONS.md, "What did not work"):
   * 128 x 128 x 16 tiles of eight warps (64 x 32 each), one block an SM,
   * where there are at least one and a half waves of them and k has at
   * least 32 slices to spread the prologue and the C stores over: half
   * the L2 bytes a flop of 64 x 64 tiles, so more clock under the power
   * cap (H100: 1.01-1.12x cuBLAS from 2048^3 to 16384^3). Otherwise
   * 64 x 64 x 16 tiles of four warps (32 x 32), three blocks an SM, whose
   * blocks overlap one another's prologue and stores: small grids and
   * thin k (1024^3: 1.06x where 128 x 128 gives 0.70x). -p dmma_tile
   * forces one. */
  const int persist = (int)p->value[GEMM_P_DMMA_PERSIST];
  int pick = (int)p->value[GEMM_P_DMMA_TILE];
  if (pick == GEMM_DMMA_AUTO)
    pick = kl__gemm_large_tiles_pay(kl__gemm_tiles(&s, 128, 128), sms) &&
                   s.k >= 512
               ? GEMM_DMMA_128X128
               : GEMM_DMMA_64X64;
  switch (pick) {
  case GEMM_DMMA_128X128:
    return dispatch<128, 128, 16, 64, 32, 4, 1>(ctx, s, A, B, C, stream, sms,
                                                persist);
  case GEMM_DMMA_128X64:
    return dispatch<128, 64, 16, 64, 32, 4, 2>(ctx, s, A, B, C, stream, sms,
                                               persist);
  case GEMM_DMMA_64X128:
    return dispatch<64, 128, 16, 32, 64, 4, 2>(ctx, s, A, B, C, stream, sms,
                                               persist);
  default:
    return dispatch<64, 64, 16, 32, 32, 4, 3>(ctx, s, A, B, C, stream, sms,
                                              persist);
  }
}
