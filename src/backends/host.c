/* Host memory, copies and timing, shared by the serial and OpenMP
 * backends: both run on ordinary host memory. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../core/internal.h"

static double timer_started;

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

kl_status kl__host_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) memcpy(dst, src, bytes);
  return KL_OK;
}

kl_status kl__host_fill_bytes(void *dst, int byte, size_t bytes) {
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

kl_status kl__host_sync(void) { return KL_OK; }

kl_status kl__host_timer_start(void) {
  timer_started = kl__now();
  return KL_OK;
}

kl_status kl__host_timer_stop(double *seconds) {
  *seconds = kl__now() - timer_started;
  return KL_OK;
}

void *kl__host_stream(void) { return NULL; }
