#include "offload.h"
#include "../../registry.h"

const char *const kl__offload_phases[] = {"h2d", "kernel", "d2h", NULL};

static kl_status plan(kl_plan *p) {
  p->buffer_count = 2;
  p->buffers[MAP_X] =
      (kl_buffer_spec){"x", KL_F32, p->n, KL_IN, KL_MEM_PAGEABLE, 0};
  p->buffers[MAP_Y] =
      (kl_buffer_spec){"y", KL_F32, p->n, KL_OUT, KL_MEM_PAGEABLE, 0};
  kl__map_constants(p);
  return KL_OK;
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  c->bytes = 2.0 * sizeof(float) * (double)p->n;
  c->flops = 5.0 * (double)p->n;
  c->items = (double)p->n;
}

/* The hooks every offload GPU rung shares. */
static const kl_rung_family gpu_family = {
    .setup = KL_GPU_FN(kl__offload_gpu_setup),
    .teardown = KL_GPU_FN(kl__offload_gpu_teardown)};

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "map's loop on one host core",
            .run = kl__map_serial),
    KL_RUNG("openmp", openmp, "map on the host, where the arrays are: what "
            "offloading must beat", .run = kl__map_omp),
    KL_RUNG("cuda-pageable-1", gpu, "pageable memory, one stream: in, "
            "map, out, chunk after chunk",
            .phases = kl__offload_phases,
            .scratch = KL_GPU_FN(kl__offload_gpu_pageable_1_scratch),
            .run_reps = KL_GPU_FN(kl__offload_gpu_chunks),
            .family = &gpu_family),
    KL_RUNG("cuda-pageable-2", gpu, "pageable memory, chunk k on stream k % 2",
            .phases = kl__offload_phases,
            .scratch = KL_GPU_FN(kl__offload_gpu_pageable_2_scratch),
            .run_reps = KL_GPU_FN(kl__offload_gpu_chunks),
            .family = &gpu_family),
    KL_RUNG("cuda-pageable-3", gpu, "pageable memory, chunk k on stream k % 3",
            .phases = kl__offload_phases,
            .scratch = KL_GPU_FN(kl__offload_gpu_pageable_3_scratch),
            .run_reps = KL_GPU_FN(kl__offload_gpu_chunks),
            .family = &gpu_family),
    KL_RUNG("cuda-pageable-4", gpu, "pageable memory, chunk k on stream k % 4",
            .phases = kl__offload_phases,
            .scratch = KL_GPU_FN(kl__offload_gpu_pageable_4_scratch),
            .run_reps = KL_GPU_FN(kl__offload_gpu_chunks),
            .family = &gpu_family),
    KL_RUNG("cuda-pinned-1", gpu, "pinned memory, one stream: in, map, "
            "out, chunk after chunk",
            .phases = kl__offload_phases,
            .scratch = KL_GPU_FN(kl__offload_gpu_pinned_1_scratch),
            .run_reps = KL_GPU_FN(kl__offload_gpu_chunks),
            .family = &gpu_family),
    KL_RUNG("cuda-pinned-2", gpu, "pinned memory, chunk k on stream k % 2: "
            "one chunk in while another goes out",
            .phases = kl__offload_phases,
            .scratch = KL_GPU_FN(kl__offload_gpu_pinned_2_scratch),
            .run_reps = KL_GPU_FN(kl__offload_gpu_chunks),
            .family = &gpu_family),
    KL_RUNG("cuda-pinned-3", gpu, "pinned memory, chunk k on stream k % 3",
            .phases = kl__offload_phases,
            .scratch = KL_GPU_FN(kl__offload_gpu_pinned_3_scratch),
            .run_reps = KL_GPU_FN(kl__offload_gpu_chunks),
            .family = &gpu_family),
    KL_RUNG("cuda-pinned-4", gpu, "pinned memory, chunk k on stream k % 4",
            .phases = kl__offload_phases,
            .scratch = KL_GPU_FN(kl__offload_gpu_pinned_4_scratch),
            .run_reps = KL_GPU_FN(kl__offload_gpu_chunks),
            .family = &gpu_family),
};

static const kl_param params[] = {
    {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
     .help = "elements of x and y, on the host",
     .default_text = "x twice the device's memory, or what the host holds",
     .default_value = 0x1p40, .device_multiple = 2, .host_default = 256 << 20,
     .quick_default = 256 << 20, .quick_host_default = 16 << 20,
     .min = 1, .max = 0x1p40, .step = 1 << 20},
    {.name = "chunk", .kind = KL_PARAM_SIZE,
     .help = "elements per chunk: a copy in, a kernel, a copy out",
     .default_value = 32 << 20, .min = 1, .max = 0x1p40},
};

/* Sizes that are not a multiple of the chunk, a chunk larger than the
 * array, one chunk, chunks of one element, more chunks than streams. */
static const kl_test_problem tests[] = {
    {NULL, 1}, {NULL, 1000003}, {"chunk=1", 5}, {"chunk=7", 100},
    {"chunk=100", 100}, {"chunk=4096", 1000}, {"chunk=333", 1000003},
    {"chunk=1048576", 4194304}, {NULL, 0}};
static const kl_test_problem big_tests[] = {{"chunk=268435456", 2147483651},
                                            {NULL, 0}};

const kl_workload kl__workload_offload = {
    .name = "offload",
    .summary = "map over host arrays larger than the device, in chunks "
               "through 1-4 streams",
    .tolerance = "map's: |y - ref| <= 5u(|a|x^2 + |b x| + |c|), u = 2^-24",
    .source = "seed 000 section 3.4 applied to map (section 3.1)",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = KL_TYPE_BIT(KL_F32),
    .default_type = KL_F32,
    .params = params,
    .param_count = 2,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_transfer, NULL},
    .plan = plan,
    .init = kl__map_init,
    .check = kl__map_check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
