/* The GPU backend of a build without a GPU compiler: listed, so that
 * `kladder list` can say why it is missing. CMakeLists.txt compiles this
 * file instead of cuda.cu when no CUDA or HIP compiler was found. */
#include <stdio.h>

#include "../../core/internal.h"

static int not_built(char *info, size_t size) {
  snprintf(info, size, "not built: no CUDA compiler was found at build time");
  return 0;
}

const kl_backend kl__backend_gpu = {.name = "cuda",
                                    .summary = "CUDA on an NVIDIA GPU",
                                    .probe = not_built};
