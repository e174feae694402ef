/* The CUDA runtime and library names kladder's GPU sources use, mapped
 * onto HIP: add a name here when a source starts using it. Beside this
 * file only backends/gpu.h tells HIP from CUDA, where the hardware
 * differs (cp.async, the shared-memory opt-in). */
#ifndef KL_VENDORS_HIP_H
#define KL_VENDORS_HIP_H

#include <hip/hip_runtime.h>

#define KL_GPU "hip"
#define KL_GPU_SUMMARY "HIP on an AMD GPU or Hygon DCU"
/* The driver's user-space library, which the runtime needs. */
#define KL_GPU_DRIVER "libhsa-runtime64.so.1"
#define cudaErrorInsufficientDriver hipErrorInsufficientDriver

#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrMaxThreadsPerMultiProcessor                                \
  hipDeviceAttributeMaxThreadsPerMultiProcessor
#define cudaDevAttrWarpSize hipDeviceAttributeWarpSize
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDeviceGetPCIBusId hipDeviceGetPCIBusId
#define cudaDeviceProp hipDeviceProp_t
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaDriverGetVersion hipDriverGetVersion
#define cudaError_t hipError_t
#define cudaErrorInvalidValue hipErrorInvalidValue
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEvent_t hipEvent_t
#define cudaFree hipFree
#define cudaFreeHost hipHostFree
#define cudaMallocHost hipHostMalloc
#define cudaHostRegister hipHostRegister
#define cudaHostRegisterDefault hipHostRegisterDefault
#define cudaHostUnregister hipHostUnregister
#define cudaMemcpyDefault hipMemcpyDefault
#define cudaStreamDestroy hipStreamDestroy
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaMalloc hipMalloc
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemsetAsync hipMemsetAsync
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaSetDevice hipSetDevice
#define cudaGetDevice hipGetDevice
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamCreateWithPriority hipStreamCreateWithPriority
#define cudaDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStream_t hipStream_t
#define cudaSuccess hipSuccess
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor                         \
  hipOccupancyMaxActiveBlocksPerMultiprocessor
#define cudaMemcpyToSymbolAsync hipMemcpyToSymbolAsync
#define cudaGraphDestroy hipGraphDestroy
#define cudaGraphExecDestroy hipGraphExecDestroy
#define cudaGraphExec_t hipGraphExec_t
#define cudaGraphInstantiateWithFlags hipGraphInstantiateWithFlags
#define cudaGraphLaunch hipGraphLaunch
#define cudaLaunchKernel hipLaunchKernel
#define cudaGraph_t hipGraph_t
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaStreamIsCapturing hipStreamIsCapturing
#define cudaStreamCaptureStatus hipStreamCaptureStatus
#define cudaStreamCaptureStatusActive hipStreamCaptureStatusActive
#define cudaStreamCaptureStatusNone hipStreamCaptureStatusNone
#define cudaStreamCreate hipStreamCreate
#define cudaStreamWaitEvent hipStreamWaitEvent
#define cudaEventDisableTiming hipEventDisableTiming
#define cudaEventCreateWithFlags hipEventCreateWithFlags

/* Warp-level intrinsics: HIP of this vintage has the mask-less forms; a
 * wavefront executes in lockstep, so the mask has nothing to select. */
#define __shfl_down_sync(mask, var, delta) __shfl_down(var, delta)
#define __shfl_up_sync(mask, var, delta) __shfl_up(var, delta)
#define __shfl_xor_sync(mask, var, lane_mask) __shfl_xor(var, lane_mask)
#define __syncwarp(...) __builtin_amdgcn_wave_barrier()

#endif


/* The libraries' names, each section for the sources that ask for it
 * (backends/gpu-cub.h, gpu-blas.h, gpu-rand.h, gpu-sparse.h, gpu-nccl.h),
 * in HIP builds that found the library (CMakeLists.txt). Not compiled
 * here: Debian has none of them, so these sections wait for a ROCm
 * machine. */
#if defined(KL_GPU_WANT_CUB) && !defined(KL_VENDORS_HIP_CUB)
#define KL_VENDORS_HIP_CUB
#include <functional>
#include <hipcub/hipcub.hpp>
#include <thrust/iterator/counting_iterator.h>
#include <type_traits>
namespace cub = hipcub;
namespace cuda {
namespace std {
template <class T = void> using plus = ::std::plus<T>;
template <class T>
inline constexpr bool is_floating_point_v = ::std::is_floating_point_v<T>;
} // namespace std
template <class T = void> struct minimum {
  template <class A> __host__ __device__ A operator()(A a, A b) const {
    return b < a ? b : a;
  }
};
template <class T = void> struct maximum {
  template <class A> __host__ __device__ A operator()(A a, A b) const {
    return a < b ? b : a;
  }
};
} // namespace cuda
#endif

#if defined(KL_GPU_WANT_BLAS) && !defined(KL_VENDORS_HIP_BLAS)
#define KL_VENDORS_HIP_BLAS
#include <hipblas/hipblas.h>
#define CUBLAS_DEFAULT_MATH HIPBLAS_DEFAULT_MATH
#define CUBLAS_OP_N HIPBLAS_OP_N
#define CUBLAS_POINTER_MODE_HOST HIPBLAS_POINTER_MODE_HOST
#define CUBLAS_STATUS_SUCCESS HIPBLAS_STATUS_SUCCESS
#define cublasCreate hipblasCreate
#define cublasDaxpy hipblasDaxpy
#define cublasDdot hipblasDdot
#define cublasDestroy hipblasDestroy
#define cublasDgemm_64 hipblasDgemm_64
#define cublasDscal hipblasDscal
#define cublasGetStatusString hipblasStatusToString
#define cublasHandle_t hipblasHandle_t
#define cublasSetMathMode hipblasSetMathMode
#define cublasSetPointerMode hipblasSetPointerMode
#define cublasSetStream hipblasSetStream
#define cublasSgemm_64 hipblasSgemm_64
#define cublasStatus_t hipblasStatus_t
#endif

#if defined(KL_GPU_WANT_RAND) && !defined(KL_VENDORS_HIP_RAND)
#define KL_VENDORS_HIP_RAND
#include <hiprand/hiprand.h>
#define CURAND_RNG_PSEUDO_PHILOX4_32_10 HIPRAND_RNG_PSEUDO_PHILOX4_32_10
#define CURAND_STATUS_SUCCESS HIPRAND_STATUS_SUCCESS
#define curandCreateGenerator hiprandCreateGenerator
#define curandDestroyGenerator hiprandDestroyGenerator
#define curandGenerateUniform hiprandGenerateUniform
#define curandGenerateUniformDouble hiprandGenerateUniformDouble
#define curandGenerator_t hiprandGenerator_t
#define curandSetPseudoRandomGeneratorSeed hiprandSetPseudoRandomGeneratorSeed
#define curandSetStream hiprandSetStream
#define curandStatus_t hiprandStatus_t
#endif

#if defined(KL_GPU_WANT_SPARSE) && !defined(KL_VENDORS_HIP_SPARSE)
#define KL_VENDORS_HIP_SPARSE
#include <hipsparse/hipsparse.h>
#define CUDA_R_64F HIP_R_64F
#define CUSPARSE_INDEX_32I HIPSPARSE_INDEX_32I
#define CUSPARSE_INDEX_64I HIPSPARSE_INDEX_64I
#define CUSPARSE_INDEX_BASE_ZERO HIPSPARSE_INDEX_BASE_ZERO
#define CUSPARSE_OPERATION_NON_TRANSPOSE HIPSPARSE_OPERATION_NON_TRANSPOSE
#define CUSPARSE_SPMV_CSR_ALG1 HIPSPARSE_SPMV_CSR_ALG1
#define CUSPARSE_STATUS_NOT_SUPPORTED HIPSPARSE_STATUS_NOT_SUPPORTED
#define CUSPARSE_STATUS_SUCCESS HIPSPARSE_STATUS_SUCCESS
#define cusparseCreate hipsparseCreate
#define cusparseCreateCsr hipsparseCreateCsr
#define cusparseCreateDnVec hipsparseCreateDnVec
#define cusparseDestroy hipsparseDestroy
#define cusparseDestroyDnVec hipsparseDestroyDnVec
#define cusparseDestroySpMat hipsparseDestroySpMat
#define cusparseDnVecDescr_t hipsparseDnVecDescr_t
#define cusparseGetErrorString hipsparseGetErrorString
#define cusparseHandle_t hipsparseHandle_t
#define cusparseSetStream hipsparseSetStream
#define cusparseSpMatDescr_t hipsparseSpMatDescr_t
#define cusparseSpMV hipsparseSpMV
#define cusparseSpMV_bufferSize hipsparseSpMV_bufferSize
#define cusparseSpMV_preprocess hipsparseSpMV_preprocess
#define cusparseStatus_t hipsparseStatus_t
#endif

/* RCCL: NCCL's names and types, the same in its header; the HIP stream
 * is the CUDA one by the runtime's mapping above. */
#if defined(KL_GPU_WANT_NCCL) && !defined(KL_VENDORS_HIP_NCCL)
#define KL_VENDORS_HIP_NCCL
#include <rccl/rccl.h>
#endif
