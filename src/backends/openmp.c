#include <stdio.h>

#include "../core/internal.h"

static int probe(char *info, size_t size) {
#ifdef _OPENMP
  snprintf(info, size, "OpenMP %d, %d threads", _OPENMP, kl__omp_threads());
  return 1;
#else
  snprintf(info, size, "not built: no OpenMP compiler support found");
  return 0;
#endif
}

const kl_backend kl__backend_openmp = {
    .name = "openmp",
    .summary = "OpenMP threads on every host core",
    .host_memory = 1,
    .probe = probe,
    .alloc = kl__host_alloc,
    .release = kl__host_release,
    .upload = kl__host_copy,
    .download = kl__host_copy,
    .fill_bytes = kl__host_fill_bytes,
    .sync = kl__host_sync,
    .memory = kl__host_memory,
    .timer_start = kl__host_timer_start,
    .timer_stop = kl__host_timer_stop,
    .stream = kl__host_stream,
};
