/* The GPU backend of libkladder.so: the module (libkladder-cuda.so, or
 * libkladder-hip.so) opened at its first use. kl__backend_gpu is listed
 * and named as the module's backend is, and each hook forwards to the
 * module's; its probe loads the module, once per process. Where the module
 * is missing, or dlopen refuses it (a vendor library it needs is not
 * installed), or it comes from another build, the backend is not here and
 * its probe says why in one line. module.h has the picture; CMakeLists.txt
 * builds this file into the shared library only. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "module.h"
#include "../../registry.h"

#ifndef KL_GPU_MODULE_FILE
#define KL_GPU_MODULE_FILE "libkladder-" KL_GPU_MODULE_BACKEND ".so"
#endif

static struct {
  once_flag once;
  const kl_backend *gpu; /* the module's backend; NULL: not loaded */
  char why[384];         /* why not: the module's path and the reason */
} module = {ONCE_FLAG_INIT, NULL, ""};

/* The folder of libkladder.so as it was loaded, with a trailing '/'; ""
 * where dladdr does not say (the module is then looked for as dlopen
 * looks for a bare name). */
static void library_dir(char *dir, size_t size) {
  Dl_info info;
  dir[0] = '\0';
  if (!dladdr((const void *)&module, &info) || !info.dli_fname)
    return;
  const char *slash = strrchr(info.dli_fname, '/');
  if (slash && (size_t)(slash - info.dli_fname) + 2 <= size)
    snprintf(dir, size, "%.*s/", (int)(slash - info.dli_fname),
             info.dli_fname);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void refuse(void *handle, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char reason[192];
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  snprintf(module.why, sizeof module.why, "module %.160s not loaded: %s", path,
           reason);
  for (kl__gpu_slot *const *s = kl__gpu_slots; *s; s++) (*s)->fn = NULL;
  if (handle) dlclose(handle);
}

static kl__gpu_fn entry_named(const kl__gpu_entry *e, const char *name) {
  for (; e && e->name; e++)
    if (strcmp(e->name, name) == 0) return e->fn;
  return NULL;
}

static void load(void) {
  char dir[4096];
  const char *env = getenv("KLADDER_MODULE_DIR");
  if (env && *env) snprintf(dir, sizeof dir, "%s/", env);
  else library_dir(dir, sizeof dir);
  char path[4096 + 64];
  snprintf(path, sizeof path, "%s%s", dir, KL_GPU_MODULE_FILE);
  (void)dlerror();
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    /* dlerror names the file that is missing: the module, or a library
     * it needs ("libcublas.so.13: cannot open shared object file"). */
    const char *err = dlerror();
    size_t len = strlen(path);
    if (err && strncmp(err, path, len) == 0 && err[len] == ':') err += len + 2;
    refuse(NULL, path, "%s", err ? err : "dlopen failed");
    return;
  }
  kl__gpu_module_fn get = (kl__gpu_module_fn)dlsym(handle, KL_GPU_MODULE_SYMBOL);
  const kl__gpu_module_info *m = get ? get() : NULL;
  const size_t sizes[] = KL_GPU_MODULE_SIZES;
  if (!m) {
    refuse(handle, path, "it has no %s", KL_GPU_MODULE_SYMBOL);
    return;
  }
  if (m->abi != KL_GPU_MODULE_ABI || m->model != KL_MODEL_VERSION ||
      !m->version || strcmp(m->version, KL_VERSION) != 0 ||
      memcmp(m->sizes, sizes, sizeof sizes) != 0 || !m->backend ||
      strcmp(m->backend->name, kl__backend_gpu.name) != 0 ||
      m->backend->host_memory != kl__backend_gpu.host_memory ||
      m->backend->preference != kl__backend_gpu.preference ||
      m->backend->memory_on_host) {
    refuse(handle, path, "it was built with another kladder (%s)",
           m->version ? m->version : "no version");
    return;
  }
  /* A module linked without module.map binds its names to libkladder.so's
   * (its backend would be this one, its entries these stubs). */
  if (m->backend == &kl__backend_gpu) {
    refuse(handle, path, "its symbols bind to libkladder.so's: linked "
           "without module.map");
    return;
  }
  for (kl__gpu_slot *const *s = kl__gpu_slots; *s; s++) {
    (*s)->fn = entry_named(m->entries, (*s)->name);
    if (!(*s)->fn) {
      refuse(handle, path, "it has no %s: built with another kladder",
             (*s)->name);
      return;
    }
  }
  /* The module's backend probes once, here, before any thread can ask
   * it: its probe keeps what it found without a lock of its own. */
  char info[256];
  (void)m->backend->probe(info, sizeof info);
  module.gpu = m->backend;
}

static const kl_backend *gpu(void) {
  call_once(&module.once, load);
  return module.gpu;
}

kl__gpu_fn kl__gpu_entry_of(const kl__gpu_slot *slot) {
  return gpu() ? slot->fn : NULL;
}

kl_status kl__gpu_unloaded(const char *name) {
  (void)gpu();
  return KL_FAIL(KL_UNAVAILABLE, "%s: backend %s is not here: %s", name,
                 KL_GPU_MODULE_BACKEND, module.why);
}

/* ---- the backend's hooks, forwarded ---------------------------------------- */

static int probe(char *info, size_t size) {
  const kl_backend *b = gpu();
  if (!b) {
    snprintf(info, size, "%s", module.why);
    return 0;
  }
  return b->probe(info, size);
}

static kl_status memory(int device, size_t *free_bytes, size_t *total_bytes) {
  const kl_backend *b = gpu();
  return b ? b->memory(device, free_bytes, total_bytes)
           : kl__gpu_unloaded("memory");
}

static kl_status open_context(kl_context *ctx) {
  const kl_backend *b = gpu();
  return b ? b->open(ctx) : kl__gpu_unloaded("open");
}

static void close_context(kl_context *ctx) {
  const kl_backend *b = gpu();
  if (b) b->close(ctx);
}

static kl_status alloc(kl_context *ctx, kl_placement where, void **ptr,
                       size_t bytes) {
  const kl_backend *b = gpu();
  return b ? b->alloc(ctx, where, ptr, bytes) : kl__gpu_unloaded("alloc");
}

static void release(kl_context *ctx, kl_placement where, void *ptr) {
  const kl_backend *b = gpu();
  if (b) b->release(ctx, where, ptr);
}

static kl_status copy(kl_context *ctx, int stream, void *dst, const void *src,
                      size_t bytes) {
  const kl_backend *b = gpu();
  return b ? b->copy(ctx, stream, dst, src, bytes) : kl__gpu_unloaded("copy");
}

static kl_status fill_bytes(kl_context *ctx, kl_placement where, void *dst,
                            int byte, size_t bytes) {
  const kl_backend *b = gpu();
  return b ? b->fill_bytes(ctx, where, dst, byte, bytes)
           : kl__gpu_unloaded("fill_bytes");
}

static kl_status module_sync(kl_context *ctx) {
  const kl_backend *b = gpu();
  return b ? b->sync(ctx) : kl__gpu_unloaded("sync");
}

static kl_status record(kl_context *ctx, int event, int stream) {
  const kl_backend *b = gpu();
  return b ? b->record(ctx, event, stream) : kl__gpu_unloaded("record");
}

static kl_status elapsed(kl_context *ctx, int from, int to, double *seconds) {
  const kl_backend *b = gpu();
  return b ? b->elapsed(ctx, from, to, seconds) : kl__gpu_unloaded("elapsed");
}

/* The optional hooks: what the core does where the module's backend has
 * none (model.h). */
static int device_count(void) {
  const kl_backend *b = gpu();
  return !b ? 0 : b->device_count ? b->device_count() : 1;
}

static kl_status describe(int device, kl_device *out) {
  const kl_backend *b = gpu();
  if (!b) return kl__gpu_unloaded("describe");
  if (b->describe) return b->describe(device, out);
  kl__host_device(out);
  return KL_OK;
}

static kl_status enter(kl_context *ctx) {
  const kl_backend *b = gpu();
  if (!b) return kl__gpu_unloaded("enter");
  return b->enter ? b->enter(ctx) : KL_OK;
}

static kl_status bus_id(kl_context *ctx, char *out, size_t size) {
  const kl_backend *b = gpu();
  if (!b) return kl__gpu_unloaded("bus_id");
  return b->bus_id ? b->bus_id(ctx, out, size)
                   : KL_FAIL(KL_UNAVAILABLE, "no PCI bus id");
}

static void range(kl_context *ctx, const char *name) {
  const kl_backend *b = gpu();
  if (b && b->range) b->range(ctx, name);
}

static kl_status launch(kl_context *ctx) {
  const kl_backend *b = gpu();
  if (!b) return kl__gpu_unloaded("launch");
  return b->launch ? b->launch(ctx)
                   : KL_FAIL(KL_UNAVAILABLE, "no empty launch");
}

static kl_status ahead(kl_context *ctx, void *buf, size_t bytes) {
  const kl_backend *b = gpu();
  if (!b) return kl__gpu_unloaded("ahead");
  return b->ahead ? b->ahead(ctx, buf, bytes)
                  : KL_FAIL(KL_UNAVAILABLE, "nothing to queue ahead");
}

static kl_status adopt_stream(kl_context *ctx, void *stream) {
  const kl_backend *b = gpu();
  if (!b) return kl__gpu_unloaded("adopt_stream");
  return b->adopt_stream ? b->adopt_stream(ctx, stream)
                         : KL_FAIL(KL_UNAVAILABLE, "no stream to adopt");
}

/* host_memory, preference and memory_on_host (none) are the module's
 * backend's (cuda.cu), which load() checks. */
const kl_backend kl__backend_gpu = {
    .name = KL_GPU_MODULE_BACKEND,
    .summary = KL_GPU_MODULE_SUMMARY,
    .host_memory = 0,
    .preference = 2,
    .probe = probe,
    .memory = memory,
    .open = open_context,
    .close = close_context,
    .alloc = alloc,
    .release = release,
    .copy = copy,
    .fill_bytes = fill_bytes,
    .sync = module_sync,
    .record = record,
    .elapsed = elapsed,
    .device_count = device_count,
    .describe = describe,
    .enter = enter,
    .bus_id = bus_id,
    .range = range,
    .launch = launch,
    .adopt_stream = adopt_stream,
    .ahead = ahead,
};
