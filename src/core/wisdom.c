/* Wisdom: which rung, on which backend, the library's entry
 * points run for a problem of a size, as `kladder tune` measured it here.
 * A text file, read once per process:
 *
 *   kladder-wisdom 1
 *   build VERSION COMMIT          the library that measured it
 *   device BACKEND:INDEX NAME     each device it measured on
 *   best WORKLOAD TYPE MIN_N BACKEND RUNG   across the backends
 *   pick WORKLOAD TYPE MIN_N BACKEND RUNG   within BACKEND
 *
 * A line holds from MIN_N elements up to the next MIN_N of the same kind,
 * workload and type (and backend, for pick): a call with no context runs
 * the best, a call on a context of a backend that backend's pick. The file is KLADDER_WISDOM's path ("" or
 * "none": no wisdom), else $XDG_CACHE_HOME/kladder/wisdom, else
 * $HOME/.cache/kladder/wisdom. A file written by another build, or naming
 * a device this process does not have (another name at that index), is
 * ignored whole, and kl_wisdom_note says why: picks measured elsewhere
 * would pick wrong. Where no file is read (none at the path, or one
 * ignored), the built-in wisdom serves (wisdom-builtin.c: tune's file of
 * an H100 machine), its build and device lines not checked, its lines
 * of rungs this build lacks skipped; KLADDER_WISDOM=none turns every
 * wisdom off (each backend's library rung). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "harness.h"
#include "json-read.h"

typedef struct pick {
  int across; /* a best line: across the backends */
  const kl_workload *w;
  kl_type type;
  int64_t min_n;
  const kl_rung *rung;
} pick;

static struct {
  char note[512];
  pick *picks;
  size_t count;
} wisdom;
static once_flag wisdom_once = ONCE_FLAG_INIT;

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

/* One line; 0, or -1 with the note set. The built-in wisdom's build and
 * device lines are not checked, and its lines of a rung this build lacks
 * are counted in *skipped. */
static int take_line(char *line, int number, const char *path, int *seen_head,
                     int builtin, int *skipped, pick **picks, size_t *count,
                     size_t *cap) {
  char *nl = strchr(line, '\n');
  if (nl) *nl = '\0';
  /* A line that ends before its line break, or is empty without one,
   * holds a NUL byte: binary, not a wisdom file (and /dev/zero's lines
   * would never end). */
  if (!builtin && !nl && !line[0]) {
    snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: a NUL byte on line "
             "%d: not a wisdom file; ignored", path, number);
    return -1;
  }
  if (!line[0] || line[0] == '#') return 0;
  char word[32] = "";
  if (sscanf(line, "%31s", word) != 1) return 0;
  const kl_build_info *build = kl_build();
  if (!*seen_head) {
    if (strcmp(line, "kladder-wisdom 1") != 0) {
      snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: not a wisdom "
               "file (no 'kladder-wisdom 1' first); ignored", path);
      return -1;
    }
    *seen_head = 1;
    return 0;
  }
  if (builtin && (strcmp(word, "build") == 0 || strcmp(word, "device") == 0))
    return 0;
  if (strcmp(word, "build") == 0) {
    char version[64] = "", commit[96] = "";
    if (sscanf(line, "build %63s %95s", version, commit) < 1 ||
        strcmp(version, build->version) != 0 ||
        strcmp(commit[0] ? commit : "-", build->commit[0] ? build->commit
                                                           : "-") != 0) {
      snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: measured by "
               "another build (%.100s); ignored: run kladder tune again",
               path, line + 6);
      return -1;
    }
    return 0;
  }
  if (strcmp(word, "device") == 0) {
    char dev[48] = "";
    int used = 0;
    if (sscanf(line, "device %47s %n", dev, &used) < 1 || !used) goto bad;
    char *colon = strchr(dev, ':');
    if (!colon) goto bad;
    *colon = '\0';
    const kl_backend *b = kl_backend_find(dev);
    const int index = atoi(colon + 1);
    const kl_device *d =
        b && kl_backend_available(b, NULL, 0) && index >= 0 &&
                index < (b->device_count ? b->device_count() : 1)
            ? kl__device_at(b, index)
            : NULL;
    if (!d || strcmp(d->name, line + used) != 0) {
      snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: measured on %s:%d "
               "%.80s, not here; ignored", path, dev, index, line + used);
      return -1;
    }
    return 0;
  }
  if (strcmp(word, "pick") == 0 || strcmp(word, "best") == 0) {
    char wl[32], type[16], bk[32], rung[64];
    long long min_n;
    if (sscanf(line + 4, "%31s %15s %lld %31s %63s", wl, type, &min_n, bk,
               rung) != 5 || min_n < 0)
      goto bad;
    pick p = {word[0] == 'b', NULL, KL_F64, min_n, NULL};
    size_t wi;
    if (kl_workload_index(wl, &wi) == KL_OK) {
      p.w = kl_workload_at(wi);
      for (size_t r = 0; r < p.w->rung_count && !p.rung; r++)
        if (strcmp(p.w->rungs[r].name, rung) == 0 &&
            strcmp(p.w->rungs[r].backend->name, bk) == 0)
          p.rung = &p.w->rungs[r];
    }
    if (kl_type_parse(type, &p.type) != KL_OK) goto bad;
    if (!p.rung && builtin) {
      (*skipped)++;
      return 0;
    }
    if (!p.rung) goto bad;
    if (*count == *cap) {
      *cap = *cap ? 2 * *cap : 16;
      pick *grown = realloc(*picks, *cap * sizeof *grown);
      if (!grown) goto bad;
      *picks = grown;
    }
    (*picks)[(*count)++] = p;
    return 0;
  }
bad:
  snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: line %d is not "
           "understood ('%.60s'); ignored", path, number, line);
  return -1;
}

/* The built-in wisdom's picks, after `why` (no file, or one ignored) in
 * the note. */
static void builtin_load(const char *why) {
  char line[512];
  int number = 0, head = 0, skipped = 0, bad = 0;
  pick *picks = NULL;
  size_t count = 0, cap = 0;
  for (const char *at = kl__wisdom_builtin; *at && !bad;) {
    const size_t len = strcspn(at, "\n");
    snprintf(line, sizeof line, "%.*s", (int)len, at);
    at += len + (at[len] == '\n');
    bad = take_line(line, ++number, "(built in)", &head, 1, &skipped, &picks,
                    &count, &cap) != 0;
  }
  if (bad) { /* a test's failure (wisdom-builtin), never a user's */
    free(picks);
    return;
  }
  wisdom.picks = picks;
  wisdom.count = count;
  char skips[64] = "";
  if (skipped)
    snprintf(skips, sizeof skips, ", %d of rungs this build lacks skipped",
             skipped);
  snprintf(wisdom.note, sizeof wisdom.note, "%.380s; the built-in wisdom "
           "serves (kladder tune on an H100 machine, %zu picks%s)", why,
           count, skips);
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
  char line[512];
  int number = 0, head = 0, bad = 0;
  pick *picks = NULL;
  size_t count = 0, cap = 0;
  while (!bad && fgets(line, sizeof line, f))
    bad = take_line(line, ++number, path, &head, 0, NULL, &picks, &count,
                    &cap) != 0;
  fclose(f);
  if (!bad && !head)
    snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: empty; ignored",
             path), bad = 1;
  if (bad) {
    free(picks);
    char why[sizeof wisdom.note];
    snprintf(why, sizeof why, "%s", wisdom.note);
    builtin_load(why);
    return;
  }
  wisdom.picks = picks;
  wisdom.count = count;
  snprintf(wisdom.note, sizeof wisdom.note, "wisdom %s: %zu picks", path,
           count);
}

const char *kl_wisdom_note(void) {
  call_once(&wisdom_once, wisdom_load);
  return wisdom.note;
}

/* The line for w at type t and size n: within backend `only`, or across
 * the available ones (NULL): the one of the largest MIN_N not above n. */
static const pick *wisdom_line(const kl_workload *w, kl_type t, int64_t n,
                               const kl_backend *only) {
  const pick *best = NULL;
  for (size_t i = 0; i < wisdom.count; i++) {
    const pick *p = &wisdom.picks[i];
    if (p->w != w || p->type != t || p->min_n > n || p->across == !!only)
      continue;
    if (only ? p->rung->backend != only
             : !kl_backend_available(p->rung->backend, NULL, 0))
      continue;
    if (!best || p->min_n > best->min_n) best = p;
  }
  return best;
}

/* The rung for w at type t and size n, on backend `only` (NULL: any
 * available one); NULL where the wisdom has none. Across the backends the
 * best line chooses the backend and that backend's own pick for the size
 * the rung: the best lines time a GPU's rungs with the copies of the
 * caller's data, which weigh the same for each of its rungs and can hide
 * which is fastest (at 2048^3 f64 the copies take 20 times the product);
 * the pick lines time them on device data. A backend without pick lines
 * keeps the best line's rung. */
const kl_rung *kl__wisdom_rung(const kl_workload *w, kl_type t, int64_t n,
                               const kl_backend *only) {
  call_once(&wisdom_once, wisdom_load);
  const pick *p = wisdom_line(w, t, n, only);
  if (!p || only) return p ? p->rung : NULL;
  const pick *within = wisdom_line(w, t, n, p->rung->backend);
  return within ? within->rung : p->rung;
}
