/* kladder: ladders of compute kernels, verified and measured against the
 * hardware's ceiling in the same run.
 *
 * The model, in four nouns:
 *   backend  - one execution target (serial C, OpenMP, CUDA or HIP), described
 *              by one kl_backend struct of function pointers;
 *   workload - a problem: its buffers, random inputs, verification rule and
 *              cost model (bytes moved and flops per run);
 *   rung     - one implementation of a workload on one backend; a workload's
 *              rungs form its ladder, ordered from naive to best;
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

#define KL_VERSION "0.1.0"

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
  X(U8, "u8", 1)

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

/* ---- backends ---------------------------------------------------------- */
typedef struct kl_backend {
  const char *name;
  const char *summary;
  /* Nonzero when the backend's memory is ordinary host memory: the harness
   * then fills and checks its buffers in place, with no copies. */
  int host_memory;
  /* 1 when usable here, 0 when not; writes what it found (device name,
   * driver) or why it is unusable into info. */
  int (*probe)(char *info, size_t info_size);
  kl_status (*alloc)(void **ptr, size_t bytes);
  void (*release)(void *ptr);
  kl_status (*upload)(void *dst, const void *src, size_t bytes);
  kl_status (*download)(void *dst, const void *src, size_t bytes);
  kl_status (*fill_bytes)(void *dst, int byte, size_t bytes);
  kl_status (*sync)(void);
  /* Free and total memory in bytes; host backends report the host's. */
  kl_status (*memory)(size_t *free_bytes, size_t *total_bytes);
  /* Timer around one run: start before it, stop after it gives seconds.
   * Device backends use device events on their stream; host ones a
   * monotonic clock. */
  kl_status (*timer_start)(void);
  kl_status (*timer_stop)(double *seconds);
  /* The stream rungs launch on (cudaStream_t / hipStream_t), NULL on hosts. */
  void *(*stream)(void);
} kl_backend;

size_t kl_backend_count(void);
const kl_backend *kl_backend_at(size_t i);
const kl_backend *kl_backend_find(const char *name);
int kl_backend_available(const kl_backend *b, char *info, size_t info_size);

/* ---- problems, buffers and rung arguments ------------------------------ */
#define KL_MAX_BUFFERS 8
#define KL_MAX_PARAMS 8
#define KL_MAX_DIMS 4

/* The shape of a problem with several extents (gemm: m, n, k), as named by
 * the workload's dims, leads and scalars lists. Zero (or a clear bit in
 * scalars_set) means "not given": each dim is then the size n, each leading
 * dimension the rows of its matrix, each scalar the workload's default. */
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

typedef enum kl_role { KL_IN, KL_OUT, KL_INOUT } kl_role;

typedef struct kl_buffer_spec {
  const char *name;
  kl_type type;
  int64_t count; /* elements */
  kl_role role;
} kl_buffer_spec;

/* One problem instance: what a workload's plan() derives from the size,
 * the type and the seed. */
typedef struct kl_plan {
  int64_t n;
  kl_type type;
  uint64_t seed;
  int op;     /* index into the workload's ops[], 0 when it has none */
  int inputs; /* index into the workload's inputs[] patterns, 0 = random */
  int buffer_count;
  kl_buffer_spec buffers[KL_MAX_BUFFERS];
  int param_count;
  double params[KL_MAX_PARAMS]; /* scalars of the problem (map: a, b, c) */
  /* Workloads with dims: the shape resolved, every extent, leading
   * dimension and scalar set (gemm's alpha and beta are also params[0..1]). */
  kl_shape shape;
} kl_plan;

/* What a rung receives: the plan and its buffers in the backend's memory. */
typedef struct kl_args {
  const kl_plan *plan;
  void *buffers[KL_MAX_BUFFERS];
  void *stream;  /* backend stream, NULL on host backends */
  void *scratch; /* a rung's own state, made by its setup() */
} kl_args;

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

/* ---- rungs ------------------------------------------------------------- */
#define KL_RUNG_VENDOR 1u      /* a vendor library: the reference to beat */
#define KL_RUNG_KNOWN_WRONG 2u /* a teaching rung that must fail its check */
#define KL_RUNG_CEILING 4u     /* its backend's bandwidth ceiling */

struct kl_workload;

typedef struct kl_rung {
  const char *name;    /* unique within its workload */
  const char *backend; /* kl_backend.name */
  const char *summary;
  unsigned flags;
  int kernel;     /* which of the workload's kernels it computes (stream:
                     copy or triad); 0 for workloads with one */
  unsigned types; /* KL_TYPE_BIT set of supported types; 0 = all */
  kl_status (*run)(const kl_args *a); /* NULL: not built into this library */
  kl_status (*setup)(kl_args *a);     /* optional */
  void (*teardown)(kl_args *a);       /* optional */
} kl_rung;

/* What a workload's rate counts: bytes moved, flops, or items (points,
 * elements) processed, per second. */
typedef enum kl_metric { KL_METRIC_GBS, KL_METRIC_GFLOPS, KL_METRIC_GITEMS } kl_metric;

/* The cost model of one run. */
typedef struct kl_cost {
  double bytes; /* the fewest bytes a run must move through memory */
  double flops;
  double items; /* elements or points processed */
} kl_cost;

typedef struct kl_workload {
  const char *name;
  const char *summary;
  const char *tolerance; /* the verification rule, in words */
  const char *source;    /* where it comes from (seed and section) */
  kl_metric metric;
  const char *item_unit; /* for KL_METRIC_GITEMS: e.g. "Gpt/s" */
  /* Operations (reduce: sum, min, max) and input patterns (random first),
   * each a NULL-terminated list, or NULL for none; the first is the
   * default. */
  const char *const *ops;
  const char *const *inputs;
  unsigned types; /* KL_TYPE_BIT set */
  kl_type default_type;
  int64_t default_n; /* elements, before fitting to memory */
  /* The default on host backends, where it is smaller (gemm: a naive rung
   * at the GPU's size would run for an hour); 0 = default_n. */
  int64_t host_default_n;
  /* Names of the shape's extents, leading dimensions and scalars, each
   * NULL-terminated, or NULL where the problem is just n elements. */
  const char *const *dims;
  const char *const *leads;
  const char *const *scalars;
  /* Fill in the plan's buffers and parameters for p->n, p->type, p->seed;
   * KL_USAGE for an invalid size, with kl_last_error() saying why. */
  kl_status (*plan)(kl_plan *p);
  /* Fresh random inputs into the host buffers (inputs only). */
  void (*init)(const kl_plan *p, void *const *host);
  /* Optional: fresh random inputs made on the device, in its buffers, for
   * sizes where the host would be slow. KL_UNAVAILABLE: use init() (too
   * small to be worth it, or no generator here); other errors stop. The
   * harness downloads the inputs for the check afterwards. */
  kl_status (*init_device)(const kl_plan *p, const kl_backend *b,
                           void *const *device);
  /* Compare every output element with a reference computed in higher
   * precision from the inputs. in[i] holds buffer i as it was before the
   * run (IN and INOUT buffers), out[i] as the rung left it (OUT, INOUT). */
  void (*check)(const kl_plan *p, const kl_rung *r, void *const *in,
                void *const *out, kl_verdict *v);
  /* The cost model: what one run of rung r must move and compute. */
  void (*cost)(const kl_plan *p, const kl_rung *r, kl_cost *c);
  const kl_rung *rungs;
  size_t rung_count;
} kl_workload;

size_t kl_workload_count(void);
const kl_workload *kl_workload_at(size_t i);
const kl_workload *kl_workload_find(const char *name);
const kl_rung *kl_rung_find(const kl_workload *w, const char *name);

/* ---- running ----------------------------------------------------------- */
typedef void (*kl_progress_fn)(void *ctx, const char *line);

/* The most timed or warm-up runs a run accepts. */
#define KL_MAX_REPS 1000000

typedef struct kl_options {
  const char *workloads; /* comma-separated names; NULL = every workload */
  const char *backends;  /* comma-separated; NULL = every available one */
  const char *rungs;     /* comma-separated; NULL = every rung */
  int64_t n;             /* elements; 0 = each workload's default */
  kl_type type;          /* KL_TYPE_DEFAULT = each workload's default */
  const char *op;        /* operation, where the workload has several */
  const char *inputs;    /* input pattern, where it has several */
  int reps;              /* timed runs after warm-up, 1..KL_MAX_REPS */
  int warmup;            /* untimed runs before them, 0..KL_MAX_REPS */
  uint64_t seed;         /* inputs are a function of the seed alone */
  int skip_ceiling;      /* nonzero: do not measure the ceilings */
  kl_shape shape;        /* extents, leading dimensions, scalars */
  /* Seconds of timed and warm-up runs per rung beyond which fewer are made
   * (at least one timed run; the report notes it); 0 = no limit. */
  double max_seconds;
  kl_progress_fn progress; /* NULL: silent */
  void *progress_ctx;
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
  int64_t n;
  kl_type type;
  int op, inputs;                /* indices, as in kl_plan */
  kl_shape shape;                /* as resolved, where the workload has dims */
  int reps;                      /* timed runs made */
  double t_median, t_min, t_max; /* seconds */
  kl_cost cost;                  /* per run, by the cost model */
  double merit;                  /* GB/s, GFLOP/s or G items/s, at the median */
  double ceiling;                /* the backend's ceiling, same unit; 0 none */
  double percent;                /* 100 * merit / ceiling; 0 when none */
  double speedup;                /* first rung's median / this median; 0 none */
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

typedef struct kl_report {
  kl_machine machine;
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

/* One problem instance, as kl_run_rung takes it. */
typedef struct kl_problem {
  int64_t n;
  kl_type type;       /* KL_TYPE_DEFAULT: the workload's default */
  const char *op;     /* NULL: the workload's default operation */
  const char *inputs; /* NULL: random inputs */
  uint64_t seed;
  kl_shape shape; /* zeroes: every extent n, default leads and scalars */
} kl_problem;

/* One rung, one problem, no ceiling: for tests and embedding programs.
 * KL_OK when it ran and its check passed (or, for a known-wrong rung,
 * failed as expected). */
kl_status kl_run_rung(const kl_workload *w, const kl_rung *r,
                      const kl_problem *problem, int reps, int warmup,
                      kl_result *out);

/* The names of a result's operation and input pattern ("" when none). */
const char *kl_result_op(const kl_result *r);
const char *kl_result_inputs(const kl_result *r);
const char *kl_metric_unit(const kl_workload *w);
/* The size as text: "n" or, for workloads with dims, "MxNxK". */
void kl_result_size(const kl_result *r, char *dst, size_t size);

/* Parse a size: digits with an optional K, M or G suffix (powers of 1024).
 * KL_USAGE for zero, negative, non-numeric or overflowing text. */
kl_status kl_parse_size(const char *text, int64_t *out);

void kl_machine_describe(kl_machine *m);

#ifdef __cplusplus
}
#endif
#endif
