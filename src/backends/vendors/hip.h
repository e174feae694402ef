/* The CUDA runtime and library names kladder's GPU sources use, mapped
 * onto HIP: add a name here when a source starts using it. Beside this
 * file only backends/gpu.h tells HIP from CUDA, where the hardware
 * differs (cp.async, the shared-memory opt-in). */
#ifndef KL_VENDORS_HIP_H
#define KL_VENDORS_HIP_H

#include <hip/hip_runtime.h>

#define KL_GPU "hip"
#define KL_GPU_SUMMARY "HIP on an AMD GPU or Hygon DCU"

#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrMaxThreadsPerMultiProcessor                                \
  hipDeviceAttributeMaxThreadsPerMultiProcessor
#define cudaDevAttrWarpSize hipDeviceAttributeWarpSize
#define cudaDeviceGetAttribute hipDeviceGetAttribute
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
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStream_t hipStream_t
#define cudaSuccess hipSuccess
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor                         \
  hipOccupancyMaxActiveBlocksPerMultiprocessor
#define cudaMemcpyToSymbolAsync hipMemcpyToSymbolAsync

/* Warp-level intrinsics: HIP of this vintage has the mask-less forms; a
 * wavefront executes in lockstep, so the mask has nothing to select. */
#define __shfl_down_sync(mask, var, delta) __shfl_down(var, delta)
#define __syncwarp(...) __builtin_amdgcn_wave_barrier()

#endif


/* The libraries' names, each section for the sources that ask for it
 * (backends/gpu-cub.h, gpu-blas.h, gpu-rand.h), in HIP builds that found
 * the library (CMakeLists.txt). Not compiled here: Debian has none of
 * them, so these sections wait for a ROCm machine. */
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
#define CUBLAS_STATUS_SUCCESS HIPBLAS_STATUS_SUCCESS
#define cublasCreate hipblasCreate
#define cublasDestroy hipblasDestroy
#define cublasDgemm_64 hipblasDgemm_64
#define cublasGetStatusString hipblasStatusToString
#define cublasHandle_t hipblasHandle_t
#define cublasSetMathMode hipblasSetMathMode
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
