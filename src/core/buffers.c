/* A plan's buffers: allocated at exactly their size in their placement,
 * filled with fresh inputs, outputs and scratch poisoned; downloaded for
 * the check, restored between repetitions, released. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

kl_status kl__plan_scratch(kl_plan *p, int index, const char *name,
                           kl_type type, int64_t count, kl_placement where,
                           unsigned flags) {
  if (index < 0 || index >= KL_MAX_BUFFERS)
    return KL_FAIL(KL_USAGE, "scratch %s: buffer %d is past the %d a plan "
                   "holds", name, index, KL_MAX_BUFFERS);
  p->buffers[index] = (kl_buffer_spec){name, type, count, KL_INOUT, where,
                                       KL_BUFFER_SCRATCH | flags};
  if (p->buffer_count < index + 1) p->buffer_count = index + 1;
  return KL_OK;
}

kl_status kl__plan_has_device(const kl_plan *p) {
  return p->device ? KL_OK
                   : KL_FAIL(KL_USAGE, "a rung's scratch sized for a device, "
                             "in a plan made for none");
}

static void *host_copy(kl__buffers *bufs, size_t bytes) {
  void *p = NULL;
  if (kl__host_alloc(&p, bytes) != KL_OK) return NULL;
  bufs->owned[bufs->owned_count++] = p;
  return p;
}

/* Whether buffer i lives in memory the host reads directly. */
static int in_host_memory(const kl_plan *p, const kl_context *ctx, int i) {
  return kl_backend_host_memory(ctx->backend) ||
         p->buffers[i].placement != KL_MEM_DEVICE;
}

void kl__buffers_release(const kl_plan *p, kl_context *ctx,
                         kl__buffers *bufs) {
  for (int i = 0; i < p->buffer_count; i++)
    if (bufs->dev[i] && bufs->kept[i])
      kl__context_keep(ctx, p->buffers[i].placement, bufs->dev[i],
                       bufs->kept[i]);
    else if (bufs->dev[i] && !bufs->borrowed[i])
      ctx->backend->release(ctx, p->buffers[i].placement, bufs->dev[i]);
  for (int i = 0; i < bufs->owned_count; i++) kl__host_release(bufs->owned[i]);
  memset(bufs, 0, sizeof *bufs);
}

/* Where the inputs were made in host memory, put them where the rung
 * reads them: uploaded to a device buffer, or, for an INOUT buffer in
 * host memory, kept in its host copy for the check. */
static kl_status place_input(const kl_plan *p, kl_context *ctx,
                             const kl__buffers *bufs, int i, size_t bytes) {
  const kl_buffer_spec *s = &p->buffers[i];
  if (!in_host_memory(p, ctx, i))
    return ctx->backend->copy(ctx, 0, bufs->dev[i], bufs->in[i], bytes);
  if (s->role == KL_INOUT)
    return kl__host_copy(ctx, 0, bufs->in[i], bufs->dev[i], bytes);
  return KL_OK;
}

/* The inputs of the plan's current chunk, in the host buffers: read from
 * its input file, or made from the seed. */
static kl_status make_inputs(const kl_workload *w, const kl_plan *p,
                             void *const *host) {
  if (!p->input_file) {
    w->init(p, host);
    return KL_OK;
  }
  if (!w->input || !w->input->load_chunk)
    return KL_FAIL(KL_USAGE, "%s takes no input file", w->name);
  return w->input->load_chunk(p, host);
}

/* Scratch starts poisoned, or at zero where it must. */
static kl_status fill_scratch(const kl_buffer_spec *s, kl_context *ctx,
                              void *dev, size_t bytes) {
  return ctx->backend->fill_bytes(ctx, s->placement, dev,
                                  (s->flags & KL_BUFFER_ZEROED) ? 0 : 0xFF,
                                  bytes);
}

kl_status kl__buffers_prepare(const kl_workload *w, const kl_plan *p,
                              kl_context *ctx, kl__buffers *bufs) {
  const kl_backend *b = ctx->backend;
  size_t bytes[KL_MAX_BUFFERS] = {0};
  memset(bufs, 0, sizeof *bufs);
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    kl_status st = kl__buffer_bytes(s, &bytes[i]);
    if (st == KL_OK) st = b->alloc(ctx, s->placement, &bufs->dev[i], bytes[i]);
    if (st != KL_OK) return st;
    if (s->flags & KL_BUFFER_SCRATCH) continue;
    if (in_host_memory(p, ctx, i)) {
      /* Checked in place; an INOUT buffer also keeps its input. */
      bufs->fill[i] = bufs->in[i] = bufs->out[i] = bufs->dev[i];
      if (s->role == KL_INOUT && !(bufs->in[i] = host_copy(bufs, bytes[i])))
        return KL_FAIL(KL_NO_MEMORY, "host allocation of %zu bytes failed",
                       bytes[i]);
    } else {
      if (s->role != KL_OUT && !(bufs->in[i] = host_copy(bufs, bytes[i])))
        return KL_FAIL(KL_NO_MEMORY, "host allocation of %zu bytes failed",
                       bytes[i]);
      if (s->role != KL_IN && !(bufs->out[i] = host_copy(bufs, bytes[i])))
        return KL_FAIL(KL_NO_MEMORY, "host allocation of %zu bytes failed",
                       bytes[i]);
      bufs->fill[i] = bufs->in[i];
    }
  }
  /* Large inputs may be made on the device; the checker then gets them
   * downloaded. A plan of several chunks loads each chunk's in turn. */
  kl_status made = KL_UNAVAILABLE;
  if (!kl_backend_host_memory(b) && w->init_device && p->chunk_count == 1 &&
      !p->input_file) {
    kl_args args;
    memset(&args, 0, sizeof args);
    args.plan = p;
    args.ctx = ctx;
    args.stream = ctx->streams[0];
    memcpy(args.buffers, bufs->dev, sizeof args.buffers);
    made = w->init_device(&args);
    if (made != KL_OK && made != KL_UNAVAILABLE) return made;
  }
  if (made != KL_OK) {
    kl_status st = make_inputs(w, p, bufs->fill);
    if (st != KL_OK) return st;
  }
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    kl_status st = KL_OK;
    if (s->flags & KL_BUFFER_SCRATCH)
      st = fill_scratch(s, ctx, bufs->dev[i], bytes[i]);
    else if (made == KL_OK && s->role != KL_OUT) {
      if (bufs->in[i] != bufs->dev[i])
        st = b->copy(ctx, 0, bufs->in[i], bufs->dev[i], bytes[i]);
    }
    else if (s->role == KL_OUT) /* NaN, -1, 255 */
      st = b->fill_bytes(ctx, s->placement, bufs->dev[i], 0xFF, bytes[i]);
    else
      st = place_input(p, ctx, bufs, i, bytes[i]);
    if (st != KL_OK) return st;
  }
  return b->sync(ctx);
}

kl_status kl__buffers_adopt(const kl_plan *p, kl_context *ctx,
                            void *const *user, int on_device,
                            kl__buffers *bufs) {
  const kl_backend *b = ctx->backend;
  memset(bufs, 0, sizeof *bufs);
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    const int scratch = (s->flags & KL_BUFFER_SCRATCH) != 0;
    if (!scratch && !user[i])
      return kl__usage(KL_USAGE, "buffer %s is NULL", s->name);
    size_t bytes = 0;
    kl_status st = kl__buffer_bytes(s, &bytes);
    if (st != KL_OK) return st;
    /* Inputs, and buffers read and written, stay where the caller has
     * them when the rung can read them there; outputs of a device buffer
     * (a reduction's few elements) land in the caller's host memory. */
    const int in_place = !scratch && s->role != KL_OUT &&
                         (on_device || kl_backend_host_memory(b) ||
                          s->placement != KL_MEM_DEVICE);
    if (in_place) {
      bufs->dev[i] = user[i];
      bufs->borrowed[i] = 1;
      continue;
    }
    st = kl__context_take(ctx, s->placement, bytes, &bufs->dev[i],
                          &bufs->kept[i]);
    if (st == KL_OK && scratch) st = fill_scratch(s, ctx, bufs->dev[i], bytes);
    if (st == KL_OK && !scratch && s->role != KL_OUT)
      st = b->copy(ctx, 0, bufs->dev[i], user[i], bytes);
    if (st != KL_OK) return st;
  }
  return b->sync(ctx);
}

kl_status kl__buffers_give_back(const kl_plan *p, kl_context *ctx,
                                const kl__buffers *bufs, void *const *user) {
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    if (bufs->borrowed[i] || s->role == KL_IN ||
        (s->flags & KL_BUFFER_SCRATCH))
      continue;
    size_t bytes = 0;
    kl_status st = kl__buffer_bytes(s, &bytes);
    if (st == KL_OK) st = ctx->backend->copy(ctx, 0, user[i], bufs->dev[i], bytes);
    if (st != KL_OK) return st;
  }
  return ctx->backend->sync(ctx);
}

kl_status kl__buffers_load_chunk(const kl_workload *w, kl_plan *p,
                                 kl_context *ctx, const kl__buffers *bufs,
                                 int64_t chunk) {
  const int64_t size = kl__chunk_size(p);
  p->chunk = chunk;
  p->chunk_n = p->n - chunk * size < size ? p->n - chunk * size : size;
  kl_status made = make_inputs(w, p, bufs->fill);
  if (made != KL_OK) return made;
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    if (s->role == KL_OUT || (s->flags & KL_BUFFER_SCRATCH)) continue;
    size_t bytes = 0;
    kl_status st = kl__buffer_bytes(s, &bytes);
    if (st == KL_OK) st = place_input(p, ctx, bufs, i, bytes);
    if (st != KL_OK) return st;
  }
  return ctx->backend->sync(ctx);
}

kl_status kl__buffers_upload_inputs(const kl_plan *p, kl_context *ctx,
                                    const kl__buffers *bufs) {
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    if (s->role == KL_OUT || (s->flags & KL_BUFFER_SCRATCH) ||
        in_host_memory(p, ctx, i))
      continue;
    size_t bytes = 0;
    kl_status st = kl__buffer_bytes(s, &bytes);
    if (st == KL_OK)
      st = ctx->backend->copy(ctx, 0, bufs->dev[i], bufs->in[i], bytes);
    if (st != KL_OK) return st;
  }
  return KL_OK;
}

kl_status kl__buffers_download(const kl_plan *p, kl_context *ctx,
                               kl__buffers *bufs) {
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    if (s->role == KL_IN || (s->flags & KL_BUFFER_SCRATCH) ||
        in_host_memory(p, ctx, i))
      continue;
    size_t bytes = 0;
    kl_status st = kl__buffer_bytes(s, &bytes);
    if (st == KL_OK) st = ctx->backend->copy(ctx, 0, bufs->out[i], bufs->dev[i], bytes);
    if (st != KL_OK) return st;
  }
  return ctx->backend->sync(ctx);
}

kl_status kl__buffers_restore(const kl_plan *p, kl_context *ctx,
                              const kl__buffers *bufs) {
  int any = 0;
  for (int i = 0; i < p->buffer_count; i++) {
    const kl_buffer_spec *s = &p->buffers[i];
    if (s->role != KL_INOUT || !(s->flags & KL_BUFFER_RESTORED)) continue;
    size_t bytes = 0;
    kl_status st = kl__buffer_bytes(s, &bytes);
    if (st == KL_OK) st = ctx->backend->copy(ctx, 0, bufs->dev[i], bufs->in[i], bytes);
    if (st != KL_OK) return st;
    any = 1;
  }
  return any ? ctx->backend->sync(ctx) : KL_OK;
}
