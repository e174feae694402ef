#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kladder-reduce.h"
#include "reduce.h"

static const char *const ops[] = {"sum", "min", "max", NULL};
/* In the order of reduce.h's INPUTS_*; from nan-first on, floating types
 * only. */
static const char *const patterns[] = {
    "random",     "equal",      "alternating", "large",    "extreme-first",
    "extreme-last", "nan-first", "nan-middle", "nan-last", "inf-first",
    "inf-middle", "inf-last",   "inf-both",    NULL};

kl_status kl__reduce_plan(kl_plan *p, const char *name, int64_t len,
                          int64_t total) {
  if (REDUCE_OP(p) == REDUCE_SUM && p->type == KL_I32 &&
      total > (INT64_C(1) << 32))
    return kl__usage(KL_USAGE, "%s: an int32 sum is exact in int64 only up "
                     "to 2^32 elements (%lld)", name, (long long)total);
  if (p->type == KL_I32 && REDUCE_INPUTS(p) >= INPUTS_NAN_FIRST)
    return kl__usage(KL_UNAVAILABLE, "%s: input pattern '%s' needs a "
                     "floating-point type (i32 has no NaN or infinity)", name,
                     patterns[REDUCE_INPUTS(p)]);
  p->buffer_count = 2;
  p->buffers[REDUCE_IN] =
      (kl_buffer_spec){"x", p->type, len, KL_IN, KL_MEM_DEVICE, 0};
  p->buffers[REDUCE_OUT] = (kl_buffer_spec){
      "result", kl__reduce_result_type(p->type, REDUCE_OP(p)), 1, KL_OUT,
      KL_MEM_DEVICE, 0};
  return KL_OK;
}

static kl_status plan(kl_plan *p) {
  return kl__reduce_plan(p, "reduce", p->n, p->n);
}

/* Element i of `total` of the chosen input pattern, as a double (exact
 * for int32). */
static double pattern_value(const kl_plan *p, int64_t i, int64_t total) {
  const int ints = p->type == KL_I32;
  const double spread = ints ? 1 << 20 : 1.0; /* random values lie in +-spread */
  const double u = kl__uniform(p->seed, REDUCE_IN, (uint64_t)i);
  const double v = spread * (2 * u - 1);
  switch (REDUCE_INPUTS(p)) {
  case INPUTS_EQUAL:
    return ints ? 7 + (double)(kl__hash(p->seed, 9, 0) % 100)
                : 0.5 + 0.5 * kl__uniform(p->seed, 9, 0);
  case INPUTS_ALTERNATING:
    return (i % 2 ? -1 : 1) * fabs(v);
  case INPUTS_LARGE: {
    if (ints) return floor(-2147483648.0 + 4294967295.0 * u);
    /* Magnitudes near the top of the range, yet such that a sum of as many
     * elements as any memory holds (< 2^40) cannot overflow a double. */
    double e = p->type == KL_F32 ? 100 + 26 * u : 950 + 30 * u;
    return (kl__hash(p->seed, 10, (uint64_t)i) & 1 ? -1 : 1) * ldexp(1.5, (int)e);
  }
  case INPUTS_EXTREME_FIRST:
  case INPUTS_EXTREME_LAST: {
    int64_t at = REDUCE_INPUTS(p) == INPUTS_EXTREME_FIRST ? 0 : total - 1;
    if (i != at) return v;
    /* Beyond every other element in the direction the operation looks. */
    double beyond = 2 * spread + (ints ? 3 : 0.25);
    return REDUCE_OP(p) == REDUCE_MIN ? -beyond : beyond;
  }
  default:
    return v;
  }
}

/* The NaN and infinity patterns: where the special elements go among
 * random ones, and what they are. Infinities point the way the operation
 * looks (-Inf for min, +Inf for max and sum), so they are the result;
 * inf-both puts +Inf first and -Inf last, or only +Inf when n = 1. */
static int specials(const kl_plan *p, int64_t total, int64_t at[2],
                    double value[2]) {
  const double inf = REDUCE_OP(p) == REDUCE_MIN ? -INFINITY : INFINITY;
  const int64_t middle = total / 2, last = total - 1;
  value[0] = inf;
  switch (REDUCE_INPUTS(p)) {
  case INPUTS_NAN_FIRST: at[0] = 0; value[0] = NAN; return 1;
  case INPUTS_NAN_MIDDLE: at[0] = middle; value[0] = NAN; return 1;
  case INPUTS_NAN_LAST: at[0] = last; value[0] = NAN; return 1;
  case INPUTS_INF_FIRST: at[0] = 0; return 1;
  case INPUTS_INF_MIDDLE: at[0] = middle; return 1;
  case INPUTS_INF_LAST: at[0] = last; return 1;
  case INPUTS_INF_BOTH:
    at[0] = 0;
    value[0] = INFINITY;
    at[1] = last;
    value[1] = -INFINITY;
    return total > 1 ? 2 : 1;
  default: return 0;
  }
}

static void store(const kl_plan *p, void *x, int64_t i, double v) {
  switch (p->type) {
  case KL_I32: ((int32_t *)x)[i] = (int32_t)v; break;
  case KL_F32: ((float *)x)[i] = (float)v; break;
  default: ((double *)x)[i] = v; break;
  }
}

void kl__reduce_fill(const kl_plan *p, kl__reduce_span s, void *x) {
  int64_t at[2];
  double value[2];
  const int count = specials(p, s.total, at, value);
  if ((REDUCE_INPUTS(p) == INPUTS_RANDOM || count) && p->type != KL_I32) {
    kl__fill_uniform_at(p->type, x, s.first, s.len, p->seed, REDUCE_IN, -1, 1);
    for (int k = 0; k < count; k++)
      if (at[k] >= s.first && at[k] - s.first < s.len)
        store(p, x, at[k] - s.first, value[k]);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < s.len; i++)
    store(p, x, i, pattern_value(p, s.first + i, s.total));
}

static void init(const kl_plan *p, void *const *host) {
  kl__reduce_fill(p, (kl__reduce_span){0, p->n, p->n}, host[REDUCE_IN]);
}

static double element(const kl_plan *p, const void *x, int64_t i) {
  switch (p->type) {
  case KL_I32: return ((const int32_t *)x)[i];
  case KL_F32: return ((const float *)x)[i];
  default: return ((const double *)x)[i];
  }
}

static double result_value(const kl_plan *p, const void *out) {
  switch (kl__reduce_result_type(p->type, REDUCE_OP(p))) {
  case KL_I64: return (double)*(const int64_t *)out;
  case KL_I32: return *(const int32_t *)out;
  case KL_F32: return *(const float *)out;
  default: return *(const double *)out;
  }
}

/* The result against the reference; int64 sums compared as integers
 * (long double holds them exactly). */
typedef struct reduce_result {
  double got, want, tol;
  int i32_sum;
  int64_t got64, want64;
} reduce_result;

static void result_element(const void *ctx, int64_t i, kl_element *e) {
  const reduce_result *k = ctx;
  (void)i;
  e->got = k->i32_sum ? (long double)k->got64 : k->got;
  e->want = k->i32_sum ? (long double)k->want64 : k->want;
  e->tol = k->tol;
}

/* Integer sums and every min and max must be exact. A floating sum, in
 * double in any order, is within gamma_{n-1} * sum|x_i| of the exact sum,
 * gamma_k = k*u/(1 - k*u), u = 2^-53 (Higham, "Accuracy and Stability of
 * Numerical Algorithms", 2nd ed., eq. 4.4); the long-double reference adds
 * at most n * 2^-64 * sum|x_i| of its own, and where it is summed over
 * `parts` ranks in double, 2 * parts * u * sum|x_i| more (each rank's part
 * rounded to double, then the parts added in any order).
 * NaN and infinities, whatever the operation: where the reference is NaN
 * (a NaN input; for sums also +Inf with -Inf) the result passes if and only
 * if it is a NaN, of any sign or payload, with error 0; where the reference
 * is an infinity the result must be that same infinity; where it is
 * finite, a NaN or infinite result fails. The bound would not say so by
 * itself: it is infinite or NaN once an input is. */
void kl__reduce_reference(const kl_plan *p, const void *x, int64_t n,
                          kl__reduce_ref *ref) {
  memset(ref, 0, sizeof *ref);
  if (REDUCE_OP(p) == REDUCE_SUM && p->type == KL_I32) {
    int64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (int64_t i = 0; i < n; i++) sum += ((const int32_t *)x)[i];
    ref->sum64 = sum;
  } else if (REDUCE_OP(p) == REDUCE_SUM) {
    long double sum = 0, magnitude = 0;
#pragma omp parallel
    {
      long double s = 0, m = 0;
#pragma omp for schedule(static) nowait
      for (int64_t i = 0; i < n; i++) {
        double e = element(p, x, i);
        s += e;
        m += fabs(e);
      }
#pragma omp critical
      {
        sum += s;
        magnitude += m;
      }
    }
    ref->sum = (double)sum;
    ref->magnitude = (double)magnitude;
  } else {
    /* OpenMP's min and max reductions, like a plain compare, drop a NaN:
     * it is noted apart. Every input is exact in double. */
    const double sign = REDUCE_OP(p) == REDUCE_MAX ? 1 : -1;
    double best = -INFINITY; /* of sign * x */
    int any_nan = 0;
#pragma omp parallel for reduction(max : best) reduction(| : any_nan) \
    schedule(static)
    for (int64_t i = 0; i < n; i++) {
      double e = sign * element(p, x, i);
      if (isnan(e)) any_nan = 1;
      else if (e > best) best = e;
    }
    ref->best = best;
    ref->any_nan = any_nan;
  }
}

void kl__reduce_judge(const kl_plan *p, const kl__reduce_ref *ref,
                      int64_t total, int parts, const void *out,
                      kl_verdict *v) {
  double got = result_value(p, out), expected = 0, bound = 0;
  int exact = 0, i32_sum = 0;
  int64_t got64 = 0;
  if (REDUCE_OP(p) == REDUCE_SUM && p->type == KL_I32) {
    got64 = *(const int64_t *)out;
    expected = (double)ref->sum64;
    got = (double)got64;
    exact = i32_sum = 1;
  } else if (REDUCE_OP(p) == REDUCE_SUM) {
    const double u = DBL_EPSILON / 2, k = (double)(total - 1);
    expected = ref->sum;
    bound = ref->magnitude * (k * u / (1 - k * u) + (double)total * 0x1p-64 +
                              (parts > 1 ? 2.0 * parts * u : 0));
  } else {
    const double sign = REDUCE_OP(p) == REDUCE_MAX ? 1 : -1;
    expected = ref->any_nan ? NAN : sign * ref->best;
    exact = 1;
  }
  /* The one element-wise rule: exact where tol is 0, NaN only for NaN,
   * the same infinity for an infinity. */
  const reduce_result k = {got, expected, exact ? 0 : bound, i32_sum, got64,
                           ref->sum64};
  kl__check_elements(1, result_element, &k, v);
  if (v->bad_count)
    snprintf(v->detail, sizeof v->detail,
             "%s: expected %.17g, got %.17g (bound %.3g)", ops[REDUCE_OP(p)],
             expected, got, bound);
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  kl__reduce_ref ref;
  kl__reduce_reference(p, in[REDUCE_IN], p->n, &ref);
  kl__reduce_judge(p, &ref, p->n, 1, out[REDUCE_OUT], v);
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  c->bytes = (double)p->n * (double)kl_type_size(p->type);
  c->flops = (double)p->n;
  c->items = (double)p->n;
}

/* The serial loops, one per type and operation: reduce-serial-body.h once
 * per case of reduce-cases.h. */
#define REDUCE_BODY "reduce-serial-body.h"
#include "reduce-cases.h"
#include "../../registry.h"
#undef REDUCE_BODY

typedef void (*serial_fn)(const void *, int64_t, void *);

/* Over x's elements (n, or a rank's part of a distributed array). */
kl_status kl__reduce_serial(const kl_args *a) {
  static const serial_fn table[3][3] = REDUCE_TABLE(serial);
  const kl_plan *p = a->plan;
  int t = p->type == KL_I32 ? 0 : p->type == KL_F32 ? 1 : 2;
  table[REDUCE_OP(p)][t](a->buffers[REDUCE_IN], p->buffers[REDUCE_IN].count,
                         a->buffers[REDUCE_OUT]);
  return KL_OK;
}

kl_status kl__reduce_dispatch(const kl_args *a,
                              const kl__reduce_fn table[3][3]) {
  const kl_plan *p = a->plan;
  int t = p->type == KL_I32 ? 0 : p->type == KL_F32 ? 1 : 2;
  table[REDUCE_OP(p)][t](a->buffers[REDUCE_IN], p->buffers[REDUCE_IN].count,
                         a->buffers[REDUCE_OUT], a->buffers[REDUCE_PARTIALS]);
  return KL_OK;
}

#define EVERY_TYPE (KL_TYPE_BIT(KL_I32) | KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64))

/* The hooks every reduce GPU rung shares. */
static const kl_rung_family gpu_family = {
    .scratch = KL_GPU_FN(kl__reduce_gpu_scratch),
    .setup = KL_GPU_FN(kl__reduce_gpu_setup)};

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "one loop, widening sums",
            .library = EVERY_TYPE, .run = kl__reduce_serial),
    KL_RUNG("openmp-clause", openmp, "parallel for with a reduction clause",
            .run = kl__reduce_omp_clause),
    KL_RUNG("openmp-partials", openmp,
            "one partial per thread, combined after the loop",
            .library = EVERY_TYPE, .scratch = kl__reduce_omp_scratch,
            .run = kl__reduce_omp_partials),
    KL_RUNG("cuda-racy", gpu, "*out = op(*out, x) without atomics: a data "
            "race, kept to be caught", .flags = KL_RUNG_KNOWN_WRONG,
            .run = KL_GPU_FN(kl__reduce_gpu_racy),
            .family = &gpu_family),
    KL_RUNG("cuda-atomic", gpu, "one global atomic per element",
            .run = KL_GPU_FN(kl__reduce_gpu_atomic),
            .family = &gpu_family),
    KL_RUNG("cuda-shared-atomic", gpu, "a shared atomic per element, a "
            "global one per block",
            .run = KL_GPU_FN(kl__reduce_gpu_shared_atomic),
            .family = &gpu_family),
    KL_RUNG("cuda-warp-shuffle", gpu, "1024-thread blocks, shuffles, a "
            "shared atomic per warp",
            .run = KL_GPU_FN(kl__reduce_gpu_warp_shuffle),
            .family = &gpu_family),
    KL_RUNG("cuda-grid-stride", gpu,
            "grid-stride loop, ~100 elements per thread",
            .run = KL_GPU_FN(kl__reduce_gpu_grid_stride),
            .family = &gpu_family),
    KL_RUNG("cuda-partials-host", gpu,
            "one partial per warp, summed on the host",
            .run = KL_GPU_FN(kl__reduce_gpu_partials_host),
            .family = &gpu_family),
    KL_RUNG("cuda-partials-device", gpu, "one partial per warp, summed by a "
            "second kernel with 16-byte loads",
            .run = KL_GPU_FN(kl__reduce_gpu_partials_device),
            .family = &gpu_family),
    KL_RUNG("cuda-tree", gpu, "two passes, shared-memory tree, 256 threads",
            .run = KL_GPU_FN(kl__reduce_gpu_tree),
            .family = &gpu_family),
    KL_RUNG("cuda-tree-unrolled", gpu, "the tree with the block size a "
            "compile-time constant, fully unrolled",
            .run = KL_GPU_FN(kl__reduce_gpu_tree_unrolled),
            .family = &gpu_family),
    KL_RUNG("cuda-tree-any-block", gpu, "the tree for any block size (1000), "
            "floored to a power of two",
            .run = KL_GPU_FN(kl__reduce_gpu_tree_any_block),
            .family = &gpu_family),
    KL_RUNG("cuda-single-pass-atomic", gpu, "one pass, tree per block, one "
            "atomic per block",
            .run = KL_GPU_FN(kl__reduce_gpu_single_pass_atomic),
            .family = &gpu_family),
    KL_RUNG("cuda-single-pass-fence", gpu, "one pass, no atomics on data: "
            "fence and retirement counter, the last block finishes",
            .run = KL_GPU_FN(kl__reduce_gpu_single_pass_fence),
            .family = &gpu_family),
    KL_RUNG("cuda-best", gpu, "16-byte loads, 4 in flight, persistent grid, "
            "one pass", .library = EVERY_TYPE,
            .run = KL_GPU_FN(kl__reduce_gpu_best),
            .family = &gpu_family),
    KL_RUNG("cuda-cub", gpu, "CUB DeviceReduce::Reduce",
            .flags = KL_RUNG_VENDOR,
            .scratch = KL_GPU_CUB_FN(kl__reduce_gpu_cub_scratch),
            .run = KL_GPU_CUB_FN(kl__reduce_gpu_cub)),
    KL_RUNG("openacc-clause", openacc, "parallel loop with a reduction "
            "clause (GCC: a warp's shuffles, then a compare-and-swap per "
            "gang)", .peer = "cuda-single-pass-atomic",
            .run = KL_ACC_FN(kl__reduce_acc_clause)),
    KL_RUNG("openacc-gangs", openacc, "4224 gangs of 32 lanes, a partial "
            "per gang, combined by one gang", .peer = "cuda-partials-device",
            .library = EVERY_TYPE,
            .scratch = KL_ACC_FN(kl__reduce_acc_scratch),
            .run = KL_ACC_FN(kl__reduce_acc_gangs)),
    KL_RUNG("opencl-tree", opencl, "work-group trees in local memory, two "
            "passes; the group's shape the device type's",
            .peer = "cuda-tree", .scratch = KL_CL_FN(kl__reduce_cl_scratch),
            .setup = KL_CL_FN(kl__reduce_cl_tree_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__reduce_cl_tree)),
    KL_RUNG("opencl-one-pass", opencl, "the trees in one pass: the last "
            "group to finish (a counter's atomic) combines the partials",
            .peer = "cuda-single-pass-fence", .library = EVERY_TYPE,
            .scratch = KL_CL_FN(kl__reduce_cl_scratch),
            .setup = KL_CL_FN(kl__reduce_cl_one_pass_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__reduce_cl_one_pass)),
};

const kl_param kl__reduce_params[REDUCE_PARAMS] = {
    [REDUCE_P_N] = {.name = "n", .kind = KL_PARAM_SIZE,
                    .flags = KL_PARAM_MAIN_SIZE, .help = "elements of x",
                    .default_value = 1 << 28, /* 2 GiB of doubles */
                    .quick_default = 1 << 26, .quick_host_default = 1 << 24,
                    .cache_multiple = 4,
                    .min = 1, .max = 0x1p62, .step = 1 << 20},
    [REDUCE_P_OP] = {.name = "op", .kind = KL_PARAM_CHOICE,
                     .flags = KL_PARAM_OP, .help = "the operation",
                     .choices = ops},
    [REDUCE_P_INPUTS] = {.name = "inputs", .kind = KL_PARAM_CHOICE,
                         .flags = KL_PARAM_INPUTS, .label = "input pattern",
                         .help = "random, or a pattern that breaks careless "
                                 "reductions (NaN and infinity: floats only)",
                         .choices = patterns},
};

const kl_test_problem kl__reduce_tests[] = {
    {NULL, 1}, {NULL, 2}, {NULL, 31}, {NULL, 32}, {NULL, 33}, {NULL, 63},
    {NULL, 64}, {NULL, 65}, {NULL, 1000003}, {NULL, 0}};
static const kl_test_problem big_tests[] = {{NULL, 2147483651}, {NULL, 0}};

const kl_workload kl__workload_reduce = {
    .name = "reduce",
    .summary = "sum, min or max of an array",
    .tolerance = "int sums, min, max exact; float sums |s - ref| <= "
                 "gamma_(n-1) sum|x|, u = 2^-53 (accumulated in double); "
                 "NaN iff the reference is NaN, infinities exact",
    .source = "seed 000 section 3.3, seed 004",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = EVERY_TYPE,
    .default_type = KL_F64,
    .params = kl__reduce_params,
    .param_count = REDUCE_PARAMS,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_read, NULL},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = kl__reduce_tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};

kl_status kl_reduce(kl_context *ctx, const char *op, kl_type type,
                    const void *data, int64_t n, int data_on_device,
                    void *result) {
  char params[64];
  if (op && strlen(op) > 32)
    return kl__usage(KL_USAGE, "kl_reduce: unknown op '%.32s...'", op);
  snprintf(params, sizeof params, "op=%s", op ? op : ops[0]);
  kl_problem pb = {.size = sizeof pb,
                   .n = n, .type = type, .params = params};
  if (n < 1)
    return kl__usage(KL_USAGE, "kl_reduce: n = %lld must be at least 1",
                     (long long)n);
  void *buffers[2] = {(void *)data, result};
  return kl__done(kl__run_library(ctx, &kl__workload_reduce, &pb, buffers,
                         data_on_device));
}
