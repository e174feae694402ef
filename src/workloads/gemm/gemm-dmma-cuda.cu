/* gemm on FP64 tensor cores: mma.sync f64 (DMMA) fed by a multi-stage
 * cp.async pipeline. Hopper's FP64 tensor peak (67 TFLOP/s on an H100 SXM)
 * is twice its FP64 CUDA-core peak, and there is no wgmma for f64, so
 * warp-level mma.sync is the way to it, as in cuBLAS.
 *
 * Layout of the work (column-major A, B, C):
 *  - a block computes a BM x BN tile of C, looping over k in BK slices;
 *  - each slice of A (BM x BK) lands in shared memory as [k][m], which is
 *    how column-major A lies in memory, so rows of 16-byte copies;
 *    each slice of B (BK x BN) lands as [n][k], likewise;
 *  - warps tile the block WM x WN; a warp's tile is made of 16 x 8 mma
 *    tiles, MMA_K deep.
 * Fragment ownership (PTX ISA, mma .f64): lane = 4 g + t. A: element
 * (g + 8h, t + 4j) in register 2j + h; B: (t + 4j, g) in register j;
 * C: (g + 8h, 2t + e) in register 2h + e. */
#include "../../backends/gpu.h"
#include "gemm.h"

#include <stdlib.h>

#if defined(KL_HAVE_HIP)

extern "C" kl_status kl__gemm_gpu_dmma(const kl_args *a) {
  (void)a;
  return kl__usage(KL_UNAVAILABLE, "gemm: mma.sync f64 is NVIDIA sm_90 only");
}

#else

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
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
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
 * 2t + 1 of B's [n][k] slice, so every fragment comes in 16-byte loads,
 * half the shared-load instructions of 8-byte ones. The lane's four C
 * values are then the 2 x 2 block at rows 2g, 2g + 1, columns 2t, 2t + 1.
 *
 * Padding (doubles): A rows BM + 2, B rows BK + 8. A 16-byte load is served
 * a quarter-warp at a time (lanes g = 2p, 2p + 1, t = 0..3); with these
 * strides those eight lanes fall in eight different 16-byte bank groups. */
#define DMMA_A_PAD 2
#define DMMA_B_PAD 8

template <int BM, int BN, int BK, int WM, int WN, int STAGES>
struct dmma_config {
  enum {
    WARPS_M = BM / WM,
    WARPS_N = BN / WN,
    THREADS = WARPS_M * WARPS_N * 32,
    TILES_M = WM / 16, /* mma tiles per warp */
    TILES_N = WN / 8,
    A_STRIDE = BM + DMMA_A_PAD, /* doubles between k-rows of the A slice */
    B_STRIDE = BK + DMMA_B_PAD, /* doubles between columns of the B slice */
    A_STAGE = BK * A_STRIDE,
    B_STAGE = BN * B_STRIDE,
    SHARED_BYTES = STAGES * (A_STAGE + B_STAGE) * 8,
    /* Copies per thread per slice, VEC doubles each. */
    A_ROWS_PER_PASS = THREADS / (BM / 2),
    B_COLS_PER_PASS = THREADS / (BK / 2)
  };
};

/* Load k-slice at k0 of A and B into the stage buffers a_s, b_s. A tile
 * that lies wholly inside the matrices (the common case) takes the short
 * path: fixed strides from one pointer per thread, no bounds. */
template <int BM, int BN, int BK, int THREADS, int VEC, int A_STRIDE,
          int B_STRIDE>
static __device__ __forceinline__ void load_slice(
    double *a_s, double *b_s, const double *a, const double *b,
    const kl__gemm_shape &s, int64_t m0, int64_t n0, int64_t k0,
    bool inside) {
  if (inside && VEC == 2) {
    /* A: thread -> (row, m pair); a pass of all threads covers
     * THREADS / (BM / 2) rows. Consecutive threads read consecutive pairs
     * of one column of A: whole 128-byte lines. */
    const int rows_per_pass = THREADS / (BM / 2);
    const int row = threadIdx.x / (BM / 2), col = 2 * (threadIdx.x % (BM / 2));
    const double *src = a + (k0 + row) * s.lda + m0 + col;
    const int64_t step = rows_per_pass * s.lda;
#pragma unroll
    for (int r = 0; r < BK / rows_per_pass; r++)
      copy_async<2>(a_s + (row + r * rows_per_pass) * A_STRIDE + col,
                    src + r * step, 16);
    const int cols_per_pass = THREADS / (BK / 2);
    const int bcol = threadIdx.x / (BK / 2), brow = 2 * (threadIdx.x % (BK / 2));
    const double *bsrc = b + (n0 + bcol) * s.ldb + k0 + brow;
    const int64_t bstep = cols_per_pass * s.ldb;
#pragma unroll
    for (int c = 0; c < BN / cols_per_pass; c++)
      copy_async<2>(b_s + (bcol + c * cols_per_pass) * B_STRIDE + brow,
                    bsrc + c * bstep, 16);
    return;
  }
  const int a_chunks = BK * (BM / VEC);
#pragma unroll
  for (int idx = threadIdx.x; idx < a_chunks; idx += THREADS) {
    const int row = idx / (BM / VEC), col = (idx % (BM / VEC)) * VEC;
    const int64_t m = m0 + col, k = k0 + row;
    int64_t valid = k < s.k ? s.m - m : 0;
    valid = valid < 0 ? 0 : valid > VEC ? VEC : valid;
    const double *src = valid ? a + k * s.lda + m : a;
    copy_async<VEC>(a_s + row * A_STRIDE + col, src, (int)valid * 8);
  }
  const int b_chunks = BN * (BK / VEC);
#pragma unroll
  for (int idx = threadIdx.x; idx < b_chunks; idx += THREADS) {
    const int col = idx / (BK / VEC), row = (idx % (BK / VEC)) * VEC;
    const int64_t n = n0 + col, k = k0 + row;
    int64_t valid = n < s.n ? s.k - k : 0;
    valid = valid < 0 ? 0 : valid > VEC ? VEC : valid;
    const double *src = valid ? b + n * s.ldb + k : b;
    copy_async<VEC>(b_s + col * B_STRIDE + row, src, (int)valid * 8);
  }
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int VEC,
          int MIN_BLOCKS>
static __global__ void __launch_bounds__(
    dmma_config<BM, BN, BK, WM, WN, STAGES>::THREADS, MIN_BLOCKS)
    dmma_kernel(kl__gemm_shape s, const double *__restrict__ a,
                const double *__restrict__ b, double *__restrict__ c,
                int tiles_m, int tiles_n) {
  typedef dmma_config<BM, BN, BK, WM, WN, STAGES> cfg;
  extern __shared__ __align__(16) double shared[];
  double *a_s = shared;
  double *b_s = shared + STAGES * cfg::A_STAGE;

  /* Blocks run in groups of 8 tile-rows, column after column, so that the
   * blocks resident together share A panels and B panels in L2. */
  const int group_rows = 8;
  const int per_group = group_rows * tiles_n;
  const int group = blockIdx.x / per_group;
  const int first = group * group_rows;
  const int rows = tiles_m - first < group_rows ? tiles_m - first : group_rows;
  const int in_group = blockIdx.x % per_group;
  const int64_t m0 = (int64_t)(first + in_group % rows) * BM;
  const int64_t n0 = (int64_t)(in_group / rows) * BN;
  const bool inside_mn = m0 + BM <= s.m && n0 + BN <= s.n;

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = (warp % cfg::WARPS_M) * WM, wn = (warp / cfg::WARPS_M) * WN;

  double acc[cfg::TILES_M][cfg::TILES_N][4];
#pragma unroll
  for (int i = 0; i < cfg::TILES_M; i++)
#pragma unroll
    for (int j = 0; j < cfg::TILES_N; j++)
#pragma unroll
      for (int r = 0; r < 4; r++) acc[i][j][r] = 0;

  const int slices = (int)((s.k + BK - 1) / BK);
  const int full_slices = (int)(s.k / BK);
#pragma unroll
  for (int st = 0; st < STAGES - 1; st++) {
    if (st < slices)
      load_slice<BM, BN, BK, cfg::THREADS, VEC, cfg::A_STRIDE, cfg::B_STRIDE>(
          a_s + st * cfg::A_STAGE, b_s + st * cfg::B_STAGE, a, b, s, m0, n0,
          (int64_t)st * BK, inside_mn && st < full_slices);
    commit_copies(); /* empty groups keep the count uniform */
  }

  /* Each lane's fragments sit at fixed offsets from these two points. */
  const int a_lane = 2 * t * cfg::A_STRIDE + wm + 2 * g;
  const int b_lane = (wn + g) * cfg::B_STRIDE + 2 * t;
  for (int slice = 0; slice < slices; slice++) {
    /* Slice `slice` has landed once at most STAGES - 2 groups are in
     * flight; the barrier also frees the stage read in the last pass. */
    wait_copies<STAGES - 2>();
    __syncthreads();
    const int next = slice + STAGES - 1;
    if (next < slices)
      load_slice<BM, BN, BK, cfg::THREADS, VEC, cfg::A_STRIDE, cfg::B_STRIDE>(
          a_s + (next % STAGES) * cfg::A_STAGE,
          b_s + (next % STAGES) * cfg::B_STAGE, a, b, s, m0, n0,
          (int64_t)next * BK, inside_mn && next < full_slices);
    commit_copies();

    const double *as = a_s + (slice % STAGES) * cfg::A_STAGE + a_lane;
    const double *bs = b_s + (slice % STAGES) * cfg::B_STAGE + b_lane;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      double2 af[cfg::TILES_M][2], bf[cfg::TILES_N];
#pragma unroll
      for (int i = 0; i < cfg::TILES_M; i++) {
        af[i][0] = *(const double2 *)(as + kk * cfg::A_STRIDE + i * 16);
        af[i][1] =
            *(const double2 *)(as + (kk + 1) * cfg::A_STRIDE + i * 16);
      }
#pragma unroll
      for (int j = 0; j < cfg::TILES_N; j++)
        bf[j] = *(const double2 *)(bs + j * 8 * cfg::B_STRIDE + kk);
#pragma unroll
      for (int i = 0; i < cfg::TILES_M; i++)
#pragma unroll
        for (int j = 0; j < cfg::TILES_N; j++) {
          /* Registers a0..a3: (g, t) (g + 8, t) (g, t + 4) (g + 8, t + 4)
           * = rows 2g, 2g + 1 at k 2t, then at k 2t + 1. */
          const double av[4] = {af[i][0].x, af[i][0].y, af[i][1].x,
                                af[i][1].y};
          const double bv[2] = {bf[j].x, bf[j].y};
          dmma(acc[i][j], av, bv);
        }
    }
  }
  wait_copies<0>();

  /* The lane's C values: rows 2g (acc 0, 1) and 2g + 1 (acc 2, 3), columns
   * 2t (acc 0, 2) and 2t + 1 (acc 1, 3). BLAS semantics: with beta = 0, C
   * is not read. */
#pragma unroll
  for (int i = 0; i < cfg::TILES_M; i++)
#pragma unroll
    for (int j = 0; j < cfg::TILES_N; j++)
#pragma unroll
      for (int r = 0; r < 4; r++) {
        const int64_t row = m0 + wm + i * 16 + 2 * g + r / 2;
        const int64_t col = n0 + wn + j * 8 + 2 * t + r % 2;
        if (row < s.m && col < s.n) {
          double *cij = c + col * s.ldc + row;
          *cij = s.beta == 0 ? s.alpha * acc[i][j][r]
                             : s.alpha * acc[i][j][r] + s.beta * *cij;
        }
      }
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int VEC,
          int MIN_BLOCKS>
static kl_status launch(const kl__gemm_shape &s, const double *a,
                        const double *b, double *c, cudaStream_t stream) {
  typedef dmma_config<BM, BN, BK, WM, WN, STAGES> cfg;
  const int64_t tiles_m = (s.m + BM - 1) / BM, tiles_n = (s.n + BN - 1) / BN;
  if (tiles_m * tiles_n > INT32_MAX)
    return kl__usage(KL_TOO_LARGE, "gemm dmma: %lld x %lld tiles are too "
                     "many for one grid", (long long)tiles_m,
                     (long long)tiles_n);
  void (*kernel)(kl__gemm_shape, const double *, const double *, double *,
                 int, int) =
      dmma_kernel<BM, BN, BK, WM, WN, STAGES, VEC, MIN_BLOCKS>;
  /* Beyond 48 KB of shared memory a kernel must opt in. */
  KL_GPU_CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, cfg::SHARED_BYTES));
  kernel<<<(unsigned)(tiles_m * tiles_n), cfg::THREADS, cfg::SHARED_BYTES,
           stream>>>(s, a, b, c, (int)tiles_m, (int)tiles_n);
  KL_GPU_CHECK_LAUNCH(dmma_kernel);
  return KL_OK;
}

/* 16-byte copies need 16-byte aligned sources: even leading dimensions
 * and aligned bases. Otherwise 8-byte copies, twice as many. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
static kl_status dispatch(const kl__gemm_shape &s, const double *a,
                          const double *b, double *c, cudaStream_t stream) {
  const int aligned = s.lda % 2 == 0 && s.ldb % 2 == 0 &&
                      (uintptr_t)a % 16 == 0 && (uintptr_t)b % 16 == 0;
  return aligned ? launch<BM, BN, BK, WM, WN, STAGES, 2, MIN_BLOCKS>(
                       s, a, b, c, stream)
                 : launch<BM, BN, BK, WM, WN, STAGES, 1, MIN_BLOCKS>(
                       s, a, b, c, stream);
}

static int device_has_dmma(void) {
  static int known = -1;
  if (known < 0) {
    int device = 0, major = 0;
    known = cudaGetDevice(&device) == cudaSuccess &&
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                   device) == cudaSuccess &&
            major >= 9;
  }
  return known;
}

extern "C" kl_status kl__gemm_gpu_dmma(const kl_args *a) {
  const kl_plan *p = a->plan;
  if (p->type != KL_F64)
    return kl__usage(KL_USAGE, "gemm dmma: double only");
  if (!device_has_dmma())
    return kl__usage(KL_UNAVAILABLE, "gemm dmma: needs an sm_90 GPU");
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  const double *A = (const double *)a->buffers[GEMM_A];
  const double *B = (const double *)a->buffers[GEMM_B];
  double *C = (double *)a->buffers[GEMM_C];
  cudaStream_t stream = (cudaStream_t)a->stream;
  /* Tuning knob for the notes' experiments: KLADDER_DMMA=<variant>. */
  const char *v = getenv("KLADDER_DMMA");
  const int variant = v ? atoi(v) : 0;
  switch (variant) {
  case 1: return dispatch<128, 128, 16, 64, 32, 4, 1>(s, A, B, C, stream);
  case 2: return dispatch<128, 64, 16, 64, 32, 3, 2>(s, A, B, C, stream);
  case 3: return dispatch<128, 64, 32, 64, 32, 3, 1>(s, A, B, C, stream);
  case 4: return dispatch<128, 128, 32, 64, 32, 3, 1>(s, A, B, C, stream);
  case 5: return dispatch<64, 64, 16, 32, 32, 3, 3>(s, A, B, C, stream);
  case 6: return dispatch<128, 128, 16, 64, 32, 3, 1>(s, A, B, C, stream);
  case 7: return dispatch<64, 128, 16, 64, 32, 3, 2>(s, A, B, C, stream);
  case 8: return dispatch<128, 128, 16, 32, 64, 3, 1>(s, A, B, C, stream);
  default: return dispatch<64, 128, 16, 32, 64, 3, 2>(s, A, B, C, stream);
  }
}

#endif
