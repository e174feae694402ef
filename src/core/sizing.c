/* Sizing: what a plan needs where, whether it fits, and the default size
 * shrunk until it does, whatever the shape. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* A default size may use this share of what is free, leaving room for the
 * system and for the other backends of the same run. */
#define DEFAULT_HOST_SHARE 0.5
#define DEFAULT_DEVICE_SHARE 0.8
/* An explicit size is refused beyond this share of what is free. */
#define EXPLICIT_HOST_SHARE 0.95

kl_status kl__backend_memory(const kl_backend *b, int device,
                             size_t *free_bytes, size_t *total_bytes) {
  size_t limit;
  kl_status st = kl__memory_limit(&limit);
  if (st == KL_OK) st = b->memory(device, free_bytes, total_bytes);
  if (st != KL_OK) return st;
  if (*free_bytes > limit) *free_bytes = limit;
  if (*total_bytes > limit) *total_bytes = limit;
  return KL_OK;
}

size_t kl__host_free(void) {
  size_t limit, avail = kl__host_memory_available();
  (void)kl__memory_limit(&limit); /* malformed: kl_run has said so */
  return avail < limit ? avail : limit;
}

typedef struct footprint {
  double host;   /* bytes of host memory, the harness's copies included */
  double device; /* bytes of backend memory, 0 for host backends */
} footprint;

/* The harness keeps a host copy of what it uploads and of what it checks:
 * inputs and outputs of device buffers, the input of an INOUT buffer in
 * host memory. Scratch has no copy; a library call keeps none
 * (`host_copies` 0). */
static kl_status plan_footprint(const kl_plan *p, const kl_backend *b,
                                int host_copies, footprint *f) {
  f->host = f->device = 0;
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    size_t bytes = 0;
    kl_status st = kl__buffer_bytes(s, &bytes);
    if (st != KL_OK) return st;
    const int on_device =
        s->placement == KL_MEM_DEVICE && !kl_backend_host_memory(b);
    const double copies = !host_copies || (s->flags & KL_BUFFER_SCRATCH) ? 0
                          : on_device ? (s->role == KL_INOUT ? 2 : 1)
                                      : (s->role == KL_INOUT ? 1 : 0);
    if (on_device) f->device += (double)bytes;
    else f->host += (double)bytes;
    f->host += copies * (double)bytes;
  }
  return KL_OK;
}

/* Whether a plan fits beside what is allocated now: its bytes and a
 * quarter more within the free memory of its device and of the host (a
 * rung prepared while others of its problem are, to interleave their
 * runs: run.c). */
int kl__fits_now(const kl_plan *p, const kl_backend *b, int device) {
  footprint f;
  if (plan_footprint(p, b, 1, &f) != KL_OK) return 0;
  if (f.device > 0) {
    size_t dev_free = 0, dev_total = 0;
    if (kl__backend_memory(b, device, &dev_free, &dev_total) != KL_OK ||
        1.25 * f.device > (double)dev_free)
      return 0;
  }
  return 1.25 * f.host <= (double)kl__host_free();
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

/* The refusal of a plan that needs `need` bytes of memory where `have`
 * are (`where`: "cuda memory; the device has", "host memory; ..."). */
static kl_status too_large(const kl_workload *w, const kl_plan *p,
                           double need, const char *where, double have,
                           const char *tail, size_t limit) {
  char needed[32], had[32], shape[96];
  kl__shape_text(w, p, shape, sizeof shape);
  /* Say so where the limit, not the machine, refuses the size. */
  return kl__usage(KL_TOO_LARGE, "%s: %s%s needs %s of %s %s%s%s", w->name,
                   kl__param_with(w, KL_PARAM_EXTENT) >= 0 ? "shape " : "n=",
                   shape, bytes_text(need, needed, sizeof needed), where,
                   bytes_text(have, had, sizeof had), tail,
                   limit < SIZE_MAX ? " under KLADDER_MEMORY_LIMIT" : "");
}

kl_status kl__check_fits(const kl_workload *w, const kl_plan *p,
                         const kl_backend *b, int device, int host_copies) {
  footprint f;
  size_t limit;
  kl_status st = kl__memory_limit(&limit);
  if (st == KL_OK) st = plan_footprint(p, b, host_copies, &f);
  if (st != KL_OK) return st;
  /* The device first: where both fall short, its limit is the one that
   * the user can do nothing about on this machine. Each memory is asked
   * only where the plan needs some of it (a device's query and the host's
   * /proc/meminfo cost more than a small library call). */
  if (!kl_backend_host_memory(b) && f.device > 0) {
    size_t dev_free = 0, dev_total = 0;
    st = kl__backend_memory(b, device, &dev_free, &dev_total);
    if (st != KL_OK) return st;
    if (f.device > (double)dev_total) {
      char where[96];
      kl__device_text(b, device, where, sizeof where);
      strncat(where, " memory; the device has",
              sizeof where - strlen(where) - 1);
      return too_large(w, p, f.device, where, (double)dev_total, "", limit);
    }
  }
  if (f.host > 0) {
    const double host_free = (double)kl__host_free();
    if (host_free > 0 && f.host > EXPLICIT_HOST_SHARE * host_free)
      return too_large(w, p, f.host, "host memory;", host_free,
                       " are available", limit);
  }
  return KL_OK;
}

/* The memory a plan may use, read once per fit: a share of the host's
 * free memory and of each rung's backend's. */
#define MAX_SIZED_RUNGS 256
typedef struct budget {
  double host;                     /* 0: unknown, no limit */
  double device[MAX_SIZED_RUNGS];  /* per listed rung; -1: host backend or
                                      unknown, no limit */
} budget;

/* What a default size (and a chunk) may use, or, `explicit`, what
 * kl__check_fits lets an explicit size use: more of the host's free
 * memory, and the device's total. */
static void budget_init(budget *bud, const kl__placed *rungs, size_t count,
                        int explicit) {
  bud->host = (explicit ? EXPLICIT_HOST_SHARE : DEFAULT_HOST_SHARE) *
              (double)kl__host_free();
  for (size_t j = 0; j < count; j++) {
    size_t dev_free = 0, dev_total = 0;
    bud->device[j] = -1;
    const kl_backend *b = rungs[j].r->backend;
    if (!kl_backend_host_memory(b) &&
        kl__backend_memory(b, rungs[j].device, &dev_free, &dev_total) == KL_OK)
      bud->device[j] = explicit ? (double)dev_total
                                : DEFAULT_DEVICE_SHARE * (double)dev_free;
  }
}

/* Whether every listed rung's plan of the instance fits the budget; where
 * not, *limit names the memory that refused. Plans that are invalid count
 * as not fitting (an extent shrunk below another's minimum). */
static int plans_fit(kl__planner *pl, const kl_workload *w,
                     const kl__instance *in, const kl__placed *rungs,
                     size_t count, const budget *bud, const char **limit) {
  for (size_t j = 0; j < count; j++) {
    const kl_backend *b = rungs[j].r->backend;
    kl_plan p;
    footprint f;
    if (kl__plan_get(pl, w, rungs[j].r, in, kl_backend_host_memory(b),
                     kl__device_at(b, rungs[j].device), &p, NULL) != KL_OK ||
        plan_footprint(&p, b, 1, &f) != KL_OK)
      return 0;
    if (bud->host > 0 && f.host > bud->host) {
      *limit = "host";
      return 0;
    }
    if (bud->device[j] >= 0 && f.device > bud->device[j]) {
      *limit = b->name;
      return 0;
    }
  }
  return 1;
}

static int fits_at(kl__planner *pl, const kl_workload *w, kl__instance *in,
                   int64_t n, const kl__placed *rungs, size_t count,
                   const budget *bud, const char **limit) {
  in->n = n;
  return plans_fit(pl, w, in, rungs, count, bud, limit);
}

/* The largest size from 1 to `below` - 1 for which fits() holds, by
 * bisection (the footprint grows with it, however the plan shapes it),
 * rounded down to the main size's step; where not even one step fits (a
 * small KLADDER_MEMORY_LIMIT), to a power of two below it. 0 where not
 * even 1 fits. */
typedef int (*fits_fn)(kl__planner *pl, const kl_workload *w,
                       kl__instance *in, int64_t n, const kl__placed *rungs,
                       size_t count, const budget *bud, const char **limit);

static int64_t largest_fit(kl__planner *pl, const kl_workload *w,
                           kl__instance *in, int64_t below, fits_fn fits,
                           const kl__placed *rungs, size_t count,
                           const budget *bud) {
  int64_t lo = 0, hi = below;
  const char *ignored;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (fits(pl, w, in, mid, rungs, count, bud, &ignored)) lo = mid;
    else hi = mid;
  }
  int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
  int64_t unit = main >= 0 && w->params[main].step > 0 ? w->params[main].step : 1;
  while (unit > 1 && lo < unit) unit /= 2;
  return lo - lo % unit;
}

/* The bytes of a plan's inputs that live in host memory. */
static double host_input_bytes(const kl_plan *p) {
  double bytes = 0;
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    size_t b = 0;
    if (s->role != KL_OUT && !(s->flags & KL_BUFFER_SCRATCH) &&
        s->placement != KL_MEM_DEVICE && kl__buffer_bytes(s, &b) == KL_OK)
      bytes += (double)b;
  }
  return bytes;
}

/* The default where the main size asks for a multiple of a device's
 * memory (kl_param.device_multiple): the smallest size below `wanted`
 * whose inputs in host memory hold that multiple of the largest memory of
 * the rungs' devices; `wanted` where none has a device. */
static int64_t device_default(kl__planner *pl, const kl_workload *w,
                              kl__instance *in, const kl__placed *rungs,
                              size_t count, int64_t wanted) {
  const int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
  /* A quick run's default is the quick size, whatever the device holds. */
  const double multiple =
      main >= 0 && !in->quick ? w->params[main].device_multiple : 0;
  double device = 0;
  for (size_t j = 0; j < count && multiple > 0; j++) {
    size_t dev_free = 0, dev_total = 0;
    const kl_backend *b = rungs[j].r->backend;
    if (!kl_backend_host_memory(b) &&
        kl__backend_memory(b, rungs[j].device, &dev_free, &dev_total) ==
            KL_OK &&
        (double)dev_total > device)
      device = (double)dev_total;
  }
  if (device <= 0) return wanted;
  int64_t lo = 0, hi = wanted;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    kl_plan p;
    in->n = mid;
    if (kl__plan_get(pl, w, NULL, in, 0, NULL, &p, NULL) == KL_OK &&
        host_input_bytes(&p) >= multiple * device)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

/* The plan's bytes at main size n (on host backends where `host`): every
 * buffer, scratch included; 0 where it cannot be planned. */
static double plan_bytes_at(kl__planner *pl, const kl_workload *w,
                            kl__instance *in, int64_t n, int host) {
  kl_plan p;
  double bytes = 0;
  if (host) in->host_quick = n;
  else in->n = n;
  if (kl__plan_get(pl, w, NULL, in, host, NULL, &p, NULL) != KL_OK ||
      kl__plan_bytes(&p, &bytes) != KL_OK)
    return 0;
  return bytes;
}

/* A quick default past the caches (kl_param.cache_multiple times the
 * cache, a host's as many as kl__host_cache_multiple says): the least
 * size from `start` to `cap` (by bisection, rounded up to the main size's
 * step) whose plan holds that many times the largest last-level cache of
 * the rungs' devices on that side (host backends where `host`, the others
 * where not); `start` where it holds already, where none is on that side
 * or where the workload asks for none; `cap` where not even that holds. */
static int64_t past_caches(kl__planner *pl, const kl_workload *w,
                           kl__instance *in, const kl__placed *rungs,
                           size_t count, int host, int64_t start,
                           int64_t cap) {
  const int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
  const double multiple = main >= 0 ? w->params[main].cache_multiple : 0;
  if (multiple <= 0 || !in->quick) return start;
  double want = 0; /* bytes the plan must hold */
  for (size_t j = 0; j < count; j++) {
    const kl_backend *b = rungs[j].r->backend;
    if (kl_backend_host_memory(b) != host) continue;
    const kl_device *d = kl__device_at(b, rungs[j].device);
    if (!d || d->cache_bytes <= 0) continue;
    const double times =
        host ? kl__host_cache_multiple(d->cache_bytes, d->compute_units,
                                       multiple)
             : multiple;
    if (times * (double)d->cache_bytes > want)
      want = times * (double)d->cache_bytes;
  }
  if (want <= 0) return start;
  const int64_t step = w->params[main].step > 0 ? w->params[main].step : 1;
  const int64_t kept_n = in->n, kept_host = in->host_quick;
  int64_t n = start;
  if (start < cap && plan_bytes_at(pl, w, in, start, host) < want) {
    int64_t lo = start, hi = cap; /* lo falls short; hi holds, or is cap */
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (plan_bytes_at(pl, w, in, mid, host) < want) lo = mid;
      else hi = mid;
    }
    n = hi + (hi % step ? step - hi % step : 0);
    if (n > cap) n = cap;
  }
  in->n = kept_n;
  in->host_quick = kept_host;
  return n;
}

/* Once a run, where a host's quick sizes go past its last-level cache
 * fewer times than the workload asks (kl__host_cache_multiple): why. */
static void host_cache_note(const kl_workload *w, const kl__placed *rungs,
                            size_t count, char *note, size_t note_size) {
  const int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
  if (main < 0 || w->params[main].cache_multiple <= 0) return;
  const double wanted = w->params[main].cache_multiple;
  for (size_t j = 0; j < count; j++) {
    if (!kl_backend_host_memory(rungs[j].r->backend)) continue;
    const kl_device *d = kl__device_at(rungs[j].r->backend, rungs[j].device);
    if (!d || kl__host_cache_multiple(d->cache_bytes, d->compute_units,
                                      wanted) >= wanted)
      continue;
    char said[256];
    snprintf(said, sizeof said,
             "Host quick sizes go past its %.0f MiB last-level cache once, "
             "not %gx: more than %.0f MiB for each of its %d threads is a "
             "cache it shares. ", (double)d->cache_bytes / (1 << 20), wanted,
             (double)KL__CACHE_THREAD_MOST / (1 << 20), d->compute_units);
    if (!strstr(note, said)) kl__append(note, note_size, "%s", said);
    return;
  }
}

kl_status kl__fit_default_size(kl__planner *pl, const kl_workload *w,
                               kl__instance *in, const kl__placed *rungs,
                               size_t count, int caches, char *note,
                               size_t note_size) {
  if (in->n_given) return KL_OK;
  const int64_t full = kl__default_size(w, 0, 0);
  int64_t wanted =
      device_default(pl, w, in, rungs, count,
                     kl__default_size(w, 0, in->quick));
  if (caches && in->quick) {
    wanted = past_caches(pl, w, in, rungs, count, 0, wanted, full);
    /* Host backends' sizes are capped by n: uncapped while they are
     * sized, and a host's cache larger than the devices' raises n. */
    in->n = full;
    in->host_quick = past_caches(pl, w, in, rungs, count, 1,
                                 kl__default_size(w, 1, 1), full);
    if (in->host_quick > wanted) wanted = in->host_quick;
    host_cache_note(w, rungs, count, note, note_size);
  }
  in->n = wanted;
  if (count > MAX_SIZED_RUNGS)
    return KL_FAIL(KL_USAGE, "%s: more than %d rungs to size for", w->name,
                   MAX_SIZED_RUNGS);
  budget bud;
  budget_init(&bud, rungs, count, 0);
  const char *limit = "host";
  if (fits_at(pl, w, in, wanted, rungs, count, &bud, &limit)) {
    in->n = wanted;
    return KL_OK;
  }
  int64_t fitted =
      largest_fit(pl, w, in, wanted, fits_at, rungs, count, &bud);
  if (fitted < 1) fitted = 1;
  in->n = fitted;
  /* Once: the ceilings of two backends may shrink alike. */
  char said[160];
  snprintf(said, sizeof said,
           "%s: n = %lld instead of the default %lld, to fit in %s memory. ",
           w->name, (long long)fitted, (long long)wanted, limit);
  if (!strstr(note, said)) kl__append(note, note_size, "%s", said);
  return KL_OK;
}

int kl__fits_as_default(kl__planner *pl, const kl_workload *w,
                        kl__instance *in, int64_t n, const kl__placed *rung) {
  budget bud;
  budget_init(&bud, rung, 1, 0);
  const char *limit = "host";
  const int64_t kept = in->n;
  const int fits = fits_at(pl, w, in, n, rung, 1, &bud, &limit);
  in->n = kept;
  return fits;
}

/* Whether the plans fit with chunks of at most `size` main-size elements;
 * in->n stays the input file's size. */
static int fits_chunked(kl__planner *pl, const kl_workload *w,
                        kl__instance *in, int64_t size,
                        const kl__placed *rungs, size_t count,
                        const budget *bud, const char **limit) {
  in->chunk_size = size;
  return plans_fit(pl, w, in, rungs, count, bud, limit);
}

kl_status kl__fit_chunks(kl__planner *pl, const kl_workload *w,
                         kl__instance *in, const kl__placed *rungs,
                         size_t count, char *note, size_t note_size) {
  in->chunk_size = 0;
  if (!in->input_file || !w->input) return KL_OK;
  if (count > MAX_SIZED_RUNGS)
    return KL_FAIL(KL_USAGE, "%s: more than %d rungs to size for", w->name,
                   MAX_SIZED_RUNGS);
  budget whole, chunked;
  budget_init(&whole, rungs, count, 1);
  const char *limit = "host";
  if (plans_fit(pl, w, in, rungs, count, &whole, &limit)) return KL_OK;
  /* The chunks' size is kladder's choice, as a default size is: it
   * leaves the memory a default leaves. */
  budget_init(&chunked, rungs, count, 0);
  const int64_t size =
      largest_fit(pl, w, in, in->n, fits_chunked, rungs, count, &chunked);
  in->chunk_size = size;
  if (size < 1) return KL_OK;
  const char *name = kl__input_name(in->input_file);
  const int64_t chunks = (in->n + size - 1) / size;
  kl__append(note, note_size,
             "%s: input file " KL_Q " (n = %lld) runs in %lld chunks of "
             "%lld, to fit in %s memory. ",
             w->name, KL_CLIP(name), (long long)in->n, (long long)chunks,
             (long long)((in->n + chunks - 1) / chunks), limit);
  return KL_OK;
}

