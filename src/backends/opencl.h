/* The OpenCL backend as its rungs see it (src/backends/opencl.c): the
 * OpenCL library opened at the backend's first use (libOpenCL.so.1, the
 * ICD loader, through dlopen: libkladder.so starts where there is none),
 * its functions in kl__cl's table, a context's device and queue, and the
 * programs it has built.
 *
 * A rung's kernels are OpenCL C 1.2 in a .cl file beside its .c file
 * (stream.cl beside stream-cl.c), turned into the string kl__cl_source_NAME
 * at build time (cmake/kladder-cl-sources.cmake, cl-sources.h). Its setup
 * gets each kernel through kl__cl_kernel, which builds the program once per
 * context and options (the element type as -DT=double, a block size) and
 * keeps it; the build is untimed, and its seconds are the context's
 * (build_seconds). Device buffers are cl_mem handles, passed to a rung as
 * its kl_args.buffers; a kernel takes them with kl__cl_arg_buffer. */
#ifndef KL_BACKENDS_OPENCL_H
#define KL_BACKENDS_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "../core/internal.h"

/* The OpenCL functions kladder calls, from the library opened. */
typedef struct kl__cl_api {
  cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
  cl_int (*GetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void *,
                            size_t *);
  cl_int (*GetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint,
                         cl_device_id *, cl_uint *);
  cl_int (*GetDeviceInfo)(cl_device_id, cl_device_info, size_t, void *,
                          size_t *);
  cl_context (*CreateContext)(const cl_context_properties *, cl_uint,
                              const cl_device_id *,
                              void (*)(const char *, const void *, size_t,
                                       void *),
                              void *, cl_int *);
  cl_int (*ReleaseContext)(cl_context);
  cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id,
                                         cl_command_queue_properties,
                                         cl_int *);
  cl_int (*ReleaseCommandQueue)(cl_command_queue);
  cl_mem (*CreateBuffer)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
  cl_int (*ReleaseMemObject)(cl_mem);
  cl_int (*SetMemObjectDestructorCallback)(cl_mem,
                                           void(CL_CALLBACK *)(cl_mem,
                                                               void *),
                                           void *);
  cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_bool, size_t,
                              size_t, void *, cl_uint, const cl_event *,
                              cl_event *);
  cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_bool, size_t,
                               size_t, const void *, cl_uint,
                               const cl_event *, cl_event *);
  cl_int (*EnqueueCopyBuffer)(cl_command_queue, cl_mem, cl_mem, size_t,
                              size_t, size_t, cl_uint, const cl_event *,
                              cl_event *);
  cl_int (*EnqueueFillBuffer)(cl_command_queue, cl_mem, const void *, size_t,
                              size_t, size_t, cl_uint, const cl_event *,
                              cl_event *);
  void *(*EnqueueMapBuffer)(cl_command_queue, cl_mem, cl_bool, cl_map_flags,
                            size_t, size_t, cl_uint, const cl_event *,
                            cl_event *, cl_int *);
  cl_int (*EnqueueUnmapMemObject)(cl_command_queue, cl_mem, void *, cl_uint,
                                  const cl_event *, cl_event *);
  cl_int (*Finish)(cl_command_queue);
  cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **,
                                        const size_t *, cl_int *);
  cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *,
                         const char *,
                         void (*)(cl_program, void *), void *);
  cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id,
                                cl_program_build_info, size_t, void *,
                                size_t *);
  cl_int (*ReleaseProgram)(cl_program);
  cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
  cl_int (*ReleaseKernel)(cl_kernel);
  cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
  cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint,
                                 const size_t *, const size_t *,
                                 const size_t *, cl_uint, const cl_event *,
                                 cl_event *);
  cl_int (*GetKernelWorkGroupInfo)(cl_kernel, cl_device_id,
                                   cl_kernel_work_group_info, size_t, void *,
                                   size_t *);
} kl__cl_api;

extern kl__cl_api kl__cl;

/* An OpenCL error code's name ("CL_OUT_OF_RESOURCES"). */
const char *kl__cl_error(cl_int e);

/* Every call checked: a failure names the call, file and line. */
#define KL_CL_CHECK(call)                                                     \
  do {                                                                        \
    const cl_int kl_cl_err_ = (call);                                         \
    if (kl_cl_err_ != CL_SUCCESS)                                             \
      return KL_FAIL(KL_DEVICE, "%s failed: %s", #call,                       \
                     kl__cl_error(kl_cl_err_));                               \
  } while (0)

/* What a context holds (kl_context.impl). */
typedef struct kl__cl_context {
  cl_platform_id platform;
  cl_device_id device;
  cl_device_type type;
  cl_context context;
  cl_command_queue queue;
  int fp64;                /* cl_khr_fp64 */
  int host_backed;         /* a CPU device: large buffers in host memory */
  size_t max_alloc;        /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
  size_t max_group;        /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
  size_t local_bytes;      /* CL_DEVICE_LOCAL_MEM_SIZE */
  double build_seconds;    /* the programs' builds, all told */
  struct kl__cl_program *programs; /* built, kept until close */
  struct kl__cl_buffer *buffers;   /* cl_mem handles and pinned maps */
  double marks[KL_MAX_EVENTS];     /* record's host clock */
} kl__cl_context;

static inline kl__cl_context *kl__cl_of(const kl_context *ctx) {
  return (kl__cl_context *)ctx->impl;
}
static inline cl_command_queue kl__cl_queue(const kl_args *a) {
  return kl__cl_of(a->ctx)->queue;
}
/* Whether the context's device is a CPU (PoCL): launch shapes differ. */
static inline int kl__cl_on_cpu(const kl_args *a) {
  return (kl__cl_of(a->ctx)->type & CL_DEVICE_TYPE_CPU) != 0;
}

/* The launch shape of a kernel that goes over n elements and combines in
 * its group (reduce, read): on a GPU 256 work-items a group, 8 groups a
 * compute unit, each item striding by the whole grid (neighbouring items
 * read neighbouring elements: the loads coalesce); on a CPU (PoCL) one
 * item a group, 4 groups a core, each item a contiguous run of elements
 * (compiled with -DKL_CONTIGUOUS, kl__cl_stride_option): a GPU's shape
 * there has each thread read one element of every cache line it touches,
 * measured 1.8 against 32 GB/s for OpenMP at 16M doubles on the 2-core
 * host. At most `most` groups, and no more than n fills. */
static inline void kl__cl_stride_shape(const kl_args *a, int64_t n,
                                       size_t most, size_t *local,
                                       size_t *groups) {
  const size_t units = a->ctx->device.compute_units > 0
                           ? (size_t)a->ctx->device.compute_units
                           : 1;
  const int cpu = kl__cl_on_cpu(a);
  *local = cpu ? 1 : 256;
  *groups = (cpu ? 4 : 8) * units;
  if (*groups > most) *groups = most;
  const size_t need = ((size_t)n + *local - 1) / *local;
  if (*groups > need) *groups = need > 0 ? need : 1;
}
static inline const char *kl__cl_stride_option(const kl_args *a) {
  return kl__cl_on_cpu(a) ? " -DKL_CONTIGUOUS" : "";
}
/* The group of a kernel of an element a work-item: 256 on a GPU, the
 * runtime's choice (0) on a CPU. */
static inline size_t kl__cl_group(const kl_args *a) {
  return kl__cl_on_cpu(a) ? 0 : 256;
}

/* Kernel `name` of the program built from `source` with `options` ("-DT=
 * double"), building it once per context and options (untimed: a rung's
 * setup calls this); a failed build's message gives the first lines of
 * its log. */
kl_status kl__cl_kernel(kl_context *ctx, const char *source,
                        const char *options, const char *name,
                        cl_kernel *out);
/* An element type's OpenCL C name ("double"), NULL where it has none. */
const char *kl__cl_type_name(kl_type t);
/* The -D options of an element type: T (its OpenCL C name), and the
 * pragma for double; KL_UNAVAILABLE where the device has no fp64. */
kl_status kl__cl_type_options(const kl_args *a, kl_type t, char *dst,
                              size_t size);
/* A rung's setup, in one call: kernel `name` of `source` built for the
 * plan's element type (kl__cl_type_options; for_type 0: no type) and
 * `extra` options, into a->state.pointer[slot]; kl__cl_teardown (internal.h) releases
 * them. */
kl_status kl__cl_rung_kernel(kl_args *a, const char *source, int for_type,
                             const char *extra, const char *name, int slot);
/* Kernel arguments: a buffer (its cl_mem), or a value. */
#define KL_CL_ARG(kernel, index, value)                                       \
  KL_CL_CHECK(kl__cl.SetKernelArg((kernel), (index), sizeof(value), &(value)))
/* A 1D launch of global items in groups of local (0: the runtime's). */
kl_status kl__cl_launch(const kl_args *a, cl_kernel k, size_t global,
                        size_t local);

#endif
