#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram-host.h"
#include "kladder-histogram.h"
#include "../../registry.h"

/* In the order of histogram.h's HIST_RANDOM, HIST_ALL_SAME, HIST_SKEWED. */
static const char *const patterns[] = {"random", "all-same", "skewed", NULL};

/* The random streams of the inputs: the bytes, and the all-same value
 * where it is not given. */
enum { STREAM_BYTES = HIST_DATA, STREAM_VALUE = 40 };

static kl_status plan(kl_plan *p) {
  if (!(p->given >> HIST_P_VALUE & 1))
    p->value[HIST_P_VALUE] =
        (double)(kl__hash(p->seed, STREAM_VALUE, 0) % HIST_BINS);
  p->buffer_count = 2;
  p->buffers[HIST_DATA] = (kl_buffer_spec){"data", KL_U8,
                                           HIST_OFFSET(p) + HIST_LENGTH(p),
                                           KL_IN, KL_MEM_DEVICE, 0};
  p->buffers[HIST_COUNTS] =
      (kl_buffer_spec){"counts", kl__histogram_count_type(p->n), HIST_BINS,
                       KL_OUT, KL_MEM_DEVICE, 0};
  return KL_OK;
}

/* ---- inputs -------------------------------------------------------------
 * Byte g of the whole input is a function of the seed and g alone, so
 * that any piece of it (a chunk, a piece the check recounts) is made on
 * its own. random: one hash gives 8 uniform bytes. skewed, like English
 * text: one hash gives 4 bytes of 16 bits each; the high 8 bits pick one
 * of the eight commonest characters of text (space, e, t, a, o, i, n, s)
 * with chances 77, 51, 31, 23, 18, 13, 10 and 8 in 256 (90.2% in all,
 * from 30% down to 3%), and otherwise the byte is the low 8 bits, uniform
 * over all 256 values. */
#define SKEWED_HOT 8
static const unsigned char skewed_hot[SKEWED_HOT] = {' ', 'e', 't', 'a',
                                                     'o', 'i', 'n', 's'};
static const int skewed_share[SKEWED_HOT] = {77, 51, 31, 23, 18, 13, 10, 8};

/* pick[u]: the character that high bits u stand for, or -1: uniform. */
static void skewed_table(int pick[256]) {
  int u = 0;
  for (int k = 0; k < SKEWED_HOT; k++)
    for (int s = 0; s < skewed_share[k]; s++) pick[u++] = skewed_hot[k];
  while (u < 256) pick[u++] = -1;
}

/* Bytes [start, start + len) of the plan's pattern into x. */
static void make_bytes(const kl_plan *p, uint8_t *x, int64_t start,
                       int64_t len) {
  const int pattern = HIST_INPUTS(p);
  if (pattern == HIST_ALL_SAME) {
    memset(x, (int)p->value[HIST_P_VALUE], (size_t)len);
    return;
  }
  int pick[256];
  skewed_table(pick);
  const int per = pattern == HIST_SKEWED ? 4 : 8; /* bytes per hash */
  const int64_t first = start / per, end = (start + len + per - 1) / per;
#pragma omp parallel for schedule(static)
  for (int64_t j = first; j < end; j++) {
    const uint64_t h = kl__hash(p->seed, STREAM_BYTES, (uint64_t)j);
    for (int k = 0; k < per; k++) {
      const int64_t g = j * per + k;
      if (g < start || g >= start + len) continue;
      int byte;
      if (per == 8) {
        byte = (int)(h >> (8 * k) & 255);
      } else {
        const unsigned slice = (unsigned)(h >> (16 * k) & 0xFFFF);
        byte = pick[slice >> 8] >= 0 ? pick[slice >> 8] : (int)(slice & 255);
      }
      x[g - start] = (uint8_t)byte;
    }
  }
}

/* The bytes before an offset start are not counted: a byte no pattern
 * is made of only, so that a rung that counts them is caught by the sum
 * if not by a bin. */
#define BEFORE_OFFSET 0xA5

static void init(const kl_plan *p, void *const *host) {
  uint8_t *x = host[HIST_DATA];
  memset(x, BEFORE_OFFSET, (size_t)HIST_OFFSET(p));
  make_bytes(p, x + HIST_OFFSET(p), kl__chunk_start(p), HIST_LENGTH(p));
}

/* The bytes of the current chunk, from the input file. */
static kl_status load_chunk(const kl_plan *p, void *const *host) {
  uint8_t *x = host[HIST_DATA];
  memset(x, BEFORE_OFFSET, (size_t)HIST_OFFSET(p));
  return kl__input_read(p->input_file, p->n, kl__chunk_start(p),
                        x + HIST_OFFSET(p), HIST_LENGTH(p));
}

/* ---- the check ------------------------------------------------------------
 * Exact: every count against a serial count of the same bytes, and the
 * counts add up to n (element HIST_BINS of the check: with every bin
 * right it fails only where the bytes counted are not n, as when a file
 * changed under the run). */
typedef struct hist_check {
  const void *counts;
  kl_type type;
  uint64_t want[HIST_BINS];
  long double got_sum;
  int64_t n;
} hist_check;

static void count_bytes(const uint8_t *x, int64_t len, uint64_t *want) {
#pragma omp parallel for reduction(+ : want[:HIST_BINS]) schedule(static)
  for (int64_t i = 0; i < len; i++) want[x[i]]++;
}

static void bin_element(const void *ctx, int64_t i, kl_element *e) {
  const hist_check *k = ctx;
  e->tol = 0;
  if (i < HIST_BINS) {
    e->got = kl__element(k->type, k->counts, i);
    e->want = (long double)k->want[i];
  } else {
    e->got = k->got_sum;
    e->want = (long double)k->n;
  }
}

/* The bytes counted again: those in the input buffer, or, where they are
 * not all there (a plan in chunks holds the last chunk's), made again a
 * piece at a time. An input file is always read again: a wrong load is
 * caught too. */
#define RECOUNT_PIECE (INT64_C(64) << 20)

static int recount(const kl_plan *p, void *const *in, uint64_t *want,
                   char *why, size_t why_size) {
  if (p->chunk_count == 1 && !p->input_file) {
    count_bytes((const uint8_t *)in[HIST_DATA] + HIST_OFFSET(p), p->n, want);
    return 1;
  }
  const int64_t piece = p->n < RECOUNT_PIECE ? p->n : RECOUNT_PIECE;
  uint8_t *buf = malloc((size_t)piece);
  if (!buf) {
    snprintf(why, why_size, "no host memory for %lld bytes to recount",
             (long long)piece);
    return 0;
  }
  for (int64_t at = 0; at < p->n; at += piece) {
    const int64_t len = p->n - at < piece ? p->n - at : piece;
    if (!p->input_file) {
      make_bytes(p, buf, at, len);
    } else if (kl__input_read(p->input_file, p->n, at, buf, len) != KL_OK) {
      snprintf(why, why_size, "%s", kl_last_error());
      free(buf);
      return 0;
    }
    count_bytes(buf, len, want);
  }
  free(buf);
  return 1;
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  hist_check k = {out[HIST_COUNTS], p->buffers[HIST_COUNTS].type, {0}, 0,
                  p->n};
  char why[sizeof v->detail];
  if (!recount(p, in, k.want, why, sizeof why)) {
    kl__verdict_set(v, 0, 1, 0, INFINITY, 0);
    snprintf(v->detail, sizeof v->detail, "%s", why);
    return;
  }
  for (int b = 0; b < HIST_BINS; b++)
    k.got_sum += kl__element(k.type, k.counts, b);
  kl__check_elements(HIST_BINS + 1, bin_element, &k, v);
  if (!v->bad_count) return;
  const int64_t b = v->first_bad;
  if (b == HIST_BINS)
    snprintf(v->detail, sizeof v->detail,
             "the counts add up to %.0Lf, not n = %lld", k.got_sum,
             (long long)p->n);
  else
    snprintf(v->detail, sizeof v->detail,
             "bin %lld%s%c%s: expected %llu, got %.0Lf", (long long)b,
             b > 32 && b < 127 ? " ('" : "", b > 32 && b < 127 ? (int)b : ' ',
             b > 32 && b < 127 ? "')" : "", (unsigned long long)k.want[b],
             kl__element(k.type, k.counts, b));
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  c->bytes = (double)p->n;
  c->flops = 0;
  c->items = (double)p->n;
}

/* ---- the serial rung: the seed's loop, for each count type -------------- */
static void serial_u32(const uint8_t *x, int64_t n, uint32_t *counts) {
  for (int64_t i = 0; i < n; i++) counts[x[i]]++;
}

static void serial_u64(const uint8_t *x, int64_t n, uint64_t *counts) {
  for (int64_t i = 0; i < n; i++) counts[x[i]]++;
}

static kl_status serial(const kl_args *a) {
  return kl__histogram_host_run(a, serial_u32, serial_u64);
}

#define U8 KL_TYPE_BIT(KL_U8)

/* The hooks every histogram GPU rung shares. */
static const kl_rung_family gpu_family = {
    .setup = KL_GPU_FN(kl__histogram_gpu_setup)};

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "the seed's loop: ++count[byte]",
            .library = U8, .run = serial),
    KL_RUNG("openmp-atomic", openmp, "an omp atomic per byte: correct, and "
            "slower than the serial loop (the seed's negative optimization)",
            .run = kl__histogram_omp_atomic),
    KL_RUNG("openmp-interleaved", openmp, "a private histogram per thread, "
            "thread t counting bytes t, t+T, t+2T, ...",
            .run = kl__histogram_omp_interleaved),
    KL_RUNG("openmp-blocks", openmp, "a contiguous block per thread, 8 "
            "sub-histograms to break the chains of repeated bytes, 8 equal "
            "bytes at once", .library = U8, .run = kl__histogram_omp_blocks),
    KL_RUNG("cuda-global-atomic", gpu, "one global atomic per byte",
            .run = KL_GPU_FN(kl__histogram_gpu_global_atomic),
            .family = &gpu_family),
    KL_RUNG("cuda-four-per-thread", gpu, "4 bytes per thread, global atomics",
            .run = KL_GPU_FN(kl__histogram_gpu_four_per_thread),
            .family = &gpu_family),
    KL_RUNG("cuda-shared", gpu, "a shared-memory histogram per block",
            .run = KL_GPU_FN(kl__histogram_gpu_shared),
            .family = &gpu_family),
    KL_RUNG("cuda-fat-interleaved", gpu, "a shared histogram per block, 32 "
            "words per thread a grid apart",
            .run = KL_GPU_FN(kl__histogram_gpu_fat_interleaved),
            .family = &gpu_family),
    KL_RUNG("cuda-fat-contiguous", gpu, "a shared histogram per block, 32 "
            "adjacent words per thread",
            .run = KL_GPU_FN(kl__histogram_gpu_fat_contiguous),
            .family = &gpu_family),
    KL_RUNG("cuda-vec16", gpu, "16-byte loads, a shared histogram per block",
            .run = KL_GPU_FN(kl__histogram_gpu_vec16),
            .family = &gpu_family),
    KL_RUNG("cuda-warp-private", gpu, "a shared sub-histogram per warp",
            .run = KL_GPU_FN(kl__histogram_gpu_warp_private),
            .family = &gpu_family),
    KL_RUNG("cuda-best", gpu, "a sub-histogram per shared-memory bank, "
            "persistent grid, 16-byte loads in flight", .library = U8,
            .run = KL_GPU_FN(kl__histogram_gpu_best),
            .family = &gpu_family),
    KL_RUNG("cuda-cluster", gpu, "thread-block clusters, the bins split over "
            "the cluster's distributed shared memory",
            .run = KL_NVIDIA_FN(kl__histogram_gpu_cluster),
            .family = &gpu_family),
    KL_RUNG("cuda-cub", gpu, "CUB DeviceHistogram::HistogramEven",
            .flags = KL_RUNG_VENDOR,
            .scratch = KL_GPU_CUB_FN(kl__histogram_gpu_cub_scratch),
            .run = KL_GPU_CUB_FN(kl__histogram_gpu_cub)),
    KL_RUNG("opencl-local", opencl, "a local-memory histogram per "
            "work-group (local atomics on a GPU, a contiguous run per item "
            "on a CPU), a global atomic per bin", .peer = "cuda-shared",
            .setup = KL_CL_FN(kl__histogram_cl_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__histogram_cl_local)),
    KL_RUNG("opencl-vector", opencl, "16-byte loads, a local sub-histogram "
            "per bank (a GPU, persistent grid) or per byte of a word (a "
            "CPU, contiguous runs), a global atomic per bin",
            .peer = "cuda-best",
            .setup = KL_CL_FN(kl__histogram_cl_vector_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__histogram_cl_vector)),
};

static const kl_param params[] = {
    [HIST_P_N] = {.name = "n", .kind = KL_PARAM_SIZE,
                  .flags = KL_PARAM_MAIN_SIZE, .help = "bytes to count",
                  .default_value = 512 << 20, /* the seed's 512 MB */
                  .quick_default = 256 << 20, .quick_host_default = 64 << 20,
                  .cache_multiple = 4,
                  .min = 1, .max = 0x1p62, .step = 1 << 20},
    [HIST_P_INPUTS] = {.name = "inputs", .kind = KL_PARAM_CHOICE,
                       .flags = KL_PARAM_INPUTS, .label = "input pattern",
                       .help = "random (uniform bytes), all-same (every byte "
                               "`value`), skewed (90% from 8 bytes, as text)",
                       .choices = patterns},
    [HIST_P_VALUE] = {.name = "value", .kind = KL_PARAM_INT,
                      .help = "the byte of the all-same pattern",
                      .default_text = "drawn from the seed", .min = 0,
                      .max = 255},
    [HIST_P_OFFSET] = {.name = "offset", .kind = KL_PARAM_INT,
                       .help = "bytes before the data in its buffer: an "
                               "unaligned start for every rung",
                       .min = 0, .max = 63},
};

/* Lengths around the edges of words, vectors and the bins; every pattern
 * (test_rungs goes through them), and all-same on the first and the last
 * bin. */
#define HIST_TESTS(n)                                                         \
  {NULL, n}, {"inputs=all-same,value=0", n}, {"inputs=all-same,value=255", n}
static const kl_test_problem tests[] = {
    HIST_TESTS(1),   HIST_TESTS(2),   HIST_TESTS(3),   HIST_TESTS(31),
    HIST_TESTS(32),  HIST_TESTS(33),  HIST_TESTS(255), HIST_TESTS(256),
    HIST_TESTS(257), HIST_TESTS(1000003),
    /* Unaligned starts: the head bytes before the first aligned word. */
    {"offset=1", 1}, {"offset=3", 33}, {"offset=7", 257},
    {"offset=15", 1000003}, {"offset=1,inputs=all-same,value=255", 100003},
    {NULL, 0}};
/* Past 2^32 bytes: 64-bit counts. */
static const kl_test_problem big_tests[] = {{NULL, 4294967311}, {NULL, 0}};

static const kl_input_hooks input = {
    .help = "counts the bytes of FILE: n is its size, and a file larger "
            "than memory runs in chunks",
    .load_chunk = load_chunk,
};

const kl_workload kl__workload_histogram = {
    .name = "histogram",
    .summary = "counts of the 256 byte values of a byte stream",
    .tolerance = "exact: every count equals a serial count of the same "
                 "bytes, and the counts add up to n",
    .source = "seed 001, An Example: Histogram",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = U8,
    .default_type = KL_U8,
    .params = params,
    .param_count = sizeof params / sizeof *params,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_read, NULL},
    .plan = plan,
    .init = init,
    .input = &input,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};

kl_status kl_histogram(kl_context *ctx, const void *data, int64_t n,
                       int data_on_device, uint64_t counts[256]) {
  if (n < 1)
    return kl__usage(KL_USAGE, "kl_histogram: n = %lld must be at least 1",
                     (long long)n);
  if (!counts) return kl__usage(KL_USAGE, "kl_histogram: counts is NULL");
  /* Below 2^32 bytes the rungs count in 32 bits: widened here. */
  uint32_t narrow[HIST_BINS];
  const int wide = kl__histogram_count_type(n) == KL_U64;
  kl_problem pb = {.size = sizeof pb,
                   .n = n, .type = KL_U8};
  void *buffers[2] = {(void *)data, wide ? (void *)counts : (void *)narrow};
  kl_status st = kl__run_library(ctx, &kl__workload_histogram, &pb,
                                 buffers, data_on_device);
  for (int b = 0; b < HIST_BINS && st == KL_OK && !wide; b++)
    counts[b] = narrow[b];
  return kl__done(st);
}
