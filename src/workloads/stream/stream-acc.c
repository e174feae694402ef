#include "stream.h"

/* A pragma of text that may span lines. */
#define PRAGMA(text) _Pragma(#text)

/* The arrays are the harness's acc_malloc'd buffers, named by deviceptr.
 * GCC's default, gangs of one 32-lane vector, allows at most 32 gangs,
 * 1024 threads, on an SM, half of what it holds: its copy reached 2164
 * GB/s on the H100 against CUDA's 2705; gangs of 256 lanes 2312, of 1024
 * lanes 2376-2516 (LESSONS.md). */
kl_status kl__stream_acc_copy(const kl_args *a) {
  const int64_t n = a->plan->n;
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
    const T *restrict x = a->buffers[STREAM_A];
    T *restrict c = a->buffers[STREAM_C];
    _Pragma("acc parallel loop gang vector vector_length(1024) deviceptr(x, c)")
    for (int64_t i = 0; i < n; i++) c[i] = x[i]);
  return KL_OK;
}

kl_status kl__stream_acc_triad(const kl_args *a) {
  const int64_t n = a->plan->n;
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
    const T *restrict x = a->buffers[STREAM_A];
    const T *restrict y = a->buffers[STREAM_B];
    T *restrict c = a->buffers[STREAM_C];
    const T s = (T)a->plan->constants[STREAM_SCALAR];
    PRAGMA(acc parallel loop gang vector vector_length(1024)
           deviceptr(x, y, c))
    for (int64_t i = 0; i < n; i++) c[i] = x[i] + s * y[i]);
  return KL_OK;
}
