/* kladder's gemm entry point: one BLAS-like call that runs a backend's
 * fastest hand-written gemm rung. */
#ifndef KLADDER_GEMM_H
#define KLADDER_GEMM_H

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C = alpha * A * B + beta * C for column-major matrices, as BLAS ?gemm
 * with no transposes: A is m x k with leading dimension lda >= m, B is
 * k x n with ldb >= k, C is m x n with ldc >= m. type is KL_F32 or KL_F64.
 * It runs on the context ctx (kl_context_open(): "serial", "openmp", "cuda:1", ...;
 * NULL: the process's default context of the preferred backend that has
 * a library rung, a GPU where there is one). The matrices are in host
 * memory, or in the context's device memory when data_on_device is nonzero; C is updated in
 * place. With beta == 0, C is not read. KL_USAGE for sizes below 1 or
 * leading dimensions below the rows; KL_TOO_LARGE when the matrices do not
 * fit the device's memory. */
kl_status kl_gemm(kl_context *ctx, kl_type type, int64_t m, int64_t n,
                  int64_t k, double alpha, const void *a, int64_t lda,
                  const void *b, int64_t ldb, double beta, void *c,
                  int64_t ldc, int data_on_device);

#ifdef __cplusplus
}
#endif
#endif
