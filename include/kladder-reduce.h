/* kladder's reduce entry point: one call that reduces an array with a
 * backend's fastest hand-written rung. */
#ifndef KLADDER_REDUCE_H
#define KLADDER_REDUCE_H

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reduce the n elements at data with op "sum", "min" or "max" (NULL:
 * sum), on the context ctx (kl_context_open(): "serial", "openmp", "cuda:1", ...;
 * NULL: the process's default context of the preferred backend that has
 * a library rung, a GPU where there is one). type is KL_I32, KL_F32 or KL_F64.
 * data is host memory, or the context's device memory when data_on_device is nonzero.
 * The result goes to host memory at result: an int64_t for an int32 sum, a
 * double for a float or double sum, else one element of the input type.
 * Sums of int32 are exact (widened to int64) for n <= 2^32.
 * NaN and infinities (f32, f64): min and max return NaN when any element is
 * NaN, as NumPy's np.min/np.max and IEEE 754-2019 minimum/maximum do (which
 * NaN, sign or payload, is unspecified); sums follow IEEE arithmetic in the
 * double accumulator: any NaN, or +Inf and -Inf together, give NaN, else an
 * infinity gives that infinity. */
kl_status kl_reduce(kl_context *ctx, const char *op, kl_type type,
                    const void *data, int64_t n, int data_on_device,
                    void *result);

#ifdef __cplusplus
}
#endif
#endif
