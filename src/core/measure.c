/* One rung on one instance: prepare its buffers, make the checked run,
 * check every element, then time its repetitions (and a ceiling's right
 * after, when it has one). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <threads.h>
#include <time.h>

#include "harness.h"

kl_status kl__jobs_push(kl__jobs *l, const kl__job *j) {
  if (l->count == l->capacity) {
    size_t cap = l->capacity ? 2 * l->capacity : 32;
    kl__job *grown = realloc(l->items, cap * sizeof *grown);
    if (!grown) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
    l->items = grown;
    l->capacity = cap;
  }
  l->items[l->count++] = *j;
  return KL_OK;
}

double kl__rate(const kl_workload *w, const kl_cost *c, double seconds) {
  double amount = w->metric == KL_METRIC_GBS      ? c->bytes
                  : w->metric == KL_METRIC_GFLOPS ? c->flops
                                                  : c->items;
  return seconds > 0 ? amount / seconds * 1e-9 : 0;
}

/* A rung made ready to run: its plan, its buffers filled and uploaded, its
 * state set up. args is reached from reset() through its address. */
typedef struct prepared {
  kl_args args;
  const kl_workload *w;
  const kl_rung *r;
  kl_context *ctx;
  kl_plan plan;
  kl__buffers bufs;
  double counts[KL_MAX_COUNTS];
  int set_up;
  const volatile sig_atomic_t *stop; /* the run's, or NULL */
  /* Each repetition a library call on host data (kl_options.host_data),
   * on a backend whose memory is not the host's. */
  int host_data;
  const kl_ranks *ranks; /* the run's, or NULL */
  /* A run() rung's phases in the runs that are not timed. */
  double untimed_phases[KL_MAX_PHASES];
  /* With a cold cache: a buffer of twice the device's last-level cache,
   * written before each timed run (the measurement's, borrowed). */
  void *scrub;
  size_t scrub_bytes;
  /* The seconds its setup spent compiling programs; -1 where the
   * backend compiles none. */
  double built;
  /* A ceiling: the measurements timing it (see kl__measure_start). */
  int users;
} prepared;

/* KL_INTERRUPTED once this process's stop flag is set: a run stops
 * between repetitions, never inside one. */
static kl_status stopped(const prepared *pr) {
  return pr->stop && *pr->stop ? KL_INTERRUPTED : KL_OK;
}

/* Whether the next repetition runs: KL_OK, or this rank's failure st, or
 * a stop; on several ranks agreed by all, so that they run it together or
 * none does (a rank that ran it alone would wait in its exchanges for the
 * others). A stop on any rank stops every one at the same repetition. */
static kl_status go_on(const prepared *pr, kl_status st) {
  if (st == KL_OK) st = stopped(pr);
  return kl__ranks_agree(pr->ranks, st);
}

/* Whether the backend queues what stands ahead of a timed run
 * (kl_backend.ahead) for this job: not where the run is timed in part on
 * the host's clock (a library call on host data, a rung's phases), which
 * would count what is still queued ahead of it. */
static int queues_ahead(const prepared *pr) {
  return pr->ctx->backend->ahead && !pr->host_data && !pr->r->phases;
}

/* What stands ahead of each timed run, outside its timed region: the
 * hold that lets the run be queued before the device reaches it, and
 * cold, the device's last-level cache flushed by the scrub buffer written
 * whole; where the backend does not queue them (queues_ahead), the buffer
 * written and waited for, and nothing held. */
static kl_status ahead(const prepared *pr) {
  const kl_backend *b = pr->ctx->backend;
  if (queues_ahead(pr)) return b->ahead(pr->ctx, pr->scrub, pr->scrub_bytes);
  if (!pr->scrub) return KL_OK;
  kl_status st = b->fill_bytes(pr->ctx, KL_MEM_DEVICE, pr->scrub, 0x5a,
                               pr->scrub_bytes);
  return st == KL_OK ? b->sync(pr->ctx) : st;
}

static kl_status reset(const kl_args *a) {
  const prepared *pr = (const prepared *)((const char *)a -
                                          offsetof(prepared, args));
  return kl__buffers_restore(&pr->plan, pr->ctx, &pr->bufs);
}

/* The job's plan, made when the job was: its buffers filled and
 * uploaded, its state set up. On several ranks (ranks: the run's, or NULL
 * where this step is not made in step) each of the two is agreed: the
 * buffers before the setup, so that every rank sets up or none does (a
 * distributed rung's setup may make collectives: its NCCL communicator),
 * and the setup. A rank whose own setup succeeded is torn down
 * (set_up) whatever the others' did. */
static kl_status prepare(prepared *pr, const kl__job *job, kl_context *ctx,
                         const kl_ranks *ranks) {
  memset(pr, 0, sizeof *pr);
  pr->built = -1;
  const kl_workload *w = job->w;
  const kl_rung *r = job->r;
  pr->w = w;
  pr->r = r;
  pr->ctx = ctx;
  pr->plan = job->plan;
  kl_status st = KL_OK;
  if (pr->plan.chunk_count > 1 && !r->run)
    st = kl__usage(KL_UNAVAILABLE, "%s %s owns its repetition loop, which "
                   "cannot run a problem in %lld chunks", w->name, r->name,
                   (long long)pr->plan.chunk_count);
  if (st == KL_OK) st = kl__buffers_prepare(w, &pr->plan, ctx, &pr->bufs);
  st = kl__ranks_agree(ranks, st);
  if (st != KL_OK) return st;
  pr->args.plan = &pr->plan;
  pr->args.ctx = ctx;
  pr->args.stream = ctx->streams[0];
  pr->args.counts = pr->counts;
  pr->args.reset = reset;
  pr->args.phase_seconds = pr->untimed_phases;
  memcpy(pr->args.buffers, pr->bufs.dev, sizeof pr->args.buffers);
  /* What the set-up compiles (the context keeps its programs, so a rung
   * whose programs were built before compiles nothing), apart from the
   * timed runs. */
  double (*compiled)(const kl_context *) = ctx->backend->compile_seconds;
  const double before = compiled ? compiled(ctx) : 0;
  kl_status (*setup)(kl_args *) = kl_rung_setup(r);
  if (setup) st = setup(&pr->args);
  if (compiled) pr->built = compiled(ctx) - before;
  pr->set_up = st == KL_OK;
  return kl__ranks_agree(ranks, st);
}

static void unprepare(prepared *pr) {
  void (*teardown)(kl_args *) = pr->r ? kl_rung_teardown(pr->r) : NULL;
  if (pr->set_up && teardown) teardown(&pr->args);
  pr->set_up = 0;
  if (pr->ctx) kl__buffers_release(&pr->plan, pr->ctx, &pr->bufs);
  pr->ctx = NULL;
}

/* The timings of one series of repetitions, room for `capacity` runs. */
typedef struct series {
  int capacity;
  double *seconds;       /* [capacity] */
  double *phase_seconds; /* [capacity * KL_MAX_PHASES] */
  double *scratch;       /* [capacity]: the rule's sort */
  /* The last timed run's events: the rung's own (room for
   * KL_MAX_TRACE_EVENTS), or the harness's one; and when that run began. */
  kl_trace_event *trace;
  int trace_capacity, trace_count, trace_lost;
  double trace_origin;
  /* On several ranks, this rank's own timed runs before the maximum over
   * the ranks makes them the slowest one's: each run's start and end from
   * own_origin, the end of the barrier before the first, and its phases
   * ([slots * KL__OWN] values). NULL on one rank. */
  double *own;
  double own_origin;
} series;

#define KL__OWN (2 + KL_MAX_PHASES)

/* Room for n runs in the series: its times, phases (new ones 0), the
 * rule's scratch and, on several ranks, this rank's own runs. */
static kl_status series_room(series *s, int n, int ranks) {
  if (n <= s->capacity) return KL_OK;
  size_t cap = s->capacity > 0 ? (size_t)s->capacity : 16;
  while (cap < (size_t)n) cap *= 2;
  double *t = realloc(s->seconds, sizeof *t * cap);
  if (t) s->seconds = t;
  double *sc = t ? realloc(s->scratch, sizeof *sc * cap) : NULL;
  if (sc) s->scratch = sc;
  double *ph = sc ? realloc(s->phase_seconds,
                            sizeof *ph * cap * KL_MAX_PHASES)
                  : NULL;
  if (ph) {
    const size_t old = (size_t)s->capacity * KL_MAX_PHASES;
    memset(ph + old, 0, sizeof *ph * (cap * KL_MAX_PHASES - old));
    s->phase_seconds = ph;
  }
  /* Where it cannot be had, the ranks' runs are not gathered. */
  if (ph && ranks > 1) {
    double *own = realloc(s->own, sizeof *own * cap * KL__OWN);
    if (!own) free(s->own);
    s->own = own;
  }
  if (!ph) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  s->capacity = (int)cap;
  return KL_OK;
}

static void series_free(series *s) {
  free(s->seconds);
  free(s->phase_seconds);
  free(s->scratch);
  free(s->trace);
  free(s->own);
}

/* Timed run i as this rank saw it: from `start` (seconds after the first
 * run's barrier), `seconds` long. */
static void own_run(series *s, int i, double start, double seconds,
                    const double *phases) {
  if (!s->own) return;
  double *o = s->own + (size_t)i * KL__OWN;
  o[0] = start;
  o[1] = start + seconds;
  memcpy(o + 2, phases, sizeof(double) * KL_MAX_PHASES);
}

/* One run of a rung that the harness times: once, or once per chunk with
 * each chunk's inputs loaded first (but chunk 0's the first time: the
 * upload loaded them), outside the timed region. With
 * `seconds`, the run's time between the context's events, summed over the
 * chunks. */
static kl_status run_chunks(prepared *pr, double *seconds) {
  kl_context *ctx = pr->ctx;
  const kl_backend *b = ctx->backend;
  const int64_t chunks = pr->plan.chunk_count;
  kl_status st = KL_OK;
  if (seconds) *seconds = 0;
  for (int64_t k = 0; k < chunks && st == KL_OK; k++) {
    double t = 0;
    /* The plan's current chunk is the one whose inputs are loaded. */
    if (pr->plan.chunk != k)
      st = kl__buffers_load_chunk(pr->w, &pr->plan, ctx, &pr->bufs, k);
    if (st == KL_OK && seconds) st = b->record(ctx, 0, 0);
    if (st == KL_OK) st = pr->r->run(&pr->args);
    if (st == KL_OK && seconds) st = b->record(ctx, 1, 0);
    if (st == KL_OK && seconds) st = b->elapsed(ctx, 0, 1, &t);
    if (seconds) *seconds += t;
  }
  return st;
}

/* One repetition as a library call on data in host memory makes it: the
 * inputs copied to the backend's memory, the run, the outputs copied back,
 * all waited for. With `seconds`, its wall-clock time: the backend's
 * events would time the stream, not the host's wait for the copies. */
static kl_status host_data_run(prepared *pr, double *seconds) {
  kl_context *ctx = pr->ctx;
  const double t0 = kl__now();
  kl_status st = kl__buffers_upload_inputs(&pr->plan, ctx, &pr->bufs);
  if (st == KL_OK) st = pr->r->run(&pr->args);
  /* The download syncs the backend: the last copy has finished. */
  if (st == KL_OK) st = kl__buffers_download(&pr->plan, ctx, &pr->bufs);
  if (seconds) *seconds = kl__now() - t0;
  return st;
}

/* A repetition of the harness's loop: a library call's, or the rung's run
 * alone. */
static kl_status one_repetition(prepared *pr, double *seconds) {
  return pr->host_data ? host_data_run(pr, seconds) : run_chunks(pr, seconds);
}

/* The last timed run as one event, for a rung that traced none of its
 * own: on the host, or on the stream the run was timed on. */
static void whole_run(series *s, const kl_backend *b, int reps) {
  if (s->trace_capacity < 1) return;
  const int track = kl_backend_host_memory(b) ? KL_TRACK_HOST : 0;
  s->trace[0] = (kl_trace_event){track, -1, -1, 0, s->seconds[reps - 1]};
  s->trace_count = 1;
}

/* After a repetition on several ranks: its time and each of its phases'
 * become the slowest rank's, and a rank's failure (or stop) every rank's.
 * One collective where every rank went on, two where one did not. */
static kl_status ranks_after(const kl_ranks *ranks, kl_status st,
                             double *seconds, double *phases) {
  if (kl__ranks_count(ranks) < 2) return st;
  double v[2 + KL_MAX_PHASES] = {st == KL_OK ? *seconds : 0,
                                 st == KL_OK ? 0 : 1};
  memcpy(v + 2, phases, sizeof(double) * KL_MAX_PHASES);
  kl__ranks_max(ranks, v, 2 + KL_MAX_PHASES);
  *seconds = v[0];
  memcpy(phases, v + 2, sizeof(double) * KL_MAX_PHASES);
  return v[1] > 0 ? kl__ranks_agree(ranks, st) : KL_OK;
}

/* count timed runs of the harness's loop from run `first` on, each after
 * a reset and timed with the context's events. */
static kl_status harness_batch(prepared *pr, series *s, int first,
                               int count) {
  kl_status st = KL_OK;
  for (int i = first; i < first + count && st == KL_OK; i++) {
    st = go_on(pr, KL_OK);
    if (st != KL_OK) break;
    st = reset(&pr->args);
    if (st == KL_OK) st = ahead(pr);
    /* Every rank starts the repetition together; a rank that failed
     * still meets the others, and the agreement after it stops them
     * all. */
    kl__ranks_barrier(pr->ranks);
    s->trace_origin = kl__now();
    if (i == 0) s->own_origin = s->trace_origin;
    double *phases = &s->phase_seconds[(size_t)i * KL_MAX_PHASES];
    memset(phases, 0, sizeof(double) * KL_MAX_PHASES);
    pr->args.phase_seconds = phases;
    if (st == KL_OK) st = one_repetition(pr, &s->seconds[i]);
    pr->args.phase_seconds = pr->untimed_phases;
    own_run(s, i, s->trace_origin - s->own_origin,
            st == KL_OK ? s->seconds[i] : 0, phases);
    st = ranks_after(pr->ranks, st, &s->seconds[i], phases);
  }
  return st;
}

/* count timed runs of a rung that owns its loop, from run `first` on: one
 * call, its times and phases then the slowest rank's. */
static kl_status own_batch(prepared *pr, series *s, int first, int count) {
  kl_reps timed = {count, s->seconds + first,
                   s->phase_seconds + (size_t)first * KL_MAX_PHASES,
                   s->trace, s->trace_capacity, 0, 0};
  kl_status st = go_on(pr, KL_OK);
  kl__ranks_barrier(pr->ranks);
  const double origin = kl__now();
  if (first == 0) s->own_origin = origin;
  if (st == KL_OK) st = pr->r->run_reps(&pr->args, &timed);
  if (st == KL_OK) st = pr->ctx->backend->sync(pr->ctx);
  st = kl__ranks_agree(pr->ranks, st);
  if (st != KL_OK) return st;
  /* This rank's, first: its runs back to back, as the rung ran them. */
  double start = origin - s->own_origin;
  for (int i = first; i < first + count; i++) {
    own_run(s, i, start, s->seconds[i],
            &s->phase_seconds[(size_t)i * KL_MAX_PHASES]);
    start += s->seconds[i];
  }
  kl__ranks_max(pr->ranks, s->seconds + first, count);
  kl__ranks_max(pr->ranks, s->phase_seconds + (size_t)first * KL_MAX_PHASES,
                count * KL_MAX_PHASES);
  /* The batch's last repetition ended about now. */
  s->trace_origin = kl__now() - s->seconds[first + count - 1];
  s->trace_count = timed.trace_count;
  s->trace_lost = timed.trace_lost;
  return KL_OK;
}

/* count untimed runs, all finished when it returns: the harness's loop,
 * each after a reset, or one call of the rung's own (its times in the
 * series' first slots, before any timed run is there). */
static kl_status warm_up(prepared *pr, int count, series *s) {
  const kl_rung *r = pr->r;
  kl_status st = kl__ranks_agree(
      pr->ranks, series_room(s, count, kl__ranks_count(pr->ranks)));
  if (st == KL_OK && !r->run && count > 0) {
    kl_reps warm = {count, s->seconds, s->phase_seconds, s->trace,
                    s->trace_capacity, 0, 0};
    st = go_on(pr, st);
    if (st == KL_OK) st = r->run_reps(&pr->args, &warm);
  }
  /* A failure on one rank ends the loop on all at the next go_on. */
  for (int i = 0; r->run && i < count; i++) {
    st = go_on(pr, st);
    if (st != KL_OK) break;
    st = reset(&pr->args);
    if (st == KL_OK) st = one_repetition(pr, NULL);
  }
  if (st == KL_OK) st = pr->ctx->backend->sync(pr->ctx);
  return kl__ranks_agree(pr->ranks, st);
}

/* One untimed run between batches, where another rung ran since the last
 * one: its first timed run would otherwise pay for the other's state (a
 * GPU's L2 full of its dirty lines, its pages). A rung's own loop times
 * it into slots of its own, leaving the series' times alone. */
static kl_status rewarm(prepared *pr, series *s) {
  if (pr->r->run) return warm_up(pr, 1, s);
  double seconds, phases[KL_MAX_PHASES];
  kl_reps once = {1, &seconds, phases, s->trace, s->trace_capacity, 0, 0};
  kl_status st = go_on(pr, KL_OK);
  if (st == KL_OK) st = pr->r->run_reps(&pr->args, &once);
  if (st == KL_OK) st = pr->ctx->backend->sync(pr->ctx);
  return kl__ranks_agree(pr->ranks, st);
}

/* count timed runs from run `first` on, the series grown to hold them,
 * inside a profiler's range named for the rung where the backend has one
 * ("reduce cuda-naive"). */
static kl_status timed_batch(prepared *pr, series *s, int first, int count) {
  kl_status st = kl__ranks_agree(
      pr->ranks,
      series_room(s, first + count, kl__ranks_count(pr->ranks)));
  if (st != KL_OK) return st;
  void (*range)(kl_context *, const char *) = pr->ctx->backend->range;
  if (range) {
    char name[160];
    snprintf(name, sizeof name, "%s %s", pr->w->name, pr->r->name);
    range(pr->ctx, name);
  }
  /* A rung's own loop, where something stands ahead of each run (cold, or
   * a backend that holds its device): one run a call. */
  const int one_by_one = pr->scrub || queues_ahead(pr);
  if (pr->r->run)
    st = harness_batch(pr, s, first, count);
  else if (!one_by_one)
    st = own_batch(pr, s, first, count);
  for (int i = 0; one_by_one && !pr->r->run && i < count && st == KL_OK;
       i++) {
    st = ahead(pr);
    if (st == KL_OK) st = own_batch(pr, s, first + i, 1);
  }
  if (range) range(pr->ctx, NULL);
  return st;
}

/* Test hooks, so that the CLI's exit codes for a failed check and for a
 * runtime error can be shown end to end: KLADDER_INJECT_WRONG=RUNG spoils
 * one output element of that rung before the check, KLADDER_INJECT_ERROR=RUNG
 * makes it fail as a device error would. */
static kl_status inject_fault(const kl_plan *p, const kl_rung *r,
                              const kl_ranks *ranks, kl__buffers *bufs) {
  const char *wrong = getenv("KLADDER_INJECT_WRONG");
  const char *error = getenv("KLADDER_INJECT_ERROR");
  /* KLADDER_INJECT_RANK=K: on several ranks, only rank K's. */
  const char *only = getenv("KLADDER_INJECT_RANK");
  if (only && kl__ranks_count(ranks) > 1 && atoi(only) != ranks->rank)
    return KL_OK;
  if (error && strcmp(error, r->name) == 0)
    return KL_FAIL(KL_DEVICE, "injected runtime error (KLADDER_INJECT_ERROR)");
  if (!wrong || strcmp(wrong, r->name) != 0) return KL_OK;
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    if (s->role == KL_IN || (s->flags & KL_BUFFER_SCRATCH)) continue;
    size_t size = kl_type_size(s->type);
    unsigned char *elem =
        (unsigned char *)bufs->out[i] + (size_t)(s->count / 2) * size;
    elem[size - 1] ^= 0x40; /* an exponent bit of a float, a high bit else */
    break;
  }
  return KL_OK;
}

/* Fewer runs where the asked-for ones would take longer than max_seconds,
 * judged by the checked run: at least one timed run, warm-up only where
 * there is room for it. */
static void fit_runs(double max_seconds, double one_run, int *reps,
                     int *warmup) {
  if (max_seconds <= 0 || one_run * (*reps + *warmup) <= max_seconds) return;
  int runs = one_run > 0 ? (int)(max_seconds / one_run) : *reps + *warmup;
  if (*warmup > 0) *warmup = runs > 2 ? 1 : 0;
  *reps = runs - *warmup > *reps ? *reps
          : runs - *warmup > 1   ? runs - *warmup
                                 : 1;
}

/* The checked run: one repetition, the rung's own loop or not, timed as
 * a timed run is (its seconds, phases and trace in the series' first
 * slot), in case it is the one timed run (kl__measure says when). */
static kl_status checked_run(prepared *pr, series *s) {
  kl_status st;
  if (pr->r->run) {
    memset(s->phase_seconds, 0, sizeof(double) * KL_MAX_PHASES);
    pr->args.phase_seconds = s->phase_seconds;
    s->trace_origin = kl__now();
    st = run_chunks(pr, &s->seconds[0]);
    pr->args.phase_seconds = pr->untimed_phases;
    s->trace_count = s->trace_lost = 0;
  } else {
    kl_reps once = {1, s->seconds, s->phase_seconds, s->trace,
                    s->trace_capacity, 0, 0};
    s->trace_origin = kl__now();
    st = pr->r->run_reps(&pr->args, &once);
    s->trace_count = once.trace_count;
    s->trace_lost = once.trace_lost;
  }
  st = st == KL_OK ? pr->ctx->backend->sync(pr->ctx) : st;
  if (st == KL_OK && s->trace_count == 0 && s->trace_lost == 0)
    whole_run(s, pr->ctx->backend, 1);
  return st;
}

/* On several ranks a check passes only where it passed on every rank; a
 * rank whose own passed says which one failed. */
static void check_everywhere(const kl_ranks *ranks, kl_verdict *v) {
  if (kl__ranks_count(ranks) < 2) return;
  double failed[2] = {v->passed ? -1 : ranks->rank,
                      v->unverifiable > 0 ? 1 : 0};
  kl__ranks_max(ranks, failed, 2);
  if (failed[0] >= 0 && v->passed) {
    v->passed = 0;
    snprintf(v->detail, sizeof v->detail, "the check failed on rank %d",
             (int)failed[0]);
  }
  if (failed[1] > 0 && v->unverifiable == 0) v->unverifiable = 1;
}

/* A cost of one rank's work made that of every rank (a collective):
 * their sum, each rank's share of a distributed problem its own. */
static void every_rank(kl_cost *c, const kl_ranks *ranks) {
  double v[3] = {c->bytes, c->flops, c->items};
  kl__ranks_sum(ranks, v, 3);
  c->bytes = v[0];
  c->flops = v[1];
  c->items = v[2];
}

/* On several ranks, every rank's timed runs (kl_result.rank_runs) on every
 * rank, gathered once they are over, outside the timed region: the first
 * KL_MAX_TRACE_EVENTS / ranks of them, so that the gather stays a few MB
 * whatever the ranks and repetitions. Every rank makes the same
 * collectives: where one lacks the memory, none gathers. */
static void gather_runs(const prepared *pr, const series *s, int reps,
                        kl__result *res) {
  const int count = kl__ranks_count(pr->ranks);
  if (count < 2) return;
  int kept = KL_MAX_TRACE_EVENTS / count;
  if (kept < 1) kept = 1;
  if (kept > reps) kept = reps;
  const int phases = res->pub.phase_count, each = 2 + phases;
  const size_t n = (size_t)kept * (size_t)each;
  double *mine = malloc(sizeof *mine * n);
  double *all = malloc(sizeof *all * n * (size_t)count);
  kl_rank_run *runs = calloc((size_t)count * (size_t)kept, sizeof *runs);
  double missing = !mine || !all || !runs || !s->own;
  kl__ranks_max(pr->ranks, &missing, 1);
  if (missing == 0) {
    for (int i = 0; i < kept; i++)
      memcpy(mine + (size_t)i * (size_t)each, s->own + (size_t)i * KL__OWN,
             sizeof *mine * (size_t)each);
    kl__ranks_collect(pr->ranks, mine, (int)n, all);
    for (int k = 0; k < count; k++)
      for (int i = 0; i < kept; i++) {
        const double *v = all + ((size_t)k * (size_t)kept + (size_t)i) *
                                    (size_t)each;
        kl_rank_run *o = &runs[(size_t)k * (size_t)kept + (size_t)i];
        o->rank = k;
        o->run = i;
        o->start = v[0];
        o->end = v[1];
        memcpy(o->phase_seconds, v + 2, sizeof *v * (size_t)phases);
      }
    res->rank_runs = runs;
    res->pub.rank_runs = runs;
    res->pub.rank_run_count = count * kept;
    res->pub.rank_origin = s->own_origin;
    runs = NULL;
  }
  free(mine);
  free(all);
  free(runs);
}

/* ---- the energy window -------------------------------------------------- */
/* A batch of repetitions as the timed ones ran, untimed, complete when it
 * returns. */
typedef struct energy_run {
  prepared *pr;
  series *s;
  double *seconds, *phases; /* room for a batch of a rung's own loop */
} energy_run;

static kl_status energy_batch(void *arg, int count) {
  energy_run *er = arg;
  prepared *pr = er->pr;
  kl_status st = stopped(pr);
  if (st == KL_OK && !pr->r->run) {
    kl_reps batch = {count, er->seconds, er->phases, er->s->trace,
                     er->s->trace_capacity, 0, 0};
    st = pr->r->run_reps(&pr->args, &batch);
  }
  for (int i = 0; pr->r->run && i < count && st == KL_OK; i++) {
    st = reset(&pr->args);
    if (st == KL_OK) st = one_repetition(pr, NULL);
  }
  return st == KL_OK ? pr->ctx->backend->sync(pr->ctx) : st;
}

/* The job's energy window, after its timed runs: batches of about 50 ms
 * (by the median), so that the counter is read a few times per update and
 * never per repetition. Where the window cannot be had, the result has no
 * energy, with why in res->energy_why; the rung's status stands, but a
 * failure of the rung itself (or a stop) is returned. */
#define KL__ENERGY_BATCH_SECONDS 0.05
#define KL__ENERGY_MAX_BATCH 65536
static kl_status energy_window(prepared *pr, series *s, kl__energy *e,
                               kl__result *res) {
  kl_result *pub = &res->pub;
  const kl_workload *w = pr->w;
  double batch = pub->t_median > 0
                     ? ceil(KL__ENERGY_BATCH_SECONDS / pub->t_median)
                     : 1;
  if (batch > KL__ENERGY_MAX_BATCH) batch = KL__ENERGY_MAX_BATCH;
  const int per_batch = batch < 1 ? 1 : (int)batch;
  energy_run er = {pr, s, NULL, NULL};
  if (!pr->r->run) {
    er.seconds = malloc(sizeof(double) * (size_t)per_batch);
    er.phases = calloc((size_t)per_batch * KL_MAX_PHASES, sizeof(double));
    if (!er.seconds || !er.phases) {
      free(er.seconds);
      free(er.phases);
      snprintf(res->energy_why, sizeof res->energy_why, "out of host memory");
      return KL_OK;
    }
  }
  kl__energy_rule rule;
  kl__energy_rule_default(&rule);
  kl__energy_figures f;
  kl_status st = kl__energy_window(e, &rule, energy_batch, &er, per_batch, &f);
  free(er.seconds);
  free(er.phases);
  if (st == KL_UNAVAILABLE || (st == KL_OK && f.reps < 1)) {
    snprintf(res->energy_why, sizeof res->energy_why, "%s",
             st == KL_OK ? "no repetition in the window" : kl_last_error());
    return KL_OK;
  }
  if (st != KL_OK) return st;
  const double amount = w->metric == KL_METRIC_GBS      ? pub->cost.bytes
                        : w->metric == KL_METRIC_GFLOPS ? pub->cost.flops
                                                        : pub->cost.items;
  pub->energy_source = kl__energy_source(e);
  pub->energy_reps = (int)(f.reps < 2147483647 ? f.reps : 2147483647);
  pub->energy_joules = f.joules / (double)f.reps;
  pub->energy_watts = f.watts;
  pub->energy_pj = amount > 0 ? pub->energy_joules / amount * 1e12 : 0;
  pub->energy_seconds = f.seconds;
  pub->energy_updates = f.updates;
  pub->idle_watts = kl__energy_idle_watts(e);
  pub->sampled_watts = f.sampled_watts;
  pub->energy_mismatch = f.mismatch;
  return KL_OK;
}

/* ---- one job's measurement, in three steps ---------------------------------
 * start: prepare, the checked run and its check, the ceiling beside it
 * prepared; step: a batch of timed runs, the ceiling's as many right
 * after, until the rule ends them; finish: the figures, the energy
 * window, everything released. kl__measure makes the three in a row;
 * kl_run interleaves the steps of a problem's rungs (run.c). */
struct kl__measuring {
  const kl__job *job;
  kl__result *res;
  kl__timing t;
  prepared pr, *ceiling; /* the ceiling: its own, or shared */
  const kl__job *beside; /* the ceiling's job */
  series s, cs;        /* the rung's runs and the ceiling's */
  kl__noise_rule rule;
  int checked_timed, cut;
  int warmed, ceiling_warmed; /* the warm-up runs made */
  int runs, rounds;    /* timed runs made, in this many batches */
  void *scrub;         /* cold: the buffer the rung and ceiling write */
  size_t scrub_bytes;
  double sm_sum, mem_sum; /* the clocks after each batch kept */
  int samples;
  double timed, spent; /* their seconds; the rung's series' wall clock */
  kl_stop why;
  int done;
  kl_status st;
};

/* The measurement's hold on its ceiling let go: the last one unprepares
 * it. */
static void ceiling_drop(kl__measuring *m) {
  if (m->ceiling && --m->ceiling->users == 0) {
    unprepare(m->ceiling);
    free(m->ceiling);
  }
  m->ceiling = NULL;
}

static void measuring_free(kl__measuring *m) {
  ceiling_drop(m);
  if (m->scrub)
    m->pr.ctx->backend->release(m->pr.ctx, KL_MEM_DEVICE, m->scrub);
  unprepare(&m->pr);
  series_free(&m->s);
  series_free(&m->cs);
  free(m);
}

/* An empty series with room for a trace of `events` and one run. */
static kl_status series_open(series *s, int events, int ranks) {
  memset(s, 0, sizeof *s);
  s->trace = malloc(sizeof(kl_trace_event) * (size_t)events);
  s->trace_capacity = events;
  if (!s->trace || series_room(s, 1, ranks) != KL_OK)
    return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  return KL_OK;
}

/* Why a job cannot be measured at all, before anything is prepared. */
static kl_status refused(const kl__job *job, kl_context *ctx,
                         const kl__timing *t) {
  const kl_workload *w = job->w;
  const kl_rung *r = job->r;
  if (!r->run && !r->run_reps)
    return kl__usage(KL_UNAVAILABLE, "rung %s is not built into this "
                     "library", r->name);
  if (t->reps < 0 || t->warmup < 0 || t->reps > KL_MAX_REPS ||
      t->warmup > KL_MAX_REPS)
    return kl__usage(KL_USAGE, "reps must be from 0 (by noise) to %d, "
                     "warm-up from 0 to %d", KL_MAX_REPS, KL_MAX_REPS);
  if (t->reps == 0 && !(t->precision > 0 && t->precision < 1))
    return kl__usage(KL_USAGE, "the precision of repetitions by noise must "
                     "be above 0 and below 1 (got %g)", t->precision);
  const kl_type type = job->plan.type;
  if ((int)type < 0 || type >= KL_TYPE_COUNT ||
      !(w->types & KL_TYPE_BIT(type)) ||
      (r->types && !(r->types & KL_TYPE_BIT(type))))
    return kl__usage(KL_USAGE, "%s %s has no type %s", w->name, r->name,
                     kl_type_name(type));
  /* Under host_data the harness times the copies around each of its own
   * repetitions; a rung's own loop, or a problem loaded chunk by chunk,
   * leaves it none to wrap. Timed without them, the result would pass for
   * what it is not. */
  if (t->host_data && !kl_backend_host_memory(ctx->backend) && !r->run)
    return kl__usage(KL_UNAVAILABLE, "%s %s owns its repetition loop: its "
                     "copies of host data (host_data) cannot be timed",
                     w->name, r->name);
  if (t->host_data && !kl_backend_host_memory(ctx->backend) &&
      job->plan.chunk_count > 1)
    return kl__usage(KL_UNAVAILABLE, "a problem in %lld chunks: the copies "
                     "of its host data (host_data) cannot be timed with each "
                     "repetition", (long long)job->plan.chunk_count);
  return KL_OK;
}

kl_status kl__measure_start(const kl__job *job, kl_context *ctx,
                            const kl__timing *t, const kl__job *beside,
                            kl__measuring *share, kl__result *res,
                            kl__measuring **out) {
  *out = NULL;
  const kl_workload *w = job->w;
  const kl_rung *r = job->r;
  kl__result_init(res, w, r, job->device, &job->plan);
  kl_result *pub = &res->pub;
  snprintf(pub->device_name, sizeof pub->device_name, "%s", ctx->device.name);
  /* A memory-bound problem whose buffers fit in the device's last-level
   * cache runs from the cache, repetition after repetition. */
  const int main_size = kl__param_with(w, KL_PARAM_MAIN_SIZE);
  double footprint = 0;
  if (main_size >= 0 && w->params[main_size].cache_multiple > 0 &&
      ctx->device.cache_bytes > 0 &&
      kl__plan_bytes(&job->plan, &footprint) == KL_OK && footprint > 0 &&
      footprint <= (double)ctx->device.cache_bytes) {
    res->in_cache_bytes = footprint;
    res->cache_bytes = (double)ctx->device.cache_bytes;
  }
  kl_status st = refused(job, ctx, t);
  /* A stop before the set-up (on several ranks, one that came while rank
   * 0 ran the rung alone): nothing is prepared, on any rank. */
  if (st == KL_OK)
    st = kl__ranks_agree(t->ranks, t->stop && *t->stop ? KL_INTERRUPTED
                                                       : KL_OK);
  if (st != KL_OK) return kl__result_status(res, st);
  kl__measuring *m = calloc(1, sizeof *m);
  if (!m)
    return kl__result_status(res, KL_FAIL(KL_NO_MEMORY, "out of host "
                                          "memory"));
  m->job = job;
  m->res = res;
  m->t = *t;
  m->t.host_data = t->host_data && !kl_backend_host_memory(ctx->backend);
  const kl_ranks *ranks = t->ranks;
  const int rank_count = kl__ranks_count(ranks);
  /* A rung that owns its loop traces its runs; the harness's, one event. */
  const int events = r->run ? 1 : KL_MAX_TRACE_EVENTS;
  if (series_open(&m->s, events, rank_count) != KL_OK ||
      series_open(&m->cs, KL_MAX_TRACE_EVENTS, rank_count) != KL_OK) {
    series_free(&m->s);
    series_free(&m->cs);
    free(m);
    return kl__result_status(res, KL_FAIL(KL_NO_MEMORY, "out of host "
                                          "memory"));
  }
  prepared *pr = &m->pr;
  /* On several ranks every step is agreed before the next (prepare's
   * two too): a rank whose step failed stops the others there, with its
   * message. */
  st = prepare(pr, job, ctx, ranks);
  pr->stop = t->stop;
  pr->host_data = m->t.host_data;
  pr->ranks = ranks;
  /* The slowest rank's build; every rank's backend is the job's. */
  pub->setup_build_seconds = pr->built;
  if (ctx->backend->compile_seconds)
    kl__ranks_max(ranks, &pub->setup_build_seconds, 1);
  /* The first run after the upload is the checked one. */
  const double started = kl__now();
  if (st == KL_OK) st = checked_run(pr, &m->s);
  st = kl__ranks_agree(ranks, st);
  /* Every rank makes as many runs: the slowest one's checked run judges. */
  double one_run = kl__now() - started;
  kl__ranks_max(ranks, &one_run, 1);
  /* A checked run that alone took the whole bound is the one timed run:
   * a second run would double the rung's time for one sample where the
   * first run's cold start (pages, caches, a kernel's first load) is a
   * small share of seconds. On one rank, timing the rung alone (a library
   * call's copies, host_data, are timed around repetitions only). */
  const double bound = t->max_seconds;
  m->checked_timed = st == KL_OK && bound > 0 && one_run >= bound &&
                     !m->t.host_data && rank_count < 2;
  /* By noise: at least KL_NOISE_MIN_REPS runs, or as many as fit in the
   * bound by the checked run's time, fixed, where fewer do. */
  int warmup = t->warmup;
  const int asked = t->reps > 0 ? t->reps : KL_NOISE_MIN_REPS;
  int fitted = asked;
  if (m->checked_timed) fitted = 1, warmup = 0;
  else fit_runs(bound, one_run, &fitted, &warmup);
  m->cut = fitted < asked;
  m->rule = (kl__noise_rule){fitted, fitted, 0, 0, 0};
  if (t->reps == 0 && !m->cut)
    m->rule = (kl__noise_rule){KL_NOISE_MIN_REPS, KL_NOISE_MAX_REPS,
                               t->precision, KL_NOISE_MIN_SECONDS, bound};
  m->t.warmup = warmup;
  res->checked_timed = m->checked_timed;
  pub->reps = fitted;
  pub->warmup_runs = warmup;
  if (st == KL_OK) st = kl__buffers_download(&pr->plan, ctx, &pr->bufs);
  if (st == KL_OK) st = inject_fault(&pr->plan, r, ranks, &pr->bufs);
  st = kl__ranks_agree(ranks, st);
  if (st != KL_OK) {
    measuring_free(m);
    return kl__result_status(res, st);
  }
  w->check(&pr->plan, r, pr->bufs.in, pr->bufs.out, &pub->verdict);
  check_everywhere(ranks, &pub->verdict);
  if (r->flags & KL_RUNG_KNOWN_WRONG)
    pub->check = pub->verdict.passed ? KL_CHECK_MISSED : KL_CHECK_CAUGHT;
  else if (pub->verdict.passed && pub->verdict.unverifiable > 0)
    pub->check = KL_CHECK_UNVERIFIABLE;
  else
    pub->check = pub->verdict.passed ? KL_CHECK_PASS : KL_CHECK_FAIL;
  /* The run's named files to write, from the first rung that passed. */
  /* On several ranks, rank 0's alone: they would write one file. */
  if (job->outputs && pub->check == KL_CHECK_PASS &&
      (rank_count < 2 || ranks->rank == 0))
    kl__outputs_write(job->outputs, job, &pr->plan, &pub->verdict,
                      pr->bufs.out);
  /* Where the ceiling's buffers do not fit beside the rung's, there is
   * none beside it; the run's own ceiling measurement serves. On
   * several ranks, none unless it fits on every one. A measurement of
   * the same context timing the same ceiling job shares its prepared
   * ceiling: its buffers, made and filled once. */
  m->beside = beside;
  if (beside && share && share->beside == beside && share->ceiling &&
      share->pr.ctx == ctx && rank_count < 2) {
    m->ceiling = share->ceiling;
    m->ceiling->users++;
  } else if (beside && kl__check_fits(beside->w, &beside->plan, ctx->backend,
                                      job->device, 1) == KL_OK) {
    prepared *c = malloc(sizeof *c);
    if (c && prepare(c, beside, ctx, NULL) == KL_OK) {
      m->ceiling = c;
      c->users = 1;
      c->stop = t->stop;
      c->ranks = ranks;
    } else if (c) {
      unprepare(c);
      free(c);
    }
  }
  double missing = beside && !m->ceiling;
  kl__ranks_max(ranks, &missing, 1);
  if (missing > 0 && m->ceiling) ceiling_drop(m);
  /* Cold: the scrub buffer, twice the last-level cache, which the rung's
   * runs and its ceiling's write before each timed run. A device whose
   * cache size is not known runs warm, and its result says so. */
  if (t->cold && ctx->device.cache_bytes > 0) {
    m->scrub_bytes = 2 * (size_t)ctx->device.cache_bytes;
    st = ctx->backend->alloc(ctx, KL_MEM_DEVICE, &m->scrub, m->scrub_bytes);
    if (st != KL_OK) m->scrub = NULL;
    st = kl__ranks_agree(ranks, st);
    if (st != KL_OK) {
      measuring_free(m);
      return kl__result_status(res, st);
    }
    pr->scrub = m->scrub;
    pr->scrub_bytes = m->scrub_bytes;
    pub->cache = KL_CACHE_COLD;
  }
  *out = m;
  return KL_OK;
}

/* A batch of the ceiling's runs, as many as the rung's last one, into its
 * series beside the rung's: its warm-up the first time, and where
 * another rung ran since its last batch, one untimed run first. */
static kl_status ceiling_batch(kl__measuring *m, int first, int count,
                               int others) {
  kl_status st = KL_OK;
  if (!m->ceiling) return KL_OK;
  /* A shared ceiling is flushed with its measurement's buffer (cold). */
  m->ceiling->scrub = m->scrub;
  m->ceiling->scrub_bytes = m->scrub_bytes;
  if (!m->ceiling_warmed)
    st = warm_up(m->ceiling, m->t.warmup > 0 ? m->t.warmup : 1, &m->cs);
  else if (others)
    st = rewarm(m->ceiling, &m->cs);
  m->ceiling_warmed = 1;
  if (st == KL_OK) st = timed_batch(m->ceiling, &m->cs, first, count);
  return st;
}

/* A batch that the board slowed (thermal or hardware slowdown, a clock
 * under the floor) is made again after a pause, its runs dropped, at most
 * this many times a rung; past them it is kept and the result says so
 * (kl__result.throttled). */
#define SLOWED_RETRIES 3
#define SLOWED_PAUSE_NS 500000000L

/* After a batch, where the board's clocks were sampled before it (before
 * not NULL): the sample after, the reasons and the clock reached kept; 0
 * where the batch is to be made again, after the pause. On several ranks
 * a batch that any rank's board slowed is made again on every rank. */
static int clocks_kept(kl__measuring *m, const kl__clock_sample *before) {
  kl__clock_sample after;
  kl__result *res = m->res;
  const int read = before && kl__nvml_clocks(m->t.clocks, &after);
  double slowed = 0;
  if (read) {
    res->clock_reasons |= before->reasons | after.reasons;
    slowed = kl__clocks_slowed(before, m->t.app_sm_mhz) ||
             kl__clocks_slowed(&after, m->t.app_sm_mhz);
  }
  kl__ranks_max(m->t.ranks, &slowed, 1);
  if (slowed > 0 && res->slowed_batches < SLOWED_RETRIES) {
    res->slowed_batches++;
    const struct timespec pause = {0, SLOWED_PAUSE_NS};
    thrd_sleep(&pause, NULL);
    return 0;
  }
  res->throttled |= slowed > 0;
  if (!read) return 1;
  /* The clock reached: the sample right after the work, before the board
   * idles down. */
  m->sm_sum += after.sm_mhz;
  m->mem_sum += after.mem_mhz;
  m->samples++;
  return 1;
}

kl_status kl__measure_step(kl__measuring *m, int others, int *done) {
  *done = 1;
  if (m->done || m->st != KL_OK) return m->st;
  prepared *pr = &m->pr;
  kl_status st = KL_OK;
  /* The checked run is the one timed run: the ceiling's one, alone. */
  if (m->checked_timed) {
    m->runs = 1;
    m->why = KL_STOP_MAX_TIME;
    st = ceiling_batch(m, 0, 1, others);
    m->done = 1;
    return m->st = st;
  }
  /* The rung's series' wall clock: its warm-up, batches and re-warming
   * runs, not the ceiling's nor the other rungs'. */
  const int settled = m->warmed;
  if (!m->warmed) {
    const double started = kl__now();
    st = warm_up(pr, m->t.warmup, &m->s);
    m->spent += kl__now() - started;
    m->warmed = 1;
  }
  int more = 0;
  if (st == KL_OK) {
    double wall = m->spent;
    kl__ranks_max(m->t.ranks, &wall, 1);
    more = kl__noise_more(&m->rule, m->s.seconds, m->runs, m->timed, wall,
                          m->s.scratch, &m->why);
  }
  if (st == KL_OK && more > 0) {
    const double started = kl__now();
    /* Settled again after the others' runs: one untimed run first. */
    if (settled && others) st = rewarm(pr, &m->s);
    kl__clock_sample before;
    const int watched =
        st == KL_OK && m->t.clocks && kl__nvml_clocks(m->t.clocks, &before);
    if (st == KL_OK) st = timed_batch(pr, &m->s, m->runs, more);
    m->spent += kl__now() - started;
    if (st == KL_OK) st = ceiling_batch(m, m->runs, more, others);
    if (st == KL_OK && !clocks_kept(m, watched ? &before : NULL)) more = -1;
    if (st == KL_OK && more > 0) {
      for (int i = m->runs; i < m->runs + more; i++)
        m->timed += m->s.seconds[i];
      m->runs += more;
      m->rounds++;
    }
  }
  m->done = st != KL_OK || more == 0;
  *done = m->done;
  return m->st = st;
}

/* The rung's figures from its timed runs, and its ceiling's rate. */
static kl_status summarize(kl__measuring *m) {
  prepared *pr = &m->pr;
  series *s = &m->s;
  kl__result *res = m->res;
  kl_result *pub = &res->pub;
  const int reps = m->runs;
  pub->reps = reps;
  pub->stop = m->cut ? KL_STOP_MAX_TIME : m->why;
  res->rounds = m->checked_timed ? 1 : m->rounds;
  if (m->samples > 0) {
    res->sm_mhz = m->sm_sum / m->samples;
    res->mem_mhz = m->mem_sum / m->samples;
  }
  if (pr->r->run) s->trace_count = s->trace_lost = 0;
  if (s->trace_count == 0 && s->trace_lost == 0)
    whole_run(s, pr->ctx->backend, reps);
  gather_runs(pr, s, reps, res);
  const int phases = pub->phase_count;
  double *one = malloc(sizeof *one * (size_t)reps);
  if (!one) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  for (int k = 0; k < phases; k++) {
    for (int i = 0; i < reps; i++)
      one[i] = s->phase_seconds[(size_t)i * KL_MAX_PHASES + (size_t)k];
    pub->phase_median[k] = kl__median(one, reps);
  }
  free(one);
  pub->trace_lost = s->trace_lost;
  pub->trace_origin = s->trace_origin;
  /* A run() rung's trace is one event: its phases' overlap unknown. */
  pub->overlap = phases > 0 && !pr->r->run
                     ? kl__trace_overlap(s->trace, s->trace_count,
                                         s->trace_lost)
                     : 0;
  if (s->trace_count > 0) {
    res->trace = malloc(sizeof *res->trace * (size_t)s->trace_count);
    if (res->trace) {
      memcpy(res->trace, s->trace,
             sizeof *res->trace * (size_t)s->trace_count);
      pub->trace = res->trace;
      pub->trace_count = s->trace_count;
    }
  }
  /* Kept in the order run before the median sorts them; a report that
   * cannot keep them still has the summary. */
  res->times = malloc(sizeof *res->times * (size_t)reps);
  if (res->times) {
    memcpy(res->times, s->seconds, sizeof *res->times * (size_t)reps);
    pub->times = res->times;
  }
  double mean = 0, squares = 0;
  for (int i = 0; i < reps; i++) mean += s->seconds[i] / reps;
  for (int i = 0; i < reps; i++)
    squares += (s->seconds[i] - mean) * (s->seconds[i] - mean);
  pub->t_stddev = reps > 1 ? sqrt(squares / (reps - 1)) : 0;
  pub->t_median = kl__median(s->seconds, reps);
  pub->t_min = s->seconds[0];
  pub->t_max = s->seconds[reps - 1];
  kl__median_interval(s->seconds, reps, &pub->t_low, &pub->t_high);
  memcpy(pub->counts, pr->counts, sizeof pub->counts);
  pr->w->cost(&pr->plan, pr->r, pr->counts, &pub->cost);
  /* On several ranks each did the work: the rate is all of theirs over
   * the slowest one's time. */
  pub->ranks = kl__ranks_count(pr->ranks);
  every_rank(&pub->cost, pr->ranks);
  pub->merit = kl__rate(pr->w, &pub->cost, pub->t_median);
  if (m->ceiling) {
    kl_cost c;
    m->ceiling->w->cost(&m->ceiling->plan, m->ceiling->r, m->ceiling->counts,
                        &c);
    every_rank(&c, pr->ranks);
    pub->ceiling = kl__rate(m->ceiling->w, &c, kl__median(m->cs.seconds, reps));
  }
  return KL_OK;
}

kl_status kl__measure_finish(kl__measuring *m, kl__energy *energy) {
  kl__result *res = m->res;
  kl_status st = m->st;
  if (st == KL_OK && !m->done)
    st = KL_FAIL(KL_USAGE, "a measurement finished before its runs ended");
  if (st == KL_OK) st = summarize(m);
  /* The ceiling's buffers go before the window (the last measurement
   * sharing them lets them go): it runs the rung alone. */
  ceiling_drop(m);
  /* Outside the timed runs, the rung's and the ceiling's; on one rank
   * (a window per rank would not be one device's energy). */
  if (st == KL_OK && energy && kl__ranks_count(m->t.ranks) < 2)
    st = energy_window(&m->pr, &m->s, energy, res);
  else if (st == KL_OK && energy)
    snprintf(res->energy_why, sizeof res->energy_why,
             "no energy window over several ranks");
  measuring_free(m);
  return kl__result_status(res, st);
}

kl_status kl__measure(const kl__job *job, kl_context *ctx,
                      const kl__timing *t, const kl__job *beside,
                      kl__energy *energy, kl__result *res) {
  kl__measuring *m = NULL;
  kl_status st = kl__measure_start(job, ctx, t, beside, NULL, res, &m);
  if (st != KL_OK) return st;
  int done = 0;
  while (!done) kl__measure_step(m, 0, &done);
  return kl__measure_finish(m, energy);
}
