/* kl_run: select the rungs and devices, size each workload, make the jobs
 * (each planned and fit-checked once), add their ceilings (ceiling.c),
 * open a context per device, measure every job, and relate the results.
 * kl_run_rung: one rung, one problem, no ceiling. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ---- options ---------------------------------------------------------------- */

static void options_defaults(kl_options *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->type = KL_TYPE_DEFAULT;
  o->reps = 0; /* by noise */
  o->precision = 0.005;
  o->warmup = 2;
  o->seed = 20261121;
  o->max_seconds = 30;
}

void kl_options_init_sized(kl_options *o, size_t size) {
  kl_options full;
  options_defaults(&full);
  if (!o || size < sizeof(size_t)) return;
  memcpy(o, &full, size < sizeof full ? size : sizeof full);
  o->size = size;
}

void kl_problem_init_sized(kl_problem *p, size_t size) {
  kl_problem full;
  memset(&full, 0, sizeof full);
  full.type = KL_TYPE_DEFAULT;
  if (!p || size < sizeof(size_t)) return;
  memcpy(p, &full, size < sizeof full ? size : sizeof full);
  p->size = size;
}

/* The caller's options as this library's struct: the fields the caller
 * knows (its size), defaults for the rest. */
static kl_status options_of(const kl_options *given, kl_options *o) {
  options_defaults(o);
  if (!given) return KL_OK;
  if (given->size < offsetof(kl_options, workloads) + sizeof(const char *))
    return kl__usage(KL_USAGE, "kl_options.size is %zu: set up options with "
                     "kl_options_init", given->size);
  memcpy(o, given, given->size < sizeof *o ? given->size : sizeof *o);
  o->size = sizeof *o;
  return KL_OK;
}

static kl_status problem_of(const kl_problem *given, kl_problem *p) {
  kl_problem_init_sized(p, sizeof *p);
  if (!given) return KL_OK;
  if (given->size < offsetof(kl_problem, n) + sizeof(int64_t))
    return kl__usage(KL_USAGE, "kl_problem.size is %zu: set up problems with "
                     "kl_problem_init", given->size);
  memcpy(p, given, given->size < sizeof *p ? given->size : sizeof *p);
  p->size = sizeof *p;
  return KL_OK;
}

/* ---- selection -------------------------------------------------------------- */

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

/* Every name of a -w list is a workload's, and every pattern matches
 * one. */
static kl_status check_workload_name(const char *name, void *ctx) {
  (void)ctx;
  size_t index;
  if (!kl__is_pattern(name)) return kl_workload_index(name, &index);
  for (size_t i = 0; i < kl_workload_count(); i++)
    if (kl__matches(name, kl_workload_at(i)->name)) return KL_OK;
  char valid[512] = "";
  for (size_t i = 0; i < kl_workload_count(); i++)
    kl__append(valid, sizeof valid, "%s%s", i ? ", " : "",
               kl_workload_at(i)->name);
  return kl__usage(KL_USAGE, "workload pattern " KL_Q " matches no "
                   "workload; valid: %s", KL_CLIP(name), valid);
}

/* The devices of a run: those the options name, or device 0 of every
 * available backend. */
#define MAX_DEVICES 64
typedef struct devices {
  kl__device_ref items[MAX_DEVICES];
  size_t count;
  char note[1024]; /* the backends a run that named none leaves out */
} devices;

/* Whether any workload has a rung of `b` built in: a backend with none
 * was not asked for by this build, and a run need not say it is absent. */
static int has_rungs(const kl_backend *b) {
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    for (size_t j = 0; j < w->rung_count; j++)
      if (w->rungs[j].backend == b && kl__rung_built(&w->rungs[j]))
        return 1;
  }
  return 0;
}

/* Device 0 of every available backend, but those that ask to be left out
 * of a run that names none; the note says why of each left out, and of
 * each built with rungs but not here (no device, or its module missing:
 * a run must not drop a GPU's rows in silence). */
/* The device a backend named without an index runs on: 0, or over
 * several ranks on a host of several devices, the rank's among those on
 * its host (kl_ranks.local_rank) modulo the devices: one GPU per rank. */
static int default_device(const kl_options *o, const kl_backend *b) {
  const kl_ranks *r = o->ranks;
  if (kl__ranks_count(r) < 2 ||
      !KL__RANKS_HAS(r, local_count) ||
      r->local_count < 2 || r->local_rank < 0)
    return 0;
  const int count = kl_backend_devices(b);
  return count > 1 ? r->local_rank % count : 0;
}

static void every_backend(const kl_options *o, devices *d) {
  for (size_t i = 0; i < kl_backend_count() && d->count < MAX_DEVICES; i++) {
    const kl_backend *b = kl_backend_at(i);
    char why[256] = "";
    if (!kl_backend_available(b, why, sizeof why)) {
      if (has_rungs(b))
        kl__append(d->note, sizeof d->note, "%s is not here: %s. ", b->name,
                   why);
      continue;
    }
    if (b->left_out && b->left_out(why, sizeof why)) {
      kl__append(d->note, sizeof d->note, "%s. ", why);
      continue;
    }
    d->items[d->count++] = (kl__device_ref){b, default_device(o, b)};
  }
}

static kl_status add_ref(devices *d, kl__device_ref ref) {
  for (size_t i = 0; i < d->count; i++)
    if (d->items[i].backend == ref.backend && d->items[i].index == ref.index)
      return KL_OK; /* named twice: run once */
  if (d->count == MAX_DEVICES)
    return kl__usage(KL_USAGE, "more than %d devices in one run", MAX_DEVICES);
  d->items[d->count++] = ref;
  return KL_OK;
}

/* An item of -b: "NAME" or "NAME:INDEX" (a device), "NAME:*" (every
 * device of it), a glob over backend names ("open*": device 0 of each
 * available one), and any of these after '!' (removed, once every
 * inclusion is in). The devices selected, in `d`; the items that remove,
 * counted in d->excluded. */
typedef struct device_item {
  char base[64]; /* the backend name or glob */
  int index;     /* -1: every device ("*"); -2: not given (device 0, or
                    every device where removed) */
  int exclude;
} device_item;

static kl_status parse_device_item(const char *text, device_item *it) {
  memset(it, 0, sizeof *it);
  it->exclude = text[0] == '!';
  const char *name = text + it->exclude;
  const char *colon = strchr(name, ':');
  const size_t len = colon ? (size_t)(colon - name) : strlen(name);
  if (len == 0 || len >= sizeof it->base)
    return kl__usage(KL_USAGE, "bad backend " KL_Q, KL_CLIP(text));
  memcpy(it->base, name, len);
  it->index = -2;
  if (colon && strcmp(colon, ":*") == 0) {
    it->index = -1;
  } else if (colon) {
    char *end = NULL;
    long v = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end != '\0' || v < 0 || v > 1 << 20)
      return kl__usage(KL_USAGE, "device " KL_Q ": the index after ':' must "
                       "be a number from 0, or *", KL_CLIP(text));
    it->index = (int)v;
  }
  /* A glob or an exclusion must name at least one backend there is. */
  if (kl__is_pattern(it->base) || it->exclude) {
    for (size_t i = 0; i < kl_backend_count(); i++)
      if (kl__matches(it->base, kl_backend_at(i)->name)) return KL_OK;
    char valid[256] = "";
    for (size_t i = 0; i < kl_backend_count(); i++)
      kl__append(valid, sizeof valid, "%s%s", i ? ", " : "",
                 kl_backend_at(i)->name);
    return kl__usage(KL_USAGE, "backend pattern " KL_Q " matches no backend; "
                     "valid: %s", KL_CLIP(text), valid);
  }
  return KL_OK;
}

/* The devices of item `it` to add, from the backends its name or glob
 * matches: an exact name must be usable here (its message says why not);
 * a glob takes the usable ones it matches. */
static kl_status include_item(const kl_options *o, const device_item *it,
                              const char *text, devices *d) {
  if (!kl__is_pattern(it->base)) {
    kl__device_ref ref;
    char exact[96];
    if (it->index >= 0)
      snprintf(exact, sizeof exact, "%.63s:%d", it->base, it->index);
    else
      snprintf(exact, sizeof exact, "%.63s", it->base);
    kl_status st = kl__device_parse(exact, &ref);
    if (st != KL_OK) return st;
    /* Named without an index: the rank's device on its host. */
    if (it->index == -2) ref.index = default_device(o, ref.backend);
    if (it->index != -1) return add_ref(d, ref);
  }
  int matched = 0;
  for (size_t i = 0; i < kl_backend_count(); i++) {
    const kl_backend *b = kl_backend_at(i);
    if (!kl__matches(it->base, b->name) || !kl_backend_available(b, NULL, 0))
      continue;
    matched = 1;
    const int count = kl_backend_devices(b);
    const int first = it->index >= 0    ? it->index
                      : it->index == -2 ? default_device(o, b)
                                        : 0;
    const int last = it->index == -1 ? count - 1 : first;
    for (int k = first; k <= last && k < count; k++) {
      kl_status st = add_ref(d, (kl__device_ref){b, k});
      if (st != KL_OK) return st;
    }
  }
  return matched ? KL_OK
                 : kl__usage(KL_UNAVAILABLE, "backend pattern " KL_Q
                             " matches no backend available here",
                             KL_CLIP(text));
}

static kl_status run_devices(const kl_options *o, devices *d) {
  memset(d, 0, sizeof *d);
  if (!o->backends) {
    every_backend(o, d);
    return KL_OK;
  }
  if (!*o->backends) return kl__usage(KL_USAGE, "empty backend list");
  device_item items[MAX_DEVICES];
  char texts[MAX_DEVICES][128];
  size_t count = 0, includes = 0;
  for (const char *p = o->backends; p;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0 || len >= sizeof texts[0])
      return kl__usage(KL_USAGE, "bad backend list " KL_Q ": an empty or "
                       "overlong name", KL_CLIP(o->backends));
    if (count == MAX_DEVICES)
      return kl__usage(KL_USAGE, "more than %d backends in one list",
                       MAX_DEVICES);
    memcpy(texts[count], p, len);
    texts[count][len] = '\0';
    kl_status st = parse_device_item(texts[count], &items[count]);
    if (st != KL_OK) return st;
    includes += !items[count].exclude;
    count++;
    p = end ? end + 1 : NULL;
  }
  /* Only exclusions: from the backends a run that names none takes. */
  if (includes == 0) every_backend(o, d);
  for (size_t i = 0; i < count; i++) {
    kl_status st = items[i].exclude ? KL_OK
                                    : include_item(o, &items[i], texts[i], d);
    if (st != KL_OK) return st;
  }
  for (size_t i = 0; i < count; i++) {
    if (!items[i].exclude) continue;
    size_t kept = 0;
    for (size_t k = 0; k < d->count; k++) {
      const kl__device_ref *r = &d->items[k];
      const int gone = kl__matches(items[i].base, r->backend->name) &&
                       (items[i].index < 0 || items[i].index == r->index);
      if (!gone) d->items[kept++] = *r;
    }
    d->count = kept;
  }
  return KL_OK;
}

/* A distributed workload runs in a run of every workload only over
 * several ranks: on one it is its single-process workload again. Named
 * (-w reduce-dist, a pattern that matches it), it runs on any count. */
static int workload_selected(const kl_options *o, const kl_workload *w) {
  return kl__selects_by_name(o->workloads, w->name,
                             !w->distributed || kl__ranks_count(o->ranks) > 1);
}


static kl_status check_rung_name(const char *name, void *ctx) {
  const kl_options *o = ctx;
  char valid[1024] = "";
  if (kl__is_pattern(name)) {
    /* A pattern must match a rung of the workloads selected. */
    for (size_t i = 0; i < kl_workload_count(); i++) {
      const kl_workload *w = kl_workload_at(i);
      for (size_t j = 0; workload_selected(o, w) && j < w->rung_count; j++)
        if (kl__matches(name, w->rungs[j].name)) return KL_OK;
    }
    return kl__usage(KL_USAGE, "rung pattern " KL_Q " matches no rung of "
                     "the workloads selected", KL_CLIP(name));
  }
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    if (!workload_selected(o, w)) continue;
    const kl_rung *r = kl_rung_find(w, name);
    if (r) {
      char info[256] = "";
      if (!kl__rung_built(r))
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
        return kl__usage(KL_USAGE, "%s rung '%s' is no more: it is %s",
                         w->name, name, old->now);
    kl__append(valid, sizeof valid, "%s%s:", valid[0] ? "; " : "", w->name);
    for (size_t j = 0; j < w->rung_count; j++)
      kl__append(valid, sizeof valid, " %s", w->rungs[j].name);
  }
  return kl__usage(KL_USAGE, "unknown rung " KL_Q "; valid: %s",
                   KL_CLIP(name), valid);
}

static int rung_selected(const kl_options *o, const kl_rung *r, kl_type t) {
  if (!kl__rung_built(r) || !kl_backend_available(r->backend, NULL, 0))
    return 0;
  if (!kl__selects(o->rungs, r->name)) return 0;
  return r->types == 0 || (r->types & KL_TYPE_BIT(t));
}

/* ---- jobs ---------------------------------------------------------------------- */

#define MAX_PLACED 1024

/* A rung that cannot serve the problem (its scratch hook says
 * KL_UNAVAILABLE: cg's matrix-free rung and a matrix file) stands aside,
 * with a note, and the others run. Where every rung refuses alike, the
 * refusal is the problem's: the sizing and the jobs below report it. The
 * plans made here are the planner's, which sizing then finds. */
static size_t stand_aside(kl__planner *pl, const kl_workload *w,
                          const kl__instance *in, kl__placed *chosen,
                          size_t count, kl_report *rep) {
  size_t kept = 0;
  enum { MOST = 64 };
  kl__placed aside[MOST];
  char why[MOST][256];
  size_t set_aside = 0;
  for (size_t j = 0; j < count; j++) {
    const kl_backend *b = chosen[j].r->backend;
    kl_plan p;
    kl__instance at = *in;
    at.n = kl__instance_size(w, in, kl_backend_host_memory(b));
    kl_status st = kl__plan_get(pl, w, chosen[j].r, &at,
                                kl_backend_host_memory(b),
                                kl__device_at(b, chosen[j].device), &p, NULL);
    if (st == KL_UNAVAILABLE && set_aside < MOST) {
      snprintf(why[set_aside], sizeof why[0], "%s", kl_last_error());
      aside[set_aside++] = chosen[j];
    } else {
      chosen[kept++] = chosen[j];
    }
  }
  if (kept == 0) { /* all refused alike: the problem's refusal */
    for (size_t j = 0; j < set_aside; j++) chosen[kept++] = aside[j];
    return kept;
  }
  for (size_t j = 0; j < set_aside; j++) {
    /* Once, not once per point of a sweep. */
    char note[512];
    snprintf(note, sizeof note, "%s %s stands aside: %s. ", w->name,
             aside[j].r->name, why[j]);
    if (!strstr(rep->notes, note))
      kl__append(rep->notes, sizeof rep->notes, "%s", note);
  }
  return kept;
}

/* A note, once, of the tunings a job took from the wisdom's tuned line
 * (kl_plan.tuned): its params show the values, the note where they came
 * from. */
static void note_tuned(kl_report *rep, const kl_workload *w,
                       const kl_rung *r, const kl_plan *p) {
  char note[256];
  snprintf(note, sizeof note, "%s %s:", w->name, r->name);
  for (int i = 0; i < w->param_count; i++) {
    if (!(p->tuned & KL_PARAM_BIT(i))) continue;
    char value[64];
    kl_param_text(&w->params[i], p->value[i], value, sizeof value);
    kl__append(note, sizeof note, " %s=%s", w->params[i].name, value);
  }
  kl__append(note, sizeof note, " from the wisdom (kladder tune). ");
  if (!strstr(rep->notes, note))
    kl__append(rep->notes, sizeof rep->notes, "%s", note);
}

/* The jobs of one problem of a workload (one point of a sweep): its
 * selected rungs in ladder order, on each selected device of their
 * backend, at the size asked for or its default shrunk to fit them all;
 * each planned and fit-checked once. In a run of several workloads, a
 * problem beyond this machine's memory is skipped with a note, and the
 * others run; alone, it is an error. */
static kl_status problem_jobs(kl__planner *pl, const kl_options *o,
                              const devices *devs, const kl_workload *w,
                              kl__instance in, int alone, kl__jobs *selected,
                              kl_report *rep) {
  kl_status st = KL_OK;
  static _Thread_local kl__placed chosen[MAX_PLACED];
  size_t count = 0;
  for (size_t j = 0; j < w->rung_count; j++) {
    const kl_rung *r = &w->rungs[j];
    /* Placed on the run's devices of its backend first: only a rung
     * placed somewhere asks whether its backend is here, so that a
     * backend the run does not use is never probed (a run on host
     * backends loads no GPU module). */
    const size_t placed = count;
    for (size_t d = 0; d < devs->count && count < MAX_PLACED; d++)
      if (devs->items[d].backend == r->backend)
        chosen[count++] = (kl__placed){r, devs->items[d].index};
    if (count > placed && !rung_selected(o, r, in.type)) count = placed;
  }
  if (count == 0) return KL_OK;
  count = stand_aside(pl, w, &in, chosen, count, rep);
  st = kl__fit_default_size(pl, w, &in, chosen, count, 1, rep->notes,
                            sizeof rep->notes);
  if (st == KL_OK)
    st = kl__fit_chunks(pl, w, &in, chosen, count, rep->notes,
                        sizeof rep->notes);
  /* Host backends take their smaller default: a different instance, so
   * speedups compare like with like. Each job's plan is made here, once,
   * and a size that cannot fit is refused before anything runs. */
  const size_t first = selected->count;
  for (size_t j = 0; j < count && st == KL_OK; j++) {
    const kl_backend *b = chosen[j].r->backend;
    const int host = kl_backend_host_memory(b);
    kl__job jb;
    memset(&jb, 0, sizeof jb);
    jb.w = w;
    jb.r = chosen[j].r;
    jb.device = chosen[j].device;
    jb.in = in;
    jb.in.n = kl__instance_size(w, &in, host);
    jb.quick_size = in.quick && !in.n_given;
    jb.in.n_given = 1;
    jb.ceiling = -1;
    st = kl__plan_get(pl, w, jb.r, &jb.in, host, kl__device_at(b, jb.device),
                      &jb.plan, &jb.problem_bytes);
    if (st == KL_OK && jb.plan.tuned) note_tuned(rep, w, jb.r, &jb.plan);
    if (st == KL_OK) st = kl__check_fits(w, &jb.plan, b, jb.device, 1);
    if (st == KL_OK) st = kl__jobs_push(selected, &jb);
  }
  if (st == KL_TOO_LARGE && !alone) {
    selected->count = first;
    kl__append(rep->notes, sizeof rep->notes, "skipped %s. ",
               kl_last_error());
    return KL_OK;
  }
  return st;
}

/* The jobs of one workload: those of each of its problems, one, or one
 * per point of a sweep in the sweep's order. A workload that cannot take
 * the options (a parameter, type or shape it lacks; a size beyond its
 * range) is skipped with a note in a run of several, and the others run;
 * alone, it is an error. */
static kl_status workload_jobs(kl__planner *pl, const kl_options *o,
                               const devices *devs, const kl_workload *w,
                               int alone, kl__jobs *selected,
                               kl_report *rep) {
  size_t points = 1;
  for (size_t k = 0; k < points; k++) {
    kl__instance in;
    kl_status st = kl__instance_from_options(o, w, k, &points, &in, alone,
                                             rep->notes, sizeof rep->notes);
    /* Skipped, with its note: what it lacks, it lacks at every point. */
    if (st == KL_UNAVAILABLE) return KL_OK;
    if (st == KL_OK)
      st = problem_jobs(pl, o, devs, w, in, alone, selected, rep);
    if (st != KL_OK) return st;
  }
  return KL_OK;
}

/* Notes are sentences, each followed by a space until the last. */
static void trim_notes(kl_report *rep) {
  size_t end = strlen(rep->notes);
  while (end > 0 && rep->notes[end - 1] == ' ') rep->notes[--end] = '\0';
}

/* The ceiling jobs first, so that every rung's percent has its ceiling,
 * then the rungs. */
static kl_status plan_jobs(kl__planner *pl, const kl_options *o,
                           const devices *devs, kl__jobs *jobs,
                           kl_report *rep) {
  kl__jobs selected = {0};
  kl_status st = KL_OK;
  size_t workloads = 0;
  for (size_t i = 0; i < kl_workload_count(); i++)
    workloads += workload_selected(o, kl_workload_at(i));
  for (size_t i = 0; i < kl_workload_count() && st == KL_OK; i++) {
    const kl_workload *w = kl_workload_at(i);
    if (workload_selected(o, w))
      st = workload_jobs(pl, o, devs, w, workloads == 1, &selected, rep);
  }
  /* Notes of the ceilings' sizes may follow: trimmed once all are in. */
  if (st == KL_OK && selected.count == 0) {
    trim_notes(rep);
    st = rep->notes[0]
             ? kl__usage(KL_UNAVAILABLE, "nothing to run: %s", rep->notes)
             : kl__usage(KL_UNAVAILABLE, "nothing to run: no available rung "
                         "matches the selection");
  }
  if (st == KL_OK) st = kl__ceiling_jobs(pl, o, &selected, jobs, rep);
  free(selected.items);
  return st;
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

/* One context per device of the run, opened when first needed. */
/* With kl_options.energy, each one's energy counter, opened with it (its
 * idle power read before any rung runs on it); NULL where it has none, a
 * note saying why. */
/* And each GPU board's NVML where it can be had, whose clocks the
 * harness watches around every batch of timed runs, with the board's
 * application SM clock. */
typedef struct contexts {
  kl_context ctx[MAX_DEVICES];
  kl__energy *energy[MAX_DEVICES];
  kl__nvml *clocks[MAX_DEVICES];
  double app_sm_mhz[MAX_DEVICES];
  double floor[MAX_DEVICES]; /* the launch floor, seconds; 0: none */
  size_t count;
  int disclosed; /* a board's facts are in the machine's disclosure */
} contexts;

/* The launch floor of context i, where its backend has an empty launch:
 * the median of 101 of them, each between the context's two events and
 * queued as a timed run is (behind kl_backend.ahead's hold, where the
 * backend has one), after 10 untimed; 0 where there is none, or it failed
 * (a note says). */
#define FLOOR_LAUNCHES 101

static void floor_measure(contexts *cs, size_t i, kl_report *rep) {
  kl_context *ctx = &cs->ctx[i];
  const kl_backend *b = ctx->backend;
  cs->floor[i] = 0;
  if (!b->launch || kl__enter(ctx) != KL_OK) return;
  double t[FLOOR_LAUNCHES];
  kl_status st = KL_OK;
  for (int k = 0; k < 10 && st == KL_OK; k++) st = b->launch(ctx);
  if (st == KL_OK) st = b->sync(ctx);
  for (int k = 0; k < FLOOR_LAUNCHES && st == KL_OK; k++) {
    st = b->ahead ? b->ahead(ctx, NULL, 0) : KL_OK;
    if (st == KL_OK) st = b->record(ctx, 0, 0);
    if (st == KL_OK) st = b->launch(ctx);
    if (st == KL_OK) st = b->record(ctx, 1, 0);
    if (st == KL_OK) st = b->elapsed(ctx, 0, 1, &t[k]);
  }
  kl__leave(ctx);
  if (st != KL_OK) {
    char where[64];
    kl__device_text(b, ctx->device.index, where, sizeof where);
    kl__append(rep->notes, sizeof rep->notes, "no launch floor on %s: %s. ",
               where, kl_last_error());
    return;
  }
  cs->floor[i] = kl__median(t, FLOOR_LAUNCHES);
}

/* Context i's board's clocks, where its backend names a PCI bus id and
 * NVML knows it; the first such board's facts in the machine's
 * disclosure; where NVML cannot be had, a note says why. */
static void clocks_open(contexts *cs, size_t i, kl_report *rep) {
  kl_context *ctx = &cs->ctx[i];
  const kl_backend *b = ctx->backend;
  char bus[64] = "", why[192] = "", where[64];
  if (!b->bus_id || kl__enter(ctx) != KL_OK) return;
  const kl_status named = b->bus_id(ctx, bus, sizeof bus);
  kl__leave(ctx);
  if (named != KL_OK) return;
  kl__device_text(b, ctx->device.index, where, sizeof where);
  if (kl__nvml_open(bus, &cs->clocks[i], why, sizeof why) != KL_OK) {
    kl__append(rep->notes, sizeof rep->notes, "clocks not watched on %s: "
               "%s. ", where, why);
    return;
  }
  kl__gpu_disclosure d;
  kl__nvml_disclose(cs->clocks[i], &d);
  cs->app_sm_mhz[i] = d.app_sm_mhz;
  kl_machine *m = &rep->machine;
  if (cs->disclosed) return; /* a board before this one's */
  cs->disclosed = 1;
  m->gpu_power_limit_w = d.power_limit_watts;
  m->gpu_app_sm_mhz = d.app_sm_mhz;
  m->gpu_app_mem_mhz = d.app_mem_mhz;
  m->gpu_max_sm_mhz = d.max_sm_mhz;
  m->gpu_ecc = d.ecc;
  m->gpu_persistence = d.persistence;
}

static kl_status context_for(contexts *cs, const kl_options *o,
                             kl_report *rep, const kl_backend *b, int device,
                             size_t *index) {
  for (size_t i = 0; i < cs->count; i++)
    if (cs->ctx[i].backend == b && cs->ctx[i].device.index == device) {
      *index = i;
      return KL_OK;
    }
  if (cs->count == MAX_DEVICES)
    return KL_FAIL(KL_USAGE, "too many devices in one run");
  kl_context *ctx = &cs->ctx[cs->count];
  kl_status st = kl__context_open(b, device, ctx);
  if (st != KL_OK) return st;
  cs->energy[cs->count] = NULL;
  cs->clocks[cs->count] = NULL;
  cs->app_sm_mhz[cs->count] = 0;
  *index = cs->count;
  cs->count++;
  clocks_open(cs, *index, rep);
  floor_measure(cs, *index, rep);
  /* One rank's device alone: a counter per rank would not be one
   * device's energy. */
  if (!o->energy || kl__ranks_count(o->ranks) > 1) return KL_OK;
  char where[64], why[192];
  kl__device_text(b, device, where, sizeof where);
  st = kl__enter(ctx);
  if (st != KL_OK) return st;
  if (kl__energy_open(ctx, NULL, &cs->energy[cs->count - 1], why,
                      sizeof why) == KL_OK) {
    const kl__energy *e = cs->energy[cs->count - 1];
    progress(o, "    %s: %s energy counter, %.1f W idle", where,
             kl__energy_source(e), kl__energy_idle_watts(e));
  } else {
    kl__append(rep->notes, sizeof rep->notes, "no energy on %s: %s. ", where,
               why);
  }
  kl__leave(ctx);
  return KL_OK;
}

/* KL_USAGE where the ranks planned different jobs: a digest of each
 * rank's (rung, size) list, compared by its maximum and minimum. */
static kl_status same_jobs(const kl_ranks *ranks, const kl__jobs *jobs) {
  if (kl__ranks_count(ranks) < 2) return KL_OK;
  uint64_t h = jobs->count; /* each part mixed in by the inputs' hash */
  for (size_t i = 0; i < jobs->count; i++) {
    const kl__job *j = &jobs->items[i];
    for (const char *c = j->w->name; *c; c++)
      h = kl__hash(h, 1, (unsigned char)*c);
    /* Not the device: a rank takes its own GPU (default_device). */
    h = kl__hash(h, 2, (uint64_t)(j->r - j->w->rungs));
    /* A ceiling sized by a distributed rung's bytes differs with each
     * rank's share (strong scaling): its rung and device must agree, its
     * size need not. */
    if (!j->ceiling_only) h = kl__hash(h, 4, (uint64_t)j->plan.n);
  }
  double v[2] = {(double)(h >> 12), -(double)(h >> 12)}; /* exact: 52 bits */
  kl__ranks_max(ranks, v, 2);
  if (v[0] != -v[1])
    return kl__usage(KL_USAGE, "the ranks planned different runs (a default "
                     "size is chosen from each rank's free memory: give -n)");
  return KL_OK;
}

/* A rung at a quick default size (no size given, kl_options.full 0) runs
 * for at most this many seconds, warm-up and repetitions together
 * (kl_options.max_seconds lowers it, never raises it): the default suite
 * on every backend of a machine takes a couple of minutes, its slowest
 * rungs (a naive one copying every iteration, contended atomics) timed
 * fewer times rather than the whole suite waiting on them. */
#define QUICK_MAX_SECONDS 0.3

static double max_seconds_of(const kl_options *o, const kl__job *jb) {
  if (!jb->quick_size) return o->max_seconds;
  return o->max_seconds > 0 && o->max_seconds < QUICK_MAX_SECONDS
             ? o->max_seconds
             : QUICK_MAX_SECONDS;
}

/* How the run times job jb: its options, the quick bound at a quick size;
 * no clocks watched (run_group adds its device's). */
static kl__timing timing_of(const kl_options *o, const kl__job *jb) {
  return (kl__timing){.reps = o->reps,
                      .precision = o->precision,
                      .warmup = o->warmup,
                      .max_seconds = max_seconds_of(o, jb),
                      .host_data = o->host_data,
                      .ranks = o->ranks,
                      .stop = o->stop,
                      .cold = o->cache == KL_CACHE_COLD};
}

/* Over several ranks: the rung on rank 0 alone first, the others waiting
 * (weak scaling: the same share; strong: the whole problem), and its
 * median time, on every rank; 0 where it could not run there (a whole
 * problem that does not fit one rank), with why in the progress lines. */
static double one_rank(const kl_options *o, const kl__job *jb,
                       kl_context *ctx) {
  double t = 0;
  if (o->ranks->rank == 0) {
    kl__job alone = *jb;
    alone.ceiling = -1;
    alone.outputs = NULL;
    kl_status st = KL_OK;
    if (jb->in.ranks) {
      const kl_backend *b = jb->r->backend;
      alone.in.ranks = NULL;
      alone.in.strong = 0;
      st = kl__plan_make(jb->w, jb->r, &alone.in, kl_backend_host_memory(b),
                         kl__device_at(b, jb->device), &alone.plan, NULL);
      if (st == KL_OK) st = kl__check_fits(jb->w, &alone.plan, b, jb->device, 1);
    }
    kl__result *res = calloc(1, sizeof *res);
    if (!res) st = KL_FAIL(KL_NO_MEMORY, "out of host memory");
    kl__timing how = timing_of(o, jb);
    how.ranks = NULL;
    if (st == KL_OK) st = kl__measure(&alone, ctx, &how, NULL, NULL, res);
    if (st == KL_OK && res->pub.check == KL_CHECK_PASS) t = res->pub.t_median;
    else if (st == KL_OK)
      progress(o, "    on one rank: the check did not pass");
    else if (st != KL_INTERRUPTED) /* the rung's start stops every rank */
      progress(o, "    on one rank: %s", kl_last_error());
    if (res) kl__result_free(res);
    free(res);
  }
  kl__ranks_barrier(o->ranks);
  kl__ranks_max(o->ranks, &t, 1);
  return t;
}

/* Jobs whose runs interleave: rungs of one problem (kl__plans_alike) on
 * one device, in one process. */
static int interleaves(const kl__job *a, const kl__job *b) {
  return a->w == b->w && a->r->backend == b->r->backend &&
         a->device == b->device && a->quick_size == b->quick_size &&
         a->ceiling_only == b->ceiling_only &&
         kl__plans_alike(a->w, &a->plan, &b->plan) &&
         a->plan.chunk_count == b->plan.chunk_count;
}

/* The most rungs of a problem whose runs interleave at once. */
#define MAX_INTERLEAVED 64

/* One job of a group being measured. */
typedef struct slot {
  const kl__job *jb;
  size_t index;      /* its place in the jobs */
  kl__result *res;
  kl__measuring *m;  /* NULL once finished, or where it never started */
  kl__energy *energy;
  double started;
  kl_status st;
  double alone;      /* several ranks: rank 0's time alone */
} slot;

/* What the run says of a finished job: its progress line, its status in
 * the run's worst. 1 where it stands in the report, 0 where it is no
 * result (stopped inside it). */
static int job_done(const kl_options *o, slot *sl, kl_report *rep,
                    kl_status *worst) {
  const kl__job *jb = sl->jb;
  kl__result *res = sl->res;
  const kl_status st = sl->st;
  res->ceiling_only = jb->ceiling_only;
  if (res->energy_why[0])
    kl__append(rep->notes, sizeof rep->notes, "no energy for %s %s: %s. ",
               jb->w->name, jb->r->name, res->energy_why);
  if (st == KL_OK && sl->alone > 0 && res->pub.t_median > 0) {
    res->pub.one_rank_seconds = sl->alone;
    res->pub.efficiency =
        sl->alone / (res->pub.t_median * (jb->in.strong ? res->pub.ranks : 1));
  }
  if (st == KL_INTERRUPTED) {
    /* Stopped inside this rung: it did not finish, and is no result. */
    kl__result_free(res);
    return 0;
  }
  if (st == KL_UNAVAILABLE) {
    /* A rung that cannot serve the problem stands aside: its result
     * says why, and the run's status does not count it. */
    progress(o, "    %s stands aside: %s", jb->r->name, res->pub.error);
    return 1;
  }
  if (st != KL_OK) {
    progress(o, "    %s error: %s", jb->r->name, res->pub.error);
    /* The run goes on; its status is the worst by exit code: device
     * errors over bad input over failed checks. */
    if (kl_exit_code(st) > kl_exit_code(*worst)) *worst = st;
    return 1;
  }
  progress(o, "    %s: %.3f ms median, %.1f %s, %s (%.1f s)", jb->r->name,
           res->pub.t_median * 1e3, res->pub.merit, jb->w->unit,
           kl__check_text(&res->pub), kl__now() - sl->started);
  if (res->pub.energy_source)
    progress(o, "    energy: %.4g W over %.2f s, %.4g J per run, %.4g pJ "
             "per unit%s", res->pub.energy_watts, res->pub.energy_seconds,
             res->pub.energy_joules, res->pub.energy_pj,
             res->pub.energy_mismatch ? ", MISMATCH with sampled power" : "");
  if (res->pub.check == KL_CHECK_FAIL && kl_exit_code(*worst) < 1)
    *worst = KL_CHECK_FAILED;
  return 1;
}

/* The jobs from `first` on that are rungs of one problem and fit in
 * memory beside each other, measured together: each prepared and checked
 * in turn, then their timed runs in rounds, a batch of each rung (and of
 * its ceiling right after) per round in ladder order, so that a machine's
 * drift (clocks settling, a neighbour's load) falls on every rung alike;
 * then each one's figures. Returns the first job after them; *stopped
 * where the run was interrupted. */
static size_t run_group(const kl_options *o, const kl__jobs *jobs,
                        size_t first, contexts *cs, kl_report *rep,
                        kl_status *worst, int *stopped) {
  slot slots[MAX_INTERLEAVED];
  int count = 0, entered = 0;
  kl_context *ctx = NULL;
  size_t at = 0; /* the context's place in cs */
  const size_t base = rep->count;
  size_t i = first;
  const int one_process = kl__ranks_count(o->ranks) < 2;
  while (i < jobs->count && count < MAX_INTERLEAVED) {
    const kl__job *jb = &jobs->items[i];
    if (i > first &&
        (!one_process || !interleaves(&jobs->items[first], jb) ||
         !kl__fits_now(&jb->plan, jb->r->backend, jb->device) ||
         (jb->ceiling >= 0 && !kl__fits_now(&jobs->items[jb->ceiling].plan,
                                            jb->r->backend, jb->device))))
      break;
    /* On several ranks, a stop any of them saw stops all. */
    double stop = o->stop && *o->stop;
    kl__ranks_max(o->ranks, &stop, 1);
    if (stop > 0) {
      *stopped = 1;
      break;
    }
    slot *sl = &slots[count];
    memset(sl, 0, sizeof *sl);
    sl->jb = jb;
    sl->index = i++;
    sl->res = &rep->results[rep->count++];
    sl->started = kl__now();
    kl__result *res = sl->res;
    char params[256] = "", where[64];
    kl__result_init(res, jb->w, jb->r, jb->device, &jb->plan);
    int op = kl__param_with(jb->w, KL_PARAM_OP);
    if (op >= 0)
      kl_param_text(&jb->w->params[op], jb->plan.value[op], params,
                    sizeof params);
    kl__device_text(jb->r->backend, jb->device, where, sizeof where);
    progress(o, "[%zu/%zu] %s %s (%s, n=%s, %s%s%s)%s ...", sl->index + 1,
             jobs->count, jb->w->name, jb->r->name, where, res->pub.shape,
             kl_type_name(jb->plan.type), params[0] ? " " : "", params,
             jb->is_ceiling ? " ceiling" : "");
    const kl__job *c = jb->ceiling >= 0 ? &jobs->items[jb->ceiling] : NULL;
    kl_status st = KL_OK;
    if (!entered) {
      st = cs ? context_for(cs, o, rep, jb->r->backend, jb->device, &at)
              : KL_FAIL(KL_NO_MEMORY, "out of host memory");
      if (st == KL_OK) ctx = &cs->ctx[at];
      if (st == KL_OK) st = kl__enter(ctx);
      entered = st == KL_OK;
    }
    if (entered) sl->energy = cs->energy[at];
    /* A device that one rank could not open stops the rung on all. */
    st = kl__ranks_agree(o->ranks, st);
    if (st == KL_OK && !one_process && !jb->ceiling_only)
      sl->alone = one_rank(o, jb, ctx);
    kl__timing t = timing_of(o, jb);
    if (entered) {
      t.clocks = cs->clocks[at];
      t.app_sm_mhz = cs->app_sm_mhz[at];
    }
    /* Rungs of one problem on one device time one ceiling job: the first
     * one's prepared ceiling serves the others. */
    kl__measuring *share = NULL;
    for (int k = 0; k < count && !share; k++)
      if (slots[k].m && slots[k].jb->ceiling == jb->ceiling) share = slots[k].m;
    const double setup_from = kl__now();
    if (st == KL_OK)
      st = kl__measure_start(jb, ctx, &t, c, share, res, &sl->m);
    else kl__result_status(res, st);
    res->setup_seconds = kl__now() - setup_from;
    res->max_seconds = t.max_seconds; /* after kl__measure_start */
    sl->st = st;
    count++;
    if (st == KL_INTERRUPTED) {
      *stopped = 1;
      break;
    }
    /* A context that could not be had ends the group with this job. */
    if (!entered) break;
  }
  /* The rounds: a batch of each rung whose runs go on, until none does; a
   * batch starts with an untimed run where another rung's ran since. */
  int started = 0, live[MAX_INTERLEAVED];
  for (int k = 0; k < count; k++) started += live[k] = slots[k].m != NULL;
  for (int going = started; going > 0;) {
    const int others = going > 1;
    for (int k = 0; k < count; k++) {
      int done = 0;
      if (!live[k]) continue;
      const double from = kl__now();
      kl__measure_step(slots[k].m, others, &done);
      slots[k].res->timing_seconds += kl__now() - from;
      if (done) live[k] = 0, going--;
    }
  }
  for (int k = 0; k < count; k++)
    if (slots[k].m) {
      const double from = kl__now();
      slots[k].st = kl__measure_finish(slots[k].m, slots[k].energy);
      slots[k].res->timing_seconds += kl__now() - from;
      slots[k].m = NULL;
      slots[k].res->interleaved = started;
      slots[k].res->launch_floor = cs->floor[at];
    }
  if (entered) kl__leave(ctx);
  /* The results in ladder order, those stopped inside left out. */
  size_t kept = base;
  for (int k = 0; k < count; k++) {
    if (slots[k].st == KL_INTERRUPTED) *stopped = 1;
    if (!job_done(o, &slots[k], rep, worst)) continue;
    if (&rep->results[kept] != slots[k].res)
      rep->results[kept] = *slots[k].res;
    kept++;
  }
  rep->count = kept;
  if (*stopped)
    progress(o, "    interrupted: %zu of %zu rungs finished", rep->count,
             jobs->count);
  return i;
}

/* On several ranks, what one exchange between them costs on this machine
 * and link, said in a note and kept in the report: the median of 31
 * allreduces of one value, each after a barrier, the slowest rank's. No
 * repetition that exchanges between the ranks takes less, so a rung's time
 * near it is the link's, not its own. */
#define EXCHANGES 31
static void exchange_cost(const kl_ranks *ranks, kl_report *rep) {
  double t[EXCHANGES];
  for (int i = 0; i < EXCHANGES; i++) {
    double v = 0;
    kl__ranks_barrier(ranks);
    const double start = kl__now();
    kl__ranks_max(ranks, &v, 1);
    t[i] = kl__now() - start;
  }
  for (int i = 1; i < EXCHANGES; i++) /* sorted, for the median */
    for (int k = i; k > 0 && t[k - 1] > t[k]; k--) {
      const double swap = t[k];
      t[k] = t[k - 1];
      t[k - 1] = swap;
    }
  double median = t[EXCHANGES / 2];
  kl__ranks_max(ranks, &median, 1);
  rep->exchange_seconds = median;
  kl__append(rep->notes, sizeof rep->notes,
             "one exchange between the %d ranks (an allreduce of one value) "
             "takes %.3g us here: no repetition that exchanges is faster. ",
             ranks->count, median * 1e6);
}

static void run_jobs(const kl_options *o, const kl__jobs *jobs,
                     kl_report *rep, kl_status *worst) {
  contexts *cs = calloc(1, sizeof *cs);
  int stopped = 0;
  for (size_t i = 0; i < jobs->count && !stopped;)
    i = run_group(o, jobs, i, cs, rep, worst, &stopped);
  if (stopped) rep->interrupted = 1;
  for (size_t i = 0; cs && i < cs->count; i++) {
    kl__energy_close(cs->energy[i]);
    kl__nvml_close(cs->clocks[i]);
    kl__context_close(&cs->ctx[i]);
  }
  free(cs);
}

static kl_status run_all(const kl_options *given, kl_report **out) {
  if (!out) return kl__usage(KL_USAGE, "kl_run: out is NULL");
  *out = NULL;
  kl_options o;
  kl_status st = options_of(given, &o);
  if (st != KL_OK) return st;
  const kl_ranks *rk = o.ranks;
  if (rk && (!KL__RANKS_HAS(rk, agree) ||
             !rk->barrier || !rk->max || !rk->agree || rk->count < 1 ||
             rk->rank < 0 || rk->rank >= rk->count))
    return kl__usage(KL_USAGE, "kl_options.ranks: a size, a rank below the "
                     "count and the three functions are needed");
  /* The bound keeps the timings' array small (8 MB) and a run finite. */
  if (o.reps < 0 || o.reps > KL_MAX_REPS)
    return kl__usage(KL_USAGE, "--reps must be from 1 to %d, or 0 for as "
                     "many as the noise needs (got %d)", KL_MAX_REPS, o.reps);
  if (o.cache != KL_CACHE_WARM && o.cache != KL_CACHE_COLD)
    return kl__usage(KL_USAGE, "kl_options.cache must be KL_CACHE_WARM or "
                     "KL_CACHE_COLD (got %d)", (int)o.cache);
  if (o.reps == 0 && !(o.precision > 0 && o.precision < 1))
    return kl__usage(KL_USAGE, "--precision must be above 0 and below 1 "
                     "(100%%) (got %g)", o.precision);
  if (o.warmup < 0 || o.warmup > KL_MAX_REPS)
    return kl__usage(KL_USAGE, "--warmup must be from 0 to %d (got %d)",
                     KL_MAX_REPS, o.warmup);
  size_t limit;
  st = kl__memory_limit(&limit);
  if (st != KL_OK) return st;
  if (o.n < 0)
    return kl__usage(KL_USAGE, "size %lld is negative", (long long)o.n);
  if (o.sizes && o.n > 0)
    return kl__usage(KL_USAGE, "give the size (n) or a sweep of sizes "
                     "(sizes), not both");
  if (o.sizes) {
    /* A sweep's text is checked whatever the selection. */
    double sizes[KL_MAX_SWEEP];
    size_t count = 0;
    st = kl__sweep_sizes(o.sizes, sizes, KL_MAX_SWEEP, &count);
    if (st != KL_OK) return st;
  }
  if (o.type != KL_TYPE_DEFAULT && ((int)o.type < 0 || o.type >= KL_TYPE_COUNT))
    return kl__usage(KL_USAGE, "%d is not a kl_type value (KL_F32 .. KL_U64, "
                     "or KL_TYPE_DEFAULT)", (int)o.type);
  devices devs;
  st = each_name(o.workloads, "workload", check_workload_name, NULL);
  if (st == KL_OK) st = run_devices(&o, &devs);
  if (st == KL_OK) st = each_name(o.rungs, "rung", check_rung_name, &o);
  if (st != KL_OK) return st;

  kl_report *rep = NULL;
  st = kl__report_new(&o, 0, &rep);
  if (st != KL_OK) return st;
  const kl_backend *used[MAX_DEVICES];
  for (size_t i = 0; i < devs.count; i++) used[i] = devs.items[i].backend;
  kl__machine_describe(&rep->machine, used, devs.count);
  kl__append(rep->notes, sizeof rep->notes, "%s", devs.note);
  kl__planner pl = {0};
  kl__jobs jobs = {0};
  st = plan_jobs(&pl, &o, &devs, &jobs, rep);
  kl__planner_free(&pl);
  if (st == KL_OK) {
    kl__result *grown = realloc(rep->results, (jobs.count ? jobs.count : 1) *
                                                  sizeof *grown);
    if (!grown) st = KL_FAIL(KL_NO_MEMORY, "out of host memory");
    else rep->results = grown;
  }
  /* On several ranks every rank must have planned the same jobs (sizes
   * are chosen from each one's memory), or they would wait on each other
   * in different rungs. */
  if (st == KL_OK) st = same_jobs(o.ranks, &jobs);
  st = kl__ranks_agree(o.ranks, st);
  if (st != KL_OK) {
    free(jobs.items);
    kl_report_free(rep);
    return st;
  }
  /* The named files a run writes (named.c): opened before any rung runs. */
  kl__outputs outs;
  st = kl__outputs_open(&outs, &jobs);
  st = kl__ranks_agree(o.ranks, st);
  if (st != KL_OK) {
    free(jobs.items);
    kl_report_free(rep);
    return st;
  }
  if (kl__ranks_count(o.ranks) > 1) exchange_cost(o.ranks, rep);
  trim_notes(rep);
  if (rep->notes[0]) progress(&o, "note: %s", rep->notes);
  kl_status worst = KL_OK;
  kl__host_pool_open();
  run_jobs(&o, &jobs, rep, &worst);
  kl__host_pool_close();
  kl__ceiling_relate(&jobs, rep);
  /* A rate the relation found impossible fails its check there. */
  for (size_t i = 0; i < rep->count; i++)
    if (rep->results[i].pub.status == KL_OK &&
        rep->results[i].pub.check == KL_CHECK_FAIL &&
        kl_exit_code(worst) < 1)
      worst = KL_CHECK_FAILED;
  free(jobs.items);
  const kl_status wrote = kl__outputs_finish(
      &outs, worst == KL_OK || worst == KL_CHECK_FAILED, rep->notes,
      sizeof rep->notes);
  if (wrote != KL_OK) worst = wrote;
  trim_notes(rep);
  *out = rep;
  if (rep->interrupted) return kl__usage(KL_INTERRUPTED, "interrupted");
  if (worst != KL_OK && worst != KL_CHECK_FAILED) {
    /* Keep the first rung error as the message of the run. */
    for (size_t i = 0; i < rep->count; i++)
      if (rep->results[i].pub.status != KL_OK) {
        kl__usage(worst, "%s %s: %s", rep->results[i].pub.workload,
                  rep->results[i].pub.rung, rep->results[i].pub.error);
        break;
      }
  }
  return worst;
}

kl_status kl_run(const kl_options *opt, kl_report **out) {
  return kl__done(run_all(opt, out));
}

/* ---- one rung ------------------------------------------------------------------ */

kl_status kl__run_one(kl_context *ctx, const kl_workload *w,
                      const kl_rung *r, const kl_problem *given, int reps,
                      int warmup, kl_report **out) {
  if (out) *out = NULL;
  kl_problem pb;
  kl_status st = problem_of(given, &pb);
  if (st != KL_OK) return st;
  if (ctx && ctx->backend != r->backend)
    return kl__usage(KL_USAGE, "%s %s runs on %s, not on the context's %s",
                     w->name, r->name, r->backend->name, ctx->backend->name);
  kl_options o;
  options_defaults(&o);
  o.reps = reps;
  o.warmup = warmup;
  o.seed = pb.seed;
  kl_report *rep = NULL;
  st = kl__report_new(&o, 1, &rep);
  if (st != KL_OK) return st;
  kl__machine_describe(&rep->machine, &r->backend, 1);
  kl__result *res = &rep->results[rep->count++];
  kl__result_init(res, w, r, ctx ? ctx->device.index : 0, NULL);
  kl__job job;
  memset(&job, 0, sizeof job);
  job.w = w;
  job.r = r;
  job.device = ctx ? ctx->device.index : 0;
  job.ceiling = -1;
  const kl__placed placed = {r, job.device};
  char note[256] = "";
  const int host = kl_backend_host_memory(r->backend);
  if (!kl_backend_available(r->backend, NULL, 0))
    st = kl__usage(KL_UNAVAILABLE, "backend %s is not available here",
                   r->backend->name);
  if (st == KL_OK) st = kl__instance_from_problem(w, &pb, &job.in);
  if (st == KL_OK)
    st = kl__fit_chunks(NULL, w, &job.in, &placed, 1, note, sizeof note);
  if (st == KL_OK)
    st = kl__plan_make(w, r, &job.in, host,
                       kl__device_at(r->backend, job.device), &job.plan,
                       &job.problem_bytes);
  if (st == KL_OK) kl__result_describe(res, &job.plan);
  if (st == KL_OK) st = kl__check_fits(w, &job.plan, r->backend, job.device, 1);
  if (st == KL_OK && !ctx) st = kl__default_context(r->backend, &ctx);
  if (st == KL_OK) st = kl__enter(ctx);
  if (st == KL_OK) {
    const kl__timing t = {.reps = reps, .precision = o.precision,
                          .warmup = warmup};
    st = kl__measure(&job, ctx, &t, NULL, NULL, res);
    kl__leave(ctx);
  } else {
    kl__result_status(res, st);
  }
  if (st == KL_OK && res->pub.check == KL_CHECK_FAIL) st = KL_CHECK_FAILED;
  if (out) *out = rep;
  else kl_report_free(rep);
  return st;
}

static kl_status run_rung(kl_context *ctx, const char *workload,
                          const char *rung, const kl_problem *pb, int reps,
                          int warmup, kl_report **out) {
  if (out) *out = NULL;
  size_t wi = 0;
  kl_status st = kl_workload_index(workload, &wi);
  if (st != KL_OK) return st;
  const kl_workload *w = kl_workload_at(wi);
  const kl_rung *r = rung ? kl_rung_find(w, rung) : NULL;
  if (r) return kl__run_one(ctx, w, r, pb, reps, warmup, out);
  for (const kl_retired_rung *old = w->retired; rung && old && old->name;
       old++)
    if (strcmp(old->name, rung) == 0)
      return kl__usage(KL_USAGE, "%s rung '%s' is no more: it is %s",
                       w->name, rung, old->now);
  return kl__usage(KL_USAGE, "%s has no rung " KL_Q, w->name,
                   KL_CLIP(rung ? rung : ""));
}

kl_status kl_run_rung(kl_context *ctx, const char *workload, const char *rung,
                      const kl_problem *problem, int reps, int warmup,
                      kl_report **out) {
  return kl__done(run_rung(ctx, workload, rung, problem, reps, warmup, out));
}
