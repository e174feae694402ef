/* gemm's vendor side on the GPU: the cuBLAS reference rung, the reference
 * that checks large problems (cuBLAS DGEMM), and random inputs made on the
 * device with cuRAND (the seed's hipRAND step). Debian ships neither
 * hipBLAS nor hipRAND, so a HIP build has none of them. */
#include "../../backends/gpu.h"
#include "gemm.h"

#if defined(KL_HAVE_HIP)

extern "C" kl_status kl__gemm_gpu_cublas(const kl_args *a) {
  (void)a;
  return kl__usage(KL_UNAVAILABLE, "gemm: no BLAS in this HIP build");
}
extern "C" kl_status kl__gemm_gpu_cublas_setup(kl_args *a) {
  (void)a;
  return KL_OK;
}
extern "C" void kl__gemm_gpu_cublas_teardown(kl_args *a) { (void)a; }
extern "C" kl_status kl__gemm_init_device(const kl_plan *p,
                                          const kl_backend *b,
                                          void *const *device) {
  (void)p, (void)b, (void)device;
  return KL_UNAVAILABLE;
}
extern "C" kl_status kl__gemm_reference_device(const kl_plan *p,
                                               void *const *in, double *ref,
                                               double *mag) {
  (void)p, (void)in, (void)ref, (void)mag;
  return KL_UNAVAILABLE;
}

#else

#include <cublas_v2.h>
#include <curand.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KL_CUBLAS_CHECK(call)                                                 \
  do {                                                                        \
    cublasStatus_t kl_st_ = (call);                                           \
    if (kl_st_ != CUBLAS_STATUS_SUCCESS)                                      \
      return KL_FAIL(KL_DEVICE, "%s failed: %s", #call,                       \
                     cublasGetStatusString(kl_st_));                          \
  } while (0)

#define KL_CURAND_CHECK(call)                                                 \
  do {                                                                        \
    curandStatus_t kl_st_ = (call);                                           \
    if (kl_st_ != CURAND_STATUS_SUCCESS)                                      \
      return KL_FAIL(KL_DEVICE, "%s failed: cuRAND status %d", #call,         \
                     (int)kl_st_);                                            \
  } while (0)

/* ---- the reference rung -------------------------------------------------- */

/* The handle lives in the rung's scratch: made once per problem, outside
 * the timed runs (creating one costs far more than a small GEMM). Default
 * math: cuBLAS then never rounds float inputs to TF32. */
extern "C" kl_status kl__gemm_gpu_cublas_setup(kl_args *a) {
  cublasHandle_t handle = NULL;
  KL_CUBLAS_CHECK(cublasCreate(&handle));
  a->scratch = handle;
  KL_CUBLAS_CHECK(cublasSetStream(handle, (cudaStream_t)a->stream));
  KL_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  return KL_OK;
}

extern "C" void kl__gemm_gpu_cublas_teardown(kl_args *a) {
  if (a->scratch) cublasDestroy((cublasHandle_t)a->scratch);
  a->scratch = NULL;
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
  return blas_gemm((cublasHandle_t)a->scratch, a->plan->type, &s,
                   a->buffers[GEMM_A], a->buffers[GEMM_B], a->buffers[GEMM_C]);
}

/* ---- inputs made on the device -------------------------------------------- */

/* Above this many elements in all, the host's fill (and the upload after
 * it) takes seconds per rung; cuRAND takes milliseconds. */
#define DEVICE_INIT_ELEMENTS (INT64_C(1) << 24)

/* From cuRAND's (0, 1] to the host fill's range, [-1, 1); the rows below
 * the matrix (up to its leading dimension) get `gap`, and with fill_nan
 * the matrix itself is NaN (C when beta = 0: not an input). */
template <typename T>
static __global__ void shape_values(T *x, int64_t count, int64_t rows,
                                    int64_t ld, T gap, int fill_nan) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t row = i % ld;
    if (row >= rows) x[i] = gap;
    else if (fill_nan) x[i] = (T)NAN;
    else x[i] = 1 - 2 * x[i];
  }
}

template <typename T>
static kl_status make_matrix(curandGenerator_t gen, cudaStream_t stream,
                             T *x, int64_t rows, int64_t cols, int64_t ld,
                             T gap, int fill_nan) {
  const int64_t count = ld * (cols - 1) + rows;
  if (sizeof(T) == 4)
    KL_CURAND_CHECK(curandGenerateUniform(gen, (float *)x, (size_t)count));
  else
    KL_CURAND_CHECK(
        curandGenerateUniformDouble(gen, (double *)x, (size_t)count));
  shape_values<T><<<kl__gpu_blocks(count, 256 * 8), 256, 0, stream>>>(
      x, count, rows, ld, gap, fill_nan);
  KL_GPU_CHECK_LAUNCH(shape_values);
  return KL_OK;
}

template <typename T>
static kl_status make_inputs(const kl_plan *p, curandGenerator_t gen,
                             cudaStream_t stream, void *const *device) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  const T nan = (T)NAN;
  kl_status st = make_matrix<T>(gen, stream, (T *)device[GEMM_A], s.m, s.k,
                                s.lda, nan, 0);
  if (st == KL_OK)
    st = make_matrix<T>(gen, stream, (T *)device[GEMM_B], s.k, s.n, s.ldb,
                        nan, 0);
  if (st == KL_OK)
    st = make_matrix<T>(gen, stream, (T *)device[GEMM_C], s.m, s.n, s.ldc,
                        (T)7, s.beta == 0);
  return st;
}

extern "C" kl_status kl__gemm_init_device(const kl_plan *p,
                                          const kl_backend *b,
                                          void *const *device) {
  int64_t total = 0;
  for (int i = 0; i < p->buffer_count; i++) total += p->buffers[i].count;
  if (total < DEVICE_INIT_ELEMENTS || strcmp(b->name, "cuda") != 0)
    return KL_UNAVAILABLE;
  cudaStream_t stream = (cudaStream_t)b->stream();
  curandGenerator_t gen = NULL;
  KL_CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  kl_status st = KL_OK;
  if (curandSetStream(gen, stream) != CURAND_STATUS_SUCCESS ||
      curandSetPseudoRandomGeneratorSeed(gen, p->seed) !=
          CURAND_STATUS_SUCCESS)
    st = KL_FAIL(KL_DEVICE, "cuRAND generator setup failed");
  if (st == KL_OK)
    st = p->type == KL_F32 ? make_inputs<float>(p, gen, stream, device)
                           : make_inputs<double>(p, gen, stream, device);
  if (st == KL_OK && cudaStreamSynchronize(stream) != cudaSuccess)
    st = KL_FAIL(KL_DEVICE, "making gemm inputs with cuRAND failed: %s",
                 cudaGetErrorString(cudaGetLastError()));
  curandDestroyGenerator(gen);
  return st;
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

#endif
