/* The harness: sizes a problem to the machine, runs a rung on fresh random
 * inputs with poisoned outputs, checks every element, then times it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A default size may use this share of what is free, leaving room for the
 * system and for the other backends of the same run. */
#define DEFAULT_HOST_SHARE 0.5
#define DEFAULT_DEVICE_SHARE 0.8
/* An explicit size is refused beyond this share of what is free. */
#define EXPLICIT_HOST_SHARE 0.95

void kl_options_init(kl_options *o) {
  memset(o, 0, sizeof *o);
  o->type = KL_TYPE_DEFAULT;
  o->reps = 10;
  o->warmup = 2;
  o->seed = 20261121;
  o->max_seconds = 30;
}

/* ---- memory footprint -------------------------------------------------- */

typedef struct footprint {
  double host;   /* bytes of host memory the harness needs */
  double device; /* bytes of backend memory, 0 for host backends */
} footprint;

static kl_status buffer_bytes(const kl_buffer_spec *s, size_t *bytes) {
  size_t size = kl_type_size(s->type);
  if (s->count < 0 || size == 0 || (uint64_t)s->count > SIZE_MAX / size)
    return kl__usage(KL_TOO_LARGE, "buffer %s of %lld elements is too large",
                     s->name, (long long)s->count);
  *bytes = (size_t)s->count * size;
  return KL_OK;
}

static kl_status plan_footprint(const kl_plan *p, const kl_backend *b,
                                footprint *f) {
  f->host = f->device = 0;
  for (int i = 0; i < p->buffer_count; i++) {
    size_t bytes = 0;
    kl_status st = buffer_bytes(&p->buffers[i], &bytes);
    if (st != KL_OK) return st;
    kl_role role = p->buffers[i].role;
    if (b->host_memory) {
      /* Checked in place; an INOUT buffer also keeps its input. */
      f->host += (double)bytes * (role == KL_INOUT ? 2 : 1);
    } else {
      f->device += (double)bytes;
      f->host += (double)bytes * (role == KL_INOUT ? 2 : 1);
    }
  }
  return KL_OK;
}

/* A problem instance: what a plan is made from. */
typedef struct instance {
  int64_t n;
  kl_type type;
  uint64_t seed;
  int op, inputs;
  kl_shape shape; /* as given; the plan resolves it */
} instance;

/* One rung to run on one instance, in a run's list. */
typedef struct job {
  const kl_workload *w;
  const kl_rung *r;
  const kl_backend *b;
  instance in;
  int is_ceiling;
} job;

static kl_status make_plan(const kl_workload *w, const instance *in,
                           kl_plan *p) {
  memset(p, 0, sizeof *p);
  p->n = in->n;
  p->type = in->type;
  p->seed = in->seed;
  p->op = in->op;
  p->inputs = in->inputs;
  p->shape = in->shape;
  for (int i = 0; i < KL_MAX_DIMS; i++)
    if (in->shape.dims[i] < 0 || in->shape.lead[i] < 0)
      return kl__usage(KL_USAGE, "%s: extents and leading dimensions must be "
                       "positive", w->name);
  if (in->n < 1)
    return kl__usage(KL_USAGE, "%s: size %lld must be at least 1", w->name,
                     (long long)in->n);
  return w->plan(p);
}

static size_t list_length(const char *const *list) {
  size_t n = 0;
  while (list && list[n]) n++;
  return n;
}

/* Index of name in a workload's NULL-terminated list; NULL or "" is the
 * default (0). */
static kl_status find_name(const kl_workload *w, const char *const *list,
                           const char *what, const char *name, int *index) {
  *index = 0;
  if (!name || !*name) return KL_OK;
  if (!list)
    return kl__usage(KL_USAGE, "workload %s has no %ss (asked for '%s')",
                     w->name, what, name);
  char valid[256] = "";
  for (size_t i = 0; list[i]; i++) {
    if (strcmp(list[i], name) == 0) {
      *index = (int)i;
      return KL_OK;
    }
    size_t used = strlen(valid);
    snprintf(valid + used, sizeof valid - used, "%s%s", i ? ", " : "",
             list[i]);
  }
  return kl__usage(KL_USAGE, "unknown %s '%s' for %s; valid: %s", what, name,
                   w->name, valid);
}

const char *kl_result_op(const kl_result *r) {
  const char *const *ops = r->workload->ops;
  return ops && (size_t)r->op < list_length(ops) ? ops[r->op] : "";
}

const char *kl_result_inputs(const kl_result *r) {
  const char *const *in = r->workload->inputs;
  return in && (size_t)r->inputs < list_length(in) ? in[r->inputs] : "";
}

const char *kl_metric_unit(const kl_workload *w) {
  switch (w->metric) {
  case KL_METRIC_GBS: return "GB/s";
  case KL_METRIC_GFLOPS: return "GFLOP/s";
  case KL_METRIC_GITEMS: return w->item_unit ? w->item_unit : "G/s";
  }
  return "?";
}

/* Bytes in the largest unit up to GiB that keeps them at least 1: sizes
 * under a small KLADDER_MEMORY_LIMIT would read "0.00 GiB". */
static const char *bytes_text(double bytes, char *dst, size_t size) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB"};
  int u = 3;
  while (u > 0 && bytes < pow(1024.0, u)) u--;
  if (u == 0) snprintf(dst, size, "%.0f bytes", bytes);
  else snprintf(dst, size, "%.2f %s", bytes / pow(1024.0, u), units[u]);
  return dst;
}

/* A device's free and total memory, at most KLADDER_MEMORY_LIMIT. */
static kl_status device_memory(const kl_backend *b, size_t *free_bytes,
                               size_t *total_bytes) {
  size_t limit;
  kl_status st = kl__memory_limit(&limit);
  if (st == KL_OK) st = b->memory(free_bytes, total_bytes);
  if (st != KL_OK) return st;
  if (*free_bytes > limit) *free_bytes = limit;
  if (*total_bytes > limit) *total_bytes = limit;
  return KL_OK;
}

static kl_status check_fits(const kl_workload *w, const kl_plan *p,
                            const kl_backend *b) {
  footprint f;
  size_t limit;
  kl_status st = kl__memory_limit(&limit);
  if (st == KL_OK) st = plan_footprint(p, b, &f);
  if (st != KL_OK) return st;
  /* Say so where the limit, not the machine, refuses the size. */
  const char *limited = limit < SIZE_MAX ? " under KLADDER_MEMORY_LIMIT" : "";
  char need[32], have[32];
  /* The device first: where both fall short, its limit is the one that
   * the user can do nothing about on this machine. */
  if (!b->host_memory) {
    size_t dev_free = 0, dev_total = 0;
    st = device_memory(b, &dev_free, &dev_total);
    if (st != KL_OK) return st;
    if (f.device > (double)dev_total)
      return kl__usage(KL_TOO_LARGE,
                       "%s: n=%lld needs %s of %s memory; the device has %s%s",
                       w->name, (long long)p->n,
                       bytes_text(f.device, need, sizeof need), b->name,
                       bytes_text((double)dev_total, have, sizeof have),
                       limited);
  }
  double host_free = (double)kl__host_memory_available();
  if (host_free > 0 && f.host > EXPLICIT_HOST_SHARE * host_free)
    return kl__usage(KL_TOO_LARGE,
                     "%s: n=%lld needs %s of host memory; %s are "
                     "available%s",
                     w->name, (long long)p->n,
                     bytes_text(f.host, need, sizeof need),
                     bytes_text(host_free, have, sizeof have), limited);
  return KL_OK;
}

/* ---- one rung ---------------------------------------------------------- */

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static kl_status record(kl_result *res, kl_status st) {
  res->status = st;
  if (st != KL_OK)
    snprintf(res->error, sizeof res->error, "%s", kl_last_error());
  return st;
}

typedef struct buffers {
  void *dev[KL_MAX_BUFFERS];   /* the backend's buffers */
  void *in[KL_MAX_BUFFERS];    /* inputs as the checker sees them */
  void *out[KL_MAX_BUFFERS];   /* outputs as the checker sees them */
  void *owned[2 * KL_MAX_BUFFERS]; /* host allocations to free */
  int owned_count;
} buffers;

static void *host_buffer(buffers *bufs, size_t bytes) {
  void *p = NULL;
  if (kl__host_alloc(&p, bytes) != KL_OK) return NULL;
  bufs->owned[bufs->owned_count++] = p;
  return p;
}

static void release_buffers(const kl_plan *p, const kl_backend *b,
                            buffers *bufs) {
  for (int i = 0; i < p->buffer_count; i++)
    if (bufs->dev[i]) b->release(bufs->dev[i]);
  for (int i = 0; i < bufs->owned_count; i++) kl__host_release(bufs->owned[i]);
}

/* Allocate, fill with fresh inputs, upload and poison the outputs. */
static kl_status prepare_buffers(const kl_workload *w, const kl_plan *p,
                                 const kl_backend *b, buffers *bufs) {
  void *fill[KL_MAX_BUFFERS] = {0};
  size_t bytes[KL_MAX_BUFFERS] = {0};
  for (int i = 0; i < p->buffer_count; i++) {
    kl_status st = buffer_bytes(&p->buffers[i], &bytes[i]);
    if (st == KL_OK) st = b->alloc(&bufs->dev[i], bytes[i]);
    if (st != KL_OK) return st;
    kl_role role = p->buffers[i].role;
    if (b->host_memory) {
      fill[i] = bufs->in[i] = bufs->out[i] = bufs->dev[i];
      if (role == KL_INOUT && !(bufs->in[i] = host_buffer(bufs, bytes[i])))
        return KL_FAIL(KL_NO_MEMORY, "host allocation of %zu bytes failed",
                       bytes[i]);
    } else {
      if (role != KL_OUT && !(bufs->in[i] = host_buffer(bufs, bytes[i])))
        return KL_FAIL(KL_NO_MEMORY, "host allocation of %zu bytes failed",
                       bytes[i]);
      if (role != KL_IN && !(bufs->out[i] = host_buffer(bufs, bytes[i])))
        return KL_FAIL(KL_NO_MEMORY, "host allocation of %zu bytes failed",
                       bytes[i]);
      fill[i] = bufs->in[i];
    }
  }
  /* Large inputs may be made on the device; the checker then gets them
   * downloaded. */
  kl_status made = KL_UNAVAILABLE;
  if (!b->host_memory && w->init_device) {
    made = w->init_device(p, b, bufs->dev);
    if (made != KL_OK && made != KL_UNAVAILABLE) return made;
  }
  if (made != KL_OK) w->init(p, fill);
  for (int i = 0; i < p->buffer_count; i++) {
    kl_role role = p->buffers[i].role;
    kl_status st = KL_OK;
    if (made == KL_OK && role != KL_OUT)
      st = b->download(bufs->in[i], bufs->dev[i], bytes[i]);
    else if (role == KL_OUT)
      st = b->fill_bytes(bufs->dev[i], 0xFF, bytes[i]); /* NaN, -1, 255 */
    else if (!b->host_memory)
      st = b->upload(bufs->dev[i], bufs->in[i], bytes[i]);
    else if (role == KL_INOUT)
      st = kl__host_copy(bufs->in[i], bufs->dev[i], bytes[i]);
    if (st != KL_OK) return st;
  }
  return KL_OK;
}

static kl_status download_outputs(const kl_plan *p, const kl_backend *b,
                                  buffers *bufs) {
  if (b->host_memory) return KL_OK;
  for (int i = 0; i < p->buffer_count; i++) {
    if (p->buffers[i].role == KL_IN) continue;
    size_t bytes = 0;
    kl_status st = buffer_bytes(&p->buffers[i], &bytes);
    if (st == KL_OK) st = b->download(bufs->out[i], bufs->dev[i], bytes);
    if (st != KL_OK) return st;
  }
  return KL_OK;
}

/* Test hooks, so that the CLI's exit codes for a failed check and for a
 * runtime error can be shown end to end: KLADDER_INJECT_WRONG=RUNG spoils
 * one output element of that rung before the check, KLADDER_INJECT_ERROR=RUNG
 * makes it fail as a device error would. */
static kl_status inject_fault(const kl_plan *p, const kl_rung *r,
                              buffers *bufs) {
  const char *wrong = getenv("KLADDER_INJECT_WRONG");
  const char *error = getenv("KLADDER_INJECT_ERROR");
  if (error && strcmp(error, r->name) == 0)
    return KL_FAIL(KL_DEVICE, "injected runtime error (KLADDER_INJECT_ERROR)");
  if (!wrong || strcmp(wrong, r->name) != 0) return KL_OK;
  for (int i = 0; i < p->buffer_count; i++) {
    if (p->buffers[i].role == KL_IN) continue;
    size_t size = kl_type_size(p->buffers[i].type);
    unsigned char *elem =
        (unsigned char *)bufs->out[i] + (size_t)(p->buffers[i].count / 2) * size;
    elem[size - 1] ^= 0x40; /* an exponent bit of a float, a high bit else */
    break;
  }
  return KL_OK;
}

/* A rung made ready to run: its plan, its buffers filled and uploaded, its
 * scratch set up. */
typedef struct prepared {
  const kl_workload *w;
  const kl_rung *r;
  const kl_backend *b;
  kl_plan plan;
  buffers bufs;
  kl_args args;
  int set_up;
} prepared;

static kl_status prepare(prepared *pr, const kl_workload *w,
                         const kl_rung *r, const kl_backend *b,
                         const instance *in) {
  memset(pr, 0, sizeof *pr);
  pr->w = w;
  pr->r = r;
  pr->b = b;
  kl_status st = make_plan(w, in, &pr->plan);
  if (st == KL_OK) st = check_fits(w, &pr->plan, b);
  if (st != KL_OK) return st;
  pr->args.plan = &pr->plan;
  pr->args.stream = b->stream();
  st = prepare_buffers(w, &pr->plan, b, &pr->bufs);
  if (st == KL_OK) {
    memcpy(pr->args.buffers, pr->bufs.dev, sizeof pr->args.buffers);
    if (r->setup) st = r->setup(&pr->args);
    pr->set_up = st == KL_OK;
  }
  return st;
}

static void unprepare(prepared *pr) {
  if (pr->set_up && pr->r->teardown) pr->r->teardown(&pr->args);
  pr->set_up = 0;
  if (pr->b) release_buffers(&pr->plan, pr->b, &pr->bufs);
  pr->b = NULL;
}

static kl_status time_once(prepared *pr, double *seconds) {
  kl_status st = pr->b->timer_start();
  if (st == KL_OK) st = pr->r->run(&pr->args);
  if (st == KL_OK) st = pr->b->timer_stop(seconds);
  return st;
}

static double sorted_median(const double *t, int count) {
  return count % 2 ? t[count / 2] : 0.5 * (t[count / 2 - 1] + t[count / 2]);
}

/* Warm up, then time reps runs of the rung; with a ceiling, then warm up
 * and time as many of the ceiling, straight after. On a machine whose
 * bandwidth drifts (a shared virtual machine, clocks settling), rung and
 * ceiling are then measured seconds apart, under the same conditions.
 * Not run for run alternately: on a GPU each copy leaves the cache full of
 * dirty lines that the next kernel pays to write back. */
static kl_status time_runs(prepared *pr, int reps, int warmup, double *t) {
  kl_status st = KL_OK;
  for (int i = 0; i < warmup && st == KL_OK; i++) st = pr->r->run(&pr->args);
  if (st == KL_OK) st = pr->b->sync();
  for (int i = 0; i < reps && st == KL_OK; i++) st = time_once(pr, &t[i]);
  if (st == KL_OK) qsort(t, (size_t)reps, sizeof *t, compare_doubles);
  return st;
}

static kl_status run_and_time(prepared *pr, prepared *ceiling, int reps,
                              int warmup, kl_result *res,
                              double *ceiling_median) {
  double *times = malloc(sizeof *times * (size_t)reps);
  if (!times) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  kl_status st = time_runs(pr, reps, warmup, times);
  if (st == KL_OK) {
    res->t_median = sorted_median(times, reps);
    res->t_min = times[0];
    res->t_max = times[reps - 1];
  }
  if (st == KL_OK && ceiling) {
    st = time_runs(ceiling, reps, warmup > 0 ? warmup : 1, times);
    if (st == KL_OK) *ceiling_median = sorted_median(times, reps);
  }
  free(times);
  return st;
}

static double rate_of(const kl_workload *w, const kl_cost *c, double t) {
  double amount = w->metric == KL_METRIC_GBS      ? c->bytes
                  : w->metric == KL_METRIC_GFLOPS ? c->flops
                                                  : c->items;
  return t > 0 ? amount / t * 1e-9 : 0;
}

/* Prepare the bandwidth ceiling to time beside a rung; on failure (say
 * its buffers do not fit next to the rung's) there is none, and the run's
 * separately measured ceiling serves. */
static prepared *prepare_ceiling(prepared *slot, const job *ceiling) {
  if (!ceiling) return NULL;
  if (prepare(slot, ceiling->w, ceiling->r, ceiling->b, &ceiling->in) ==
      KL_OK)
    return slot;
  unprepare(slot);
  return NULL;
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

static kl_status measure(const kl_workload *w, const kl_rung *r,
                         const kl_backend *b, const instance *in, int reps,
                         int warmup, double max_seconds,
                         const job *ceiling_job, kl_result *res) {
  const kl_type type = in->type;
  memset(res, 0, sizeof *res);
  res->workload = w;
  res->rung = r;
  res->n = in->n;
  res->type = type;
  res->op = in->op;
  res->inputs = in->inputs;
  res->shape = in->shape;
  res->verdict.first_bad = -1;
  res->check = KL_CHECK_FAIL;
  if (!r->run)
    return record(res, kl__usage(KL_UNAVAILABLE,
                                 "rung %s is not built into this library",
                                 r->name));
  if (reps < 1 || warmup < 0 || reps > KL_MAX_REPS || warmup > KL_MAX_REPS)
    return record(res, kl__usage(KL_USAGE, "reps must be from 1 to %d, "
                                 "warm-up from 0 to %d", KL_MAX_REPS,
                                 KL_MAX_REPS));
  if ((int)type < 0 || type >= KL_TYPE_COUNT ||
      !(w->types & KL_TYPE_BIT(type)) ||
      (r->types && !(r->types & KL_TYPE_BIT(type))))
    return record(res, kl__usage(KL_USAGE, "%s %s has no type %s", w->name,
                                 r->name, kl_type_name(type)));

  prepared pr, ceiling_slot;
  kl_status st = prepare(&pr, w, r, b, in);
  if (st == KL_OK) {
    w->cost(&pr.plan, r, &res->cost);
    res->shape = pr.plan.shape;
  }
  /* The first run after the upload is the checked one. */
  double started = kl__now();
  if (st == KL_OK) st = r->run(&pr.args);
  if (st == KL_OK) st = b->sync();
  fit_runs(max_seconds, kl__now() - started, &reps, &warmup);
  res->reps = reps;
  if (st == KL_OK) st = download_outputs(&pr.plan, b, &pr.bufs);
  if (st == KL_OK) st = inject_fault(&pr.plan, r, &pr.bufs);
  if (st == KL_OK) {
    w->check(&pr.plan, r, pr.bufs.in, pr.bufs.out, &res->verdict);
    if (r->flags & KL_RUNG_KNOWN_WRONG)
      res->check = res->verdict.passed ? KL_CHECK_MISSED : KL_CHECK_CAUGHT;
    else
      res->check = res->verdict.passed ? KL_CHECK_PASS : KL_CHECK_FAIL;
    prepared *ceiling = prepare_ceiling(&ceiling_slot, ceiling_job);
    double ceiling_median = 0;
    st = run_and_time(&pr, ceiling, reps, warmup, res, &ceiling_median);
    if (ceiling) {
      kl_cost c;
      ceiling->w->cost(&ceiling->plan, ceiling->r, &c);
      res->ceiling = rate_of(ceiling->w, &c, ceiling_median);
      unprepare(ceiling);
    }
  }
  unprepare(&pr);
  if (st == KL_OK) res->merit = rate_of(w, &res->cost, res->t_median);
  return record(res, st);
}

/* What part of a given shape the workload has no names for, or NULL. */
static const char *shape_unused(const kl_workload *w, const kl_shape *s) {
  size_t dims = list_length(w->dims), leads = list_length(w->leads),
         scalars = list_length(w->scalars);
  for (size_t i = 0; i < KL_MAX_DIMS; i++) {
    if (s->dims[i] && i >= dims) return dims ? "that many extents" : "shape";
    if (s->lead[i] && i >= leads)
      return leads ? "that many leading dimensions" : "leading dimensions";
    if ((s->scalars_set >> i & 1) && i >= scalars)
      return scalars ? "that many scalars" : "scalars";
  }
  return NULL;
}

/* The instance a kl_problem names, its type and names resolved. */
static kl_status problem_instance(const kl_workload *w, const kl_problem *pb,
                                  instance *in) {
  memset(in, 0, sizeof *in);
  in->n = pb->n;
  in->type = pb->type == KL_TYPE_DEFAULT ? w->default_type : pb->type;
  in->seed = pb->seed;
  in->shape = pb->shape;
  const char *unused = shape_unused(w, &pb->shape);
  if (unused) return kl__usage(KL_USAGE, "%s has no %s", w->name, unused);
  /* Every extent given: n is not needed. */
  if (in->n == 0 && w->dims && pb->shape.dims[0]) in->n = pb->shape.dims[0];
  if ((int)in->type < 0 || in->type >= KL_TYPE_COUNT ||
      !(w->types & KL_TYPE_BIT(in->type)))
    return kl__usage(KL_USAGE, "%s has no type %s", w->name,
                     kl_type_name(in->type));
  kl_status st = find_name(w, w->ops, "op", pb->op, &in->op);
  if (st == KL_OK)
    st = find_name(w, w->inputs, "input pattern", pb->inputs, &in->inputs);
  return st;
}

kl_status kl_run_rung(const kl_workload *w, const kl_rung *r,
                      const kl_problem *pb, int reps, int warmup,
                      kl_result *out) {
  const kl_backend *b = kl_backend_find(r->backend);
  memset(out, 0, sizeof *out);
  out->workload = w;
  out->rung = r;
  if (!b || !kl_backend_available(b, NULL, 0))
    return record(out, kl__usage(KL_UNAVAILABLE,
                                 "backend %s is not available here",
                                 r->backend));
  instance in;
  kl_status st = problem_instance(w, pb, &in);
  if (st != KL_OK) return record(out, st);
  st = measure(w, r, b, &in, reps, warmup, 0, NULL, out);
  if (st != KL_OK) return st;
  return out->check == KL_CHECK_FAIL ? KL_CHECK_FAILED : KL_OK;
}

/* ---- selection --------------------------------------------------------- */

/* Whether `name` is one of the comma-separated names in `list`. */
static int listed(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    size_t item = end ? (size_t)(end - p) : strlen(p);
    if (item == len && strncmp(p, name, len) == 0) return 1;
    p = end ? end + 1 : NULL;
  }
  return 0;
}

typedef kl_status (*name_check_fn)(const char *name, void *ctx);

/* Call check on every item of a comma-separated list; empty items are
 * usage errors. */
static kl_status each_name(const char *list, const char *what,
                           name_check_fn check, void *ctx) {
  if (!list) return KL_OK;
  if (!*list) return kl__usage(KL_USAGE, "empty %s list", what);
  for (const char *p = list; p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char name[128];
    if (len == 0 || len >= sizeof name)
      return kl__usage(KL_USAGE, "bad %s list '%s'", what, list);
    memcpy(name, p, len);
    name[len] = '\0';
    kl_status st = check(name, ctx);
    if (st != KL_OK) return st;
    p = end ? end + 1 : NULL;
  }
  return KL_OK;
}

/* Append ", name" items to a bounded message buffer. */
static void append(char *dst, size_t size, const char *fmt, ...) {
  size_t used = strlen(dst);
  if (used >= size) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst + used, size - used, fmt, ap);
  va_end(ap);
}

static kl_status check_workload_name(const char *name, void *ctx) {
  (void)ctx;
  if (kl_workload_find(name)) return KL_OK;
  char valid[512] = "";
  for (size_t i = 0; i < kl_workload_count(); i++)
    append(valid, sizeof valid, "%s%s", i ? ", " : "", kl_workload_at(i)->name);
  return kl__usage(KL_USAGE, "unknown workload '%s'; valid: %s", name, valid);
}

static kl_status check_backend_name(const char *name, void *ctx) {
  (void)ctx;
  const kl_backend *b = kl_backend_find(name);
  char info[256];
  if (!b) {
    char valid[256] = "";
    for (size_t i = 0; i < kl_backend_count(); i++)
      append(valid, sizeof valid, "%s%s", i ? ", " : "", kl_backend_at(i)->name);
    return kl__usage(KL_USAGE, "unknown backend '%s'; valid: %s", name, valid);
  }
  if (!kl_backend_available(b, info, sizeof info))
    return kl__usage(KL_UNAVAILABLE, "backend '%s' is not available here: %s",
                     name, info);
  return KL_OK;
}

static int workload_selected(const kl_options *o, const kl_workload *w) {
  return !o->workloads || listed(o->workloads, w->name);
}

static kl_status check_rung_name(const char *name, void *ctx) {
  const kl_options *o = ctx;
  char valid[1024] = "";
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    if (!workload_selected(o, w)) continue;
    const kl_rung *r = kl_rung_find(w, name);
    if (r) {
      const kl_backend *b = kl_backend_find(r->backend);
      char info[256] = "";
      if (!r->run)
        return kl__usage(KL_UNAVAILABLE, "rung '%s' is not built into this "
                         "library", name);
      if (!b || !kl_backend_available(b, info, sizeof info))
        return kl__usage(KL_UNAVAILABLE, "rung '%s' needs backend '%s', which "
                         "is not available here: %s", name, r->backend, info);
      return KL_OK;
    }
    append(valid, sizeof valid, "%s%s:", valid[0] ? "; " : "", w->name);
    for (size_t j = 0; j < w->rung_count; j++)
      append(valid, sizeof valid, " %s", w->rungs[j].name);
  }
  return kl__usage(KL_USAGE, "unknown rung '%s'; valid: %s", name, valid);
}

/* ---- the run ----------------------------------------------------------- */

typedef struct job_list {
  job *items;
  size_t count, capacity;
} job_list;

static kl_status push_job(job_list *l, job j) {
  if (l->count == l->capacity) {
    size_t cap = l->capacity ? 2 * l->capacity : 32;
    job *grown = realloc(l->items, cap * sizeof *grown);
    if (!grown) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
    l->items = grown;
    l->capacity = cap;
  }
  l->items[l->count++] = j;
  return KL_OK;
}

static int rung_selected(const kl_options *o, const kl_rung *r, kl_type t) {
  const kl_backend *b = kl_backend_find(r->backend);
  if (!r->run || !b || !kl_backend_available(b, NULL, 0)) return 0;
  if (o->backends && !listed(o->backends, r->backend)) return 0;
  if (o->rungs && !listed(o->rungs, r->name)) return 0;
  return r->types == 0 || (r->types & KL_TYPE_BIT(t));
}

/* The size a workload runs at: the one asked for, or its default shrunk to
 * fit every backend it will run on, with a note when it was shrunk. */
static kl_status choose_size(const kl_options *o, const kl_workload *w,
                             instance *in, const job_list *jobs, char *note,
                             size_t note_size) {
  if (o->n > 0 || (w->dims && in->shape.dims[0])) {
    in->n = o->n > 0 ? o->n : in->shape.dims[0];
    return KL_OK;
  }
  kl_plan p;
  in->n = w->default_n;
  kl_status st = make_plan(w, in, &p);
  if (st != KL_OK) return st;
  double scale = 1.0, host_free = (double)kl__host_memory_available();
  const char *limit = NULL;
  for (size_t i = 0; i < kl_backend_count(); i++) {
    const kl_backend *b = kl_backend_at(i);
    int used = 0;
    for (size_t j = 0; j < jobs->count; j++)
      used |= jobs->items[j].w == w && jobs->items[j].b == b;
    if (!used) continue;
    footprint f;
    st = plan_footprint(&p, b, &f);
    if (st != KL_OK) return st;
    if (host_free > 0 && f.host > DEFAULT_HOST_SHARE * host_free &&
        DEFAULT_HOST_SHARE * host_free / f.host < scale) {
      scale = DEFAULT_HOST_SHARE * host_free / f.host;
      limit = "host";
    }
    size_t dev_free = 0, dev_total = 0;
    if (!b->host_memory &&
        device_memory(b, &dev_free, &dev_total) == KL_OK &&
        f.device > DEFAULT_DEVICE_SHARE * (double)dev_free &&
        DEFAULT_DEVICE_SHARE * (double)dev_free / f.device < scale) {
      scale = DEFAULT_DEVICE_SHARE * (double)dev_free / f.device;
      limit = b->name;
    }
  }
  if (scale < 1.0) {
    int64_t fitted, unit;
    if (w->dims) { /* matrices: memory grows as n squared */
      fitted = (int64_t)((double)w->default_n * sqrt(scale));
      unit = 256;
    } else {
      fitted = (int64_t)((double)w->default_n * scale);
      unit = (int64_t)1 << 20; /* whole mebi-elements */
    }
    /* Where not even one unit fits (a small KLADDER_MEMORY_LIMIT), a power
     * of two, rather than rounding down to a single element. */
    while (unit > 1 && fitted < unit) unit /= 2;
    fitted -= fitted % unit;
    if (fitted < 1) fitted = 1;
    in->n = fitted;
    append(note, note_size,
           "%s: n = %lld instead of the default %lld, to fit in %s memory. ",
           w->name, (long long)fitted, (long long)w->default_n, limit);
  }
  return KL_OK;
}

static void progress(const kl_options *o, const char *fmt, ...) {
  if (!o->progress) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  o->progress(o->progress_ctx, line);
}

/* The instance a workload runs with under these options, or a reason to
 * skip it (KL_UNAVAILABLE with a note) or to stop (other statuses). */
static kl_status workload_instance(const kl_options *o, const kl_workload *w,
                                   instance *in, kl_report *rep) {
  memset(in, 0, sizeof *in);
  in->seed = o->seed;
  in->type = o->type == KL_TYPE_DEFAULT ? w->default_type : o->type;
  in->shape = o->shape;
  const char *reason = NULL;
  const char *unused = shape_unused(w, &o->shape);
  if (!(w->types & KL_TYPE_BIT(in->type))) reason = "type";
  else if (o->op && !w->ops) reason = "op";
  else if (o->inputs && !w->inputs) reason = "inputs";
  if (!reason && unused) {
    if (o->workloads) return kl__usage(KL_USAGE, "%s has no %s", w->name,
                                       unused);
    append(rep->notes, sizeof rep->notes, "%s: skipped, it has no %s. ",
           w->name, unused);
    return KL_UNAVAILABLE;
  }
  if (reason) {
    /* A workload named on purpose must accept the options; in a run of
     * every workload, those that cannot are skipped and said so. */
    const char *value = reason[0] == 't' ? kl_type_name(in->type)
                        : reason[0] == 'o' ? o->op : o->inputs;
    if (o->workloads)
      return kl__usage(KL_USAGE, "workload %s has no %s %s", w->name,
                       reason[0] == 't' ? "type" : reason, value);
    append(rep->notes, sizeof rep->notes, "%s: skipped, it has no %s %s. ",
           w->name, reason[0] == 't' ? "type" : reason, value);
    return KL_UNAVAILABLE;
  }
  kl_status st = find_name(w, w->ops, "op", o->op, &in->op);
  if (st == KL_OK)
    st = find_name(w, w->inputs, "input pattern", o->inputs, &in->inputs);
  return st;
}

/* Build the job list: the selected rungs in ladder order, preceded by the
 * bandwidth ceiling of each backend that a memory-bound rung runs on. */
static kl_status plan_jobs(const kl_options *o, job_list *jobs,
                           kl_report *rep) {
  job_list selected = {0};
  kl_status st = KL_OK;
  for (size_t i = 0; i < kl_workload_count() && st == KL_OK; i++) {
    const kl_workload *w = kl_workload_at(i);
    if (!workload_selected(o, w)) continue;
    instance in;
    st = workload_instance(o, w, &in, rep);
    if (st == KL_UNAVAILABLE) {
      st = KL_OK;
      continue;
    }
    size_t first = selected.count;
    for (size_t j = 0; j < w->rung_count && st == KL_OK; j++) {
      const kl_rung *r = &w->rungs[j];
      if (!rung_selected(o, r, in.type)) continue;
      job jb = {w, r, kl_backend_find(r->backend), in, 0};
      st = push_job(&selected, jb);
    }
    if (st == KL_OK && selected.count > first)
      st = choose_size(o, w, &in, &selected, rep->notes, sizeof rep->notes);
    for (size_t j = first; j < selected.count; j++) {
      job *jb = &selected.items[j];
      jb->in = in;
      /* Host backends take the workload's smaller default. */
      if (jb->b->host_memory && w->host_default_n && o->n == 0 &&
          !in.shape.dims[0] && in.n > w->host_default_n)
        jb->in.n = w->host_default_n;
    }
    /* A size that cannot fit is refused before anything runs. */
    for (size_t j = first; j < selected.count && st == KL_OK; j++) {
      kl_plan p;
      st = make_plan(w, &selected.items[j].in, &p);
      if (st == KL_OK) st = check_fits(w, &p, selected.items[j].b);
    }
  }
  if (st == KL_OK && selected.count == 0)
    st = kl__usage(KL_UNAVAILABLE, "nothing to run: no available rung matches "
                   "the selection");
  if (st == KL_OK && !o->skip_ceiling) {
    for (size_t i = 0; i < kl_backend_count() && st == KL_OK; i++) {
      const kl_backend *b = kl_backend_at(i);
      int needed = 0;
      for (size_t j = 0; j < selected.count; j++)
        needed |= selected.items[j].b == b &&
                  selected.items[j].w->metric == KL_METRIC_GBS;
      const kl_workload *sw = NULL;
      const kl_rung *cr = needed ? kl__ceiling_rung(&sw, b->name) : NULL;
      if (!cr) continue;
      job jb;
      memset(&jb, 0, sizeof jb);
      jb.w = sw;
      jb.r = cr;
      jb.b = b;
      jb.in.type = sw->default_type;
      jb.in.seed = o->seed;
      jb.is_ceiling = 1;
      job_list one = {&jb, 1, 1};
      kl_options defaults = *o;
      defaults.n = 0;
      st = choose_size(&defaults, sw, &jb.in, &one, rep->notes,
                       sizeof rep->notes);
      int found = 0;
      for (size_t j = 0; j < selected.count; j++) {
        job *s = &selected.items[j];
        if (s->r == cr && memcmp(&s->in, &jb.in, sizeof jb.in) == 0)
          s->is_ceiling = found = 1;
      }
      if (!found && st == KL_OK) st = push_job(jobs, jb);
    }
  }
  for (size_t j = 0; j < selected.count && st == KL_OK; j++)
    st = push_job(jobs, selected.items[j]);
  free(selected.items);
  return st;
}


static int same_instance(const job *a, const job *b) {
  return a->w == b->w && memcmp(&a->in, &b->in, sizeof a->in) == 0;
}

/* The bandwidth ceiling to time beside a memory-bound rung: its backend's
 * ceiling job, unless the rung is that job. */
static const job *ceiling_beside(const job_list *jobs, const job *jb) {
  if (jb->w->metric != KL_METRIC_GBS || jb->is_ceiling) return NULL;
  for (size_t i = 0; i < jobs->count; i++)
    if (jobs->items[i].is_ceiling && jobs->items[i].b == jb->b)
      return &jobs->items[i];
  return NULL;
}

/* Percent of ceiling and speedup, once every job has run. */
static void relate_results(const job_list *jobs, kl_report *rep) {
  for (size_t i = 0; i < rep->count; i++) {
    kl_result *res = &rep->results[i];
    const job *ji = &jobs->items[i];
    if (res->status != KL_OK) continue;
    /* A ceiling timed beside the rung is already in; else the ceiling
     * job's own figure. */
    for (size_t j = 0; j < rep->count && res->ceiling == 0; j++) {
      const kl_result *c = &rep->results[j];
      const job *jj = &jobs->items[j];
      if (c->status != KL_OK || c->check != KL_CHECK_PASS) continue;
      /* A host vendor library (threaded) serves every host backend. */
      int same_memory = jj->b == ji->b ||
                        (res->workload->metric != KL_METRIC_GBS &&
                         jj->b->host_memory && ji->b->host_memory);
      if (!same_memory) continue;
      if (res->workload->metric == KL_METRIC_GBS && jj->is_ceiling)
        res->ceiling = c->merit;
      else if (res->workload->metric != KL_METRIC_GBS &&
               same_instance(jj, ji) && (c->rung->flags & KL_RUNG_VENDOR))
        res->ceiling = c->merit;
    }
    if (res->ceiling > 0) res->percent = 100.0 * res->merit / res->ceiling;
    for (size_t j = 0; j < rep->count; j++) {
      const kl_result *base = &rep->results[j];
      if (same_instance(&jobs->items[j], ji) && base->status == KL_OK) {
        res->speedup = base->t_median / res->t_median;
        break;
      }
    }
  }
}

kl_status kl_run(const kl_options *opt, kl_report **out) {
  *out = NULL;
  kl_options o = *opt;
  /* The bound keeps the timings' array small (8 MB) and a run finite. */
  if (o.reps < 1 || o.reps > KL_MAX_REPS)
    return kl__usage(KL_USAGE, "--reps must be from 1 to %d (got %d)",
                     KL_MAX_REPS, o.reps);
  if (o.warmup < 0 || o.warmup > KL_MAX_REPS)
    return kl__usage(KL_USAGE, "--warmup must be from 0 to %d (got %d)",
                     KL_MAX_REPS, o.warmup);
  size_t limit;
  kl_status st = kl__memory_limit(&limit);
  if (st != KL_OK) return st;
  if (o.n < 0)
    return kl__usage(KL_USAGE, "size %lld is negative", (long long)o.n);
  st = each_name(o.workloads, "workload", check_workload_name, NULL);
  if (st == KL_OK)
    st = each_name(o.backends, "backend", check_backend_name, NULL);
  if (st == KL_OK) st = each_name(o.rungs, "rung", check_rung_name, &o);
  if (st != KL_OK) return st;

  kl_report *rep = calloc(1, sizeof *rep);
  if (!rep) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  rep->options = o;
  kl_machine_describe(&rep->machine);
  job_list jobs = {0};
  st = plan_jobs(&o, &jobs, rep);
  if (st == KL_OK) {
    rep->results = calloc(jobs.count, sizeof *rep->results);
    if (!rep->results) st = KL_FAIL(KL_NO_MEMORY, "out of host memory");
  }
  if (st != KL_OK) {
    free(jobs.items);
    kl_report_free(rep);
    return st;
  }
  if (rep->notes[0]) progress(&o, "note: %s", rep->notes);

  kl_status worst = KL_OK;
  for (size_t i = 0; i < jobs.count; i++) {
    const job *jb = &jobs.items[i];
    kl_result *res = &rep->results[rep->count++];
    char size[96];
    kl__size_text(jb->w, jb->in.n, &jb->in.shape, size, sizeof size);
    progress(&o, "[%zu/%zu] %s %s (%s, n=%s, %s%s%s)%s ...", i + 1,
             jobs.count, jb->w->name, jb->r->name, jb->b->name, size,
             kl_type_name(jb->in.type),
             jb->w->ops ? " " : "", jb->w->ops ? jb->w->ops[jb->in.op] : "",
             jb->is_ceiling ? " ceiling" : "");
    double started = kl__now();
    st = measure(jb->w, jb->r, jb->b, &jb->in, o.reps, o.warmup, o.max_seconds,
                 ceiling_beside(&jobs, jb), res);
    if (st != KL_OK) {
      progress(&o, "    error: %s", res->error);
      /* The run goes on; its status is the worst by exit code: device
       * errors over bad input over failed checks. */
      if (kl_exit_code(st) > kl_exit_code(worst)) worst = st;
      continue;
    }
    progress(&o, "    %.3f ms median, %.1f %s, %s (%.1f s)",
             res->t_median * 1e3, res->merit, kl_metric_unit(jb->w),
             kl__check_text(res), kl__now() - started);
    if (res->check == KL_CHECK_FAIL && kl_exit_code(worst) < 1)
      worst = KL_CHECK_FAILED;
  }
  relate_results(&jobs, rep);
  free(jobs.items);
  *out = rep;
  if (worst != KL_OK && worst != KL_CHECK_FAILED) {
    /* Keep the first rung error as the message of the run. */
    for (size_t i = 0; i < rep->count; i++)
      if (rep->results[i].status != KL_OK) {
        kl__usage(worst, "%s %s: %s", rep->results[i].workload->name,
                  rep->results[i].rung->name, rep->results[i].error);
        break;
      }
  }
  return worst;
}

void kl_report_free(kl_report *r) {
  if (!r) return;
  free(r->results);
  free(r);
}

/* ---- library entry points ---------------------------------------------- */

static const kl_backend *default_backend(void) {
  /* The GPU when there is one, else every host core. */
  for (size_t i = kl_backend_count(); i-- > 0;)
    if (kl_backend_available(kl_backend_at(i), NULL, 0))
      return kl_backend_at(i);
  return NULL;
}

static const kl_rung *fastest_rung(const kl_workload *w, const kl_backend *b,
                                   kl_type type) {
  /* Ladders run from naive to best: the last hand-written rung wins. */
  for (size_t i = w->rung_count; i-- > 0;) {
    const kl_rung *r = &w->rungs[i];
    if (strcmp(r->backend, b->name) == 0 && r->run &&
        !(r->flags & (KL_RUNG_VENDOR | KL_RUNG_KNOWN_WRONG)) &&
        (r->types == 0 || (r->types & KL_TYPE_BIT(type))))
      return r;
  }
  return NULL;
}

kl_status kl__run_fastest(const kl_workload *w, const char *backend,
                          const kl_problem *pb, void *const *user,
                          int data_on_device) {
  const kl_backend *b = backend ? kl_backend_find(backend) : default_backend();
  if (backend && !b) return check_backend_name(backend, NULL);
  if (!b || !kl_backend_available(b, NULL, 0))
    return kl__usage(KL_UNAVAILABLE, "backend '%s' is not available here",
                     backend ? backend : "(any)");
  instance in;
  kl_status st = problem_instance(w, pb, &in);
  kl_plan p;
  if (st == KL_OK) st = make_plan(w, &in, &p);
  if (st != KL_OK) return st;
  const kl_rung *r = fastest_rung(w, b, in.type);
  if (!r)
    return kl__usage(KL_UNAVAILABLE, "%s has no rung on backend %s", w->name,
                     b->name);
  for (int i = 0; i < p.buffer_count; i++)
    if (!user[i])
      return kl__usage(KL_USAGE, "%s: buffer %s is NULL", w->name,
                       p.buffers[i].name);

  kl_args args;
  memset(&args, 0, sizeof args);
  args.plan = &p;
  args.stream = b->stream();
  int owned[KL_MAX_BUFFERS] = {0};
  for (int i = 0; i < p.buffer_count && st == KL_OK; i++) {
    size_t bytes = 0;
    st = buffer_bytes(&p.buffers[i], &bytes);
    /* Outputs of a few elements (a reduction's result) land in host
     * memory; inputs, and buffers read and written, stay where they are. */
    int in_place = p.buffers[i].role != KL_OUT &&
                   (data_on_device || b->host_memory);
    if (st != KL_OK) break;
    if (in_place) {
      args.buffers[i] = user[i];
      continue;
    }
    st = b->alloc(&args.buffers[i], bytes);
    owned[i] = st == KL_OK;
    if (st == KL_OK && p.buffers[i].role != KL_OUT)
      st = b->upload(args.buffers[i], user[i], bytes);
  }
  int set_up = 0;
  if (st == KL_OK && r->setup) {
    st = r->setup(&args);
    set_up = st == KL_OK;
  }
  if (st == KL_OK) st = r->run(&args);
  if (st == KL_OK) st = b->sync();
  for (int i = 0; i < p.buffer_count && st == KL_OK; i++) {
    size_t bytes = 0;
    if (!owned[i] || p.buffers[i].role == KL_IN) continue;
    st = buffer_bytes(&p.buffers[i], &bytes);
    if (st == KL_OK) st = b->download(user[i], args.buffers[i], bytes);
  }
  if (set_up && r->teardown) r->teardown(&args);
  for (int i = 0; i < p.buffer_count; i++)
    if (owned[i]) b->release(args.buffers[i]);
  return st;
}
