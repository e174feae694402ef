/* Internal helpers shared by the core, the backends and the workloads.
 * Not installed; kl__ names are not part of the public API. */
#ifndef KL_INTERNAL_H
#define KL_INTERNAL_H

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Record an error for kl_last_error() and return s. Device and runtime
 * failures go through KL_FAIL so that the message names the file and line;
 * usage errors are for the user and carry no location. */
kl_status kl__fail_at(kl_status s, const char *file, int line,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
kl_status kl__usage(kl_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#define KL_FAIL(s, ...) kl__fail_at((s), __FILE__, __LINE__, __VA_ARGS__)

/* ---- random inputs ------------------------------------------------------
 * Counter-based: element i of stream `stream` under seed `seed` is a pure
 * function of the three, so fills run in parallel, reproduce exactly for a
 * seed, and differ for every seed. */
uint64_t kl__hash(uint64_t seed, uint64_t stream, uint64_t i);
double kl__uniform(uint64_t seed, uint64_t stream, uint64_t i); /* [0, 1) */
void kl__fill_uniform(kl_type t, void *dst, int64_t n, uint64_t seed,
                      uint64_t stream, double lo, double hi);

/* ---- checks ---------------------------------------------------------- */
/* Finish a verdict from the counts a check loop gathered. */
void kl__verdict_set(kl_verdict *v, int64_t checked, int64_t bad,
                     int64_t first_bad, double max_error, double abs_error);

/* ---- machine ----------------------------------------------------------- */
/* KLADDER_MEMORY_LIMIT=SIZE (the syntax of -n, in bytes): the most memory
 * kladder believes the host, and each device, has. SIZE_MAX when unset;
 * KL_USAGE or KL_TOO_LARGE, with a message, when malformed. */
kl_status kl__memory_limit(size_t *limit);
/* Free host memory, at most the limit. */
size_t kl__host_memory_available(void);
int kl__omp_threads(void);
int kl__omp_thread(void); /* this thread's number inside a parallel region */
int kl__omp_team(void);   /* the number of threads in that region */
double kl__now(void); /* monotonic seconds */

/* ---- the host backends share one memory model -------------------------- */
kl_status kl__host_alloc(void **ptr, size_t bytes);
void kl__host_release(void *ptr);
kl_status kl__host_copy(void *dst, const void *src, size_t bytes);
kl_status kl__host_fill_bytes(void *dst, int byte, size_t bytes);
kl_status kl__host_sync(void);
kl_status kl__host_memory(size_t *free_bytes, size_t *total_bytes);
kl_status kl__host_timer_start(void);
kl_status kl__host_timer_stop(double *seconds);
void *kl__host_stream(void);

/* The fields every host backend shares: host memory, memcpy, a monotonic
 * clock. */
#define KL_HOST_BACKEND(backend_name, backend_summary, probe_fn)              \
  {                                                                           \
    .name = backend_name, .summary = backend_summary, .host_memory = 1,       \
    .probe = probe_fn, .alloc = kl__host_alloc, .release = kl__host_release,  \
    .upload = kl__host_copy, .download = kl__host_copy,                       \
    .fill_bytes = kl__host_fill_bytes, .sync = kl__host_sync,                 \
    .memory = kl__host_memory, .timer_start = kl__host_timer_start,           \
    .timer_stop = kl__host_timer_stop, .stream = kl__host_stream,             \
  }

/* PASS, FAIL, WRONG(expected), ... as the table and progress print it. */
const char *kl__check_text(const kl_result *r);
/* "n", or "MxNxK" for a workload with dims (an extent not given is n). */
void kl__size_text(const kl_workload *w, int64_t n, const kl_shape *s,
                   char *dst, size_t size);

/* Run the backend's fastest hand-written rung of a workload once: the
 * library's entry points. buffers[i] is the caller's buffer i: IN buffers
 * in host memory, or in the backend's memory when data_on_device; OUT
 * buffers always in host memory. */
kl_status kl__run_fastest(const kl_workload *w, const char *backend,
                          const kl_problem *pb, void *const *buffers,
                          int data_on_device);

/* Bandwidth-ceiling lookup for a backend: the ceiling-flagged rung of the
 * stream workload. */
const kl_rung *kl__ceiling_rung(const kl_workload **w, const char *backend);

#ifdef __cplusplus
}
#endif

/* Name of the GPU backend this library was built for; the GPU rungs of
 * every workload are named with it, so that one source serves both. */
#if defined(KL_HAVE_HIP)
#define KL_GPU "hip"
#else
#define KL_GPU "cuda"
#endif

#if defined(KL_HAVE_CUDA) || defined(KL_HAVE_HIP)
#define KL_HAVE_GPU 1
#define KL_GPU_FN(fn) fn
#else
#define KL_GPU_FN(fn) NULL
#endif

#endif
