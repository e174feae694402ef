/* laplacian's OpenCL rungs (laplacian.cl): the seed's kernel 1 (a point a
 * work-item over a 3D range) and a z-march (a column a work-item, the
 * three planes of its point in registers; on a CPU a row a work-item, its
 * i loop contiguous). Groups of 32 x 4 (x 1) on a GPU, the runtime's
 * choice on a CPU. */
#include <stdio.h>

#include "../../backends/opencl.h"
#include "cl-sources.h"
#include "laplacian.h"

static kl_status setup(kl_args *a, const char *name) {
  return kl__cl_rung_kernel(a, kl__cl_source_laplacian, 1,
                            kl__cl_stride_option(a), name, 0);
}

kl_status kl__laplacian_cl_point_setup(kl_args *a) {
  return setup(a, "laplacian_point");
}

kl_status kl__laplacian_cl_zmarch_setup(kl_args *a) {
  return setup(a, "laplacian_zmarch");
}

static kl_status run(const kl_args *a, cl_uint dims) {
  const kl_plan *p = a->plan;
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  cl_kernel k = a->state.pointer[0];
  cl_mem u = a->buffers[LAP_U], f = a->buffers[LAP_F];
  const cl_ulong n[3] = {(cl_ulong)LAP_NX(p), (cl_ulong)LAP_NY(p),
                         (cl_ulong)LAP_NZ(p)};
  KL_CL_ARG(k, 0, u);
  KL_CL_ARG(k, 1, f);
  for (cl_uint d = 0; d < 3; d++) KL_CL_ARG(k, 2 + d, n[d]);
  for (int c = 0; c < 3; c++) {
    if (p->type == KL_F32) {
      const cl_float v = (cl_float)LAP_C(p, c);
      KL_CL_ARG(k, 5 + (cl_uint)c, v);
    } else {
      const cl_double v = LAP_C(p, c);
      KL_CL_ARG(k, 5 + (cl_uint)c, v);
    }
  }
  const size_t group[3] = {32, 4, 1};
  /* The z-march on a CPU: a row an item, over (j, k). */
  const int rows = dims == 2 && kl__cl_on_cpu(a);
  size_t global[3];
  for (cl_uint d = 0; d < 3; d++) {
    global[d] = (size_t)n[rows ? d + 1 : d] - 2;
    if (!kl__cl_on_cpu(a))
      global[d] = (global[d] + group[d] - 1) / group[d] * group[d];
    if (rows && d == 1) break;
  }
  KL_CL_CHECK(kl__cl.EnqueueNDRangeKernel(
      kl__cl_queue(a), k, dims, NULL, global,
      kl__cl_on_cpu(a) ? NULL : group, 0, NULL, NULL));
  return KL_OK;
}

kl_status kl__laplacian_cl_point(const kl_args *a) { return run(a, 3); }
kl_status kl__laplacian_cl_zmarch(const kl_args *a) { return run(a, 2); }
