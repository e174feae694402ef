/* reduce: sum, min or max of an int32, float or double array (seeds 000
 * §3.3 and 004).
 * Sums widen: int32 into int64, exact and never wrapping for n <= 2^32;
 * float and double into double. min and max keep the input type.
 * A NaN never vanishes: floating min and max return NaN when any element
 * is NaN (NumPy, IEEE 754-2019 minimum/maximum); sums follow IEEE
 * arithmetic in double (NaN, or +Inf with -Inf, give NaN).
 * Cost model: the input read once, n elements of its type; the 1-element
 * result is negligible. One combine per element. */
#ifndef KL_REDUCE_H
#define KL_REDUCE_H

#include "../../core/internal.h"

enum { REDUCE_SUM, REDUCE_MIN, REDUCE_MAX }; /* = KL_OP_* on the GPU */
/* The plan's buffers: the input and the result, then the rungs' scratch
 * (partials: one cache line per thread for openmp-partials, per warp or
 * block on the GPU; a retirement counter, a host copy of the partials,
 * CUB's temporary storage). */
enum {
  REDUCE_IN,
  REDUCE_OUT,
  REDUCE_PARTIALS,
  REDUCE_RETIRED,
  REDUCE_HOST_PARTIALS,
  REDUCE_CUB_TEMP,
  /* reduce-dist's GPU rungs: cuda-best's result in pinned memory,
   * cuda-nccl's (value, NaN) pair on the device */
  REDUCE_DIST_STAGE
};
/* The parameters, in the workload's order. */
enum { REDUCE_P_N, REDUCE_P_OP, REDUCE_P_INPUTS, REDUCE_PARAMS };
#define REDUCE_OP(p) ((int)(p)->value[REDUCE_P_OP])
/* The elements of x a rung reduces: n, or a rank's part of reduce-dist's
 * array. */
#define REDUCE_N(p) ((p)->buffers[REDUCE_IN].count)
#define REDUCE_INPUTS(p) ((int)(p)->value[REDUCE_P_INPUTS])
enum {
  INPUTS_RANDOM,
  INPUTS_EQUAL,
  INPUTS_ALTERNATING,
  INPUTS_LARGE,
  INPUTS_EXTREME_FIRST,
  INPUTS_EXTREME_LAST,
  /* Random, with one NaN or infinity at the first, middle or last index;
   * inf-both: +Inf first and -Inf last. Floating types only. */
  INPUTS_NAN_FIRST,
  INPUTS_NAN_MIDDLE,
  INPUTS_NAN_LAST,
  INPUTS_INF_FIRST,
  INPUTS_INF_MIDDLE,
  INPUTS_INF_LAST,
  INPUTS_INF_BOTH
};

/* The result's type: sums widen, min and max do not. */
static inline kl_type kl__reduce_result_type(kl_type in, int op) {
  if (op != REDUCE_SUM) return in;
  return in == KL_I32 ? KL_I64 : KL_F64;
}

#ifdef __cplusplus
extern "C" {
#endif
/* Where a rank's part of the array lies: x[0] is element `first` of
 * `total` (the whole array; one rank: 0, n, n). */
typedef struct kl__reduce_span {
  int64_t first, len, total;
} kl__reduce_span;
/* What reduce-dist shares with reduce: the parameters, the awkward
 * sizes, the plan of len elements of x out of total (named `name` in its
 * messages), the serial loop over x's elements. */
extern const kl_param kl__reduce_params[REDUCE_PARAMS];
extern const kl_test_problem kl__reduce_tests[];
kl_status kl__reduce_plan(kl_plan *p, const char *name, int64_t len,
                          int64_t total);
kl_status kl__reduce_serial(const kl_args *a);
/* reduce-dist: a result in host memory combined over the ranks, in place
 * (a collective); its GPU rungs (reduce-dist-cuda.cu; reduce-dist-nccl.cu,
 * the result combined on the device by NCCL), their scratch and setup. */
void kl__reduce_dist_combine(const kl_plan *p, void *out);
kl_status kl__reduce_dist_gpu_best(const kl_args *a);
kl_status kl__reduce_dist_gpu_scratch(kl_plan *p);
kl_status kl__reduce_dist_gpu_nccl(const kl_args *a);
kl_status kl__reduce_dist_gpu_nccl_scratch(kl_plan *p);
kl_status kl__reduce_dist_gpu_nccl_setup(kl_args *a);
/* The plan's input pattern for that part, a function of the element's
 * index in the whole. */
void kl__reduce_fill(const kl_plan *p, kl__reduce_span s, void *x);
/* The reference of n elements (their int64 sum; their sum in long double
 * rounded to double and the sum of their magnitudes; or the greatest of
 * sign * x, sign -1 for min, and whether any is NaN), and the result
 * judged against it (parts: the ranks it was summed over; reduce.c has
 * the rule). */
typedef struct kl__reduce_ref {
  int64_t sum64;
  double sum, magnitude, best;
  int any_nan;
} kl__reduce_ref;
void kl__reduce_reference(const kl_plan *p, const void *x, int64_t n,
                          kl__reduce_ref *ref);
void kl__reduce_judge(const kl_plan *p, const kl__reduce_ref *ref,
                      int64_t total, int parts, const void *out,
                      kl_verdict *v);
/* The directive rungs (OpenMP, OpenACC): one function per operation and
 * type (a body of the rung's, once per case of reduce-cases.h), from the
 * input, its length and the rung's scratch into the output;
 * kl__reduce_dispatch calls the plan's one of a [op][type] table (types
 * i32, f32, f64). */
typedef void (*kl__reduce_fn)(const void *x, int64_t n, void *out,
                              void *scratch);
kl_status kl__reduce_dispatch(const kl_args *a,
                              const kl__reduce_fn table[3][3]);
kl_status kl__reduce_omp_clause(const kl_args *a);
kl_status kl__reduce_omp_partials(const kl_args *a);
kl_status kl__reduce_omp_scratch(kl_plan *p);
kl_status kl__reduce_acc_clause(const kl_args *a);
kl_status kl__reduce_acc_gangs(const kl_args *a);
kl_status kl__reduce_acc_scratch(kl_plan *p);

/* The OpenCL rungs (reduce-cl.c, reduce.cl): two passes of the
 * work-group tree, or one with a retirement counter. */
kl_status kl__reduce_cl_tree(const kl_args *a);
kl_status kl__reduce_cl_one_pass(const kl_args *a);
kl_status kl__reduce_cl_tree_setup(kl_args *a);
kl_status kl__reduce_cl_one_pass_setup(kl_args *a);
kl_status kl__reduce_cl_scratch(kl_plan *p);

/* The GPU rungs in ladder order (reduce-cuda.cu), and CUB's
 * (reduce-cub.cu). */
kl_status kl__reduce_gpu_racy(const kl_args *a);
kl_status kl__reduce_gpu_atomic(const kl_args *a);
kl_status kl__reduce_gpu_shared_atomic(const kl_args *a);
kl_status kl__reduce_gpu_warp_shuffle(const kl_args *a);
kl_status kl__reduce_gpu_grid_stride(const kl_args *a);
kl_status kl__reduce_gpu_partials_host(const kl_args *a);
kl_status kl__reduce_gpu_partials_device(const kl_args *a);
kl_status kl__reduce_gpu_tree(const kl_args *a);
kl_status kl__reduce_gpu_tree_unrolled(const kl_args *a);
kl_status kl__reduce_gpu_tree_any_block(const kl_args *a);
kl_status kl__reduce_gpu_single_pass_atomic(const kl_args *a);
kl_status kl__reduce_gpu_single_pass_fence(const kl_args *a);
kl_status kl__reduce_gpu_best(const kl_args *a);
kl_status kl__reduce_gpu_cub(const kl_args *a);
/* Every GPU rung's scratch, and the CUB rung's (with its temporary
 * storage); the setup works out the best rung's grid. */
kl_status kl__reduce_gpu_scratch(kl_plan *p);
kl_status kl__reduce_gpu_cub_scratch(kl_plan *p);
kl_status kl__reduce_gpu_setup(kl_args *a);
#ifdef __cplusplus
}
#endif

/* One template instance per type and operation, family<OP, T, A>(...):
 * sums widen int to long long and float to double. */
#ifdef __cplusplus
#define REDUCE_DISPATCH(family, a, ...)                                       \
  do {                                                                        \
    const kl_plan *p_ = (a)->plan;                                            \
    switch (p_->type) {                                                       \
    case KL_I32:                                                              \
      if (REDUCE_OP(p_) == KL_OP_SUM) return family<KL_OP_SUM, int, long long>(__VA_ARGS__); \
      if (REDUCE_OP(p_) == KL_OP_MIN) return family<KL_OP_MIN, int, int>(__VA_ARGS__);       \
      return family<KL_OP_MAX, int, int>(__VA_ARGS__);                        \
    case KL_F32:                                                              \
      if (REDUCE_OP(p_) == KL_OP_SUM) return family<KL_OP_SUM, float, double>(__VA_ARGS__);  \
      if (REDUCE_OP(p_) == KL_OP_MIN) return family<KL_OP_MIN, float, float>(__VA_ARGS__);   \
      return family<KL_OP_MAX, float, float>(__VA_ARGS__);                    \
    default:                                                                  \
      if (REDUCE_OP(p_) == KL_OP_SUM) return family<KL_OP_SUM, double, double>(__VA_ARGS__); \
      if (REDUCE_OP(p_) == KL_OP_MIN) return family<KL_OP_MIN, double, double>(__VA_ARGS__);\
      return family<KL_OP_MAX, double, double>(__VA_ARGS__);                  \
    }                                                                         \
  } while (0)
#endif

#endif
