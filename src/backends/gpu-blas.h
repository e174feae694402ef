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

/* Its calls are checked as the runtime's are: the error names the call,
 * file and line. */
#define KL_CUBLAS_CHECK(call)                                                 \
  do {                                                                        \
    cublasStatus_t kl_st_ = (call);                                           \
    if (kl_st_ != CUBLAS_STATUS_SUCCESS)                                      \
      return KL_FAIL(KL_DEVICE, "%s failed: %s", #call,                       \
                     cublasGetStatusString(kl_st_));                          \
  } while (0)

#endif
