/* Internal helpers shared by the core, the backends and the workloads.
 * Not installed; kl__ names are not part of the public API. */
#ifndef KL_INTERNAL_H
#define KL_INTERNAL_H

#include "model.h"

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
/* A parameter that a function of a fixed signature (a hook, a table's
 * getter, a stub) does not read. */
#if defined(__GNUC__)
#define KL__UNUSED __attribute__((unused))
#else
#define KL__UNUSED
#endif
/* Every public function returns through this: KL_OK clears the message of
 * an earlier call (or of a step that failed and was recovered from). */
kl_status kl__done(kl_status s);
/* A user's text quoted in a message, cut to its first KL_CLIP_BYTES bytes
 * so that the reason after it always fits the message:
 *   kl__usage(KL_USAGE, "size " KL_Q " is zero", KL_CLIP(text)) */
#define KL_CLIP_BYTES 48
#define KL_Q "'%.48s%s'"
#define KL_CLIP(text) (text), kl__ellipsis(text)
const char *kl__ellipsis(const char *text); /* "..." where it is cut */
/* A real number as the whole of text: NULL and *out set, or why not ("is
 * not a number"), to follow the quoted text in a message. */
const char *kl__parse_real(const char *text, double *out);

/* ---- random inputs ------------------------------------------------------
 * Counter-based: element i of stream `stream` under seed `seed` is a pure
 * function of the three, so fills run in parallel, reproduce exactly for a
 * seed, and differ for every seed. */
uint64_t kl__hash(uint64_t seed, uint64_t stream, uint64_t i);
double kl__uniform(uint64_t seed, uint64_t stream, uint64_t i); /* [0, 1) */
void kl__fill_uniform(kl_type t, void *dst, int64_t n, uint64_t seed,
                      uint64_t stream, double lo, double hi);
/* Elements first .. first + n - 1 of the same sequence, into dst[0 ..
 * n - 1]: a rank's part of a distributed array. */
void kl__fill_uniform_at(kl_type t, void *dst, int64_t first, int64_t n,
                         uint64_t seed, uint64_t stream, double lo,
                         double hi);

/* ---- checks ------------------------------------------------------------
 * Every workload's check goes through one element-wise checker. Element i
 * passes when it equals its reference (the same infinity too), when both
 * are NaN, or when |got - want| <= tol for a finite tol; anything else
 * fails, a NaN where the reference is a number and an infinite tolerance
 * (which bounds nothing) among them. The verdict gathers the count, the
 * first bad index, the worst error over tolerance and the largest absolute
 * error. long double holds every int64 and uint64 exactly (x86's 64-bit
 * significand; counts below 2^53 are exact in any case). */
typedef struct kl_element {
  long double got, want;
  double tol;
} kl_element;
typedef void (*kl_element_fn)(const void *ctx, int64_t i, kl_element *e);
void kl__check_elements(int64_t count, kl_element_fn element, const void *ctx,
                        kl_verdict *v);
/* The same, for a check that finds its elements faster in runs (a grid's
 * row: one index division a run, not one an element): run fills e[0..n)
 * with elements first..first+n, n at most KL_CHECK_RUN. */
#define KL_CHECK_RUN 256
typedef void (*kl_elements_fn)(const void *ctx, int64_t first, int n,
                               kl_element *e);
void kl__check_runs(int64_t count, kl_elements_fn run, const void *ctx,
                    kl_verdict *v);
/* Where `count` elements (or quantities) of a verdict cannot be verified
 * in the type's range, say so: the verdict is then UNVERIFIABLE where
 * nothing is bad (`why`, or NULL: the bound overflows). */
void kl__verdict_unverifiable(kl_verdict *v, int64_t count, const char *why);
/* Finish a verdict from the counts a check gathered. */
void kl__verdict_set(kl_verdict *v, int64_t checked, int64_t bad,
                     int64_t first_bad, double max_error, double abs_error);
/* Element i of a buffer of type t, widened. */
long double kl__element(kl_type t, const void *buf, int64_t i);
/* Element i of got against the same of want, bit for bit (tolerance 0;
 * -0 for +0 or another NaN's bits fail): a value a rung must leave as it
 * was. */
void kl__same_bits(kl_type t, const void *got, const void *want, int64_t i,
                   kl_element *e);

/* ---- plans ------------------------------------------------------------- */
/* The main-size elements of a plan's chunks but the last (all of them in
 * a plan of one chunk), and the first element of its current chunk. */
static inline int64_t kl__chunk_size(const kl_plan *p) {
  return p->chunk_count > 1 ? (p->n + p->chunk_count - 1) / p->chunk_count
                            : p->n;
}
static inline int64_t kl__chunk_start(const kl_plan *p) {
  return p->chunk * kl__chunk_size(p);
}
/* KL_OK where the plan was made for a device (p->device), which a
 * scratch hook that sizes by the device needs; else why not. */
kl_status kl__plan_has_device(const kl_plan *p);
/* Declare buffer `index` of a plan as a rung's scratch (KL_BUFFER_SCRATCH,
 * plus KL_BUFFER_ZEROED where it must start at zero) and extend the
 * plan's buffer count to cover it. KL_USAGE past KL_MAX_BUFFERS. */
kl_status kl__plan_scratch(kl_plan *p, int index, const char *name,
                           kl_type type, int64_t count, kl_placement where,
                           unsigned flags);

/* Read `bytes` bytes of an input file from byte `offset` into dst, in
 * pieces; KL_IO, with kl_last_error() saying why, where it cannot be read
 * or no longer has the size `planned` it had when the run was planned. */
kl_status kl__input_read(const char *path, int64_t planned, int64_t offset,
                         void *dst, int64_t bytes);

/* ---- a distributed workload's ranks (ranks.c) ---------------------------
 * What plan(), the rungs and the check of a distributed workload
 * (kl_workload.distributed) call: each is a no-op for one rank (the plan's
 * ranks NULL), so the same code serves a run without MPI. */
int kl__rank(const kl_plan *p);
int kl__rank_count(const kl_plan *p);
/* Rank `rank` of `count`'s share of n items, in order: *start and *len;
 * the first n % count ranks have one more. */
void kl__share(int64_t n, int rank, int count, int64_t *start, int64_t *len);
/* A grid of count ranks, dims[0] * dims[1] * dims[2] = count: the
 * factoring whose busiest rank exchanges the fewest points (its faces:
 * two along an axis of three ranks or more, one along an axis of two),
 * for a whole grid of ext shared (strong scaling: every rank at least
 * one plane along each axis, else KL_USAGE saying so) or boxes of ext
 * points each (per_rank, weak scaling: slabs, two faces a rank at most,
 * where HPCG's even factoring gives 2 x 2 x 2 ranks three); among equals
 * the fewest ranks along x, then y, so that faces are z planes (one
 * contiguous run) before y planes (rows) before x planes (points). And
 * rank r's place in it, x fastest. */
kl_status kl__rank_grid(int count, const int64_t ext[3], int per_rank,
                        int dims[3]);
void kl__rank_coords(int rank, const int dims[3], int coord[3]);
int kl__rank_at(const int dims[3], const int coord[3]); /* -1 outside */
/* A box with its layer, ext points along each axis, x fastest, elements
 * of es bytes (boxes.c): the sub-box lo .. hi - 1 copied to a packed
 * buffer, x fastest there too (to_packed), or back; its rows by memcpy,
 * in parallel where asked. And the shell of the range lo .. hi - 1, the
 * points not in lo + 1 .. hi - 2, as six slabs without overlap (two
 * planes across z, two across y between them, two across x), fn called
 * for each that holds a point (kl__box_around's inner part one point in
 * from every side). */
void kl__box_copy(const int64_t ext[3], size_t es, char *grid, char *packed,
                  const int64_t lo[3], const int64_t hi[3], int to_packed,
                  int parallel);
void kl__box_shell(const int64_t lo[3], const int64_t hi[3],
                   void (*fn)(void *ctx, const int64_t lo[3],
                              const int64_t hi[3]),
                   void *ctx);
/* The points of the range lo .. hi - 1 outside its part in_lo .. in_hi
 * - 1 (clipped to it), as up to six slabs without overlap in the same
 * order, only those that hold a point: the shell of an overlapped rung
 * whose layer arrives on some sides alone. */
void kl__box_around(const int64_t lo[3], const int64_t hi[3],
                    const int64_t in_lo[3], const int64_t in_hi[3],
                    void (*fn)(void *ctx, const int64_t lo[3],
                               const int64_t hi[3]),
                    void *ctx);
/* In place over the plan's ranks (a no-op for one). */
void kl__allreduce(const kl_plan *p, void *values, int n, kl_type type,
                   kl_ranks_op op);
/* The same, started: the values are reduced once wait returns (at once
 * where the kl_ranks has no non-blocking allreduce; NULL then, which wait
 * accepts). */
void *kl__allreduce_start(const kl_plan *p, void *values, int n,
                          kl_type type, kl_ranks_op op);
void kl__allreduce_wait(const kl_plan *p, void *pending);
/* Start the messages (each to and from its peer) and wait for them;
 * start returns NULL for one rank, which wait accepts. */
void *kl__exchange_start(const kl_plan *p, const kl_message *m, int count);
void kl__exchange_wait(const kl_plan *p, void *pending);
/* Whether the plan's ranks take device memory in their messages (a
 * CUDA-aware MPI); 0 for one rank. */
int kl__ranks_device_memory(const kl_plan *p);
/* Memory the plan's ranks share (kl_ranks.share), collective: a handle,
 * and in parts[r] (kl__rank_count entries) rank r's `bytes` as this
 * process addresses it, NULL where rank r is on another host. NULL, and
 * every part NULL, where the ranks share none (one rank, or a kl_ranks
 * without share; the same on every rank). shared_sync orders this rank's
 * loads and stores of it against the others' (after writing, before the
 * message that says so; after the message, before reading); unshare,
 * collective, gives it back (NULL accepted). */
int kl__ranks_shares(const kl_plan *p);
/* Every rank's status made one (collective; st itself for one rank): the
 * lowest failing rank's, its message naming it, on every rank. A rung's
 * setup that makes collectives agrees before it keeps what they made. */
kl_status kl__ranks_agreed(const kl_plan *p, kl_status st);
void *kl__ranks_share(const kl_plan *p, size_t bytes, void **parts);
void kl__ranks_shared_sync(const kl_plan *p, void *handle);
void kl__ranks_unshare(const kl_plan *p, void *handle);
/* Rank 0's `size` bytes on every rank, in place; and every rank's
 * `words` 64-bit words (1 to 512) in rank order, all[r * words + w],
 * where `all` holds count x words (NULL where the caller could not
 * allocate it: the collectives are made all the same, so that the others
 * do not wait; the caller says so in its own words). Both made of
 * allreduce sums (a rank's setup, untimed: an NCCL communicator's id and
 * each rank's device); with one rank, no collective. */
void kl__ranks_broadcast(const kl_plan *p, void *bytes, size_t size);
void kl__ranks_gather(const kl_plan *p, const uint64_t *mine, int words,
                      uint64_t *all);
/* In a gathered `all` of count ranks: the first pair of ranks i < j
 * (least i, then least j) whose words are the same, and 1; 0 where no
 * two are. */
int kl__ranks_alike(const uint64_t *all, int count, int words, int pair[2]);
/* A phase's seconds added to the repetition's (a->phase_seconds, where
 * there is one): kl__phase(a, k, kl__now() - t0). */
void kl__phase(const kl_args *a, int k, double seconds);

/* ---- machine ----------------------------------------------------------- */
/* The CPU, its threads, the host, and the GPU and driver of the first
 * device backend among `backends` (count of them) that is here: only the
 * backends a run uses are asked, so that a run on host backends loads no
 * GPU module. */
void kl__machine_describe(kl_machine *m, const kl_backend *const *backends,
                          size_t count);
/* The same without the GPU: asks no backend whether it is here (a host
 * context opens without loading the GPU module). */
void kl__host_describe(kl_machine *m);
/* KLADDER_MEMORY_LIMIT=SIZE (the syntax of -n, in bytes): the most memory
 * kladder believes the host, and each device, has. SIZE_MAX when unset;
 * KL_USAGE or KL_TOO_LARGE, with a message, when malformed. */
kl_status kl__memory_limit(size_t *limit);
/* Free host memory as the system reports it (no limit applied). */
size_t kl__host_memory_available(void);
int kl__omp_threads(void);
int kl__omp_thread(void); /* this thread's number inside a parallel region */
int kl__omp_team(void);   /* the number of threads in that region */
double kl__now(void); /* monotonic seconds */

/* ---- the trace of a repetition (trace.c) ---------------------------------
 * A rung that owns its loop adds each event of a repetition, in seconds
 * from the repetition's start, after clearing reps->trace_count at that
 * start; an event that finds the trace full is counted as lost. wall:
 * from the first event's start to the last one's end; busy: the union of
 * one phase's events; overlap: wall over the longest phase's busy time
 * (0: no phase's events, or events lost). */
#define KL_MAX_TRACE_EVENTS 65536
void kl__trace_add(kl_reps *reps, int track, int phase, int item,
                   double start, double end);
double kl__trace_wall(const kl_trace_event *e, int count);
double kl__trace_busy(const kl_trace_event *e, int count, int phase);
double kl__trace_overlap(const kl_trace_event *e, int count, int lost);

/* ---- the host backends share one memory model -------------------------- */
kl_status kl__host_alloc(void **ptr, size_t bytes);
void kl__host_release(void *ptr);
/* While a run is open, released blocks of 2 MiB or more are kept for a
 * request of their exact size (host.c says why); opens nest, the last
 * close frees the kept ones. kl__host_pool_bytes: the bytes kept, which
 * the host's available memory counts. */
void kl__host_pool_open(void);
void kl__host_pool_close(void);
size_t kl__host_pool_bytes(void);
/* A core's L2 in bytes, from sysconf; 1 MiB where it does not say. */
int64_t kl__host_l2_bytes(void);
/* The host's last-level cache: its L3, else its L2. */
int64_t kl__host_cache_bytes(void);
/* How many times its last-level cache `cache` a host of `threads`
 * hardware threads has its quick sizes go past, where a workload wants
 * `wanted`: once where the cache is larger than KL__CACHE_THREAD_MOST a
 * thread (a virtual machine's host's), else `wanted` (host.c says why). */
double kl__host_cache_multiple(int64_t cache, int threads, double wanted);
#define KL__CACHE_THREAD_MOST ((int64_t)32 << 20)
/* The host's free and total memory (its one device: `device` is 0). */
kl_status kl__host_memory(int device, size_t *free_bytes, size_t *total_bytes);
/* The host as a device: its CPU, memory, hardware threads, L2. */
void kl__host_device(kl_device *d);
kl_status kl__host_open(kl_context *ctx);
void kl__host_close(kl_context *ctx);
kl_status kl__host_ctx_alloc(kl_context *ctx, kl_placement where, void **ptr,
                             size_t bytes);
void kl__host_ctx_release(kl_context *ctx, kl_placement where, void *ptr);
kl_status kl__host_copy(kl_context *ctx, int stream, void *dst,
                        const void *src, size_t bytes);
kl_status kl__host_fill_bytes(kl_context *ctx, kl_placement where,
                              void *dst, int byte, size_t bytes);
kl_status kl__host_sync(kl_context *ctx);
/* Events as host clock readings, in a context's array of marks: the host
 * backends', and those of a backend without events of its own. */
kl_status kl__clock_record(double marks[KL_MAX_EVENTS], int event);
kl_status kl__clock_elapsed(const double marks[KL_MAX_EVENTS], int from,
                            int to, double *seconds);
kl_status kl__host_record(kl_context *ctx, int event, int stream);
kl_status kl__host_elapsed(kl_context *ctx, int from, int to,
                           double *seconds);

/* The fields every host backend shares: host memory, memcpy, a monotonic
 * clock. */
#define KL_HOST_BACKEND(backend_name, backend_summary, rank, probe_fn, ...)   \
  {                                                                           \
    .name = backend_name, .summary = backend_summary, .host_memory = 1,       \
    .preference = rank, .probe = probe_fn, .memory = kl__host_memory,         \
    .open = kl__host_open, .close = kl__host_close,                           \
    .alloc = kl__host_ctx_alloc, .release = kl__host_ctx_release,             \
    .copy = kl__host_copy, .fill_bytes = kl__host_fill_bytes,                 \
    .sync = kl__host_sync, .record = kl__host_record,                         \
    .elapsed = kl__host_elapsed, __VA_ARGS__                                  \
  }

/* The backends and workloads themselves are declared beside the core,
 * in src/registry.h: the core includes nothing of the layers above it. */

/* ---- parameters ------------------------------------------------------- */
/* The index of the workload's parameter with this flag, or -1. */
int kl__param_with(const kl_workload *w, unsigned flag);

/* Run the library's rung of a workload for the problem on ctx, or (NULL)
 * on the process's default context of the preferred available backend
 * that has one: the library's entry points. buffers[i] is the caller's
 * buffer i: IN buffers in host memory, or in the backend's memory when
 * data_on_device; OUT buffers always in host memory. */
kl_status kl__run_library(kl_context *ctx, const kl_workload *w,
                          const kl_problem *pb, void *const *buffers,
                          int data_on_device);

#ifdef __cplusplus
}
#endif

/* The one dispatch on element type: `body` with T the C type of t, in a
 * case of its own per type; `otherwise` for a type outside the family.
 * KL_FOR_FLOAT_TYPE covers f32 and f64, KL_FOR_TYPE every type. The body
 * comes last, so that its commas need no parentheses. Works in C and in
 * CUDA/HIP sources, e.g.
 *   KL_FOR_FLOAT_TYPE(p->type, T, return KL_USAGE, return launch<T>(a)); */
#define KL_TYPE_CASE(tag, ctype, T, ...)                                       \
  case tag: {                                                                 \
    typedef ctype T;                                                          \
    __VA_ARGS__;                                                              \
  } break;
#define KL_FOR_FLOAT_TYPE(t, T, otherwise, ...)                               \
  do {                                                                        \
    switch (t) {                                                              \
      KL_TYPE_CASE(KL_F32, float, T, __VA_ARGS__)                             \
      KL_TYPE_CASE(KL_F64, double, T, __VA_ARGS__)                            \
    default: { otherwise; } break;                                            \
    }                                                                         \
  } while (0)
#define KL_FOR_TYPE(t, T, otherwise, ...)                                     \
  do {                                                                        \
    switch (t) {                                                              \
      KL_TYPE_CASE(KL_F32, float, T, __VA_ARGS__)                             \
      KL_TYPE_CASE(KL_F64, double, T, __VA_ARGS__)                            \
      KL_TYPE_CASE(KL_I32, int32_t, T, __VA_ARGS__)                           \
      KL_TYPE_CASE(KL_I64, int64_t, T, __VA_ARGS__)                           \
      KL_TYPE_CASE(KL_U8, uint8_t, T, __VA_ARGS__)                            \
      KL_TYPE_CASE(KL_U32, uint32_t, T, __VA_ARGS__)                          \
      KL_TYPE_CASE(KL_U64, uint64_t, T, __VA_ARGS__)                          \
    default: { otherwise; } break;                                            \
    }                                                                         \
  } while (0)

/* Rungs and engines that need an optional library name their function
 * through one of these: the function where the build has the library, NULL
 * (listed, not built) where it has not. Only here does a build's content
 * decide anything; the sources that use a library are compiled only where
 * it is found (CMakeLists.txt). In libkladder.so the GPU functions named
 * here are stubs that call into the GPU module, generated from these
 * names and their declarations in the workloads' headers
 * (cmake/kladder-gpu-entries.cmake, backends/module/module.h): declare
 * each as `kl_status NAME(...);` or `void NAME(...);` there. */
#if defined(KL_HAVE_CUDA) || defined(KL_HAVE_HIP)
#define KL_GPU_FN(fn) fn
#else
#define KL_GPU_FN(fn) NULL
#endif
/* OpenACC rungs (NAME-acc.c), built where the C compiler takes
 * -fopenacc. */
#if defined(KL_HAVE_OPENACC)
#define KL_ACC_FN(fn) fn
#else
#define KL_ACC_FN(fn) NULL
#endif
/* OpenCL rungs (NAME-cl.c with their kernels in NAME.cl), built where the
 * OpenCL headers were found. */
/* The teardown of every OpenCL rung: the kernels its state holds
 * released (src/backends/opencl.c). */
void kl__cl_teardown(kl_args *a);
#if defined(KL_HAVE_OPENCL)
#define KL_CL_FN(fn) fn
#else
#define KL_CL_FN(fn) NULL
#endif
/* NVIDIA-only instructions (mma.sync, cp.async in PTX): NAME-nvidia.cu. */
#if defined(KL_HAVE_CUDA)
#define KL_NVIDIA_FN(fn) fn
#else
#define KL_NVIDIA_FN(fn) NULL
#endif
/* Kernels rescheduled in SASS after ptxas (scripts/sass-schedule.py): an
 * image the build makes where it targets sm_90 and finds Python 3. */
#if defined(KL_HAVE_SASS)
#define KL_SASS_FN(fn) fn
#else
#define KL_SASS_FN(fn) NULL
#endif
#if defined(KL_HAVE_GPU_CUB)
#define KL_GPU_CUB_FN(fn) fn
#else
#define KL_GPU_CUB_FN(fn) NULL
#endif
#if defined(KL_HAVE_GPU_BLAS)
#define KL_GPU_BLAS_FN(fn) fn
#else
#define KL_GPU_BLAS_FN(fn) NULL
#endif
#if defined(KL_HAVE_GPU_SPARSE)
#define KL_GPU_SPARSE_FN(fn) fn
#else
#define KL_GPU_SPARSE_FN(fn) NULL
#endif
#if defined(KL_HAVE_GPU_RAND)
#define KL_GPU_RAND_FN(fn) fn
#else
#define KL_GPU_RAND_FN(fn) NULL
#endif
/* NCCL (RCCL under HIP): the distributed workloads' cuda-nccl rungs
 * (NAME-nccl.cu). */
#if defined(KL_HAVE_GPU_NCCL)
#define KL_GPU_NCCL_FN(fn) fn
#else
#define KL_GPU_NCCL_FN(fn) NULL
#endif
#if defined(KL_HAVE_OPENBLAS)
#define KL_OPENBLAS_FN(fn) fn
#else
#define KL_OPENBLAS_FN(fn) NULL
#endif

#endif
