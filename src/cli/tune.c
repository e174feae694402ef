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
 * faster than its every run (tune_pick). The file is rewritten whole
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
#include "text.h"

#define MAX_POINTS 16
#define MAX_BACKENDS 8

static const char usage_tune[] =
    "usage: kladder tune [-w W[,W...]] [-b B[,B...]] [-n SIZES] [--reps N]\n"
    "                    [-o FILE] [-q]\n"
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
    "its fastest run (the noise of a few runs picks no rung).\n"
    "The file is rewritten after each workload and type: an interrupted\n"
    "tune (Ctrl-C, SIGTERM) keeps what finished.\n"
    "\n"
    "  -w, --workload W[,W...]  only these (default: every one with entry\n"
    "                           points)\n"
    "  -b, --backend B[,B...]   only these backends (default: every one here)\n"
    "  -n, --size SIZES         the sweep, as run -n takes it (default: from\n"
    "                           the workload's smallest size to a quarter of\n"
    "                           its host default, about ten points)\n"
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
  return usage_error_of("tune", fmt, arg);
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

/* Whether r is a passing timed result at size n. */
static int counts(const kl_result *r, int64_t n) {
  return r->n == n && r->status == KL_OK && r->check == KL_CHECK_PASS &&
         !(r->flags & (KL_RUNG_KNOWN_WRONG | KL_RUNG_CEILING)) && r->reps >= 1;
}

/* The fastest passing result at size n of the report (NULL: none), of
 * one of the `count` backends listed. */
static const kl_result *fastest(const kl_report *rep, int64_t n,
                                const char *const *backends, int count) {
  const kl_result *best = NULL;
  for (size_t i = 0; i < kl_report_count(rep); i++) {
    const kl_result *r = kl_report_result(rep, i);
    if (!counts(r, n)) continue;
    int listed = 0;
    for (int b = 0; b < count && !listed; b++)
      listed = !strcmp(r->backend, backends[b]);
    if (!listed) continue;
    if (!best || r->t_median < best->t_median) best = r;
  }
  return best;
}

/* The passing result at size n of the rung named (NULL: none). */
static const kl_result *result_of(const kl_report *rep, int64_t n,
                                  const char *rung) {
  for (size_t i = 0; rung && i < kl_report_count(rep); i++) {
    const kl_result *r = kl_report_result(rep, i);
    if (counts(r, n) && !strcmp(r->rung, rung)) return r;
  }
  return NULL;
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

/* The count names, comma-separated, as -b takes them. */
static void join(char *dst, size_t size, const char *const *names,
                 int count) {
  dst[0] = '\0';
  for (int i = 0; i < count; i++)
    snprintf(dst + strlen(dst), size - strlen(dst), "%s%s", i ? "," : "",
             names[i]);
}

/* The faster of two results, either of which may be NULL. */
static const kl_result *faster(const kl_result *a, const kl_result *b) {
  return !a ? b : !b ? a : b->t_median < a->t_median ? b : a;
}

/* The lines of one kind over the sweep, from the winner at each size
 * (NULL: none): a line where the winner changes, the first from 0. */
static int write_kind(FILE *f, const char *kind, const kl_result *const *at,
                      const int64_t *sizes, int count, const char *workload,
                      const char *type) {
  const kl_result *last = NULL;
  int lines = 0;
  for (int i = 0; i < count; i++) {
    const kl_result *r = at[i];
    if (!r) continue;
    if (last && !strcmp(last->rung, r->rung) &&
        !strcmp(last->backend, r->backend))
      continue;
    fprintf(f, "%s %s %s %lld %s %s\n", kind, workload, type,
            lines ? (long long)sizes[i] : 0LL, r->backend, r->rung);
    last = r;
    lines++;
  }
  return lines;
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
  fputs("kladder: error: tune: ", stderr);
  one_line(stderr, kl_last_error());
  fputc('\n', stderr);
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

int tune_main(int argc, char **argv) {
  const char *workloads = NULL, *backends = NULL, *sizes_text = NULL;
  const char *out = NULL, *reps_text = NULL;
  int reps = 5, quiet = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage_tune, stdout);
      return 0;
    } else if (!strcmp(a, "--check")) {
      if (i + 2 < argc) return usage_error("--check takes one file%s", NULL);
      return check_file(v);
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = 1;
    } else if (!strcmp(a, "-w") || !strcmp(a, "--workload") ||
               !strcmp(a, "-b") || !strcmp(a, "--backend") ||
               !strcmp(a, "-n") || !strcmp(a, "--size") ||
               !strcmp(a, "-o") || !strcmp(a, "--output") ||
               !strcmp(a, "--reps")) {
      if (!v || !*v) return usage_error("option '%s' needs a value", a);
      const char **to = a[1] == 'w' || a[2] == 'w'   ? &workloads
                        : a[1] == 'b' || a[2] == 'b' ? &backends
                        : a[1] == 'n' || !strcmp(a, "--size") ? &sizes_text
                        : a[1] == 'o' || !strcmp(a, "--output") ? &out
                                                                : &reps_text;
      /* Each takes one value, once: which of two would count is not for
       * their order to decide. */
      if (*to) return usage_error("option '%s' given twice; it takes one "
                                  "value", a);
      *to = v;
      if (to == &reps_text) {
        char *end = NULL;
        errno = 0;
        long r = strtol(v, &end, 10);
        if (errno || !isdigit((unsigned char)v[0]) || *end || r < 1 ||
            r > 1000)
          return usage_error("--reps '%s' must be 1 to 1000", v);
        reps = (int)r;
      }
      i++;
    } else {
      return usage_error("unknown argument '%s'", a);
    }
  }
  char path[4096];
  if (out) snprintf(path, sizeof path, "%s", out);
  else default_path(path, sizeof path);
  if (!path[0])
    return usage_error("no place for the wisdom file (no HOME): give -o "
                       "FILE%s", NULL);
  /* Every name given must be one. */
  for (const char *p = workloads; p && *p;) {
    char name[64];
    const size_t len = strcspn(p, ",");
    snprintf(name, sizeof name, "%.*s", (int)len, p);
    size_t w;
    if (kl_workload_index(name, &w) != KL_OK)
      return usage_error("%s", kl_last_error());
    p += len + (p[len] == ',');
  }
  for (const char *p = backends; p && *p;) {
    char name[64];
    const size_t len = strcspn(p, ",");
    snprintf(name, sizeof name, "%.*s", (int)len, p);
    int known = 0;
    for (size_t i = 0; i < kl_backend_count() && !known; i++) {
      kl_backend_info bi = {.size = sizeof bi};
      known = kl_backend_describe(i, &bi) == KL_OK && !strcmp(bi.name, name);
    }
    if (!known) return usage_error("unknown backend '%s'", name);
    p += len + (p[len] == ',');
  }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return usage_error("out of memory%s", NULL);
  catch_stop_signals(on_signal);
  const kl_build_info *build = kl_build();
  fprintf(f, "kladder-wisdom 1\nbuild %s %s\n", build->version,
          build->commit[0] ? build->commit : "-");
  /* The devices: device 0 of each backend here that was asked for; apart,
   * those whose memory is the host's and those whose memory is not. */
  const char *used[MAX_BACKENDS], *on_host[MAX_BACKENDS];
  const char *off_host[MAX_BACKENDS];
  int nb = 0, n_on = 0, n_off = 0;
  for (size_t i = 0; i < kl_backend_count() && nb < MAX_BACKENDS; i++) {
    kl_backend_info bi = {.size = sizeof bi};
    kl_device_info di = {.size = sizeof di};
    if (kl_backend_describe(i, &bi) != KL_OK || !bi.available ||
        !kl__selects(backends, bi.name) ||
        kl_device_describe(bi.name, 0, &di) != KL_OK)
      continue;
    fprintf(f, "device %s:0 %s\n", bi.name, di.name);
    used[nb++] = bi.name;
    if (bi.host_memory) on_host[n_on++] = bi.name;
    else off_host[n_off++] = bi.name;
  }
  char backend_list[256], off_host_list[256];
  join(backend_list, sizeof backend_list, used, nb);
  join(off_host_list, sizeof off_host_list, off_host, n_off);
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
    char sweep[512];
    if (sizes_text) snprintf(sweep, sizeof sweep, "%s", sizes_text);
    else default_sizes(w, sweep, sizeof sweep);
    int64_t sizes[MAX_POINTS];
    size_t count = 0;
    if (kl__parse_sizes(sweep, sizes, MAX_POINTS, &count) != KL_OK) {
      code = usage_error("%s", kl_last_error());
      break;
    }
    for (int t = 0; t < KL_TYPE_COUNT && code == 0 && !stop_signal; t++) {
      if (!(library & KL_TYPE_BIT(t))) continue;
      kl_options o;
      kl_options_init(&o);
      o.workloads = wi.name;
      o.backends = backend_list;
      o.sizes = sweep;
      o.type = (kl_type)t;
      o.reps = reps;
      o.warmup = 1;
      o.skip_ceiling = 1;
      o.max_seconds = 2;
      o.stop = &stop_signal;
      const char *type = kl_type_name((kl_type)t);
      if (!quiet)
        fprintf(stderr, "tune: %s %s over %s on %s\n", wi.name, type, sweep,
                backend_list);
      /* The data of a call on a context may be on its device already: pick
       * compares the rungs' runs alone. */
      kl_report *rep = NULL, *copied = NULL;
      kl_status st = kl_run(&o, &rep);
      const int ran = rep && (st == KL_OK || st == KL_CHECK_FAILED);
      /* A call with no context has its data in host memory: on a backend
       * whose memory is not the host's, best counts the copies there and
       * back, so that a small problem stays on the host where a GPU's
       * copies alone outlast the host's whole run. */
      int ran_copied = 0;
      if ((ran || st == KL_UNAVAILABLE) && n_off > 0) {
        o.backends = off_host_list;
        o.host_data = 1;
        if (!quiet)
          fprintf(stderr, "tune: %s %s over %s on %s, with the copies of "
                  "host data\n", wi.name, type, sweep, off_host_list);
        st = kl_run(&o, &copied);
        ran_copied = copied && (st == KL_OK || st == KL_CHECK_FAILED);
      }
      const kl_result *at[MAX_POINTS];
      if (stop_signal) { /* this type unfinished: not written */
        kl_report_free(rep);
        kl_report_free(copied);
        break;
      }
      const int before = lines;
      if (ran || ran_copied) {
        for (size_t i = 0; i < count; i++)
          at[i] = faster(ran ? fastest(rep, sizes[i], on_host, n_on) : NULL,
                         ran_copied
                             ? fastest(copied, sizes[i], off_host, n_off)
                             : NULL);
        lines += write_kind(f, "best", at, sizes, (int)count, wi.name, type);
      }
      for (int b = 0; b < nb && ran; b++) {
        const char *library_name = library_rung(w, t, used[b]);
        for (size_t i = 0; i < count; i++)
          at[i] = tune_pick(fastest(rep, sizes[i], &used[b], 1),
                            result_of(rep, sizes[i], library_name));
        lines += write_kind(f, "pick", at, sizes, (int)count, wi.name, type);
      }
      /* st is the last run's: the first's where it failed (no second ran). */
      if (st != KL_OK && st != KL_CHECK_FAILED && st != KL_UNAVAILABLE) {
        fprintf(stderr, "kladder: error: tune: %s %s: %s\n", wi.name, type,
                kl_last_error());
        code = st == KL_USAGE ? 2 : 3;
      }
      if (code == 0 && lines > before && save(f, path, !out, &text, &len) != 0)
        code = 2;
      kl_report_free(rep);
      kl_report_free(copied);
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
