/* kladder's cg entry point: the conjugate gradient solve of A x = b for a
 * symmetric positive definite matrix in CSR, or the built-in 3D Poisson
 * matrix, with a backend's fastest hand-written rung. */
#ifndef KLADDER_CG_H
#define KLADDER_CG_H

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sparse matrix in CSR: rows + 1 row offsets (offsets[0] = 0,
 * offsets[rows] = nnz), and for each nonzero its column (0-based, sorted
 * within a row is not required) and value. */
typedef struct kl_cg_matrix {
  int64_t rows, nnz;
  const int64_t *offsets;
  const int32_t *columns;
  const double *values;
} kl_cg_matrix;

/* What a solve did. The caller sets size (it may grow at its end, as
 * kladder.h says): kl_cg_result res = {.size = sizeof res}; kl_cg fills
 * the fields that size covers. */
typedef struct kl_cg_result {
  size_t size;        /* the caller's sizeof(kl_cg_result) */
  int64_t iterations; /* made */
  double residual;    /* the solve's own |r| / |b| at the end */
  /* 1 where the solve met its stopping rule: tolerance mode reached
   * |r| <= tol |b| (r = 0 included) before or at maxit, or fixed mode (tol
   * 0) made its maxit iterations; 0 where tolerance mode stopped at maxit
   * above tol, or the residual is not a number. */
  int converged;
} kl_cg_result;

/* Solve A x = b by conjugate gradients from the x given (x0), on the
 * context ctx (kl_context_open: "serial", "openmp", "cuda:1", ...; NULL:
 * the process's default context of the preferred backend that has a
 * library rung). A: a CSR matrix of a->rows rows; NULL: the 3D Poisson
 * matrix on a grid_n^3 grid, `stencil` 27 (diagonal 27, -1 for each
 * neighbour inside the grid) or 7 (6 and -1), row i + n (j + n k). tol >
 * 0: stop at |r| <= tol |b| (tol from 1e-15 to 0.5) or after maxit
 * iterations; tol = 0: exactly maxit iterations. Both stop where r = 0.
 * b and x hold the rows; A's arrays, b and x are host memory, or the
 * context's device memory when data_on_device is nonzero (a CSR matrix
 * only: the built-in matrix is made in host memory, with b and x there).
 * KL_OK only where the solve converged (result->converged = 1);
 * KL_NOT_CONVERGED (exit code 1) where tolerance mode stopped at maxit
 * with |r| > tol |b|: result is filled all the same (converged = 0, the
 * iterations, the residual reached) and x holds the last iterate, for a
 * caller that takes it knowingly. KL_USAGE for a NULL array, an unset
 * result->size, a bad size, tol or stencil, or a matrix found not positive
 * definite on the way (p'Ap <= 0); KL_TOO_LARGE beyond memory. */
kl_status kl_cg(kl_context *ctx, const kl_cg_matrix *a, int64_t grid_n,
                int stencil, const double *b, double *x, double tol,
                int64_t maxit, int data_on_device, kl_cg_result *result);

#ifdef __cplusplus
}
#endif
#endif
