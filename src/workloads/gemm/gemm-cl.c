/* gemm's OpenCL rung (gemm.cl): 16 x 16 tiles of A and B in local
 * memory, cuda-shared-16's work, on a 2D range of 16 x 16 groups over C. */
#include "../../backends/opencl.h"
#include "cl-sources.h"
#include "gemm.h"

kl_status kl__gemm_cl_setup(kl_args *a) {
  return kl__cl_rung_kernel(a, kl__cl_source_gemm, 1, "", "gemm_local", 0);
}

/* A scalar argument in the plan's type. */
static kl_status scalar_arg(const kl_args *a, cl_kernel k, cl_uint index,
                            double v) {
  if (a->plan->type == KL_F32) {
    const cl_float f = (cl_float)v;
    KL_CL_ARG(k, index, f);
  } else {
    const cl_double d = v;
    KL_CL_ARG(k, index, d);
  }
  return KL_OK;
}

kl_status kl__gemm_cl_local(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  cl_kernel k = a->state.pointer[0];
  const cl_ulong m = (cl_ulong)s.m, n = (cl_ulong)s.n, kk = (cl_ulong)s.k,
                 lda = (cl_ulong)s.lda, ldb = (cl_ulong)s.ldb,
                 ldc = (cl_ulong)s.ldc;
  cl_mem am = a->buffers[GEMM_A], bm = a->buffers[GEMM_B],
         cm = a->buffers[GEMM_C];
  KL_CL_ARG(k, 0, m);
  KL_CL_ARG(k, 1, n);
  KL_CL_ARG(k, 2, kk);
  kl_status st = scalar_arg(a, k, 3, s.alpha);
  if (st != KL_OK) return st;
  KL_CL_ARG(k, 4, am);
  KL_CL_ARG(k, 5, lda);
  KL_CL_ARG(k, 6, bm);
  KL_CL_ARG(k, 7, ldb);
  st = scalar_arg(a, k, 8, s.beta);
  if (st != KL_OK) return st;
  KL_CL_ARG(k, 9, cm);
  KL_CL_ARG(k, 10, ldc);
  const size_t local[2] = {16, 16};
  const size_t global[2] = {(size_t)(m + 15) / 16 * 16,
                            (size_t)(n + 15) / 16 * 16};
  KL_CL_CHECK(kl__cl.EnqueueNDRangeKernel(kl__cl_queue(a), k, 2, NULL,
                                          global, local, 0, NULL, NULL));
  return KL_OK;
}
