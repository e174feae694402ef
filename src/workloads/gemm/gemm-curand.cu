/* gemm's inputs made on the GPU with cuRAND (the seed's hipRAND step;
 * hipRAND through vendors/hip.h). Built only where the library is found. */
#include <math.h>

#include "../../backends/gpu-rand.h"
#include "gemm.h"

#define KL_CURAND_CHECK(call)                                                 \
  do {                                                                        \
    curandStatus_t kl_st_ = (call);                                           \
    if (kl_st_ != CURAND_STATUS_SUCCESS)                                      \
      return KL_FAIL(KL_DEVICE, "%s failed: cuRAND status %d", #call,         \
                     (int)kl_st_);                                            \
  } while (0)

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

extern "C" kl_status kl__gemm_init_device(const kl_args *a) {
  const kl_plan *p = a->plan;
  void *const *device = a->buffers;
  int64_t total = 0;
  for (int i = 0; i < p->buffer_count; i++) total += p->buffers[i].count;
  if (total < DEVICE_INIT_ELEMENTS) return KL_UNAVAILABLE;
  cudaStream_t stream = (cudaStream_t)a->stream;
  curandGenerator_t gen = NULL;
  KL_CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  kl_status st = KL_OK;
  if (curandSetStream(gen, stream) != CURAND_STATUS_SUCCESS ||
      curandSetPseudoRandomGeneratorSeed(gen, p->seed) !=
          CURAND_STATUS_SUCCESS)
    st = KL_FAIL(KL_DEVICE, "cuRAND generator setup failed");
  if (st == KL_OK)
    KL_FOR_FLOAT_TYPE(p->type, T, st = KL_USAGE,
                      st = make_inputs<T>(p, gen, stream, device));
  if (st == KL_OK && cudaStreamSynchronize(stream) != cudaSuccess)
    st = KL_FAIL(KL_DEVICE, "making gemm inputs with cuRAND failed: %s",
                 cudaGetErrorString(cudaGetLastError()));
  curandDestroyGenerator(gen);
  return st;
}

