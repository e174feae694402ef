/* gemm: C = alpha * A * B + beta * C in float or double (seed 000 §3.5).
 * Column-major with leading dimensions, the BLAS convention: element (i, j)
 * of A is A[i + j * lda], A is m x k, B is k x n, C is m x n, and
 * lda >= m, ldb >= k, ldc >= m. Any m, n, k >= 1: rungs handle edges that
 * are not multiples of their tiles.
 * BLAS semantics for beta = 0: C is not read (it may hold NaN; the harness
 * fills it with NaN then), so beta * C is never formed.
 * Rows i >= m of A, B and C (between the rows and the leading dimension)
 * belong to nobody: A's and B's are NaN, so a rung that uses them fails,
 * and C's must come back unchanged.
 * Cost model: 2 m n k flops per run; the fewest bytes, each matrix read
 * once and C written once. */
#ifndef KL_GEMM_H
#define KL_GEMM_H

#include "../../core/internal.h"

/* The plan's buffers: A, B and C, then openmp-blocked's scratch (the
 * packed B panel and the threads' packed A blocks). */
enum { GEMM_A, GEMM_B, GEMM_C, GEMM_B_PANEL, GEMM_A_BLOCKS };
/* The parameters, in the workload's order. */
enum {
  GEMM_P_M,
  GEMM_P_N,
  GEMM_P_K,
  GEMM_P_LDA,
  GEMM_P_LDB,
  GEMM_P_LDC,
  GEMM_P_ALPHA,
  GEMM_P_BETA,
  GEMM_P_DMMA_TILE,       /* tunings: cuda-dmma's tile (GEMM_DMMA_*), */
  GEMM_P_DMMA_PERSIST,    /* its persistent blocks (GEMM_PERSIST_*) */
  GEMM_P_PIPELINED_TILE,  /* and cuda-pipelined's f32 tile (GEMM_F32_*) */
  GEMM_P_COUNT
};
/* The tunings' choices, 0 each rung's own pick by shape (LESSONS.md). */
enum { GEMM_DMMA_AUTO, GEMM_DMMA_128X128, GEMM_DMMA_128X64, GEMM_DMMA_64X128,
       GEMM_DMMA_64X64 };
enum { GEMM_PERSIST_AUTO, GEMM_PERSIST_OFF, GEMM_PERSIST_ON };
enum { GEMM_F32_AUTO, GEMM_F32_128X128, GEMM_F32_128X64, GEMM_F32_256X128 };


/* The shape of a plan, as rungs read it. Offsets into the matrices can
 * pass 2^31: index with int64_t or size_t. */
typedef struct kl__gemm_shape {
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  double alpha, beta;
} kl__gemm_shape;

static inline kl__gemm_shape kl__gemm_shape_of(const kl_plan *p) {
  const double *v = p->value;
  kl__gemm_shape s = {(int64_t)v[GEMM_P_M],   (int64_t)v[GEMM_P_N],
                      (int64_t)v[GEMM_P_K],   (int64_t)v[GEMM_P_LDA],
                      (int64_t)v[GEMM_P_LDB], (int64_t)v[GEMM_P_LDC],
                      v[GEMM_P_ALPHA],        v[GEMM_P_BETA]};
  return s;
}

/* The bm x bn tiles that cover C. */
static inline int64_t kl__gemm_tiles(const kl__gemm_shape *s, int bm, int bn) {
  return ((s->m + bm - 1) / bm) * ((s->n + bn - 1) / bn);
}

/* Whether a fast GPU rung takes its large tiles (one block an SM): where
 * there are at least one and a half waves of them on the device's SMs.
 * Below that the smaller tiles, several blocks an SM, keep every SM busy
 * and overlap one another's starts and stores (LESSONS.md, "What did not
 * work"). */
static inline int kl__gemm_large_tiles_pay(int64_t tiles, int64_t sms) {
  return 2 * tiles >= 3 * sms;
}

/* Tiles past the last whole wave of a GPU kernel run as a wave of a few
 * blocks while the other SMs idle: at 8192^3 with 128 x 128 tiles, 4096
 * tiles on 132 SMs leave 4 for a 32nd wave, 3% of the time. Those tiles
 * are split along k over the free SMs instead, each block a k-range of at
 * least 4 k-slices, summed into C by atomics. Sets the number of (last)
 * tiles to split and the k-range of each block, or 0 tiles when splitting
 * does not pay: the tail fills more than half a wave, or k is short. */
static inline void kl__gemm_tail_split(int64_t tiles, int64_t slots,
                                       int64_t k, int bk,
                                       int64_t *split_tiles,
                                       int64_t *split_k) {
  *split_tiles = 0;
  *split_k = 0;
  const int64_t tail = slots > 0 ? tiles % slots : 0;
  if (tail == 0 || tail > slots / 2 || tiles < slots) return;
  const int64_t k_slices = (k + bk - 1) / bk;
  int64_t splits = slots / tail;
  if (splits > k_slices / 4) splits = k_slices / 4;
  if (splits < 2) return;
  *split_tiles = tail;
  *split_k = (k_slices + splits - 1) / splits * bk;
}

#if defined(__CUDACC__) || defined(__HIPCC__)
/* Tiles in grouped order: down 8 tile-rows, then across every tile column,
 * then the next 8 rows, so that the blocks resident together share panels
 * of A and B in L2. The last band may be shorter (rows); since t < tiles_m
 * * tiles_n, in_group is below rows * tiles_n there too. */
#define KL_GEMM_GROUP_ROWS 8
static __device__ __forceinline__ void kl__gemm_tile_origin(
    int64_t t, int64_t tiles_m, int64_t tiles_n, int bm, int bn, int64_t *m0,
    int64_t *n0) {
  const int64_t band = t / (KL_GEMM_GROUP_ROWS * tiles_n);
  const int64_t first = band * KL_GEMM_GROUP_ROWS;
  const int64_t rows = tiles_m - first < KL_GEMM_GROUP_ROWS
                           ? tiles_m - first
                           : (int64_t)KL_GEMM_GROUP_ROWS;
  const int64_t in_group = t - band * KL_GEMM_GROUP_ROWS * tiles_n;
  *m0 = (first + in_group % rows) * bm;
  *n0 = (in_group / rows) * bn;
}

/* C = beta C over the tiles a k-split computes, before their atomics add
 * into it; with beta = 0, C is not read (BLAS). One block per tile. */
template <typename T, int BM, int BN>
static __global__ void kl__gemm_scale_tiles(int64_t m, int64_t n, T beta,
                                            T *c, int64_t ldc,
                                            int64_t tile_offset,
                                            int64_t tiles_m,
                                            int64_t tiles_n) {
  int64_t m0, n0;
  kl__gemm_tile_origin(tile_offset + blockIdx.x, tiles_m, tiles_n, BM, BN,
                       &m0, &n0);
  for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) {
    const int64_t row = m0 + e % BM, col = n0 + e / BM;
    if (row < m && col < n) {
      T *p = c + col * ldc + row;
      *p = beta == (T)0 ? (T)0 : beta * *p;
    }
  }
}
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* Host rungs (gemm-omp.c, gemm-openblas.c). */
kl_status kl__gemm_omp_blocked(const kl_args *a);
kl_status kl__gemm_omp_scratch(kl_plan *p);
kl_status kl__gemm_openblas(const kl_args *a);

/* GPU rungs, in ladder order: the teaching rungs (gemm-cuda.cu), the
 * pipelined one (gemm-pipelined-cuda.cu), DMMA (gemm-dmma-nvidia.cu) and
 * cuBLAS (gemm-cublas.cu). */
kl_status kl__gemm_gpu_naive(const kl_args *a);
/* The OpenCL rung (gemm-cl.c, gemm.cl). */
kl_status kl__gemm_cl_local(const kl_args *a);
kl_status kl__gemm_cl_setup(kl_args *a);
kl_status kl__gemm_cl_regtile(const kl_args *a);
kl_status kl__gemm_cl_regtile_setup(kl_args *a);
kl_status kl__gemm_cl_pipelined(const kl_args *a);
kl_status kl__gemm_cl_pipelined_setup(kl_args *a);
kl_status kl__gemm_gpu_shared8(const kl_args *a);
kl_status kl__gemm_gpu_shared16(const kl_args *a);
kl_status kl__gemm_gpu_shared32(const kl_args *a);
kl_status kl__gemm_gpu_regtile_64x64(const kl_args *a);
kl_status kl__gemm_gpu_regtile_128x16(const kl_args *a);
kl_status kl__gemm_gpu_local_memory(const kl_args *a);
kl_status kl__gemm_gpu_padded(const kl_args *a);
kl_status kl__gemm_gpu_dynamic(const kl_args *a);
kl_status kl__gemm_gpu_pipelined(const kl_args *a);
/* cuda-rescheduled (gemm-pipelined-cuda.cu): cuda-pipelined's float
 * kernels from the build's rescheduled sm_90 image. */
kl_status kl__gemm_gpu_rescheduled_setup(kl_args *a);
void kl__gemm_gpu_rescheduled_teardown(kl_args *a);
kl_status kl__gemm_gpu_rescheduled(const kl_args *a);
kl_status kl__gemm_gpu_dmma(const kl_args *a);
kl_status kl__gemm_gpu_cublas(const kl_args *a);
kl_status kl__gemm_gpu_cublas_setup(kl_args *a);
void kl__gemm_gpu_cublas_teardown(kl_args *a);

/* A column-major rows x cols matrix (leading dimension ld) widened to
 * double and packed into dst (leading dimension rows), as magnitudes when
 * absolute is set; rows past `rows` are not read (they hold NaN). For the
 * double-precision references below. */
void kl__gemm_widen(kl_type t, const void *src, int64_t ld, int64_t rows,
                    int64_t cols, int absolute, double *dst);

/* Random inputs made on the GPU with cuRAND (the seed's hipRAND step):
 * KL_UNAVAILABLE where the problem is small. */
kl_status kl__gemm_init_device(const kl_args *a);
/* The reference for a large problem, computed on the GPU by cuBLAS DGEMM
 * from the host inputs (floats widened to double): ref = alpha A B +
 * beta C0 and mag = |alpha| |A| |B| + |beta| |C0|, both m x n with leading
 * dimension m. KL_UNAVAILABLE without a GPU. */
kl_status kl__gemm_reference_device(const kl_plan *p, void *const *in,
                                    double *ref, double *mag);
/* The same with OpenBLAS on the host. */
kl_status kl__gemm_reference_openblas(const kl_plan *p, void *const *in,
                                      double *ref, double *mag);
#ifdef __cplusplus
}
#endif

#endif
