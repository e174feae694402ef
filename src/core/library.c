/* The library's entry points (kl_reduce, kl_gemm, ...): the rung marked
 * for the problem's type on the preferred available backend, run once on
 * the caller's buffers. */
#include <string.h>

#include "harness.h"

static const kl_rung *library_rung(const kl_workload *w, const kl_backend *b,
                                   kl_type type) {
  for (size_t i = 0; i < w->rung_count; i++) {
    const kl_rung *r = &w->rungs[i];
    if (r->backend == b && (r->library & KL_TYPE_BIT(type)) &&
        (r->run || r->run_reps))
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

kl_status kl__run_library(const kl_workload *w, const char *backend,
                          const kl_problem *pb, void *const *user,
                          int data_on_device) {
  kl__instance in;
  kl_status st = kl__instance_from_problem(w, pb, &in);
  if (st != KL_OK) return st;
  in.caller_inputs = 1;
  const kl_backend *b = NULL;
  if (backend) st = kl__backend_named(backend, &b);
  else if (!(b = preferred_backend(w, in.type)))
    st = kl__usage(KL_UNAVAILABLE, "%s: no backend here has a library rung "
                   "for %s", w->name, kl_type_name(in.type));
  if (st != KL_OK) return st;
  const kl_rung *r = library_rung(w, b, in.type);
  if (!r)
    return kl__usage(KL_UNAVAILABLE, "%s has no library rung on backend %s "
                     "for %s", w->name, b->name, kl_type_name(in.type));
  kl_context *ctx = NULL;
  kl_plan p;
  st = kl__process_context(b, &ctx);
  if (st == KL_OK) st = kl__plan_make(w, r, &in, 0, &p);
  if (st != KL_OK) return st;
  for (int i = 0; i < p.buffer_count; i++)
    if (!(p.buffers[i].flags & KL_BUFFER_SCRATCH) && !user[i])
      return kl__usage(KL_USAGE, "%s: buffer %s is NULL", w->name,
                       p.buffers[i].name);

  kl_args args;
  double counts[KL_MAX_COUNTS] = {0};
  memset(&args, 0, sizeof args);
  args.plan = &p;
  args.ctx = ctx;
  args.stream = ctx->streams[0];
  args.counts = counts;
  int owned[KL_MAX_BUFFERS] = {0};
  size_t bytes[KL_MAX_BUFFERS] = {0};
  for (int i = 0; i < p.buffer_count && st == KL_OK; i++) {
    const kl_buffer_spec *s = &p.buffers[i];
    st = kl__buffer_bytes(s, &bytes[i]);
    if (st != KL_OK) break;
    /* Outputs of a few elements (a reduction's result) land in host
     * memory; inputs, and buffers read and written, stay where they are.
     * Scratch is the library's. */
    const int scratch = (s->flags & KL_BUFFER_SCRATCH) != 0;
    const int in_place = !scratch && s->role != KL_OUT &&
                         (data_on_device || kl_backend_host_memory(b) ||
                          s->placement != KL_MEM_DEVICE);
    if (in_place) {
      args.buffers[i] = user[i];
      continue;
    }
    st = b->alloc(ctx, s->placement, &args.buffers[i], bytes[i]);
    owned[i] = st == KL_OK;
    if (st == KL_OK && scratch && (s->flags & KL_BUFFER_ZEROED))
      st = b->fill_bytes(ctx, s->placement, args.buffers[i], 0, bytes[i]);
    if (st == KL_OK && !scratch && s->role != KL_OUT)
      st = b->copy(ctx, 0, args.buffers[i], user[i], bytes[i]);
  }
  int set_up = 0;
  if (st == KL_OK) st = b->sync(ctx);
  if (st == KL_OK && r->setup) {
    st = r->setup(&args);
    set_up = st == KL_OK;
  }
  /* A rung that owns its loop makes one repetition on the caller's
   * buffers, which it does not put back (reset stays NULL). */
  double seconds = 0, phases[KL_MAX_PHASES] = {0};
  kl_reps once = {1, &seconds, phases, NULL, 0, 0, 0};
  if (st == KL_OK) st = r->run ? r->run(&args) : r->run_reps(&args, &once);
  for (int i = 0; i < p.buffer_count && st == KL_OK; i++)
    if (owned[i] && p.buffers[i].role != KL_IN &&
        !(p.buffers[i].flags & KL_BUFFER_SCRATCH))
      st = b->copy(ctx, 0, user[i], args.buffers[i], bytes[i]);
  if (st == KL_OK) st = b->sync(ctx);
  if (set_up && r->teardown) r->teardown(&args);
  for (int i = 0; i < p.buffer_count; i++)
    if (owned[i]) b->release(ctx, p.buffers[i].placement, args.buffers[i]);
  return st;
}
