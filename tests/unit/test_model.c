/* The model's parts that the five workloads do not all use, on a toy
 * workload defined here: parameters (-p text, ranges, choices), buffers in
 * every placement, scratch poisoned or zeroed and counted in the memory
 * check, INOUT buffers restored before every repetition, a rung that owns
 * its repetition loop and reports phases, and counts that reach the cost
 * model. Runs on the serial backend. And the model's tables as the
 * library's workloads fill them: the library rung of every workload,
 * backend and type (pinned), the ladders (serial first, unique names,
 * peers), and how many plans a run makes. */
#include <stdio.h>
#include <string.h>

#include "core/harness.h"
#include "expect.h"
#include "registry.h"

enum { X, STATE, Y, POISONED, ZEROED };
enum { P_N, P_MODE, P_SCALE, P_SCRATCH };
static const char *const modes[] = {"add", "double", NULL};

static kl_status plan(kl_plan *p) {
  const int64_t scratch = (int64_t)p->value[P_SCRATCH];
  p->buffer_count = 5;
  p->buffers[X] = (kl_buffer_spec){"x", KL_F64, p->n, KL_IN, KL_MEM_DEVICE, 0};
  p->buffers[STATE] = (kl_buffer_spec){"state", KL_F64, p->n, KL_INOUT,
                                       KL_MEM_PINNED, KL_BUFFER_RESTORED};
  p->buffers[Y] =
      (kl_buffer_spec){"y", KL_F64, p->n, KL_OUT, KL_MEM_PAGEABLE, 0};
  p->buffers[POISONED] = (kl_buffer_spec){"poisoned", KL_U8, scratch, KL_INOUT,
                                          KL_MEM_DEVICE, KL_BUFFER_SCRATCH};
  p->buffers[ZEROED] =
      (kl_buffer_spec){"zeroed", KL_U8, scratch, KL_INOUT, KL_MEM_DEVICE,
                       KL_BUFFER_SCRATCH | KL_BUFFER_ZEROED};
  return KL_OK;
}

static void init(const kl_plan *p, void *const *host) {
  for (int64_t i = 0; i < p->n; i++) {
    ((double *)host[X])[i] = (double)(i % 17);
    ((double *)host[STATE])[i] = 1000.0 + (double)i;
  }
}

/* y = f(x) + state as it was before the run; state += 1 each run. */
static double expected(const kl_plan *p, double x, double state) {
  const double s = p->value[P_SCALE];
  return ((int)p->value[P_MODE] == 1 ? 2 * x : x + s) + state;
}

static void element(const void *ctx, int64_t i, kl_element *e) {
  void *const *const *bufs = ctx;
  const kl_plan *p = (const kl_plan *)bufs[2];
  e->got = ((const double *)bufs[1][Y])[i];
  e->want = expected(p, ((const double *)bufs[0][X])[i],
                     ((const double *)bufs[0][STATE])[i]);
  e->tol = 0;
}

/* Every rung sees the scratch as the harness left it, and a state that
 * the reset put back: else it fails its run. */
static int runs_made;
static kl_status one_run(const kl_args *a) {
  const kl_plan *p = a->plan;
  const unsigned char *poison = a->buffers[POISONED], *zero = a->buffers[ZEROED];
  double *x = a->buffers[X], *state = a->buffers[STATE], *y = a->buffers[Y];
  for (int64_t i = 0; i < p->buffers[POISONED].count; i++)
    if (poison[i] != 0xFF || zero[i] != 0) return KL_DEVICE;
  for (int64_t i = 0; i < p->n; i++) {
    if (state[i] != 1000.0 + (double)i) return KL_DEVICE; /* not restored */
    y[i] = expected(p, x[i], state[i]);
    state[i] += 1;
  }
  a->counts[0] = 7;
  runs_made++;
  return KL_OK;
}

static const char *const phases[] = {"h2d", "kernel", NULL};

static kl_status own_loop(const kl_args *a, kl_reps *reps) {
  for (int r = 0; r < reps->count; r++) {
    kl_status st = a->reset(a);
    if (st == KL_OK) st = one_run(a);
    if (st != KL_OK) return st;
    reps->seconds[r] = 0.003 + 1e-6 * r;
    reps->phase_seconds[r * KL_MAX_PHASES + 0] = 0.001;
    reps->phase_seconds[r * KL_MAX_PHASES + 1] = 0.002;
  }
  return KL_OK;
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  void *const *ctx[3] = {in, out, (void *const *)p};
  kl__check_elements(p->n, element, ctx, v);
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r;
  c->bytes = 8.0 * (double)p->n * counts[0];
  c->flops = 0;
  c->items = counts[0];
}

static const char *const counts[] = {"iterations", NULL};

/* A ceiling computed from one measured in the same run: here the bytes a
 * run moves at the measured bandwidth, as cg's will be, in items/s. */
static double bound(const kl_result *r, double measured_gbs) {
  return r->cost.bytes > 0 ? measured_gbs / r->cost.bytes * r->cost.items
                           : 0;
}
static kl_rung rungs[2];
static const kl_param params[] = {
    [P_N] = {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
             .help = "elements", .default_value = 1000, .min = 1,
             .max = 0x1p40, .step = 1},
    [P_MODE] = {.name = "mode", .kind = KL_PARAM_CHOICE, .flags = KL_PARAM_OP,
                .help = "what f is", .choices = modes},
    [P_SCALE] = {.name = "scale", .kind = KL_PARAM_REAL, .help = "added",
                 .default_value = 0.5, .min = -10, .max = 10},
    [P_SCRATCH] = {.name = "scratch", .kind = KL_PARAM_SIZE,
                   .help = "scratch bytes", .default_value = 64, .min = 1,
                   .max = 0x1p62},
};

static const kl_workload toy = {
    .name = "toy", .summary = "the model's parts", .tolerance = "exact",
    .source = "tests/unit/test_model.c", .metric = KL_METRIC_GITEMS,
    .unit = "G/s", .types = KL_TYPE_BIT(KL_F64), .default_type = KL_F64,
    .params = params, .param_count = 4, .counts = counts,
    .ceiling = {KL_CEILING_BOUND, &kl__workload_stream, bound},
    .plan = plan, .init = init, .check = check, .cost = cost,
    .rungs = rungs, .rung_count = 2};

/* ---- chunks: a sum over a problem run in chunks -------------------------
 * x[i] = i + 1 over the whole problem, its chunks made one at a time; the
 * rung sums its chunk into the result, overwriting it on chunk 0. Past a
 * short last chunk the buffer holds poison that a rung must not read. */
enum { C_X, C_SUM };
enum { C_P_N, C_P_CHUNKS };
static int64_t chunk_runs, chunk_inputs_wrong;

static kl_status chunked_plan(kl_plan *p) {
  p->chunk_count = (int64_t)p->value[C_P_CHUNKS];
  if (p->chunk_count > p->n) p->chunk_count = p->n;
  p->buffer_count = 2;
  p->buffers[C_X] = (kl_buffer_spec){"x", KL_I64, kl__chunk_size(p), KL_IN,
                                     KL_MEM_DEVICE, 0};
  p->buffers[C_SUM] =
      (kl_buffer_spec){"sum", KL_I64, 1, KL_OUT, KL_MEM_DEVICE, 0};
  return KL_OK;
}

static void chunked_init(const kl_plan *p, void *const *host) {
  int64_t *x = host[C_X];
  for (int64_t i = 0; i < p->buffers[C_X].count; i++)
    x[i] = i < p->chunk_n ? kl__chunk_start(p) + i + 1 : -1000000;
}

static kl_status chunked_run(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t *x = a->buffers[C_X];
  int64_t *sum = a->buffers[C_SUM], s = 0;
  chunk_inputs_wrong += x[0] != kl__chunk_start(p) + 1;
  for (int64_t i = 0; i < p->chunk_n; i++) s += x[i];
  *sum = p->chunk == 0 ? s : *sum + s;
  chunk_runs++;
  return KL_OK;
}

static void chunked_element(const void *ctx, int64_t i, kl_element *e) {
  const kl_plan *p = ((const void *const *)ctx)[0];
  (void)i;
  e->got = *(const int64_t *)((const void *const *)ctx)[1];
  /* The check sees the outputs after the last chunk. */
  e->want = p->chunk == p->chunk_count - 1 ? p->n * (p->n + 1) / 2 : -1;
  e->tol = 0;
}

static void chunked_check(const kl_plan *p, const kl_rung *r, void *const *in,
                          void *const *out, kl_verdict *v) {
  (void)r, (void)in;
  const void *ctx[2] = {p, out[C_SUM]};
  kl__check_elements(1, chunked_element, ctx, v);
}

static void chunked_cost(const kl_plan *p, const kl_rung *r,
                         const double *counts, kl_cost *c) {
  (void)r, (void)counts;
  c->bytes = 8.0 * (double)p->n;
  c->flops = c->items = (double)p->n;
}

static kl_rung chunked_rungs[2];
static const kl_param chunked_params[] = {
    [C_P_N] = {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
               .help = "elements", .default_value = 1000, .min = 1,
               .max = 0x1p40, .step = 1},
    [C_P_CHUNKS] = {.name = "chunks", .kind = KL_PARAM_INT,
                    .help = "chunks a run makes", .default_value = 1,
                    .min = 1, .max = 64},
};

static const kl_workload chunked = {
    .name = "chunked", .summary = "a sum in chunks", .tolerance = "exact",
    .source = "tests/unit/test_model.c", .metric = KL_METRIC_GBS, .unit = "GB/s",
    .types = KL_TYPE_BIT(KL_I64), .default_type = KL_I64,
    .params = chunked_params, .param_count = 2,
    .plan = chunked_plan, .init = chunked_init, .check = chunked_check,
    .cost = chunked_cost, .rungs = chunked_rungs, .rung_count = 2};

static void test_chunks(const kl_backend *serial) {
  chunked_rungs[0] = (kl_rung){.name = "sum", .backend = serial,
                               .summary = "sums its chunk", .run = chunked_run};
  chunked_rungs[1] = (kl_rung){.name = "own-loop", .backend = serial,
                               .summary = "owns its loop",
                               .run_reps = own_loop};
  kl_report *rep = NULL;
  /* 1000 in chunks of 334, 334 and 332; 10 asked in 6 chunks is 5 of 2
   * (ceil(10/6) = 2 elements each, and no chunk is empty). */
  const struct {
    const char *params;
    int64_t chunks;
  } cases[] = {{"n=1000,chunks=3", 3}, {"n=1000,chunks=1", 1},
               {"n=7,chunks=7", 7}, {"n=2,chunks=5", 2},
               {"n=10,chunks=6", 5}, {"n=1000003,chunks=64", 64}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    kl_problem pb = {.size = sizeof pb, .type = KL_TYPE_DEFAULT,
                     .params = cases[c].params, .seed = 1};
    chunk_runs = chunk_inputs_wrong = 0;
    EXPECT(kl__run_one(NULL, &chunked, &chunked_rungs[0], &pb, 4, 2, &rep) ==
           KL_OK);
    const kl__result *res = rep ? &rep->results[0] : NULL;
    EXPECT(res && res->pub.check == KL_CHECK_PASS &&
           res->plan.chunk_count == cases[c].chunks);
    /* checked, warm-up, timed: each over every chunk */
    EXPECT(chunk_runs == (1 + 2 + 4) * cases[c].chunks);
    EXPECT(chunk_inputs_wrong == 0 && res && res->pub.t_min > 0);
    kl_report_free(rep);
  }
  /* A rung that owns its loop cannot be run chunk by chunk. */
  kl_problem pb = {.size = sizeof pb, .type = KL_TYPE_DEFAULT,
                   .params = "chunks=2", .seed = 1};
  EXPECT(kl__run_one(NULL, &chunked, &chunked_rungs[1], &pb, 1, 0, &rep) ==
             KL_UNAVAILABLE && rep &&
         strstr(kl_report_result(rep, 0)->error,
                "cannot run a problem in 2 chunks"));
  kl_report_free(rep);
}

/* kl_options.host_data on a backend whose memory is not the host's: a
 * stand-in for a GPU, the serial backend's functions with host_memory 0
 * and its copies counted, so that the copies a repetition makes can be
 * seen on a machine without one. */
static const kl_backend *fake_of;
static long fake_copies;
static kl_status fake_copy(kl_context *ctx, int stream, void *dst,
                           const void *src, size_t bytes) {
  fake_copies++;
  return fake_of->copy(ctx, stream, dst, src, bytes);
}

/* kl__measure of rung r of the chunked workload (`params`) on a context of
 * backend b, as kl_run's jobs are measured; *copies: those b made. */
static kl_status measure_how(const kl_backend *b, const kl_rung *r,
                             const char *params, const kl__timing *t,
                             kl__result *res, long *copies) {
  memset(res, 0, sizeof *res);
  kl__job job;
  memset(&job, 0, sizeof job);
  job.w = &chunked;
  job.r = r;
  job.ceiling = -1;
  kl_problem pb = {.size = sizeof pb, .type = KL_TYPE_DEFAULT,
                   .params = params, .seed = 1};
  kl_context ctx;
  kl_status st = kl__instance_from_problem(&chunked, &pb, &job.in);
  if (st == KL_OK)
    st = kl__plan_make(&chunked, r, &job.in, kl_backend_host_memory(b), NULL,
                       &job.plan, &job.problem_bytes);
  if (st == KL_OK) st = kl__context_open(b, 0, &ctx);
  if (st != KL_OK) return st;
  st = kl__enter(&ctx);
  fake_copies = 0;
  if (st == KL_OK) {
    st = kl__measure(&job, &ctx, t, NULL, NULL, res);
    kl__leave(&ctx);
  }
  *copies = fake_copies;
  kl__context_close(&ctx);
  return st;
}

static kl_status measure_chunked(const kl_backend *b, const kl_rung *r,
                                 const char *params, int host_data,
                                 kl__result *res, long *copies) {
  const kl__timing t = {.reps = 4, .warmup = 2, .host_data = host_data};
  return measure_how(b, r, params, &t, res, copies);
}

/* What stood ahead of a call of a rung's own loop (test_cold): a call
 * made right after kl_backend.ahead, and whether it asked for more than
 * one run. */
static int ahead_armed;
static long ahead_calls, ahead_batched;

/* The chunked sum, one problem of one chunk, in a loop of its own. */
static kl_status chunked_own_loop(const kl_args *a, kl_reps *reps) {
  if (ahead_armed) {
    ahead_calls++;
    ahead_batched += reps->count != 1;
    ahead_armed = 0;
  }
  for (int r = 0; r < reps->count; r++) {
    kl_status st = chunked_run(a);
    if (st != KL_OK) return st;
    reps->seconds[r] = 1e-6;
  }
  return KL_OK;
}

/* kl_options.cache cold: before each timed run, and only then, the
 * device's last-level cache flushed by writing twice its size; a rung
 * that owns its loop runs one run a call, the cache flushed between.
 * Counted on the serial backend's functions, its fills of that size
 * counted; where the host's cache size is not known, it runs warm. */
static size_t scrub_size;
static long scrubs;
static kl_status fake_fill(kl_context *ctx, kl_placement where, void *dst,
                           int byte, size_t bytes) {
  if (bytes > 0 && bytes == scrub_size) scrubs++;
  return fake_of->fill_bytes(ctx, where, dst, byte, bytes);
}

/* With kl_backend.ahead (with_ahead): the hook called before each timed
 * run and only then, warm (no buffer: the hold alone) or cold (the scrub
 * buffer, twice the cache, which the hook writes: the harness then writes
 * none itself); a rung that owns its loop called for one run after each. */
static long aheads, ahead_scrubs;
static size_t ahead_bytes;
static kl_status fake_ahead(kl_context *ctx, void *buf, size_t bytes) {
  (void)ctx;
  aheads++;
  if (buf) {
    ahead_scrubs++;
    ahead_bytes = bytes;
  }
  ahead_armed = 1;
  return KL_OK;
}

static void test_cold(const kl_backend *serial, int with_ahead) {
  kl_backend fake = *serial;
  fake.name = with_ahead ? "fake-ahead" : "fake-cold";
  fake.fill_bytes = fake_fill;
  fake.ahead = with_ahead ? fake_ahead : NULL;
  fake_of = serial;
  kl_context ctx;
  if (kl__context_open(&fake, 0, &ctx) != KL_OK) {
    EXPECT(!"a context of the serial backend's functions");
    return;
  }
  const int64_t cache = ctx.device.cache_bytes;
  kl__context_close(&ctx);
  scrub_size = 2 * (size_t)cache;
  const kl_rung sum = {.name = "sum", .backend = &fake,
                       .summary = "sums its chunk", .run = chunked_run};
  const kl_rung own = {.name = "own-loop", .backend = &fake,
                       .summary = "owns its loop",
                       .run_reps = chunked_own_loop};
  const kl_rung *rungs[] = {&sum, &own};
  for (int k = 0; k < 2; k++)
    for (int cold = 0; cold < 2; cold++) {
      const kl__timing t = {.reps = 4, .warmup = 2, .cold = cold};
      kl__result res;
      long copies = 0;
      scrubs = aheads = ahead_scrubs = ahead_calls = ahead_batched = 0;
      ahead_bytes = 0;
      ahead_armed = 0;
      EXPECT(measure_how(&fake, rungs[k], "n=1000", &t, &res, &copies) ==
                 KL_OK &&
             res.pub.check == KL_CHECK_PASS && res.pub.reps == 4);
      const int flushed = cold && cache > 0;
      EXPECT(res.pub.cache == (flushed ? KL_CACHE_COLD : KL_CACHE_WARM));
      if (!with_ahead) {
        EXPECT(scrubs == (flushed ? 4 : 0) && aheads == 0);
      } else {
        EXPECT(aheads == 4 && scrubs == 0);
        EXPECT(ahead_scrubs == (flushed ? 4 : 0));
        EXPECT(!flushed || ahead_bytes == scrub_size);
        EXPECT(rungs[k] != &own || (ahead_calls == 4 && ahead_batched == 0));
      }
      kl__result_free(&res);
    }
  if (cache <= 0) printf("cold: the host's cache size is not known here\n");
  if (!with_ahead) return;
  /* A run timed in part on the host's clock (a library call on host data
   * on a device's memory; a rung with phases) queues nothing ahead: the
   * flush is written and waited for as without the hook. */
  static const char *const named[] = {"work", NULL};
  const kl_rung phased = {.name = "phased", .backend = &fake,
                          .summary = "has phases", .run = chunked_run,
                          .phases = named};
  kl_backend device = fake;
  device.host_memory = 0;
  device.copy = fake_copy;
  const kl_rung on_device = {.name = "sum", .backend = &device,
                             .summary = "sums its chunk", .run = chunked_run};
  for (int k = 0; k < 2; k++) {
    const kl__timing t = {.reps = 4, .warmup = 2, .cold = 1,
                          .host_data = k == 1};
    kl__result res;
    long copies = 0;
    scrubs = aheads = 0;
    EXPECT(measure_how(k ? &device : &fake, k ? &on_device : &phased,
                       "n=1000", &t, &res, &copies) == KL_OK &&
           res.pub.check == KL_CHECK_PASS && res.pub.reps == 4);
    EXPECT(aheads == 0 && scrubs == (cache > 0 ? 4 : 0));
    kl__result_free(&res);
  }
  ahead_armed = 0;
}

static void test_host_data(const kl_backend *serial) {
  kl_backend fake = *serial;
  fake.name = "fake-device";
  fake.host_memory = 0;
  fake.copy = fake_copy;
  fake_of = serial;
  const kl_rung sum = {.name = "sum", .backend = &fake,
                       .summary = "sums its chunk", .run = chunked_run};
  const kl_rung own = {.name = "own-loop", .backend = &fake,
                       .summary = "owns its loop",
                       .run_reps = chunked_own_loop};
  kl__result res;
  long copies = -1;
  /* Without it: x uploaded once, the sum downloaded once for the check. */
  chunk_runs = chunk_inputs_wrong = 0;
  EXPECT(measure_chunked(&fake, &sum, "n=1000", 0, &res, &copies) == KL_OK &&
         res.pub.check == KL_CHECK_PASS && copies == 2);
  kl__result_free(&res);
  /* With it: each warm-up and timed run also uploads x and downloads the
   * sum; the checked run does not. */
  chunk_runs = chunk_inputs_wrong = 0;
  EXPECT(measure_chunked(&fake, &sum, "n=1000", 1, &res, &copies) == KL_OK &&
         res.pub.check == KL_CHECK_PASS && res.pub.reps == 4 &&
         res.pub.t_min > 0 && copies == 2 + 2 * (2 + 4) &&
         chunk_runs == 1 + 2 + 4 && chunk_inputs_wrong == 0);
  kl__result_free(&res);
  /* What cannot be timed with its copies stands aside, saying why. */
  EXPECT(measure_chunked(&fake, &own, "n=1000", 1, &res, &copies) ==
             KL_UNAVAILABLE &&
         strstr(res.pub.error, "owns its repetition loop") && copies == 0);
  kl__result_free(&res);
  EXPECT(measure_chunked(&fake, &sum, "n=1000,chunks=2", 1, &res, &copies) ==
             KL_UNAVAILABLE &&
         strstr(res.pub.error, "a problem in 2 chunks") && copies == 0);
  kl__result_free(&res);
  /* On a host backend it changes nothing. */
  const kl_rung host_own = {.name = "own-loop", .backend = serial,
                            .summary = "owns its loop",
                            .run_reps = chunked_own_loop};
  EXPECT(measure_chunked(serial, &host_own, "n=1000", 1, &res, &copies) ==
             KL_OK &&
         res.pub.check == KL_CHECK_PASS);
  kl__result_free(&res);
}

/* A BOUND ceiling (the toy's): the result's rate measured against what
 * bound() makes of the figure measured for stream's ceiling rung, as the
 * ceiling policy relates a run's results (kl__ceiling_relate); a RUNG
 * ceiling (map's) is that figure itself; no figure (the ceiling rung
 * failed) is no ceiling, and a note says why. */
static void test_bound_ceiling(const kl__result *toy_result) {
  const kl_workload *stream = kl_workload_find("stream");
  const kl_workload *map = kl_workload_find("map");
  EXPECT(stream && map);
  if (!stream || !map) return;
  const kl_rung *copy = kl_rung_find(stream, "serial-copy");
  const struct {
    const kl_workload *w;
    double measured;
    kl_status ceiling_status;
    double want;
  } cases[] = {
      /* 100 GB/s measured for 8*513*7 bytes and 7 items a run gives 7
       * items per 28728 bytes, 0.0244 G items/s. */
      {&toy, 100, KL_OK, 100.0 / (8.0 * 513 * 7) * 7},
      {&toy, 100, KL_DEVICE, 0},
      {NULL, 100, KL_OK, 100}, /* map */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    const kl_workload *w = cases[c].w ? cases[c].w : map;
    kl_options o;
    kl_options_init(&o);
    kl_report *rep = NULL;
    EXPECT(kl__report_new(&o, 2, &rep) == KL_OK && rep);
    if (!rep) return;
    kl__job job[2];
    job[0] = (kl__job){.w = stream, .r = copy, .is_ceiling = 1, .ceiling = -1};
    job[1] = (kl__job){.w = w, .r = w == &toy ? &rungs[0] : &map->rungs[0],
                       .ceiling = 0};
    job[1].in.n = 513;
    kl__result_init(&rep->results[0], stream, copy, 0, NULL);
    kl__result_init(&rep->results[1], w, job[1].r, 0, NULL);
    rep->count = 2;
    kl_result *ceil = &rep->results[0].pub, *res = &rep->results[1].pub;
    ceil->status = cases[c].ceiling_status;
    ceil->check = KL_CHECK_PASS;
    ceil->merit = cases[c].measured;
    ceil->t_median = 1;
    /* The toy's run: its cost, as measured above. */
    res->status = KL_OK;
    res->check = KL_CHECK_PASS;
    res->cost = toy_result->pub.cost;
    res->t_median = 1;
    res->merit = 0.01;
    const kl__jobs jobs = {job, 2, 2};
    kl__ceiling_relate(&jobs, rep);
    printf("%s against stream's copy at %g GB/s (status %s): ceiling %g, "
           "note %s\n", w->name, cases[c].measured,
           kl_status_name(cases[c].ceiling_status), res->ceiling,
           res->ceiling_note ? res->ceiling_note : "none");
    EXPECT(res->ceiling == cases[c].want);
    EXPECT(cases[c].want > 0 ? res->percent == 100.0 * 0.01 / cases[c].want
                             : res->percent == 0 && res->ceiling_note &&
                                   strstr(res->ceiling_note,
                                          "its ceiling rung did not pass"));
    kl_report_free(rep);
  }
}

/* The rung marked for the library's use, "" for none, or "(several)". */
static const char *library_rung(const kl_workload *w, const kl_backend *b,
                                kl_type t) {
  const char *found = "";
  for (size_t i = 0; i < w->rung_count; i++) {
    const kl_rung *r = &w->rungs[i];
    if (r->backend != b || !(r->library & KL_TYPE_BIT(t))) continue;
    if (found[0]) return "(several)";
    found = r->name;
  }
  return found;
}

/* The library's rung of each workload, backend and type: the rung that
 * kl_reduce, kl_gemm and the other entry points run there, the fastest
 * hand-written rung measured on the H100 (each workload's LESSONS.md says
 * why it is the one). One line per choice: a change of choice
 * is a change of one line. Every workload, backend and offered type not
 * listed has no library rung (stream has none anywhere). "cuda" is the GPU
 * backend, whatever its name in this build (hip). */
#define I32 KL_TYPE_BIT(KL_I32)
#define F32 KL_TYPE_BIT(KL_F32)
#define F64 KL_TYPE_BIT(KL_F64)
#define U8 KL_TYPE_BIT(KL_U8)
static const struct {
  const char *workload, *backend;
  unsigned types; /* KL_TYPE_BIT set */
  const char *rung;
} library[] = {
    {"map", "serial", F32, "serial"},
    {"map", "openmp", F32, "openmp"},
    {"map", "cuda", F32, "cuda-vec4"},
    {"reduce", "serial", I32 | F32 | F64, "serial"},
    {"reduce", "openmp", I32 | F32 | F64, "openmp-partials"},
    {"reduce", "cuda", I32 | F32 | F64, "cuda-best"},
    {"histogram", "serial", U8, "serial"},
    {"histogram", "openmp", U8, "openmp-blocks"},
    {"histogram", "cuda", U8, "cuda-best"},
    {"laplacian", "serial", F32 | F64, "serial"},
    {"laplacian", "openmp", F32 | F64, "openmp-streaming"},
    {"laplacian", "cuda", F32 | F64, "cuda-zmarch-prefetch"},
    {"cg", "serial", F64, "serial"},
    {"cg", "openmp", F64, "openmp"},
    {"cg", "cuda", F64, "cuda-graph"},
    {"integrate", "serial", F32 | F64, "serial"},
    {"integrate", "openmp", F32 | F64, "openmp"},
    {"integrate", "cuda", F32 | F64, "cuda-best"},
    {"gemm", "serial", F32 | F64, "serial-loop-order"},
    {"gemm", "openmp", F32 | F64, "openmp-blocked"},
    {"gemm", "cuda", F64, "cuda-dmma"},
    {"gemm", "cuda", F32, "cuda-pipelined"},
    {"map", "openacc", F32, "openacc"},
    {"reduce", "openacc", I32 | F32 | F64, "openacc-gangs"},
    {"laplacian", "openacc", F32 | F64, "openacc"},
    {"cg", "openacc", F64, "openacc-tuned"},
    /* PoCL, 16M f64: 31.1 GB/s against opencl-tree's 30.5 (reduce's
     * LESSONS.md). */
    {"reduce", "opencl", I32 | F32 | F64, "opencl-one-pass"},
};
#define LIBRARY_COUNT (sizeof library / sizeof *library)
#undef I32
#undef F32
#undef F64
#undef U8

/* A backend of the table by name; "cuda" is the GPU backend of any build. */
static const kl_backend *table_backend(const char *name) {
  const kl_backend *b = kl_backend_find(name);
  if (!b && strcmp(name, "cuda") == 0) b = kl_backend_find("hip");
  return b;
}

/* The pinned choice for a workload, backend and type: "" when none. */
static const char *pinned_rung(const kl_workload *w, const kl_backend *b,
                               kl_type t) {
  for (size_t i = 0; i < LIBRARY_COUNT; i++)
    if (strcmp(library[i].workload, w->name) == 0 &&
        table_backend(library[i].backend) == b &&
        (library[i].types & KL_TYPE_BIT(t)))
      return library[i].rung;
  return "";
}

static void test_library_rungs(void) {
  /* The table itself: each line names a workload, a backend, types the
   * workload offers and a rung of that backend; no two lines pin one
   * workload, backend and type. */
  for (size_t i = 0; i < LIBRARY_COUNT; i++) {
    const kl_workload *w = kl_workload_find(library[i].workload);
    const kl_backend *b = table_backend(library[i].backend);
    EXPECT(w && b);
    if (!w || !b) continue;
    EXPECT(library[i].types != 0 && (library[i].types & ~w->types) == 0);
    const kl_rung *r = kl_rung_find(w, library[i].rung);
    EXPECT(r && r->backend == b);
    for (size_t j = i + 1; j < LIBRARY_COUNT; j++)
      EXPECT(!(strcmp(library[j].workload, w->name) == 0 &&
               table_backend(library[j].backend) == b &&
               (library[j].types & library[i].types)));
  }
  /* Every workload, backend and type the workload offers: at most one
   * library rung, and exactly the pinned one ("" where none is). */
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    for (size_t k = 0; k < kl_backend_count(); k++) {
      const kl_backend *b = kl_backend_at(k);
      for (int t = 0; t < KL_TYPE_COUNT; t++) {
        if (!(w->types & KL_TYPE_BIT(t))) continue;
        const char *got = library_rung(w, b, (kl_type)t);
        const char *want = pinned_rung(w, b, (kl_type)t);
        if (strcmp(got, want) != 0)
          printf("library rung of %s on %s for %s: '%s', pinned '%s'\n",
                 w->name, b->name, kl_type_name((kl_type)t), got, want);
        EXPECT(strcmp(got, "(several)") != 0);
        EXPECT(strcmp(got, want) == 0);
      }
    }
    /* A library rung is hand-written and right, and runs the types it is
     * the library's rung for. */
    for (size_t r = 0; r < w->rung_count; r++) {
      const kl_rung *rung = &w->rungs[r];
      if (!rung->library) continue;
      EXPECT(!(rung->flags & (KL_RUNG_VENDOR | KL_RUNG_KNOWN_WRONG)));
      EXPECT((rung->library & ~w->types) == 0);
      EXPECT(rung->types == 0 || (rung->library & ~rung->types) == 0);
    }
  }
  /* stream has no library rung, for any type. */
  const kl_workload *stream = kl_workload_find("stream");
  EXPECT(stream != NULL);
  for (size_t r = 0; stream && r < stream->rung_count; r++)
    EXPECT(stream->rungs[r].library == 0);
}

/* Every workload's ladder starts on the serial backend, so speedups are
 * over the plain loop; every rung name is unique in its ladder; a peer is
 * a rung of the same ladder on another backend; a fallback is a
 * hand-written rung of the same ladder and backend that runs every type
 * the rung runs, and following fallbacks from any rung ends (no loop). */
static void test_ladders(void) {
  const kl_backend *serial = kl_backend_find("serial");
  EXPECT(serial && kl_backend_available(serial, NULL, 0));
  EXPECT(kl_workload_find("map") && kl_workload_find("stream"));
  EXPECT(kl_workload_find("nope") == NULL);
  const kl_workload *map = kl_workload_find("map");
  EXPECT(map && kl_rung_find(map, "serial") && !kl_rung_find(map, "fast"));
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    EXPECT(w->rung_count > 0 && w->rungs[0].backend == serial);
    for (size_t a = 0; a < w->rung_count; a++)
      for (size_t b = a + 1; b < w->rung_count; b++)
        EXPECT(strcmp(w->rungs[a].name, w->rungs[b].name) != 0);
    for (size_t a = 0; a < w->rung_count; a++) {
      const kl_rung *peer = w->rungs[a].peer
                                ? kl_rung_find(w, w->rungs[a].peer)
                                : NULL;
      EXPECT(!w->rungs[a].peer ||
             (peer && peer->backend != w->rungs[a].backend));
      const kl_rung *f = w->rungs[a].fallback
                             ? kl_rung_find(w, w->rungs[a].fallback)
                             : NULL;
      EXPECT(!w->rungs[a].fallback ||
             (f && f != &w->rungs[a] && f->backend == w->rungs[a].backend &&
              !(f->flags & (KL_RUNG_VENDOR | KL_RUNG_KNOWN_WRONG)) &&
              (f->types == 0 ||
               (w->rungs[a].types != 0 &&
                (w->rungs[a].types & ~f->types) == 0))));
      size_t steps = 0;
      for (const kl_rung *at = &w->rungs[a];
           at && at->fallback && steps <= w->rung_count; steps++)
        at = kl_rung_find(w, at->fallback);
      EXPECT(steps <= w->rung_count);
    }
  }
  EXPECT(kl_workload_at(kl_workload_count()) == NULL);
}

/* The model's required parts (model.h marks them): every workload and
 * every rung has them, the optional ones are consistent where given, and a
 * retired name is not also a rung's. Backends likewise. */
static void test_required_parts(void) {
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    EXPECT(w->name && w->summary && w->tolerance && w->source && w->unit);
    EXPECT(w->types != 0 && (w->types & KL_TYPE_BIT(w->default_type)));
    EXPECT(w->plan && w->init && w->check && w->cost && w->rungs &&
           w->rung_count > 0);
    int mains = 0;
    for (int k = 0; k < w->param_count; k++) {
      const kl_param *q = &w->params[k];
      mains += (q->flags & KL_PARAM_MAIN_SIZE) != 0;
      EXPECT(q->name && q->help);
      EXPECT(q->kind != KL_PARAM_CHOICE || q->choices);
      /* A tuning is no size, extent or role of the problem. */
      EXPECT(!(q->flags & KL_PARAM_TUNING) ||
             !(q->flags & (KL_PARAM_MAIN_SIZE | KL_PARAM_EXTENT |
                           KL_PARAM_OP | KL_PARAM_INPUTS)));
    }
    EXPECT(mains == 1 && w->param_count <= KL_MAX_PARAMS);
    EXPECT(!w->input || (w->input->help && w->input->load_chunk));
    /* Named files: at most KL_MAX_FILES, each a word of its own with its
     * help; one to write has its writer, one to read none. */
    const kl_named_file *f = w->input ? w->input->files : NULL;
    int file_count = 0;
    for (; f && f[file_count].name; file_count++) {
      const kl_named_file *g = &f[file_count];
      EXPECT(file_count < KL_MAX_FILES && g->name[0] && g->help &&
             strcspn(g->name, " ,=/") == strlen(g->name));
      EXPECT(g->role == KL_IN ? !g->write
                              : g->role == KL_OUT && g->write != NULL);
      for (int k = 0; k < file_count; k++)
        EXPECT(strcmp(f[k].name, g->name) != 0);
    }
    for (size_t r = 0; r < w->rung_count; r++) {
      const kl_rung *g = &w->rungs[r];
      EXPECT(g->name && g->backend && g->summary);
      /* A rung reads only tunings of its workload. */
      for (int k = 0; k < 64; k++)
        if (g->tunings >> k & 1)
          EXPECT(k < w->param_count &&
                 (w->params[k].flags & KL_PARAM_TUNING));
      /* A rung in a family of one backend sets none of its family's
       * hooks again: its own are only where it differs; and its hooks
       * are its own, else its family's. */
      const kl_rung_family *fam = g->family;
      if (fam) {
        for (size_t o = 0; o < w->rung_count; o++)
          if (w->rungs[o].family == fam)
            EXPECT(w->rungs[o].backend == g->backend);
        EXPECT(!g->scratch || !fam->scratch || g->scratch != fam->scratch);
        EXPECT(!g->setup || !fam->setup || g->setup != fam->setup);
        EXPECT(!g->teardown || !fam->teardown ||
               g->teardown != fam->teardown);
      }
      EXPECT(kl_rung_setup(g) == (g->setup ? g->setup
                                  : fam     ? fam->setup
                                            : NULL));
      EXPECT(kl_rung_teardown(g) == (g->teardown ? g->teardown
                                     : fam        ? fam->teardown
                                                  : NULL));
      EXPECT(kl_rung_scratch(g) == (g->scratch ? g->scratch
                                    : fam       ? fam->scratch
                                                : NULL));
    }
    for (const kl_retired_rung *old = w->retired; old && old->name; old++)
      EXPECT(old->now && !kl_rung_find(w, old->name));
  }
  for (size_t i = 0; i < kl_backend_count(); i++) {
    const kl_backend *b = kl_backend_at(i);
    EXPECT(b->name && b->summary && b->probe);
    if (!kl_backend_available(b, NULL, 0)) continue;
    EXPECT(b->memory && b->open && b->close && b->alloc && b->release &&
           b->copy && b->fill_bytes && b->sync && b->record && b->elapsed);
    EXPECT(kl_backend_devices(b) >= 1);
  }
}

/* Every enum outside its range gets its own word. */
static void test_enum_names(void) {
  EXPECT(strcmp(kl_placement_name(KL_MEM_PINNED), "pinned") == 0 &&
         strcmp(kl_placement_name((kl_placement)9), "(not a placement)") == 0);
}

/* How many plans a run makes (kl__plans_made counts this thread's): each
 * once. A run of reduce's openmp-partials on 1M elements needs one plan
 * for the rung's job and, for its ceiling (stream's copy on openmp), at
 * most two: stream at its default size and at the size that holds
 * reduce's bytes. Two rungs on two backends: 2 jobs, 2 ceilings of at most
 * two plans each. */
static long plans_of_run(const char *rungs, const char *backends) {
  kl_options o;
  kl_options_init(&o);
  o.workloads = "reduce";
  o.rungs = rungs;
  o.backends = backends;
  o.n = 1048576;
  o.reps = 1;
  o.warmup = 0;
  kl_report *rep = NULL;
  const long before = kl__plans_made();
  const kl_status st = kl_run(&o, &rep);
  const long made = kl__plans_made() - before;
  printf("plans made by a run of reduce %s on %s, n = 1M: %ld (%s, %zu "
         "results)\n", rungs, backends, made, kl_status_name(st),
         kl_report_count(rep));
  EXPECT(st == KL_OK && rep);
  for (size_t i = 0; i < kl_report_count(rep); i++)
    EXPECT(kl_report_result(rep, i)->check == KL_CHECK_PASS);
  kl_report_free(rep);
  return made;
}

/* Quick sizes past the caches: for each workload whose main size asks for
 * it (kl_param.cache_multiple), the quick size sizing picks for a serial
 * rung is at least its constant quick host default, and its plan holds
 * that many times the host's last-level cache, or it is the workload's
 * full default, or memory made it smaller (a note says so). */
static void test_quick_past_caches(void) {
  const kl_backend *serial = kl_backend_find("serial");
  int checked = 0;
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    const int main_size = kl__param_with(w, KL_PARAM_MAIN_SIZE);
    if (main_size < 0 || w->params[main_size].cache_multiple <= 0) continue;
    const kl_param *p = &w->params[main_size];
    const kl_rung *r = NULL;
    for (size_t j = 0; j < w->rung_count && !r; j++)
      if (w->rungs[j].backend == serial) r = &w->rungs[j];
    EXPECT(r != NULL);
    if (!r) continue;
    kl_options o;
    kl_options_init(&o);
    char note[512] = "";
    kl__instance in;
    kl_plan plan;
    double bytes = 0;
    const kl__placed placed = {r, 0};
    kl_status st = kl__instance_from_options(&o, w, 0, NULL, &in, 1, note,
                                             sizeof note);
    if (st == KL_OK)
      st = kl__fit_default_size(NULL, w, &in, &placed, 1, 1, note,
                                sizeof note);
    const int64_t n = kl__instance_size(w, &in, 1);
    if (st == KL_OK) st = kl__plan_make(w, r, &in, 1, NULL, &plan, NULL);
    if (st == KL_OK) st = kl__plan_bytes(&plan, &bytes);
    /* The host's cache as quick sizes count it, a note saying so where
     * that is less than its last-level cache (host.c). */
    const kl_device *d = kl__device_at(serial, 0);
    EXPECT(d != NULL);
    if (!d) continue;
    const double times = kl__host_cache_multiple(
        d->cache_bytes, d->compute_units, p->cache_multiple);
    const double want = times * (double)d->cache_bytes;
    EXPECT(times >= p->cache_multiple ||
           strstr(note, "Host quick sizes go past"));
    printf("%s quick on the host: n = %lld, %.0f MB in its plan, %.0f MB "
           "wanted%s%s\n", w->name, (long long)n, bytes / 1e6, want / 1e6,
           note[0] ? ": " : "", note);
    EXPECT(st == KL_OK);
    EXPECT(n >= (int64_t)p->quick_host_default);
    EXPECT(bytes >= want || n == (int64_t)p->default_value ||
           strstr(note, "to fit in"));
    checked++;
  }
  EXPECT(checked >= 5);
}

/* How many times its cache a host's quick sizes go past: the workload's
 * multiple, but once where the cache is more than KL__CACHE_THREAD_MOST a
 * hardware thread (a 2-core virtual machine shown its host's 260 MB L3);
 * the same answer every time it is asked. */
static void test_cache_multiple(void) {
  const int64_t mib = (int64_t)1 << 20;
  EXPECT(kl__host_cache_multiple(260 * mib, 2, 4) == 1);
  EXPECT(kl__host_cache_multiple(315 * mib, 16, 4) == 4);
  EXPECT(kl__host_cache_multiple(32 * mib, 1, 4) == 4);
  EXPECT(kl__host_cache_multiple(32 * mib + 1, 1, 4) == 1);
  EXPECT(kl__host_cache_multiple(64 * mib, 0, 4) == 1); /* 0 threads: 1 */
  EXPECT(kl__host_cache_multiple(260 * mib, 2, 0.5) == 0.5);
  /* A stacked-cache part's 24 MB a thread is its own. */
  EXPECT(kl__host_cache_multiple(768 * mib, 32, 4) == 4);
}

static void test_plan_counts(void) {
  const long one = plans_of_run("openmp-partials", "openmp");
  EXPECT(one >= 1 && one <= 3);
  const long two = plans_of_run("serial,openmp-partials", "serial,openmp");
  EXPECT(two >= 2 && two <= 2 + 2 * 2);
}

/* The host's large blocks while a run is open (host.c): a released one
 * comes back for a request it holds (the smallest that does), a small one
 * is never kept, a request that none serves frees kept ones until the
 * memory held is under the most the live blocks held, and the last close
 * frees the rest; with no run open, nothing is kept. A sanitizer build
 * keeps nothing at all. */
static void test_host_pool(void) {
  const size_t mib = (size_t)1 << 20;
  void *a = NULL;
  EXPECT(kl__host_pool_bytes() == 0);
  EXPECT(kl__host_alloc(&a, 4 * mib) == KL_OK && a);
  kl__host_release(a);
  EXPECT(kl__host_pool_bytes() == 0);
  kl__host_pool_open();
  kl__host_pool_open(); /* opens nest */
  kl__host_pool_close();
  EXPECT(kl__host_alloc(&a, 8 * mib) == KL_OK && a);
  memset(a, 1, 8 * mib);
  kl__host_release(a);
#if defined(__SANITIZE_ADDRESS__)
  EXPECT(kl__host_pool_bytes() == 0);
#else
  void *b = NULL, *c = NULL;
  EXPECT(kl__host_pool_bytes() == 8 * mib);
  EXPECT(kl__host_alloc(&b, 6 * mib) == KL_OK && b == a);
  EXPECT(kl__host_pool_bytes() == 0);
  kl__host_release(b);
  EXPECT(kl__host_alloc(&c, mib) == KL_OK && c != a); /* small: apart */
  kl__host_release(c);
  EXPECT(kl__host_pool_bytes() == 8 * mib);
  /* 2 MiB: the kept 8 holds it. */
  EXPECT(kl__host_alloc(&c, 2 * mib) == KL_OK && c == a);
  EXPECT(kl__host_pool_bytes() == 0);
  /* 8 MiB beside it: none kept serves, and none is kept to free. */
  EXPECT(kl__host_alloc(&b, 8 * mib) == KL_OK && b && b != a);
  kl__host_release(c);
  EXPECT(kl__host_pool_bytes() == 8 * mib);
  /* 12 MiB: 8 kept and 8 live, 8 + 8 + 12 past the 16 the live blocks
   * held at most, so the kept 8 goes. */
  EXPECT(kl__host_alloc(&c, 12 * mib) == KL_OK && c);
  EXPECT(kl__host_pool_bytes() == 0);
  kl__host_release(c);
  kl__host_release(b);
  EXPECT(kl__host_pool_bytes() == 20 * mib);
#endif
  kl__host_pool_close();
  EXPECT(kl__host_pool_bytes() == 0);
}

/* A context keeps a library call's blocks for the next (context.c): a
 * kept block serves a request it holds that is at least half its size, of
 * its placement, the smallest such first; the oldest go when more are
 * kept than the context holds; a block above KL__KEPT_BYTES is not kept;
 * every kept block is freed when the context closes (the sanitizer
 * build's leak check sees any left). */
static void test_kept_blocks(const kl_backend *serial) {
  kl_context ctx;
  void *b = NULL, *c = NULL, *d = NULL;
  size_t gb = 0, gc = 0, gd = 0;
  EXPECT(kl__context_open(serial, 0, &ctx) == KL_OK);
  EXPECT(kl__enter(&ctx) == KL_OK);
  EXPECT(kl__context_take(&ctx, KL_MEM_DEVICE, 4096, &b, &gb) == KL_OK && b &&
         gb == 4096);
  kl__context_keep(&ctx, KL_MEM_DEVICE, b, gb);
  EXPECT(kl__context_take(&ctx, KL_MEM_DEVICE, 3000, &d, &gd) == KL_OK &&
         d == b && gd == 4096);
  /* Taken: a second request of its size gets a block of its own. */
  EXPECT(kl__context_take(&ctx, KL_MEM_DEVICE, 3000, &c, &gc) == KL_OK && c &&
         c != b && gc == 3000);
  kl__context_keep(&ctx, KL_MEM_DEVICE, b, gb);
  kl__context_keep(&ctx, KL_MEM_DEVICE, c, gc);
  /* 1000 bytes: both kept blocks more than twice as large. */
  EXPECT(kl__context_take(&ctx, KL_MEM_DEVICE, 1000, &d, &gd) == KL_OK && d &&
         d != b && d != c && gd == 1000);
  kl__context_keep(&ctx, KL_MEM_DEVICE, d, gd);
  /* Another placement: none of these. */
  EXPECT(kl__context_take(&ctx, KL_MEM_PINNED, 3000, &d, &gd) == KL_OK && d &&
         d != b && d != c && gd == 3000);
  kl__context_keep(&ctx, KL_MEM_PINNED, d, gd);
  /* The smallest that holds it: c (3000) before b (4096). */
  EXPECT(kl__context_take(&ctx, KL_MEM_DEVICE, 2900, &d, &gd) == KL_OK &&
         d == c && gd == 3000);
  kl__context_keep(&ctx, KL_MEM_DEVICE, d, gd);
  /* KL__KEPT_BLOCKS more kept: the four before go, c among them, so that
   * 2900 bytes are allocated anew. */
  void *live[KL__KEPT_BLOCKS];
  for (int i = 0; i < KL__KEPT_BLOCKS; i++)
    EXPECT(kl__context_take(&ctx, KL_MEM_PAGEABLE, 64, &live[i], &gd) ==
               KL_OK && live[i]);
  for (int i = 0; i < KL__KEPT_BLOCKS; i++)
    kl__context_keep(&ctx, KL_MEM_PAGEABLE, live[i], 64);
  EXPECT(kl__context_take(&ctx, KL_MEM_DEVICE, 2900, &d, &gd) == KL_OK && d &&
         gd == 2900);
  kl__context_keep(&ctx, KL_MEM_DEVICE, d, gd);
  /* Above KL__KEPT_BYTES: freed at once, not kept. */
  EXPECT(kl__context_take(&ctx, KL_MEM_PAGEABLE, KL__KEPT_BYTES + 1, &d,
                          &gd) == KL_OK && d);
  kl__context_keep(&ctx, KL_MEM_PAGEABLE, d, gd);
  EXPECT(kl__context_take(&ctx, KL_MEM_PAGEABLE, KL__KEPT_BYTES / 2 + 1, &d,
                          &gd) == KL_OK && d && gd == KL__KEPT_BYTES / 2 + 1);
  kl__context_keep(&ctx, KL_MEM_PAGEABLE, d, gd);
  kl__leave(&ctx);
  kl__context_close(&ctx);
}

int main(void) {
  const kl_backend *serial = kl_backend_find("serial");
  rungs[0] = (kl_rung){.name = "harness-loop", .backend = serial,
                       .summary = "timed by the harness", .run = one_run};
  rungs[1] = (kl_rung){.name = "own-loop", .backend = serial,
                       .summary = "owns its loop", .run_reps = own_loop,
                       .phases = phases};
  kl_report *rep = NULL;
  kl_problem pb = {.size = sizeof pb, .n = 513, .type = KL_TYPE_DEFAULT,
                   .params = "mode=double,scale=-2.5", .seed = 1};
  runs_made = 0;
  EXPECT(kl__run_one(NULL, &toy, &rungs[0], &pb, 5, 2, &rep) == KL_OK && rep);
  if (!rep) return 1;
  const kl__result *res = &rep->results[0];
  EXPECT(res->pub.check == KL_CHECK_PASS && res->pub.verdict.checked == 513);
  EXPECT(runs_made == 1 + 2 + 5); /* checked, warm-up, timed: each restored */
  EXPECT(res->plan.value[P_MODE] == 1 && res->plan.value[P_SCALE] == -2.5);
  EXPECT(res->pub.counts[0] == 7 && res->pub.cost.items == 7 &&
         res->pub.phase_count == 0);
  EXPECT(res->pub.count_count == 1 &&
         strcmp(res->pub.count_names[0], "iterations") == 0);
  EXPECT(strcmp(res->pub.op, "double") == 0 &&
         strcmp(res->pub.params, "mode=double;scale=-2.5;scratch=64") == 0);
  EXPECT(res->w == &toy && res->r == &rungs[0] &&
         strcmp(res->pub.rung, "harness-loop") == 0);
  kl_report_free(rep);

  runs_made = 0;
  EXPECT(kl__run_one(NULL, &toy, &rungs[1], &pb, 4, 1, &rep) == KL_OK && rep);
  if (!rep) return 1;
  res = &rep->results[0];
  EXPECT(res->pub.check == KL_CHECK_PASS && runs_made == 1 + 1 + 4);
  EXPECT(res->pub.phase_count == 2 && res->pub.phase_median[0] == 0.001 &&
         res->pub.phase_median[1] == 0.002 &&
         strcmp(res->pub.phase_names[1], "kernel") == 0);
  EXPECT(res->pub.t_min == 0.003 && res->pub.t_max > res->pub.t_min &&
         res->pub.reps == 4);
  EXPECT(res->pub.counts[0] == 7 && res->pub.cost.bytes == 8.0 * 513 * 7);
  test_bound_ceiling(res);
  kl_report_free(rep);

  /* Parameters: names, ranges, choices; a size too large for memory,
   * scratch included. The rung that could not run has its result, and
   * its error. */
  const struct {
    const char *params;
    kl_status status;
    const char *error;
  } bad[] = {{"nope=1", KL_USAGE, "has no parameter nope"},
             {"scale=11", KL_USAGE, "outside"},
             {"mode=triple", KL_USAGE, "valid: add, double"},
             {"scale", KL_USAGE, ""},
             {"scratch=1024G", KL_TOO_LARGE, ""}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    kl_problem b = pb;
    b.params = bad[i].params;
    EXPECT(kl__run_one(NULL, &toy, &rungs[0], &b, 1, 0, &rep) ==
               bad[i].status &&
           rep && strstr(kl_report_result(rep, 0)->error, bad[i].error) &&
           kl_report_result(rep, 0)->status == bad[i].status);
    kl_report_free(rep);
  }
  /* A context of another backend than the rung's. */
  kl_context ctx;
  const kl_backend *openmp = kl_backend_find("openmp");
  if (openmp && kl_backend_available(openmp, NULL, 0) &&
      kl__context_open(openmp, 0, &ctx) == KL_OK) {
    EXPECT(kl__run_one(&ctx, &toy, &rungs[0], &pb, 1, 0, &rep) == KL_USAGE &&
           strstr(kl_last_error(), "not on the context's openmp"));
    kl_report_free(rep);
    kl__context_close(&ctx);
  }
  EXPECT(kl__context_open(serial, 0, &ctx) == KL_OK &&
         ctx.backend == serial && ctx.device.index == 0 &&
         ctx.device.compute_units >= 1);
  EXPECT(kl__run_one(&ctx, &toy, &rungs[0], &pb, 1, 0, &rep) == KL_OK);
  kl_report_free(rep);
  kl__context_close(&ctx);
  EXPECT(kl__context_open(serial, 1, &ctx) == KL_USAGE);
  test_chunks(serial);
  test_host_data(serial);
  test_cold(serial, 0);
  test_cold(serial, 1);
  test_enum_names();
  test_ladders();
  test_required_parts();
  test_library_rungs();
  test_plan_counts();
  test_quick_past_caches();
  test_cache_multiple();
  test_host_pool();
  test_kept_blocks(serial);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
