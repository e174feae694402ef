/* gemm's OpenCL rung (gemm-cl.c): C = alpha A B + beta C, column-major
 * with leading dimensions (gemm.h), T float or double. A group of 16 x 16
 * items computes a 16 x 16 tile of C, 16 k at a time: the tiles of A and
 * B in local memory (a column padded by one: no bank conflicts), each
 * loaded once by the group and read 16 times. Items past m, n or k load
 * zeros and write nothing; beta = 0 reads no C. */
#define TS 16

/* C's element at `at` from its sum: alpha acc + beta C, no read of C
 * where beta is 0 (C may hold NaN then, as BLAS allows). Every kernel's
 * scalar store. */
static void store_c(__global T *restrict c, size_t at, T alpha, T acc,
                    T beta) {
  c[at] = beta == 0 ? alpha * acc : alpha * acc + beta * c[at];
}

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
  if (i < m && j < n) store_c(c, i + j * ldc, alpha, acc, beta);
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
      if (i < m && j < n) store_c(c, i + j * ldc, alpha, acc[r][q], beta);
    }
  }
}

/* opencl-pipelined (gemm-cl.c): cuda-pipelined's steps on regtile's
 * blocks (BM x BN of C per group of GX x GY items, BK deep, TM x TN per
 * item; the same -D options, TM and TN multiples of 4).
 * - Item (ti, tj) owns 4-wide strips: rows ti*4 + s*GX*4 + 0..3 and
 *   columns tj*4 + s*GY*4 + 0..3 (for 8 x 8: ti*4..+3 and BM/2 + ti*4..+3),
 *   so a k-step reads its operands from local memory as TM/4 + TN/4
 *   4-wide loads (regtile: TM + TN scalar loads); a warp's A reads are
 *   consecutive 16-byte words, its B reads one or two broadcasts.
 * - B's tile is stored k-major (bt[kk][jj], as A's), a row padded by 4
 *   words: the transposing stores hit 2 banks per word instead of 8 and
 *   a row stays 16-byte aligned for the 4-wide loads.
 * - Two stages of local tiles: the next tile's global loads go to
 *   registers before the current tile's products (their latency hidden
 *   behind them), then to the other stage; one barrier a k-step.
 * - KL_EXACT (setup: m % BM, n % BN, k % BK zero, lda, ldb, ldc multiples
 *   of 4, so every 4-group's address is 16-byte aligned in a buffer):
 *   no bounds checks, A's and B's loads and C's loads and stores through
 *   T4 pointers (vload4 may assume only T's alignment, and a compiler
 *   then splits it), addresses as pointers stepped a tile at a time (no
 *   64-bit multiplies in the loop; 32-bit offsets inside a tile).
 *   Otherwise every load and store checked, scalar.
 * A GPU's kernel: on a CPU the rung builds gemm_regtile's direct shape. */
#define T4 KL_CAT(T, 4)
#define SM (TM / 4)
#define SN (TN / 4)
#define BNP (BN + 4)               /* bt's padded row */
#define NA (BM * BK / 4 / THREADS) /* A's float4s per item per tile */
#define NB (BK * BN / 4 / THREADS) /* B's */

__kernel __attribute__((reqd_work_group_size(GX, GY, 1))) void
gemm_pipelined(const ulong m, const ulong n, const ulong k, const T alpha,
               __global const T *restrict a, const ulong lda,
               __global const T *restrict b, const ulong ldb, const T beta,
               __global T *restrict c, const ulong ldc) {
  const int ti = get_local_id(0), tj = get_local_id(1);
  const int tid = ti + tj * GX;
  const size_t i0 = get_group_id(0) * BM, j0 = get_group_id(1) * BN;
  T acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; r++)
#pragma unroll
    for (int q = 0; q < TN; q++) acc[r][q] = 0;
  /* Declared as T4 so that the compiler knows them 16-byte aligned (a
   * vload4 of a T array may only assume T's alignment: scalar loads).
   * at[s][kk][ii / 4] holds A(i0 + ii..+3, k0 + kk); bt[s][kk][jj / 4]
   * B(k0 + kk, j0 + jj..+3). */
  __local T4 at[2][BK][BM / 4];
  __local T4 bt[2][BK][BNP / 4];
  const size_t tiles = (k + BK - 1) / BK;
  T4 ra[NA], rb[NB]; /* the next tile, in flight */
#ifdef KL_EXACT
  /* Each item's float4s of a tile: A's column kk, rows ii..ii+3
   * (neighbouring items, neighbouring rows), B's column jj, k kq..kq+3. */
  __global const T *pa[NA], *pb[NB];
#pragma unroll
  for (int r = 0; r < NA; r++) {
    const int e = tid + r * THREADS;
    pa[r] = a + i0 + (e % (BM / 4)) * 4 + (size_t)(e / (BM / 4)) * lda;
  }
#pragma unroll
  for (int r = 0; r < NB; r++) {
    const int e = tid + r * THREADS;
    pb[r] = b + (e % (BK / 4)) * 4 + (j0 + e / (BK / 4)) * ldb;
  }
  const size_t a_step = BK * lda;
#define LOAD_TILE(t)                                                      \
  do {                                                                    \
    for (int r = 0; r < NA; r++) {                                        \
      ra[r] = *(__global const T4 *)pa[r];                                \
      pa[r] += a_step;                                                    \
    }                                                                     \
    for (int r = 0; r < NB; r++) {                                        \
      rb[r] = *(__global const T4 *)pb[r];                                \
      pb[r] += BK;                                                        \
    }                                                                     \
  } while (0)
#else
  /* Edges: every element checked, scalar; same layout. */
#define LOAD_TILE(t)                                                      \
  do {                                                                    \
    const size_t k0 = (t) * BK;                                           \
    for (int r = 0; r < NA; r++) {                                        \
      const int e = tid + r * THREADS;                                    \
      const size_t i = i0 + (e % (BM / 4)) * 4, kq = k0 + e / (BM / 4);  \
      T v[4];                                                             \
      for (int l = 0; l < 4; l++)                                         \
        v[l] = i + l < m && kq < k ? a[i + l + kq * lda] : 0;             \
      ra[r] = (T4)(v[0], v[1], v[2], v[3]);                               \
    }                                                                     \
    for (int r = 0; r < NB; r++) {                                        \
      const int e = tid + r * THREADS;                                    \
      const size_t kq = k0 + (e % (BK / 4)) * 4, j = j0 + e / (BK / 4);  \
      T v[4];                                                             \
      for (int l = 0; l < 4; l++)                                         \
        v[l] = kq + l < k && j < n ? b[kq + l + j * ldb] : 0;             \
      rb[r] = (T4)(v[0], v[1], v[2], v[3]);                               \
    }                                                                     \
  } while (0)
#endif
#define STORE_TILE(s)                                                     \
  do {                                                                    \
    for (int r = 0; r < NA; r++) {                                        \
      const int e = tid + r * THREADS;                                    \
      at[s][e / (BM / 4)][e % (BM / 4)] = ra[r];                          \
    }                                                                     \
    for (int r = 0; r < NB; r++) {                                        \
      const int e = tid + r * THREADS, kk = (e % (BK / 4)) * 4,           \
                jj = e / (BK / 4);                                        \
      ((__local T *)bt[s][kk])[jj] = rb[r].s0;                            \
      ((__local T *)bt[s][kk + 1])[jj] = rb[r].s1;                        \
      ((__local T *)bt[s][kk + 2])[jj] = rb[r].s2;                        \
      ((__local T *)bt[s][kk + 3])[jj] = rb[r].s3;                        \
    }                                                                     \
  } while (0)
  LOAD_TILE(0);
  STORE_TILE(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t t = 0; t < tiles; t++) {
    const int s = t & 1;
    /* The next tile's loads issued before this one's products; its
     * stores into the other stage after them. The barrier ending the
     * previous step keeps them from overwriting what an item still
     * reads, so one barrier a step suffices. */
    if (t + 1 < tiles) LOAD_TILE(t + 1);
#pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      T4 ar[SM], br[SN];
#pragma unroll
      for (int u = 0; u < SM; u++)
        ar[u] = at[s][kk][ti + u * GX];
#pragma unroll
      for (int u = 0; u < SN; u++)
        br[u] = bt[s][kk][tj + u * GY];
#pragma unroll
      for (int u = 0; u < SM; u++)
#pragma unroll
        for (int v = 0; v < SN; v++) {
          const T av[4] = {ar[u].s0, ar[u].s1, ar[u].s2, ar[u].s3};
          const T bv[4] = {br[v].s0, br[v].s1, br[v].s2, br[v].s3};
#pragma unroll
          for (int x = 0; x < 4; x++)
#pragma unroll
            for (int y = 0; y < 4; y++)
              acc[u * 4 + x][v * 4 + y] += av[x] * bv[y];
        }
    }
    if (t + 1 < tiles) STORE_TILE(s ^ 1);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#undef LOAD_TILE
#undef STORE_TILE
  /* C: item's column j, its 4-row strips. */
#pragma unroll
  for (int q = 0; q < TN; q++) {
    const size_t j = j0 + tj * 4 + (q / 4) * GY * 4 + q % 4;
#pragma unroll
    for (int u = 0; u < SM; u++) {
      const size_t i = i0 + ti * 4 + u * GX * 4;
#ifdef KL_EXACT
      __global T *p = c + i + j * ldc;
      T4 v = alpha * (T4)(acc[u * 4][q], acc[u * 4 + 1][q],
                          acc[u * 4 + 2][q], acc[u * 4 + 3][q]);
      if (beta != 0) v += beta * *(__global T4 *)p;
      *(__global T4 *)p = v;
#else
#pragma unroll
      for (int x = 0; x < 4; x++)
        if (i + x < m && j < n)
          store_c(c, i + x + j * ldc, alpha, acc[u * 4 + x][q], beta);
#endif
    }
  }
}
