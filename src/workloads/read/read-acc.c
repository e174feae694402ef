#include <openacc.h>

#include "read.h"

/* The array is the harness's acc_malloc'd buffer (deviceptr); the XOR a
 * reduction clause, its one word then copied into x on the device. */
kl_status kl__read_acc(const kl_args *a) {
  const int64_t n = a->plan->n;
  uint64_t x = 0;
  if (kl_type_size(a->plan->type) == 8) {
    const uint64_t *restrict w = a->buffers[READ_A];
    _Pragma("acc parallel loop deviceptr(w) reduction(^ : x)")
    for (int64_t i = 0; i < n; i++) x ^= w[i];
  } else {
    const uint32_t *restrict w = a->buffers[READ_A];
    uint32_t y = 0;
    _Pragma("acc parallel loop deviceptr(w) reduction(^ : y)")
    for (int64_t i = 0; i < n; i++) y ^= w[i];
    x = y;
  }
  acc_memcpy_to_device(a->buffers[READ_X], &x, sizeof x);
  return KL_OK;
}
