/* The GPU backend: one device; each context has its own non-blocking
 * streams and events. Built by nvcc
 * as "cuda" or by hipcc as "hip" from this same file. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>

#include "gpu.h"

/* This file holds host code only. hip-clang also compiles it for the
 * device, where it would emit the backend table (a namespace-scope
 * constant) without the host functions it points to: skip that pass. */
#if !defined(__HIP_DEVICE_COMPILE__)

static struct {
  std::once_flag probed;
  int usable;
  char info[256];
  int count; /* devices */
} gpu;

/* Device i's properties, as a context and `kladder list` see them. */
static kl_status describe(int i, kl_device *d) {
  cudaDeviceProp prop;
  KL_GPU_CHECK(cudaGetDeviceProperties(&prop, i));
  memset(d, 0, sizeof *d);
  d->index = i;
  snprintf(d->name, sizeof d->name, "%.120s", prop.name);
  d->memory_bytes = prop.totalGlobalMem;
  d->compute_units = prop.multiProcessorCount;
  d->max_threads_per_unit = prop.maxThreadsPerMultiProcessor;
  d->lanes = prop.warpSize;
  d->l2_bytes = prop.l2CacheSize;
  d->cache_bytes = prop.l2CacheSize;
  d->arch = 10 * prop.major + prop.minor;
  return KL_OK;
}

/* Whether the driver's library is installed: without it the runtime
 * says the driver is too old, which misleads on a machine with none. */
static int driver_installed(void) {
  void *lib = dlopen(KL_GPU_DRIVER, RTLD_LAZY | RTLD_LOCAL);
  if (lib) dlclose(lib);
  return lib != NULL;
}

static int probe_once(void) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    const char *why = err != cudaSuccess ? cudaGetErrorString(err)
                                         : "none found";
    if (err == cudaErrorInsufficientDriver && !driver_installed())
      why = "no driver is installed (" KL_GPU_DRIVER " not found)";
    snprintf(gpu.info, sizeof gpu.info, "no %s device: %s", KL_GPU, why);
    (void)cudaGetLastError();
    return 0;
  }
  cudaDeviceProp prop;
  if (cudaSetDevice(0) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    snprintf(gpu.info, sizeof gpu.info, "%s device 0 unusable: %s", KL_GPU,
             cudaGetErrorString(cudaGetLastError()));
    return 0;
  }
  gpu.count = count;
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  char more[32] = "";
  if (count > 1) snprintf(more, sizeof more, ", %d devices", count);
  snprintf(gpu.info, sizeof gpu.info,
           "%.120s (cc %d.%d, %d SMs, %.1f GiB%s) | " KL_GPU " driver %d.%d, runtime %d.%d",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount,
           (double)prop.totalGlobalMem / (1u << 30), more, driver / 1000,
           driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
  return 1;
}

/* Once per process, whichever thread asks first; the others wait. */
static int probe(char *info, size_t size) {
  std::call_once(gpu.probed, [] { gpu.usable = probe_once(); });
  snprintf(info, size, "%s", gpu.info);
  return gpu.usable;
}

static int device_count(void) { return gpu.count; }

/* The context's device becomes the calling thread's current one: every
 * call of the runtime after it (allocations, copies, launches) goes to
 * it. */
static kl_status enter(kl_context *ctx) {
  KL_GPU_CHECK(cudaSetDevice(ctx->device.index));
  return KL_OK;
}


/* A context: its own streams and events, its urgent stream, what rungs
 * keep in it, and the kernels' fits (a run's rungs use a few dozen
 * kernel and size pairs; past the table's end a fit is found each
 * call). */
#define KL_GPU_FITS 128
typedef struct gpu_context {
  cudaEvent_t events[KL_MAX_EVENTS];
  int event_count;
  cudaStream_t urgent; /* the device's highest stream priority */
  cudaStream_t own;    /* the stream 0 it made (an adopted one may stand in) */
  cudaEvent_t ahead;   /* the end of what stands ahead of a timed run */
  kl__gpu_keep kept[KL_GPU_KEEPS];
  struct {             /* kl__gpu_fit's answers */
    const void *kernel;
    int threads, per_sm, max_carveout;
    size_t bytes;
  } fits[KL_GPU_FITS];
  int fit_count;
} gpu_context;

/* A GPU rung's context is this backend's (in a module build its
 * backend is the loader's table, which forwards here). */
kl__gpu_keep *kl__gpu_kept(kl_context *ctx, int slot) {
  if (!ctx || !ctx->impl || slot < 0 || slot >= KL_GPU_KEEPS) return NULL;
  return &((gpu_context *)ctx->impl)->kept[slot];
}

cudaEvent_t kl__gpu_event(kl_context *ctx, int event) {
  gpu_context *g = ctx ? (gpu_context *)ctx->impl : NULL;
  return g && event >= 0 && event < g->event_count ? g->events[event] : NULL;
}

cudaStream_t kl__gpu_urgent(kl_context *ctx) {
  gpu_context *g = ctx ? (gpu_context *)ctx->impl : NULL;
  return g ? g->urgent : NULL;
}

kl_status kl__gpu_fit(kl_context *ctx, const void *kernel, int threads,
                      size_t bytes, int max_carveout, int *per_sm) {
  gpu_context *g = ctx ? (gpu_context *)ctx->impl : NULL;
  for (int i = 0; g && i < g->fit_count; i++)
    if (g->fits[i].kernel == kernel && g->fits[i].threads == threads &&
        g->fits[i].bytes == bytes && g->fits[i].max_carveout == max_carveout) {
      *per_sm = g->fits[i].per_sm;
      return KL_OK;
    }
#if !defined(KL_HAVE_HIP) /* HIP has no opt-in: a block has its 64 KB */
  KL_GPU_CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  if (max_carveout)
    KL_GPU_CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
        (int)cudaSharedmemCarveoutMaxShared));
#endif
  KL_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      per_sm, kernel, threads, bytes));
  if (g && g->fit_count < KL_GPU_FITS) {
    g->fits[g->fit_count].kernel = kernel;
    g->fits[g->fit_count].threads = threads;
    g->fits[g->fit_count].bytes = bytes;
    g->fits[g->fit_count].max_carveout = max_carveout;
    g->fits[g->fit_count].per_sm = *per_sm;
    g->fit_count++;
  }
  return KL_OK;
}

static void close_context(kl_context *ctx) {
  gpu_context *g = (gpu_context *)ctx->impl;
  /* What rungs kept first (an NCCL communicator), while its device's
   * streams are still there. */
  for (int i = 0; g && i < KL_GPU_KEEPS; i++) {
    kl__gpu_keep *k = &g->kept[i];
    if (k->thing && k->release) k->release(k->thing);
    k->thing = NULL;
    k->release = NULL;
  }
  /* Its own streams: stream 0 its own, whatever it adopted. */
  if (g && ctx->stream_count > 0) ctx->streams[0] = (void *)g->own;
  for (int i = 0; i < ctx->stream_count; i++)
    if (ctx->streams[i]) (void)cudaStreamDestroy((cudaStream_t)ctx->streams[i]);
  ctx->stream_count = 0;
  if (g && g->urgent) (void)cudaStreamDestroy(g->urgent);
  if (g && g->ahead) (void)cudaEventDestroy(g->ahead);
  if (g)
    for (int i = 0; i < g->event_count; i++) (void)cudaEventDestroy(g->events[i]);
  free(g);
  ctx->impl = NULL;
}

static kl_status open_context(kl_context *ctx) {
  KL_TRY(describe(ctx->device.index, &ctx->device));
  KL_TRY(enter(ctx));
  gpu_context *g = (gpu_context *)calloc(1, sizeof *g);
  if (!g) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  ctx->impl = g;
  for (int i = 0; i < KL_MAX_STREAMS; i++) {
    cudaStream_t s;
    cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
      close_context(ctx);
      return KL_FAIL(KL_DEVICE, "cudaStreamCreateWithFlags failed: %s",
                     cudaGetErrorString(err));
    }
    ctx->streams[ctx->stream_count++] = (void *)s;
  }
  g->own = (cudaStream_t)ctx->streams[0];
  /* The urgent stream: the highest priority the device has (the lowest
   * number), so that the few blocks of a message's kernel are dispatched
   * before those still waiting of a kernel that fills the device. */
  int least = 0, greatest = 0;
  cudaError_t err = cudaDeviceGetStreamPriorityRange(&least, &greatest);
  if (err == cudaSuccess)
    err = cudaStreamCreateWithPriority(&g->urgent, cudaStreamNonBlocking,
                                       greatest);
  if (err != cudaSuccess) {
    close_context(ctx);
    return KL_FAIL(KL_DEVICE, "the urgent stream: %s",
                   cudaGetErrorString(err));
  }
  err = cudaEventCreateWithFlags(&g->ahead, cudaEventDisableTiming);
  if (err != cudaSuccess) {
    g->ahead = NULL;
    close_context(ctx);
    return KL_FAIL(KL_DEVICE, "cudaEventCreateWithFlags failed: %s",
                   cudaGetErrorString(err));
  }
  for (int i = 0; i < KL_MAX_EVENTS; i++) {
    cudaError_t err = cudaEventCreate(&g->events[i]);
    if (err != cudaSuccess) {
      close_context(ctx);
      return KL_FAIL(KL_DEVICE, "cudaEventCreate failed: %s",
                     cudaGetErrorString(err));
    }
    g->event_count++;
  }
  return KL_OK;
}

static kl_status alloc(kl_context *ctx, kl_placement where, void **ptr,
                       size_t bytes) {
  (void)ctx;
  if (where == KL_MEM_PAGEABLE) return kl__host_alloc(ptr, bytes);
  cudaError_t err = where == KL_MEM_PINNED ? cudaMallocHost(ptr, bytes ? bytes : 1)
                                       : cudaMalloc(ptr, bytes ? bytes : 1);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return KL_FAIL(KL_NO_MEMORY, "%s(%zu bytes) failed: %s",
                   where == KL_MEM_PINNED ? "cudaMallocHost" : "cudaMalloc", bytes,
                   cudaGetErrorString(err));
  }
  return KL_OK;
}

static void release(kl_context *ctx, kl_placement where, void *ptr) {
  (void)ctx;
  if (where == KL_MEM_PAGEABLE) kl__host_release(ptr);
  else if (where == KL_MEM_PINNED) (void)cudaFreeHost(ptr);
  else (void)cudaFree(ptr);
}

static cudaStream_t stream_at(kl_context *ctx, int stream) {
  return (cudaStream_t)ctx->streams[stream >= 0 && stream < ctx->stream_count
                                        ? stream
                                        : 0];
}

/* Unified addressing: the runtime tells the direction from the pointers. */
static kl_status copy(kl_context *ctx, int stream, void *dst, const void *src,
                      size_t bytes) {
  KL_GPU_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                               stream_at(ctx, stream)));
  return KL_OK;
}

static kl_status fill_bytes(kl_context *ctx, kl_placement where, void *dst,
                            int byte, size_t bytes) {
  if (where != KL_MEM_DEVICE) {
    if (bytes) memset(dst, byte, bytes);
    return KL_OK;
  }
  KL_GPU_CHECK(cudaMemsetAsync(dst, byte, bytes, stream_at(ctx, 0)));
  KL_GPU_CHECK(cudaStreamSynchronize(stream_at(ctx, 0)));
  return KL_OK;
}

static kl_status sync(kl_context *ctx) {
  for (int i = 0; i < ctx->stream_count; i++)
    KL_GPU_CHECK(cudaStreamSynchronize((cudaStream_t)ctx->streams[i]));
  KL_GPU_CHECK(cudaStreamSynchronize(((gpu_context *)ctx->impl)->urgent));
  return KL_OK;
}

/* Asked outside any context (sizing): the calling thread's current device
 * is put back as it was. */
static kl_status memory(int device, size_t *free_bytes, size_t *total_bytes) {
  int current = 0;
  KL_GPU_CHECK(cudaGetDevice(&current));
  KL_GPU_CHECK(cudaSetDevice(device));
  cudaError_t err = cudaMemGetInfo(free_bytes, total_bytes);
  KL_GPU_CHECK(cudaSetDevice(current));
  KL_GPU_CHECK(err);
  return KL_OK;
}

static kl_status record(kl_context *ctx, int event, int stream) {
  if (event < 0 || event >= KL_MAX_EVENTS)
    return KL_FAIL(KL_USAGE, "event %d is not below %d", event, KL_MAX_EVENTS);
  gpu_context *g = (gpu_context *)ctx->impl;
  KL_GPU_CHECK(cudaEventRecord(g->events[event], stream_at(ctx, stream)));
  return KL_OK;
}

static kl_status elapsed(kl_context *ctx, int from, int to, double *seconds) {
  if (from < 0 || to < 0 || from >= KL_MAX_EVENTS || to >= KL_MAX_EVENTS)
    return KL_FAIL(KL_USAGE, "events %d and %d are not below %d", from, to,
                   KL_MAX_EVENTS);
  gpu_context *g = (gpu_context *)ctx->impl;
  float ms = 0;
  KL_GPU_CHECK(cudaEventSynchronize(g->events[to]));
  KL_GPU_CHECK(cudaEventElapsedTime(&ms, g->events[from], g->events[to]));
  *seconds = 1e-3 * (double)ms;
  return KL_OK;
}

/* The device's PCI bus id, by which NVML finds its board (energy.c). */
static kl_status bus_id(kl_context *ctx, char *out, size_t size) {
  if (size < 16) return KL_FAIL(KL_USAGE, "a bus id needs 16 bytes");
  KL_GPU_CHECK(cudaDeviceGetPCIBusId(out, (int)size, ctx->device.index));
  return KL_OK;
}

/* The launch floor: an empty kernel of one thread on stream 0. */
__global__ void kl__empty_kernel(void) {}

static kl_status launch(kl_context *ctx) {
  kl__empty_kernel<<<1, 1, 0, stream_at(ctx, 0)>>>();
  KL_GPU_CHECK(cudaGetLastError());
  return KL_OK;
}

/* What stands ahead of a timed run (kl_backend.ahead): the cold cache's
 * flush where buf is given, then a hold of one thread spinning on its
 * clock, about 33 us at 2 GHz (KL_GPU_HOLD_CYCLES): longer than the host
 * takes to queue one run behind it; the context's other streams wait for
 * both on the device, the host not. */
#define KL_GPU_HOLD_CYCLES (1LL << 16)

__global__ void kl__hold_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

static kl_status ahead(kl_context *ctx, void *buf, size_t bytes) {
  gpu_context *g = (gpu_context *)ctx->impl;
  cudaStream_t s = stream_at(ctx, 0);
  if (buf) KL_GPU_CHECK(cudaMemsetAsync(buf, 0x5a, bytes, s));
  kl__hold_kernel<<<1, 1, 0, s>>>(KL_GPU_HOLD_CYCLES);
  KL_GPU_CHECK_LAUNCH(kl__hold_kernel);
  KL_GPU_CHECK(cudaEventRecord(g->ahead, s));
  for (int i = 1; i < ctx->stream_count; i++)
    KL_GPU_CHECK(cudaStreamWaitEvent((cudaStream_t)ctx->streams[i], g->ahead,
                                     0));
  KL_GPU_CHECK(cudaStreamWaitEvent(g->urgent, g->ahead, 0));
  return KL_OK;
}

/* The caller's stream as stream 0; NULL: the context's own again. */
static kl_status adopt_stream(kl_context *ctx, void *stream) {
  gpu_context *g = (gpu_context *)ctx->impl;
  /* What the context queued on the stream it leaves is done first. */
  KL_GPU_CHECK(cudaStreamSynchronize((cudaStream_t)ctx->streams[0]));
  ctx->streams[0] = stream ? stream : (void *)g->own;
  return KL_OK;
}

/* NVTX's ranges (header-only: the calls do nothing unless a profiler has
 * attached its tool); HIP's build has none. */
#if defined(KL_HAVE_HIP)
#define KL_GPU_RANGE NULL
#else
#include <nvtx3/nvToolsExt.h>
static void range(kl_context *ctx, const char *name) {
  (void)ctx;
  if (name) nvtxRangePushA(name);
  else nvtxRangePop();
}
#define KL_GPU_RANGE range
#endif

extern "C" const kl_backend kl__backend_gpu = {
    KL_GPU,
    KL_GPU_SUMMARY,
    0, /* host_memory */
    2, /* preference: above every host backend */
    probe,
    memory,
    open_context,
    close_context,
    alloc,
    release,
    copy,
    fill_bytes,
    sync,
    record,
    elapsed,
    device_count,
    describe,
    enter,
    NULL, /* memory_on_host: never */
    NULL, /* left_out: never */
    NULL, /* compile_seconds: its kernels are built with the module */
    bus_id,
    KL_GPU_RANGE,
    launch,
    adopt_stream,
    ahead,
};
#endif
