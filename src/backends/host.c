/* Host memory, copies and timing, shared by the serial and OpenMP
 * backends: both run on ordinary host memory. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <threads.h>
#include <unistd.h>

#include "../core/internal.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* ---- large blocks, kept for reuse while a run is open -------------------
 * A run prepares the same buffers rung after rung (a problem's inputs,
 * outputs and its ceiling's), each a GiB or more at the default sizes.
 * Freed and asked for again, every one came back from the kernel as fresh
 * pages, faulted in and zeroed: half of a rung's time on a virtual machine
 * whose page faults are slow. While a run is open (kl__host_pool_open), a
 * released block of 2 MiB or more is kept, and a request gets the smallest
 * kept block that holds it, its pages already mapped (sizes differ by
 * workload, and a bound on the slack, half again the request, had the
 * default suite fault in 26 GB instead of 17 on a 2-core machine whose
 * pages come at 2 GB/s); its contents are stale, which no caller reads (inputs
 * are made, outputs and scratch poisoned). The kept blocks never raise
 * the memory the run holds past the most its live blocks ever held (or
 * the live ones and the request, where that is more): a request that no
 * kept block serves frees kept blocks, the largest first, until it fits
 * under that mark. The last close frees them all. The table is the
 * process's, under a lock: any thread may allocate. A sanitizer build
 * keeps nothing, so that a use after release is still caught and every
 * block is exactly its size. */
#define POOL_SLOTS 64
#if defined(__SANITIZE_ADDRESS__)
#define POOL_KEEPS 0
#else
#define POOL_KEEPS 1
#endif
typedef struct large_block {
  void *p;
  size_t bytes; /* as allocated, which a reuse may exceed */
  int kept;     /* released, waiting for a request it holds */
} large_block;
static large_block blocks[POOL_SLOTS];
static int pool_opens;
static size_t live_bytes, kept_bytes, live_most;
static mtx_t pool_lock;
static once_flag pool_once = ONCE_FLAG_INIT;
static int pool_lock_ok;

static void pool_init(void) {
  pool_lock_ok = mtx_init(&pool_lock, mtx_plain) == thrd_success;
}

/* Under the lock: kept block i freed. */
static void pool_drop(int i) {
  free(blocks[i].p);
  kept_bytes -= blocks[i].bytes;
  blocks[i] = (large_block){NULL, 0, 0};
}

void kl__host_pool_open(void) {
  call_once(&pool_once, pool_init);
  if (!pool_lock_ok) return;
  mtx_lock(&pool_lock);
  if (pool_opens++ == 0) live_most = live_bytes; /* the run's own mark */
  mtx_unlock(&pool_lock);
}

void kl__host_pool_close(void) {
  call_once(&pool_once, pool_init);
  if (!pool_lock_ok) return;
  mtx_lock(&pool_lock);
  if (pool_opens > 0 && --pool_opens == 0) {
    for (int i = 0; i < POOL_SLOTS; i++)
      if (blocks[i].p && blocks[i].kept) pool_drop(i);
  }
  mtx_unlock(&pool_lock);
}

size_t kl__host_pool_bytes(void) {
  call_once(&pool_once, pool_init);
  if (!pool_lock_ok) return 0;
  mtx_lock(&pool_lock);
  const size_t kept = kept_bytes;
  mtx_unlock(&pool_lock);
  return kept;
}

/* A kept block that holds `bytes` taken back, or NULL with kept blocks
 * freed, the largest first, until a new block of `bytes` fits under the
 * mark. */
static void *pool_take(size_t bytes) {
  mtx_lock(&pool_lock);
  int best = -1;
  for (int i = 0; i < POOL_SLOTS; i++)
    if (blocks[i].p && blocks[i].kept && blocks[i].bytes >= bytes &&
        (best < 0 || blocks[i].bytes < blocks[best].bytes))
      best = i;
  void *p = NULL;
  if (best >= 0) {
    blocks[best].kept = 0;
    kept_bytes -= blocks[best].bytes;
    live_bytes += blocks[best].bytes;
    p = blocks[best].p;
  } else {
    const size_t mark = live_most > live_bytes + bytes ? live_most
                                                        : live_bytes + bytes;
    while (kept_bytes > 0 && kept_bytes + live_bytes + bytes > mark) {
      int largest = -1;
      for (int i = 0; i < POOL_SLOTS; i++)
        if (blocks[i].p && blocks[i].kept &&
            (largest < 0 || blocks[i].bytes > blocks[largest].bytes))
          largest = i;
      pool_drop(largest);
    }
  }
  mtx_unlock(&pool_lock);
  return p;
}

/* A new large block entered in the table (untracked where it is full:
 * then it is freed on release, never kept). */
static void pool_track(void *p, size_t bytes) {
  mtx_lock(&pool_lock);
  for (int i = 0; i < POOL_SLOTS; i++)
    if (!blocks[i].p) {
      blocks[i] = (large_block){p, bytes, 0};
      live_bytes += bytes;
      if (live_bytes > live_most) live_most = live_bytes;
      break;
    }
  mtx_unlock(&pool_lock);
}

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
  call_once(&pool_once, pool_init);
  const int large = align == HUGE_PAGE && pool_lock_ok;
  void *p = large ? pool_take(bytes) : NULL;
  if (p) {
    *ptr = p;
    return KL_OK;
  }
  if (posix_memalign(&p, align, bytes ? bytes : 1) != 0)
    return KL_FAIL(KL_NO_MEMORY, "posix_memalign(%zu bytes) failed", bytes);
#ifdef MADV_HUGEPAGE
  if (align == HUGE_PAGE)
    (void)madvise(p, bytes / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
  if (large) pool_track(p, bytes);
  *ptr = p;
  return KL_OK;
}

void kl__host_release(void *ptr) {
  if (!ptr) return;
  call_once(&pool_once, pool_init);
  if (pool_lock_ok) {
    mtx_lock(&pool_lock);
    for (int i = 0; i < POOL_SLOTS; i++)
      if (blocks[i].p == ptr && !blocks[i].kept) {
        live_bytes -= blocks[i].bytes;
        if (pool_opens > 0 && POOL_KEEPS) {
          blocks[i].kept = 1;
          kept_bytes += blocks[i].bytes;
          ptr = NULL;
        } else {
          blocks[i] = (large_block){NULL, 0, 0};
        }
        break;
      }
    mtx_unlock(&pool_lock);
  }
  free(ptr);
}

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

/* ---- how far past its cache a host's quick sizes go --------------------
 * STREAM's rule, four times the last-level cache, assumes the process
 * owns that cache. A virtual machine is often shown its host's whole L3,
 * shared with the other guests: a 2-core one shown 260 MB read at one, two
 * and four times it alike (25.5, 25.1, 25.1 GB/s), and four times it made
 * its suite four times as slow for nothing. Such a cache is told by its
 * size a thread: current CPUs give a hardware thread 1 to 6 MB of L3,
 * stacked-cache parts up to 24 MB; past KL__CACHE_THREAD_MOST a thread,
 * the quick sizes go past the cache once. A fact of the machine, not a
 * measurement, so that one machine always gets the same quick sizes and
 * its runs compare row by row: a choice measured from read rates at one,
 * two and four times the cache came out 1, 2 and 4 on one host in three
 * runs. */
double kl__host_cache_multiple(int64_t cache, int threads, double wanted) {
  const int64_t most = (int64_t)(threads > 0 ? threads : 1) *
                       KL__CACHE_THREAD_MOST;
  return cache > most && wanted > 1 ? 1 : wanted;
}

int64_t kl__host_l2_bytes(void) {
  long bytes = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
  bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  return bytes > 0 ? bytes : 1 << 20; /* the smallest L2 of a current core */
}
