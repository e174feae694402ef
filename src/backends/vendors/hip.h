/* The CUDA runtime names kladder's GPU sources use, mapped onto HIP.
 * This is the only place HIP differs from CUDA: add a name here when a
 * source starts using it. */
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
