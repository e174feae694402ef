/* The OpenACC backend: the device the OpenACC runtime chose (an NVIDIA GPU
 * where GCC was built with its nvptx offload compiler and a driver is
 * there), or the host, where the runtime runs every compute region itself
 * (ACC_DEVICE_TYPE=host, or no device found).
 *
 * Device buffers come from acc_malloc, and rungs name them in deviceptr
 * clauses; the harness's uploads, downloads and fills go through
 * acc_memcpy_to_device, acc_memcpy_from_device and compute regions. On the
 * host acc_malloc is malloc and the memory is the host's
 * (memory_on_host), so the harness fills and checks it in place. OpenACC
 * has no events: a record waits for every queue and reads the host clock.
 * CMakeLists.txt compiles this file with the OpenACC flags, and only it
 * and the rungs' -acc.c files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../registry.h"

#ifndef _OPENACC

static int not_built(char *info, size_t size) {
  snprintf(info, size, "not built: the C compiler takes no -fopenacc");
  return 0;
}

const kl_backend kl__backend_openacc = {
    .name = "openacc",
    .summary = "OpenACC directives (GCC): an NVIDIA GPU, or the host",
    .probe = not_built};

#else

#include <openacc.h>
#include <threads.h>

#ifndef KL_OPENACC_TARGET
#define KL_OPENACC_TARGET "none"
#endif

static struct {
  once_flag probed;
  acc_device_t type;
  char info[256];
} runtime = {ONCE_FLAG_INIT, acc_device_none, ""};

static void probe_once(void) {
  /* GCC's nvptx plugin adopts the CUDA context current on the thread at
   * acc_init, and creates its own where there is none. A GPU backend
   * probed after it (the CUDA runtime makes its primary context current)
   * would leave the OpenACC kernels launching in a context that does not
   * hold them: libgomp stops the process with "cuLaunchKernel error:
   * invalid resource handle". So the backends listed before this one are
   * probed first, and one context serves them all. */
  for (size_t i = 0; i < kl_backend_count(); i++) {
    const kl_backend *b = kl_backend_at(i);
    char info[256];
    if (b == &kl__backend_openacc) break;
    (void)kl_backend_available(b, info, sizeof info);
  }
  /* acc_device_default honours ACC_DEVICE_TYPE and falls back to the host
   * where no device answers. */
  acc_init(acc_device_default);
  runtime.type = acc_get_device_type();
  const char *forced = getenv("ACC_DEVICE_TYPE");
  if (runtime.type == acc_device_host) {
    snprintf(runtime.info, sizeof runtime.info,
             "host, one thread per region (%s; offload built: %s)",
             forced && *forced ? "ACC_DEVICE_TYPE set"
                               : "no OpenACC device found",
             KL_OPENACC_TARGET);
    return;
  }
  const int number = acc_get_device_num(runtime.type);
  const char *name =
      acc_get_property_string(number, runtime.type, acc_property_name);
  const size_t memory =
      acc_get_property(number, runtime.type, acc_property_memory);
  const char *driver =
      acc_get_property_string(number, runtime.type, acc_property_driver);
  snprintf(runtime.info, sizeof runtime.info,
           "%.100s (%.1f GiB, offload %s) | OpenACC %d, driver %.40s",
           name ? name : "unnamed device", (double)memory / (1u << 30),
           KL_OPENACC_TARGET, _OPENACC, driver ? driver : "unknown");
}

/* Once per process, whichever thread asks first: libgomp stops the
 * process ("device already active") where two threads call acc_init at
 * once. */
static void probe_first(void) { call_once(&runtime.probed, probe_once); }

static int probe(char *info, size_t size) {
  probe_first();
  snprintf(info, size, "%s", runtime.info);
  return 1;
}

static int memory_on_host(void) {
  probe_first();
  return runtime.type == acc_device_host;
}

static int left_out(char *why, size_t size) {
  if (!memory_on_host()) return 0;
  snprintf(why, size, "openacc is not in a run that names no backend: with "
           "no OpenACC device it runs every region on one host thread (-b "
           "openacc runs it)");
  return 1;
}

/* The runtime's device, or the host where it runs every region there. */
static kl_status describe(int device, kl_device *out) {
  (void)device;
  if (memory_on_host()) {
    kl__host_device(out);
    return KL_OK;
  }
  memset(out, 0, sizeof *out);
  const int number = acc_get_device_num(runtime.type);
  const char *name =
      acc_get_property_string(number, runtime.type, acc_property_name);
  snprintf(out->name, sizeof out->name, "%s", name ? name : "OpenACC device");
  out->memory_bytes =
      acc_get_property(number, runtime.type, acc_property_memory);
  return KL_OK;
}

static kl_status memory(int device, size_t *free_bytes, size_t *total_bytes) {
  if (memory_on_host()) return kl__host_memory(device, free_bytes, total_bytes);
  const int number = acc_get_device_num(runtime.type);
  *total_bytes = acc_get_property(number, runtime.type, acc_property_memory);
  *free_bytes =
      acc_get_property(number, runtime.type, acc_property_free_memory);
  if (*total_bytes == 0)
    return KL_FAIL(KL_DEVICE,
                   "the OpenACC runtime reports no device memory");
  return KL_OK;
}

/* The device buffers a context holds, so that a copy knows its
 * direction (OpenACC copies name it; acc_malloc'd memory is not mapped,
 * so acc_is_present cannot tell). */
typedef struct allocation {
  const char *start;
  size_t bytes;
} allocation;

typedef struct acc_context {
  double marks[KL_MAX_EVENTS];
  allocation *held;
  size_t held_count, held_capacity;
} acc_context;

static kl_status open_context(kl_context *ctx) {
  acc_context *c = calloc(1, sizeof *c);
  if (!c) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  ctx->impl = c;
  ctx->stream_count = 1; /* the synchronous queue */
  return describe(ctx->device.index, &ctx->device);
}

static void close_context(kl_context *ctx) {
  acc_context *c = ctx->impl;
  if (c) free(c->held);
  free(c);
  ctx->impl = NULL;
}

static int on_device(const acc_context *c, const void *p) {
  const char *q = p;
  for (size_t i = 0; i < c->held_count; i++)
    if (q >= c->held[i].start && q < c->held[i].start + c->held[i].bytes)
      return 1;
  return 0;
}

static kl_status alloc(kl_context *ctx, kl_placement where, void **ptr,
                       size_t bytes) {
  if (where != KL_MEM_DEVICE || memory_on_host())
    return kl__host_alloc(ptr, bytes);
  acc_context *c = ctx->impl;
  if (c->held_count == c->held_capacity) {
    size_t capacity = c->held_capacity ? 2 * c->held_capacity : 16;
    allocation *more = realloc(c->held, capacity * sizeof *more);
    if (!more) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
    c->held = more;
    c->held_capacity = capacity;
  }
  void *p = acc_malloc(bytes ? bytes : 1);
  if (!p)
    return KL_FAIL(KL_NO_MEMORY, "acc_malloc(%zu bytes) failed", bytes);
  c->held[c->held_count++] = (allocation){p, bytes ? bytes : 1};
  *ptr = p;
  return KL_OK;
}

static void release(kl_context *ctx, kl_placement where, void *ptr) {
  if (where != KL_MEM_DEVICE || memory_on_host()) {
    kl__host_release(ptr);
    return;
  }
  acc_context *c = ctx->impl;
  for (size_t i = 0; i < c->held_count; i++)
    if (c->held[i].start == ptr) {
      c->held[i] = c->held[--c->held_count];
      break;
    }
  acc_free(ptr);
}

/* Device to device, and fills: compute regions over device pointers,
 * eight bytes at a time where the addresses allow it. */
static void device_copy(void *dst, const void *src, size_t bytes) {
  size_t words = ((uintptr_t)dst | (uintptr_t)src) % 8 ? 0 : bytes / 8;
  uint64_t *dw = dst;
  const uint64_t *sw = src;
#pragma acc parallel loop deviceptr(dw, sw)
  for (size_t i = 0; i < words; i++) dw[i] = sw[i];
  unsigned char *db = dst;
  const unsigned char *sb = src;
#pragma acc parallel loop deviceptr(db, sb)
  for (size_t i = 8 * words; i < bytes; i++) db[i] = sb[i];
}

static kl_status copy(kl_context *ctx, int stream, void *dst, const void *src,
                      size_t bytes) {
  (void)stream;
  if (!bytes) return KL_OK;
  const acc_context *c = ctx->impl;
  const int to_device = on_device(c, dst), from_device = on_device(c, src);
  if (to_device && from_device)
    device_copy(dst, src, bytes);
  else if (to_device)
    acc_memcpy_to_device(dst, (void *)src, bytes);
  else if (from_device)
    acc_memcpy_from_device(dst, (void *)src, bytes);
  else
    memcpy(dst, src, bytes);
  return KL_OK;
}

static kl_status fill_bytes(kl_context *ctx, kl_placement where, void *dst,
                            int byte, size_t bytes) {
  if (where != KL_MEM_DEVICE || memory_on_host())
    return kl__host_fill_bytes(ctx, where, dst, byte, bytes);
  const uint64_t pattern = 0x0101010101010101u * (unsigned char)byte;
  size_t words = (uintptr_t)dst % 8 ? 0 : bytes / 8;
  uint64_t *dw = dst;
#pragma acc parallel loop deviceptr(dw)
  for (size_t i = 0; i < words; i++) dw[i] = pattern;
  unsigned char *db = dst;
#pragma acc parallel loop deviceptr(db)
  for (size_t i = 8 * words; i < bytes; i++) db[i] = (unsigned char)byte;
  return KL_OK;
}

static kl_status sync(kl_context *ctx) {
  (void)ctx;
  acc_wait_all();
  return KL_OK;
}

/* The launch floor: an empty compute region of one gang, no data. */
static kl_status launch(kl_context *ctx) {
  (void)ctx;
#pragma acc parallel num_gangs(1)
  {
  }
  return KL_OK;
}

static kl_status record(kl_context *ctx, int event, int stream) {
  (void)stream;
  acc_wait_all();
  return kl__clock_record(((acc_context *)ctx->impl)->marks, event);
}

static kl_status elapsed(kl_context *ctx, int from, int to,
                         double *seconds) {
  const acc_context *c = ctx->impl;
  return kl__clock_elapsed(c->marks, from, to, seconds);
}

const kl_backend kl__backend_openacc = {
    .name = "openacc",
    .summary = "OpenACC directives (GCC): an NVIDIA GPU, or the host",
    /* Below every other: the library's backend only where named. */
    .preference = -1,
    .probe = probe,
    .memory = memory,
    .open = open_context,
    .close = close_context,
    .alloc = alloc,
    .release = release,
    .copy = copy,
    .fill_bytes = fill_bytes,
    .sync = sync,
    .record = record,
    .elapsed = elapsed,
    .describe = describe,
    .memory_on_host = memory_on_host,
    .left_out = left_out,
    .launch = launch,
};

#endif
