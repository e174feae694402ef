#include <float.h>
#include <math.h>
#include <stdio.h>

#include "map.h"

static kl_status plan(kl_plan *p) {
  p->buffer_count = 2;
  p->buffers[MAP_X] = (kl_buffer_spec){"x", KL_F32, p->n, KL_IN};
  p->buffers[MAP_Y] = (kl_buffer_spec){"y", KL_F32, p->n, KL_OUT};
  /* Fresh coefficients per seed (the seed's are 2.5, 2 and 1), exactly
   * representable as floats so that every rung sees the same ones. */
  p->param_count = 3;
  for (int k = 0; k < 3; k++)
    p->params[k] = (float)(-3.0 + 6.0 * kl__uniform(p->seed, 50, (uint64_t)k));
  return KL_OK;
}

static void init(const kl_plan *p, void *const *host) {
  kl__fill_uniform(KL_F32, host[MAP_X], p->n, p->seed, MAP_X, -4, 4);
}

/* Any evaluation order of a*x*x + b*x + c, fused or not, rounds at most
 * four times along each term's path, so its error is at most
 * gamma_4 * (|a|x^2 + |b||x| + |c|) < 5u * (...), u = 2^-24 (Higham,
 * "Accuracy and Stability of Numerical Algorithms", ch. 3). The reference
 * is evaluated in double from the same float inputs. */
static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  const double a = p->params[MAP_A], b = p->params[MAP_B],
               c = p->params[MAP_C], u = FLT_EPSILON / 2;
  const float *x = in[MAP_X], *y = out[MAP_Y];
  int64_t bad = 0, first = INT64_MAX;
  double worst = 0, worst_abs = 0;
#pragma omp parallel for reduction(+ : bad) reduction(min : first) \
    reduction(max : worst, worst_abs) schedule(static)
  for (int64_t i = 0; i < p->n; i++) {
    double xi = x[i];
    double ref = a * xi * xi + b * xi + c;
    double tol = 5 * u * (fabs(a) * xi * xi + fabs(b * xi) + fabs(c)) + FLT_MIN;
    double err = fabs((double)y[i] - ref);
    double ratio = err <= tol ? err / tol : INFINITY;
    if (err > worst_abs || err != err) worst_abs = err != err ? INFINITY : err;
    if (!(ratio <= 1)) {
      bad++;
      if (i < first) first = i;
    }
    if (ratio > worst) worst = ratio;
  }
  kl__verdict_set(v, p->n, bad, first, worst, worst_abs);
  if (bad) {
    double xi = x[first];
    snprintf(v->detail, sizeof v->detail,
             "y[%lld] for x=%.9g: expected %.9g, got %.9g", (long long)first,
             xi, a * xi * xi + b * xi + c, (double)y[first]);
  }
}

static void cost(const kl_plan *p, const kl_rung *r, kl_cost *c) {
  (void)r;
  c->bytes = 2.0 * sizeof(float) * (double)p->n;
  c->flops = 5.0 * (double)p->n;
  c->items = (double)p->n;
}

static kl_status serial(const kl_args *args) {
  const float *restrict x = args->buffers[MAP_X];
  float *restrict y = args->buffers[MAP_Y];
  const float a = (float)args->plan->params[MAP_A],
              b = (float)args->plan->params[MAP_B],
              c = (float)args->plan->params[MAP_C];
  for (int64_t i = 0; i < args->plan->n; i++)
    y[i] = a * x[i] * x[i] + b * x[i] + c;
  return KL_OK;
}

static const kl_rung rungs[] = {
    {"serial", "serial", "one loop on one core", 0, 0, 0, serial, NULL, NULL},
    {"openmp", "openmp", "parallel for simd, static schedule", 0, 0, 0,
     kl__map_omp, NULL, NULL},
    {KL_GPU "-thread", KL_GPU, "one element per thread, 256-thread blocks",
     0, 0, 0, KL_GPU_FN(kl__map_gpu_thread), NULL, NULL},
    {KL_GPU "-grid-stride", KL_GPU,
     "grid-stride loop over a grid that fills the device once", 0, 0, 0,
     KL_GPU_FN(kl__map_gpu_grid_stride), NULL, NULL},
    {KL_GPU "-vec4", KL_GPU,
     "16-byte loads and stores, four in flight per thread", 0, 0, 0,
     KL_GPU_FN(kl__map_gpu_vec4), NULL, NULL},
};

const kl_workload kl__workload_map = {
    .name = "map",
    .summary = "y = a*x^2 + b*x + c over float arrays",
    .tolerance = "|y - ref| <= 5u(|a|x^2 + |b x| + |c|), u = 2^-24",
    .source = "seed 000 section 3.1",
    .metric = KL_METRIC_GBS,
    .types = KL_TYPE_BIT(KL_F32),
    .default_type = KL_F32,
    .default_n = 256 << 20, /* the seed's 256M elements */
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
