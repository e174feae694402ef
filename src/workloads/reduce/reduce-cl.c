/* reduce's OpenCL rungs (reduce.cl): the work-group tree in local memory,
 * in two passes (a kernel for the partials, one group for the result) or
 * in one (the last group to finish combines the partials), in the launch
 * shape of the device's type (kl__cl_stride_shape). */
#include <stdio.h>

#include "../../backends/opencl.h"
#include "cl-sources.h"
#include "reduce.h"

#define MOST_GROUPS 4096

typedef struct shape {
  size_t local, groups;
} shape;

static shape shape_of(const kl_args *a) {
  shape s;
  kl__cl_stride_shape(a, REDUCE_N(a->plan), MOST_GROUPS, &s.local,
                      &s.groups);
  return s;
}

/* The options of the plan's types and operation. */
static kl_status options_of(const kl_args *a, char *dst, size_t size) {
  const kl_plan *p = a->plan;
  const kl_type result = kl__reduce_result_type(p->type, REDUCE_OP(p));
  char in[64], out[64];
  kl_status st = kl__cl_type_options(a, p->type, in, sizeof in);
  /* The result's type checked too (a float sum's double needs fp64). */
  if (st == KL_OK) st = kl__cl_type_options(a, result, out, sizeof out);
  if (st != KL_OK) return st;
  /* KL_VEC: the elements of T in 16 bytes, the GPU shape's loads. */
  snprintf(dst, size, "%s -DA=%s -DOP=%d -DKL_VEC=%d%s%s%s", in,
           kl__cl_type_name(result), REDUCE_OP(p),
           (int)(16 / kl_type_size(p->type)),
           p->type == KL_I32 ? " -DKL_INT" : "",
           result == KL_F64 && p->type != KL_F64 ? " -DKL_FP64" : "",
           kl__cl_stride_option(a));
  return KL_OK;
}

static kl_status setup(kl_args *a, const char *first, const char *second) {
  char options[160];
  kl_status st = options_of(a, options, sizeof options);
  if (st == KL_OK)
    st = kl__cl_rung_kernel(a, kl__cl_source_reduce, 0, options, first, 0);
  if (st == KL_OK && second)
    st = kl__cl_rung_kernel(a, kl__cl_source_reduce, 0, options, second, 1);
  return st;
}

kl_status kl__reduce_cl_tree_setup(kl_args *a) {
  return setup(a, "reduce_partials", "reduce_final");
}

kl_status kl__reduce_cl_one_pass_setup(kl_args *a) {
  return setup(a, "reduce_one_pass", NULL);
}

/* The partials (one per group, 8 bytes hold any result) and the
 * one-pass rung's counter, which starts at zero. */
kl_status kl__reduce_cl_scratch(kl_plan *p) {
  kl_status st = kl__plan_scratch(p, REDUCE_PARTIALS, "partials", KL_U8,
                                  8 * MOST_GROUPS, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, REDUCE_RETIRED, "retired", KL_I32, 1,
                          KL_MEM_DEVICE, KL_BUFFER_ZEROED);
  return st;
}

static size_t result_size(const kl_plan *p) {
  return kl_type_size(kl__reduce_result_type(p->type, REDUCE_OP(p)));
}

kl_status kl__reduce_cl_tree(const kl_args *a) {
  const shape s = shape_of(a);
  cl_kernel k = a->state.pointer[0], final = a->state.pointer[1];
  cl_mem x = a->buffers[REDUCE_IN], partials = a->buffers[REDUCE_PARTIALS],
         out = a->buffers[REDUCE_OUT];
  const cl_ulong n = (cl_ulong)REDUCE_N(a->plan);
  const cl_uint count = (cl_uint)s.groups;
  const size_t bytes = result_size(a->plan);
  KL_CL_ARG(k, 0, x);
  KL_CL_ARG(k, 1, n);
  KL_CL_ARG(k, 2, partials);
  KL_CL_CHECK(kl__cl.SetKernelArg(k, 3, bytes * s.local, NULL));
  kl_status st = kl__cl_launch(a, k, s.groups * s.local, s.local);
  if (st != KL_OK) return st;
  KL_CL_ARG(final, 0, partials);
  KL_CL_ARG(final, 1, count);
  KL_CL_ARG(final, 2, out);
  KL_CL_CHECK(kl__cl.SetKernelArg(final, 3, bytes * s.local, NULL));
  return kl__cl_launch(a, final, s.local, s.local);
}

kl_status kl__reduce_cl_one_pass(const kl_args *a) {
  const shape s = shape_of(a);
  cl_kernel k = a->state.pointer[0];
  cl_mem x = a->buffers[REDUCE_IN], partials = a->buffers[REDUCE_PARTIALS],
         retired = a->buffers[REDUCE_RETIRED], out = a->buffers[REDUCE_OUT];
  const cl_ulong n = (cl_ulong)REDUCE_N(a->plan);
  KL_CL_ARG(k, 0, x);
  KL_CL_ARG(k, 1, n);
  KL_CL_ARG(k, 2, partials);
  KL_CL_ARG(k, 3, retired);
  KL_CL_ARG(k, 4, out);
  KL_CL_CHECK(kl__cl.SetKernelArg(k, 5, result_size(a->plan) * s.local,
                                  NULL));
  KL_CL_CHECK(kl__cl.SetKernelArg(k, 6, sizeof(cl_uint), NULL));
  return kl__cl_launch(a, k, s.groups * s.local, s.local);
}
