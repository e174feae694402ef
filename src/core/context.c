/* Contexts: a device of a backend opened for use, with the lock that
 * serializes the calls that share it, and the process's default ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "harness.h"

/* The core's part of a context: its lock, and the blocks the library's
 * entry points allocated, kept for the next call (kl__context_take). */
typedef struct kept_block {
  kl_placement where;
  size_t bytes;
  void *ptr;
} kept_block;

struct kl__context_core {
  mtx_t lock;
  int kept_count;
  kept_block kept[KL__KEPT_BLOCKS]; /* the oldest first */
};

/* ---- naming devices ----------------------------------------------------- */

void kl__device_text(const kl_backend *b, int index, char *dst, size_t size) {
  if (index == 0) snprintf(dst, size, "%s", b->name);
  else snprintf(dst, size, "%s:%d", b->name, index);
}

static kl_status unknown_backend(const char *name) {
  char valid[256] = "";
  for (size_t i = 0; i < kl_backend_count(); i++)
    kl__append(valid, sizeof valid, "%s%s", i ? ", " : "",
               kl_backend_at(i)->name);
  return kl__usage(KL_USAGE, "unknown backend " KL_Q "; valid: %s",
                   KL_CLIP(name), valid);
}

kl_status kl__device_parse(const char *text, kl__device_ref *out) {
  memset(out, 0, sizeof *out);
  char name[64];
  const char *colon = strchr(text, ':');
  const size_t len = colon ? (size_t)(colon - text) : strlen(text);
  if (len == 0 || len >= sizeof name) return unknown_backend(text);
  memcpy(name, text, len);
  name[len] = '\0';
  const kl_backend *b = kl_backend_find(name);
  if (!b) return unknown_backend(text);
  int index = 0;
  if (colon) {
    char *end = NULL;
    long v = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end != '\0' || v < 0 || v > 1 << 20)
      return kl__usage(KL_USAGE, "device " KL_Q ": the index after ':' must "
                       "be a number from 0", KL_CLIP(text));
    index = (int)v;
  }
  char info[256];
  if (!kl_backend_available(b, info, sizeof info))
    return kl__usage(KL_UNAVAILABLE, "backend '%s' is not available here: %s",
                     b->name, info);
  const int count = kl_backend_devices(b);
  if (index >= count)
    return kl__usage(KL_USAGE, "device " KL_Q ": backend %s has %d device%s "
                     "(%s:0%s)", KL_CLIP(text), b->name, count,
                     count == 1 ? "" : "s", b->name,
                     count > 1 ? " and up" : "");
  out->backend = b;
  out->index = index;
  return KL_OK;
}

/* ---- describing devices ------------------------------------------------------ */

kl_status kl__copy_sized(void *out, const void *full, size_t full_size,
                         const char *what) {
  size_t size = 0;
  if (out) memcpy(&size, out, sizeof size);
  if (!out || size < sizeof(size_t))
    return kl__usage(KL_USAGE, "%s: out->size is not set (set it to "
                     "sizeof *out)", what);
  if (size > full_size) size = full_size;
  memcpy(out, full, size);
  memcpy(out, &size, sizeof size); /* the fields the caller now has */
  return KL_OK;
}

kl_status kl__device_describe(const kl_backend *b, int index, kl_device *out) {
  memset(out, 0, sizeof *out);
  kl_status st = KL_OK;
  if (b->describe) st = b->describe(index, out);
  else kl__host_device(out);
  out->index = index;
  return st;
}

void kl__device_info(const kl_backend *b, const kl_device *d,
                     kl_device_info *out) {
  memset(out, 0, sizeof *out);
  out->size = sizeof *out;
  out->backend = b->name;
  out->index = d->index;
  snprintf(out->id, sizeof out->id, "%s:%d", b->name, d->index);
  snprintf(out->name, sizeof out->name, "%s", d->name);
  out->memory_bytes = d->memory_bytes;
  out->compute_units = d->compute_units;
  out->lanes = d->lanes;
}

/* ---- the devices, described once ------------------------------------------ */

#define MAX_BACKENDS 16
#define MAX_DEVICES 64
static kl_device described[MAX_BACKENDS][MAX_DEVICES];
static int described_state[MAX_BACKENDS][MAX_DEVICES]; /* 1 ok, -1 failed */
static mtx_t described_lock;
static once_flag described_once = ONCE_FLAG_INIT;
static int described_lock_ok;

static void described_init(void) {
  described_lock_ok = mtx_init(&described_lock, mtx_plain) == thrd_success;
}

const kl_device *kl__device_at(const kl_backend *b, int index) {
  call_once(&described_once, described_init);
  size_t i = 0;
  while (i < kl_backend_count() && kl_backend_at(i) != b) i++;
  if (!described_lock_ok || i >= kl_backend_count() || i >= MAX_BACKENDS ||
      index < 0 || index >= MAX_DEVICES || index >= kl_backend_devices(b))
    return NULL;
  mtx_lock(&described_lock);
  if (described_state[i][index] == 0)
    described_state[i][index] =
        kl__device_describe(b, index, &described[i][index]) == KL_OK ? 1 : -1;
  const int ok = described_state[i][index] == 1;
  mtx_unlock(&described_lock);
  return ok ? &described[i][index] : NULL;
}

/* ---- opening and locking ------------------------------------------------ */

kl_status kl__context_open(const kl_backend *b, int index, kl_context *ctx) {
  memset(ctx, 0, sizeof *ctx);
  if (index < 0 || index >= kl_backend_devices(b))
    return KL_FAIL(KL_USAGE, "backend %s has no device %d", b->name, index);
  ctx->core = calloc(1, sizeof *ctx->core);
  if (!ctx->core) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  if (mtx_init(&ctx->core->lock, mtx_plain) != thrd_success) {
    free(ctx->core);
    ctx->core = NULL;
    return KL_FAIL(KL_NO_MEMORY, "mtx_init failed");
  }
  ctx->backend = b;
  ctx->device.index = index;
  kl_status st = b->open(ctx);
  if (st != KL_OK) {
    mtx_destroy(&ctx->core->lock);
    free(ctx->core);
    memset(ctx, 0, sizeof *ctx);
  }
  return st;
}

void kl__context_close(kl_context *ctx) {
  if (!ctx || !ctx->backend) return;
  if (ctx->backend->enter) (void)ctx->backend->enter(ctx);
  for (int i = 0; ctx->core && i < ctx->core->kept_count; i++)
    ctx->backend->release(ctx, ctx->core->kept[i].where,
                          ctx->core->kept[i].ptr);
  ctx->backend->close(ctx);
  if (ctx->core) {
    mtx_destroy(&ctx->core->lock);
    free(ctx->core);
  }
  memset(ctx, 0, sizeof *ctx);
}

/* ---- blocks kept between the entry points' calls ------------------------ */

kl_status kl__context_take(kl_context *ctx, kl_placement where, size_t bytes,
                           void **ptr, size_t *got) {
  struct kl__context_core *c = ctx->core;
  /* The smallest kept block of the placement that holds bytes and is at
   * most twice as large. */
  int best = -1;
  for (int i = 0; i < c->kept_count; i++)
    if (c->kept[i].where == where && c->kept[i].bytes >= bytes &&
        c->kept[i].bytes / 2 <= bytes &&
        (best < 0 || c->kept[i].bytes < c->kept[best].bytes))
      best = i;
  if (best >= 0) {
    *ptr = c->kept[best].ptr;
    *got = c->kept[best].bytes;
    c->kept_count--;
    memmove(&c->kept[best], &c->kept[best + 1],
            (size_t)(c->kept_count - best) * sizeof c->kept[0]);
    return KL_OK;
  }
  kl_status st = ctx->backend->alloc(ctx, where, ptr, bytes);
  *got = st == KL_OK ? bytes : 0;
  return st;
}

void kl__context_keep(kl_context *ctx, kl_placement where, void *ptr,
                      size_t bytes) {
  struct kl__context_core *c = ctx->core;
  if (bytes > KL__KEPT_BYTES) {
    ctx->backend->release(ctx, where, ptr);
    return;
  }
  if (c->kept_count == KL__KEPT_BLOCKS) { /* the oldest makes room */
    ctx->backend->release(ctx, c->kept[0].where, c->kept[0].ptr);
    c->kept_count--;
    memmove(&c->kept[0], &c->kept[1], (size_t)c->kept_count * sizeof c->kept[0]);
  }
  c->kept[c->kept_count++] = (kept_block){where, bytes, ptr};
}

kl_status kl__enter(kl_context *ctx) {
  if (!ctx || !ctx->backend || !ctx->core)
    return KL_FAIL(KL_USAGE, "a context that is not open");
  if (mtx_lock(&ctx->core->lock) != thrd_success)
    return KL_FAIL(KL_DEVICE, "locking a context failed");
  kl_status st = ctx->backend->enter ? ctx->backend->enter(ctx) : KL_OK;
  if (st != KL_OK) mtx_unlock(&ctx->core->lock);
  return st;
}

void kl__leave(kl_context *ctx) {
  if (ctx && ctx->core) mtx_unlock(&ctx->core->lock);
}

/* ---- the process's default contexts --------------------------------------
 * Device 0 of each backend, opened on first use under one lock and kept
 * until the process ends (closing a GPU context while its runtime shuts
 * down at exit would race it). */
static kl_context defaults[MAX_BACKENDS];
static mtx_t defaults_lock;
static once_flag defaults_once = ONCE_FLAG_INIT;
static int defaults_lock_ok;

static void defaults_init(void) {
  defaults_lock_ok = mtx_init(&defaults_lock, mtx_plain) == thrd_success;
}

kl_status kl__default_context(const kl_backend *b, kl_context **out) {
  call_once(&defaults_once, defaults_init);
  if (!defaults_lock_ok) return KL_FAIL(KL_NO_MEMORY, "mtx_init failed");
  size_t i = 0;
  while (i < kl_backend_count() && kl_backend_at(i) != b) i++;
  if (i == kl_backend_count() || i >= MAX_BACKENDS)
    return KL_FAIL(KL_USAGE, "backend %s is not registered", b->name);
  char info[256];
  if (!kl_backend_available(b, info, sizeof info))
    return kl__usage(KL_UNAVAILABLE, "backend %s is not available here: %s",
                     b->name, info);
  kl_status st = KL_OK;
  mtx_lock(&defaults_lock);
  if (!defaults[i].backend) st = kl__context_open(b, 0, &defaults[i]);
  mtx_unlock(&defaults_lock);
  *out = st == KL_OK ? &defaults[i] : NULL;
  return st;
}

/* ---- the public entry points --------------------------------------------- */

/* The available backend the library prefers: the highest preference. */
static const kl_backend *preferred(void) {
  const kl_backend *best = NULL;
  for (size_t i = 0; i < kl_backend_count(); i++) {
    const kl_backend *b = kl_backend_at(i);
    if ((!best || b->preference > best->preference) &&
        kl_backend_available(b, NULL, 0))
      best = b;
  }
  return best;
}

static kl_status context_open(const char *device, kl_context **out) {
  if (!out) return kl__usage(KL_USAGE, "kl_context_open: out is NULL");
  *out = NULL;
  /* Only NULL asks every backend whether it is here: a named one loads
   * no other (the GPU module stays unloaded for "serial"). */
  kl__device_ref ref = {NULL, 0};
  if (device) {
    kl_status st = kl__device_parse(device, &ref);
    if (st != KL_OK) return st;
  } else {
    ref.backend = preferred();
  }
  if (!ref.backend)
    return kl__usage(KL_UNAVAILABLE, "no backend is available here");
  kl_context *ctx = malloc(sizeof *ctx);
  if (!ctx) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  kl_status st = kl__context_open(ref.backend, ref.index, ctx);
  if (st != KL_OK) {
    free(ctx);
    return st;
  }
  *out = ctx;
  return KL_OK;
}

kl_status kl_context_open(const char *device, kl_context **out) {
  return kl__done(context_open(device, out));
}

void kl_context_close(kl_context *ctx) {
  if (!ctx) return;
  kl__context_close(ctx);
  free(ctx);
}

static kl_status context_device(kl_context *ctx, kl_device_info *out) {
  if (!ctx || !ctx->backend)
    return kl__usage(KL_USAGE, "kl_context_device: no open context");
  kl_device_info full;
  kl__device_info(ctx->backend, &ctx->device, &full);
  return kl__copy_sized(out, &full, sizeof full, "kl_context_device");
}

kl_status kl_context_device(kl_context *ctx, kl_device_info *out) {
  return kl__done(context_device(ctx, out));
}

static kl_status adopt_stream(kl_context *ctx, void *stream) {
  if (!ctx || !ctx->backend)
    return kl__usage(KL_USAGE, "kl_context_adopt_stream: no open context");
  if (!ctx->backend->adopt_stream)
    return kl__usage(KL_UNAVAILABLE, "kl_context_adopt_stream: the %s "
                     "backend has no streams to adopt", ctx->backend->name);
  kl_status st = kl__enter(ctx);
  if (st != KL_OK) return st;
  st = ctx->backend->adopt_stream(ctx, stream);
  kl__leave(ctx);
  return st;
}

kl_status kl_context_adopt_stream(kl_context *ctx, void *stream) {
  return kl__done(adopt_stream(ctx, stream));
}
