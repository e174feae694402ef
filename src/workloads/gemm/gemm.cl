/* gemm's OpenCL rung (gemm-cl.c): C = alpha A B + beta C, column-major
 * with leading dimensions (gemm.h), T float or double. A group of 16 x 16
 * items computes a 16 x 16 tile of C, 16 k at a time: the tiles of A and
 * B in local memory (a column padded by one: no bank conflicts), each
 * loaded once by the group and read 16 times. Items past m, n or k load
 * zeros and write nothing; beta = 0 reads no C. */
#define TS 16

__kernel void gemm_local(const ulong m, const ulong n, const ulong k,
                         const T alpha, __global const T *restrict a,
                         const ulong lda, __global const T *restrict b,
                         const ulong ldb, const T beta,
                         __global T *restrict c, const ulong ldc) {
  __local T at[TS][TS + 1]; /* at[kk][ii] = A(i0 + ii, k0 + kk) */
  __local T bt[TS][TS + 1]; /* bt[jj][kk] = B(k0 + kk, j0 + jj) */
  const size_t li = get_local_id(0), lj = get_local_id(1);
  const size_t i = get_group_id(0) * TS + li, j = get_group_id(1) * TS + lj;
  T acc = 0;
  for (size_t k0 = 0; k0 < k; k0 += TS) {
    at[lj][li] = i < m && k0 + lj < k ? a[i + (k0 + lj) * lda] : 0;
    bt[lj][li] = k0 + li < k && j < n ? b[(k0 + li) + j * ldb] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TS; kk++) acc += at[kk][li] * bt[lj][kk];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < m && j < n) {
    const size_t at_c = i + j * ldc;
    c[at_c] = beta == 0 ? alpha * acc : alpha * acc + beta * c[at_c];
  }
}

/* opencl-regtile (gemm-cl.c): register tiles. A group of GX x GY items
 * (GX = BM / TM, GY = BN / TN) computes a BM x BN tile of C, BK k at a
 * time: the BM x BK tile of A and the BK x BN tile of B loaded into local
 * memory by the whole group (neighbouring items, neighbouring elements of
 * a column: the loads coalesce), then each item's TM x TN outputs as outer
 * products of TM values of A and TN of B held in registers, each local
 * value read once per k for TN (or TM) multiply-adds. Item (ti, tj) owns
 * rows ti + r GX and columns tj + c GY: a warp's local reads are
 * consecutive words (A) or one broadcast word (B), its stores of C
 * consecutive rows. Tile sizes are the program's -D options; KL_DIRECT
 * (a CPU) reads the operands from global memory instead. Loads past
 * m, n or k are zeros; items past them write nothing; beta = 0 reads no
 * C. */
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 16
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#define GX (BM / TM)
#define GY (BN / TN)
#define THREADS (GX * GY)

__kernel __attribute__((reqd_work_group_size(GX, GY, 1))) void
gemm_regtile(const ulong m, const ulong n, const ulong k, const T alpha,
             __global const T *restrict a, const ulong lda,
             __global const T *restrict b, const ulong ldb, const T beta,
             __global T *restrict c, const ulong ldc) {
  __local T at[BK][BM];     /* at[kk][ii] = A(i0 + ii, k0 + kk) */
  __local T bt[BK][BN + 1]; /* bt[kk][jj] = B(k0 + kk, j0 + jj) */
  const size_t ti = get_local_id(0), tj = get_local_id(1);
  const size_t tid = ti + tj * GX;
  const size_t i0 = get_group_id(0) * BM, j0 = get_group_id(1) * BN;
  T acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; r++)
#pragma unroll
    for (int q = 0; q < TN; q++) acc[r][q] = 0;
#ifdef KL_DIRECT
  /* A CPU's: the operands from global memory (its caches), no local
   * tiles and no barriers, which PoCL vectorizes over the items. */
  for (size_t kq = 0; kq < k; kq++) {
    T ar[TM], br[TN];
#pragma unroll
    for (int r = 0; r < TM; r++) {
      const size_t i = i0 + ti + r * GX;
      ar[r] = i < m ? a[i + kq * lda] : 0;
    }
#pragma unroll
    for (int q = 0; q < TN; q++) {
      const size_t j = j0 + tj + q * GY;
      br[q] = j < n ? b[kq + j * ldb] : 0;
    }
#pragma unroll
    for (int r = 0; r < TM; r++)
#pragma unroll
      for (int q = 0; q < TN; q++) acc[r][q] += ar[r] * br[q];
  }
#else
  for (size_t k0 = 0; k0 < k; k0 += BK) {
    for (size_t e = tid; e < BM * BK; e += THREADS) {
      const size_t ii = e % BM, kk = e / BM;
      const size_t i = i0 + ii, kq = k0 + kk;
      at[kk][ii] = i < m && kq < k ? a[i + kq * lda] : 0;
    }
    for (size_t e = tid; e < BK * BN; e += THREADS) {
      const size_t kk = e % BK, jj = e / BK;
      const size_t kq = k0 + kk, j = j0 + jj;
      bt[kk][jj] = kq < k && j < n ? b[kq + j * ldb] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      T ar[TM], br[TN];
#pragma unroll
      for (int r = 0; r < TM; r++) ar[r] = at[kk][ti + r * GX];
#pragma unroll
      for (int q = 0; q < TN; q++) br[q] = bt[kk][tj + q * GY];
#pragma unroll
      for (int r = 0; r < TM; r++)
#pragma unroll
        for (int q = 0; q < TN; q++) acc[r][q] += ar[r] * br[q];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
#pragma unroll
  for (int q = 0; q < TN; q++) {
    const size_t j = j0 + tj + q * GY;
#pragma unroll
    for (int r = 0; r < TM; r++) {
      const size_t i = i0 + ti + r * GX;
      if (i < m && j < n) {
        const size_t at_c = i + j * ldc;
        c[at_c] = beta == 0 ? alpha * acc[r][q]
                            : alpha * acc[r][q] + beta * c[at_c];
      }
    }
  }
}
