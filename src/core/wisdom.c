/* Wisdom: which rung, on which backend and with which tunings, the
 * library's entry points run for a problem of a size, as `kladder tune`
 * measured it. A text file, read once per process (docs/tune.md):
 *
 *   kladder-wisdom 2
 *   build VERSION COMMIT                  the library that measured it
 *   device KEY BACKEND UNITS GIB NAME     a kind of device it measured on
 *   best KEY WORKLOAD TYPE MIN_N BACKEND RUNG     across the backends
 *   pick KEY WORKLOAD TYPE MIN_N BACKEND RUNG     within KEY's device
 *   tuned KEY WORKLOAD TYPE MIN_N BACKEND RUNG NAME=VALUE...
 *
 * KEY is a word local to the file; its device line says which devices it
 * stands for: those of BACKEND with that NAME, UNITS compute units and
 * GIB GiB of memory (rounded; UNITS or GIB 0: not known, any), wherever
 * they are numbered, so that one
 * file serves a machine of several kinds of device. A line holds from
 * MIN_N elements up to the next MIN_N of the same kind, key, workload and
 * type (and rung, for tuned): a call with no context runs the best line's
 * backend (its device 0, the default context) and that device's pick, a
 * call on a context its device's pick; tuned gives the values of the
 * tunings (KL_PARAM_TUNING) the rung reads that the caller did not give.
 * The file is KLADDER_WISDOM's path ("" or "none": no wisdom), else
 * $XDG_CACHE_HOME/kladder/wisdom, else $HOME/.cache/kladder/wisdom.
 *
 * A file of another build, or one with a line not understood, is ignored
 * whole, and kl_wisdom_note says why: picks measured elsewhere would pick
 * wrong. Lines of a device not here are kept aside; a file none of whose
 * lines is for a device here is ignored. Version 1 files (no key: `device
 * BACKEND:INDEX NAME`, one device a backend, lines without KEY) still
 * read, ignored whole where a device line names a device not here, as
 * that version's reader did. Where no file is read (none at the path, or
 * one ignored), the built-in wisdom serves (wisdom-builtin.c: tune's files
 * of an H100 machine and an H200 one), its build line not checked, each
 * device taking the lines of the key that names its kind, or of its
 * backend's first key where none does, the best lines serving every
 * device of their backend, its lines of rungs this build lacks skipped
 * (and, in any wisdom, a line of a rung listed but not built passed over
 * at lookup: wisdom_line); KLADDER_WISDOM=none turns every wisdom off
 * (each backend's library rung). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "harness.h"
#include "json-read.h"

#define MAX_DEVICES 32

enum { LINE_BEST, LINE_PICK, LINE_TUNED };

/* A device line: the kind of device its key stands for. */
typedef struct wdevice {
  char key[32];
  const kl_backend *b; /* NULL: a backend this build lacks */
  char name[128];
  int units;           /* 0: any (version 1) */
  long long gib;       /* -1: any (version 1) */
} wdevice;

typedef struct pick {
  int kind;
  int device; /* in wisdom.devices; -1: any device of the rung's backend */
  const kl_workload *w;
  kl_type type;
  int64_t min_n;
  const kl_rung *rung;
  uint64_t set; /* tuned: the parameters given */
  double value[KL_MAX_PARAMS];
} pick;

/* What a file (or the built-in text) gives, as it is read. */
typedef struct wisdom_text {
  const char *path;
  int builtin, version, skipped, elsewhere;
  pick *picks;
  size_t count, cap;
  wdevice devices[MAX_DEVICES];
  int device_count;
} wisdom_text;

static struct {
  char note[512];
  wisdom_text t;
} wisdom;
static once_flag wisdom_once = ONCE_FLAG_INIT;
const char *kl__wisdom_builtin_text = kl__wisdom_builtin;

static void wisdom_path(char *dst, size_t size) {
  const char *env = getenv("KLADDER_WISDOM");
  if (env) {
    snprintf(dst, size, "%s", strcmp(env, "none") == 0 ? "" : env);
    return;
  }
  const char *cache = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (cache && *cache) snprintf(dst, size, "%s/kladder/wisdom", cache);
  else if (home && *home) snprintf(dst, size, "%s/.cache/kladder/wisdom", home);
  else dst[0] = '\0';
}

static long long gib_of(size_t bytes) {
  return (long long)((bytes + ((size_t)1 << 29)) >> 30);
}

/* Whether device line e names the kind of device `index` of backend b. */
static int device_kind(const wdevice *e, const kl_backend *b, int index) {
  if (e->b != b || !kl_backend_available(b, NULL, 0) || index < 0 ||
      index >= (b->device_count ? b->device_count() : 1))
    return 0;
  const kl_device *d = kl__device_at(b, index);
  return d && strcmp(d->name, e->name) == 0 &&
         (!e->units || e->units == d->compute_units) &&
         (e->gib < 0 || e->gib == gib_of(d->memory_bytes));
}

/* Whether device line e stands for device `index` of backend b here. In
 * the built-in wisdom each device of a backend takes the lines of the key
 * that names its kind, and a device of a kind it does not name those of
 * the backend's first key, so that every device has one machine's lines. */
static int device_is(const wisdom_text *t, const wdevice *e,
                     const kl_backend *b, int index) {
  if (e->b != b) return 0;
  if (!t->builtin) return device_kind(e, b, index);
  const wdevice *first = NULL;
  for (int i = 0; i < t->device_count; i++) {
    const wdevice *k = &t->devices[i];
    if (k->b != b) continue;
    if (device_kind(k, b, index)) return k == e;
    if (!first) first = k;
  }
  return first == e;
}

/* Whether some device here is one of e's kind. */
static int device_here(const wisdom_text *t, const wdevice *e) {
  if (!e->b || !kl_backend_available(e->b, NULL, 0)) return 0;
  const int count = e->b->device_count ? e->b->device_count() : 1;
  for (int i = 0; i < count; i++)
    if (device_is(t, e, e->b, i)) return 1;
  return 0;
}

kl_status kl__wisdom_device(const char *backend, int index, char *dst,
                            size_t size) {
  const kl_backend *b = kl_backend_find(backend);
  const kl_device *d =
      b && kl_backend_available(b, NULL, 0) && index >= 0 &&
              index < (b->device_count ? b->device_count() : 1)
          ? kl__device_at(b, index)
          : NULL;
  if (!d)
    return kl__usage(KL_USAGE, "no device %s:%d here", backend, index);
  snprintf(dst, size, "%s %d %lld %s", b->name, d->compute_units,
           gib_of(d->memory_bytes), d->name);
  return KL_OK;
}

static int find_key(const wisdom_text *t, const char *key) {
  for (int i = 0; i < t->device_count; i++)
    if (strcmp(t->devices[i].key, key) == 0) return i;
  return -1;
}

static int fail(const wisdom_text *t, const char *fmt, int number,
                const char *what) {
  char why[256];
  snprintf(why, sizeof why, fmt, number, what);
  snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: %s; ignored", t->path,
           why);
  return -1;
}

/* A device line; 0, or -1 with the note set. */
static int take_device(wisdom_text *t, const char *line, int number) {
  wdevice e = {.units = 0, .gib = -1};
  int used = 0;
  if (t->version == 1) {
    char dev[48] = "";
    if (sscanf(line, "device %47s %n", dev, &used) < 1 || !used) return -2;
    char *colon = strchr(dev, ':');
    if (!colon) return -2;
    *colon = '\0';
    e.b = kl_backend_find(dev);
    snprintf(e.key, sizeof e.key, "%s", dev);
    snprintf(e.name, sizeof e.name, "%s", line + used);
    /* Version 1's rule: its device, by index, or the file is not this
     * machine's. */
    const int index = atoi(colon + 1);
    const kl_device *d =
        e.b && kl_backend_available(e.b, NULL, 0) && index >= 0 &&
                index < (e.b->device_count ? e.b->device_count() : 1)
            ? kl__device_at(e.b, index)
            : NULL;
    if (!t->builtin && (!d || strcmp(d->name, line + used) != 0)) {
      snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: measured on "
               "%s:%d %.80s, not here; ignored", t->path, dev, index,
               line + used);
      return -1;
    }
  } else {
    char backend[32];
    if (sscanf(line, "device %31s %31s %d %lld %n", e.key, backend, &e.units,
               &e.gib, &used) < 4 || !used || !line[used] || e.units < 0 ||
        e.gib < 0)
      return -2;
    if (!e.gib) e.gib = -1; /* not known: any */
    e.b = kl_backend_find(backend);
    snprintf(e.name, sizeof e.name, "%s", line + used);
  }
  if (find_key(t, e.key) >= 0)
    return fail(t, "line %d: device %s named twice", number, e.key);
  if (t->device_count == MAX_DEVICES)
    return fail(t, "line %d: more than " "32" " devices%s", number, "");
  t->devices[t->device_count++] = e;
  return 0;
}

/* A best, pick or tuned line (after its word); 0, or -1 with the note
 * set, -2 not understood. */
static int take_pick(wisdom_text *t, int kind, const char *rest,
                     int number) {
  char key[32] = "", wl[32], type[16], bk[32], rung[64];
  long long min_n;
  int used = 0;
  const int got =
      t->version == 1
          ? sscanf(rest, "%31s %15s %lld %31s %63s%n", wl, type, &min_n, bk,
                   rung, &used) + 1
          : sscanf(rest, "%31s %31s %15s %lld %31s %63s%n", key, wl, type,
                   &min_n, bk, rung, &used);
  if (got != 6 || min_n < 0) return -2;
  pick p = {.kind = kind, .device = -1, .min_n = min_n};
  if (kl_type_parse(type, &p.type) != KL_OK) return -2;
  if (t->version == 1) {
    p.device = find_key(t, bk); /* its backend's device line */
  } else if ((p.device = find_key(t, key)) < 0) {
    return fail(t, "line %d: device %s has no device line before it",
                number, key);
  }
  if (p.device >= 0 && t->devices[p.device].b &&
      strcmp(t->devices[p.device].b->name, bk) != 0)
    return fail(t, "line %d: backend %s is not its device's", number, bk);
  /* The built-in best lines, one machine's choice across its backends with
   * the copies of host data, serve every device of their backend. */
  if (t->builtin && kind == LINE_BEST) p.device = -1;
  size_t wi;
  if (kl_workload_index(wl, &wi) == KL_OK) {
    p.w = kl_workload_at(wi);
    for (size_t r = 0; r < p.w->rung_count && !p.rung; r++)
      if (strcmp(p.w->rungs[r].name, rung) == 0 &&
          strcmp(p.w->rungs[r].backend->name, bk) == 0)
        p.rung = &p.w->rungs[r];
  }
  if (!p.rung) {
    if (t->builtin) {
      t->skipped++;
      return 0;
    }
    if (p.device >= 0 && !t->devices[p.device].b) {
      t->elsewhere++; /* a backend this build lacks: set aside */
      return 0;
    }
    return -2;
  }
  /* tuned: NAME=VALUE of the tunings the rung reads, each once. */
  for (const char *at = rest + used; kind == LINE_TUNED;) {
    char item[160];
    int len = 0;
    if (sscanf(at, " %159s%n", item, &len) != 1) break;
    at += len;
    char *eq = strchr(item, '=');
    if (!eq) return -2;
    *eq = '\0';
    const int i = kl_param_index(p.w, item);
    if (i < 0 || !(p.rung->tunings & KL_PARAM_BIT(i)) ||
        (p.set & KL_PARAM_BIT(i)))
      return fail(t, "line %d: %s is not a tuning of its rung, or is given "
                  "twice", number, item);
    if (kl__param_value(p.w, i, eq + 1, &p.value[i]) != KL_OK)
      return fail(t, "line %d: %s", number, kl_last_error());
    p.set |= KL_PARAM_BIT(i);
  }
  if (kind == LINE_TUNED && !p.set) return -2;
  if (!t->builtin && p.device >= 0 &&
      !device_here(t, &t->devices[p.device])) {
    t->elsewhere++; /* kept aside: a device not here */
    return 0;
  }
  if (t->count == t->cap) {
    const size_t cap = t->cap ? 2 * t->cap : 16;
    pick *grown = realloc(t->picks, cap * sizeof *grown);
    if (!grown) return fail(t, "line %d: %s", number, "out of memory");
    t->picks = grown;
    t->cap = cap;
  }
  t->picks[t->count++] = p;
  return 0;
}

/* One line; 0, or -1 with the note set. The built-in wisdom's build line
 * is not checked, and its lines of a rung this build lacks are counted in
 * t->skipped. */
static int take_line(wisdom_text *t, char *line, int number) {
  char *nl = strchr(line, '\n');
  if (nl) *nl = '\0';
  /* A line that ends before its line break, or is empty without one,
   * holds a NUL byte: binary, not a wisdom file (and /dev/zero's lines
   * would never end). */
  if (!t->builtin && !nl && !line[0]) {
    snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: a NUL byte on line "
             "%d: not a wisdom file; ignored", t->path, number);
    return -1;
  }
  if (!line[0] || line[0] == '#') return 0;
  char word[32] = "";
  if (sscanf(line, "%31s", word) != 1) return 0;
  if (!t->version) {
    if (strcmp(line, "kladder-wisdom 1") == 0) t->version = 1;
    else if (strcmp(line, "kladder-wisdom 2") == 0) t->version = 2;
    else {
      snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: not a wisdom "
               "file (no 'kladder-wisdom 1' or '2' first); ignored", t->path);
      return -1;
    }
    return 0;
  }
  int st = -2;
  if (strcmp(word, "build") == 0) {
    const kl_build_info *build = kl_build();
    char version[64] = "", commit[96] = "";
    if (t->builtin) return 0;
    if (sscanf(line, "build %63s %95s", version, commit) < 1 ||
        strcmp(version, build->version) != 0 ||
        strcmp(commit[0] ? commit : "-", build->commit[0] ? build->commit
                                                           : "-") != 0) {
      snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: measured by "
               "another build (%.100s); ignored: run kladder tune again",
               t->path, line + 6);
      return -1;
    }
    return 0;
  }
  if (strcmp(word, "device") == 0) st = take_device(t, line, number);
  else if (strcmp(word, "best") == 0)
    st = take_pick(t, LINE_BEST, line + 4, number);
  else if (strcmp(word, "pick") == 0)
    st = take_pick(t, LINE_PICK, line + 4, number);
  else if (strcmp(word, "tuned") == 0 && t->version >= 2)
    st = take_pick(t, LINE_TUNED, line + 5, number);
  if (st == -2)
    snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: line %d is not "
             "understood ('%.60s'); ignored", t->path, number, line);
  return st ? -1 : 0;
}

static size_t count_of(const wisdom_text *t, int kind) {
  size_t n = 0;
  for (size_t i = 0; i < t->count; i++) n += t->picks[i].kind == kind;
  return n;
}

/* The built-in wisdom's picks, after `why` (no file, or one ignored) in
 * the note. */
static void builtin_load(const char *why) {
  char line[512];
  int number = 0, bad = 0;
  wisdom_text t = {.path = "(built in)", .builtin = 1};
  for (const char *at = kl__wisdom_builtin_text; *at && !bad;) {
    const size_t len = strcspn(at, "\n");
    snprintf(line, sizeof line, "%.*s\n", (int)len, at);
    at += len + (at[len] == '\n');
    bad = take_line(&t, line, ++number) != 0;
  }
  if (bad) { /* a test's failure (wisdom-builtin), never a user's */
    free(t.picks);
    return;
  }
  wisdom.t = t;
  char skips[64] = "";
  if (t.skipped)
    snprintf(skips, sizeof skips, ", %d of rungs this build lacks skipped",
             t.skipped);
  const size_t tuned = count_of(&t, LINE_TUNED);
  snprintf(wisdom.note, sizeof wisdom.note, "%.360s; the built-in wisdom "
           "serves (kladder tune on H100 and H200 machines, %zu picks, %zu "
           "tunings%s)", why, t.count - tuned, tuned, skips);
}

static void wisdom_load(void) {
  char path[1024];
  wisdom_path(path, sizeof path);
  if (!path[0]) {
    snprintf(wisdom.note, sizeof wisdom.note, "no wisdom (KLADDER_WISDOM "
             "is none): the library runs each backend's library rung");
    return;
  }
  /* As every input is opened: a pipe that no process writes to is not
   * waited for. */
  char refused[256] = "";
  FILE *f = kl__file_open(strcmp(path, "-") ? path : "./-", refused,
                          sizeof refused); /* "-" is a file's name here */
  if (!f) {
    char why[sizeof wisdom.note];
    if (errno == ENOENT)
      snprintf(why, sizeof why, "no wisdom file at %.300s (`kladder tune` "
               "writes this machine's)", path);
    else
      snprintf(why, sizeof why, "the wisdom file %.300s", refused);
    builtin_load(why);
    return;
  }
  char line[1024];
  int number = 0, bad = 0;
  wisdom_text t = {.path = path};
  while (!bad && fgets(line, sizeof line, f))
    bad = take_line(&t, line, ++number) != 0;
  fclose(f);
  if (!bad && !t.version)
    snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: empty; ignored",
             path), bad = 1;
  /* Measured on other devices alone: not this machine's. */
  if (!bad && t.elsewhere && !t.count)
    snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: its %d lines are "
             "all of devices not here; ignored", path, t.elsewhere), bad = 1;
  if (bad) {
    free(t.picks);
    char why[sizeof wisdom.note];
    snprintf(why, sizeof why, "%s", wisdom.note);
    builtin_load(why);
    return;
  }
  char more[128] = "";
  const size_t tuned = count_of(&t, LINE_TUNED);
  if (tuned) snprintf(more, sizeof more, ", %zu tunings", tuned);
  if (t.elsewhere)
    snprintf(more + strlen(more), sizeof more - strlen(more), ", %d lines "
             "of devices not here set aside", t.elsewhere);
  wisdom.t = t;
  snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: %zu picks%s", path,
           t.count - tuned, more);
}

const char *kl_wisdom_note(void) {
  call_once(&wisdom_once, wisdom_load);
  return wisdom.note;
}

/* Whether line p serves device `index` of backend b. */
static int serves(const pick *p, const kl_backend *b, int index) {
  if (p->rung->backend != b) return 0;
  return p->device < 0 ||
         device_is(&wisdom.t, &wisdom.t.devices[p->device], b, index);
}

/* The line of kind `kind` for w at type t and size n: within backend
 * `only` and its device `index`, or across the available ones (NULL), each
 * for its device 0; the one of the largest MIN_N not above n. rung: only
 * that rung's (tuned). A line naming a rung this build lists but did not
 * build (the built-in wisdom's, made by a build with more) is passed
 * over: the line before it serves its sizes. */
static const pick *wisdom_line(int kind, const kl_workload *w, kl_type t,
                               int64_t n, const kl_backend *only, int index,
                               const kl_rung *rung) {
  const pick *best = NULL;
  for (size_t i = 0; i < wisdom.t.count; i++) {
    const pick *p = &wisdom.t.picks[i];
    if (p->kind != kind || p->w != w || p->type != t || p->min_n > n ||
        (rung && p->rung != rung) || !kl__rung_built(p->rung))
      continue;
    if (only ? !serves(p, only, index)
             : !kl_backend_available(p->rung->backend, NULL, 0) ||
                   !serves(p, p->rung->backend, 0))
      continue;
    if (!best || p->min_n > best->min_n) best = p;
  }
  return best;
}

/* The rung for w at type t and size n, on backend `only`'s device
 * `device` (NULL: any available backend); NULL where the wisdom has none.
 * Across the backends the best line chooses the backend and that
 * backend's own pick for the size the rung: the best lines time a GPU's
 * rungs with the copies of the caller's data, which weigh the same for
 * each of its rungs and can hide which is fastest (at 2048^3 f64 the
 * copies take 20 times the product); the pick lines time them on device
 * data. A backend without pick lines keeps the best line's rung. */
const kl_rung *kl__wisdom_rung(const kl_workload *w, kl_type t, int64_t n,
                               const kl_backend *only, int device) {
  call_once(&wisdom_once, wisdom_load);
  const pick *p =
      wisdom_line(only ? LINE_PICK : LINE_BEST, w, t, n, only, device, NULL);
  if (!p || only) return p ? p->rung : NULL;
  const pick *within =
      wisdom_line(LINE_PICK, w, t, n, p->rung->backend, 0, NULL);
  return within ? within->rung : p->rung;
}

uint64_t kl__wisdom_tuned(const kl_workload *w, const kl_rung *r, kl_type t,
                          int64_t n, int device, double *value) {
  call_once(&wisdom_once, wisdom_load);
  const pick *p = wisdom_line(LINE_TUNED, w, t, n, r->backend, device, r);
  if (!p) return 0;
  memcpy(value, p->value, sizeof p->value);
  return p->set;
}
