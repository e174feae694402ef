/* The one include of every GPU source (.cu). The sources are written
 * against the CUDA runtime API; a HIP build maps those names onto HIP
 * through vendors/hip.h, so the same files serve NVIDIA and AMD GPUs and
 * Hygon DCUs. Nothing here may assume a 32-lane warp: use warpSize. */
#ifndef KL_GPU_H
#define KL_GPU_H

#if defined(KL_HAVE_HIP)
#include "vendors/hip.h"
#else
#include <cuda_runtime.h>
#endif

#include "../core/internal.h"

/* The backend's name and summary; vendors/hip.h names the HIP build's. */
#ifndef KL_GPU
#define KL_GPU "cuda"
#define KL_GPU_SUMMARY "CUDA on an NVIDIA GPU"
#endif

/* Every runtime call is checked; the error names the call, file and line. */
#define KL_GPU_CHECK(call)                                                    \
  do {                                                                        \
    cudaError_t kl_err_ = (call);                                             \
    if (kl_err_ != cudaSuccess)                                               \
      return KL_FAIL(KL_DEVICE, "%s failed: %s", #call,                       \
                     cudaGetErrorString(kl_err_));                            \
  } while (0)

/* Every launch is checked for configuration errors at once; faults during
 * execution surface at the next synchronizing call, which is checked too. */
#define KL_GPU_CHECK_LAUNCH(kernel)                                           \
  do {                                                                        \
    cudaError_t kl_err_ = cudaGetLastError();                                 \
    if (kl_err_ != cudaSuccess)                                               \
      return KL_FAIL(KL_DEVICE, "launch of %s failed: %s", #kernel,           \
                     cudaGetErrorString(kl_err_));                            \
  } while (0)

#ifdef __cplusplus
extern "C" {
#endif
/* Properties of the device in use, read once by the backend's probe. */
int kl__gpu_sm_count(void);
int kl__gpu_max_threads_per_sm(void);
int kl__gpu_warp_size(void); /* 32 on NVIDIA, 64 on AMD GPUs and DCUs */
#ifdef __cplusplus
}
#endif

/* A load for data read exactly once: evict-first, so that a stream of it
 * does not push out what is reused. HIP has no such hint here. */
template <typename V>
static __device__ __forceinline__ V kl_load_streaming(const V *p) {
#if defined(KL_HAVE_HIP)
  return *p;
#else
  return __ldcs(p);
#endif
}

/* Blocks for n work items of per_block each, at most KL_GPU_MAX_BLOCKS:
 * HIP refuses grids of more than 2^32 work-items, so a grid stays within
 * 2^21 blocks of up to 1024 threads. Kernels that take one item per thread
 * are launched in chunks of at most that many blocks (KL_GPU_CHUNKS);
 * others stride by the grid. */
#define KL_GPU_MAX_BLOCKS (1 << 21)

static inline unsigned kl__gpu_blocks(int64_t n, int64_t per_block) {
  int64_t blocks = (n + per_block - 1) / per_block;
  if (blocks < 1) blocks = 1;
  if (blocks > KL_GPU_MAX_BLOCKS) blocks = KL_GPU_MAX_BLOCKS;
  return (unsigned)blocks;
}

/* Loop over [0, n) in chunks of at most per_block * KL_GPU_MAX_BLOCKS
 * items: the body sees `offset` and `count`. One chunk below 2^29 items at
 * 256 per block, so the common case is a single launch. */
#define KL_GPU_CHUNKS(n, per_block, offset, count)                            \
  for (int64_t offset = 0, count = 0, chunk_ = (int64_t)(per_block) *        \
                                               KL_GPU_MAX_BLOCKS;             \
       offset < (n) &&                                                        \
       ((count = (n) - offset < chunk_ ? (n) - offset : chunk_), 1);          \
       offset += chunk_)

#endif
