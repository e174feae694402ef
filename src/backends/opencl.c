/* The OpenCL backend (opencl.h has what its rungs use): every OpenCL
 * device of every platform the ICD loader lists, GPUs first (`-b opencl`
 * is the first GPU, else the first device; `opencl:N` the N-th of
 * `kladder list`). The loader, libOpenCL.so.1, is opened at the first
 * probe (dlopen), so that libkladder.so needs no OpenCL library to start.
 * A context holds the device, one in-order queue and the programs built
 * on it; device buffers are cl_mem handles, pinned host memory a mapped
 * CL_MEM_ALLOC_HOST_PTR buffer. OpenCL has no device clock a queue can
 * read between two points as CUDA's events do: a record waits for the
 * queue (clFinish) and reads the host clock, as the OpenACC backend
 * does; BabelStream's OpenCL model times the same way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"

#if !defined(KL_HAVE_OPENCL)

static int not_built(char *info, size_t size) {
  snprintf(info, size, "not built: no OpenCL headers (CL/cl.h) at build "
           "time (Debian: opencl-headers)");
  return 0;
}

const kl_backend kl__backend_opencl = {
    .name = "opencl",
    .summary = "OpenCL C kernels on any vendor's device (PoCL on a CPU)",
    .probe = not_built};

#else

#include <dlfcn.h>
#include <threads.h>

#include "cl-sources.h"
#include "opencl.h"

kl__cl_api kl__cl;

#define MAX_CL_DEVICES 16

typedef struct cl_found {
  cl_platform_id platform;
  cl_device_id device;
  cl_device_type type;
  char name[128], platform_name[128];
} cl_found;

static struct {
  once_flag once;
  int loaded;
  int count;
  cl_found devices[MAX_CL_DEVICES];
  char info[512];
} loader = {ONCE_FLAG_INIT, 0, 0, {{0}}, ""};

const char *kl__cl_error(cl_int e) {
  switch (e) {
#define NAME(x)                                                               \
  case x: return #x;
    NAME(CL_DEVICE_NOT_FOUND)
    NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE)
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES)
    NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_BUILD_PROGRAM_FAILURE)
    NAME(CL_MAP_FAILURE)
    NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE)
    NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_COMMAND_QUEUE)
    NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_BUILD_OPTIONS)
    NAME(CL_INVALID_PROGRAM)
    NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    NAME(CL_INVALID_KERNEL_NAME)
    NAME(CL_INVALID_KERNEL)
    NAME(CL_INVALID_ARG_INDEX)
    NAME(CL_INVALID_ARG_VALUE)
    NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS)
    NAME(CL_INVALID_WORK_DIMENSION)
    NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_WORK_ITEM_SIZE)
    NAME(CL_INVALID_GLOBAL_OFFSET)
    NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_INVALID_GLOBAL_WORK_SIZE)
#undef NAME
  default: return "an OpenCL error";
  }
}

/* ---- the library and its devices ----------------------------------------- */

static int load_api(void *lib) {
#define GET(field)                                                            \
  if (!(*(void **)&kl__cl.field = dlsym(lib, "cl" #field))) return 0;
  GET(GetPlatformIDs) GET(GetPlatformInfo) GET(GetDeviceIDs)
  GET(GetDeviceInfo) GET(CreateContext) GET(ReleaseContext)
  GET(CreateCommandQueue) GET(ReleaseCommandQueue) GET(CreateBuffer)
  GET(ReleaseMemObject) GET(SetMemObjectDestructorCallback)
  GET(EnqueueReadBuffer) GET(EnqueueWriteBuffer)
  GET(EnqueueCopyBuffer) GET(EnqueueFillBuffer) GET(EnqueueMapBuffer)
  GET(EnqueueUnmapMemObject) GET(Finish) GET(CreateProgramWithSource)
  GET(BuildProgram) GET(GetProgramBuildInfo) GET(ReleaseProgram)
  GET(CreateKernel) GET(ReleaseKernel) GET(SetKernelArg)
  GET(EnqueueNDRangeKernel) GET(GetKernelWorkGroupInfo)
#undef GET
  return 1;
}

/* Whether NVIDIA's OpenCL driver is on the machine though no platform of
 * it is listed (its ICD file missing: docs/backends.md says what to do). */
static int nvidia_unlisted(void) {
  for (int i = 0; i < loader.count; i++)
    if (strstr(loader.devices[i].platform_name, "NVIDIA")) return 0;
  void *nv = dlopen("libnvidia-opencl.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!nv) return 0;
  dlclose(nv);
  return 1;
}

static void add_devices(cl_platform_id pl, const char *pname, int gpus) {
  cl_device_id ids[MAX_CL_DEVICES];
  cl_uint n = 0;
  const cl_device_type want = gpus ? CL_DEVICE_TYPE_GPU
                                   : CL_DEVICE_TYPE_ALL & ~CL_DEVICE_TYPE_GPU;
  if (kl__cl.GetDeviceIDs(pl, want, MAX_CL_DEVICES, ids, &n) != CL_SUCCESS)
    return;
  for (cl_uint i = 0; i < n && loader.count < MAX_CL_DEVICES; i++) {
    cl_found *f = &loader.devices[loader.count];
    f->platform = pl;
    f->device = ids[i];
    if (kl__cl.GetDeviceInfo(ids[i], CL_DEVICE_TYPE, sizeof f->type,
                             &f->type, NULL) != CL_SUCCESS ||
        kl__cl.GetDeviceInfo(ids[i], CL_DEVICE_NAME, sizeof f->name, f->name,
                             NULL) != CL_SUCCESS)
      continue;
    f->name[sizeof f->name - 1] = '\0';
    snprintf(f->platform_name, sizeof f->platform_name, "%s", pname);
    loader.count++;
  }
}

static void load_once(void) {
  void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(loader.info, sizeof loader.info,
             "no OpenCL loader: libOpenCL.so.1 not found (Debian: "
             "ocl-icd-libopencl1, and a driver such as pocl-opencl-icd)");
    return;
  }
  if (!load_api(lib)) {
    snprintf(loader.info, sizeof loader.info,
             "libOpenCL.so.1 lacks an OpenCL 1.2 function");
    return;
  }
  loader.loaded = 1;
  cl_platform_id platforms[8];
  cl_uint np = 0;
  if (kl__cl.GetPlatformIDs(8, platforms, &np) != CL_SUCCESS) np = 0;
  char names[8][128];
  for (cl_uint i = 0; i < np; i++)
    if (kl__cl.GetPlatformInfo(platforms[i], CL_PLATFORM_NAME,
                               sizeof names[i], names[i],
                               NULL) != CL_SUCCESS)
      snprintf(names[i], sizeof names[i], "platform %u", i);
  /* GPUs first, then every other device, in the platforms' order. */
  for (int gpus = 1; gpus >= 0; gpus--)
    for (cl_uint i = 0; i < np; i++) add_devices(platforms[i], names[i], gpus);
  if (loader.count == 0)
    snprintf(loader.info, sizeof loader.info, "no OpenCL device: %u "
             "platform%s listed%s", np, np == 1 ? "" : "s",
             nvidia_unlisted() ? "; NVIDIA's driver is here but not "
                                 "registered (OCL_ICD_VENDORS: docs/backends.md)"
                               : "");
  else
    snprintf(loader.info, sizeof loader.info, "%d device%s: %s (%s)%s",
             loader.count, loader.count == 1 ? "" : "s",
             loader.devices[0].name, loader.devices[0].platform_name,
             nvidia_unlisted() ? "; NVIDIA's driver is here but not "
                                 "registered (OCL_ICD_VENDORS: docs/backends.md)"
                               : "");
}

static int probe(char *info, size_t size) {
  call_once(&loader.once, load_once);
  snprintf(info, size, "%s", loader.info);
  return loader.loaded && loader.count > 0;
}

/* Out of a run that names no backend where every device is a CPU (PoCL):
 * OpenMP runs the same work there, and the defaults, sized for a device,
 * would take minutes (gemm 4096^3 at a few GFLOP/s). */
static int left_out(char *why, size_t size) {
  call_once(&loader.once, load_once);
  for (int i = 0; i < loader.count; i++)
    if (!(loader.devices[i].type & CL_DEVICE_TYPE_CPU)) return 0;
  snprintf(why, size, "opencl is not in a run that names no backend: its "
           "devices are CPUs only, where OpenMP does the same work (-b "
           "opencl runs it)");
  return 1;
}

static int device_count(void) {
  call_once(&loader.once, load_once);
  return loader.count;
}

static kl_status found(int device, const cl_found **out) {
  call_once(&loader.once, load_once);
  if (device < 0 || device >= loader.count)
    return kl__usage(KL_USAGE, "opencl: no device %d (there are %d)", device,
                     loader.count);
  *out = &loader.devices[device];
  return KL_OK;
}

static kl_status memory(int device, size_t *free_bytes, size_t *total_bytes) {
  const cl_found *f = NULL;
  kl_status st = found(device, &f);
  if (st != KL_OK) return st;
  if (f->type & CL_DEVICE_TYPE_CPU)
    return kl__host_memory(0, free_bytes, total_bytes);
  cl_ulong total = 0;
  KL_CL_CHECK(kl__cl.GetDeviceInfo(f->device, CL_DEVICE_GLOBAL_MEM_SIZE,
                                   sizeof total, &total, NULL));
  /* OpenCL 1.2 tells no free memory: all of it, less a tenth. */
  *total_bytes = (size_t)total;
  *free_bytes = (size_t)(total - total / 10);
  return KL_OK;
}

static kl_status describe(int device, kl_device *out) {
  const cl_found *f = NULL;
  kl_status st = found(device, &f);
  if (st != KL_OK) return st;
  memset(out, 0, sizeof *out);
  out->index = device;
  snprintf(out->name, sizeof out->name, "%s", f->name);
  cl_ulong total = 0, cache = 0;
  cl_uint units = 0;
  size_t group = 0;
  KL_CL_CHECK(kl__cl.GetDeviceInfo(f->device, CL_DEVICE_GLOBAL_MEM_SIZE,
                                   sizeof total, &total, NULL));
  KL_CL_CHECK(kl__cl.GetDeviceInfo(f->device, CL_DEVICE_MAX_COMPUTE_UNITS,
                                   sizeof units, &units, NULL));
  KL_CL_CHECK(kl__cl.GetDeviceInfo(f->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                                   sizeof group, &group, NULL));
  if (kl__cl.GetDeviceInfo(f->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,
                           sizeof cache, &cache, NULL) != CL_SUCCESS)
    cache = 0;
  out->memory_bytes = (size_t)total;
  out->compute_units = (int)units;
  out->max_threads_per_unit = (int)group;
  /* The lanes that run in step are a kernel's property in OpenCL
   * (CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE): a rung asks its own. */
  out->lanes = 1;
  out->l2_bytes = (int64_t)cache;
  out->cache_bytes = (int64_t)cache;
  return KL_OK;
}

/* ---- a context's buffers: cl_mem handles, and pinned maps --------------- */

typedef struct kl__cl_buffer {
  void *key; /* what the harness holds: the cl_mem, or the mapped host */
  cl_mem mem;
  int pinned;
  struct kl__cl_buffer *next;
} kl__cl_buffer;

static kl__cl_buffer *buffer_of(const kl__cl_context *c, const void *key) {
  for (kl__cl_buffer *b = c->buffers; b; b = b->next)
    if (b->key == key) return b;
  return NULL;
}

static int is_device(const kl__cl_context *c, const void *p) {
  const kl__cl_buffer *b = p ? buffer_of(c, p) : NULL;
  return b && !b->pinned;
}

typedef struct kl__cl_program {
  const char *source;
  char options[256];
  cl_program program;
  struct kl__cl_program *next;
} kl__cl_program;

static kl_status open_context(kl_context *ctx) {
  const cl_found *f = NULL;
  kl_status st = found(ctx->device.index, &f);
  if (st != KL_OK) return st;
  kl__cl_context *c = calloc(1, sizeof *c);
  if (!c) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  ctx->impl = c;
  c->platform = f->platform;
  c->device = f->device;
  c->type = f->type;
  c->host_backed = (f->type & CL_DEVICE_TYPE_CPU) != 0;
  /* Test hook: a CPU device launched as a GPU is (launch shapes, the
   * kernels chosen for a GPU: laplacian's tiled z-march, the strided
   * loops), so that CI runs those kernels on PoCL. */
  const char *gpu_shapes = getenv("KLADDER_INJECT_GPU_SHAPES");
  if (gpu_shapes && strcmp(gpu_shapes, "1") == 0)
    c->type &= ~(cl_device_type)CL_DEVICE_TYPE_CPU;
  cl_int e = CL_SUCCESS;
  c->context = kl__cl.CreateContext(NULL, 1, &c->device, NULL, NULL, &e);
  if (e != CL_SUCCESS)
    return KL_FAIL(KL_DEVICE, "clCreateContext failed: %s", kl__cl_error(e));
  c->queue = kl__cl.CreateCommandQueue(c->context, c->device, 0, &e);
  if (e != CL_SUCCESS)
    return KL_FAIL(KL_DEVICE, "clCreateCommandQueue failed: %s",
                   kl__cl_error(e));
  char extensions[4096] = "";
  cl_ulong max_alloc = 0, local = 0;
  KL_CL_CHECK(kl__cl.GetDeviceInfo(c->device, CL_DEVICE_EXTENSIONS,
                                   sizeof extensions, extensions, NULL));
  extensions[sizeof extensions - 1] = '\0';
  /* Test hook: KLADDER_INJECT_NO_FP64=1, a device without doubles. */
  const char *no_fp64 = getenv("KLADDER_INJECT_NO_FP64");
  c->fp64 = strstr(extensions, "cl_khr_fp64") != NULL &&
            !(no_fp64 && strcmp(no_fp64, "1") == 0);
  KL_CL_CHECK(kl__cl.GetDeviceInfo(c->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                   sizeof max_alloc, &max_alloc, NULL));
  KL_CL_CHECK(kl__cl.GetDeviceInfo(c->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                                   sizeof c->max_group, &c->max_group, NULL));
  KL_CL_CHECK(kl__cl.GetDeviceInfo(c->device, CL_DEVICE_LOCAL_MEM_SIZE,
                                   sizeof local, &local, NULL));
  c->max_alloc = (size_t)max_alloc;
  c->local_bytes = (size_t)local;
  ctx->stream_count = 1;
  return describe(ctx->device.index, &ctx->device);
}

static void close_context(kl_context *ctx) {
  kl__cl_context *c = ctx->impl;
  if (!c) return;
  if (c->queue) (void)kl__cl.Finish(c->queue);
  for (kl__cl_program *p = c->programs, *next; p; p = next) {
    next = p->next;
    (void)kl__cl.ReleaseProgram(p->program);
    free(p);
  }
  for (kl__cl_buffer *b = c->buffers, *next; b; b = next) {
    next = b->next;
    if (b->pinned)
      (void)kl__cl.EnqueueUnmapMemObject(c->queue, b->mem, b->key, 0, NULL,
                                         NULL);
    (void)kl__cl.ReleaseMemObject(b->mem);
    free(b);
  }
  if (c->queue) (void)kl__cl.ReleaseCommandQueue(c->queue);
  if (c->context) (void)kl__cl.ReleaseContext(c->context);
  free(c);
  ctx->impl = NULL;
}

/* A CPU device's buffers of 2 MiB or more (kl__host_alloc's huge-page
 * size: such a buffer starts on a 2 MiB boundary) live in host memory
 * from kl__host_alloc, given to the buffer (CL_MEM_USE_HOST_PTR): on
 * huge pages where the kernel hands them out only when asked, as the
 * serial and OpenMP rungs' buffers are. PoCL's own allocation had 4 KiB
 * pages, and its laplacian rungs ran 0.6-0.7x OpenMP's at 256^3 against
 * 0.9-0.95x on huge pages (laplacian's LESSONS.md). */
#define HOST_BACKED_BYTES ((size_t)2 << 20)

/* The buffer's host memory, freed when OpenCL destroys the buffer. */
static void CL_CALLBACK free_host(cl_mem mem, void *host) {
  (void)mem;
  kl__host_release(host);
}

static kl_status alloc(kl_context *ctx, kl_placement where, void **ptr,
                       size_t bytes) {
  kl__cl_context *c = ctx->impl;
  *ptr = NULL;
  if (where == KL_MEM_PAGEABLE) return kl__host_alloc(ptr, bytes);
  if (bytes > c->max_alloc)
    return kl__usage(KL_TOO_LARGE, "opencl: a buffer of %zu bytes is more "
                     "than the device's largest allocation (%zu bytes)",
                     bytes, c->max_alloc);
  kl__cl_buffer *b = calloc(1, sizeof *b);
  if (!b) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  cl_int e = CL_SUCCESS;
  /* A buffer of no bytes is one byte: OpenCL makes none of zero. */
  const size_t size = bytes ? bytes : 1;
  b->pinned = where == KL_MEM_PINNED;
  void *host = NULL;
  if (c->host_backed && !b->pinned && size >= HOST_BACKED_BYTES) {
    const kl_status st = kl__host_alloc(&host, size);
    if (st != KL_OK) {
      free(b);
      return st;
    }
  }
  b->mem = kl__cl.CreateBuffer(
      c->context,
      b->pinned ? CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR
      : host    ? CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR
                : CL_MEM_READ_WRITE,
      size, host, &e);
  const char *call = "clCreateBuffer";
  if (host && e == CL_SUCCESS) {
    call = "clSetMemObjectDestructorCallback";
    e = kl__cl.SetMemObjectDestructorCallback(b->mem, free_host, host);
    if (e == CL_SUCCESS) {
      host = NULL; /* the callback frees it */
    } else {
      (void)kl__cl.ReleaseMemObject(b->mem);
      b->mem = NULL;
    }
  }
  if (host) kl__host_release(host); /* no buffer holds it */
  if (e == CL_SUCCESS && b->pinned) {
    call = "clEnqueueMapBuffer";
    b->key = kl__cl.EnqueueMapBuffer(c->queue, b->mem, CL_TRUE,
                                     CL_MAP_READ | CL_MAP_WRITE, 0, size, 0,
                                     NULL, NULL, &e);
  } else {
    b->key = b->mem;
  }
  if (e != CL_SUCCESS) {
    if (b->mem) (void)kl__cl.ReleaseMemObject(b->mem);
    free(b);
    return KL_FAIL(e == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                           e == CL_OUT_OF_RESOURCES
                       ? KL_NO_MEMORY
                       : KL_DEVICE,
                   "%s, a buffer of %zu bytes, failed: %s", call, bytes,
                   kl__cl_error(e));
  }
  b->next = c->buffers;
  c->buffers = b;
  *ptr = b->key;
  return KL_OK;
}

static void release(kl_context *ctx, kl_placement where, void *ptr) {
  kl__cl_context *c = ctx->impl;
  if (where == KL_MEM_PAGEABLE) {
    kl__host_release(ptr);
    return;
  }
  for (kl__cl_buffer **at = &c->buffers; *at; at = &(*at)->next) {
    kl__cl_buffer *b = *at;
    if (b->key != ptr) continue;
    if (b->pinned)
      (void)kl__cl.EnqueueUnmapMemObject(c->queue, b->mem, b->key, 0, NULL,
                                         NULL);
    (void)kl__cl.Finish(c->queue);
    (void)kl__cl.ReleaseMemObject(b->mem);
    *at = b->next;
    free(b);
    return;
  }
}

/* Whole buffers from their start, as the harness copies them. */
static kl_status copy(kl_context *ctx, int stream, void *dst, const void *src,
                      size_t bytes) {
  (void)stream;
  kl__cl_context *c = ctx->impl;
  if (bytes == 0) return KL_OK;
  const int to = is_device(c, dst), from = is_device(c, src);
  if (to && from)
    KL_CL_CHECK(kl__cl.EnqueueCopyBuffer(c->queue, (cl_mem)(void *)src,
                                         (cl_mem)dst, 0, 0, bytes, 0, NULL,
                                         NULL));
  else if (to)
    KL_CL_CHECK(kl__cl.EnqueueWriteBuffer(c->queue, (cl_mem)dst, CL_TRUE, 0,
                                          bytes, src, 0, NULL, NULL));
  else if (from)
    KL_CL_CHECK(kl__cl.EnqueueReadBuffer(c->queue, (cl_mem)(void *)src,
                                         CL_TRUE, 0, bytes, dst, 0, NULL,
                                         NULL));
  else
    memcpy(dst, src, bytes);
  return KL_OK;
}

static kl_status fill_bytes(kl_context *ctx, kl_placement where, void *dst,
                            int byte, size_t bytes) {
  kl__cl_context *c = ctx->impl;
  if (bytes == 0) return KL_OK;
  if (where != KL_MEM_DEVICE || !is_device(c, dst)) {
    memset(dst, byte, bytes);
    return KL_OK;
  }
  const unsigned char pattern = (unsigned char)byte;
  KL_CL_CHECK(kl__cl.EnqueueFillBuffer(c->queue, (cl_mem)dst, &pattern, 1, 0,
                                       bytes, 0, NULL, NULL));
  return KL_OK;
}

static kl_status sync_all(kl_context *ctx) {
  KL_CL_CHECK(kl__cl.Finish(((kl__cl_context *)ctx->impl)->queue));
  return KL_OK;
}

static kl_status record(kl_context *ctx, int event, int stream) {
  (void)stream;
  kl__cl_context *c = ctx->impl;
  KL_CL_CHECK(kl__cl.Finish(c->queue));
  return kl__clock_record(c->marks, event);
}

static kl_status elapsed(kl_context *ctx, int from, int to, double *seconds) {
  return kl__clock_elapsed(((kl__cl_context *)ctx->impl)->marks, from, to,
                           seconds);
}

/* ---- programs and launches ------------------------------------------------ */

static double compile_seconds(const kl_context *ctx) {
  return ((const kl__cl_context *)ctx->impl)->build_seconds;
}

kl_status kl__cl_kernel(kl_context *ctx, const char *source,
                        const char *options, const char *name,
                        cl_kernel *out) {
  kl__cl_context *c = ctx->impl;
  *out = NULL;
  kl__cl_program *p = c->programs;
  while (p && !(p->source == source && strcmp(p->options, options) == 0))
    p = p->next;
  if (!p) {
    p = calloc(1, sizeof *p);
    if (!p) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
    p->source = source;
    snprintf(p->options, sizeof p->options, "%s", options);
    const double t0 = kl__now();
    cl_int e = CL_SUCCESS;
    /* Test hook: KLADDER_INJECT_CL_BUILD=1 puts an #error before the
     * source, as a kernel the device's compiler refuses. */
    const char *inject = getenv("KLADDER_INJECT_CL_BUILD");
    const char *sources[3] = {"#error injected build error "
                              "(KLADDER_INJECT_CL_BUILD)\n",
                              kl__cl_source_opencl, source};
    const int injected = inject && strcmp(inject, "1") == 0;
    p->program = kl__cl.CreateProgramWithSource(
        c->context, injected ? 3 : 2, injected ? sources : sources + 1, NULL,
        &e);
    if (e != CL_SUCCESS) {
      free(p);
      return KL_FAIL(KL_DEVICE, "clCreateProgramWithSource failed: %s",
                     kl__cl_error(e));
    }
    char all[320];
    snprintf(all, sizeof all, "-cl-std=CL1.2 %s", options);
    e = kl__cl.BuildProgram(p->program, 1, &c->device, all, NULL, NULL);
    c->build_seconds += kl__now() - t0;
    if (e != CL_SUCCESS) {
      size_t size = 0;
      (void)kl__cl.GetProgramBuildInfo(p->program, c->device,
                                       CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
      char *log = calloc(1, size + 1);
      if (log && kl__cl.GetProgramBuildInfo(p->program, c->device,
                                            CL_PROGRAM_BUILD_LOG, size, log,
                                            NULL) != CL_SUCCESS)
        log[0] = '\0';
      /* The log's first lines, on one line. */
      char first[400];
      size_t n = 0;
      int lines = 0;
      for (const char *s = log ? log : ""; *s && n + 1 < sizeof first &&
                                           lines < 4;
           s++) {
        if (*s == '\n') {
          lines++;
          if (n > 0 && first[n - 1] != ' ') first[n++] = ' ';
          continue;
        }
        first[n++] = *s;
      }
      first[n] = '\0';
      free(log);
      (void)kl__cl.ReleaseProgram(p->program);
      free(p);
      return kl__usage(KL_DEVICE, "opencl: building kernel %s (%s) failed: "
                       "%s: %s", name, options, kl__cl_error(e),
                       first[0] ? first : "no build log");
    }
    p->next = c->programs;
    c->programs = p;
  }
  cl_int e = CL_SUCCESS;
  *out = kl__cl.CreateKernel(p->program, name, &e);
  if (e != CL_SUCCESS)
    return KL_FAIL(KL_DEVICE, "clCreateKernel(%s) failed: %s", name,
                   kl__cl_error(e));
  return KL_OK;
}

const char *kl__cl_type_name(kl_type t) {
  switch (t) {
  case KL_F32: return "float";
  case KL_F64: return "double";
  case KL_I32: return "int";
  case KL_I64: return "long";
  case KL_U32: return "uint";
  case KL_U64: return "ulong";
  case KL_U8: return "uchar";
  default: return NULL;
  }
}

kl_status kl__cl_type_options(const kl_args *a, kl_type t, char *dst,
                              size_t size) {
  const char *name = kl__cl_type_name(t);
  if (!name)
    return kl__usage(KL_USAGE, "opencl: no OpenCL C type for %s",
                     kl_type_name(t));
  if (t == KL_F64 && !kl__cl_of(a->ctx)->fp64)
    return kl__usage(KL_UNAVAILABLE, "opencl: %s has no double precision "
                     "(cl_khr_fp64)", a->ctx->device.name);
  snprintf(dst, size, "-DT=%s%s", name, t == KL_F64 ? " -DKL_FP64" : "");
  return KL_OK;
}

kl_status kl__cl_rung_kernel(kl_args *a, const char *source, int for_type,
                             const char *extra, const char *name, int slot) {
  char type[48] = "", options[256];
  kl_status st = for_type ? kl__cl_type_options(a, a->plan->type, type,
                                                sizeof type)
                          : KL_OK;
  snprintf(options, sizeof options, "%s%s%s", type, type[0] ? " " : "",
           extra ? extra : "");
  cl_kernel k = NULL;
  if (st == KL_OK) st = kl__cl_kernel(a->ctx, source, options, name, &k);
  a->state.pointer[slot] = k;
  return st;
}

void kl__cl_teardown(kl_args *a) {
  for (int i = 0; i < 4; i++) {
    if (a->state.pointer[i]) (void)kl__cl.ReleaseKernel(a->state.pointer[i]);
    a->state.pointer[i] = NULL;
  }
}

kl_status kl__cl_launch(const kl_args *a, cl_kernel k, size_t global,
                        size_t local) {
  if (global == 0) return KL_OK;
  /* The runtime's choice of group (local 0: an element a work-item, on a
   * CPU) divides global: where global has no divisor near its best size
   * (a prime count), PoCL ran groups of one item, 4 times slower (stream's
   * copy at n = 5592406 doubles: 6.8 against 25.9 GB/s at 5592404). Such
   * a count is padded to whole groups of 64; these kernels bound their
   * index, as they do for a GPU's groups of 256. */
  if (local == 0 && global % 64 != 0) local = 64;
  if (local > 0) global = (global + local - 1) / local * local;
  KL_CL_CHECK(kl__cl.EnqueueNDRangeKernel(kl__cl_queue(a), k, 1, NULL,
                                          &global, local ? &local : NULL, 0,
                                          NULL, NULL));
  return KL_OK;
}

const kl_backend kl__backend_opencl = {
    .name = "opencl",
    .summary = "OpenCL C kernels on any vendor's device (PoCL on a CPU)",
    .host_memory = 0,
    /* Below every other: a library call that names no context takes
     * OpenMP's or CUDA's rung, not a PoCL program built at its first call
     * (kl_context_open("opencl") asks for it). */
    .preference = -1,
    .probe = probe,
    .memory = memory,
    .open = open_context,
    .close = close_context,
    .alloc = alloc,
    .release = release,
    .copy = copy,
    .fill_bytes = fill_bytes,
    .sync = sync_all,
    .record = record,
    .elapsed = elapsed,
    .device_count = device_count,
    .describe = describe,
    .left_out = left_out,
    .compile_seconds = compile_seconds,
};

#endif
