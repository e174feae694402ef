/* reduce-dist: reduce's problem split over the ranks of a run (kl_ranks):
 * each rank reduces its part of one array, then an allreduce combines the
 * ranks' results, so that every rank holds the whole array's. One rank
 * (a run without mpirun) is reduce with that last step a no-op.
 *
 * The parts: weak scaling (the default), n elements per rank, rank r's
 * the elements r*n .. r*n + n - 1 of an array of P*n; strong, the n
 * elements shared in order, the first n % P ranks one more. The inputs
 * are reduce's patterns over the whole array, each element a function of
 * its global index (extreme-last, nan-middle: the whole array's last and
 * middle), so every rank makes its own part.
 * The combine: a sum is an allreduce sum in the result's type (int64 for
 * int32, exact; double for floats, in any order); min and max an
 * allreduce maximum of (sign * result, is-NaN) in double (exact for every
 * input type), so that a NaN on one rank is every rank's result, as
 * reduce's rule wants, whatever MPI does with NaN. The GPU rungs: the
 * result through pinned host memory to that combine (cuda-best), or the
 * same combine on the device by ncclAllReduce (cuda-nccl).
 * The check: each rank's reference of its part, summed (or maximized)
 * over the ranks, and reduce's rule with the whole array's count; a
 * floating sum's bound adds the reference's own roundings over the ranks
 * (reduce.c). */
#include <math.h>

#include "reduce.h"
#include "../../registry.h"

/* The plan's constants: where this rank's part lies. */
enum { DIST_FIRST, DIST_LEN, DIST_TOTAL };

static kl__reduce_span span_of(const kl_plan *p) {
  return (kl__reduce_span){(int64_t)p->constants[DIST_FIRST],
                           (int64_t)p->constants[DIST_LEN],
                           (int64_t)p->constants[DIST_TOTAL]};
}

static kl_status plan(kl_plan *p) {
  const int ranks = kl__rank_count(p), rank = kl__rank(p);
  int64_t first, len, total;
  if (p->strong) {
    total = p->n;
    kl__share(p->n, rank, ranks, &first, &len);
    if (p->n < ranks)
      return kl__usage(KL_USAGE, "reduce-dist: n = %lld elements for %d "
                       "ranks (strong scaling): at least one each",
                       (long long)p->n, ranks);
  } else {
    if (p->n > INT64_MAX / ranks)
      return kl__usage(KL_TOO_LARGE, "reduce-dist: %d ranks of n = %lld "
                       "elements overflow", ranks, (long long)p->n);
    total = p->n * ranks;
    first = p->n * rank;
    len = p->n;
  }
  /* Exact in a double: sizes below 2^53. */
  p->constant_count = 3;
  p->constants[DIST_FIRST] = (double)first;
  p->constants[DIST_LEN] = (double)len;
  p->constants[DIST_TOTAL] = (double)total;
  return kl__reduce_plan(p, "reduce-dist", len, total);
}

static void init(const kl_plan *p, void *const *host) {
  kl__reduce_fill(p, span_of(p), host[REDUCE_IN]);
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  const kl__reduce_span s = span_of(p);
  kl__reduce_ref ref;
  kl__reduce_reference(p, in[REDUCE_IN], s.len, &ref);
  /* The whole array's reference: collectives every rank makes. */
  if (REDUCE_OP(p) == REDUCE_SUM && p->type == KL_I32) {
    kl__allreduce(p, &ref.sum64, 1, KL_I64, KL_RANKS_SUM);
  } else if (REDUCE_OP(p) == REDUCE_SUM) {
    double both[2] = {ref.sum, ref.magnitude};
    kl__allreduce(p, both, 2, KL_F64, KL_RANKS_SUM);
    ref.sum = both[0];
    ref.magnitude = both[1];
  } else {
    double both[2] = {ref.best, ref.any_nan};
    kl__allreduce(p, both, 2, KL_F64, KL_RANKS_MAX);
    ref.best = both[0];
    ref.any_nan = both[1] > 0;
  }
  kl__reduce_judge(p, &ref, s.total, kl__rank_count(p), out[REDUCE_OUT], v);
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  const double len = (double)span_of(p).len;
  c->bytes = len * (double)kl_type_size(p->type);
  c->flops = len;
  c->items = len;
}

/* ---- the rungs: the local reduction, then the combine ------------------- */

/* The result in host memory, combined over the ranks in place. */
void kl__reduce_dist_combine(const kl_plan *p, void *out) {
  const kl_type t = kl__reduce_result_type(p->type, REDUCE_OP(p));
  if (REDUCE_OP(p) == REDUCE_SUM) {
    kl__allreduce(p, out, 1, t, KL_RANKS_SUM);
    return;
  }
  const double sign = REDUCE_OP(p) == REDUCE_MAX ? 1 : -1;
  const double x = t == KL_I32   ? *(const int32_t *)out
                   : t == KL_F32 ? *(const float *)out
                                 : *(const double *)out;
  double both[2] = {isnan(x) ? -INFINITY : sign * x, isnan(x)};
  kl__allreduce(p, both, 2, KL_F64, KL_RANKS_MAX);
  const double y = both[1] > 0 ? NAN : sign * both[0];
  if (t == KL_I32) *(int32_t *)out = (int32_t)y;
  else if (t == KL_F32) *(float *)out = (float)y;
  else *(double *)out = y;
}

static const char *const phases[] = {"local", "allreduce", NULL};

/* A host rung: `local` over this rank's part, then the combine, each
 * timed as a phase. */
static kl_status host_rung(const kl_args *a,
                           kl_status (*local)(const kl_args *)) {
  double t0 = kl__now();
  kl_status st = local(a);
  double t1 = kl__now();
  kl__phase(a, 0, t1 - t0);
  /* Made even after a failure: the other ranks wait for it. */
  kl__reduce_dist_combine(a->plan, a->buffers[REDUCE_OUT]);
  kl__phase(a, 1, kl__now() - t1);
  return st;
}

static kl_status serial(const kl_args *a) {
  return host_rung(a, kl__reduce_serial);
}

static kl_status openmp(const kl_args *a) {
  return host_rung(a, kl__reduce_omp_partials);
}

#define EVERY_TYPE \
  (KL_TYPE_BIT(KL_I32) | KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64))

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "reduce's serial loop over the rank's part, "
            "then an allreduce of the ranks' results", .phases = phases,
            .run = serial),
    KL_RUNG("openmp", openmp, "reduce's openmp-partials over the rank's "
            "part, then an allreduce", .phases = phases,
            .scratch = kl__reduce_omp_scratch, .run = openmp),
    KL_RUNG("cuda-best", gpu, "reduce's cuda-best over the rank's part, its "
            "result through pinned host memory to the allreduce and back",
            .phases = phases,
            .scratch = KL_GPU_FN(kl__reduce_dist_gpu_scratch),
            .setup = KL_GPU_FN(kl__reduce_gpu_setup),
            .run = KL_GPU_FN(kl__reduce_dist_gpu_best)),
    KL_RUNG("cuda-nccl", gpu, "reduce's cuda-best over the rank's part, "
            "then ncclAllReduce of the ranks' results on the device; stands "
            "aside where two ranks share a GPU", .phases = phases,
            .scratch = KL_GPU_NCCL_FN(kl__reduce_dist_gpu_nccl_scratch),
            .setup = KL_GPU_NCCL_FN(kl__reduce_dist_gpu_nccl_setup),
            .run = KL_GPU_NCCL_FN(kl__reduce_dist_gpu_nccl)),
};

const kl_workload kl__workload_reduce_dist = {
    .name = "reduce-dist",
    .summary = "reduce's sum, min or max of one array split over the ranks",
    .tolerance = "reduce's rule over the whole array; a float sum's bound "
                 "adds 2 P u sum|x| for the reference summed over P ranks",
    .source = "seed 000 section 3.3, seed 004; MPI_Allreduce, "
              "ncclAllReduce",
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
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
    .distributed = 1,
};
