/* kladder: ladders of compute kernels, verified and measured against the
 * hardware's ceiling in the same run.
 *
 * The model (docs/design.md has the picture):
 *   workload - a problem: its parameters, a plan of its buffers, random
 *              inputs, verification rule, cost model and ceiling;
 *   rung     - one implementation of a workload on one backend; a workload's
 *              rungs form its ladder, ordered from naive to best;
 *   backend  - one execution target (serial C, OpenMP, CUDA or HIP), opened
 *              as a context with its streams and events;
 *   report   - the measured results of a run: one kl_result per rung.
 *
 * Everything the `kladder` command does goes through kl_run() and the
 * kl_report_* writers below. Usable from C11 and C++. */
#ifndef KLADDER_H
#define KLADDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "kladder-version.h"

/* ---- status codes -------------------------------------------------------
 * Every public function returns one. kl_exit_code() maps it onto the CLI's
 * documented exit codes: 0 success, 1 a check failed, 2 bad usage or input,
 * 3 a device or runtime error. */
#define KL_STATUS_MAP(X)                                                      \
  X(OK, 0, "success")                                                         \
  X(CHECK_FAILED, 1, "a verification check failed")                           \
  X(USAGE, 2, "bad usage or input")                                           \
  X(TOO_LARGE, 2, "problem too large for this machine's memory")              \
  X(UNAVAILABLE, 2, "backend or rung not available here")                     \
  X(NO_MEMORY, 3, "memory allocation failed")                                 \
  X(DEVICE, 3, "device or runtime error")                                     \
  X(IO, 3, "file input/output error")

typedef enum kl_status {
#define KL_STATUS_ENUM(name, exit_code, text) KL_##name,
  KL_STATUS_MAP(KL_STATUS_ENUM)
#undef KL_STATUS_ENUM
  KL_STATUS_COUNT
} kl_status;

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

const char *kl_type_name(kl_type t);
size_t kl_type_size(kl_type t);
/* KL_OK and *out set, or KL_USAGE for an unknown name. */
kl_status kl_type_parse(const char *name, kl_type *out);

/* ---- parameters --------------------------------------------------------
 * A workload declares its parameters; `kladder run -p NAME=VALUE` sets any
 * of them and `kladder list -w W` prints them. Exactly one is the main
 * size (KL_PARAM_MAIN_SIZE, set by -n too), which the harness shrinks to
 * fit memory when it is not given. */
#define KL_MAX_PARAMS 12

typedef enum kl_param_kind {
  KL_PARAM_SIZE,   /* a count >= 1: digits with an optional K, M or G */
  KL_PARAM_INT,    /* an integer */
  KL_PARAM_REAL,   /* a finite real number */
  KL_PARAM_CHOICE  /* one name of a list; its value is the index */
} kl_param_kind;

/* Flags of a parameter. The group flags give the order in which the
 * positional options fill them: -s AxBxC the extents, --ld the leading
 * dimensions, --scalars (--alpha, --beta) the scalars. */
#define KL_PARAM_MAIN_SIZE 1u /* the main size: -n; shrunk to fit memory */
#define KL_PARAM_EXTENT 2u    /* -s fills these, in declaration order */
#define KL_PARAM_LEAD 4u      /* --ld fills these */
#define KL_PARAM_SCALAR 8u    /* --scalars, --alpha, --beta fill these */
#define KL_PARAM_OP 16u       /* the operation: the table's op column, --op */
#define KL_PARAM_INPUTS 32u   /* the input pattern: --inputs */
/* A tuning: how the rungs that name it (kl_rung.tunings) run, not what
 * they compute. The problem, its check and its cost are the same at every
 * value; results show it only for those rungs. */
#define KL_PARAM_TUNING 64u
/* The bit of parameter index i in a kl_rung.tunings set. */
#define KL_PARAM_BIT(i) (1ull << (unsigned)(i))

typedef struct kl_param {
  const char *name;
  kl_param_kind kind;
  unsigned flags;
  const char *help; /* one line */
  /* The default (a choice's index). Where default_text is set, the plan
   * derives the value when it is not given (gemm: m follows n), and
   * default_text says how. */
  double default_value;
  const char *default_text;
  /* The default on host backends where it is smaller there (gemm's n: a
   * naive rung at the GPU's size would run for an hour); 0: the same. */
  double host_default;
  double min, max;            /* valid range of a number */
  const char *const *choices; /* KL_PARAM_CHOICE: NULL-terminated */
  const char *label;          /* in messages, where not the name ("input
                                 pattern"); NULL: the name */
  /* KL_PARAM_MAIN_SIZE: a default shrunk to fit memory is rounded down to
   * a multiple of this (halved while larger than the size). */
  int64_t step;
  /* KL_PARAM_MAIN_SIZE: where nonzero, the default on a device is at most
   * the size whose inputs in host memory hold this many times the device's
   * memory (offload: 2, data that never fits at once), shrunk to fit the
   * host as any default; 0: default_value alone. */
  double device_multiple;
} kl_param;

/* ---- buffers ----------------------------------------------------------- */
#define KL_MAX_BUFFERS 16

typedef enum kl_role { KL_IN, KL_OUT, KL_INOUT } kl_role;

/* Where a buffer lives. A host backend has only host memory: all three are
 * ordinary host memory there. */
#define KL_PLACEMENT_MAP(X)                                                   \
  X(DEVICE, "device")     /* the backend's memory */                          \
  X(PINNED, "pinned")     /* page-locked host memory, for async copies */     \
  X(PAGEABLE, "pageable") /* ordinary host memory */

typedef enum kl_placement {
#define KL_PLACEMENT_ENUM(name, text) KL_MEM_##name,
  KL_PLACEMENT_MAP(KL_PLACEMENT_ENUM)
#undef KL_PLACEMENT_ENUM
  KL_PLACEMENT_COUNT
} kl_placement;

const char *kl_placement_name(kl_placement p);

/* Buffer flags. Outputs are poisoned (every byte 0xFF: NaN, -1, 255)
 * before the checked run; scratch is poisoned too unless it must start at
 * zero. A restored INOUT buffer gets its input back before every
 * repetition, outside the timed region (cg's x). */
#define KL_BUFFER_SCRATCH 1u  /* the rung's working memory, not checked */
#define KL_BUFFER_ZEROED 2u   /* scratch that starts at zero (counters) */
#define KL_BUFFER_RESTORED 4u /* INOUT restored before every repetition */

typedef struct kl_buffer_spec {
  const char *name;
  kl_type type;
  int64_t count; /* elements */
  kl_role role;
  kl_placement placement;
  unsigned flags;
} kl_buffer_spec;

/* One problem instance: what a workload's plan() derives from the
 * parameters, the type and the seed, plus the scratch its rung adds. */
typedef struct kl_plan {
  int64_t n;    /* the main size (also value[] of the main-size parameter) */
  kl_type type;
  uint64_t seed;
  /* Each parameter's value, in the workload's order (a choice's index);
   * given: bit i set where the user gave parameter i. plan() fills in
   * what it derives. */
  double value[KL_MAX_PARAMS];
  uint64_t given;
  /* A problem whose input does not fit in memory at once (a histogram of a
   * file larger than memory) runs in chunks: the harness runs the rung once
   * per chunk, chunk = 0 .. chunk_count - 1, with that chunk's inputs loaded
   * first (untimed) and chunk_n main-size elements in it. Chunks hold
   * ceil(n / chunk_count) elements each, the last one the rest: chunk k
   * starts at element k * ceil(n / chunk_count). A run's time is the sum
   * of its chunks' times; its outputs accumulate over them (a rung
   * overwrites them on chunk 0 and adds to them on later chunks), and the
   * check sees them after the last chunk. Where the input fits (every
   * workload, and histogram whenever its input fits), chunk_count is 1,
   * chunk 0 and chunk_n n. plan() finds chunk = 0 and chunk_n =
   * ceil(n / chunk_count): what its inputs' buffers must hold. */
  int64_t chunk_count, chunk, chunk_n;
  /* The file the inputs come from (--input FILE; histogram: its bytes),
   * NULL for inputs made from the seed. n is its size in main-size
   * elements; where it does not fit in memory the plan has several chunks,
   * each read from the file when it is loaded. Points at the caller's
   * string (kl_options or kl_problem). */
  const char *input_file;
  /* 1 where the inputs come from the caller of a library entry point
   * (kl_cg's own matrix), neither from init() nor from a file: plan() may
   * then size inputs by parameters that only such a caller gives. */
  int caller_inputs;
  int buffer_count;
  kl_buffer_spec buffers[KL_MAX_BUFFERS];
  /* Constants of the problem that plan() derives (map: a, b, c). */
  int constant_count;
  double constants[KL_MAX_PARAMS];
} kl_plan;

/* ---- backends ----------------------------------------------------------
 * A backend is a kind of target; a context is one instance of it, with
 * its streams (queues) and events. The harness opens a context per run;
 * rungs launch on its streams. */
#define KL_MAX_STREAMS 4
#define KL_MAX_EVENTS 16

struct kl_backend;

/* One device of a backend, as a context sees it: what rungs size their
 * grids by. Host backends have one device, the host. */
typedef struct kl_device {
  int index;               /* on its backend: 0 .. device_count - 1 */
  char name[128];          /* "NVIDIA H100 80GB HBM3", the CPU's model */
  size_t memory_bytes;     /* total memory */
  int compute_units;       /* SMs, CUs; hardware threads on a host */
  int max_threads_per_unit;
  int lanes;               /* threads of a warp (wavefront); 1 on a host */
  int64_t l2_bytes;        /* 0 where unknown */
} kl_device;

typedef struct kl_context {
  const struct kl_backend *backend;
  kl_device device; /* the device this context runs on */
  int stream_count;
  void *streams[KL_MAX_STREAMS]; /* cudaStream_t / hipStream_t; NULL on
                                    host backends */
  void *impl;                    /* the backend's own state */
} kl_context;

typedef struct kl_backend {
  const char *name;
  const char *summary;
  /* Nonzero when the backend's memory is ordinary host memory: the harness
   * then fills and checks its buffers in place, with no copies, and sizes
   * defaults for a host. */
  int host_memory;
  /* The library's functions run on the available backend of the highest
   * preference that has a library rung for the problem. */
  int preference;
  /* 1 when usable here, 0 when not; writes what it found (device name,
   * driver) or why it is unusable into info. */
  int (*probe)(char *info, size_t info_size);
  /* Free and total memory in bytes; host backends report the host's. */
  kl_status (*memory)(size_t *free_bytes, size_t *total_bytes);
  /* Open a context: its streams and events. close releases them. */
  kl_status (*open)(kl_context *ctx);
  void (*close)(kl_context *ctx);
  kl_status (*alloc)(kl_context *ctx, kl_placement where, void **ptr,
                     size_t bytes);
  void (*release)(kl_context *ctx, kl_placement where, void *ptr);
  /* A copy between any two placements, queued on a stream where the
   * backend has them; complete after sync. */
  kl_status (*copy)(kl_context *ctx, int stream, void *dst, const void *src,
                    size_t bytes);
  kl_status (*fill_bytes)(kl_context *ctx, kl_placement where, void *dst,
                          int byte, size_t bytes);
  kl_status (*sync)(kl_context *ctx); /* every stream */
  /* Record event e (< KL_MAX_EVENTS) on a stream; the seconds between two
   * recorded events, waiting for the later one. Device backends use device
   * events, host ones a monotonic clock. */
  kl_status (*record)(kl_context *ctx, int event, int stream);
  kl_status (*elapsed)(kl_context *ctx, int from, int to, double *seconds);
  /* Where the answer is known only at run time (an OpenACC runtime that
   * found no device runs on the host): 1 when the memory is the host's.
   * NULL: host_memory says. kl_backend_host_memory() asks both. */
  int (*memory_on_host)(void);
} kl_backend;

size_t kl_backend_count(void);
const kl_backend *kl_backend_at(size_t i);
const kl_backend *kl_backend_find(const char *name);
int kl_backend_available(const kl_backend *b, char *info, size_t info_size);
/* Whether the backend's buffers are host memory in this process. */
int kl_backend_host_memory(const kl_backend *b);

/* ---- rungs ------------------------------------------------------------- */
#define KL_MAX_PHASES 8
#define KL_MAX_COUNTS 4

/* What a rung receives: the plan, its buffers (each in its placement), the
 * backend context it runs on, and room for its own state. */
typedef struct kl_args {
  const kl_plan *plan;
  void *buffers[KL_MAX_BUFFERS];
  kl_context *ctx;
  void *stream; /* ctx->streams[0]: the stream a one-stream rung uses */
  /* Counts known only after a run (cg: iterations), in the order of the
   * workload's count names; the rung writes them, the cost model reads
   * them. */
  double *counts;
  /* For rungs that own their repetition loop: put the restored INOUT
   * buffers back (untimed); the harness's own loop calls it itself. */
  kl_status (*reset)(const struct kl_args *a);
  /* The rung's own state, made by its setup() and read by its run(): a
   * library handle, a grid size. No memory: that is the plan's. */
  union {
    void *pointer[4];
    int64_t integer[4];
  } state;
} kl_args;

/* One timed event of a repetition, for the trace (kladder run --trace)
 * and the overlap: a copy, a kernel or host work, on a track (the host, or
 * a stream of the context), in one of the rung's phases, `item` its
 * ordinal there (an interval, a chunk; -1: none), in seconds from the
 * repetition's start. An event of phase -1 is the whole run. */
#define KL_TRACK_HOST (-1)
typedef struct kl_trace_event {
  int track; /* KL_TRACK_HOST, or a stream, 0 .. KL_MAX_STREAMS - 1 */
  int phase;
  int item;
  double start, end;
} kl_trace_event;

/* A rung that owns its repetition loop (a CUDA graph, a pipeline over
 * streams) makes `count` repetitions and reports each one's time and,
 * where it has named phases, each phase's time per repetition. A rung
 * that traces its events clears trace_count as each repetition starts
 * and adds them with kl__trace_add: the last repetition's stay. */
typedef struct kl_reps {
  int count;
  double *seconds;       /* [count] */
  double *phase_seconds; /* [count * KL_MAX_PHASES]: repetition i, phase k
                            at i * KL_MAX_PHASES + k */
  kl_trace_event *trace; /* [trace_capacity]; NULL: nothing kept */
  int trace_capacity, trace_count;
  int trace_lost; /* events of the repetition that found it full */
} kl_reps;

/* The verdict of one check. */
typedef struct kl_verdict {
  int passed;
  int64_t checked;   /* elements compared */
  int64_t bad_count; /* elements outside the tolerance */
  int64_t first_bad; /* index of the first one, -1 when none */
  double max_error;  /* largest error / its tolerance; <= 1 passes */
  double abs_error;  /* largest absolute error against the reference */
  char detail[160];  /* e.g. the first bad element with expected and got */
} kl_verdict;

#define KL_RUNG_VENDOR 1u      /* a vendor library: the reference to beat */
#define KL_RUNG_KNOWN_WRONG 2u /* a teaching rung that must fail its check */
#define KL_RUNG_CEILING 4u     /* its backend's ceiling for the workloads
                                  that name this one as theirs */

struct kl_workload;

typedef struct kl_rung {
  const char *name; /* unique within its workload, a literal in its table */
  const kl_backend *backend;
  const char *summary;
  unsigned flags;
  /* KL_TYPE_BIT set of the types for which kl_<workload>() runs this rung
   * on its backend: the fastest hand-written rung measured (one per type
   * and backend, pinned by test_api). */
  unsigned library;
  /* What the workload's check and cost must know of the rung (stream: copy
   * or triad; integrate: how f is evaluated); 0 for most. */
  int variant;
  unsigned types; /* KL_TYPE_BIT set of supported types; 0 = all */
  /* Optional: add the rung's scratch buffers to the plan. */
  kl_status (*scratch)(kl_plan *p);
  kl_status (*setup)(kl_args *a); /* optional: a handle, a grid size */
  void (*teardown)(kl_args *a);   /* optional */
  /* One repetition, timed by the harness; or, where run is NULL, run_reps
   * owns the loop. Neither: not built into this library. */
  kl_status (*run)(const kl_args *a);
  kl_status (*run_reps)(const kl_args *a, kl_reps *reps);
  const char *const *phases; /* run_reps's phase names, NULL-terminated */
  /* The rung of the same workload on another backend that does the same
   * work (openacc-triad: cuda-triad), or NULL; where both ran on one
   * problem, the table says how they compare. */
  const char *peer;
  /* KL_PARAM_BIT set of the KL_PARAM_TUNING parameters this rung reads
   * (laplacian's tiled kernels: m, the points per thread). */
  uint64_t tunings;
} kl_rung;

/* A rung name that no longer exists, and what replaced it, for the error
 * that names the new form ("cuda-tiled-m4": "cuda-tiled with -p m=4"). */
typedef struct kl_retired_rung {
  const char *name;
  const char *now;
} kl_retired_rung;

/* What a workload's rate counts: bytes moved, flops, or items (points,
 * elements) processed, per second. */
typedef enum kl_metric { KL_METRIC_GBS, KL_METRIC_GFLOPS, KL_METRIC_GITEMS } kl_metric;

/* The cost model of one run. */
typedef struct kl_cost {
  double bytes; /* the fewest bytes a run must move through memory */
  double flops;
  double items; /* elements or points processed */
} kl_cost;

struct kl_result;

/* What a rung's rate is compared with, measured in the same run:
 *   RUNG    the KL_RUNG_CEILING rung of workload `of` on the same backend
 *           (the device-to-device copy for memory-bound work), timed right
 *           after each rung;
 *   VENDOR  the workload's own vendor rung on the same problem;
 *   BOUND   a rate computed by bound() from the rate measured for `of`'s
 *           ceiling rung (cg: its bytes per iteration at the copy's
 *           bandwidth). */
typedef enum kl_ceiling_kind {
  KL_CEILING_NONE,
  KL_CEILING_RUNG,
  KL_CEILING_VENDOR,
  KL_CEILING_BOUND
} kl_ceiling_kind;

typedef struct kl_ceiling {
  kl_ceiling_kind kind;
  const struct kl_workload *of;
  double (*bound)(const struct kl_result *r, double measured);
  /* RUNG, BOUND: 1 where the ceiling rung runs at its own default size,
   * not over as many bytes as the rung's plan: a bound that turns a
   * bandwidth into the time of bytes the plan does not hold (pipeline's
   * copies of partial sums). */
  int own_size;
} kl_ceiling;

/* A problem a workload's tests run: its parameters as -p takes them. */
typedef struct kl_test_problem {
  const char *params;
  int64_t n; /* the main size, 0 where params give it */
} kl_test_problem;

typedef struct kl_workload {
  const char *name;
  const char *summary;
  const char *tolerance; /* the verification rule, in words */
  const char *source;    /* where it comes from (seed and section) */
  kl_metric metric;
  const char *unit; /* the rate's unit: "GB/s", "GFLOP/s", "Gpt/s" */
  unsigned types;   /* KL_TYPE_BIT set */
  kl_type default_type;
  const kl_param *params; /* one of them KL_PARAM_MAIN_SIZE */
  int param_count;
  const char *const *counts; /* names of the counts a run reports, or NULL */
  kl_ceiling ceiling;
  /* Fill in the plan's buffers and constants from its parameters, type and
   * seed, deriving the parameters not given; KL_USAGE (or KL_TOO_LARGE)
   * for an invalid problem, with kl_last_error() saying why, KL_UNAVAILABLE
   * for a combination it does not offer. The buffers are the footprint the
   * harness sizes by. */
  kl_status (*plan)(kl_plan *p);
  /* Fresh random inputs into the host buffers (inputs only): those of
   * chunk p->chunk, p->chunk_n main-size elements, where the plan has
   * several chunks. */
  void (*init)(const kl_plan *p, void *const *host);
  /* Optional: fresh random inputs made in the backend's buffers, for sizes
   * where the host would be slow. KL_UNAVAILABLE: use init() instead. */
  kl_status (*init_device)(const kl_args *a);
  /* Where the workload takes an input file (--input FILE), what it does
   * with it, in one line for `kladder list -w W`; NULL: it takes none.
   * load_chunk fills the host buffers with the inputs of chunk p->chunk
   * (p->chunk_n main-size elements from element kl__chunk_start(p)) read
   * from p->input_file, in place of init(); KL_IO, with kl_last_error()
   * saying why, where the file cannot be read as planned (it changed
   * size). */
  const char *input_help;
  kl_status (*load_chunk)(const kl_plan *p, void *const *host);
  /* Optional: the main size an input file makes (cg: a matrix file's
   * rows), KL_USAGE with one line where the file is not one it takes;
   * NULL: the file's size in bytes. */
  kl_status (*input_size)(const char *path, int64_t *n);
  /* Compare every output element with a reference computed in higher
   * precision from the inputs. in[i] holds buffer i as it was before the
   * run (IN and INOUT buffers), out[i] as the rung left it (OUT, INOUT). */
  void (*check)(const kl_plan *p, const kl_rung *r, void *const *in,
                void *const *out, kl_verdict *v);
  /* The cost model: what one run of rung r must move and compute, given
   * the counts it reported. */
  void (*cost)(const kl_plan *p, const kl_rung *r, const double *counts,
               kl_cost *c);
  /* Awkward problems for test_rungs and test_checks, and problems whose
   * indices pass 2^31 (test_rungs --big); each list ends with {NULL, 0}. */
  const kl_test_problem *tests;
  const kl_test_problem *big_tests;
  const kl_rung *rungs;
  size_t rung_count;
  /* Former rung names, each with what replaced it; ends with {NULL, NULL};
   * NULL: none. */
  const kl_retired_rung *retired;
} kl_workload;

size_t kl_workload_count(void);
const kl_workload *kl_workload_at(size_t i);
const kl_workload *kl_workload_find(const char *name);
const kl_rung *kl_rung_find(const kl_workload *w, const char *name);
/* Index of a workload's parameter, or -1. */
int kl_param_index(const kl_workload *w, const char *name);

/* ---- running ----------------------------------------------------------- */
typedef void (*kl_progress_fn)(void *ctx, const char *line);

/* The most timed or warm-up runs a run accepts. */
#define KL_MAX_REPS 1000000

/* Positional values for the parameter groups (KL_PARAM_EXTENT, _LEAD,
 * _SCALAR): -s MxNxK, --ld, --scalars. Zero (or a clear bit in
 * scalars_set) means "not given". */
#define KL_MAX_DIMS 4
typedef struct kl_shape {
  int64_t dims[KL_MAX_DIMS];
  int64_t lead[KL_MAX_DIMS];
  double scalars[KL_MAX_DIMS];
  uint64_t scalars_set; /* bit i: scalars[i] was given */
} kl_shape;

/* Parse "MxNxK" (dims), "LDA,LDB,LDC" (leads; an empty item keeps the
 * default) or "ALPHA,BETA" (scalars; likewise) into s. KL_USAGE with
 * kl_last_error() saying why for anything else. */
kl_status kl_shape_parse_dims(const char *text, kl_shape *s);
kl_status kl_shape_parse_leads(const char *text, kl_shape *s);
kl_status kl_shape_parse_scalars(const char *text, kl_shape *s);

typedef struct kl_options {
  const char *workloads; /* comma-separated names; NULL = every workload */
  const char *backends;  /* comma-separated; NULL = every available one */
  const char *rungs;     /* comma-separated; NULL = every rung */
  int64_t n;             /* the main size; 0 = each workload's default */
  kl_type type;          /* KL_TYPE_DEFAULT = each workload's default */
  /* Parameters, "NAME=VALUE[,NAME=VALUE...]". In a run of every workload a
   * workload without one of them is skipped (with a note); a workload
   * named with -w must have them all. */
  const char *params;
  const char *op;     /* the KL_PARAM_OP parameter's value (--op) */
  const char *inputs; /* the KL_PARAM_INPUTS parameter's value (--inputs) */
  /* An input file (--input FILE) for the workloads that take one
   * (histogram counts its bytes): n is its size, and the input pattern
   * does not apply. In a run of several workloads those without one are
   * skipped, with a note; NULL: none. */
  const char *input_file;
  kl_shape shape;     /* the group parameters by position */
  int reps;           /* timed runs after warm-up, 1..KL_MAX_REPS */
  int warmup;         /* untimed runs before them, 0..KL_MAX_REPS */
  uint64_t seed;      /* inputs are a function of the seed alone */
  int skip_ceiling;   /* nonzero: do not measure the ceilings */
  /* Seconds of timed and warm-up runs per rung beyond which fewer are made
   * (at least one timed run; the report notes it); 0 = no limit. */
  double max_seconds;
  kl_progress_fn progress; /* NULL: silent */
  void *progress_ctx;
  /* The command line that asked for the run, as the results files record
   * it; NULL: none. */
  const char *command_line;
} kl_options;

void kl_options_init(kl_options *o); /* defaults: 10 reps, 2 warm-up */

typedef enum kl_check_state {
  KL_CHECK_PASS,
  KL_CHECK_FAIL,
  KL_CHECK_CAUGHT, /* a known-wrong rung, correctly reported wrong */
  KL_CHECK_MISSED  /* a known-wrong rung that happened to pass */
} kl_check_state;

typedef struct kl_result {
  const kl_workload *workload;
  const kl_rung *rung;
  kl_plan plan;                  /* the problem as planned: n, type, values */
  int64_t n;                     /* plan.n */
  kl_type type;                  /* plan.type */
  int reps;                      /* timed runs made */
  double t_median, t_min, t_max; /* seconds */
  double t_stddev;               /* of the timed runs; 0 for one run */
  /* Every timed run's seconds, in the order they ran ([reps]); owned by
   * the report and freed with it; NULL in a result of kl_run_rung. */
  double *times;
  /* Rungs with phases: each phase's median over the timed runs. */
  int phase_count;
  double phase_median[KL_MAX_PHASES];
  double counts[KL_MAX_COUNTS]; /* as the last run reported them */
  /* The last timed run's events ([trace_count], owned by the report, NULL
   * in a result of kl_run_rung): the rung's own where it traces them,
   * else one event for the whole run. trace_origin: when that run began
   * (monotonic seconds), so that the trace lays the rungs out in order;
   * trace_lost: events that did not fit (the trace says so). overlap:
   * that run's wall time over the longest of its phases' busy times, each
   * the union of the phase's events: 1 where the slowest kind of work
   * hides all the others, 0 where the rung traced no phases or lost
   * events. */
  kl_trace_event *trace;
  int trace_count, trace_lost;
  double trace_origin;
  double overlap;
  kl_cost cost;                 /* per run, by the cost model */
  double merit;   /* GB/s, GFLOP/s or G items/s, at the median */
  double ceiling; /* the ceiling, same unit; 0 none */
  double percent; /* 100 * merit / ceiling; 0 when none */
  /* Why there is no percent, or why it is above 105%, in words; NULL
   * where it needs none. */
  const char *ceiling_note;
  double speedup; /* first rung's median / this median; 0 none */
  kl_check_state check;
  kl_verdict verdict;
  kl_status status; /* KL_OK, or why the rung could not run */
  char error[256];
} kl_result;

typedef struct kl_machine {
  char cpu[128];
  int cpu_threads;
  int omp_threads;
  char gpu[128];    /* "" without one */
  char driver[64];  /* "" without one */
  char host[64];
} kl_machine;

/* How this library was built, as the results files record it. */
typedef struct kl_build_info {
  const char *version;    /* KL_VERSION */
  const char *commit;     /* `git describe` of the sources; "" when they
                             were not a git checkout */
  const char *build_type; /* Release, Debug, ... */
  const char *c_compiler; /* "GNU 12.2.0" */
  const char *c_flags;
  const char *gpu_compiler; /* "" without a GPU backend */
  const char *gpu_flags;
} kl_build_info;

const kl_build_info *kl_build(void);

typedef struct kl_report {
  kl_machine machine;
  /* When the run started, UTC, ISO 8601 ("2026-11-23T14:05:09Z"). */
  char started[32];
  /* The options of the run; options.command_line points at this copy. */
  char *command_line;
  kl_options options;
  size_t count;
  kl_result *results;
  char notes[4096]; /* size adjustments and other remarks for the reader */
} kl_report;

/* Run the selected rungs. KL_OK when every check passed; KL_CHECK_FAILED
 * when one failed; another status when nothing could be run (bad names,
 * sizes too large). The report, when returned, is freed by kl_report_free. */
kl_status kl_run(const kl_options *opt, kl_report **out);
void kl_report_free(kl_report *r);

kl_status kl_report_print(const kl_report *r, FILE *f);
kl_status kl_report_write_csv(const kl_report *r, const char *path);
kl_status kl_report_write_json(const kl_report *r, const char *path);

/* A results file opened before the run, so that a bad path costs nothing
 * and a failed run leaves nothing behind. open checks the path and starts
 * the file (a regular file is written beside it under a temporary name and
 * renamed into place by write; a device or pipe is written directly), and
 * fails with KL_USAGE and one line in kl_last_error() when it cannot be
 * written: a directory, a missing folder, no permission, a full device.
 * write finishes the file from the report and frees the output; discard
 * removes what open created and frees it. */
typedef enum kl_format {
  KL_FORMAT_CSV,
  KL_FORMAT_JSON,
  /* Chrome trace-event JSON of every result's traced run (kl_result.trace):
   * one process per result, a thread per track; Perfetto and
   * chrome://tracing open it. */
  KL_FORMAT_TRACE
} kl_format;
typedef struct kl_output kl_output;
kl_status kl_output_open(const char *path, kl_format format, kl_output **out);
kl_status kl_output_write(kl_output *out, const kl_report *r);
void kl_output_discard(kl_output *out);

/* One problem instance, as kl_run_rung takes it. */
typedef struct kl_problem {
  int64_t n;          /* the main size; 0: the parameters give it */
  kl_type type;       /* KL_TYPE_DEFAULT: the workload's default */
  const char *params; /* "NAME=VALUE,..." or NULL: every default */
  uint64_t seed;
  /* An input file, for a workload that takes one (see kl_options); NULL:
   * inputs from the seed. */
  const char *input_file;
} kl_problem;

/* One rung, one problem, no ceiling: for tests and embedding programs.
 * KL_OK when it ran and its check passed (or, for a known-wrong rung,
 * failed as expected). */
kl_status kl_run_rung(const kl_workload *w, const kl_rung *r,
                      const kl_problem *problem, int reps, int warmup,
                      kl_result *out);

/* The names of a result's operation and input pattern (the values of its
 * KL_PARAM_OP and KL_PARAM_INPUTS parameters; "" when none; for inputs
 * read from a file, the file's name without its directories). */
const char *kl_result_op(const kl_result *r);
const char *kl_result_inputs(const kl_result *r);
/* A parameter's value as text ("sum", "1.5", "1024"). */
void kl_param_text(const kl_param *p, double value, char *dst, size_t size);
/* Every parameter of a result other than the main size, "a=1,b=sum". */
void kl_result_params(const kl_result *r, char *dst, size_t size);
const char *kl_metric_unit(const kl_workload *w);
/* The size as text: n, or the extents joined by 'x' ("MxNxK"). */
void kl_result_size(const kl_result *r, char *dst, size_t size);

/* Parse a size: digits with an optional K, M or G suffix (powers of 1024).
 * KL_USAGE for zero, negative, non-numeric or overflowing text. */
kl_status kl_parse_size(const char *text, int64_t *out);

void kl_machine_describe(kl_machine *m);

#ifdef __cplusplus
}
#endif
#endif
