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
