/* The model's parts that the five workloads do not all use, on a toy
 * workload defined here: parameters (-p text, ranges, choices), buffers in
 * every placement, scratch poisoned or zeroed and counted in the memory
 * check, INOUT buffers restored before every repetition, a rung that owns
 * its repetition loop and reports phases, and counts that reach the cost
 * model. Runs on the serial backend. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "expect.h"

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
    .source = "tests/test_model.c", .metric = KL_METRIC_GITEMS,
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
    .source = "tests/test_model.c", .metric = KL_METRIC_GBS, .unit = "GB/s",
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
  kl_result res;
  /* 1000 in chunks of 334, 334 and 332; 10 asked in 6 chunks is 5 of 2
   * (ceil(10/6) = 2 elements each, and no chunk is empty). */
  const struct {
    const char *params;
    int64_t chunks;
  } cases[] = {{"n=1000,chunks=3", 3}, {"n=1000,chunks=1", 1},
               {"n=7,chunks=7", 7}, {"n=2,chunks=5", 2},
               {"n=10,chunks=6", 5}, {"n=1000003,chunks=64", 64}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    kl_problem pb = {.type = KL_TYPE_DEFAULT, .params = cases[c].params,
                     .seed = 1};
    chunk_runs = chunk_inputs_wrong = 0;
    EXPECT(kl_run_rung(&chunked, &chunked_rungs[0], &pb, 4, 2, &res) ==
           KL_OK);
    EXPECT(res.check == KL_CHECK_PASS && res.plan.chunk_count == cases[c].chunks);
    /* checked, warm-up, timed: each over every chunk */
    EXPECT(chunk_runs == (1 + 2 + 4) * cases[c].chunks);
    EXPECT(chunk_inputs_wrong == 0 && res.t_min > 0);
  }
  /* A rung that owns its loop cannot be run chunk by chunk. */
  kl_problem pb = {.type = KL_TYPE_DEFAULT, .params = "chunks=2", .seed = 1};
  EXPECT(kl_run_rung(&chunked, &chunked_rungs[1], &pb, 1, 0, &res) ==
         KL_UNAVAILABLE && strstr(res.error, "cannot run a problem in 2 chunks"));
}

int main(void) {
  const kl_backend *serial = kl_backend_find("serial");
  rungs[0] = (kl_rung){.name = "harness-loop", .backend = serial,
                       .summary = "timed by the harness", .run = one_run};
  rungs[1] = (kl_rung){.name = "own-loop", .backend = serial,
                       .summary = "owns its loop", .run_reps = own_loop,
                       .phases = phases};
  kl_result res;
  kl_problem pb = {.n = 513, .type = KL_TYPE_DEFAULT,
                   .params = "mode=double,scale=-2.5", .seed = 1};
  runs_made = 0;
  EXPECT(kl_run_rung(&toy, &rungs[0], &pb, 5, 2, &res) == KL_OK);
  EXPECT(res.check == KL_CHECK_PASS && res.verdict.checked == 513);
  EXPECT(runs_made == 1 + 2 + 5); /* checked, warm-up, timed: each restored */
  EXPECT(res.plan.value[P_MODE] == 1 && res.plan.value[P_SCALE] == -2.5);
  EXPECT(res.counts[0] == 7 && res.cost.items == 7 && res.phase_count == 0);
  EXPECT(strcmp(kl_result_op(&res), "double") == 0);

  runs_made = 0;
  EXPECT(kl_run_rung(&toy, &rungs[1], &pb, 4, 1, &res) == KL_OK);
  EXPECT(res.check == KL_CHECK_PASS && runs_made == 1 + 1 + 4);
  EXPECT(res.phase_count == 2 && res.phase_median[0] == 0.001 &&
         res.phase_median[1] == 0.002);
  EXPECT(res.t_min == 0.003 && res.t_max > res.t_min && res.reps == 4);
  EXPECT(res.counts[0] == 7 && res.cost.bytes == 8.0 * 513 * 7);

  /* A BOUND ceiling: 100 GB/s measured for 8*513*7 bytes and 7 items
   * a run gives 7 items per 28728 bytes, 0.0244 G items/s. */
  EXPECT(kl__ceiling_rate(&toy, &res, 100) == 100.0 / (8.0 * 513 * 7) * 7);
  EXPECT(kl__ceiling_rate(&toy, &res, 0) == 0);
  const kl_workload *map = kl_workload_find("map");
  EXPECT(map && kl__ceiling_rate(map, &res, 100) == 100);

  /* Parameters: names, ranges, choices; a size too large for memory,
   * scratch included. */
  kl_problem bad = pb;
  bad.params = "nope=1";
  EXPECT(kl_run_rung(&toy, &rungs[0], &bad, 1, 0, &res) == KL_USAGE &&
         strstr(res.error, "has no parameter nope"));
  bad.params = "scale=11";
  EXPECT(kl_run_rung(&toy, &rungs[0], &bad, 1, 0, &res) == KL_USAGE &&
         strstr(res.error, "outside"));
  bad.params = "mode=triple";
  EXPECT(kl_run_rung(&toy, &rungs[0], &bad, 1, 0, &res) == KL_USAGE &&
         strstr(res.error, "valid: add, double"));
  bad.params = "scale";
  EXPECT(kl_run_rung(&toy, &rungs[0], &bad, 1, 0, &res) == KL_USAGE);
  bad.params = "scratch=1024G";
  EXPECT(kl_run_rung(&toy, &rungs[0], &bad, 1, 0, &res) == KL_TOO_LARGE);
  test_chunks(serial);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
