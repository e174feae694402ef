#include "read.h"

/* Each thread XORs a contiguous block, static schedule as stream's copy. */
kl_status kl__read_omp(const kl_args *a) {
  const int64_t n = a->plan->n;
  uint64_t x = 0;
  if (kl_type_size(a->plan->type) == 8) {
    const uint64_t *restrict w = a->buffers[READ_A];
    _Pragma("omp parallel for simd schedule(static) reduction(^ : x)")
    for (int64_t i = 0; i < n; i++) x ^= w[i];
  } else {
    const uint32_t *restrict w = a->buffers[READ_A];
    uint32_t y = 0;
    _Pragma("omp parallel for simd schedule(static) reduction(^ : y)")
    for (int64_t i = 0; i < n; i++) y ^= w[i];
    x = y;
  }
  *(uint64_t *)a->buffers[READ_X] = x;
  return KL_OK;
}
