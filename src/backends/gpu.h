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
/* The driver's user-space library, which the runtime needs. */
#define KL_GPU_DRIVER "libcuda.so.1"
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

/* A CUDA call's status for a rung that goes on after a failure (a
 * distributed rung makes its collectives whatever happened: the other
 * ranks wait for them): KL_KEEP runs a step only while st is KL_OK and
 * keeps the first failure, the call named. */
static inline kl_status kl__gpu_status(cudaError_t e, const char *what) {
  return e == cudaSuccess ? KL_OK
                          : KL_FAIL(KL_DEVICE, "%s failed: %s", what,
                                    cudaGetErrorString(e));
}
#define KL_KEEP(st, call)                                                     \
  do {                                                                        \
    if ((st) == KL_OK) (st) = (call);                                         \
  } while (0)
/* The same for a call written out, its failure naming the call and the
 * caller's file and line:
 *   KL_KEEP(st, KL_GPU_STATUS(cudaStreamSynchronize(s))); */
#define KL_GPU_STATUS(call)                                                   \
  kl__gpu_status_at((call), #call, __FILE__, __LINE__)
static inline kl_status kl__gpu_status_at(cudaError_t e, const char *call,
                                          const char *file, int line) {
  return e == cudaSuccess ? KL_OK
                          : kl__fail_at(KL_DEVICE, file, line, "%s failed: %s",
                                        call, cudaGetErrorString(e));
}

/* What a rung's setup leaves in its GPU context for the rest of the run
 * (the ranks' NCCL communicator: ranks-nccl.cu; a loaded image of
 * rescheduled kernels: gemm-pipelined-cuda.cu), a slot per kind; the
 * context releases it, by its own function, when it closes (cuda.cu).
 * For a GPU rung's context (a->ctx) alone; NULL for a slot past the
 * last. */
enum { KL_GPU_KEEP_NCCL, KL_GPU_KEEP_SASS, KL_GPU_KEEPS };
typedef struct kl__gpu_keep {
  void *thing;
  void (*release)(void *thing);
} kl__gpu_keep;
kl__gpu_keep *kl__gpu_kept(kl_context *ctx, int slot);

/* A GPU rung's context's event `event` (the backend's record() and
 * elapsed() take its number; a rung that makes one stream wait for
 * another needs the event itself), NULL past the last. And its urgent
 * stream: made at the device's highest priority, for short work that must
 * not queue behind a kernel filling the device (a halo's messages beside
 * the interior's stencil); the context's sync waits for it too. */
cudaEvent_t kl__gpu_event(kl_context *ctx, int event);
cudaStream_t kl__gpu_urgent(kl_context *ctx);

/* A step that returns a status: its failure is the caller's. */
#define KL_TRY(call)                                                          \
  do {                                                                        \
    kl_status kl_try_ = (call);                                               \
    if (kl_try_ != KL_OK) return kl_try_;                                     \
  } while (0)

/* A rung sizes its grids by its context's device (a->ctx->device:
 * compute_units, max_threads_per_unit, lanes: 32 on NVIDIA, 64 on AMD
 * GPUs and DCUs), a scratch hook by its plan's (p->device); the process
 * keeps no device of its own. */

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

/* A store of data not read again by this kernel: streaming (evict-first,
 * st.global.cs), so that the written stream does not push out of the
 * cache what the loads reuse. HIP's nontemporal store for scalars; a
 * plain store for its vector structs, which the builtin does not take. */
template <typename V>
static __device__ __forceinline__ void kl_store_streaming(V *p, V v) {
#if defined(KL_HAVE_HIP)
  *p = v;
#else
  __stcs(p, v);
#endif
}
#if defined(KL_HAVE_HIP)
template <>
__device__ __forceinline__ void kl_store_streaming<float>(float *p, float v) {
  __builtin_nontemporal_store(v, p);
}
template <>
__device__ __forceinline__ void kl_store_streaming<double>(double *p,
                                                           double v) {
  __builtin_nontemporal_store(v, p);
}
#endif

/* A store of a 16-byte vector as one instruction, with the default cache
 * policy (st.global.wb): nvcc may split a plain store of a float4 built
 * from four floats into four 4-byte stores. */
template <typename V>
static __device__ __forceinline__ void kl_store_vector(V *p, V v) {
#if defined(KL_HAVE_HIP)
  *p = v;
#else
  __stwb(p, v);
#endif
}

/* A hint that the 16 bytes at p will be read soon: their line is fetched
 * into L2 (prefetch.global.L2), with no register waiting for it and
 * nothing to wait on. Nothing under HIP. */
static __device__ __forceinline__ void kl_prefetch_l2(const void *p) {
#if defined(KL_HAVE_HIP)
  (void)p;
#else
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#endif
}

/* ---- asynchronous copies into shared memory --------------------------------
 * cp.async on NVIDIA GPUs (sm_80 and later); plain loads and stores under
 * HIP, where the copy is synchronous and the pipelines built on it run with
 * fewer buffers (KL_GPU_ASYNC_COPIES). kl_async_copy<T, W>(dst, src, valid)
 * moves W elements to shared memory, the first `valid` read from src and
 * the rest zeros; kl_async_commit closes a group of copies, and
 * kl_async_wait<N> waits until at most N groups are in flight. */
#if defined(KL_HAVE_HIP)
#define KL_GPU_ASYNC_COPIES 0
#else
#define KL_GPU_ASYNC_COPIES 1

/* One element, or none (valid 0: zero fill), with cp.async.ca. */
template <typename T>
static __device__ __forceinline__ void kl_copy_element(unsigned dst,
                                                       const T *src,
                                                       int valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst),
               "l"(src), "n"((int)sizeof(T)), "r"(valid * (int)sizeof(T))
               : "memory");
}
#endif

template <typename T, int W>
static __device__ __forceinline__ void kl_async_copy(T *dst, const T *src,
                                                     int valid) {
#if defined(KL_HAVE_HIP)
#pragma unroll
  for (int v = 0; v < W; v++) dst[v] = v < valid ? src[v] : (T)0;
#else
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  if (W == 1) {
    kl_copy_element(d, src, valid);
  } else if (valid == W) {
    /* .cg (L2 only) for 16-byte chunks: the reuse is in shared memory,
     * not L1. The narrower forms exist only as .ca. */
    const int bytes = valid * (int)sizeof(T);
    if (W * sizeof(T) == 16)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
                   "l"(src), "r"(bytes)
                   : "memory");
    else
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d),
                   "l"(src), "n"(W * (int)sizeof(T)), "r"(bytes)
                   : "memory");
  } else {
    /* A chunk cut by the edge of the matrix, or wholly outside it, goes
     * element by element: a wide copy with a short src-size reads only
     * src-size bytes, but the sanitizer counts the whole width, and the
     * cut chunk of the last column can reach past the end of the
     * allocation, as a zero-size wide copy from the base of a matrix
     * smaller than the width does. */
#pragma unroll
    for (int v = 0; v < W; v++)
      kl_copy_element(d + v * (unsigned)sizeof(T), v < valid ? src + v : src,
                   v < valid);
  }
#endif
}

static __device__ __forceinline__ void kl_async_commit(void) {
#if !defined(KL_HAVE_HIP)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Wait until at most N of this thread's committed groups are in flight. */
template <int N>
static __device__ __forceinline__ void kl_async_wait(void) {
#if !defined(KL_HAVE_HIP)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* ---- kernels that start before the one before them ends ------------------
 * Programmatic dependent launch (sm_90 and later). A kernel launched with
 * KL_GPU_LAUNCH(1, ...) may be scheduled once every block of the kernel
 * before it on the stream has called kl_gpu_start_next() or exited, so
 * its launch and its first loads hide behind that kernel's tail. Until
 * it calls kl_gpu_wait_prior(), which returns when the kernel before it
 * has ended and its writes are visible, it may read only what was
 * complete before that kernel began, and write nothing another kernel
 * reads. Both calls do nothing in a kernel launched the usual way, and
 * under HIP, which launches such kernels the usual way. */
static __device__ __forceinline__ void kl_gpu_wait_prior(void) {
#if !defined(KL_HAVE_HIP) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

static __device__ __forceinline__ void kl_gpu_start_next(void) {
#if !defined(KL_HAVE_HIP) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/* kernel<<<blocks, threads, 0, on>>>(...), checked, launched early
 * when `early` is nonzero. kernel is a name or a function pointer (a
 * template instance with several arguments needs the pointer); `on`:
 * the stream. KL_GPU_LAUNCH_SHARED: with `shared` bytes of dynamic
 * shared memory. */
#if defined(KL_HAVE_HIP)
#define KL_GPU_LAUNCH_SHARED(early, kernel, blocks, threads, shared, on,   \
                             ...)                                             \
  do {                                                                        \
    (void)(early);                                                            \
    kernel<<<blocks, threads, shared, on>>>(__VA_ARGS__);                     \
    KL_GPU_CHECK_LAUNCH(kernel);                                              \
  } while (0)
#else
#define KL_GPU_LAUNCH_SHARED(early, kernel, blocks, threads, shared, on,   \
                             ...)                                             \
  do {                                                                        \
    cudaLaunchAttribute kl_early_;                                            \
    kl_early_.id = cudaLaunchAttributeProgrammaticStreamSerialization;        \
    kl_early_.val.programmaticStreamSerializationAllowed = 1;                 \
    cudaLaunchConfig_t kl_config_ = {};                                       \
    kl_config_.gridDim = dim3(blocks);                                        \
    kl_config_.blockDim = dim3(threads);                                      \
    kl_config_.dynamicSmemBytes = (shared);                                   \
    kl_config_.stream = (on);                                                 \
    kl_config_.attrs = &kl_early_;                                            \
    kl_config_.numAttrs = (early) ? 1 : 0;                                    \
    cudaError_t kl_err_ =                                                     \
        cudaLaunchKernelEx(&kl_config_, kernel, __VA_ARGS__);                 \
    if (kl_err_ != cudaSuccess)                                               \
      return KL_FAIL(KL_DEVICE, "launch of %s failed: %s", #kernel,           \
                     cudaGetErrorString(kl_err_));                            \
  } while (0)
#endif
#define KL_GPU_LAUNCH(early, kernel, blocks, threads, on, ...)                \
  KL_GPU_LAUNCH_SHARED(early, kernel, blocks, threads, 0, on, __VA_ARGS__)

/* Record an event for timing. While `on` is being captured into a graph,
 * CUDA records it as a graph node that records it at every launch
 * (cudaEventRecordExternal); HIP here has no such node, so nothing is
 * recorded and *recorded is 0. */
#if defined(KL_HAVE_HIP)
#define KL_GPU_GRAPH_EVENTS 0
#else
#define KL_GPU_GRAPH_EVENTS 1
#endif
static inline cudaError_t kl__gpu_record(cudaEvent_t event, cudaStream_t on,
                                         int *recorded) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamIsCapturing(on, &capture);
  *recorded = 0;
  if (err != cudaSuccess) return err;
  if (capture != cudaStreamCaptureStatusActive) err = cudaEventRecord(event, on);
  else if (!KL_GPU_GRAPH_EVENTS) return cudaSuccess;
#if !defined(KL_HAVE_HIP)
  else err = cudaEventRecordWithFlags(event, on, cudaEventRecordExternal);
#endif
  *recorded = err == cudaSuccess;
  return err;
}

/* A kernel readied for launches of `threads` threads and `bytes` of
 * dynamic shared memory on ctx's device (above 48 KB it must opt in),
 * with the carveout that gives shared memory the most of each SM where
 * `max_carveout` (otherwise the driver's choice; HIP has neither),
 * and how many of its blocks fit an SM (0: none). Found once a context
 * and kept: the runtime calls cost microseconds a call, which a small
 * kernel's time counts (the GPU waits for the launch). ctx NULL: found
 * each time. */
kl_status kl__gpu_fit(kl_context *ctx, const void *kernel, int threads,
                      size_t bytes, int max_carveout, int *per_sm);

/* The mask of every lane for the *_sync shuffles (the HIP header drops
 * it: its shuffles take none). */
#define KL_FULL_MASK 0xffffffffu

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
