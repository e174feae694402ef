/* kladder's model: what a workload and a backend are written against.
 * Not installed: a program that links kladder sees include/kladder.h
 * only, so that the model can change without breaking it. docs/design.md
 * draws the picture; docs/contributing.md names the minimal set.
 *
 *   workload  parameters, plan(), init(), check(), cost(), rungs: required;
 *             a ceiling, tests, input files, device-side inputs, counts:
 *             optional (kl_workload below marks each);
 *   rung      run() or run_reps(), on one backend; scratch, setup,
 *             teardown, phases, tunings, a peer: optional;
 *   backend   probe, memory, open/close a context on one of its devices,
 *             alloc, release, copy, fill, sync, record, elapsed: required;
 *             device enumeration and description, enter, memory_on_host:
 *             optional. */
#ifndef KL_MODEL_H
#define KL_MODEL_H

#include "kladder.h"
#include "kladder-ranks.h"
#include "kladder-run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model's version: raised when a field or hook is added, removed or
 * changes meaning, so that out-of-tree workloads can say which they were
 * written against. 3: core v3 (contexts per device, tunings, retired rung
 * names, input hooks grouped); 4: named files (kl_named_file, kl_plan's
 * files); 5: distributed workloads (kl_workload.distributed, kl_plan's
 * ranks and scaling, kl_args.phase_seconds for run() rungs); 6:
 * kl_backend.compile_seconds (a context's programs' build time); 7:
 * kl_backend.bus_id (the device's PCI bus id: its energy counter); 8:
 * kl_plan.rank_grid (the grid of ranks a distributed plan split over); 9:
 * kl_device.cache_bytes and kl_param.cache_multiple (quick sizes past the
 * last-level cache); 10: kl_backend.range (profilers' ranges around timed
 * runs) and kl_backend.launch (the launch floor); 11: kl_device.arch (a
 * GPU's architecture, per device, for rungs on one generation's
 * instructions); 12: kl_backend.adopt_stream (a caller's stream); 13:
 * kl_rung.family (hooks shared by a workload's rungs); 14: kl_backend.ahead
 * (the hold and the cold cache's flush queued ahead of a timed run); 15:
 * kl_param.tune_values (the values `kladder tune` sweeps) and
 * kl_plan.tuned (values the wisdom gave). */
#define KL_MODEL_VERSION 15

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
  /* KL_PARAM_MAIN_SIZE: the defaults of a quick run (kladder run without
   * --full, the default), on a device and on host backends: large enough
   * that every rung's working set (and its ceiling's) lies past the
   * caches, small enough that the whole default suite takes minutes; 0:
   * the full default. */
  double quick_default, quick_host_default;
  /* KL_PARAM_MAIN_SIZE: where nonzero, the default on a device is at most
   * the size whose inputs in host memory hold this many times the device's
   * memory (offload: 2, data that never fits at once), shrunk to fit the
   * host as any default; 0: default_value alone. */
  double device_multiple;
  /* KL_PARAM_MAIN_SIZE of a memory-bound workload: where nonzero, a quick
   * default (no size given, kl_options.full 0) grows to the least size
   * whose plan's buffers hold this many times the last-level cache of the
   * devices its rungs run on (kl_device.cache_bytes), no further than the
   * full default: the rate measured is memory's, never a cache's, on any
   * machine. */
  double cache_multiple;
  /* KL_PARAM_TUNING: the values `kladder tune` sweeps for the rungs that
   * read it, as -p takes a list ("1,2,4,8,16", "1..16:x2"); NULL: every
   * choice of a choice, no sweep of a number. */
  const char *tune_values;
} kl_param;

/* A parameter's value as text ("sum", "1.5", "1024"). */
void kl_param_text(const kl_param *p, double value, char *dst, size_t size);

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
  /* bit i: parameter i, a tuning not given, took the value of the
   * wisdom's tuned line for this rung, device, type and size. */
  uint64_t tuned;
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
  /* The device the plan is made for, whose properties (lanes, compute
   * units) a rung's scratch hook may size by; NULL for a problem planned
   * apart from any rung. Points at the core's table of devices, valid for
   * the life of the process. */
  const struct kl_device *device;
  /* 1 where the inputs come from the caller of a library entry point
   * (kl_cg's own matrix), neither from init() nor from a file: plan() may
   * then size inputs by parameters that only such a caller gives. */
  int caller_inputs;
  /* The paths of the workload's named files (input->files[i]: cg's rhs
   * and solution), NULL where not given; the caller's strings. plan()
   * refuses what it cannot take with them and checks what a file it reads
   * holds; the inputs' loader reads it. */
  const char *files[KL_MAX_FILES];
  int buffer_count;
  kl_buffer_spec buffers[KL_MAX_BUFFERS];
  /* Constants of the problem that plan() derives (map: a, b, c). */
  int constant_count;
  double constants[KL_MAX_PARAMS];
  /* The ranks one problem is split over, for a distributed workload
   * (kl_workload.distributed): NULL for one rank (a run without ranks, a
   * problem planned apart from a run, the one-rank measurement), else
   * the run's kl_ranks with every collective there. strong: the size
   * given is the whole problem's (else each rank's). plan() sizes the
   * rank's share from them (kl__rank, kl__rank_count), the rungs and the
   * check make their collectives through them (kl__allreduce,
   * kl__exchange_start). Other workloads find NULL and 0. */
  const kl_ranks *ranks;
  int strong;
  /* The grid of ranks plan() split the problem over (px, py, pz:
   * kl__rank_grid), where it made one over several ranks; else zeros.
   * Results name it (rank_grid). */
  int rank_grid[3];
} kl_plan;

/* ---- backends and contexts ---------------------------------------------
 * A backend is a kind of target with one or more devices; a context is one
 * of its devices opened, with its streams (queues) and events. Rungs
 * launch on the streams of the context they are given and read the
 * device's properties from it, never from process globals. */
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
  /* The last-level cache: a GPU's L2, a CPU's L3 (its L2 where it has no
   * L3); 0 where unknown. */
  int64_t cache_bytes;
  /* The architecture as the GPU runtime numbers it, major * 10 + minor
   * (90: an NVIDIA sm_90); 0 on a host. A rung that needs one generation
   * asks its context's device, never a process-wide cache. */
  int arch;
} kl_device;

/* The core's part of a context (its lock); backends leave it alone. */
struct kl__context_core;

struct kl_context {
  const struct kl_backend *backend;
  kl_device device; /* the device this context runs on; set before open */
  int stream_count;
  void *streams[KL_MAX_STREAMS]; /* cudaStream_t / hipStream_t; NULL on
                                    host backends */
  void *impl;                    /* the backend's own state */
  struct kl__context_core *core; /* the core's */
};

typedef struct kl_backend {
  /* ---- required ---- */
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
  /* Free and total memory of a device in bytes; host backends report the
   * host's. */
  kl_status (*memory)(int device, size_t *free_bytes, size_t *total_bytes);
  /* Open a context on device ctx->device.index (the core checked it is
   * below device_count): its streams and events, and ctx->device filled
   * in. close releases them. */
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
  /* ---- optional: NULL where the backend has no use for it ---- */
  /* Its devices, once probed usable; NULL: one. */
  int (*device_count)(void);
  /* Device i's properties without opening it; NULL: the host's. */
  kl_status (*describe)(int device, kl_device *out);
  /* Make the context's device the calling thread's current one before a
   * rung's hooks run (cudaSetDevice); NULL: nothing to do. */
  kl_status (*enter)(kl_context *ctx);
  /* Where the answer is known only at run time (an OpenACC runtime that
   * found no device runs on the host): 1 when the memory is the host's.
   * NULL: host_memory says. kl_backend_host_memory() asks both. */
  int (*memory_on_host)(void);
  /* 1 where a run that names no backend should leave this one out (an
   * OpenACC runtime without a device, which runs every region on one host
   * thread: slow, and the serial rungs' numbers again), with why in `why`;
   * naming it (-b openacc) runs it. NULL: always in. */
  int (*left_out)(char *why, size_t size);
  /* The seconds the context has spent compiling programs so far (an
   * OpenCL program's build), all told: the harness reports what a rung's
   * untimed set-up took of it apart from the rung's times
   * (kl_result.setup_build_seconds). NULL: the backend compiles none. */
  double (*compile_seconds)(const kl_context *ctx);
  /* The PCI bus id ("0000:65:00.0") of the context's device, by which the
   * core finds its board's energy counter (NVML, kladder run --energy;
   * energy.c). NULL, or KL_UNAVAILABLE: the device has none the core can
   * read; a backend whose memory is the host's is read through RAPL. */
  kl_status (*bus_id)(kl_context *ctx, char *out, size_t size);
  /* Names the timed runs that follow on profilers' timelines: called with
   * a rung's name before each batch of its timed runs, and with NULL
   * after it (NVTX on NVIDIA GPUs: nsys and ncu show each rung's batches
   * by name). NULL: the backend has no such timeline. */
  void (*range)(kl_context *ctx, const char *name);
  /* Queue the backend's emptiest unit of work on stream 0 (an empty
   * kernel on a GPU, an empty parallel region on OpenMP threads): the
   * harness times it between events once per device and run, the launch
   * floor that a small problem's time cannot go below
   * (kl__result.launch_floor). NULL: none worth timing (a plain call). */
  kl_status (*launch)(kl_context *ctx);
  /* Put the caller's stream (a cudaStream_t or hipStream_t) in the place
   * of the context's stream 0, so that the work queued there is ordered
   * with the caller's; NULL: the context's own stream 0 again. The
   * context never destroys an adopted stream. Called in the entered
   * context. NULL: the backend has no streams to adopt. */
  kl_status (*adopt_stream)(kl_context *ctx, void *stream);
  /* Queue on stream 0 the work that stands ahead of each timed run: where
   * buf is not NULL, `bytes` of it written (the cold cache's flush,
   * kladder run --cache cold: a device buffer past the last-level cache),
   * then a hold of the device long enough for the host to queue the run
   * behind it; every stream of the context ordered after both, the host
   * not waiting. The run's events then time the device's work, not the
   * host's launches into an idle device (which a run of a few
   * microseconds would otherwise measure), warm or cold alike. NULL: the
   * runs are queued as the rung queues them, the flush written with
   * fill_bytes and waited for. */
  kl_status (*ahead)(kl_context *ctx, void *buf, size_t bytes);
} kl_backend;

const kl_backend *kl_backend_at(size_t i);
const kl_backend *kl_backend_find(const char *name);
int kl_backend_available(const kl_backend *b, char *info, size_t info_size);
/* Whether the backend's buffers are host memory in this process. */
int kl_backend_host_memory(const kl_backend *b);
/* How many devices a usable backend has (0 where it is not usable). */
int kl_backend_devices(const kl_backend *b);

/* ---- rungs ------------------------------------------------------------- */

/* What a rung receives: the plan, its buffers (each in its placement), the
 * context it runs on, and room for its own state. */
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
   * buffers back (untimed); the harness's own loop calls it itself. NULL
   * in a library call, which runs once on the caller's buffers. */
  kl_status (*reset)(const struct kl_args *a);
  /* The rung's own state, made by its setup() and read by its run(): a
   * library handle, a grid size. No memory: that is the plan's. */
  union {
    void *pointer[4];
    int64_t integer[4];
  } state;
  /* A run() rung with named phases (kl_rung.phases: a distributed rung's
   * compute, exchange, allreduce) adds each phase's seconds of this run
   * to phase_seconds[k] (host clock); the harness zeroes them before each
   * repetition. Never NULL in the harness; NULL in a library call. */
  double *phase_seconds;
} kl_args;

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

struct kl_workload;

/* The hooks that the rungs of one family (a workload's GPU rungs, most
 * often) share: each rung names the family, and a hook a rung sets for
 * itself stands in place of its family's. */
typedef struct kl_rung_family {
  kl_status (*scratch)(kl_plan *p);
  kl_status (*setup)(kl_args *a);
  void (*teardown)(kl_args *a);
} kl_rung_family;

typedef struct kl_rung {
  /* ---- required ---- */
  const char *name; /* unique within its workload, a literal in its table */
  const kl_backend *backend;
  const char *summary;
  /* One repetition, timed by the harness; or, where run is NULL, run_reps
   * owns the loop. Neither: not built into this library. */
  kl_status (*run)(const kl_args *a);
  kl_status (*run_reps)(const kl_args *a, kl_reps *reps);
  /* ---- optional ---- */
  unsigned flags; /* KL_RUNG_VENDOR, _KNOWN_WRONG, _CEILING */
  /* KL_TYPE_BIT set of the types for which kl_<workload>() runs this rung
   * on its backend: the fastest hand-written rung measured (one per type
   * and backend, pinned by test_model). */
  unsigned library;
  /* What the workload's check and cost must know of the rung (stream: copy
   * or triad; integrate: how f is evaluated); 0 for most. */
  int variant;
  unsigned types; /* KL_TYPE_BIT set of supported types; 0 = all */
  /* Add the rung's scratch buffers to the plan, sized where need be by the
   * device it is made for (p->device: lanes, compute units). */
  kl_status (*scratch)(kl_plan *p);
  /* A handle, a grid size. A distributed workload's rung over several
   * ranks may make collectives here through the plan (its NCCL
   * communicator): every rank calls it (the harness agrees on the
   * buffers first), and it makes the same collectives on every rank,
   * whatever failed on its own. */
  kl_status (*setup)(kl_args *a);
  void (*teardown)(kl_args *a);
  /* Its phases' names, NULL-terminated: run_reps's (kl_reps), or a run()
   * rung's (kl_args.phase_seconds). */
  const char *const *phases;
  /* The rung of the same workload on another backend that does the same
   * work (openacc-triad: cuda-triad); where both ran on one problem, the
   * table says how they compare. */
  const char *peer;
  /* The rung of the same backend that a library call runs in this one's
   * place where this one cannot serve the problem (its plan or setup
   * says KL_UNAVAILABLE, or its footprint does not fit the device): a
   * faster rung that serves fewer problems names the one that serves
   * more. NULL, or a rung not built: the backend's library rung. */
  const char *fallback;
  /* KL_PARAM_BIT set of the KL_PARAM_TUNING parameters this rung reads
   * (laplacian's tiled kernels: m, the points per thread). */
  uint64_t tunings;
  /* The family whose scratch, setup and teardown it takes where it sets
   * none of its own; NULL: none. */
  const kl_rung_family *family;
} kl_rung;

/* A rung's hooks: its own, else its family's (NULL: none). */
static inline kl_status (*kl_rung_scratch(const kl_rung *r))(kl_plan *) {
  return r->scratch ? r->scratch : r->family ? r->family->scratch : NULL;
}
static inline kl_status (*kl_rung_setup(const kl_rung *r))(kl_args *) {
  return r->setup ? r->setup : r->family ? r->family->setup : NULL;
}
static inline void (*kl_rung_teardown(const kl_rung *r))(kl_args *) {
  return r->teardown ? r->teardown : r->family ? r->family->teardown : NULL;
}

/* The one rung-table macro: a rung named by a literal (so that
 * grep -rn '"cuda-best"' src finds its line), on backend `backend_id` (serial,
 * openmp, gpu, openacc: kl__backend_ID, declared by internal.h from
 * backends.def), with its summary; the other fields follow as
 * designated initializers:
 *   KL_RUNG("cuda-best", gpu, "16-byte loads, one pass",
 *           .run = KL_GPU_FN(kl__reduce_gpu_best)), */
#define KL_RUNG(rung_name, backend_id, text, ...)                             \
  {.name = rung_name, .backend = &kl__backend_##backend_id, .summary = text,  \
   __VA_ARGS__}

/* A rung name that no longer exists, and what replaced it, for the error
 * that names the new form ("cuda-tiled-m4": "cuda-tiled with -p m=4"). */
typedef struct kl_retired_rung {
  const char *name;
  const char *now;
} kl_retired_rung;

/* ---- workloads --------------------------------------------------------- */

/* What a workload's rate counts: bytes moved, flops, or items (points,
 * elements) processed, per second. */
typedef enum kl_metric { KL_METRIC_GBS, KL_METRIC_GFLOPS, KL_METRIC_GITEMS } kl_metric;

/* What a rung's rate is compared with, measured in the same run
 * (src/core/ceiling.c has the whole policy):
 *   RUNG    the KL_RUNG_CEILING rung of workload `of` on the same device
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
  /* BOUND: the rung's ceiling from the rate measured for `of`, given the
   * rung's result (its cost, its phases' medians). */
  double (*bound)(const kl_result *r, double measured);
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

/* A file a workload reads or writes beside its input file, by name: the
 * kl_options.files entry of that name (the command's --NAME FILE) gives
 * its path, which reaches the plan (kl_plan.files, in the order of the
 * workload's list). cg reads "rhs" (its b, in place of A x*) and writes
 * "solution" (its x). The core knows the names only as text: it refuses
 * a name the workload lacks (or skips the workload, as for a parameter),
 * checks that a file to read is there (kl__input_size's rules), opens a
 * file to write before any rung runs and puts it in place when the run
 * completes; what a file holds is the workload's. */
typedef struct kl_named_file {
  const char *name; /* a word, unique in the workload: "rhs" */
  kl_role role;     /* KL_IN: read; KL_OUT: written */
  const char *help; /* one line, for `kladder list -w W` */
  /* KL_OUT: write the file to f from the outputs of rung r's checked run
   * (out: the host copies its check read; v: its verdict, which passed),
   * called for the first rung of the run whose check passes. The harness
   * opened f, and flushes, closes and renames it; a write error is
   * found there too. */
  kl_status (*write)(const kl_plan *p, const kl_rung *r, const kl_verdict *v,
                     void *const *out, FILE *f);
} kl_named_file;

/* Input files (--input FILE), for a workload that takes them. */
typedef struct kl_input_hooks {
  /* What the workload does with the file, in one line for `kladder list
   * -w W`. */
  const char *help;
  /* Fill the host buffers with the inputs of chunk p->chunk (p->chunk_n
   * main-size elements from element kl__chunk_start(p)) read from
   * p->input_file, in place of init(); KL_IO, with kl_last_error() saying
   * why, where the file cannot be read as planned (it changed size). */
  kl_status (*load_chunk)(const kl_plan *p, void *const *host);
  /* Optional: the main size the file makes (cg: a matrix file's rows),
   * KL_USAGE with one line where the file is not one it takes; NULL: the
   * file's size in bytes. */
  kl_status (*size)(const char *path, int64_t *n);
  /* Optional: its named files beside the input file, at most
   * KL_MAX_FILES, ending with {NULL}; NULL: none. A KL_IN one is read by
   * plan() (to check it) and load_chunk. */
  const kl_named_file *files;
} kl_input_hooks;

typedef struct kl_workload {
  /* ---- required: every workload gives these ---- */
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
  /* Compare every output element with a reference computed in higher
   * precision from the inputs. in[i] holds buffer i as it was before the
   * run (IN and INOUT buffers), out[i] as the rung left it (OUT, INOUT). */
  void (*check)(const kl_plan *p, const kl_rung *r, void *const *in,
                void *const *out, kl_verdict *v);
  /* The cost model: what one run of rung r must move and compute, given
   * the counts it reported. */
  void (*cost)(const kl_plan *p, const kl_rung *r, const double *counts,
               kl_cost *c);
  const kl_rung *rungs; /* the ladder, naive first */
  size_t rung_count;
  /* ---- optional: zero or NULL where the workload has none ---- */
  kl_ceiling ceiling;
  /* Awkward problems for test_rungs and test_checks, and problems whose
   * indices pass 2^31 (test_rungs --big); each list ends with {NULL, 0}. */
  const kl_test_problem *tests;
  const kl_test_problem *big_tests;
  /* Names of the counts a run reports (cg: iterations), NULL-terminated. */
  const char *const *counts;
  /* Fresh random inputs made in the backend's buffers, for sizes where
   * the host would be slow. KL_UNAVAILABLE: use init() instead, which the
   * hook returns on every backend it was not written for
   * (a->ctx->backend: cuRAND's on another backend's buffers would write
   * through handles that are not its pointers). */
  kl_status (*init_device)(const kl_args *a);
  /* Input files (--input FILE); NULL: it takes none. */
  const kl_input_hooks *input;
  /* Former rung names, each with what replaced it; ends with {NULL, NULL}. */
  const kl_retired_rung *retired;
  /* 1 where one problem is split over the ranks of a run: plan() sizes the
   * rank's share (kl_plan.ranks, .strong), inputs are a function of the
   * global index (each rank makes its own share's and its halo's), the
   * rungs and the check make their collectives through the plan's ranks,
   * every rank making the same ones in the same order even after a
   * failure of its own (it goes on with what it has and returns the
   * failure after), so that none waits forever; the cost is the rank's
   * own work (the harness sums the ranks'). 0: each rank runs a copy. */
  int distributed;
  /* The size the wisdom (`kladder tune`'s sweep, the entry points'
   * dispatch) knows a problem by, from its main size and its parameters'
   * values (kl_plan.value's order; 0 where not given): gemm's sweep is of
   * squares, so a call's size is the side of the square of its flops
   * (cbrt(m n k)), and a 16384 x 256 x 4096 product dispatches as the
   * 2580-cube it costs, not as n = 256; laplacian's grid as the cube of
   * as many points; cg's matrix of n rows as the grid of as many. NULL:
   * the main size. */
  int64_t (*wisdom_size)(int64_t n, const double *value);
} kl_workload;

const kl_workload *kl_workload_at(size_t i);
const kl_workload *kl_workload_find(const char *name);
const kl_rung *kl_rung_find(const kl_workload *w, const char *name);
/* Index of a workload's parameter, or -1. */
int kl_param_index(const kl_workload *w, const char *name);

#ifdef __cplusplus
}
#endif
#endif
