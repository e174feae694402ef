/* cg's vendor rung: the solve as CuPy's cupyx.scipy.sparse.linalg.cg makes
 * it, on the libraries alone: cuSPARSE's SpMV on a CSR descriptor, cuBLAS's
 * ddot, daxpy and dscal in host pointer mode (every dot waits for its
 * result on the host), the scalars on the host. hipSPARSE and hipBLAS
 * through vendors/hip.h. Built only where both libraries are found.
 *
 * The matrix goes to cuSPARSE with 32-bit row offsets and 32-bit columns
 * wherever its nonzeros fit (below 2^31), as CuPy's csr_matrix holds it:
 * setup narrows the plan's int64 offsets into scratch (CG_Z, (rows + 1)
 * int32), untimed, which also spares asking whether this cuSPARSE takes
 * int64 offsets with int32 columns. Above 2^31 nonzeros it gets the plan's
 * int64 offsets with the int32 columns; a cuSPARSE that refuses that mix
 * makes the rung unavailable for the problem. */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "../../backends/gpu-blas.h"
#include "../../backends/gpu-sparse.h"
#include "cg.h"

/* The rung's state: the two handles and the matrix's descriptor (its
 * SpMV analysis lives in the SpMV buffer). The vectors' descriptors are
 * made around each SpMV, as CuPy makes them: host calls of a few
 * hundred nanoseconds. */
#define SPARSE(a) ((cusparseHandle_t)(a)->state.pointer[0])
#define BLAS(a) ((cublasHandle_t)(a)->state.pointer[1])
#define MATRIX(a) ((cusparseSpMatDescr_t)(a)->state.pointer[2])

#define VEC(a, index) ((double *)(a)->buffers[index])

/* The SpMV's external buffer, sized in the scratch hook, before any
 * cuSPARSE handle exists to ask: 4 MiB plus 8 bytes a row, room for a
 * per-row table as large as a vector of doubles (69 MB at 201^3, 2.6% of
 * the matrix). A bound, not a measurement: setup fails, saying how much
 * cuSPARSE asked, where it asks for more. */
#define SPMV_BUFFER_BASE ((int64_t)4 << 20)
#define SPMV_BUFFER_PER_ROW 8

static int narrow_offsets(const kl_plan *p) {
  return CG_NNZ(p) <= INT32_MAX;
}

static int64_t spmv_buffer_bytes(const kl_plan *p) {
  return SPMV_BUFFER_BASE + SPMV_BUFFER_PER_ROW * CG_ROWS(p);
}

/* The GPU rungs' scratch, the SpMV buffer in CG_W and the 32-bit offsets
 * in CG_Z (one element where they are not used): both free on this rung,
 * which has no w or z. */
extern "C" kl_status kl__cg_cusparse_scratch(kl_plan *p) {
  kl_status st = kl__cg_gpu_scratch(p);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_W, "cuSPARSE SpMV buffer", KL_U8,
                          spmv_buffer_bytes(p), KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_Z, "32-bit row offsets", KL_I32,
                          narrow_offsets(p) ? CG_ROWS(p) + 1 : 1,
                          KL_MEM_DEVICE, 0);
  return st;
}

static __global__ void narrow_kernel(const int64_t *__restrict__ in,
                                     int32_t *__restrict__ out,
                                     int64_t count) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = (int32_t)in[i];
}

static __global__ void info_kernel(double *info, double k, double residual) {
  info[CG_INFO_ITERATIONS] = k;
  info[CG_INFO_RESIDUAL] = residual;
}

/* out = A in, y's descriptor made and released around the call. beta is
 * 0: cuSPARSE then does not read out (setup zeroed Ap all the same, so
 * that poison could not reach the result if it did). */
static kl_status spmv(const kl_args *a, const double *in, double *out) {
  const kl_plan *p = a->plan;
  const double one = 1, zero = 0;
  cusparseDnVecDescr_t x = NULL, y = NULL;
  KL_CUSPARSE_CHECK(
      cusparseCreateDnVec(&x, CG_ROWS(p), (void *)in, CUDA_R_64F));
  cusparseStatus_t st = cusparseCreateDnVec(&y, CG_ROWS(p), out, CUDA_R_64F);
  if (st == CUSPARSE_STATUS_SUCCESS)
    st = cusparseSpMV(SPARSE(a), CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                      MATRIX(a), x, &zero, y, CUDA_R_64F,
                      CUSPARSE_SPMV_CSR_ALG1, a->buffers[CG_W]);
  (void)cusparseDestroyDnVec(x);
  if (y) (void)cusparseDestroyDnVec(y);
  KL_CUSPARSE_CHECK(st);
  return KL_OK;
}

/* The solve, p's update at the top as CuPy's loop has it. rows < 2^31:
 * cuBLAS's 32-bit interface, as CuPy calls it. */
static kl_status solve(const kl_args *a, int64_t *iterations) {
  const kl_plan *plan = a->plan;
  const int n = (int)CG_ROWS(plan);
  cudaStream_t s = (cudaStream_t)a->stream;
  cublasHandle_t blas = BLAS(a);
  double *x = VEC(a, CG_X), *r = VEC(a, CG_R), *p = VEC(a, CG_P),
         *ap = VEC(a, CG_AP);
  const double *b = VEC(a, CG_B);
  const double minus_one = -1, one = 1;
  const int64_t maxit = CG_MAXIT(plan);
  const int fixed = CG_MODE(plan) == CG_FIXED;
  const double tol2 = CG_TOL(plan) * CG_TOL(plan);
  double rr = 0, bb = 0, rr_old = 0;
  int64_t k = 0;
  /* r = b - A x0 */
  KL_TRY(spmv(a, x, ap));
  KL_GPU_CHECK(cudaMemcpyAsync(r, b, sizeof(double) * (size_t)n,
                               cudaMemcpyDeviceToDevice, s));
  KL_CUBLAS_CHECK(cublasDaxpy(blas, n, &minus_one, ap, 1, r, 1));
  KL_CUBLAS_CHECK(cublasDdot(blas, n, r, 1, r, 1, &rr));
  KL_CUBLAS_CHECK(cublasDdot(blas, n, b, 1, b, 1, &bb));
  while (cg_go_on(k, maxit, fixed, tol2, rr, bb)) {
    if (k == 0) {
      KL_GPU_CHECK(cudaMemcpyAsync(p, r, sizeof(double) * (size_t)n,
                                   cudaMemcpyDeviceToDevice, s));
    } else {
      const double beta = rr / rr_old;
      KL_CUBLAS_CHECK(cublasDscal(blas, n, &beta, p, 1));
      KL_CUBLAS_CHECK(cublasDaxpy(blas, n, &one, r, 1, p, 1));
    }
    KL_TRY(spmv(a, p, ap));
    double pap = 0;
    KL_CUBLAS_CHECK(cublasDdot(blas, n, p, 1, ap, 1, &pap));
    if (!(pap > 0) || !isfinite(pap)) return kl__cg_not_spd(pap, k);
    const double alpha = rr / pap, minus_alpha = -alpha;
    KL_CUBLAS_CHECK(cublasDaxpy(blas, n, &alpha, p, 1, x, 1));
    KL_CUBLAS_CHECK(cublasDaxpy(blas, n, &minus_alpha, ap, 1, r, 1));
    rr_old = rr;
    KL_CUBLAS_CHECK(cublasDdot(blas, n, r, 1, r, 1, &rr));
    k++;
  }
  info_kernel<<<1, 1, 0, s>>>(VEC(a, CG_INFO), (double)k,
                              bb > 0 ? sqrt(rr / bb) : 0);
  KL_GPU_CHECK_LAUNCH(info_kernel);
  *iterations = k;
  return KL_OK;
}

extern "C" kl_status kl__cg_cusparse(const kl_args *a, kl_reps *reps) {
  const kl_backend *b = a->ctx->backend;
  if (!MATRIX(a))
    return KL_FAIL(KL_USAGE, "cg: cusparse runs after its setup");
  for (int i = 0; i < reps->count; i++) {
    int64_t k = 0;
    if (a->reset) KL_TRY(a->reset(a));
    KL_TRY(b->record(a->ctx, 0, 0));
    KL_TRY(solve(a, &k));
    KL_TRY(b->record(a->ctx, 1, 0));
    KL_TRY(b->elapsed(a->ctx, 0, 1, &reps->seconds[i]));
    if (a->counts) a->counts[CG_COUNT_ITERATIONS] = (double)k;
  }
  return KL_OK;
}

/* The matrix's descriptor, its SpMV buffer checked against the scratch,
 * and the SpMV's analysis done once (cusparseSpMV_preprocess), outside
 * every timed run. */
static kl_status prepare(kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t rows = CG_ROWS(p), nnz = CG_NNZ(p);
  cudaStream_t s = (cudaStream_t)a->stream;
  if (p->buffer_count <= CG_Z ||
      p->buffers[CG_W].count < spmv_buffer_bytes(p) ||
      p->buffers[CG_Z].count < (narrow_offsets(p) ? rows + 1 : 1))
    return KL_FAIL(KL_USAGE, "cg: cusparse needs its scratch "
                   "(kl__cg_cusparse_scratch)");
  if (rows > INT_MAX)
    return kl__usage(KL_UNAVAILABLE, "cg: cusparse takes fewer than 2^31 "
                     "rows (cuBLAS's 32-bit interface), not %lld",
                     (long long)rows);
  cusparseHandle_t sparse = NULL;
  cublasHandle_t blas = NULL;
  KL_CUSPARSE_CHECK(cusparseCreate(&sparse));
  a->state.pointer[0] = sparse;
  KL_CUSPARSE_CHECK(cusparseSetStream(sparse, s));
  KL_CUBLAS_CHECK(cublasCreate(&blas));
  a->state.pointer[1] = blas;
  KL_CUBLAS_CHECK(cublasSetStream(blas, s));
  KL_CUBLAS_CHECK(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));

  cusparseSpMatDescr_t matrix = NULL;
  if (narrow_offsets(p)) {
    int32_t *offsets = (int32_t *)a->buffers[CG_Z];
    narrow_kernel<<<kl__gpu_blocks(rows + 1, 256), 256, 0, s>>>(
        (const int64_t *)a->buffers[CG_OFFSETS], offsets, rows + 1);
    KL_GPU_CHECK_LAUNCH(narrow_kernel);
    KL_CUSPARSE_CHECK(cusparseCreateCsr(
        &matrix, rows, rows, nnz, offsets, a->buffers[CG_COLUMNS],
        a->buffers[CG_VALUES], CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  } else {
    const cusparseStatus_t made = cusparseCreateCsr(
        &matrix, rows, rows, nnz, a->buffers[CG_OFFSETS],
        a->buffers[CG_COLUMNS], a->buffers[CG_VALUES], CUSPARSE_INDEX_64I,
        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    if (made == CUSPARSE_STATUS_NOT_SUPPORTED)
      return kl__usage(KL_UNAVAILABLE, "cg: this cuSPARSE refuses int64 row "
                       "offsets with int32 columns, which %lld nonzeros "
                       "need", (long long)nnz);
    KL_CUSPARSE_CHECK(made);
  }
  a->state.pointer[2] = matrix;

  /* Ap is the SpMV's output (beta = 0): zeroed once, so that the
   * scratch's poison can never enter it. */
  double *ap = VEC(a, CG_AP);
  KL_GPU_CHECK(cudaMemsetAsync(ap, 0, sizeof(double) * (size_t)rows, s));
  const double one = 1, zero = 0;
  size_t bytes = 0;
  cusparseDnVecDescr_t x = NULL, y = NULL;
  cusparseStatus_t st =
      cusparseCreateDnVec(&x, rows, VEC(a, CG_P), CUDA_R_64F);
  if (st == CUSPARSE_STATUS_SUCCESS)
    st = cusparseCreateDnVec(&y, rows, ap, CUDA_R_64F);
  if (st == CUSPARSE_STATUS_SUCCESS)
    st = cusparseSpMV_bufferSize(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                 &one, matrix, x, &zero, y, CUDA_R_64F,
                                 CUSPARSE_SPMV_CSR_ALG1, &bytes);
  if (st == CUSPARSE_STATUS_NOT_SUPPORTED && !narrow_offsets(p)) {
    if (x) (void)cusparseDestroyDnVec(x);
    if (y) (void)cusparseDestroyDnVec(y);
    return kl__usage(KL_UNAVAILABLE, "cg: this cuSPARSE's SpMV refuses "
                     "int64 row offsets with int32 columns, which %lld "
                     "nonzeros need", (long long)nnz);
  }
  if (st == CUSPARSE_STATUS_SUCCESS &&
      bytes > (size_t)p->buffers[CG_W].count) {
    (void)cusparseDestroyDnVec(x);
    (void)cusparseDestroyDnVec(y);
    return kl__usage(KL_UNAVAILABLE, "cg: cuSPARSE's SpMV asks for a "
                     "buffer of %zu bytes, more than the %lld planned "
                     "(SPMV_BUFFER_BASE and _PER_ROW, cg-cusparse.cu)",
                     bytes, (long long)p->buffers[CG_W].count);
  }
  if (st == CUSPARSE_STATUS_SUCCESS)
    st = cusparseSpMV_preprocess(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                 &one, matrix, x, &zero, y, CUDA_R_64F,
                                 CUSPARSE_SPMV_CSR_ALG1, a->buffers[CG_W]);
  if (x) (void)cusparseDestroyDnVec(x);
  if (y) (void)cusparseDestroyDnVec(y);
  KL_CUSPARSE_CHECK(st);
  KL_GPU_CHECK(cudaStreamSynchronize(s));
  return KL_OK;
}

extern "C" void kl__cg_cusparse_teardown(kl_args *a) {
  if (a->state.pointer[2])
    (void)cusparseDestroySpMat((cusparseSpMatDescr_t)a->state.pointer[2]);
  if (a->state.pointer[1])
    (void)cublasDestroy((cublasHandle_t)a->state.pointer[1]);
  if (a->state.pointer[0])
    (void)cusparseDestroy((cusparseHandle_t)a->state.pointer[0]);
  a->state.pointer[0] = a->state.pointer[1] = a->state.pointer[2] = NULL;
}

/* A setup that fails part way releases what it made: the harness calls
 * teardown only after a setup that succeeded. */
extern "C" kl_status kl__cg_cusparse_setup(kl_args *a) {
  a->state.pointer[0] = a->state.pointer[1] = a->state.pointer[2] = NULL;
  const kl_status st = prepare(a);
  if (st != KL_OK) kl__cg_cusparse_teardown(a);
  return st;
}
