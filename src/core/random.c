#include "internal.h"

/* splitmix64's finalizer over a mix of seed, stream and index: a strong
 * enough bijection that neighbouring indices and seeds look independent. */
uint64_t kl__hash(uint64_t seed, uint64_t stream, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull +
               i * 0x8CB92BA72F3D8DD7ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double kl__uniform(uint64_t seed, uint64_t stream, uint64_t i) {
  return (double)(kl__hash(seed, stream, i) >> 11) * 0x1.0p-53;
}

/* Values lo + (hi - lo) * u, converted to the element type (integers
 * truncate toward zero, so the caller keeps lo and hi within the type). */
#define FILL_SPAN(T)                                                          \
  do {                                                                        \
    T *x = dst;                                                               \
    _Pragma("omp parallel for schedule(static)")                              \
    for (int64_t i = 0; i < n; i++)                                           \
      x[i] = (T)(lo + span * kl__uniform(seed, stream, (uint64_t)(first + i))); \
  } while (0)

void kl__fill_uniform(kl_type t, void *dst, int64_t n, uint64_t seed,
                      uint64_t stream, double lo, double hi) {
  kl__fill_uniform_at(t, dst, 0, n, seed, stream, lo, hi);
}

void kl__fill_uniform_at(kl_type t, void *dst, int64_t first, int64_t n,
                         uint64_t seed, uint64_t stream, double lo,
                         double hi) {
  double span = hi - lo;
  switch (t) {
  case KL_F32: FILL_SPAN(float); break;
  case KL_F64: FILL_SPAN(double); break;
  case KL_I32: FILL_SPAN(int32_t); break;
  case KL_I64: FILL_SPAN(int64_t); break;
  case KL_U32: FILL_SPAN(uint32_t); break;
  case KL_U64: FILL_SPAN(uint64_t); break;
  case KL_U8: {
    /* Every byte value, uniform, whatever lo and hi. */
    uint8_t *x = dst;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      x[i] = (uint8_t)(kl__hash(seed, stream, (uint64_t)(first + i)) >> 56);
    break;
  }
  default:
    break;
  }
}
