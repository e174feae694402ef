/* kladder: ladders of compute kernels, verified and measured against the
 * hardware's ceiling in the same run. The installed headers are the
 * users' API, one per audience:
 *
 *   kladder.h        every program: status codes, element types,
 *                    backends, devices and contexts, the build, wisdom;
 *   kladder-reduce.h, kladder-histogram.h, kladder-laplacian.h,
 *   kladder-cg.h, kladder-gemm.h
 *                    a program calling one entry point, which runs the
 *                    fastest rung this machine's wisdom names;
 *   kladder-run.h    a program driving runs: workloads and their rungs,
 *                    options, results, reports and results files;
 *   kladder-ranks.h  a rank transport (MPI) plugged into a run.
 *
 * The model that workloads and backends are written against (parameters,
 * plans, rungs, backends) is none of them: it lives in the source tree
 * (src/core/model.h) and may change in any release without breaking a
 * program built against these headers. libkladder.so exports the
 * functions these headers declare (its version script, src/kladder.map,
 * lists them), and those of a private node that only the command and the
 * GPU module call.
 *
 * What the soname promises. libkladder.so.MAJOR.MINOR keeps its ABI for
 * every release of that MAJOR.MINOR: a program built against these
 * headers runs with any of them. Within it, functions are only added, and
 * the structs only grow at their end; each struct that grows begins with
 * a `size` field, so that the library and the program can each tell which
 * fields the other knows (structs the caller fills are set up by their
 * _init functions, which record the caller's size). A new MINOR (while
 * MAJOR is 0) or MAJOR may change anything, under a new soname.
 *
 * Thread contract. Every function may be called from any thread. Calls
 * that use one context are serialized: each holds the context's lock for
 * its duration, so two threads sharing a context take turns, and two
 * threads with a context each run at once. A NULL context means the
 * process's default context of the chosen backend's device 0, opened on
 * first use, shared and locked the same way, and closed at exit. kl_run()
 * opens contexts of its own. A kl_report is read-only once returned: any
 * number of threads may read it; free it once. kl_last_error() is per
 * thread. Usable from C11 and C++. */
#ifndef KLADDER_H
#define KLADDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "kladder-version.h"

/* ---- status codes -------------------------------------------------------
 * Every public function returns one. kl_exit_code() maps it onto the CLI's
 * documented exit codes: 0 success, 1 a check failed, 2 bad usage or input,
 * 3 a device or runtime error; 130 interrupted (a run stopped by its
 * `stop` flag: the command exits 128 + the signal's number). A wrong or
 * unconverged answer is never KL_OK: KL_NOT_CONVERGED (exit code 1) is an
 * iterative solve (kl_cg) that stopped at its iteration cap above its
 * tolerance. New codes are added at the end. */
#define KL_STATUS_MAP(X)                                                      \
  X(OK, 0, "success")                                                         \
  X(CHECK_FAILED, 1, "a verification check failed")                           \
  X(USAGE, 2, "bad usage or input")                                           \
  X(TOO_LARGE, 2, "problem too large for this machine's memory")              \
  X(UNAVAILABLE, 2, "backend or rung not available here")                     \
  X(NO_MEMORY, 3, "memory allocation failed")                                 \
  X(DEVICE, 3, "device or runtime error")                                     \
  X(IO, 3, "file input/output error")                                         \
  X(INTERRUPTED, 130, "interrupted")                                          \
  X(NOT_CONVERGED, 1, "an iterative solve stopped at its cap, unconverged")

typedef enum kl_status {
#define KL_STATUS_ENUM(name, exit_code, text) KL_##name,
  KL_STATUS_MAP(KL_STATUS_ENUM)
#undef KL_STATUS_ENUM
  KL_STATUS_COUNT
} kl_status;

/* A status in a few words ("success"), and the command's exit code for
 * it. */
const char *kl_status_name(kl_status s);
int kl_exit_code(kl_status s);
/* The message of the last error on this thread: what failed, and where. */
const char *kl_last_error(void);

/* ---- element types ----------------------------------------------------- */
#define KL_TYPE_MAP(X)                                                        \
  X(F32, "f32", 4)                                                            \
  X(F64, "f64", 8)                                                            \
  X(I32, "i32", 4)                                                            \
  X(I64, "i64", 8)                                                            \
  X(U8, "u8", 1)                                                              \
  X(U32, "u32", 4)                                                            \
  X(U64, "u64", 8)

typedef enum kl_type {
  KL_TYPE_DEFAULT = -1, /* the workload's default type */
#define KL_TYPE_ENUM(name, text, size) KL_##name,
  KL_TYPE_MAP(KL_TYPE_ENUM)
#undef KL_TYPE_ENUM
  KL_TYPE_COUNT
} kl_type;

#define KL_TYPE_BIT(t) (1u << (unsigned)(t))

/* A type's name ("f64"; "default" for KL_TYPE_DEFAULT, "(not a type)"
 * past them) and its element's bytes (0 for none). */
const char *kl_type_name(kl_type t);
size_t kl_type_size(kl_type t);
/* KL_OK and *out set, or KL_USAGE for an unknown name. */
kl_status kl_type_parse(const char *name, kl_type *out);

/* ---- backends and devices ----------------------------------------------
 * A device is named "BACKEND" (its device 0) or "BACKEND:INDEX"
 * ("cuda:1"), as `kladder run -b` and kl_context_open() take it. */
typedef struct kl_backend_info {
  size_t size;         /* the caller's sizeof(kl_backend_info) */
  const char *name;    /* "serial", "openmp", "cuda", "hip", "openacc" */
  const char *summary;
  int available;       /* usable in this process */
  char detail[256];    /* what its probe found, or why it is unusable */
  int device_count;    /* 0 where unavailable */
  int host_memory;     /* its buffers are host memory */
} kl_backend_info;

typedef struct kl_device_info {
  size_t size;         /* the caller's sizeof(kl_device_info) */
  const char *backend;
  int index;           /* on its backend */
  char id[48];         /* "cuda:1": what -b and kl_context_open take */
  char name[128];      /* "NVIDIA H100 80GB HBM3", the CPU's model */
  size_t memory_bytes; /* total memory */
  int compute_units;   /* SMs or CUs; hardware threads on the host */
  int lanes;           /* threads of a warp or wavefront; 1 on the host */
} kl_device_info;

/* The backends this library was built with, usable here or not. */
size_t kl_backend_count(void);
/* Backend i (0 .. kl_backend_count() - 1). out->size must be set:
 *   kl_backend_info b = {.size = sizeof b};
 *   kl_backend_describe(0, &b); */
kl_status kl_backend_describe(size_t i, kl_backend_info *out);
/* Device `index` of the named backend; KL_USAGE for an unknown name or
 * index, KL_UNAVAILABLE where the backend is not usable here. */
kl_status kl_device_describe(const char *backend, int index,
                             kl_device_info *out);

/* ---- contexts ----------------------------------------------------------
 * One device of a backend, opened: its streams, events and state. Open as
 * many as needed, on one device or several; each is closed once. */
typedef struct kl_context kl_context;

/* device: "openmp", "cuda", "cuda:1"; NULL: the available backend the
 * library prefers (a GPU where there is one). KL_USAGE, with one line in
 * kl_last_error(), for an unknown backend or an index past its devices;
 * KL_UNAVAILABLE where the backend is not usable here. */
kl_status kl_context_open(const char *device, kl_context **out);
void kl_context_close(kl_context *ctx);
/* The device a context runs on. */
kl_status kl_context_device(kl_context *ctx, kl_device_info *out);
/* The caller's stream (a cudaStream_t or hipStream_t of the context's
 * device: CuPy's, PyTorch's) in the place of the context's own: the entry
 * points and kl_run_rung on ctx queue their work there, after the
 * caller's, and wait for that stream alone, never the whole device. NULL:
 * the context's own stream again (the default stream is
 * cudaStreamLegacy or cudaStreamPerThread here). What the context queued before is
 * finished first. The caller keeps the stream alive while ctx uses it;
 * the context never destroys it. KL_UNAVAILABLE, with why, where the
 * backend has no streams (the host's, OpenCL's). */
kl_status kl_context_adopt_stream(kl_context *ctx, void *stream);

/* How this library was built, as the results files record it. */
typedef struct kl_build_info {
  size_t size;            /* the library's sizeof(kl_build_info) */
  const char *version;    /* KL_VERSION */
  const char *commit;     /* `git describe` of the sources; "" when they
                             were not a git checkout */
  const char *build_type; /* Release, Debug, ... */
  const char *c_compiler; /* "GNU 12.2.0" */
  const char *c_flags;
  const char *gpu_compiler; /* "" without a GPU backend */
  const char *gpu_flags;
} kl_build_info;

/* This library's build: the library's, never freed. */
const kl_build_info *kl_build(void);

/* Wisdom: which rung, on which backend, the entry points (kl_reduce,
 * kl_histogram, ...) run for a problem of a size, as `kladder tune`
 * measured it on this machine with this build. Read once per process
 * from KLADDER_WISDOM's path ("none": no wisdom), else
 * $XDG_CACHE_HOME/kladder/wisdom or $HOME/.cache/kladder/wisdom; a file of
 * another build or device is ignored whole. Where no file is read (none
 * there, or one ignored) the built-in wisdom serves: tune's file of an
 * H100 machine and its host, the defaults of any machine. With
 * KLADDER_WISDOM=none an entry point runs its backend's library rung, on
 * the preferred backend where no context is given. kl_wisdom_note: one
 * line saying which file was read and how many picks it gave, or why none
 * applies and that the built-in wisdom serves. kl_dispatch: the
 * backend and rung an entry point would run for workload, type and n on
 * ctx (NULL: no context), library-owned names; KL_UNAVAILABLE where none
 * serves. Both thread-safe. */
const char *kl_wisdom_note(void);
kl_status kl_dispatch(kl_context *ctx, const char *workload, kl_type type,
                      int64_t n, const char **backend, const char **rung);

#ifdef __cplusplus
}
#endif
#endif
