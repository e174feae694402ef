/* stream's OpenCL rungs: BabelStream's kernels, 16 bytes (one vector) per
 * work-item (stream.cl), in groups of 256 on a GPU and of the runtime's
 * choosing on a CPU (PoCL runs a group's work-items as one vectorized
 * loop). */
#include "../../backends/opencl.h"
#include "cl-sources.h"
#include "stream.h"

kl_status kl__stream_cl_copy_setup(kl_args *a) {
  return kl__cl_rung_kernel(a, kl__cl_source_stream, 1, "", "stream_copy", 0);
}

kl_status kl__stream_cl_triad_setup(kl_args *a) {
  return kl__cl_rung_kernel(a, kl__cl_source_stream, 1, "", "stream_triad",
                            0);
}

/* The items: one per 16-byte vector, one per element past the last. */
static size_t items(const kl_args *a) {
  const size_t n = (size_t)a->plan->n;
  const size_t vec = a->plan->type == KL_F32 ? 4 : 2;
  return n / vec + n % vec;
}

kl_status kl__stream_cl_copy(const kl_args *a) {
  cl_kernel k = a->state.pointer[0];
  cl_mem x = a->buffers[STREAM_A], c = a->buffers[STREAM_C];
  const cl_ulong n = (cl_ulong)a->plan->n;
  KL_CL_ARG(k, 0, x);
  KL_CL_ARG(k, 1, c);
  KL_CL_ARG(k, 2, n);
  return kl__cl_launch(a, k, items(a), kl__cl_group(a));
}

kl_status kl__stream_cl_triad(const kl_args *a) {
  cl_kernel k = a->state.pointer[0];
  cl_mem x = a->buffers[STREAM_A], y = a->buffers[STREAM_B],
         c = a->buffers[STREAM_C];
  const cl_ulong n = (cl_ulong)a->plan->n;
  KL_CL_ARG(k, 0, x);
  KL_CL_ARG(k, 1, y);
  KL_CL_ARG(k, 2, c);
  if (a->plan->type == KL_F32) {
    const cl_float s = (cl_float)a->plan->constants[STREAM_SCALAR];
    KL_CL_ARG(k, 3, s);
  } else {
    const cl_double s = a->plan->constants[STREAM_SCALAR];
    KL_CL_ARG(k, 3, s);
  }
  KL_CL_ARG(k, 4, n);
  return kl__cl_launch(a, k, items(a), kl__cl_group(a));
}
