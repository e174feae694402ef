/* gemm's BLAS on the GPU: the cuBLAS reference rung and the reference that
 * checks large problems (cuBLAS DGEMM); hipBLAS through vendors/hip.h.
 * Built only where the library is found. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/gpu-blas.h"
#include "gemm.h"

/* ---- the reference rung -------------------------------------------------- */

/* The handle lives in the rung's state: made once per problem, outside
 * the timed runs (creating one costs far more than a small GEMM). Default
 * math: cuBLAS then never rounds float inputs to TF32. */
extern "C" kl_status kl__gemm_gpu_cublas_setup(kl_args *a) {
  cublasHandle_t handle = NULL;
  KL_CUBLAS_CHECK(cublasCreate(&handle));
  a->state.pointer[0] = handle;
  KL_CUBLAS_CHECK(cublasSetStream(handle, (cudaStream_t)a->stream));
  KL_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  return KL_OK;
}

extern "C" void kl__gemm_gpu_cublas_teardown(kl_args *a) {
  if (a->state.pointer[0]) cublasDestroy((cublasHandle_t)a->state.pointer[0]);
  a->state.pointer[0] = NULL;
}

/* The 64-bit interface: extents and leading dimensions may pass 2^31. */
static kl_status blas_gemm(cublasHandle_t handle, kl_type type,
                           const kl__gemm_shape *s, const void *a,
                           const void *b, void *c) {
  if (type == KL_F32) {
    const float alpha = (float)s->alpha, beta = (float)s->beta;
    KL_CUBLAS_CHECK(cublasSgemm_64(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, s->m, s->n, s->k, &alpha,
        (const float *)a, s->lda, (const float *)b, s->ldb, &beta,
        (float *)c, s->ldc));
  } else {
    KL_CUBLAS_CHECK(cublasDgemm_64(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, s->m, s->n, s->k, &s->alpha,
        (const double *)a, s->lda, (const double *)b, s->ldb, &s->beta,
        (double *)c, s->ldc));
  }
  return KL_OK;
}

extern "C" kl_status kl__gemm_gpu_cublas(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  return blas_gemm((cublasHandle_t)a->state.pointer[0], a->plan->type, &s,
                   a->buffers[GEMM_A], a->buffers[GEMM_B], a->buffers[GEMM_C]);
}

/* ---- the reference for large problems -------------------------------------- */

static __global__ void absolute(double *x, int64_t count) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x)
    x[i] = fabs(x[i]);
}

typedef struct device_matrices {
  double *a, *b, *c, *host;
  cublasHandle_t handle;
} device_matrices;

static void release(device_matrices *d) {
  cudaFree(d->a);
  cudaFree(d->b);
  cudaFree(d->c);
  free(d->host);
  if (d->handle) cublasDestroy(d->handle);
}

static kl_status reference(const kl_plan *p, void *const *in, double *ref,
                           double *mag, device_matrices *d) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  const size_t na = (size_t)(s.m * s.k), nb = (size_t)(s.k * s.n),
               nc = (size_t)(s.m * s.n);
  size_t largest = na > nb ? na : nb;
  if (nc > largest) largest = nc;
  if (!(d->host = (double *)malloc(largest * sizeof(double))))
    return KL_FAIL(KL_NO_MEMORY, "gemm reference: no host memory");
  KL_GPU_CHECK(cudaMalloc(&d->a, na * sizeof(double)));
  KL_GPU_CHECK(cudaMalloc(&d->b, nb * sizeof(double)));
  KL_GPU_CHECK(cudaMalloc(&d->c, nc * sizeof(double)));
  KL_CUBLAS_CHECK(cublasCreate(&d->handle));
  kl__gemm_widen(p->type, in[GEMM_A], s.lda, s.m, s.k, 0, d->host);
  KL_GPU_CHECK(cudaMemcpy(d->a, d->host, na * sizeof(double),
                          cudaMemcpyHostToDevice));
  kl__gemm_widen(p->type, in[GEMM_B], s.ldb, s.k, s.n, 0, d->host);
  KL_GPU_CHECK(cudaMemcpy(d->b, d->host, nb * sizeof(double),
                          cudaMemcpyHostToDevice));
  if (s.beta != 0) {
    kl__gemm_widen(p->type, in[GEMM_C], s.ldc, s.m, s.n, 0, d->host);
    KL_GPU_CHECK(cudaMemcpy(d->c, d->host, nc * sizeof(double),
                            cudaMemcpyHostToDevice));
  }
  kl__gemm_shape packed = s;
  packed.lda = s.m;
  packed.ldb = s.k;
  packed.ldc = s.m;
  kl_status st = blas_gemm(d->handle, KL_F64, &packed, d->a, d->b, d->c);
  if (st != KL_OK) return st;
  KL_GPU_CHECK(cudaMemcpy(ref, d->c, nc * sizeof(double),
                          cudaMemcpyDeviceToHost));
  /* mag = |alpha| |A| |B| + |beta| |C0|: the same GEMM on magnitudes. */
  if (s.beta != 0)
    KL_GPU_CHECK(cudaMemcpy(d->c, d->host, nc * sizeof(double),
                            cudaMemcpyHostToDevice));
  absolute<<<kl__gpu_blocks((int64_t)na, 2048), 256>>>(d->a, (int64_t)na);
  KL_GPU_CHECK_LAUNCH(absolute);
  absolute<<<kl__gpu_blocks((int64_t)nb, 2048), 256>>>(d->b, (int64_t)nb);
  KL_GPU_CHECK_LAUNCH(absolute);
  absolute<<<kl__gpu_blocks((int64_t)nc, 2048), 256>>>(d->c, (int64_t)nc);
  KL_GPU_CHECK_LAUNCH(absolute);
  packed.alpha = fabs(s.alpha);
  packed.beta = fabs(s.beta);
  st = blas_gemm(d->handle, KL_F64, &packed, d->a, d->b, d->c);
  if (st != KL_OK) return st;
  KL_GPU_CHECK(cudaMemcpy(mag, d->c, nc * sizeof(double),
                          cudaMemcpyDeviceToHost));
  return KL_OK;
}

extern "C" kl_status kl__gemm_reference_device(const kl_plan *p,
                                               void *const *in, double *ref,
                                               double *mag) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    return KL_UNAVAILABLE;
  }
  device_matrices d;
  memset(&d, 0, sizeof d);
  kl_status st = reference(p, in, ref, mag, &d);
  release(&d);
  return st;
}
