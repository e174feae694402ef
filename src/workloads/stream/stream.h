/* stream: the memory-bandwidth ceiling, after BabelStream.
 *   copy:  c[i] = a[i]             counted as 2 arrays moved
 *   triad: c[i] = a[i] + s * b[i]  counted as 3 arrays moved, 2 flops
 * Bytes are counted as BabelStream does: each array read or written once.
 * The ceiling-flagged rung of each backend is the figure every memory-bound
 * rung on that backend is compared with, measured in the same run. */
#ifndef KL_STREAM_H
#define KL_STREAM_H

#include "../../core/internal.h"

enum { STREAM_COPY, STREAM_TRIAD };
enum { STREAM_A, STREAM_B, STREAM_C };

enum { STREAM_SCALAR }; /* constants[0]: s */

#ifdef __cplusplus
extern "C" {
#endif
kl_status kl__stream_omp_copy(const kl_args *a);
kl_status kl__stream_omp_triad(const kl_args *a);
kl_status kl__stream_acc_copy(const kl_args *a);
kl_status kl__stream_acc_triad(const kl_args *a);
kl_status kl__stream_gpu_copy(const kl_args *a);
kl_status kl__stream_gpu_triad(const kl_args *a);
kl_status kl__stream_gpu_memcpy(const kl_args *a);
/* The OpenCL rungs (stream-cl.c, stream.cl). */
kl_status kl__stream_cl_copy(const kl_args *a);
kl_status kl__stream_cl_triad(const kl_args *a);
kl_status kl__stream_cl_copy_setup(kl_args *a);
kl_status kl__stream_cl_triad_setup(kl_args *a);
#ifdef __cplusplus
}
#endif

#endif
