/* kl_run: select the rungs, size each workload, plan the ceilings, open a
 * context per backend, measure every job, and relate the results. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

void kl_options_init(kl_options *o) {
  memset(o, 0, sizeof *o);
  o->type = KL_TYPE_DEFAULT;
  o->reps = 10;
  o->warmup = 2;
  o->seed = 20261121;
  o->max_seconds = 30;
}

/* ---- selection --------------------------------------------------------- */

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
      return kl__usage(KL_USAGE, "bad %s list " KL_Q ": an empty or "
                       "overlong name", what, KL_CLIP(list));
    memcpy(name, p, len);
    name[len] = '\0';
    kl_status st = check(name, ctx);
    if (st != KL_OK) return st;
    p = end ? end + 1 : NULL;
  }
  return KL_OK;
}

static kl_status check_workload_name(const char *name, void *ctx) {
  (void)ctx;
  if (kl_workload_find(name)) return KL_OK;
  char valid[512] = "";
  for (size_t i = 0; i < kl_workload_count(); i++)
    kl__append(valid, sizeof valid, "%s%s", i ? ", " : "",
               kl_workload_at(i)->name);
  return kl__usage(KL_USAGE, "unknown workload " KL_Q "; valid: %s",
                   KL_CLIP(name), valid);
}

static kl_status check_backend_name(const char *name, void *ctx) {
  (void)ctx;
  const kl_backend *b;
  return kl__backend_named(name, &b);
}

static int workload_selected(const kl_options *o, const kl_workload *w) {
  return !o->workloads || kl__listed(o->workloads, w->name);
}

static int rung_built(const kl_rung *r) { return r->run || r->run_reps; }

static kl_status check_rung_name(const char *name, void *ctx) {
  const kl_options *o = ctx;
  char valid[1024] = "";
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    if (!workload_selected(o, w)) continue;
    const kl_rung *r = kl_rung_find(w, name);
    if (r) {
      char info[256] = "";
      if (!rung_built(r))
        return kl__usage(KL_UNAVAILABLE, "rung '%s' is not built into this "
                         "library", name);
      if (!kl_backend_available(r->backend, info, sizeof info))
        return kl__usage(KL_UNAVAILABLE, "rung '%s' needs backend '%s', which "
                         "is not available here: %s", name, r->backend->name,
                         info);
      return KL_OK;
    }
    for (const kl_retired_rung *old = w->retired; old && old->name; old++)
      if (strcmp(old->name, name) == 0)
        return kl__usage(KL_USAGE, "%s rung '%s' is no more: it is %s", w->name,
                         name, old->now);
    kl__append(valid, sizeof valid, "%s%s:", valid[0] ? "; " : "", w->name);
    for (size_t j = 0; j < w->rung_count; j++)
      kl__append(valid, sizeof valid, " %s", w->rungs[j].name);
  }
  return kl__usage(KL_USAGE, "unknown rung " KL_Q "; valid: %s",
                   KL_CLIP(name), valid);
}

static int rung_selected(const kl_options *o, const kl_rung *r, kl_type t) {
  if (!rung_built(r) || !kl_backend_available(r->backend, NULL, 0)) return 0;
  if (o->backends && !kl__listed(o->backends, r->backend->name)) return 0;
  if (o->rungs && !kl__listed(o->rungs, r->name)) return 0;
  return r->types == 0 || (r->types & KL_TYPE_BIT(t));
}

/* ---- jobs -------------------------------------------------------------- */

/* One rung to run on one instance, in a run's list. */
typedef struct job {
  const kl_workload *w;
  const kl_rung *r;
  kl__instance in;
  int is_ceiling;
  /* The job whose rung is this one's ceiling (RUNG and BOUND ceilings),
   * timed beside it; -1 for none. */
  ptrdiff_t ceiling;
} job;

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

static int measured_beside(const kl_workload *w) {
  return w->ceiling.of && (w->ceiling.kind == KL_CEILING_RUNG ||
                           w->ceiling.kind == KL_CEILING_BOUND);
}

/* The ceiling-flagged rung of workload `of` on backend b, or NULL. */
static const kl_rung *ceiling_rung(const kl_workload *of, const kl_backend *b) {
  for (size_t i = 0; i < of->rung_count; i++) {
    const kl_rung *r = &of->rungs[i];
    if ((r->flags & KL_RUNG_CEILING) && r->backend == b && rung_built(r))
      return r;
  }
  return NULL;
}

/* The jobs of one workload: its selected rungs in ladder order, at the
 * size asked for or its default shrunk to fit them all. In a run of
 * several workloads, one that cannot take the options (a parameter, type
 * or shape it lacks, a size beyond its range or this machine's memory) is
 * skipped with a note, and the others run; alone, it is an error. */
static kl_status workload_jobs(const kl_options *o, const kl_workload *w,
                               int alone, job_list *selected,
                               kl_report *rep) {
  kl__instance in;
  kl_status st = kl__instance_from_options(o, w, &in, alone, rep->notes,
                                           sizeof rep->notes);
  if (st == KL_UNAVAILABLE) return KL_OK; /* skipped, with its note */
  if (st != KL_OK) return st;
  const kl_rung *chosen[256];
  size_t count = 0;
  for (size_t j = 0; j < w->rung_count && count < 256; j++)
    if (rung_selected(o, &w->rungs[j], in.type)) chosen[count++] = &w->rungs[j];
  if (count == 0) return KL_OK;
  st = kl__fit_default_size(w, &in, chosen, count, rep->notes,
                            sizeof rep->notes);
  if (st == KL_OK)
    st = kl__fit_chunks(w, &in, chosen, count, rep->notes, sizeof rep->notes);
  /* A size that cannot fit is refused before anything runs. */
  for (size_t j = 0; j < count && st == KL_OK; j++) {
    kl_plan p;
    st = kl__plan_make(w, chosen[j], &in,
                       kl_backend_host_memory(chosen[j]->backend), &p);
    if (st == KL_OK) st = kl__check_fits(w, &p, chosen[j]->backend);
  }
  if (st == KL_TOO_LARGE && !alone) {
    kl__append(rep->notes, sizeof rep->notes, "skipped %s. ",
               kl_last_error());
    return KL_OK;
  }
  for (size_t j = 0; j < count && st == KL_OK; j++) {
    /* Host backends take their smaller default: a different instance, so
     * speedups compare like with like. */
    job jb = {w, chosen[j], in, 0, -1};
    jb.in.n = kl__instance_size(w, &in,
                                kl_backend_host_memory(chosen[j]->backend));
    jb.in.n_given = 1;
    st = push_job(selected, jb);
  }
  return st;
}

static int same_instance(const job *a, const job *b) {
  return a->w == b->w && memcmp(&a->in, &b->in, sizeof a->in) == 0;
}

/* Whether two jobs of workload w run the same problem: the same size,
 * type, seed and parameters, however each was given. */
static int same_problem(const kl_workload *w, const kl__instance *a,
                        const kl__instance *b) {
  const int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
  const uint64_t other = main >= 0 ? ~(1ull << main) : ~0ull;
  if (a->n != b->n || a->type != b->type || a->seed != b->seed ||
      (a->given & other) != (b->given & other))
    return 0;
  for (int i = 0; i < w->param_count; i++)
    if (i != main && (a->given >> i & 1) && a->value[i] != b->value[i])
      return 0;
  return 1;
}

/* The ceiling job of a rung job: the ceiling rung of its workload's
 * `of` on its backend, over as much memory as the rung's plan (up to the
 * ceiling workload's default size, already far beyond any cache), so that
 * a rung working in the cache is not compared with a copy through DRAM.
 * Its index among the ceiling jobs, found or added; -1 for none. */
static kl_status ceiling_for(const kl_options *o, const job *s,
                             job_list *ceilings, kl_report *rep,
                             ptrdiff_t *index) {
  *index = -1;
  const kl_workload *of = s->w->ceiling.of;
  const kl_rung *cr = ceiling_rung(of, s->r->backend);
  if (!cr) return KL_OK;
  const int host = kl_backend_host_memory(cr->backend);
  kl_plan p;
  double bytes = 0;
  kl_status st = kl__plan_make(s->w, NULL, &s->in, host, &p);
  if (st == KL_OK) st = kl__plan_bytes(&p, &bytes);
  kl_options defaults;
  kl_options_init(&defaults);
  defaults.seed = o->seed;
  job jb = {of, cr, {0}, 1, -1};
  if (st == KL_OK)
    st = kl__instance_from_options(&defaults, of, &jb.in, 1, rep->notes,
                                   sizeof rep->notes);
  if (st == KL_OK)
    st = kl__fit_default_size(of, &jb.in, &cr, 1, rep->notes,
                              sizeof rep->notes);
  if (st == KL_OK) {
    jb.in.n = kl__instance_size(of, &jb.in, host);
    jb.in.n_given = 1;
    if (!s->w->ceiling.own_size)
      st = kl__size_for_bytes(of, &jb.in, host, bytes);
  }
  if (st != KL_OK) return st;
  for (size_t j = 0; j < ceilings->count; j++) {
    const job *c = &ceilings->items[j];
    if (c->r == cr && same_problem(of, &c->in, &jb.in)) {
      *index = (ptrdiff_t)j;
      return KL_OK;
    }
  }
  *index = (ptrdiff_t)ceilings->count;
  return push_job(ceilings, jb);
}

/* Notes are sentences, each followed by a space until the last. */
static void trim_notes(kl_report *rep) {
  size_t end = strlen(rep->notes);
  while (end > 0 && rep->notes[end - 1] == ' ') rep->notes[--end] = '\0';
}

/* The ceiling jobs first, so that every rung's percent has its ceiling,
 * then the rungs; a selected job that runs a ceiling's rung on its
 * problem is that ceiling, not measured twice. */
static kl_status plan_jobs(const kl_options *o, job_list *jobs,
                           kl_report *rep) {
  job_list selected = {0};
  kl_status st = KL_OK;
  size_t workloads = 0;
  for (size_t i = 0; i < kl_workload_count(); i++)
    workloads += workload_selected(o, kl_workload_at(i));
  for (size_t i = 0; i < kl_workload_count() && st == KL_OK; i++) {
    const kl_workload *w = kl_workload_at(i);
    if (workload_selected(o, w))
      st = workload_jobs(o, w, workloads == 1, &selected, rep);
  }
  /* Notes of the ceilings' sizes may follow: trimmed once all are in. */
  if (st == KL_OK && selected.count == 0) trim_notes(rep);
  if (st == KL_OK && selected.count == 0)
    st = rep->notes[0]
             ? kl__usage(KL_UNAVAILABLE, "nothing to run: %s", rep->notes)
             : kl__usage(KL_UNAVAILABLE, "nothing to run: no available rung "
                         "matches the selection");
  job_list ceilings = {0};
  for (size_t i = 0; i < selected.count && st == KL_OK && !o->skip_ceiling;
       i++) {
    job *s = &selected.items[i];
    if (!measured_beside(s->w)) continue;
    /* The rungs of one problem on one backend share their ceiling. */
    size_t k = 0;
    while (k < i && !(selected.items[k].r->backend == s->r->backend &&
                      same_instance(&selected.items[k], s)))
      k++;
    if (k < i) s->ceiling = selected.items[k].ceiling;
    else st = ceiling_for(o, s, &ceilings, rep, &s->ceiling);
  }
  /* A ceiling job that the selection runs anyway is that job. The list:
   * the other ceiling jobs, then the selection; index[c] is ceiling c's
   * place in it. */
  ptrdiff_t *index = malloc((ceilings.count + 1) * sizeof *index);
  if (!index && st == KL_OK) st = KL_FAIL(KL_NO_MEMORY, "out of host memory");
  size_t own = 0; /* ceiling jobs that stay jobs of their own */
  for (size_t c = 0; c < ceilings.count && st == KL_OK; c++) {
    const job *cj = &ceilings.items[c];
    index[c] = -1;
    for (size_t j = 0; j < selected.count && index[c] < 0; j++) {
      job *t = &selected.items[j];
      if (t->r == cj->r && same_problem(t->w, &t->in, &cj->in)) {
        t->is_ceiling = 1;
        index[c] = (ptrdiff_t)j;
      }
    }
    own += index[c] < 0;
  }
  for (size_t c = 0; c < ceilings.count && st == KL_OK; c++) {
    if (index[c] >= 0) {
      index[c] += (ptrdiff_t)own;
    } else {
      index[c] = (ptrdiff_t)jobs->count;
      st = push_job(jobs, ceilings.items[c]);
    }
  }
  for (size_t j = 0; j < selected.count && st == KL_OK; j++) {
    job jb = selected.items[j];
    jb.ceiling = jb.is_ceiling || jb.ceiling < 0 ? -1 : index[jb.ceiling];
    st = push_job(jobs, jb);
  }
  free(index);
  free(ceilings.items);
  free(selected.items);
  return st;
}


/* The ceiling job to time beside a rung, unless the rung is one. */
static const job *ceiling_beside(const job_list *jobs, const job *jb) {
  return jb->ceiling >= 0 ? &jobs->items[jb->ceiling] : NULL;
}

double kl__ceiling_rate(const kl_workload *w, const kl_result *r,
                        double measured) {
  if (w->ceiling.kind != KL_CEILING_BOUND) return measured;
  return measured > 0 && w->ceiling.bound ? w->ceiling.bound(r, measured) : 0;
}

/* Whether the build has a vendor rung of w whose figure serves backend b
 * (one on b, or a host library for a host backend). */
static int has_vendor_for(const kl_workload *w, const kl_backend *b) {
  for (size_t i = 0; i < w->rung_count; i++) {
    const kl_rung *r = &w->rungs[i];
    if ((r->flags & KL_RUNG_VENDOR) && rung_built(r) &&
        (r->backend == b ||
         (kl_backend_host_memory(r->backend) && kl_backend_host_memory(b))))
      return 1;
  }
  return 0;
}

/* The percent above which a rate needs a word: timing noise alone stays
 * below it. */
#define ABOVE_CEILING_PERCENT 105.0

/* Why a result has no percent of ceiling, or one above
 * ABOVE_CEILING_PERCENT; NULL when it needs no word. */
static const char *ceiling_note(const kl_report *rep, const job *jb,
                                const kl_result *res) {
  const kl_ceiling *c = &jb->w->ceiling;
  if (res->ceiling > 0) {
    if (res->percent <= ABOVE_CEILING_PERCENT) return NULL;
    if (res->t_median < 20e-6)
      return "its runs take under 20 us, where launch and timer overheads "
             "rather than bandwidth set both rates";
    if (c->kind == KL_CEILING_VENDOR)
      return "faster than its vendor rung on the same problem: the vendor "
             "library is the reference to beat, not a hardware bound";
    if (kl_backend_host_memory(jb->r->backend) && c->kind == KL_CEILING_RUNG)
      return "a CPU reads every cache line before it writes it "
             "(write-allocate), which the cost models do not count: the "
             "copy ceiling moves 3 bytes for every 2 it counts, so a rung "
             "that mostly reads, or writes with streaming stores, can pass "
             "it";
    return "above the copy measured beside it: a rung that mostly reads "
           "can pass a copy, which pays for turning the memory bus between "
           "reads and writes; or a cache keeps some of the bytes its cost "
           "model counts";
  }
  if (rep->options.skip_ceiling && c->kind != KL_CEILING_VENDOR)
    return "ceilings not measured (--no-ceiling)";
  switch (c->kind) {
  case KL_CEILING_NONE:
    return "the workload declares no ceiling";
  case KL_CEILING_VENDOR:
    return has_vendor_for(jb->w, jb->r->backend)
               ? "its vendor rung did not pass on this problem in this run "
                 "(not selected, or it failed)"
               : "no vendor rung for this backend in this build";
  case KL_CEILING_RUNG:
  case KL_CEILING_BOUND:
    return ceiling_rung(c->of, jb->r->backend)
               ? "its ceiling rung did not pass in this run"
               : "no ceiling rung for this backend";
  }
  return NULL;
}

/* Percent of ceiling and speedup, once every job has run. */
static void relate_results(const job_list *jobs, kl_report *rep) {
  for (size_t i = 0; i < rep->count; i++) {
    kl_result *res = &rep->results[i];
    const job *ji = &jobs->items[i];
    const kl_ceiling *c = &ji->w->ceiling;
    if (res->status != KL_OK) continue;
    /* A ceiling timed beside the rung is already in; else the ceiling
     * job's own figure, or the vendor rung's on the same problem. */
    double measured = res->ceiling;
    for (size_t j = 0; j < rep->count && measured == 0; j++) {
      const kl_result *other = &rep->results[j];
      const job *jj = &jobs->items[j];
      if (other->status != KL_OK || other->check != KL_CHECK_PASS) continue;
      if (ji->ceiling == (ptrdiff_t)j || (ji->is_ceiling && j == i))
        measured = other->merit;
      /* A host vendor library (threaded) serves every host backend. */
      int same_memory = jj->r->backend == ji->r->backend ||
                        (kl_backend_host_memory(jj->r->backend) &&
                         kl_backend_host_memory(ji->r->backend));
      if (c->kind == KL_CEILING_VENDOR && same_memory &&
          same_instance(jj, ji) && (jj->r->flags & KL_RUNG_VENDOR))
        measured = other->merit;
    }
    res->ceiling = kl__ceiling_rate(ji->w, res, measured);
    if (res->ceiling > 0) res->percent = 100.0 * res->merit / res->ceiling;
    res->ceiling_note = ceiling_note(rep, ji, res);
    for (size_t j = 0; j < rep->count; j++) {
      const kl_result *base = &rep->results[j];
      if (same_instance(&jobs->items[j], ji) && base->status == KL_OK) {
        res->speedup = base->t_median / res->t_median;
        break;
      }
    }
  }
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

/* One context per backend of the run, opened when first needed. */
typedef struct contexts {
  kl_context ctx[16];
  size_t count;
} contexts;

static kl_status context_for(contexts *cs, const kl_backend *b,
                             kl_context **out) {
  for (size_t i = 0; i < cs->count; i++)
    if (cs->ctx[i].backend == b) {
      *out = &cs->ctx[i];
      return KL_OK;
    }
  if (cs->count == sizeof cs->ctx / sizeof *cs->ctx)
    return KL_FAIL(KL_USAGE, "too many backends in one run");
  kl_status st = kl__context_open(b, &cs->ctx[cs->count]);
  if (st == KL_OK) *out = &cs->ctx[cs->count++];
  return st;
}

static void run_jobs(const kl_options *o, const job_list *jobs,
                     kl_report *rep, kl_status *worst) {
  contexts cs;
  memset(&cs, 0, sizeof cs);
  for (size_t i = 0; i < jobs->count; i++) {
    const job *jb = &jobs->items[i];
    kl_result *res = &rep->results[rep->count++];
    kl_plan p;
    char size[96] = "?", params[256] = "";
    /* The size as planned, without the rung's scratch (measure plans
     * that). */
    int planned = kl__plan_make(jb->w, NULL, &jb->in,
                                kl_backend_host_memory(jb->r->backend),
                                &p) == KL_OK;
    if (planned) kl__size_text(jb->w, &p, size, sizeof size);
    int op = kl__param_with(jb->w, KL_PARAM_OP);
    if (planned && op >= 0)
      kl_param_text(&jb->w->params[op], p.value[op], params, sizeof params);
    progress(o, "[%zu/%zu] %s %s (%s, n=%s, %s%s%s)%s ...", i + 1,
             jobs->count, jb->w->name, jb->r->name, jb->r->backend->name,
             size, kl_type_name(jb->in.type), params[0] ? " " : "", params,
             jb->is_ceiling ? " ceiling" : "");
    double started = kl__now();
    kl_context *ctx = NULL;
    const job *c = ceiling_beside(jobs, jb);
    kl__beside beside = {c ? c->w : NULL, c ? c->r : NULL,
                         c ? c->in : jb->in};
    kl_status st = context_for(&cs, jb->r->backend, &ctx);
    if (st == KL_OK)
      st = kl__measure(jb->w, jb->r, ctx, &jb->in, o->reps, o->warmup,
                       o->max_seconds, c ? &beside : NULL, res);
    else {
      memset(res, 0, sizeof *res);
      res->workload = jb->w;
      res->rung = jb->r;
      res->status = st;
      snprintf(res->error, sizeof res->error, "%s", kl_last_error());
    }
    if (st != KL_OK) {
      progress(o, "    error: %s", res->error);
      /* The run goes on; its status is the worst by exit code: device
       * errors over bad input over failed checks. */
      if (kl_exit_code(st) > kl_exit_code(*worst)) *worst = st;
      continue;
    }
    progress(o, "    %.3f ms median, %.1f %s, %s (%.1f s)",
             res->t_median * 1e3, res->merit, kl_metric_unit(jb->w),
             kl__check_text(res), kl__now() - started);
    if (res->check == KL_CHECK_FAIL && kl_exit_code(*worst) < 1)
      *worst = KL_CHECK_FAILED;
  }
  for (size_t i = 0; i < cs.count; i++) kl__context_close(&cs.ctx[i]);
}

static kl_status run_all(const kl_options *opt, kl_report **out) {
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
  if (o.type != KL_TYPE_DEFAULT && ((int)o.type < 0 || o.type >= KL_TYPE_COUNT))
    return kl__usage(KL_USAGE, "%d is not a kl_type value (KL_F32 .. KL_U64, "
                     "or KL_TYPE_DEFAULT)", (int)o.type);
  st = each_name(o.workloads, "workload", check_workload_name, NULL);
  if (st == KL_OK)
    st = each_name(o.backends, "backend", check_backend_name, NULL);
  if (st == KL_OK) st = each_name(o.rungs, "rung", check_rung_name, &o);
  if (st != KL_OK) return st;

  kl_report *rep = calloc(1, sizeof *rep);
  if (!rep) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  rep->options = o;
  if (o.command_line) {
    rep->command_line = malloc(strlen(o.command_line) + 1);
    if (!rep->command_line) {
      free(rep);
      return KL_FAIL(KL_NO_MEMORY, "out of host memory");
    }
    strcpy(rep->command_line, o.command_line);
  }
  rep->options.command_line = rep->command_line;
  time_t now = time(NULL);
  struct tm utc;
  if (now != (time_t)-1 && kl__utc(now, &utc))
    strftime(rep->started, sizeof rep->started, "%Y-%m-%dT%H:%M:%SZ", &utc);
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
  trim_notes(rep);
  if (rep->notes[0]) progress(&o, "note: %s", rep->notes);
  kl_status worst = KL_OK;
  run_jobs(&o, &jobs, rep, &worst);
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

kl_status kl_run(const kl_options *opt, kl_report **out) {
  return kl__done(run_all(opt, out));
}

void kl_report_free(kl_report *r) {
  if (!r) return;
  for (size_t i = 0; r->results && i < r->count; i++) {
    free(r->results[i].times);
    free(r->results[i].trace);
  }
  free(r->command_line);
  free(r->results);
  free(r);
}
