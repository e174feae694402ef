#include <float.h>
#include <math.h>
#include <stdio.h>

#include "map.h"
#include "../../registry.h"

/* Fresh coefficients per seed (the seed's are 2.5, 2 and 1), exactly
 * representable as floats so that every rung sees the same ones. */
void kl__map_constants(kl_plan *p) {
  p->constant_count = 3;
  for (int k = 0; k < 3; k++)
    p->constants[k] =
        (float)(-3.0 + 6.0 * kl__uniform(p->seed, 50, (uint64_t)k));
}

static kl_status plan(kl_plan *p) {
  p->buffer_count = 2;
  p->buffers[MAP_X] = (kl_buffer_spec){"x", KL_F32, p->n, KL_IN, KL_MEM_DEVICE, 0};
  p->buffers[MAP_Y] = (kl_buffer_spec){"y", KL_F32, p->n, KL_OUT, KL_MEM_DEVICE, 0};
  kl__map_constants(p);
  return KL_OK;
}

void kl__map_init(const kl_plan *p, void *const *host) {
  kl__fill_uniform(KL_F32, host[MAP_X], p->n, p->seed, MAP_X, -4, 4);
}

/* Any evaluation order of a*x*x + b*x + c, fused or not, rounds at most
 * four times along each term's path, so its error is at most
 * gamma_4 * (|a|x^2 + |b||x| + |c|) < 5u * (...), u = 2^-24 (Higham,
 * "Accuracy and Stability of Numerical Algorithms", ch. 3). The reference
 * is evaluated in double from the same float inputs. */
typedef struct map_check {
  const float *x, *y;
  double a, b, c;
} map_check;

static void element(const void *ctx, int64_t i, kl_element *e) {
  const map_check *k = ctx;
  const double xi = k->x[i], u = FLT_EPSILON / 2;
  e->got = k->y[i];
  e->want = k->a * xi * xi + k->b * xi + k->c;
  e->tol = 5 * u * (fabs(k->a) * xi * xi + fabs(k->b * xi) + fabs(k->c)) +
           FLT_MIN;
}

void kl__map_check(const kl_plan *p, const kl_rung *r, void *const *in,
                   void *const *out, kl_verdict *v) {
  (void)r;
  const map_check k = {in[MAP_X], out[MAP_Y], p->constants[MAP_A],
                       p->constants[MAP_B], p->constants[MAP_C]};
  kl__check_elements(p->n, element, &k, v);
  if (v->bad_count) {
    const double xi = k.x[v->first_bad];
    snprintf(v->detail, sizeof v->detail,
             "y[%lld] for x=%.9g: expected %.9g, got %.9g",
             (long long)v->first_bad, xi, k.a * xi * xi + k.b * xi + k.c,
             (double)k.y[v->first_bad]);
  }
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  c->bytes = 2.0 * sizeof(float) * (double)p->n;
  c->flops = 5.0 * (double)p->n;
  c->items = (double)p->n;
}

kl_status kl__map_serial(const kl_args *args) {
  const float *restrict x = args->buffers[MAP_X];
  float *restrict y = args->buffers[MAP_Y];
  const float a = (float)args->plan->constants[MAP_A],
              b = (float)args->plan->constants[MAP_B],
              c = (float)args->plan->constants[MAP_C];
  for (int64_t i = 0; i < args->plan->n; i++)
    y[i] = a * x[i] * x[i] + b * x[i] + c;
  return KL_OK;
}

static const kl_rung rungs[] = {
    {.name = "serial", .backend = &kl__backend_serial,
     .summary = "one loop on one core", .library = KL_TYPE_BIT(KL_F32),
     .run = kl__map_serial},
    {.name = "openmp", .backend = &kl__backend_openmp,
     .summary = "parallel for simd, static schedule",
     .library = KL_TYPE_BIT(KL_F32), .run = kl__map_omp},
    {.name = "cuda-thread", .backend = &kl__backend_gpu,
     .summary = "one element per thread, 256-thread blocks",
     .run = KL_GPU_FN(kl__map_gpu_thread)},
    KL_RUNG("cuda-host-clock", gpu, "cuda-thread timed by the host clock "
            "with no synchronization: the launch, not the work, kept to be "
            "caught", .flags = KL_RUNG_KNOWN_WRONG,
            .run_reps = KL_GPU_FN(kl__map_gpu_host_clock)),
    {.name = "cuda-grid-stride", .backend = &kl__backend_gpu,
     .summary = "grid-stride loop over a grid that fills the device once",
     .run = KL_GPU_FN(kl__map_gpu_grid_stride)},
    {.name = "cuda-vec4", .backend = &kl__backend_gpu,
     .summary = "16-byte loads and stores, four in flight per thread",
     .library = KL_TYPE_BIT(KL_F32), .run = KL_GPU_FN(kl__map_gpu_vec4)},
    {.name = "openacc", .backend = &kl__backend_openacc,
     .summary = "parallel loop, the runtime's partitioning",
     .peer = "cuda-thread", .library = KL_TYPE_BIT(KL_F32),
     .run = KL_ACC_FN(kl__map_acc)},
    KL_RUNG("opencl-thread", opencl, "one element per work-item",
            .peer = "cuda-thread", .setup = KL_CL_FN(kl__map_cl_thread_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__map_cl_thread)),
    KL_RUNG("opencl-host-clock", opencl, "opencl-thread timed by the host "
            "clock with no clFinish: the enqueue, not the work, kept to be "
            "caught", .flags = KL_RUNG_KNOWN_WRONG,
            .setup = KL_CL_FN(kl__map_cl_thread_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run_reps = KL_CL_FN(kl__map_cl_host_clock)),
    KL_RUNG("opencl-vec4", opencl, "four elements per work-item, vload4 and "
            "vstore4", .peer = "cuda-vec4",
            .setup = KL_CL_FN(kl__map_cl_vec4_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__map_cl_vec4)),
};

static const kl_param params[] = {
    {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
     .help = "elements of x and y",
     .default_value = 256 << 20, /* the seed's 256M elements */
     .quick_default = 64 << 20, .quick_host_default = 16 << 20,
     .cache_multiple = 4,
     .min = 1, .max = 0x1p62, .step = 1 << 20},
};

static const kl_test_problem tests[] = {
    {NULL, 1}, {NULL, 2}, {NULL, 31}, {NULL, 32}, {NULL, 33}, {NULL, 63},
    {NULL, 64}, {NULL, 65}, {NULL, 1000003}, {NULL, 0}};
static const kl_test_problem big_tests[] = {{NULL, 2147483651}, {NULL, 0}};

const kl_workload kl__workload_map = {
    .name = "map",
    .summary = "y = a*x^2 + b*x + c over float arrays",
    .tolerance = "|y - ref| <= 5u(|a|x^2 + |b x| + |c|), u = 2^-24",
    .source = "seed 000 section 3.1",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = KL_TYPE_BIT(KL_F32),
    .default_type = KL_F32,
    .params = params,
    .param_count = 1,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_stream, NULL},
    .plan = plan,
    .init = kl__map_init,
    .check = kl__map_check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
