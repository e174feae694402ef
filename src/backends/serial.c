#include <stdio.h>

#include "../core/internal.h"

static int probe(char *info, size_t size) {
  snprintf(info, size, "one host thread");
  return 1;
}

const kl_backend kl__backend_serial =
    KL_HOST_BACKEND("serial", "plain C11 on one host core", 0, probe);
