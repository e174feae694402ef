#include <float.h>
#include <math.h>
#include <stdio.h>

#include "stream.h"

static kl_status plan(kl_plan *p) {
  static const char *const names[] = {"a", "b", "c"};
  static const kl_role roles[] = {KL_IN, KL_IN, KL_OUT};
  p->buffer_count = 3;
  for (int i = 0; i < 3; i++)
    p->buffers[i] = (kl_buffer_spec){names[i], p->type, p->n, roles[i]};
  /* A fresh scalar per seed, away from 0 and 1 so that neither hides a
   * missing multiply. */
  p->param_count = 1;
  p->params[STREAM_SCALAR_PARAM] = 0.25 + 0.5 * kl__uniform(p->seed, 99, 0);
  if (p->type == KL_F32) p->params[0] = (float)p->params[0];
  return KL_OK;
}

static void init(const kl_plan *p, void *const *host) {
  kl__fill_uniform(p->type, host[STREAM_A], p->n, p->seed, STREAM_A, -1, 1);
  kl__fill_uniform(p->type, host[STREAM_B], p->n, p->seed, STREAM_B, -1, 1);
}

static double value(const kl_plan *p, const void *buf, int64_t i) {
  return p->type == KL_F32 ? (double)((const float *)buf)[i]
                           : ((const double *)buf)[i];
}

/* copy must be exact. triad, c = a + s*b, rounds at most twice (once with
 * a fused multiply-add), so |c - exact| <= 2u(|a| + |s*b|), u the unit
 * roundoff of the type; the reference is exact in long double for f32 and
 * carries 11 more bits than needed for f64. */
static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  const double s = p->params[STREAM_SCALAR_PARAM];
  const double u = p->type == KL_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  const void *a = in[STREAM_A], *b = in[STREAM_B], *c = out[STREAM_C];
  const int triad = r->kernel == STREAM_TRIAD;
  int64_t bad = 0, first = INT64_MAX;
  double worst = 0, worst_abs = 0;
#pragma omp parallel for reduction(+ : bad) reduction(min : first) \
    reduction(max : worst, worst_abs) schedule(static)
  for (int64_t i = 0; i < p->n; i++) {
    double ai = value(p, a, i), got = value(p, c, i), ratio, err;
    if (triad) {
      double bi = value(p, b, i);
      long double ref = (long double)ai + (long double)s * (long double)bi;
      double tol = 2 * u * (fabs(ai) + fabs(s * bi)) + DBL_MIN;
      err = (double)fabsl((long double)got - ref);
      ratio = err <= tol ? err / tol : INFINITY;
    } else {
      err = fabs(got - ai);
      ratio = got == ai ? 0 : INFINITY;
    }
    if (err > worst_abs || err != err) worst_abs = err != err ? INFINITY : err;
    if (!(ratio <= 1)) {
      bad++;
      if (i < first) first = i;
    }
    if (ratio > worst) worst = ratio;
  }
  kl__verdict_set(v, p->n, bad, first, worst, worst_abs);
  if (bad) {
    double ai = value(p, a, first), bi = value(p, b, first);
    snprintf(v->detail, sizeof v->detail, "c[%lld]: expected %.9g, got %.9g",
             (long long)first, triad ? ai + s * bi : ai,
             value(p, c, first));
  }
}

static void cost(const kl_plan *p, const kl_rung *r, kl_cost *c) {
  double array = (double)p->n * (double)kl_type_size(p->type);
  c->bytes = (r->kernel == STREAM_TRIAD ? 3 : 2) * array;
  c->flops = r->kernel == STREAM_TRIAD ? 2.0 * (double)p->n : 0;
  c->items = (double)p->n;
}

#define STREAM_SERIAL(name, T, expr)                                          \
  static void name(const kl_args *args) {                                     \
    const T *restrict a = args->buffers[STREAM_A];                            \
    const T *restrict b = args->buffers[STREAM_B];                            \
    T *restrict c = args->buffers[STREAM_C];                                  \
    const T s = (T)args->plan->params[STREAM_SCALAR_PARAM];                   \
    (void)b;                                                                  \
    (void)s;                                                                  \
    for (int64_t i = 0; i < args->plan->n; i++) c[i] = expr;                  \
  }
STREAM_SERIAL(copy_f32, float, a[i])
STREAM_SERIAL(copy_f64, double, a[i])
STREAM_SERIAL(triad_f32, float, a[i] + s * b[i])
STREAM_SERIAL(triad_f64, double, a[i] + s * b[i])

static kl_status serial_copy(const kl_args *a) {
  (a->plan->type == KL_F32 ? copy_f32 : copy_f64)(a);
  return KL_OK;
}

static kl_status serial_triad(const kl_args *a) {
  (a->plan->type == KL_F32 ? triad_f32 : triad_f64)(a);
  return KL_OK;
}

static const kl_rung rungs[] = {
    {"serial-copy", "serial", "c = a, one loop", 0, STREAM_COPY, 0,
     serial_copy, NULL, NULL},
    {"serial-triad", "serial", "c = a + s*b, one loop", KL_RUNG_CEILING,
     STREAM_TRIAD, 0, serial_triad, NULL, NULL},
    {"openmp-copy", "openmp", "c = a, parallel for", 0, STREAM_COPY, 0,
     kl__stream_omp_copy, NULL, NULL},
    {"openmp-triad", "openmp", "c = a + s*b, parallel for", KL_RUNG_CEILING,
     STREAM_TRIAD, 0, kl__stream_omp_triad, NULL, NULL},
    {KL_GPU "-copy", KL_GPU, "c = a, one element per thread", 0, STREAM_COPY,
     0, KL_GPU_FN(kl__stream_gpu_copy), NULL, NULL},
    {KL_GPU "-triad", KL_GPU, "c = a + s*b, one element per thread", 0,
     STREAM_TRIAD, 0, KL_GPU_FN(kl__stream_gpu_triad), NULL, NULL},
    {KL_GPU "-memcpy", KL_GPU, "device-to-device copy by the runtime",
     KL_RUNG_CEILING | KL_RUNG_VENDOR, STREAM_COPY, 0,
     KL_GPU_FN(kl__stream_gpu_memcpy), NULL, NULL},
};

const kl_workload kl__workload_stream = {
    .name = "stream",
    .summary = "bandwidth ceiling: copy and triad over three arrays",
    .tolerance = "copy exact; triad |c - ref| <= 2u(|a| + |s*b|)",
    .source = "BabelStream's kernels and byte counting",
    .metric = KL_METRIC_GBS,
    .types = KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64),
    .default_type = KL_F64,
    .default_n = 1 << 27, /* 1 GiB per f64 array: far beyond any cache */
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
