/* gemm's OpenCL rungs (gemm.cl): 16 x 16 tiles of A and B in local
 * memory, cuda-shared-16's work, on a 2D range of 16 x 16 groups over C;
 * register tiles (opencl-regtile), the tile sizes the program's -D
 * options; and the same tiles with cuda-pipelined's steps
 * (opencl-pipelined). */
#include <stdio.h>

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

/* The arguments both kernels take, in their order. */
static kl_status set_args(const kl_args *a, cl_kernel k) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
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
  return KL_OK;
}

kl_status kl__gemm_cl_local(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  cl_kernel k = a->state.pointer[0];
  const kl_status st = set_args(a, k);
  if (st != KL_OK) return st;
  const size_t m = (size_t)s.m, n = (size_t)s.n;
  const size_t local[2] = {16, 16};
  const size_t global[2] = {(size_t)(m + 15) / 16 * 16,
                            (size_t)(n + 15) / 16 * 16};
  KL_CL_CHECK(kl__cl.EnqueueNDRangeKernel(kl__cl_queue(a), k, 2, NULL,
                                          global, local, 0, NULL, NULL));
  return KL_OK;
}

/* ---- opencl-regtile ----------------------------------------------------- */

/* The tiles: C's block per group, A's and B's k-step, an item's outputs,
 * and whether the operands come from global memory (KL_DIRECT). */
typedef struct {
  int bm, bn, bk, tm, tn, direct;
} regtile;

/* On a GPU a 128 x 128 block of C per group of 16 x 16 items, 8 x 8 each
 * (64 accumulators in registers), k 16 at a time for floats (16 KiB of
 * local memory) and 8 for doubles (the same bytes); on a CPU 32 x 32
 * blocks of 4 x 4 read from global memory, no local tiles: PoCL runs a
 * group as a loop over its items, which a barrier splits and keeps from
 * vectorizing (1.2 GFLOP/s with the local tiles, 8-10 without, f32 1024
 * on the 2-core host). */
static regtile regtile_of(const kl_args *a) {
  if (kl__cl_on_cpu(a)) return (regtile){32, 32, 16, 4, 4, 1};
  return (regtile){128, 128, a->plan->type == KL_F32 ? 16 : 8, 8, 8, 0};
}

kl_status kl__gemm_cl_regtile_setup(kl_args *a) {
  const regtile t = regtile_of(a);
  char options[96];
  snprintf(options, sizeof options, "-DBM=%d -DBN=%d -DBK=%d -DTM=%d "
           "-DTN=%d%s", t.bm, t.bn, t.bk, t.tm, t.tn,
           t.direct ? " -DKL_DIRECT" : "");
  return kl__cl_rung_kernel(a, kl__cl_source_gemm, 1, options,
                            "gemm_regtile", 0);
}

kl_status kl__gemm_cl_regtile(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  cl_kernel k = a->state.pointer[0];
  const kl_status st = set_args(a, k);
  if (st != KL_OK) return st;
  const regtile t = regtile_of(a);
  const size_t local[2] = {(size_t)(t.bm / t.tm), (size_t)(t.bn / t.tn)};
  const size_t global[2] = {
      ((size_t)s.m + (size_t)t.bm - 1) / (size_t)t.bm * local[0],
      ((size_t)s.n + (size_t)t.bn - 1) / (size_t)t.bn * local[1]};
  KL_CL_CHECK(kl__cl.EnqueueNDRangeKernel(kl__cl_queue(a), k, 2, NULL,
                                          global, local, 0, NULL, NULL));
  return KL_OK;
}

/* ---- opencl-pipelined --------------------------------------------------- */

/* regtile's blocks (regtile_of: on a GPU 8 x 8 an item, here 2 x 2
 * strips of 4, 128 x 128 a group, k 16 deep in float and 8 in double; on
 * a CPU regtile's own direct kernel). KL_EXACT when the
 * plan's shape needs no bounds checks and each 4-group of A, B and C is
 * 16-byte aligned (lda, ldb, ldc multiples of 4; buffers are aligned). */
static int pipelined_exact(const kl_args *a, regtile t) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  return s.m % t.bm == 0 && s.n % t.bn == 0 && s.k % t.bk == 0 &&
         s.lda % 4 == 0 && s.ldb % 4 == 0 && s.ldc % 4 == 0;
}

/* On a CPU the rung is regtile's direct kernel: the pipelined steps are
 * a GPU's (local tiles, which PoCL's barriers keep from vectorizing). */
kl_status kl__gemm_cl_pipelined_setup(kl_args *a) {
  const regtile t = regtile_of(a);
  if (t.direct) return kl__gemm_cl_regtile_setup(a);
  char options[112];
  snprintf(options, sizeof options, "-DBM=%d -DBN=%d -DBK=%d -DTM=%d "
           "-DTN=%d%s", t.bm, t.bn, t.bk, t.tm, t.tn,
           pipelined_exact(a, t) ? " -DKL_EXACT" : "");
  return kl__cl_rung_kernel(a, kl__cl_source_gemm, 1, options,
                            "gemm_pipelined", 0);
}

kl_status kl__gemm_cl_pipelined(const kl_args *a) {
  /* The same range as regtile's: a group per block of C. */
  return kl__gemm_cl_regtile(a);
}
