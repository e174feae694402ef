/* kladder's histogram entry point: the counts of the 256 byte values of a
 * buffer, with a backend's fastest hand-written rung. */
#ifndef KLADDER_HISTOGRAM_H
#define KLADDER_HISTOGRAM_H

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Count the n bytes at data: counts[b] is the number of bytes equal to b,
 * for b = 0 .. 255, on backend "serial", "openmp", "cuda" or "hip" (NULL:
 * the GPU when present, else OpenMP). data is host memory, or that
 * backend's device memory when data_on_device is nonzero; counts is host
 * memory, 256 64-bit counts whatever n (the rungs count in 32 bits below
 * 2^32 bytes, in 64 from there: no count can wrap). KL_USAGE for n < 1,
 * a NULL data or counts, or an unknown backend. */
kl_status kl_histogram(const char *backend, const void *data, int64_t n,
                       int data_on_device, uint64_t counts[256]);

#ifdef __cplusplus
}
#endif
#endif
