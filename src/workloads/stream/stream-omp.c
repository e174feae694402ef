#include "stream.h"

/* Static schedule: each thread streams one contiguous block, the same
 * blocks in every run, so pages stay near the thread that touched them. */
kl_status kl__stream_omp_copy(const kl_args *a) {
  const int64_t n = a->plan->n;
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
    const T *restrict x = a->buffers[STREAM_A];
    T *restrict c = a->buffers[STREAM_C];
    _Pragma("omp parallel for simd schedule(static)")
    for (int64_t i = 0; i < n; i++) c[i] = x[i]);
  return KL_OK;
}

kl_status kl__stream_omp_triad(const kl_args *a) {
  const int64_t n = a->plan->n;
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
    const T *restrict x = a->buffers[STREAM_A];
    const T *restrict y = a->buffers[STREAM_B];
    T *restrict c = a->buffers[STREAM_C];
    const T s = (T)a->plan->constants[STREAM_SCALAR];
    _Pragma("omp parallel for simd schedule(static)")
    for (int64_t i = 0; i < n; i++) c[i] = x[i] + s * y[i]);
  return KL_OK;
}
