/* test_stream: a GPU context adopts the caller's stream
 * (kl_context_adopt_stream). A pinned host array is copied to the device
 * on the caller's stream and, with no wait, summed by kl_reduce on the
 * context: the sum is the copy's, whole, as the reduce runs after it on
 * that stream (on the context's own stream it would race the copy).
 * Three rounds, each a new value; then the context's own stream back,
 * the context closed, and the caller's stream still the caller's: it
 * answers and is destroyed without error. And kl_cg on a CSR matrix in
 * device memory on a stream handed over, the caller's and the legacy
 * default stream (which cannot be captured as a graph; CuPy's arrays are
 * on it), the second with x 8 bytes past a 16-byte boundary (the vector
 * kernels' paired accesses need 16, and fall back to single elements) and
 * an odd row count (their last element alone): each solve converges, its
 * residual checked on the host.
 * Exit 77 without a CUDA device. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>

#include "expect.h"
#include "kladder-cg.h"
#include "kladder-reduce.h"

/* kl_cg of tridiag(-1, 2.5, -1) x = 1 (rows of them), the arrays in device
 * memory, x `shift` elements into its allocation, on ctx with `stream`
 * adopted: converged to tol 1e-12, the true residual |b - A x| / |b| under
 * 1e-10 on the host. */
static void cg_on(kl_context *ctx, void *stream, int shift,
                  const char *which) {
  enum { ROWS = 501 };
  static int64_t offsets[ROWS + 1];
  static int32_t columns[3 * ROWS];
  static double values[3 * ROWS], b[ROWS], x[ROWS];
  int64_t nnz = 0;
  for (int i = 0; i < ROWS; i++) {
    offsets[i] = nnz;
    for (int j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < ROWS) {
        columns[nnz] = j;
        values[nnz++] = i == j ? 2.5 : -1;
      }
    b[i] = 1;
  }
  offsets[ROWS] = nnz;
  int64_t *d_off = NULL;
  int32_t *d_col = NULL;
  double *d_val = NULL, *d_b = NULL, *d_alloc = NULL, *d_x = NULL;
  EXPECT(cudaMalloc((void **)&d_off, sizeof offsets) == cudaSuccess);
  EXPECT(cudaMalloc((void **)&d_col, sizeof columns) == cudaSuccess);
  EXPECT(cudaMalloc((void **)&d_val, sizeof values) == cudaSuccess);
  EXPECT(cudaMalloc((void **)&d_b, sizeof b) == cudaSuccess);
  EXPECT(cudaMalloc((void **)&d_alloc, sizeof x + sizeof *x) == cudaSuccess);
  if (d_alloc) d_x = d_alloc + shift;
  if (d_off && d_col && d_val && d_b && d_x) {
    EXPECT(cudaMemcpy(d_off, offsets, sizeof offsets,
                      cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaMemcpy(d_col, columns, sizeof columns,
                      cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaMemcpy(d_val, values, sizeof values,
                      cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice) ==
           cudaSuccess);
    EXPECT(cudaMemset(d_x, 0, sizeof x) == cudaSuccess);
    EXPECT(kl_context_adopt_stream(ctx, stream) == KL_OK);
    const kl_cg_matrix a = {.rows = ROWS, .nnz = nnz, .offsets = d_off,
                            .columns = d_col, .values = d_val};
    kl_cg_result res = {.size = sizeof res};
    const kl_status st =
        kl_cg(ctx, &a, 0, 27, d_b, d_x, 1e-12, 1000, 1, &res);
    if (st != KL_OK) printf("kl_cg: %s\n", kl_last_error());
    EXPECT(st == KL_OK && res.converged);
    EXPECT(kl_context_adopt_stream(ctx, NULL) == KL_OK);
    EXPECT(cudaMemcpy(x, d_x, sizeof x, cudaMemcpyDeviceToHost) ==
           cudaSuccess);
    double r2 = 0;
    for (int i = 0; i < ROWS; i++) {
      double ax = 0;
      for (int64_t k = offsets[i]; k < offsets[i + 1]; k++)
        ax += values[k] * x[columns[k]];
      r2 += (b[i] - ax) * (b[i] - ax);
    }
    const double rel = sqrt(r2 / ROWS);
    printf("cg on %s: %lld iterations, residual %.3g\n", which,
           (long long)res.iterations, rel);
    EXPECT(rel < 1e-10);
  }
  cudaFree(d_off);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_b);
  cudaFree(d_alloc);
}

int main(void) {
  kl_context *ctx = NULL;
  if (kl_context_open("cuda", &ctx) != KL_OK) {
    printf("SKIP: no cuda device here: %s\n", kl_last_error());
    return 77;
  }
  const int64_t n = (int64_t)1 << 24; /* 128 MB: milliseconds to copy */
  const size_t bytes = (size_t)n * sizeof(double);
  double *host = NULL, *dev = NULL;
  cudaStream_t s = NULL;
  EXPECT(cudaMallocHost((void **)&host, bytes) == cudaSuccess);
  EXPECT(cudaMalloc((void **)&dev, bytes) == cudaSuccess);
  EXPECT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  EXPECT(kl_context_adopt_stream(ctx, s) == KL_OK);
  for (int round = 1; host && dev && s && round <= 3; round++) {
    for (int64_t i = 0; i < n; i++) host[i] = round;
    double sum = -1;
    EXPECT(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s) ==
           cudaSuccess);
    EXPECT(kl_reduce(ctx, "sum", KL_F64, dev, n, 1, &sum) == KL_OK);
    printf("round %d: sum %.17g, want %.17g\n", round, sum,
           (double)round * (double)n);
    EXPECT(sum == (double)round * (double)n);
  }
  EXPECT(kl_context_adopt_stream(ctx, NULL) == KL_OK);
  cg_on(ctx, s, 0, "the caller's stream");
  cg_on(ctx, (void *)cudaStreamLegacy, 1,
        "the legacy default stream, x unaligned");
  kl_context_close(ctx);
  EXPECT(s && cudaStreamQuery(s) == cudaSuccess);
  EXPECT(s && cudaStreamDestroy(s) == cudaSuccess);
  cudaFree(dev);
  cudaFreeHost(host);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
