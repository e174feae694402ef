/* A device's energy counter (kladder run --energy): a GPU board's through
 * NVML, loaded at run time, or the host's CPU packages through RAPL
 * (/sys/class/powercap); and the energy window the harness measures with
 * it. docs/design.md ("Energy") has the method. */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>

#include "harness.h"

#define KL__RAPL_ZONES 16

struct kl__energy {
  const char *source; /* "nvml", "rapl" */
  kl__nvml *nvml; /* the board's, or NULL: RAPL */
  /* The board reports its power as an average over the last second (no
   * instantaneous field): the cross-check skips the window's first
   * second, and the window is a second longer. */
  int power_averaged;
  /* RAPL: each package's energy_uj, its last value and its range */
  int zones;
  char path[KL__RAPL_ZONES][512];
  unsigned long long last[KL__RAPL_ZONES], range[KL__RAPL_ZONES];
  double total; /* joules since open */
  double idle_watts;
};

static int read_u64(const char *path, unsigned long long *value) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int ok = fscanf(f, "%llu", value) == 1;
  fclose(f);
  return ok;
}

/* The packages' joules since open: each counter's steps added, a step
 * that went down having wrapped at its range. Read often enough that no
 * counter wraps twice between two reads (its range is minutes at full
 * power). */
static int rapl_read(kl__energy *e, double *joules) {
  for (int i = 0; i < e->zones; i++) {
    unsigned long long now = 0;
    if (!read_u64(e->path[i], &now)) return 0;
    unsigned long long step = now >= e->last[i]
                                  ? now - e->last[i]
                                  : now + (e->range[i] - e->last[i]);
    e->last[i] = now;
    e->total += 1e-6 * (double)step;
  }
  *joules = e->total;
  return 1;
}

static int energy_read(kl__energy *e, double *joules) {
  return e->nvml ? kl__nvml_energy(e->nvml, joules) : rapl_read(e, joules);
}

/* The board's power as it reports it, where it does (NVML). */
static int energy_power(kl__energy *e, double *watts) {
  int averaged = 0;
  return e->nvml && kl__nvml_power(e->nvml, watts, &averaged);
}

const char *kl__energy_source(const kl__energy *e) {
  return e ? e->source : NULL;
}
double kl__energy_idle_watts(const kl__energy *e) {
  return e ? e->idle_watts : 0;
}

void kl__energy_close(kl__energy *e) {
  if (!e) return;
  kl__nvml_close(e->nvml);
  free(e);
}

/* The board's counter, through NVML (nvml.c). */
static kl_status open_nvml(const char *bus, kl__energy *e, char *why,
                           size_t size) {
  kl_status st = kl__nvml_open(bus, &e->nvml, why, size);
  if (st != KL_OK) return st;
  double j;
  if (!kl__nvml_energy(e->nvml, &j)) {
    snprintf(why, size, "the board has no energy counter NVML can read");
    return KL_UNAVAILABLE;
  }
  e->source = "nvml";
  double w;
  int averaged = 0;
  e->power_averaged = kl__nvml_power(e->nvml, &w, &averaged) && averaged;
  return KL_OK;
}

/* RAPL's packages: the powercap folder's intel-rapl:N (not their
 * intel-rapl:N:M parts, which the package's count already holds);
 * KLADDER_POWERCAP_ROOT where set (a test's fake folder). */
static kl_status open_rapl(kl__energy *e, char *why, size_t size) {
  const char *root = getenv("KLADDER_POWERCAP_ROOT");
  if (!root || !*root) root = "/sys/class/powercap";
  DIR *d = opendir(root);
  if (!d) {
    snprintf(why, size, "no RAPL (%s: %s)", root, strerror(errno));
    return KL_UNAVAILABLE;
  }
  int seen = 0, unreadable = 0;
  struct dirent *entry;
  while ((entry = readdir(d)) != NULL && e->zones < KL__RAPL_ZONES) {
    const char *n = entry->d_name;
    if (strncmp(n, "intel-rapl:", 11) != 0 || strchr(n + 11, ':')) continue;
    seen++;
    char *path = e->path[e->zones];
    char range[600];
    snprintf(path, sizeof e->path[0], "%s/%s/energy_uj", root, n);
    snprintf(range, sizeof range, "%s/%s/max_energy_range_uj", root, n);
    if (!read_u64(path, &e->last[e->zones]) ||
        !read_u64(range, &e->range[e->zones]) || e->range[e->zones] == 0) {
      unreadable++;
      continue;
    }
    e->zones++;
  }
  closedir(d);
  if (e->zones == 0 || unreadable > 0) {
    if (seen == 0)
      snprintf(why, size, "no RAPL package in %s", root);
    else
      snprintf(why, size, "RAPL's energy_uj in %s cannot be read (root "
               "only on Linux 5.10 and later)", root);
    return KL_UNAVAILABLE;
  }
  e->source = "rapl";
  return KL_OK;
}

/* How long a window may wait for its counter to move before it gives up:
 * a counter that does not move in that time is not one. */
#define KL__ENERGY_STILL 5.0

static void pause_briefly(double seconds) {
  struct timespec t = {0, (long)(seconds * 1e9)};
  thrd_sleep(&t, NULL);
}

/* Wait for the counter's next update, read every 2 ms or so: its value,
 * and when it moved, taken as the middle between the read that saw it and
 * the one before (the counter moves between two reads). */
static kl_status next_update(kl__energy *e, double *joules, double *when) {
  double first = 0, now = 0, before = kl__now();
  const double start = before;
  if (!energy_read(e, &first))
    return kl__usage(KL_UNAVAILABLE, "the %s energy counter cannot be read",
                     e->source);
  for (;;) {
    const double asked = kl__now();
    if (!energy_read(e, &now))
      return kl__usage(KL_UNAVAILABLE, "the %s energy counter cannot be "
                       "read", e->source);
    if (now != first) {
      *when = 0.5 * (before + asked);
      break;
    }
    before = asked;
    if (asked - start > KL__ENERGY_STILL)
      return kl__usage(KL_UNAVAILABLE, "the %s energy counter did not move "
                       "in %.0f s", e->source, KL__ENERGY_STILL);
    pause_briefly(0.002);
  }
  *joules = now;
  return KL_OK;
}

/* The window's watcher: a thread that reads the counter every 2 ms or
 * so while the window runs (its batches may be far longer than the
 * counter's period, and a read between them would place an update only
 * within a batch), taking each update's time as the middle between the
 * read that saw it and the one before; and, where the device reports its
 * power (NVML), reading that at each of those reads: the cross-check of
 * the counter's mean, from `from` on (a board's 1 s average counts only
 * from a second into the window). The pauses between reads are drawn
 * uniformly from 1 to 3 ms: samples at a fixed period would see a load
 * that repeats at a multiple of it (one repetition's kernels and the gaps
 * between them) always at the same phase, and their mean would be that
 * phase's power, not the window's; at random times their mean is the
 * window's mean power. */
#define KL__POWER_AVERAGE_SECONDS 1.0
typedef struct watcher {
  kl__energy *e;
  double from;
  int sample_power;
  atomic_int stop;
  thrd_t thread;
  mtx_t lock;
  /* under the lock */
  double joules, when; /* the counter's last update: its value, its time */
  int updates, failed;
  double power_sum;
  long power_count;
  uint32_t draw; /* the pauses' generator (xorshift32), never 0 */
} watcher;

/* A pause from 1 to 3 ms, uniformly. */
static double jittered_pause(watcher *w) {
  uint32_t x = w->draw;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  w->draw = x;
  return 0.001 + 0.002 * ((double)x / 4294967296.0);
}

static int watch(void *arg) {
  watcher *w = arg;
  mtx_lock(&w->lock);
  double seen = w->joules, before = w->when;
  mtx_unlock(&w->lock);
  while (!atomic_load(&w->stop)) {
    double j = 0, watts = 0;
    const int read = energy_read(w->e, &j);
    const double t = kl__now();
    const int power = read && w->sample_power && t >= w->from &&
                      energy_power(w->e, &watts);
    mtx_lock(&w->lock);
    if (!read) w->failed = 1;
    if (read && j != seen) {
      seen = w->joules = j;
      w->when = 0.5 * (before + t);
      w->updates++;
    }
    if (power) {
      w->power_sum += watts;
      w->power_count++;
    }
    mtx_unlock(&w->lock);
    if (!read) break;
    before = t;
    pause_briefly(jittered_pause(w));
  }
  return 0;
}

kl_status kl__energy_window(kl__energy *e, const kl__energy_rule *rule,
                            kl_status (*batch)(void *arg, int count),
                            void *arg, int per_batch, kl__energy_figures *f) {
  memset(f, 0, sizeof *f);
  if (per_batch < 1) per_batch = 1;
  double j0 = 0, t0 = 0;
  kl_status st = next_update(e, &j0, &t0);
  if (st != KL_OK) return st;
  const double lag = batch && e->power_averaged ? KL__POWER_AVERAGE_SECONDS
                                                : 0;
  watcher w = {.e = e, .from = t0 + lag, .sample_power = batch && e->nvml,
               .joules = j0, .when = t0,
               .draw = 0x9e3779b9u ^ (uint32_t)(1e6 * t0)};
  if (w.draw == 0) w.draw = 1;
  atomic_init(&w.stop, 0);
  if (mtx_init(&w.lock, mtx_plain) != thrd_success)
    return KL_FAIL(KL_NO_MEMORY, "mtx_init failed for the energy watcher");
  if (thrd_create(&w.thread, watch, &w) != thrd_success) {
    mtx_destroy(&w.lock);
    return KL_FAIL(KL_NO_MEMORY, "thrd_create failed for the energy watcher");
  }
  /* The window: from the update seen first to the last one the watcher
   * saw by the end of a batch, once it has lasted its seconds and seen its
   * updates; its repetitions those run by then. */
  double last = j0, moved = t0, t = t0;
  long reps = 0;
  int updates = 0;
  for (;;) {
    if (batch) {
      st = batch(arg, per_batch);
      if (st != KL_OK) break;
      reps += per_batch;
    } else {
      pause_briefly(0.005);
    }
    t = kl__now();
    mtx_lock(&w.lock);
    const int failed = w.failed;
    last = w.joules;
    moved = w.when;
    updates = w.updates;
    mtx_unlock(&w.lock);
    if (failed) {
      st = kl__usage(KL_UNAVAILABLE, "the %s energy counter cannot be read",
                     e->source);
      break;
    }
    if (updates >= rule->min_updates && t - t0 >= rule->min_seconds + lag)
      break;
    if (t - moved > KL__ENERGY_STILL) {
      st = kl__usage(KL_UNAVAILABLE, "the %s energy counter did not move "
                     "in %.0f s", e->source, KL__ENERGY_STILL);
      break;
    }
  }
  atomic_store(&w.stop, 1);
  thrd_join(w.thread, NULL);
  mtx_destroy(&w.lock);
  if (st != KL_OK) return st;
  /* The mean power between the first update and the last one seen, over
   * the window's wall time (its repetitions and the gaps between batches):
   * its joules. */
  f->watts = moved > t0 ? (last - j0) / (moved - t0) : 0;
  f->seconds = t - t0;
  f->joules = f->watts * f->seconds;
  f->reps = reps;
  f->updates = updates;
  f->sampled_watts = w.power_count > 0 ? w.power_sum / (double)w.power_count
                                       : 0;
  f->mismatch = f->sampled_watts > 0 &&
                (f->sampled_watts - f->watts > 0.1 * f->watts ||
                 f->watts - f->sampled_watts > 0.1 * f->watts);
  return KL_OK;
}

kl_status kl__energy_open(kl_context *ctx, const kl__energy_rule *rule,
                          kl__energy **out, char *why, size_t size) {
  *out = NULL;
  why[0] = '\0';
  kl__energy *e = calloc(1, sizeof *e);
  if (!e) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  const kl_backend *b = ctx->backend;
  char bus[64] = "";
  kl_status st;
  if (b->bus_id && b->bus_id(ctx, bus, sizeof bus) == KL_OK)
    st = open_nvml(bus, e, why, size);
  else if (kl_backend_host_memory(b))
    st = open_rapl(e, why, size);
  else {
    snprintf(why, size, "the %s backend has no energy counter kladder can "
             "read", b->name);
    st = KL_UNAVAILABLE;
  }
  /* The device's power before any rung runs on it: the same rule as a
   * window, nothing running. */
  kl__energy_figures idle;
  kl__energy_rule standard;
  if (!rule) {
    kl__energy_rule_default(&standard);
    rule = &standard;
  }
  if (st == KL_OK) {
    st = kl__energy_window(e, rule, NULL, NULL, 1, &idle);
    if (st != KL_OK) snprintf(why, size, "%s", kl_last_error());
  }
  if (st != KL_OK) {
    kl__energy_close(e);
    return KL_UNAVAILABLE;
  }
  e->idle_watts = idle.watts;
  *out = e;
  return KL_OK;
}

void kl__energy_rule_default(kl__energy_rule *rule) {
  rule->min_seconds = 1.0;
  rule->min_updates = 10;
}
