/* The GPU random generator for the sources that use it (NAME-curand.cu,
 * built only where the library is found): cuRAND, or hipRAND through
 * vendors/hip.h. */
#ifndef KL_GPU_RAND_H
#define KL_GPU_RAND_H

#define KL_GPU_WANT_RAND
#include "gpu.h"

#if defined(KL_HAVE_HIP)
#include "vendors/hip.h"
#else
#include <curand.h>
#endif

#endif
