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

/* A parallel region that does next to nothing: the fork and join every
 * OpenMP rung's region pays. Each thread counts itself, so that the
 * compiler cannot drop the region as empty. */
static kl_status launch(kl_context *ctx) {
  (void)ctx;
  int threads = 0;
#pragma omp parallel
  {
#pragma omp atomic
    threads++;
  }
  return threads > 0 ? KL_OK : KL_FAIL(KL_DEVICE, "a parallel region ran on "
                                       "no thread");
}

const kl_backend kl__backend_openmp =
    KL_HOST_BACKEND("openmp", "OpenMP threads on every host core", 1,
                    probe, .launch = launch);
