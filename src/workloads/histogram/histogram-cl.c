/* histogram's OpenCL rung (histogram.cl): a local-memory histogram per
 * work-group, in the device type's launch shape (kl__cl_stride_shape).
 * The counts are zeroed first (a fill, inside the timed run) unless a
 * later chunk adds to them. 32-bit counts only: from 2^32 bytes on (64-bit
 * counts) the rung stands aside. */
#include <stdio.h>

#include "../../backends/opencl.h"
#include "cl-sources.h"
#include "histogram.h"

#define MOST_GROUPS 4096

kl_status kl__histogram_cl_setup(kl_args *a) {
  if (kl__histogram_count_type(a->plan->n) != KL_U32)
    return kl__usage(KL_UNAVAILABLE, "histogram opencl-local: 64-bit counts "
                     "(2^32 bytes or more) are not written");
  return kl__cl_rung_kernel(a, kl__cl_source_histogram, 0,
                            kl__cl_stride_option(a), "histogram_local", 0);
}

kl_status kl__histogram_cl_local(const kl_args *a) {
  const kl_plan *p = a->plan;
  cl_kernel k = a->state.pointer[0];
  cl_mem counts = a->buffers[HIST_COUNTS];
  if (!HIST_ACCUMULATE(p)) {
    const cl_uint zero = 0;
    KL_CL_CHECK(kl__cl.EnqueueFillBuffer(kl__cl_queue(a), counts, &zero,
                                         sizeof zero, 0,
                                         sizeof(cl_uint) * HIST_BINS, 0,
                                         NULL, NULL));
  }
  const int64_t length = HIST_LENGTH(p);
  if (length < 1) return KL_OK;
  /* The bytes from the offset: the kernel's pointer past it (a sub-buffer
   * would need an aligned origin). */
  size_t local, groups;
  kl__cl_stride_shape(a, length, MOST_GROUPS, &local, &groups);
  cl_mem data = a->buffers[HIST_DATA];
  const cl_ulong offset = (cl_ulong)HIST_OFFSET(p), n = (cl_ulong)length;
  KL_CL_ARG(k, 0, data);
  KL_CL_ARG(k, 1, offset);
  KL_CL_ARG(k, 2, n);
  KL_CL_ARG(k, 3, counts);
  KL_CL_CHECK(kl__cl.SetKernelArg(k, 4, sizeof(cl_uint) * HIST_BINS, NULL));
  return kl__cl_launch(a, k, groups * local, local);
}
