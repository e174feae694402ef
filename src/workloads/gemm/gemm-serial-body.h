/* gemm.c's serial loops for one element type T, named GEMM_NAME(naive)
 * and GEMM_NAME(ordered) (naive_f32, ordered_f64, ...): a template header,
 * included once per type, so that each loop is a function with its own
 * lines. */

/* The seed's triple loop: one dot product per element of C, walking A
 * along a row, lda elements apart. */
static void GEMM_NAME(naive)(kl__gemm_shape s, const T *a, const T *b, T *c) {
  const T alpha = (T)s.alpha, beta = (T)s.beta;
  for (int64_t i = 0; i < s.m; i++)
    for (int64_t j = 0; j < s.n; j++) {
      T sum = 0;
      for (int64_t q = 0; q < s.k; q++)
        sum += a[i + q * s.lda] * b[q + j * s.ldb];
      T *cij = &c[i + j * s.ldc];
      *cij = beta == 0 ? alpha * sum : alpha * sum + beta * *cij;
    }
}

/* The loops reordered (j, q, i) so that the innermost walks a column of A
 * and of C with unit stride: each C column is a sum of scaled A columns. */
static void GEMM_NAME(ordered)(kl__gemm_shape s, const T *a, const T *b,
                               T *c) {
  const T alpha = (T)s.alpha, beta = (T)s.beta;
  for (int64_t j = 0; j < s.n; j++) {
    T *cj = c + j * s.ldc;
    for (int64_t i = 0; i < s.m; i++) cj[i] = beta == 0 ? 0 : beta * cj[i];
    for (int64_t q = 0; q < s.k; q++) {
      const T bq = alpha * b[q + j * s.ldb];
      const T *aq = a + q * s.lda;
      for (int64_t i = 0; i < s.m; i++) cj[i] += aq[i] * bq;
    }
  }
}
