/* The library's entry points (kl_reduce, kl_gemm, ...): the wisdom's pick
 * for the problem's size (wisdom.c), or the rung marked for the problem's
 * type on the context's backend (or the preferred one),
 * run once on the caller's buffers, through the buffer lifecycle of a
 * run (buffers.c): plan, fit, adopt the caller's buffers, set up, run,
 * give the outputs back, tear down, release. */
#include <string.h>

#include "harness.h"

static const kl_rung *library_rung(const kl_workload *w, const kl_backend *b,
                                   kl_type type) {
  for (size_t i = 0; i < w->rung_count; i++) {
    const kl_rung *r = &w->rungs[i];
    if (r->backend == b && (r->library & KL_TYPE_BIT(type)) &&
        kl__rung_built(r))
      return r;
  }
  return NULL;
}

/* The available backend of the highest preference with a library rung. */
static const kl_backend *preferred_backend(const kl_workload *w, kl_type t) {
  const kl_backend *best = NULL;
  for (size_t i = 0; i < kl_backend_count(); i++) {
    const kl_backend *b = kl_backend_at(i);
    if ((!best || b->preference > best->preference) &&
        kl_backend_available(b, NULL, 0) && library_rung(w, b, t))
      best = b;
  }
  return best;
}

int64_t kl__wisdom_size(const kl_workload *w, int64_t n,
                        const double *value) {
  return w->wisdom_size ? w->wisdom_size(n, value) : n;
}

const kl_rung *kl__dispatched(const kl_workload *w, kl_type t, int64_t n,
                              const kl_backend *on, int device) {
  const kl_rung *r = kl__wisdom_rung(w, t, n, on, device);
  if (r) return r;
  const kl_backend *b = on ? on : preferred_backend(w, t);
  return b ? library_rung(w, b, t) : NULL;
}

/* The rung an entry point runs for w at type t and size n (kl__dispatched),
 * or why there is none. */
static kl_status choose(const kl_workload *w, kl_type t, int64_t n,
                        const kl_context *ctx, const kl_rung **out) {
  const kl_backend *on = ctx ? ctx->backend : NULL;
  *out = kl__dispatched(w, t, n, on, ctx ? ctx->device.index : 0);
  if (*out) return KL_OK;
  const kl_backend *b = on ? on : preferred_backend(w, t);
  if (!b)
    return kl__usage(KL_UNAVAILABLE, "%s: no backend here has a library rung "
                     "for %s", w->name, kl_type_name(t));
  return kl__usage(KL_UNAVAILABLE, "%s has no library rung on backend %s "
                   "for %s", w->name, b->name, kl_type_name(t));
}

/* The rung that serves in r's place where r cannot serve a problem: the
 * one it names (fallback), where built, else the backend's library rung;
 * NULL where that is r itself. */
static const kl_rung *stand_in(const kl_workload *w, const kl_rung *r,
                               kl_type type) {
  const kl_rung *next = r->fallback ? kl_rung_find(w, r->fallback) : NULL;
  if (!next || !kl__rung_built(next)) next = library_rung(w, r->backend, type);
  return next == r ? NULL : next;
}

/* One run of rung r on the caller's buffers, in an entered context;
 * *declined where r's setup said it cannot serve the problem
 * (KL_UNAVAILABLE), before anything ran or was given back. */
static kl_status run_once(const kl_rung *r, const kl_plan *p, kl_context *ctx,
                          void *const *user, int on_device, int *declined) {
  kl__buffers bufs;
  kl_status st = kl__buffers_adopt(p, ctx, user, on_device, &bufs);
  kl_args args;
  double counts[KL_MAX_COUNTS] = {0};
  memset(&args, 0, sizeof args);
  args.plan = p;
  args.ctx = ctx;
  args.stream = ctx->streams[0];
  args.counts = counts;
  memcpy(args.buffers, bufs.dev, sizeof args.buffers);
  int set_up = 0;
  kl_status (*setup)(kl_args *) = kl_rung_setup(r);
  void (*teardown)(kl_args *) = kl_rung_teardown(r);
  if (st == KL_OK && setup) {
    st = setup(&args);
    set_up = st == KL_OK;
    *declined = st == KL_UNAVAILABLE;
  }
  /* A rung that owns its loop makes one repetition on the caller's
   * buffers, which it does not put back (reset stays NULL). */
  double seconds = 0, phases[KL_MAX_PHASES] = {0};
  kl_reps once = {1, &seconds, phases, NULL, 0, 0, 0};
  if (st == KL_OK) st = r->run ? r->run(&args) : r->run_reps(&args, &once);
  if (st == KL_OK) st = ctx->backend->sync(ctx);
  if (st == KL_OK) st = kl__buffers_give_back(p, ctx, &bufs, user);
  if (set_up && teardown) teardown(&args);
  kl__buffers_release(p, ctx, &bufs);
  return st;
}

kl_status kl__run_library(kl_context *ctx, const kl_workload *w,
                          const kl_problem *pb, void *const *user,
                          int data_on_device) {
  kl__instance in;
  kl_status st = kl__instance_from_problem(w, pb, &in);
  if (st != KL_OK) return st;
  in.caller_inputs = 1;
  const kl_rung *r = NULL;
  st = choose(w, in.type, kl__wisdom_size(w, in.n, in.value), ctx, &r);
  if (st != KL_OK) return st;
  const kl_backend *b = r->backend;
  const int device = ctx ? ctx->device.index : 0;
  /* A rung that cannot serve this problem (its plan, the device's memory
   * or its setup) stands aside for its stand-in, and that one for its
   * own, down to the backend's library rung; each is tried once at most
   * (test_model holds the fallbacks to a chain without a loop). */
  for (size_t tried = 1;; tried++) {
    /* The caller gives every size a default could come from. */
    kl_plan p;
    st = kl__plan_make(w, r, &in, 0, kl__device_at(b, device), &p, NULL);
    int declined = st == KL_UNAVAILABLE;
    for (int i = 0; i < p.buffer_count && st == KL_OK; i++)
      if (!(p.buffers[i].flags & KL_BUFFER_SCRATCH) && !user[i])
        st = kl__usage(KL_USAGE, "%s: buffer %s is NULL", w->name,
                       p.buffers[i].name);
    if (st == KL_OK && !ctx) st = kl__default_context(b, &ctx);
    if (st == KL_OK) {
      st = kl__check_fits(w, &p, b, ctx->device.index, 0);
      declined = st == KL_TOO_LARGE;
    }
    if (st == KL_OK) st = kl__enter(ctx);
    if (st == KL_OK) {
      st = run_once(r, &p, ctx, user, data_on_device, &declined);
      kl__leave(ctx);
    }
    const kl_rung *next = declined ? stand_in(w, r, in.type) : NULL;
    if (!next || tried >= w->rung_count) return st;
    r = next;
  }
}

kl_status kl_dispatch(kl_context *ctx, const char *workload, kl_type type,
                      int64_t n, const char **backend, const char **rung) {
  size_t wi;
  kl_status st = kl_workload_index(workload, &wi);
  if (st != KL_OK) return st;
  const kl_rung *r = NULL;
  st = choose(kl_workload_at(wi), type, n, ctx, &r);
  if (st != KL_OK) return kl__done(st);
  if (backend) *backend = r->backend->name;
  if (rung) *rung = r->name;
  return KL_OK;
}
