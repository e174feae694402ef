/* CUB for the sources that use it (NAME-cub.cu, built only where the
 * library is found): NVIDIA's CUB and libcu++ in a CUDA build, hipCUB and
 * rocThrust through vendors/hip.h in a HIP build. */
#ifndef KL_GPU_CUB_H
#define KL_GPU_CUB_H

#define KL_GPU_WANT_CUB
#include "gpu.h"

#if defined(KL_HAVE_HIP)
#include "vendors/hip.h"
#else
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/type_traits>
#include <thrust/iterator/counting_iterator.h>
#endif

#endif
