/* gemm through OpenBLAS: the host's vendor rung, the reference to beat,
 * and a double-precision reference for checks of problems too large for a
 * long-double loop. Built only where CMake finds OpenBLAS. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "gemm.h"

#include <cblas.h>

/* Declared here too: Debian's cblas.h may be the netlib one, which lacks
 * OpenBLAS's own extensions, while the library linked is OpenBLAS. */
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);

/* Debian's default libopenblas0 is the pthreads flavour: it keeps a thread
 * pool of its own, sized from OPENBLAS_NUM_THREADS or the core count, not
 * from OpenMP. Matching it to the OpenMP team before every call makes the
 * vendor rung and the OpenMP rungs race on equal terms (same number of
 * cores), and follows omp_set_num_threads() or OMP_NUM_THREADS when the
 * user narrows the run. */
static void match_threads(void) {
  const int want = kl__omp_threads();
  if (openblas_get_num_threads() != want) openblas_set_num_threads(want);
}

/* cblas takes int extents in the LP64 builds Debian ships. */
static int fits_int(const kl__gemm_shape *s) {
  return s->m <= INT_MAX && s->n <= INT_MAX && s->k <= INT_MAX &&
         s->lda <= INT_MAX && s->ldb <= INT_MAX && s->ldc <= INT_MAX;
}

kl_status kl__gemm_openblas(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  if (!fits_int(&s))
    return kl__usage(KL_UNAVAILABLE,
                     "gemm %lldx%lldx%lld: OpenBLAS takes 32-bit extents",
                     (long long)s.m, (long long)s.n, (long long)s.k);
  match_threads();
  if (a->plan->type == KL_F32)
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)s.m, (int)s.n,
                (int)s.k, (float)s.alpha, a->buffers[GEMM_A], (int)s.lda,
                a->buffers[GEMM_B], (int)s.ldb, (float)s.beta,
                a->buffers[GEMM_C], (int)s.ldc);
  else
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)s.m, (int)s.n,
                (int)s.k, s.alpha, a->buffers[GEMM_A], (int)s.lda,
                a->buffers[GEMM_B], (int)s.ldb, s.beta, a->buffers[GEMM_C],
                (int)s.ldc);
  return KL_OK;
}

kl_status kl__gemm_reference_openblas(const kl_plan *p, void *const *in,
                                      double *ref, double *mag) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  if (!fits_int(&s))
    return kl__usage(KL_UNAVAILABLE,
                     "gemm %lldx%lldx%lld: OpenBLAS takes 32-bit extents",
                     (long long)s.m, (long long)s.n, (long long)s.k);
  double *A = malloc(sizeof(double) * (size_t)s.m * (size_t)s.k);
  double *B = malloc(sizeof(double) * (size_t)s.k * (size_t)s.n);
  if (!A || !B) {
    free(A);
    free(B);
    return KL_FAIL(KL_NO_MEMORY, "out of host memory for gemm's reference "
                                 "(%lldx%lldx%lld in double)",
                   (long long)s.m, (long long)s.n, (long long)s.k);
  }
  match_threads();
  const int m = (int)s.m, n = (int)s.n, k = (int)s.k;
  /* With beta = 0 the C0 buffer is NaN and takes no part, as in BLAS. */
  const int with_c = s.beta != 0;
  for (int pass = 0; pass < 2; pass++) {
    /* Pass 0: ref = alpha A B + beta C0; pass 1: the magnitudes the
     * tolerance scales with, mag = |alpha| |A| |B| + |beta| |C0|. */
    const int absolute = pass == 1;
    double *out = pass == 0 ? ref : mag;
    kl__gemm_widen(p->type, in[GEMM_A], s.lda, s.m, s.k, absolute, A);
    kl__gemm_widen(p->type, in[GEMM_B], s.ldb, s.k, s.n, absolute, B);
    if (with_c)
      kl__gemm_widen(p->type, in[GEMM_C], s.ldc, s.m, s.n, absolute, out);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k,
                absolute ? fabs(s.alpha) : s.alpha, A, m, B, k,
                with_c ? (absolute ? fabs(s.beta) : s.beta) : 0.0, out, m);
  }
  free(A);
  free(B);
  return KL_OK;
}
