#include <float.h>
#include <math.h>
#include <stdio.h>

#include "stream.h"
#include "../../registry.h"

static kl_status plan(kl_plan *p) {
  static const char *const names[] = {"a", "b", "c"};
  static const kl_role roles[] = {KL_IN, KL_IN, KL_OUT};
  p->buffer_count = 3;
  for (int i = 0; i < 3; i++)
    p->buffers[i] = (kl_buffer_spec){names[i], p->type, p->n, roles[i],
                                     KL_MEM_DEVICE, 0};
  /* A fresh scalar per seed, away from 0 and 1 so that neither hides a
   * missing multiply. */
  p->constant_count = 1;
  p->constants[STREAM_SCALAR] = 0.25 + 0.5 * kl__uniform(p->seed, 99, 0);
  if (p->type == KL_F32) p->constants[0] = (float)p->constants[0];
  return KL_OK;
}

static void init(const kl_plan *p, void *const *host) {
  kl__fill_uniform(p->type, host[STREAM_A], p->n, p->seed, STREAM_A, -1, 1);
  kl__fill_uniform(p->type, host[STREAM_B], p->n, p->seed, STREAM_B, -1, 1);
}

static double value(const kl_plan *p, const void *buf, int64_t i) {
  return (double)kl__element(p->type, buf, i);
}

/* copy must be exact. triad, c = a + s*b, rounds at most twice (once with
 * a fused multiply-add), so |c - exact| <= 2u(|a| + |s*b|), u the unit
 * roundoff of the type; the reference is exact in long double for f32 and
 * carries 11 more bits than needed for f64. */
typedef struct stream_check {
  const kl_plan *p;
  const void *a, *b, *c;
  double s, u;
  int triad;
} stream_check;

static void element(const void *ctx, int64_t i, kl_element *e) {
  const stream_check *k = ctx;
  const double ai = value(k->p, k->a, i);
  e->got = value(k->p, k->c, i);
  if (!k->triad) {
    e->want = ai;
    e->tol = 0;
    return;
  }
  const double bi = value(k->p, k->b, i);
  e->want = (long double)ai + (long double)k->s * (long double)bi;
  e->tol = 2 * k->u * (fabs(ai) + fabs(k->s * bi)) + DBL_MIN;
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  const stream_check k = {p, in[STREAM_A], in[STREAM_B], out[STREAM_C],
                          p->constants[STREAM_SCALAR],
                          p->type == KL_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2,
                          r->variant == STREAM_TRIAD};
  kl__check_elements(p->n, element, &k, v);
  if (v->bad_count) {
    const int64_t i = v->first_bad;
    const double ai = value(p, k.a, i), bi = value(p, k.b, i);
    snprintf(v->detail, sizeof v->detail, "c[%lld]: expected %.9g, got %.9g",
             (long long)i, k.triad ? ai + k.s * bi : ai, value(p, k.c, i));
  }
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)counts;
  double array = (double)p->n * (double)kl_type_size(p->type);
  c->bytes = (r->variant == STREAM_TRIAD ? 3 : 2) * array;
  c->flops = r->variant == STREAM_TRIAD ? 2.0 * (double)p->n : 0;
  c->items = (double)p->n;
}

static kl_status serial_copy(const kl_args *a) {
  const int64_t n = a->plan->n;
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
    const T *restrict x = a->buffers[STREAM_A];
    T *restrict c = a->buffers[STREAM_C];
    for (int64_t i = 0; i < n; i++) c[i] = x[i]);
  return KL_OK;
}

static kl_status serial_triad(const kl_args *a) {
  const int64_t n = a->plan->n;
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
    const T *restrict x = a->buffers[STREAM_A];
    const T *restrict y = a->buffers[STREAM_B];
    T *restrict c = a->buffers[STREAM_C];
    const T s = (T)a->plan->constants[STREAM_SCALAR];
    for (int64_t i = 0; i < n; i++) c[i] = x[i] + s * y[i]);
  return KL_OK;
}

static const kl_rung rungs[] = {
    {.name = "serial-copy", .backend = &kl__backend_serial,
     .summary = "c = a, one loop", .flags = KL_RUNG_CEILING,
     .variant = STREAM_COPY, .run = serial_copy},
    {.name = "serial-triad", .backend = &kl__backend_serial,
     .summary = "c = a + s*b, one loop", .variant = STREAM_TRIAD,
     .run = serial_triad},
    {.name = "openmp-copy", .backend = &kl__backend_openmp,
     .summary = "c = a, parallel for", .flags = KL_RUNG_CEILING,
     .variant = STREAM_COPY, .run = kl__stream_omp_copy},
    {.name = "openmp-triad", .backend = &kl__backend_openmp,
     .summary = "c = a + s*b, parallel for", .variant = STREAM_TRIAD,
     .run = kl__stream_omp_triad},
    {.name = "cuda-copy", .backend = &kl__backend_gpu,
     .summary = "c = a, one element per thread", .variant = STREAM_COPY,
     .run = KL_GPU_FN(kl__stream_gpu_copy)},
    {.name = "cuda-triad", .backend = &kl__backend_gpu,
     .summary = "c = a + s*b, one element per thread",
     .variant = STREAM_TRIAD, .run = KL_GPU_FN(kl__stream_gpu_triad)},
    {.name = "cuda-memcpy", .backend = &kl__backend_gpu,
     .summary = "device-to-device copy by the runtime",
     .flags = KL_RUNG_CEILING | KL_RUNG_VENDOR, .variant = STREAM_COPY,
     .run = KL_GPU_FN(kl__stream_gpu_memcpy)},
    {.name = "openacc-copy", .backend = &kl__backend_openacc,
     .summary = "c = a, parallel loop of 1024-lane gangs",
     .flags = KL_RUNG_CEILING,
     .variant = STREAM_COPY, .peer = "cuda-copy",
     .run = KL_ACC_FN(kl__stream_acc_copy)},
    {.name = "openacc-triad", .backend = &kl__backend_openacc,
     .summary = "c = a + s*b, parallel loop of 1024-lane gangs",
     .variant = STREAM_TRIAD,
     .peer = "cuda-triad", .run = KL_ACC_FN(kl__stream_acc_triad)},
    KL_RUNG("opencl-copy", opencl, "c = a, 16 bytes per work-item",
            .flags = KL_RUNG_CEILING, .variant = STREAM_COPY,
            .peer = "cuda-copy", .setup = KL_CL_FN(kl__stream_cl_copy_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__stream_cl_copy)),
    KL_RUNG("opencl-triad", opencl, "c = a + s*b, 16 bytes per "
            "work-item",
            .variant = STREAM_TRIAD, .peer = "cuda-triad",
            .setup = KL_CL_FN(kl__stream_cl_triad_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__stream_cl_triad)),
};

static const kl_param params[] = {
    {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
     .help = "elements per array",
     .default_value = 1 << 27, /* 1 GiB per f64 array: far beyond any cache */
     /* Quick: 512 and 128 MiB per array, still past every cache and as
      * large as any quick rung's data, so each ceiling has its size. */
     .quick_default = 1 << 26, .quick_host_default = 1 << 24,
     .cache_multiple = 4,
     .min = 1, .max = 0x1p62, .step = 1 << 20},
};

static const kl_test_problem tests[] = {
    {NULL, 1}, {NULL, 2}, {NULL, 31}, {NULL, 32}, {NULL, 33}, {NULL, 63},
    {NULL, 64}, {NULL, 65}, {NULL, 1000003}, {NULL, 0}};
/* One element beyond 2^31 + 2: past every 32-bit index and not a multiple
 * of any vector width. */
static const kl_test_problem big_tests[] = {{NULL, 2147483651}, {NULL, 0}};

const kl_workload kl__workload_stream = {
    .name = "stream",
    .summary = "bandwidth ceiling: copy and triad over three arrays",
    .tolerance = "copy exact; triad |c - ref| <= 2u(|a| + |s*b|)",
    .source = "BabelStream's kernels and byte counting",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64),
    .default_type = KL_F64,
    .params = params,
    .param_count = 1,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_stream, NULL},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
