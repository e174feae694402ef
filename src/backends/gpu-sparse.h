/* The GPU sparse library for the sources that use it (NAME-cusparse.cu,
 * built only where the library is found): cuSPARSE, or hipSPARSE through
 * vendors/hip.h. Its calls are checked as the runtime's are: the error
 * names the call, file and line. */
#ifndef KL_GPU_SPARSE_H
#define KL_GPU_SPARSE_H

#define KL_GPU_WANT_SPARSE
#include "gpu.h"

#if defined(KL_HAVE_HIP)
#include "vendors/hip.h"
#else
#include <cusparse.h>
#endif

#define KL_CUSPARSE_CHECK(call)                                               \
  do {                                                                        \
    cusparseStatus_t kl_sp_ = (call);                                         \
    if (kl_sp_ != CUSPARSE_STATUS_SUCCESS)                                    \
      return KL_FAIL(KL_DEVICE, "%s failed: %s", #call,                       \
                     cusparseGetErrorString(kl_sp_));                         \
  } while (0)

#endif
