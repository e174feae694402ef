/* histogram's OpenCL rungs (histogram.cl): a local-memory histogram per
 * work-group, in the device type's launch shape (kl__cl_stride_shape),
 * and 16-byte loads into sub-histograms on a persistent grid. The counts
 * are zeroed first (a fill, inside the timed run) unless a later chunk
 * adds to them. 32-bit counts only: from 2^32 bytes on (64-bit counts)
 * the rungs stand aside. */
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

/* The counts zeroed, unless this chunk adds to them. */
static kl_status start_counts(const kl_args *a) {
  cl_mem counts = a->buffers[HIST_COUNTS];
  if (!HIST_ACCUMULATE(a->plan)) {
    const cl_uint zero = 0;
    KL_CL_CHECK(kl__cl.EnqueueFillBuffer(kl__cl_queue(a), counts, &zero,
                                         sizeof zero, 0,
                                         sizeof(cl_uint) * HIST_BINS, 0,
                                         NULL, NULL));
  }
  return KL_OK;
}

kl_status kl__histogram_cl_local(const kl_args *a) {
  const kl_plan *p = a->plan;
  cl_kernel k = a->state.pointer[0];
  cl_mem counts = a->buffers[HIST_COUNTS];
  kl_status st = start_counts(a);
  if (st != KL_OK) return st;
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

/* ---- opencl-vector ------------------------------------------------------ */

/* Sub-histograms a group: a CPU's 4 (one per byte of a word), a GPU's 32
 * (one per local-memory bank) where 32 KiB of local memory fit, else
 * fewer. */
static int vector_columns(const kl_args *a) {
  if (kl__cl_on_cpu(a)) return 4;
  int columns = 32;
  const size_t local = kl__cl_of(a->ctx)->local_bytes;
  while (columns > 1 &&
         sizeof(cl_uint) * HIST_BINS * (size_t)columns > local)
    columns /= 2;
  return columns;
}

kl_status kl__histogram_cl_vector_setup(kl_args *a) {
  if (kl__histogram_count_type(a->plan->n) != KL_U32)
    return kl__usage(KL_UNAVAILABLE, "histogram opencl-vector: 64-bit "
                     "counts (2^32 bytes or more) are not written");
  char options[64];
  snprintf(options, sizeof options, "-DCOLUMNS=%d%s", vector_columns(a),
           kl__cl_stride_option(a));
  return kl__cl_rung_kernel(a, kl__cl_source_histogram, 0, options,
                            "histogram_vector", 0);
}

/* 2048 resident items a compute unit on a GPU (an NVIDIA SM): groups of
 * 1024 (or the kernel's most), as many as are resident at once, each
 * striding over the vectors; a CPU's shape is kl__cl_stride_shape's. */
kl_status kl__histogram_cl_vector(const kl_args *a) {
  const kl_plan *p = a->plan;
  cl_kernel k = a->state.pointer[0];
  kl_status st = start_counts(a);
  if (st != KL_OK) return st;
  const int64_t length = HIST_LENGTH(p);
  if (length < 1) return KL_OK;
  const cl_ulong offset = (cl_ulong)HIST_OFFSET(p), n = (cl_ulong)length;
  const cl_ulong skip = (16 - offset % 16) % 16, head = skip < n ? skip : n;
  size_t local, groups;
  kl__cl_stride_shape(a, (int64_t)((n - head) / 16), MOST_GROUPS, &local,
                      &groups);
  if (!kl__cl_on_cpu(a)) {
    KL_CL_CHECK(kl__cl.GetKernelWorkGroupInfo(
        k, kl__cl_of(a->ctx)->device, CL_KERNEL_WORK_GROUP_SIZE,
        sizeof local, &local, NULL));
    if (local > 1024) local = 1024;
    const size_t units = a->ctx->device.compute_units > 0
                             ? (size_t)a->ctx->device.compute_units
                             : 1;
    const size_t need = ((n - head) / 16 + local - 1) / local;
    groups = units * (2048 / local);
    if (groups > need) groups = need > 0 ? need : 1;
  }
  cl_mem data = a->buffers[HIST_DATA], counts = a->buffers[HIST_COUNTS];
  KL_CL_ARG(k, 0, data);
  KL_CL_ARG(k, 1, offset);
  KL_CL_ARG(k, 2, n);
  KL_CL_ARG(k, 3, head);
  KL_CL_ARG(k, 4, counts);
  KL_CL_CHECK(kl__cl.SetKernelArg(
      k, 5, sizeof(cl_uint) * HIST_BINS * (size_t)vector_columns(a), NULL));
  return kl__cl_launch(a, k, groups * local, local);
}
