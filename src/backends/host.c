/* Host memory, copies and timing, shared by the serial and OpenMP
 * backends: both run on ordinary host memory. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/internal.h"

#define HUGE_PAGE ((size_t)2 << 20)

kl_status kl__host_alloc(void **ptr, size_t bytes) {
  /* Cache-line alignment for vector loads; large buffers on 2 MiB
   * boundaries and, where the kernel hands out transparent huge pages only
   * on request, asking for them: streaming a GiB through 4 KiB pages costs
   * a TLB miss every 4 KiB and made bandwidth figures swing run to run.
   * The size is exactly what was asked (posix_memalign takes any size), not
   * rounded up to the alignment: in a sanitizer build a rung that reads or
   * writes one element past its buffer then lands in ASan's redzone
   * instead of in slack that no one owns. Only the whole huge pages inside
   * the buffer are advised, since the tail is not ours. */
  size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
  void *p = NULL;
  if (posix_memalign(&p, align, bytes ? bytes : 1) != 0)
    return KL_FAIL(KL_NO_MEMORY, "posix_memalign(%zu bytes) failed", bytes);
#ifdef MADV_HUGEPAGE
  if (align == HUGE_PAGE)
    (void)madvise(p, bytes / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
  *ptr = p;
  return KL_OK;
}

void kl__host_release(void *ptr) { free(ptr); }

/* A host context: the clock readings of its events. */
typedef struct host_context {
  double marks[KL_MAX_EVENTS];
} host_context;

void kl__host_device(kl_device *d) {
  kl_machine m;
  kl__host_describe(&m);
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", m.cpu);
  size_t free_bytes = 0, total = 0;
  if (kl__host_memory(0, &free_bytes, &total) == KL_OK) d->memory_bytes = total;
  d->compute_units = m.cpu_threads > 0 ? m.cpu_threads : 1;
  d->max_threads_per_unit = 1;
  d->lanes = 1;
  d->l2_bytes = kl__host_l2_bytes();
  d->cache_bytes = kl__host_cache_bytes();
}

kl_status kl__host_open(kl_context *ctx) {
  host_context *h = calloc(1, sizeof *h);
  if (!h) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  ctx->impl = h;
  ctx->stream_count = 1; /* one stream, NULL: the calling thread */
  kl__host_device(&ctx->device);
  return KL_OK;
}

void kl__host_close(kl_context *ctx) {
  free(ctx->impl);
  ctx->impl = NULL;
}

/* Device, pinned and pageable memory are all host memory here. */
kl_status kl__host_ctx_alloc(kl_context *ctx, kl_placement where, void **ptr,
                             size_t bytes) {
  (void)ctx, (void)where;
  return kl__host_alloc(ptr, bytes);
}

void kl__host_ctx_release(kl_context *ctx, kl_placement where, void *ptr) {
  (void)ctx, (void)where;
  kl__host_release(ptr);
}

kl_status kl__host_copy(kl_context *ctx, int stream, void *dst,
                        const void *src, size_t bytes) {
  (void)ctx, (void)stream;
  if (bytes) memcpy(dst, src, bytes);
  return KL_OK;
}

kl_status kl__host_fill_bytes(kl_context *ctx, kl_placement where,
                              void *dst, int byte, size_t bytes) {
  (void)ctx, (void)where;
  /* In parallel chunks, so that OpenMP threads first-touch the pages they
   * will later work on. */
  unsigned char *d = dst;
  int64_t chunks = (int64_t)((bytes + (1u << 20) - 1) >> 20);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; c++) {
    size_t begin = (size_t)c << 20;
    size_t len = bytes - begin < (1u << 20) ? bytes - begin : (1u << 20);
    memset(d + begin, byte, len);
  }
  return KL_OK;
}

kl_status kl__host_sync(kl_context *ctx) {
  (void)ctx;
  return KL_OK;
}

kl_status kl__clock_record(double marks[KL_MAX_EVENTS], int event) {
  if (event < 0 || event >= KL_MAX_EVENTS)
    return KL_FAIL(KL_USAGE, "event %d is not below %d", event, KL_MAX_EVENTS);
  marks[event] = kl__now();
  return KL_OK;
}

kl_status kl__clock_elapsed(const double marks[KL_MAX_EVENTS], int from,
                            int to, double *seconds) {
  if (from < 0 || to < 0 || from >= KL_MAX_EVENTS || to >= KL_MAX_EVENTS)
    return KL_FAIL(KL_USAGE, "events %d and %d are not below %d", from, to,
                   KL_MAX_EVENTS);
  *seconds = marks[to] - marks[from];
  return KL_OK;
}

kl_status kl__host_record(kl_context *ctx, int event, int stream) {
  (void)stream;
  return kl__clock_record(((host_context *)ctx->impl)->marks, event);
}

kl_status kl__host_elapsed(kl_context *ctx, int from, int to,
                           double *seconds) {
  const host_context *h = ctx->impl;
  return kl__clock_elapsed(h->marks, from, to, seconds);
}

int64_t kl__host_cache_bytes(void) {
  long bytes = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
  bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  return bytes > 0 ? bytes : kl__host_l2_bytes();
}

int64_t kl__host_l2_bytes(void) {
  long bytes = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
  bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  return bytes > 0 ? bytes : 1 << 20; /* the smallest L2 of a current core */
}
