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

const kl_backend kl__backend_openmp =
    KL_HOST_BACKEND("openmp", "OpenMP threads on every host core", 1,
                    probe);
