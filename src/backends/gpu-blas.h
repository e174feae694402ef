/* The GPU BLAS for the sources that use it (NAME-cublas.cu, built only
 * where the library is found): cuBLAS, or hipBLAS through vendors/hip.h. */
#ifndef KL_GPU_BLAS_H
#define KL_GPU_BLAS_H

#define KL_GPU_WANT_BLAS
#include "gpu.h"

#if defined(KL_HAVE_HIP)
#include "vendors/hip.h"
#else
#include <cublas_v2.h>
#endif

#endif
