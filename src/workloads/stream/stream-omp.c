#include "stream.h"

/* Static schedule: each thread streams one contiguous block, the same
 * blocks in every run, so pages stay near the thread that touched them. */
#define STREAM_OMP(name, T, expr)                                             \
  static void name(const kl_args *args) {                                     \
    const T *restrict a = args->buffers[STREAM_A];                            \
    const T *restrict b = args->buffers[STREAM_B];                            \
    T *restrict c = args->buffers[STREAM_C];                                  \
    const T s = (T)args->plan->constants[STREAM_SCALAR];                   \
    const int64_t n = args->plan->n;                                          \
    (void)b;                                                                  \
    (void)s;                                                                  \
    _Pragma("omp parallel for simd schedule(static)")                         \
    for (int64_t i = 0; i < n; i++) c[i] = expr;                              \
  }
STREAM_OMP(copy_f32, float, a[i])
STREAM_OMP(copy_f64, double, a[i])
STREAM_OMP(triad_f32, float, a[i] + s * b[i])
STREAM_OMP(triad_f64, double, a[i] + s * b[i])

kl_status kl__stream_omp_copy(const kl_args *a) {
  (a->plan->type == KL_F32 ? copy_f32 : copy_f64)(a);
  return KL_OK;
}

kl_status kl__stream_omp_triad(const kl_args *a) {
  (a->plan->type == KL_F32 ? triad_f32 : triad_f64)(a);
  return KL_OK;
}
