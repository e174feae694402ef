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
  char type[48], options[96];
  kl_status st = kl__cl_type_options(a, a->plan->type, type, sizeof type);
  snprintf(options, sizeof options, "%s%s", type, kl__cl_stride_option(a));
  cl_kernel k = NULL;
  if (st == KL_OK)
    st = kl__cl_kernel(a->ctx, kl__cl_source_laplacian, options, name, &k);
  a->state.pointer[0] = k;
  return st;
}

kl_status kl__laplacian_cl_point_setup(kl_args *a) {
  return setup(a, "laplacian_point");
}

kl_status kl__laplacian_cl_zmarch_setup(kl_args *a) {
  return setup(a, "laplacian_zmarch");
}

void kl__laplacian_cl_teardown(kl_args *a) {
  if (a->state.pointer[0]) (void)kl__cl.ReleaseKernel(a->state.pointer[0]);
  a->state.pointer[0] = NULL;
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
