/* Host memory, copies and timing, shared by the serial and OpenMP
 * backends: both run on ordinary host memory. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"

static double timer_started;

kl_status kl__host_alloc(void **ptr, size_t bytes) {
  /* 64-byte alignment keeps vector loads and cache lines aligned. */
  size_t rounded = (bytes + 63) / 64 * 64;
  void *p = NULL;
  if (rounded < bytes || posix_memalign(&p, 64, rounded ? rounded : 64) != 0)
    return KL_FAIL(KL_NO_MEMORY, "posix_memalign(%zu bytes) failed", bytes);
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
