/* kladder's histogram entry point: the counts of the 256 byte values of a
 * buffer, with a backend's fastest hand-written rung. */
#ifndef KLADDER_HISTOGRAM_H
#define KLADDER_HISTOGRAM_H

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Count the n bytes at data: counts[b] is the number of bytes equal to b,
 * for b = 0 .. 255, on the context ctx (kl_context_open(): "serial", "openmp", "cuda:1", ...;
 * NULL: the process's default context of the preferred backend that has
 * a library rung, a GPU where there is one). data is host memory,
 * or the context's device memory when data_on_device is nonzero; counts is host
 * memory, 256 64-bit counts whatever n (the rungs count in 32 bits below
 * 2^32 bytes, in 64 from there: no count can wrap). KL_USAGE for n < 1,
 * a NULL data or counts. */
kl_status kl_histogram(kl_context *ctx, const void *data, int64_t n,
                       int data_on_device, uint64_t counts[256]);

#ifdef __cplusplus
}
#endif
#endif
