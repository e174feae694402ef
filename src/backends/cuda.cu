/* The GPU backend: one device, one non-blocking stream that every rung
 * launches on, and a pair of events around each timed run. Built by nvcc
 * as "cuda" or by hipcc as "hip" from this same file. */
#include <stdio.h>
#include <string.h>

#include "gpu.h"

/* This file holds host code only. hip-clang also compiles it for the
 * device, where it would emit the backend table (a namespace-scope
 * constant) without the host functions it points to: skip that pass. */
#if !defined(__HIP_DEVICE_COMPILE__)

static struct {
  int probed;
  int usable;
  char info[256];
  cudaStream_t stream;
  cudaEvent_t start, stop;
  int sm_count;
  int max_threads_per_sm;
  int warp_size;
} gpu;

static int probe_once(void) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    snprintf(gpu.info, sizeof gpu.info, "no %s device: %s", KL_GPU,
             err != cudaSuccess ? cudaGetErrorString(err) : "none found");
    (void)cudaGetLastError();
    return 0;
  }
  cudaDeviceProp prop;
  if (cudaSetDevice(0) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
      cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking) !=
          cudaSuccess ||
      cudaEventCreate(&gpu.start) != cudaSuccess ||
      cudaEventCreate(&gpu.stop) != cudaSuccess) {
    snprintf(gpu.info, sizeof gpu.info, "%s device 0 unusable: %s", KL_GPU,
             cudaGetErrorString(cudaGetLastError()));
    return 0;
  }
  gpu.sm_count = prop.multiProcessorCount;
  gpu.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  gpu.warp_size = prop.warpSize;
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  snprintf(gpu.info, sizeof gpu.info,
           "%.120s (cc %d.%d, %d SMs, %.1f GiB) | " KL_GPU " driver %d.%d, runtime %d.%d",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount,
           (double)prop.totalGlobalMem / (1u << 30), driver / 1000,
           driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
  return 1;
}

static int probe(char *info, size_t size) {
  if (!gpu.probed) {
    gpu.usable = probe_once();
    gpu.probed = 1;
  }
  snprintf(info, size, "%s", gpu.info);
  return gpu.usable;
}

extern "C" int kl__gpu_sm_count(void) { return gpu.sm_count; }
extern "C" int kl__gpu_max_threads_per_sm(void) {
  return gpu.max_threads_per_sm;
}
extern "C" int kl__gpu_warp_size(void) { return gpu.warp_size; }

static kl_status alloc(void **ptr, size_t bytes) {
  cudaError_t err = cudaMalloc(ptr, bytes ? bytes : 1);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return KL_FAIL(KL_NO_MEMORY, "cudaMalloc(%zu bytes) failed: %s", bytes,
                   cudaGetErrorString(err));
  }
  return KL_OK;
}

static void release(void *ptr) { (void)cudaFree(ptr); }

static kl_status upload(void *dst, const void *src, size_t bytes) {
  KL_GPU_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  return KL_OK;
}

static kl_status download(void *dst, const void *src, size_t bytes) {
  KL_GPU_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  return KL_OK;
}

static kl_status fill_bytes(void *dst, int byte, size_t bytes) {
  KL_GPU_CHECK(cudaMemsetAsync(dst, byte, bytes, gpu.stream));
  KL_GPU_CHECK(cudaStreamSynchronize(gpu.stream));
  return KL_OK;
}

static kl_status sync(void) {
  KL_GPU_CHECK(cudaStreamSynchronize(gpu.stream));
  return KL_OK;
}

static kl_status memory(size_t *free_bytes, size_t *total_bytes) {
  KL_GPU_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
  return KL_OK;
}

static kl_status timer_start(void) {
  KL_GPU_CHECK(cudaEventRecord(gpu.start, gpu.stream));
  return KL_OK;
}

static kl_status timer_stop(double *seconds) {
  float ms = 0;
  KL_GPU_CHECK(cudaEventRecord(gpu.stop, gpu.stream));
  KL_GPU_CHECK(cudaEventSynchronize(gpu.stop));
  KL_GPU_CHECK(cudaEventElapsedTime(&ms, gpu.start, gpu.stop));
  *seconds = 1e-3 * (double)ms;
  return KL_OK;
}

static void *stream(void) { return (void *)gpu.stream; }

extern "C" const kl_backend kl__backend_gpu = {
    KL_GPU,
#if defined(KL_HAVE_HIP)
    "HIP on an AMD GPU or Hygon DCU",
#else
    "CUDA on an NVIDIA GPU",
#endif
    0,
    probe,
    alloc,
    release,
    upload,
    download,
    fill_bytes,
    sync,
    memory,
    timer_start,
    timer_stop,
    stream,
};
#endif
