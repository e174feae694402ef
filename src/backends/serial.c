#include <stdio.h>

#include "../core/internal.h"

static int probe(char *info, size_t size) {
  snprintf(info, size, "one host thread");
  return 1;
}

const kl_backend kl__backend_serial = {
    .name = "serial",
    .summary = "plain C11 on one host core",
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
