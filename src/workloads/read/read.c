#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "read.h"
#include "../../registry.h"

static kl_status plan(kl_plan *p) {
  p->buffer_count = 2;
  p->buffers[READ_A] =
      (kl_buffer_spec){"a", p->type, p->n, KL_IN, KL_MEM_DEVICE, 0};
  p->buffers[READ_X] =
      (kl_buffer_spec){"x", KL_U64, 1, KL_OUT, KL_MEM_DEVICE, 0};
  return KL_OK;
}

static void init(const kl_plan *p, void *const *host) {
  kl__fill_uniform(p->type, host[READ_A], p->n, p->seed, READ_A, -1, 1);
}

/* The XOR of the elements' bits, as every rung computes it. */
static uint64_t fold(const kl_plan *p, const void *a) {
  uint64_t x = 0;
  if (kl_type_size(p->type) == 8) {
    const uint64_t *w = a;
    for (int64_t i = 0; i < p->n; i++) x ^= w[i];
  } else {
    const uint32_t *w = a;
    uint32_t y = 0;
    for (int64_t i = 0; i < p->n; i++) y ^= w[i];
    x = y;
  }
  return x;
}

typedef struct read_check {
  uint64_t got, want;
} read_check;

/* One element: x, bit for bit (its distance from the reference is 0 or
 * 1, so the tolerance 0 passes only the same bits). */
static void element(const void *ctx, int64_t i, kl_element *e) {
  const read_check *k = ctx;
  (void)i;
  e->got = k->got == k->want ? 0 : 1;
  e->want = 0;
  e->tol = 0;
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  read_check k;
  memcpy(&k.got, out[READ_X], sizeof k.got);
  k.want = fold(p, in[READ_A]);
  kl__check_elements(1, element, &k, v);
  if (v->bad_count)
    snprintf(v->detail, sizeof v->detail,
             "x: expected 0x%016" PRIx64 ", got 0x%016" PRIx64, k.want, k.got);
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  c->bytes = (double)p->n * (double)kl_type_size(p->type);
  c->flops = 0;
  c->items = (double)p->n;
}

static kl_status serial_read(const kl_args *a) {
  const uint64_t x = fold(a->plan, a->buffers[READ_A]);
  memcpy(a->buffers[READ_X], &x, sizeof x);
  return KL_OK;
}

static const kl_rung rungs[] = {
    {.name = "serial-read", .backend = &kl__backend_serial,
     .summary = "x = XOR of a's words, one loop", .flags = KL_RUNG_CEILING,
     .run = serial_read},
    {.name = "openmp-read", .backend = &kl__backend_openmp,
     .summary = "x = XOR of a's words, parallel for with a reduction",
     .flags = KL_RUNG_CEILING, .run = kl__read_omp},
    {.name = "cuda-read", .backend = &kl__backend_gpu,
     .summary = "16-byte loads, 4 in flight, persistent grid, one pass: "
                "reduce cuda-best's reading with XOR",
     .flags = KL_RUNG_CEILING, .scratch = KL_GPU_FN(kl__read_gpu_scratch),
     .setup = KL_GPU_FN(kl__read_gpu_setup), .run = KL_GPU_FN(kl__read_gpu)},
    {.name = "openacc-read", .backend = &kl__backend_openacc,
     .summary = "x = XOR of a's words, parallel loop with a reduction",
     .flags = KL_RUNG_CEILING, .peer = "cuda-read",
     .run = KL_ACC_FN(kl__read_acc)},
    KL_RUNG("opencl-read", opencl, "x = XOR of a's words, work-group trees "
            "in two passes", .flags = KL_RUNG_CEILING, .peer = "cuda-read",
            .scratch = KL_CL_FN(kl__read_cl_scratch),
            .setup = KL_CL_FN(kl__read_cl_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__read_cl)),
};

/* Sizes as stream's: past every cache. */
static const kl_param params[] = {
    {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
     .help = "elements of a",
     .default_value = 1 << 27, /* 1 GiB of f64 */
     .quick_default = 1 << 26, .quick_host_default = 1 << 24,
     .cache_multiple = 4,
     .min = 1, .max = 0x1p62, .step = 1 << 20},
};

static const kl_test_problem tests[] = {
    {NULL, 1}, {NULL, 2}, {NULL, 3}, {NULL, 31}, {NULL, 33}, {NULL, 63},
    {NULL, 65}, {NULL, 1000003}, {NULL, 0}};
static const kl_test_problem big_tests[] = {{NULL, 2147483651}, {NULL, 0}};

const kl_workload kl__workload_read = {
    .name = "read",
    .summary = "read ceiling: every element read once, one word written",
    .tolerance = "exact: x has the XOR of a's words, bit for bit",
    .source = "the ceiling of read-dominated work (reduce, histogram)",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64),
    .default_type = KL_F64,
    .params = params,
    .param_count = 1,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_read, NULL},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
