#include <stdio.h>
#include <string.h>

#include "transfer.h"
#include "../../registry.h"

static kl_status plan(kl_plan *p) {
  p->buffer_count = 2;
  p->buffers[XFER_X] =
      (kl_buffer_spec){"x", KL_F32, p->n, KL_IN, KL_MEM_PINNED, 0};
  p->buffers[XFER_Y] =
      (kl_buffer_spec){"y", KL_F32, p->n, KL_OUT, KL_MEM_PINNED, 0};
  return KL_OK;
}

static void init(const kl_plan *p, void *const *host) {
  kl__fill_uniform(KL_F32, host[XFER_X], p->n, p->seed, XFER_X, -1, 1);
}

/* A copy is exact: every y[i] has x[i]'s bits, NaN or not. */
typedef struct pair {
  const float *x, *y;
} pair;

static void element(const void *ctx, int64_t i, kl_element *e) {
  const pair *k = ctx;
  uint32_t a, b;
  memcpy(&a, &k->x[i], sizeof a);
  memcpy(&b, &k->y[i], sizeof b);
  e->want = (double)a;
  e->got = (double)b;
  e->tol = 0;
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  const pair k = {in[XFER_X], out[XFER_Y]};
  kl__check_elements(p->n, element, &k, v);
  if (v->bad_count)
    snprintf(v->detail, sizeof v->detail,
             "y[%lld] = %.9g, not x's %.9g", (long long)v->first_bad,
             (double)k.y[v->first_bad], (double)k.x[v->first_bad]);
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  c->bytes = 2.0 * sizeof(float) * (double)p->n;
  c->flops = 0;
  c->items = (double)p->n;
}

static kl_status serial_copy(const kl_args *a) {
  memcpy(a->buffers[XFER_Y], a->buffers[XFER_X],
         (size_t)a->plan->n * sizeof(float));
  return KL_OK;
}

static const kl_rung rungs[] = {
    KL_RUNG("serial-copy", serial, "y = x, one memcpy",
            .flags = KL_RUNG_CEILING, .run = serial_copy),
    KL_RUNG("openmp-copy", openmp, "y = x, parallel for",
            .flags = KL_RUNG_CEILING, .run = kl__transfer_omp),
    KL_RUNG("cuda-pageable-duplex", gpu, "as pinned-duplex from pageable "
            "memory: the driver stages every chunk through its own pinned "
            "buffer", .scratch = KL_GPU_FN(kl__transfer_gpu_pageable_scratch),
            .run = KL_GPU_FN(kl__transfer_gpu_duplex)),
    KL_RUNG("cuda-pinned-one-stream", gpu, "each chunk to the device and "
            "back on one stream: one direction at a time",
            .scratch = KL_GPU_FN(kl__transfer_gpu_pinned_scratch),
            .run = KL_GPU_FN(kl__transfer_gpu_one_stream)),
    KL_RUNG("cuda-pinned-duplex", gpu, "chunks in on one stream and back on "
            "another, through a ring of 3 device buffers: both copy engines "
            "at once", .flags = KL_RUNG_CEILING,
            .scratch = KL_GPU_FN(kl__transfer_gpu_pinned_scratch),
            .run = KL_GPU_FN(kl__transfer_gpu_duplex)),
};

static const kl_param params[] = {
    {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
     .help = "floats each way", .default_value = 256 << 20,
     .host_default = 64 << 20, .min = 1, .max = 0x1p40, .step = 1 << 20,
     .quick_default = 64 << 20, .quick_host_default = 16 << 20},
    {.name = "chunk", .kind = KL_PARAM_SIZE,
     .help = "floats per copy (a device buffer of the ring)",
     /* 16 MiB: the first copy in and the last copy out run alone, 1/65
      * of a default run; per copy a few microseconds of setup are under
      * 1% of its 0.4 ms. */
     .default_value = 4 << 20, .min = 1, .max = 0x1p40},
};

static const kl_test_problem tests[] = {
    {NULL, 1}, {NULL, 31}, {NULL, 1000003}, {"chunk=1", 7},
    {"chunk=1000", 1000}, {"chunk=999", 1000}, {"chunk=4096", 1000},
    {NULL, 0}};
static const kl_test_problem big_tests[] = {{NULL, 0}};

const kl_workload kl__workload_transfer = {
    .name = "transfer",
    .summary = "y = x through the device: pinned and pageable copies, one "
               "direction at a time or both",
    .tolerance = "exact: every y[i] has x[i]'s bits",
    .source = "seed 000 section 3.4.3 (pinned memory, two copy engines)",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = KL_TYPE_BIT(KL_F32),
    .default_type = KL_F32,
    .params = params,
    .param_count = 2,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_transfer, NULL},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
