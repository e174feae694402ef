/* read's OpenCL rung: the XOR of a's words in two passes of work-group
 * trees (read.cl), in the device type's launch shape
 * (kl__cl_stride_shape), loading as reduce's opencl-tree does on a GPU. */
#include <stdio.h>

#include "../../backends/opencl.h"
#include "cl-sources.h"
#include "read.h"

#define MOST_GROUPS 4096

kl_status kl__read_cl_setup(kl_args *a) {
  char options[96];
  const int f32 = a->plan->type == KL_F32;
  snprintf(options, sizeof options, "-DW=%s -DWV=%s -DVEC=%d%s",
           f32 ? "uint" : "ulong", f32 ? "uint4" : "ulong2", f32 ? 4 : 2,
           kl__cl_stride_option(a));
  kl_status st = kl__cl_rung_kernel(a, kl__cl_source_read, 0, options,
                                    "read_partials", 0);
  if (st == KL_OK)
    st = kl__cl_rung_kernel(a, kl__cl_source_read, 0, options, "read_final",
                            1);
  return st;
}

kl_status kl__read_cl_scratch(kl_plan *p) {
  return kl__plan_scratch(p, READ_PARTIALS, "partials", KL_U64, MOST_GROUPS,
                          KL_MEM_DEVICE, 0);
}

kl_status kl__read_cl(const kl_args *a) {
  size_t local, groups;
  kl__cl_stride_shape(a, a->plan->n, MOST_GROUPS, &local, &groups);
  cl_kernel k = a->state.pointer[0], final = a->state.pointer[1];
  cl_mem x = a->buffers[READ_A], partials = a->buffers[READ_PARTIALS],
         out = a->buffers[READ_X];
  const cl_ulong n = (cl_ulong)a->plan->n;
  const cl_uint count = (cl_uint)groups;
  KL_CL_ARG(k, 0, x);
  KL_CL_ARG(k, 1, n);
  KL_CL_ARG(k, 2, partials);
  KL_CL_CHECK(kl__cl.SetKernelArg(k, 3, sizeof(cl_ulong) * local, NULL));
  kl_status st = kl__cl_launch(a, k, groups * local, local);
  if (st != KL_OK) return st;
  KL_CL_ARG(final, 0, partials);
  KL_CL_ARG(final, 1, count);
  KL_CL_ARG(final, 2, out);
  KL_CL_CHECK(kl__cl.SetKernelArg(final, 3, sizeof(cl_ulong) * local, NULL));
  return kl__cl_launch(a, final, local, local);
}
