#include "pipeline.h"
#include "../../registry.h"

const char *const kl__pipe_phases[] = {"kernel", "d2h", "host", NULL};

static kl_status plan(kl_plan *p) {
  if (p->n > PIPE_MAX_N)
    return kl__usage(KL_USAGE, "pipeline: n = %lld points per interval is "
                     "more than 2^34", (long long)p->n);
  p->buffer_count = 1;
  p->buffers[PIPE_OUT] =
      (kl_buffer_spec){"integral", KL_F64, 1, KL_OUT, KL_MEM_PINNED, 0};
  p->constant_count = 2;
  p->constants[PIPE_H] = kl__integrate_length() / (double)p->n;
  p->constants[PIPE_PER_INTERVAL] = 0;
  return KL_OK;
}

static void init(const kl_plan *p, void *const *host) {
  (void)p;
  (void)host;
}

/* The check: integrate's (integrate.c derives each term), over N = I n
 * points on a range I times as long, L_I = I 40000 pi, in double:
 *   G = 2 gamma_4 L_I^2   the points, |f'| <= 2 (f64 only)
 *   E = e u L_I            evaluation, e = 20 plain, 29 sincos
 *   S = gamma_(N+I) L_I    the sums of the N values and of the I results,
 *                          in any order or tree
 *   H = 5 u L_I            h (three roundings) and each interval's product
 * The exact midpoint sum is I M_n: every interval spans 40000 periods of
 * f, so its n midpoints give integrate's sum. */
static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)in;
  const double I = (double)kl__pipe_intervals(p);
  const double L = I * kl__integrate_length(), N = I * (double)p->n;
  const double bound =
      kl__integrate_bound_f64(r->variant & ~PIPE_COPIES_PARTIALS, L, N + I);
  kl__integrate_verdict(((const double *)out[PIPE_OUT])[0],
                        I * kl__integrate_midpoint_exact(p->n), bound, v);
}

/* bytes: what crosses to the host, every interval's partial sums or its
 * result; the rate counts points. */
static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)counts;
  const double I = (double)kl__pipe_intervals(p);
  c->items = I * (double)p->n;
  c->flops = INTEGRATE_FLOPS_PER_POINT * c->items;
  c->bytes = kl_backend_host_memory(r->backend) ? 0
             : (r->variant & PIPE_COPIES_PARTIALS)
                 ? I * p->constants[PIPE_PER_INTERVAL] * sizeof(double)
                 : I * sizeof(double);
}

/* The fastest the rung's own work allows: its kernels' busy time, its host
 * work's, or its copies at the pinned bandwidth measured beside it (the
 * duplex copy's rate counts both directions: one carries half), whichever
 * is longest; the figure is the points over that time. */
static double bound(const kl_result *r, double measured) {
  double slowest = r->cost.bytes / (0.5 * measured * 1e9);
  if (r->phase_median[PIPE_KERNEL] > slowest)
    slowest = r->phase_median[PIPE_KERNEL];
  if (r->phase_median[PIPE_HOST] > slowest)
    slowest = r->phase_median[PIPE_HOST];
  return slowest > 0 ? r->cost.items / slowest * 1e-9 : 0;
}

/* The hooks every pipeline GPU rung shares. */
static const kl_rung_family gpu_family = {
    .scratch = KL_GPU_FN(kl__pipe_gpu_pageable_scratch),
    .setup = KL_GPU_FN(kl__pipe_gpu_setup),
    .teardown = KL_GPU_FN(kl__pipe_gpu_teardown)};

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "each interval one loop",
            .variant = INTEGRATE_PLAIN, .phases = kl__pipe_phases,
            .run_reps = kl__pipe_serial),
    KL_RUNG("openmp", openmp,
            "each interval a parallel for with a sum reduction",
            .variant = INTEGRATE_PLAIN, .phases = kl__pipe_phases,
            .run_reps = kl__pipe_omp),
    KL_RUNG("cuda-sum-on-cpu", gpu, "a partial sum per warp, copied back "
            "(pageable) and summed on the host, interval after interval",
            .variant = INTEGRATE_PLAIN | PIPE_COPIES_PARTIALS,
            .phases = kl__pipe_phases,
            .run_reps = KL_GPU_FN(kl__pipe_gpu_sum_on_cpu),
            .family = &gpu_family),
    KL_RUNG("cuda-hide-cpu", gpu, "the host sums interval j-1 while the "
            "kernel of interval j runs",
            .variant = INTEGRATE_PLAIN | PIPE_COPIES_PARTIALS,
            .phases = kl__pipe_phases,
            .run_reps = KL_GPU_FN(kl__pipe_gpu_hide_cpu),
            .family = &gpu_family),
    KL_RUNG("cuda-double-pageable", gpu, "two streams and buffers, "
            "asynchronous copies to pageable memory (they stay synchronous)",
            .variant = INTEGRATE_PLAIN | PIPE_COPIES_PARTIALS,
            .phases = kl__pipe_phases,
            .run_reps = KL_GPU_FN(kl__pipe_gpu_double_buffer),
            .family = &gpu_family),
    KL_RUNG("cuda-double-buffer", gpu, "two streams and buffers, "
            "asynchronous copies to pinned memory",
            .variant = INTEGRATE_PLAIN | PIPE_COPIES_PARTIALS,
            .phases = kl__pipe_phases,
            .scratch = KL_GPU_FN(kl__pipe_gpu_pinned_scratch),
            .run_reps = KL_GPU_FN(kl__pipe_gpu_double_buffer),
            .family = &gpu_family),
    KL_RUNG("cuda-hide-copy", gpu, "as double-buffer, and kernel j waits "
            "for kernel j-1 only (an event): copies hide behind kernels",
            .variant = INTEGRATE_PLAIN | PIPE_COPIES_PARTIALS,
            .phases = kl__pipe_phases,
            .scratch = KL_GPU_FN(kl__pipe_gpu_pinned_scratch),
            .run_reps = KL_GPU_FN(kl__pipe_gpu_hide_copy),
            .family = &gpu_family),
    KL_RUNG("cuda-kernel-overlap", gpu, "partials summed by a one-block "
            "kernel, two streams: it runs beside the next interval's kernel",
            .variant = INTEGRATE_PLAIN, .phases = kl__pipe_phases,
            .run_reps = KL_GPU_FN(kl__pipe_gpu_kernel_overlap),
            .family = &gpu_family),
    KL_RUNG("cuda-default-stream", gpu, "as kernel-overlap on blocking "
            "streams, the summing kernel on the legacy default stream, which "
            "serializes them",
            .variant = INTEGRATE_PLAIN, .phases = kl__pipe_phases,
            .run_reps = KL_GPU_FN(kl__pipe_gpu_default_stream),
            .family = &gpu_family),
    KL_RUNG("cuda-graph", gpu, "one graph of every interval over `streams` "
            "streams, each a resident-grid sincos kernel with a last-block "
            "sum", .variant = INTEGRATE_SINCOS, .phases = kl__pipe_phases,
            .scratch = KL_GPU_FN(kl__pipe_gpu_best_scratch),
            .setup = KL_GPU_FN(kl__pipe_gpu_graph_setup),
            .run_reps = KL_GPU_FN(kl__pipe_gpu_graph),
            .family = &gpu_family),
};

static const kl_param params[] = {
    {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
     .help = "midpoints per interval", .default_value = 100000000,
     .host_default = 1 << 22, .min = 1, .max = (double)PIPE_MAX_N,
     .quick_default = 10000000, .quick_host_default = 1 << 20,
     .step = 1 << 20},
    {.name = "intervals", .kind = KL_PARAM_INT,
     .help = "intervals of 40000 pi, one after the other",
     .default_value = 8, .min = 1, .max = PIPE_MAX_INTERVALS},
    {.name = "streams", .kind = KL_PARAM_INT,
     .help = "streams of the cuda-graph rung", .default_value = 4, .min = 1,
     .max = KL_MAX_STREAMS},
};

/* n = 1, 2, 32 and 64 put every point on a zero of f; odd sizes leave a
 * partial warp and an odd count of partial sums. */
static const kl_test_problem tests[] = {
    {NULL, 1}, {NULL, 2}, {NULL, 31}, {NULL, 33}, {NULL, 64},
    {NULL, 1000003}, {"intervals=1", 4097}, {"intervals=3,streams=2", 100003},
    {"intervals=5,streams=3", 65}, {"intervals=64,streams=1", 3},
    {NULL, 0}};
/* The points' global index passes 2^31 in the eighth interval (2.4e9
 * points: the serial rung's test is its slowest, 119 s on the 2-core
 * machine at 3.2e9). */
static const kl_test_problem big_tests[] = {{NULL, 300000001}, {NULL, 0}};

const kl_workload kl__workload_pipeline = {
    .name = "pipeline",
    .summary = "integrate's integral over 8 intervals in turn: kernels, "
               "copies and host sums overlapped",
    .tolerance = "|I - I M_n| <= G + E + S + H over the I intervals' range "
                 "(integrate's bound, see pipeline.c)",
    .source = "seed 000 section 3.4",
    .metric = KL_METRIC_GITEMS,
    .unit = "Gpt/s",
    .types = KL_TYPE_BIT(KL_F64),
    .default_type = KL_F64,
    .params = params,
    .param_count = 3,
    .ceiling = {KL_CEILING_BOUND, &kl__workload_transfer, bound, 1},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
