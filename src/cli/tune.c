/* `kladder tune`: for each workload with library entry points,
 * each of its types, the rungs of every backend here timed over a sweep
 * of sizes; the fastest at each size, across the backends (best) and
 * within each (pick), written as the wisdom file the entry points read
 * (src/core/wisdom.c). best serves a call with no context, whose data is
 * in host memory: a backend whose memory is not the host's (CUDA) is
 * timed for it a second time, with the copies of the inputs there and of
 * the outputs back in each repetition (kl_options.host_data). pick serves
 * a call on a context, whose data may be on the device already: the
 * rungs' runs alone, the backend's library rung kept unless another is
 * faster than its every run (tune_pick). tuned: for a rung that reads
 * tunings not fixed by -p, their candidates (kl_param.tune_values, a
 * choice's choices) swept at each size, the fastest values; the rung's
 * time in pick is its fastest. Every line names its kind of device (the
 * device lines' keys, wisdom.c). The file is rewritten whole
 * after each workload and type, so that an interrupted tune (SIGINT,
 * SIGTERM: exit 128 + the signal's number) keeps what finished.
 * `kladder tune --check [FILE]`: whether a file applies to this build
 * and these devices. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, setenv, mkdir */
#include "tune.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kladder-run.h"
#include "../core/tool.h"
#include "args.h"
#include "text.h"

#define MAX_POINTS 16
#define MAX_UNITS 16

static const char usage_tune[] =
    "usage: kladder tune [-w W[,W...]] [-b B[,B...]] [-n SIZES] [-t T[,T...]]\n"
    "                    [-p NAME=VALUE[,...]] [--reps N] [-o FILE] [-q]\n"
    "       kladder tune --check [FILE]\n"
    "\n"
    "Times the rungs of each workload that has library entry points\n"
    "(kl_reduce, kl_histogram, ...) on every backend here, for each of its\n"
    "types, over a sweep of sizes, and writes which rung is fastest at each\n"
    "size, across the backends and within each, as the wisdom file the\n"
    "entry points read: a call with no context then runs the fastest\n"
    "backend and rung for its size, a call on a context its backend's\n"
    "fastest rung. Known-wrong rungs never count; only rungs whose check\n"
    "passed do. Across the backends (best lines, for a call on data in host\n"
    "memory) a GPU's times count the copies of the inputs to it and of the\n"
    "outputs back (run --host-data, a second run on those backends); within\n"
    "one (pick lines, where the data may be on the device) they do not,\n"
    "and the backend's library rung stays unless another's median is below\n"
    "its fastest run (the noise of a few runs picks no rung). A rung that\n"
    "reads tunings (-p m= of laplacian's tiled kernels) is run at each of\n"
    "their candidates, and its fastest values are written beside the picks\n"
    "(tuned lines), for each kind of device; runs and entry points take\n"
    "them where no value is given.\n"
    "The file is rewritten after each workload and type: an interrupted\n"
    "tune (Ctrl-C, SIGTERM) keeps what finished.\n"
    "\n"
    "  -w, --workload W[,W...]  only these (default: every one with entry\n"
    "                           points)\n"
    "  -b, --backend B[,B...]   only these backends (default: every one here)\n"
    "  -n, --size SIZES         the sweep, as run -n takes it (default: from\n"
    "                           the workload's smallest size to a quarter of\n"
    "                           its host default, about ten points)\n"
    "  -t, --type T[,T...]      only these element types (default: each\n"
    "                           type a workload's entry points take)\n"
    "  -p, --params NAME=VALUE[,...]  fixed values, one each: a tuning given\n"
    "                           is not swept\n"
    "      --reps N             timed runs per rung and size (default 5)\n"
    "  -o, --output FILE        the wisdom file (default: KLADDER_WISDOM, else\n"
    "                           $XDG_CACHE_HOME/kladder/wisdom or\n"
    "                           ~/.cache/kladder/wisdom)\n"
    "      --check [FILE]       say whether FILE (default: the one the library\n"
    "                           reads) applies to this build and devices:\n"
    "                           exit 0 if it does, 1 if not\n"
    "  -q, --quiet              no progress lines\n"
    "  -h, --help               this text\n"
    "\n"
    "exit codes: 0 written (or applies), 1 does not apply (--check) or no\n"
    "rung passed, 2 bad usage or a file that cannot be written, 3 a device\n"
    "or runtime error, 128 + the signal's number interrupted.\n";

static int usage_error(const char *fmt, const char *arg) {
  char show[SHOWN_SIZE];
  return args_error("tune", fmt, arg ? kl__shown(arg, show) : "");
}

static void default_path(char *dst, size_t size) {
  const char *env = getenv("KLADDER_WISDOM");
  const char *cache = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (env && *env && strcmp(env, "none") != 0) snprintf(dst, size, "%s", env);
  else if (cache && *cache) snprintf(dst, size, "%s/kladder/wisdom", cache);
  else if (home && *home) snprintf(dst, size, "%s/.cache/kladder/wisdom", home);
  else dst[0] = '\0';
}

/* The folder of path made where missing (the cache folder). */
static void make_parents(const char *path) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    (void)mkdir(dir, 0777);
    *p = '/';
  }
}

/* The default sweep of a workload's main size: from its smallest to a
 * quarter of its host default, by a whole factor, about ten points. */
static void default_sizes(size_t w, char *dst, size_t size) {
  kl_workload_info wi = {.size = sizeof wi};
  kl_workload_describe(w, &wi);
  double lo = 1, hi = 1 << 20;
  for (int p = 0; p < wi.param_count; p++) {
    kl_param_info pi = {.size = sizeof pi};
    if (kl_param_describe(w, p, &pi) != KL_OK || !pi.main_size) continue;
    lo = pi.min > 1 ? pi.min : 1;
    hi = (pi.host_default > 0 ? pi.host_default : pi.default_value) / 4;
  }
  if (hi < lo) hi = lo;
  double f = ceil(pow(hi / lo, 1.0 / 9));
  if (f < 2) f = 2;
  dst[0] = '\0';
  for (double n = lo; n <= hi && strlen(dst) + 24 < size; n *= f)
    snprintf(dst + strlen(dst), size - strlen(dst), "%s%.0f",
             dst[0] ? "," : "", n);
}

/* A kind of device tuned for: device `index` of a backend, its key in
 * the file ("d0") and its kind ("BACKEND UNITS GIB NAME", wisdom.c). */
typedef struct unit {
  const char *backend;
  int index, host;
  char id[48], key[16], kind[200];
} unit;

/* Every result of a workload and type's runs, each once. */
typedef struct pool {
  const kl_result **items;
  size_t count, cap;
} pool;

static int pool_add(pool *p, const kl_report *rep) {
  for (size_t i = 0; rep && i < kl_report_count(rep); i++) {
    if (p->count == p->cap) {
      const size_t cap = p->cap ? 2 * p->cap : 64;
      const kl_result **grown = realloc(p->items, cap * sizeof *grown);
      if (!grown) return -1;
      p->items = grown;
      p->cap = cap;
    }
    p->items[p->count++] = kl_report_result(rep, i);
  }
  return 0;
}

/* Whether r is a passing timed result at size n. */
static int counts(const kl_result *r, int64_t n) {
  return r->n == n && r->status == KL_OK && r->check == KL_CHECK_PASS &&
         !(r->flags & (KL_RUNG_KNOWN_WRONG | KL_RUNG_CEILING)) && r->reps >= 1;
}

static int on_unit(const kl_result *r, const unit *u) {
  return !strcmp(r->backend, u->backend) && r->device == u->index;
}

/* The fastest passing result at size n in the pool (NULL: none), on one
 * of the `count` units listed, of the rung named (NULL: any). */
static const kl_result *fastest(const pool *p, int64_t n, const unit *units,
                                int count, const char *rung) {
  const kl_result *best = NULL;
  for (size_t i = 0; i < p->count; i++) {
    const kl_result *r = p->items[i];
    if (!counts(r, n) || (rung && strcmp(r->rung, rung))) continue;
    int listed = 0;
    for (int u = 0; u < count && !listed; u++) listed = on_unit(r, &units[u]);
    if (listed && (!best || r->t_median < best->t_median)) best = r;
  }
  return best;
}

/* The library rung of workload w for type t on the backend named: the
 * first of its rungs there marked for t, as the entry points take it
 * (NULL: none). */
static const char *library_rung(size_t w, int t, const char *backend) {
  kl_workload_info wi = {.size = sizeof wi};
  if (kl_workload_describe(w, &wi) != KL_OK) return NULL;
  for (int r = 0; r < wi.rung_count; r++) {
    kl_rung_info ri = {.size = sizeof ri};
    if (kl_rung_describe(w, r, &ri) == KL_OK && ri.built &&
        (ri.library & KL_TYPE_BIT(t)) && !strcmp(ri.backend, backend))
      return ri.name;
  }
  return NULL;
}

/* The units' ids, comma-separated, as -b takes them; those with device
 * index 0 alone where `first`, of host memory or not as `host` says (-1:
 * either). */
static void join(char *dst, size_t size, const unit *units, int count,
                 int first, int host) {
  dst[0] = '\0';
  for (int i = 0; i < count; i++)
    if ((!first || units[i].index == 0) &&
        (host < 0 || units[i].host == host))
      snprintf(dst + strlen(dst), size - strlen(dst), "%s%s",
               dst[0] ? "," : "", units[i].id);
}

/* The faster of two results, either of which may be NULL. */
static const kl_result *faster(const kl_result *a, const kl_result *b) {
  return !a ? b : !b ? a : b->t_median < a->t_median ? b : a;
}

static const unit *unit_of(const kl_result *r, const unit *units,
                           int count) {
  for (int u = 0; u < count; u++)
    if (on_unit(r, &units[u])) return &units[u];
  return NULL;
}

/* The lines of one kind over the sweep, from the winner at each size
 * (NULL: none): a line where the winner changes, the first from 0. */
static int write_kind(FILE *f, const char *kind, const kl_result *const *at,
                      const int64_t *sizes, int count, const char *workload,
                      const char *type, const unit *units, int unit_count) {
  const kl_result *last = NULL;
  int lines = 0;
  for (int i = 0; i < count; i++) {
    const kl_result *r = at[i];
    const unit *u = r ? unit_of(r, units, unit_count) : NULL;
    if (!u) continue;
    if (last && !strcmp(last->rung, r->rung) &&
        !strcmp(last->backend, r->backend) && last->device == r->device)
      continue;
    fprintf(f, "%s %s %s %s %lld %s %s\n", kind, u->key, workload, type,
            lines ? (long long)sizes[i] : 0LL, r->backend, r->rung);
    last = r;
    lines++;
  }
  return lines;
}

/* The values of the tunings `names` (comma-separated) in a result's
 * params ("a=1;m=2"), as "m=2 planes=8"; "" where none is there. */
static void tuned_values(const kl_result *r, const char *names, char *dst,
                         size_t size) {
  dst[0] = '\0';
  for (const char *p = r->params; *p;) {
    const size_t len = strcspn(p, ";");
    const char *eq = memchr(p, '=', len);
    char name[64];
    if (eq && (size_t)(eq - p) < sizeof name) {
      snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
      if (kl__in_list(names, name))
        snprintf(dst + strlen(dst), size - strlen(dst), "%s%.*s",
                 dst[0] ? " " : "", (int)len, p);
    }
    p += len + (p[len] == ';');
  }
}

/* The tuned lines of a rung on a unit over the sweep: a line where the
 * fastest values change, the first from 0. */
static int write_tuned(FILE *f, const pool *pl, const unit *u,
                       const char *rung, const char *names,
                       const int64_t *sizes, int count, const char *workload,
                       const char *type) {
  char last[256] = "", now[256];
  int lines = 0;
  for (int i = 0; i < count; i++) {
    const kl_result *r = fastest(pl, sizes[i], u, 1, rung);
    if (!r) continue;
    tuned_values(r, names, now, sizeof now);
    if (!now[0] || !strcmp(now, last)) continue;
    fprintf(f, "tuned %s %s %s %lld %s %s %s\n", u->key, workload, type,
            lines ? (long long)sizes[i] : 0LL, u->backend, rung, now);
    snprintf(last, sizeof last, "%s", now);
    lines++;
  }
  return lines;
}

/* A tuning's candidates as -p takes a list: its tune_values, else a
 * choice's every choice; "" none. Their count in *count (0: a range,
 * not counted). */
static void candidates(const kl_param_info *pi, char *dst, size_t size,
                       size_t *count) {
  dst[0] = '\0';
  *count = 0;
  if (pi->tune_values) {
    snprintf(dst, size, "%s", pi->tune_values);
    *count = strstr(dst, "..") ? 0 : 1;
    for (const char *c = dst; *count && *c; c++) *count += *c == ',';
  } else if (pi->choices) {
    for (size_t i = 0; pi->choices[i]; i++, ++*count)
      snprintf(dst + strlen(dst), size - strlen(dst), "%s%s", i ? "," : "",
               pi->choices[i]);
  }
}

/* The items of tune's -p (NAME=VALUE, each one value) that name a
 * parameter of workload w, comma-separated; NULL where none does. */
static const char *fixed_of(size_t w, const char *params, char *dst,
                            size_t size) {
  dst[0] = '\0';
  for (const char *p = params; p && *p;) {
    const size_t len = strcspn(p, ",");
    const char *eq = memchr(p, '=', len);
    kl_workload_info wi = {.size = sizeof wi};
    kl_workload_describe(w, &wi);
    for (int i = 0; eq && i < wi.param_count; i++) {
      kl_param_info pi = {.size = sizeof pi};
      if (kl_param_describe(w, i, &pi) == KL_OK &&
          strlen(pi.name) == (size_t)(eq - p) &&
          !strncmp(pi.name, p, (size_t)(eq - p)))
        snprintf(dst + strlen(dst), size - strlen(dst), "%s%.*s",
                 dst[0] ? "," : "", (int)len, p);
    }
    p += len + (p[len] == ',');
  }
  return dst[0] ? dst : NULL;
}

/* SIGINT and SIGTERM: the first stops the sweep after the repetition in
 * progress (kl_options.stop), the workloads and types that finished
 * stay written; a second exits at once, the file as last written whole. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) {
  if (stop_signal) _exit(128 + sig);
  stop_signal = sig;
  static const char said[] = "\nkladder: tune: stopping after the current "
                             "repetition; what finished stays written "
                             "(again to quit at once)\n";
  ssize_t wrote = write(STDERR_FILENO, said, sizeof said - 1);
  (void)wrote;
}

/* The file so far, whole (kl__file_write: a regular file through a
 * temporary renamed over it, a device in place). */
static int save(FILE *f, const char *path, int own_folder, char *const *text,
                const size_t *len) {
  if (fflush(f) != 0) return -1;
  /* The cache's folder is made; that of a path given (-o) is not, as no
   * output's is. */
  if (own_folder) make_parents(path);
  if (kl__file_write(path, *text, *len) == KL_OK) return 0;
  error_line("tune: %s", kl_last_error());
  return -1;
}

static int check_file(const char *path) {
  char def[4096];
  if (!path) {
    default_path(def, sizeof def);
    path = def;
  }
  if (!path[0]) return usage_error("no wisdom file to check%s", NULL);
  setenv("KLADDER_WISDOM", path, 1);
  const char *note = kl_wisdom_note();
  printf("%s\n", note);
  /* "wisdom PATH: N picks" applies; every other note says why not (and
   * that the built-in wisdom serves instead). */
  const char *tail = strrchr(note, ':');
  return !strncmp(note, "wisdom ", 7) && tail && strstr(tail, " picks") &&
                 !strstr(note, "ignored")
             ? 0
             : 1;
}

/* Runs one sweep (o as given), its results into the pool; the report
 * kept in *keep for freeing. The status of kl_run, KL_OK where it ran
 * (some rung failing its check or standing aside included). */
static kl_status sweep(const kl_options *o, pool *pl, kl_report **keep) {
  kl_status st = kl_run(o, keep);
  if (*keep && (st == KL_OK || st == KL_CHECK_FAILED)) {
    if (pool_add(pl, *keep) != 0) return KL_NO_MEMORY;
    return KL_OK;
  }
  return st;
}

/* The tuning runs of one workload and type: for each rung on a unit that
 * reads tunings not fixed by -p, its tunings' candidates swept at each
 * size (all at once where their product and the sizes make at most 64
 * points, else size by size; each tuning alone, the others at their
 * defaults, where the product alone passes 64). Their results join the
 * pool; each rung's swept names in names[rung]. */
#define MAX_RUNS 256
static kl_status tune_rungs(size_t w, const kl_options *base,
                            const char *backends, const char *fixed, const int64_t *sizes,
                            size_t count, pool *pl, kl_report **runs,
                            int *run_count, char (*names)[128], int quiet) {
  kl_workload_info wi = {.size = sizeof wi};
  kl_workload_describe(w, &wi);
  for (int r = 0; r < wi.rung_count && r < 64; r++) {
    kl_rung_info ri = {.size = sizeof ri};
    names[r][0] = '\0';
    if (kl_rung_describe(w, r, &ri) != KL_OK || !ri.available ||
        !ri.tunings[0] || !kl__selects(backends, ri.backend) ||
        (ri.types && !(ri.types & KL_TYPE_BIT(base->type))))
      continue;
    /* Each tuning it reads, not fixed: NAME=CANDIDATES. */
    char groups[8][512];
    int group_count = 0;
    size_t product = 1;
    for (int i = 0; i < wi.param_count && group_count < 8; i++) {
      kl_param_info pi = {.size = sizeof pi};
      char values[400];
      size_t n = 0;
      if (kl_param_describe(w, i, &pi) != KL_OK || !pi.tuning ||
          !kl__in_list(ri.tunings, pi.name))
        continue;
      char given[80];
      snprintf(given, sizeof given, "%s=", pi.name);
      int is_fixed = 0;
      for (const char *p = fixed; p && *p && !is_fixed;) {
        is_fixed = !strncmp(p, given, strlen(given));
        p += strcspn(p, ",");
        p += *p == ',';
      }
      candidates(&pi, values, sizeof values, &n);
      if (is_fixed || !values[0]) continue;
      snprintf(groups[group_count++], sizeof groups[0], "%s=%s", pi.name,
               values);
      product = n && product <= KL_MAX_SWEEP ? product * n : KL_MAX_SWEEP + 1;
      snprintf(names[r] + strlen(names[r]), sizeof names[r] - strlen(names[r]),
               "%s%s", names[r][0] ? "," : "", pi.name);
    }
    if (!group_count) continue;
    /* All tunings at once, else each alone. */
    char all[sizeof groups] = ""; /* every group, a comma between */
    for (int g = 0; g < group_count; g++)
      snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s",
               g ? "," : "", groups[g]);
    const int together = product <= KL_MAX_SWEEP;
    const int per_size = !together || product * count > KL_MAX_SWEEP;
    for (int g = 0; g < (together ? 1 : group_count); g++) {
      char params[8192];
      snprintf(params, sizeof params, "%s%s%s", fixed ? fixed : "",
               fixed ? "," : "", together ? all : groups[g]);
      for (size_t k = 0; k < (per_size ? count : 1); k++) {
        if (*run_count == MAX_RUNS || (base->stop && *base->stop))
          return KL_OK;
        char one[32];
        kl_options o = *base;
        o.rungs = ri.name;
        o.params = params;
        if (per_size) {
          snprintf(one, sizeof one, "%lld", (long long)sizes[k]);
          o.sizes = one;
        }
        if (!quiet)
          fprintf(stderr, "tune: %s %s %s over %s, %s\n", wi.name,
                  kl_type_name(base->type), ri.name, o.sizes, params);
        kl_status st = sweep(&o, pl, &runs[(*run_count)++]);
        if (st != KL_OK && st != KL_UNAVAILABLE) return st;
      }
    }
  }
  return KL_OK;
}

/* A name of a -w, -t or -b list: 0 where it is one, else bad usage said. */
static int workload_known(const char *name) {
  size_t w;
  return kl_workload_index(name, &w) == KL_OK
             ? 0
             : usage_error("%s", kl_last_error());
}

static int type_known(const char *name) {
  kl_type t;
  return kl_type_parse(name, &t) == KL_OK ? 0
                                          : usage_error("%s", kl_last_error());
}

static int backend_known(const char *name) {
  for (size_t i = 0; i < kl_backend_count(); i++) {
    kl_backend_info bi = {.size = sizeof bi};
    if (kl_backend_describe(i, &bi) == KL_OK && !strcmp(bi.name, name))
      return 0;
  }
  return usage_error("unknown backend '%s'", name);
}

/* Each comma-separated name of `list` through `known`: the first refusal's
 * exit code, or 0. */
static int each_known(const char *list, int (*known)(const char *name)) {
  for (const char *p = list; p && *p;) {
    char name[64];
    const size_t len = strcspn(p, ",");
    snprintf(name, sizeof name, "%.*s", (int)len, p);
    const int code = known(name);
    if (code) return code;
    p += len + (p[len] == ',');
  }
  return 0;
}

int tune_main(int argc, char **argv) {
  const char *workloads = NULL, *backends = NULL, *sizes_text = NULL;
  const char *out = NULL, *reps_text = NULL, *params = NULL, *types = NULL;
  int reps = 5, quiet = 0;
  /* Each takes one value, once: which of two would count is not for
   * their order to decide. --check's file is the one operand. */
  const char *file = NULL;
  int check = 0;
  arg_option options[] = {{"workload", 'w', ARG_VALUE, &workloads, NULL, 0},
                          {"backend", 'b', ARG_VALUE, &backends, NULL, 0},
                          {"size", 'n', ARG_VALUE, &sizes_text, NULL, 0},
                          {"type", 't', ARG_VALUE, &types, NULL, 0},
                          {"params", 'p', ARG_VALUE, &params, NULL, 0},
                          {"reps", 0, ARG_VALUE, &reps_text, NULL, 0},
                          {"output", 'o', ARG_VALUE, &out, NULL, 0},
                          {"check", 0, ARG_FLAG, &check, NULL, 0},
                          {"quiet", 'q', ARG_FLAG, &quiet, NULL, 0},
                          {0}};
  args a = {"tune", usage_tune, options, &file, 1, "--check takes one file",
            0};
  const int parsed = args_parse(&a, argc, argv);
  if (parsed >= 0) return parsed;
  if (check) return check_file(file);
  if (file)
    return usage_error("unexpected argument '%s'; a file goes with --check",
                       file);
  unsigned long long r = 5;
  if (reps_text && !args_count(reps_text, 1, 1000, &r))
    return usage_error("--reps '%s' must be 1 to 1000", reps_text);
  reps = (int)r;
  char path[4096];
  if (out) snprintf(path, sizeof path, "%s", out);
  else default_path(path, sizeof path);
  if (!path[0])
    return usage_error("no place for the wisdom file (no HOME): give -o "
                       "FILE%s", NULL);
  /* Every name given must be one. */
  int refused = each_known(workloads, workload_known);
  if (!refused) refused = each_known(types, type_known);
  if (!refused) refused = each_known(backends, backend_known);
  if (refused) return refused;
  /* -p: fixed values, NAME=VALUE each, of a parameter of some workload
   * tuned: what it sets is not swept. */
  for (const char *p = params; p && *p;) {
    char item[128];
    const size_t len = strcspn(p, ",");
    snprintf(item, sizeof item, "%.*s", (int)len, p);
    char *eq = strchr(item, '=');
    if (!eq || eq == item || !eq[1])
      return usage_error("-p '%s': tune takes NAME=VALUE items, each one "
                         "value (a parameter given is fixed, not swept)",
                         item);
    *eq = '\0';
    int known = 0;
    for (size_t w = 0; w < kl_workload_count() && !known; w++) {
      kl_workload_info wi = {.size = sizeof wi};
      kl_workload_describe(w, &wi);
      for (int i = 0; kl__selects(workloads, wi.name) && i < wi.param_count &&
                      !known; i++) {
        kl_param_info pi = {.size = sizeof pi};
        known = kl_param_describe(w, i, &pi) == KL_OK &&
                !strcmp(pi.name, item);
      }
    }
    if (!known)
      return usage_error("-p: no workload tuned has a parameter '%s'", item);
    p += len + (p[len] == ',');
  }
  /* What is measured here is measured with no wisdom: the file being
   * replaced gives no rung its tunings. */
  setenv("KLADDER_WISDOM", "none", 1);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return usage_error("out of memory%s", NULL);
  catch_stop_signals(on_signal);
  const kl_build_info *build = kl_build();
  fprintf(f, "kladder-wisdom 2\nbuild %s %s\n", build->version,
          build->commit[0] ? build->commit : "-");
  /* The devices: of each backend here that was asked for, device 0 and
   * each further device of another kind (wisdom.c's key), each a key of
   * the file. */
  unit units[MAX_UNITS];
  int nu = 0;
  for (size_t i = 0; i < kl_backend_count(); i++) {
    kl_backend_info bi = {.size = sizeof bi};
    if (kl_backend_describe(i, &bi) != KL_OK || !bi.available ||
        !kl__selects(backends, bi.name))
      continue;
    for (int d = 0; d < bi.device_count && nu < MAX_UNITS; d++) {
      unit u = {.backend = bi.name, .index = d, .host = bi.host_memory};
      if (kl__wisdom_device(bi.name, d, u.kind, sizeof u.kind) != KL_OK)
        continue;
      int seen = 0;
      for (int k = 0; k < nu && !seen; k++) seen = !strcmp(units[k].kind, u.kind);
      if (seen) continue;
      snprintf(u.id, sizeof u.id, "%s:%d", bi.name, d);
      snprintf(u.key, sizeof u.key, "d%u", (unsigned)nu);
      fprintf(f, "device %s %s\n", u.key, u.kind);
      units[nu++] = u;
    }
  }
  char unit_list[512], off_host_list[512];
  join(unit_list, sizeof unit_list, units, nu, 0, -1);
  join(off_host_list, sizeof off_host_list, units, nu, 1, 0);
  int lines = 0, code = 0;
  for (size_t w = 0; w < kl_workload_count() && code == 0 && !stop_signal;
       w++) {
    kl_workload_info wi = {.size = sizeof wi};
    kl_workload_describe(w, &wi);
    if (!kl__selects(workloads, wi.name)) continue;
    unsigned library = 0;
    for (int r = 0; r < wi.rung_count; r++) {
      kl_rung_info ri = {.size = sizeof ri};
      if (kl_rung_describe(w, r, &ri) == KL_OK) library |= ri.library;
    }
    if (!library) continue; /* no entry point */
    char sweep_text[512], fixed_text[512];
    if (sizes_text) snprintf(sweep_text, sizeof sweep_text, "%s", sizes_text);
    else default_sizes(w, sweep_text, sizeof sweep_text);
    const char *fixed = fixed_of(w, params, fixed_text, sizeof fixed_text);
    int64_t sizes[MAX_POINTS];
    size_t count = 0;
    if (kl__parse_sizes(sweep_text, sizes, MAX_POINTS, &count) != KL_OK) {
      code = usage_error("%s", kl_last_error());
      break;
    }
    for (int t = 0; t < KL_TYPE_COUNT && code == 0 && !stop_signal; t++) {
      if (!(library & KL_TYPE_BIT(t)) ||
          !kl__selects(types, kl_type_name((kl_type)t)))
        continue;
      kl_options o;
      kl_options_init(&o);
      o.workloads = wi.name;
      o.backends = unit_list;
      o.sizes = sweep_text;
      o.params = fixed;
      o.type = (kl_type)t;
      o.reps = reps;
      o.warmup = 1;
      o.skip_ceiling = 1;
      o.max_seconds = 2;
      o.stop = &stop_signal;
      const char *type = kl_type_name((kl_type)t);
      if (!quiet)
        fprintf(stderr, "tune: %s %s over %s on %s\n", wi.name, type,
                sweep_text, unit_list);
      /* The data of a call on a context may be on its device already: pick
       * compares the rungs' runs alone, each rung at its fastest tunings. */
      pool all = {0}, copied_pool = {0};
      kl_report *rep = NULL, *copied = NULL, *runs[MAX_RUNS];
      int run_count = 0;
      char names[64][128];
      kl_status st = sweep(&o, &all, &rep);
      const int ran = st == KL_OK;
      if (ran)
        st = tune_rungs(w, &o, backends, fixed, sizes, count, &all, runs, &run_count,
                        names, quiet);
      /* A call with no context has its data in host memory, on a backend's
       * device 0: on a backend whose memory is not the host's, best counts
       * the copies there and back (at the rungs' defaults), so that a small
       * problem stays on the host where a GPU's copies alone outlast the
       * host's whole run. */
      if ((st == KL_OK || st == KL_UNAVAILABLE) && off_host_list[0]) {
        o.backends = off_host_list;
        o.host_data = 1;
        if (!quiet)
          fprintf(stderr, "tune: %s %s over %s on %s, with the copies of "
                  "host data\n", wi.name, type, sweep_text, off_host_list);
        st = sweep(&o, &copied_pool, &copied);
      }
      const int ran_copied = copied_pool.count > 0;
      if (!stop_signal && (ran || ran_copied)) {
        const kl_result *at[MAX_POINTS];
        const int before = lines;
        unit firsts_on[MAX_UNITS], firsts_off[MAX_UNITS];
        int n_on = 0, n_off = 0;
        for (int u = 0; u < nu; u++)
          if (units[u].index == 0) {
            if (units[u].host) firsts_on[n_on++] = units[u];
            else firsts_off[n_off++] = units[u];
          }
        for (size_t i = 0; i < count; i++)
          at[i] = faster(fastest(&all, sizes[i], firsts_on, n_on, NULL),
                         fastest(&copied_pool, sizes[i], firsts_off, n_off,
                                 NULL));
        lines += write_kind(f, "best", at, sizes, (int)count, wi.name, type,
                            units, nu);
        for (int u = 0; u < nu && ran; u++) {
          const char *library_name = library_rung(w, t, units[u].backend);
          for (size_t i = 0; i < count; i++)
            at[i] = tune_pick(
                fastest(&all, sizes[i], &units[u], 1, NULL),
                library_name
                    ? fastest(&all, sizes[i], &units[u], 1, library_name)
                    : NULL);
          lines += write_kind(f, "pick", at, sizes, (int)count, wi.name,
                              type, units, nu);
        }
        kl_workload_info again = {.size = sizeof again};
        kl_workload_describe(w, &again);
        for (int r = 0; r < again.rung_count && r < 64 && run_count; r++) {
          kl_rung_info ri = {.size = sizeof ri};
          if (!names[r][0] || kl_rung_describe(w, r, &ri) != KL_OK) continue;
          for (int u = 0; u < nu; u++)
            if (!strcmp(units[u].backend, ri.backend))
              lines += write_tuned(f, &all, &units[u], ri.name, names[r],
                                   sizes, (int)count, wi.name, type);
        }
        if (code == 0 && lines > before &&
            save(f, path, !out, &text, &len) != 0)
          code = 2;
      }
      /* st is the last run's: the first's where it failed (no other ran). */
      if (code == 0 && st != KL_OK && st != KL_CHECK_FAILED &&
          st != KL_UNAVAILABLE && !stop_signal) {
        fprintf(stderr, "kladder: error: tune: %s %s: %s\n", wi.name, type,
                kl_last_error());
        code = st == KL_USAGE ? 2 : 3;
      }
      kl_report_free(rep);
      kl_report_free(copied);
      for (int k = 0; k < run_count; k++) kl_report_free(runs[k]);
      free(all.items);
      free(copied_pool.items);
      if (stop_signal) break; /* this type unfinished: not written */
    }
  }
  fclose(f);
  if (stop_signal) {
    if (lines > 0)
      fprintf(stderr, "tune: interrupted; %s holds the %d lines of what "
              "finished\n", path, lines);
    else
      fprintf(stderr, "tune: interrupted before a workload finished; "
              "nothing written\n");
    free(text);
    return 128 + stop_signal;
  }
  if (code == 0 && lines == 0) {
    fprintf(stderr, "kladder: error: tune: no rung passed: nothing to "
            "write\n");
    code = 1;
  }
  if (code == 0) {
    /* Written after the last workload already. */
    printf("%s", text);
    fprintf(stderr, "tune: wrote %s (%d lines)\n", path, lines);
  }
  free(text);
  return code;
}
