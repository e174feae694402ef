/* Between the core's own files: contexts, instances, plans, sizing,
 * buffers, jobs, one rung's measurement and the ceiling policy. Not for
 * backends or workloads, which see internal.h. The files depend on each
 * other in one direction only:
 *   params -> context -> sizing -> buffers -> measure -> ceiling -> run;
 *   buffers -> library; fields -> report, catalog (the writers). */
#ifndef KL_HARNESS_H
#define KL_HARNESS_H

#include <time.h>

#include "internal.h"
#include "tool.h"

/* ---- files.c ----------------------------------------------------------- */
/* An input file's size in bytes; KL_USAGE, with one line saying why, for
 * a file that is missing, unreadable, a directory, not a regular file or
 * empty. */
kl_status kl__input_size(const char *path, int64_t *size);
/* An input file's name without its directories, as results and notes
 * name it. */
const char *kl__input_name(const char *path);

/* ---- machine.c --------------------------------------------------------- */
/* t as UTC (gmtime_r: C11's gmtime is not thread-safe); 0 on failure. */
int kl__utc(time_t t, struct tm *out);

/* ---- context.c ---------------------------------------------------------
 * A device: a backend and its index. kl__device_parse reads "NAME" (device
 * 0) or "NAME:INDEX"; KL_USAGE naming the valid backends or devices,
 * KL_UNAVAILABLE where the backend is not usable here. */
typedef struct kl__device_ref {
  const kl_backend *backend;
  int index;
} kl__device_ref;
kl_status kl__device_parse(const char *text, kl__device_ref *out);
/* "cuda:1", or "cuda" for device 0: how tables and progress name it. */
void kl__device_text(const kl_backend *b, int index, char *dst, size_t size);

/* Open a context on device `index` of backend b (ctx zeroed first), and
 * close it. Every call that uses a context holds its lock (kl__enter) and
 * releases it (kl__leave); kl__enter also makes the device current on the
 * calling thread for the rung's hooks. */
kl_status kl__context_open(const kl_backend *b, int index, kl_context *ctx);
void kl__context_close(kl_context *ctx);
/* A library call's block of `bytes` in placement `where` on an entered
 * context: one the context kept from an earlier call (of that placement,
 * holding bytes and at most twice as large), else allocated; *got is the
 * block's size, which kl__context_keep takes back. A kept block saves a
 * small problem's allocation and free, which on a GPU cost more than its
 * kernel. The context keeps at most KL__KEPT_BLOCKS, none above
 * KL__KEPT_BYTES, and frees them when it closes. */
#define KL__KEPT_BLOCKS 8
#define KL__KEPT_BYTES ((size_t)64 << 20)
kl_status kl__context_take(kl_context *ctx, kl_placement where, size_t bytes,
                           void **ptr, size_t *got);
/* The block back to the context's kept ones (the oldest freed where they
 * are full; a block above KL__KEPT_BYTES freed at once). */
void kl__context_keep(kl_context *ctx, kl_placement where, void *ptr,
                      size_t bytes);
kl_status kl__enter(kl_context *ctx);
void kl__leave(kl_context *ctx);
/* The public description of a device of backend b. */
void kl__device_info(const kl_backend *b, const kl_device *d,
                     kl_device_info *out);
/* A device's properties without opening it: the backend's describe hook,
 * or the host's. */
kl_status kl__device_describe(const kl_backend *b, int index, kl_device *out);
/* Copy `full` (a struct of `full_size` bytes whose first member is its
 * size) into the caller's `out`, as much of it as out->size says the
 * caller knows; KL_USAGE where out->size is unset. */
kl_status kl__copy_sized(void *out, const void *full, size_t full_size,
                         const char *what);

/* Device `index` of backend b as the core keeps it: described once, at a
 * place that lives as long as the process (plans point at it); NULL for a
 * device the backend does not have. */
const kl_device *kl__device_at(const kl_backend *b, int index);

/* ---- wisdom.c: which rung the entry points run, by size -------------------
 * The pick for w at type t and size n: across the available backends
 * (only NULL: the best line's backend, and its own pick line's rung where
 * it has one, each for the backend's device 0, a call's default context)
 * or within `only`, for its device `device`; NULL where the wisdom has
 * none. */
const kl_rung *kl__wisdom_rung(const kl_workload *w, kl_type t, int64_t n,
                               const kl_backend *only, int device);
/* The tuned values for rung r of w at type t and size n on device
 * `device` of r's backend: the parameters set (KL_PARAM_BIT), their
 * values in value[] (the workload's order); 0 where the wisdom has no
 * tuned line for them. */
uint64_t kl__wisdom_tuned(const kl_workload *w, const kl_rung *r, kl_type t,
                          int64_t n, int device, double *value);
/* The rung an entry point runs for w at type t and size n on backend `on`
 * (NULL: with no context) and its device `device`: the wisdom's pick for
 * the size (wisdom.c), else the library rung of `on` or of the preferred
 * available backend; NULL where none serves. library.c; kl_dispatch says
 * it by name. */
const kl_rung *kl__dispatched(const kl_workload *w, kl_type t, int64_t n,
                              const kl_backend *on, int device);
/* Parameter i of w parsed from `text` as -p takes one value, its range
 * checked; KL_USAGE with one line where it is not one (params.c). */
kl_status kl__param_value(const kl_workload *w, int i, const char *text,
                          double *value);
/* A workload added to the registry's end, for a test program's fake
 * workloads: before anything else is called, never again (registry.c). */
void kl__workload_add(const kl_workload *w);
/* The size w's wisdom knows a problem of main size n and parameter values
 * `value` by (kl_workload.wisdom_size; n without one). */
int64_t kl__wisdom_size(const kl_workload *w, int64_t n, const double *value);
/* The built-in wisdom, a wisdom file's text (wisdom-builtin.c), and the
 * text the library reads as it: kl__wisdom_builtin, or a test program's
 * own, set before anything else is called. */
extern const char kl__wisdom_builtin[];
extern const char *kl__wisdom_builtin_text;

/* The process's default context of device 0 of backend b: opened on first
 * use, shared by every thread (each call locks it), closed at exit. */
kl_status kl__default_context(const kl_backend *b, kl_context **out);

/* A problem instance: what a plan is made from. */
typedef struct kl__instance {
  int64_t n;   /* the main size; 0 until chosen */
  int n_given; /* by the user, rather than a default fitted to memory */
  kl_type type;
  uint64_t seed;
  double value[KL_MAX_PARAMS]; /* where given */
  uint64_t given;              /* bit i: parameter i was given */
  /* 1 + the first parameter given twice with different values, 0 none;
   * the two values. */
  int conflict;
  double conflict_values[2];
  /* The input file, NULL for inputs from the seed; where it does not fit
   * in memory, the most main-size elements a chunk holds (0: one chunk). */
  const char *input_file;
  int64_t chunk_size;
  /* The inputs come from a library entry point's caller (kl_plan). */
  int caller_inputs;
  /* The paths of the workload's named files (kl_plan.files). */
  const char *files[KL_MAX_FILES];
  /* Defaults are the quick ones (kl_options.full 0). */
  int quick;
  /* The quick default of host backends grown past their cache
   * (kl_param.cache_multiple; sizing.c); 0: the workload's own. */
  int64_t host_quick;
  /* A distributed workload over several ranks: the run's (kl_plan.ranks,
   * .strong); NULL and 0 otherwise, and for the one-rank measurement. */
  const kl_ranks *ranks;
  int strong;
} kl__instance;

/* ---- sweep.c: a sweep's text expanded ------------------------------------
 * Comma-separated items, each a value or a range LO..HI:xF (LO, LO*F, ...
 * while at most HI; F above 1) or LO..HI:+S (LO, LO+S, ...), into at most
 * `max` distinct values, in the order given: a value that comes twice, an
 * empty item, a range that runs down and more than `max` values are usage
 * errors, each one line naming `what`. Each value and each end of a range
 * is parsed by `parse` (a size, a parameter of its kind); `integer`: a
 * range's points are rounded (and a step is a whole number, K, M or G
 * allowed); `ranges` 0: no range (a choice's names). */
typedef struct kl__sweep_of {
  const char *what; /* how messages name it: "size", "laplacian: nx" */
  int integer;
  int ranges;
  kl_status (*parse)(void *ctx, const char *text, double *value);
  void *ctx;
} kl__sweep_of;
kl_status kl__sweep_values(const kl__sweep_of *of, const char *text,
                           double *out, size_t max, size_t *count);
/* The sizes of kl_options.sizes (kl_parse_size's values). */
kl_status kl__sweep_sizes(const char *text, double *out, size_t max,
                          size_t *count);

/* ---- params.c ---------------------------------------------------------- */
/* The instance a workload runs with under these options. Where it lacks
 * a parameter, type, op or shape asked for: a usage error when `named`
 * (the only workload of the run), else KL_UNAVAILABLE with a remark
 * appended to note (the run skips it).
 * A sweep (kl_options.sizes, lists in params) has several points: the
 * instance of point `point` (0 .. *points - 1; the sizes vary slowest,
 * the last parameter listed fastest), and *points (where not NULL) how
 * many there are for w, 1 without a sweep. */
kl_status kl__instance_from_options(const kl_options *o, const kl_workload *w,
                                    size_t point, size_t *points,
                                    kl__instance *in, int named, char *note,
                                    size_t note_size);
kl_status kl__instance_from_problem(const kl_workload *w, const kl_problem *pb,
                                    kl__instance *in);
/* Whether rung r is built into this library: it has a run function (a
 * rung on a backend left out of the build has none). */
static inline int kl__rung_built(const kl_rung *r) {
  return r->run || r->run_reps;
}
/* The plan of an instance for rung r (its scratch included; r may be NULL)
 * on a backend whose memory is host memory or not; *problem_bytes (where
 * not NULL) the bytes of the problem's own buffers, before the rung's
 * scratch hook added to or changed them. Every plan is made here, and
 * counted: kl__plans_made() tells how many this thread has made. */
kl_status kl__plan_make(const kl_workload *w, const kl_rung *r,
                        const kl__instance *in, int host_backend,
                        const kl_device *device, kl_plan *p,
                        double *problem_bytes);
long kl__plans_made(void);
/* The main size a workload runs at by default, on host backends or not,
 * quick or full. */
int64_t kl__default_size(const kl_workload *w, int host_backend, int quick);
/* The main size an instance runs at on a host backend or not: where no
 * size was given, host backends take the smaller host default. */
int64_t kl__instance_size(const kl_workload *w, const kl__instance *in,
                          int host_backend);
/* n, or the extents of a plan joined by 'x' ("MxNxK"). */
void kl__shape_text(const kl_workload *w, const kl_plan *p, char *dst,
                    size_t size);
/* Selection by pattern (-w, -b, -r): a comma-separated list of names and
 * globs (fnmatch: *, ?, [...]) that select, and of the same after a '!'
 * that deselect: `name` is selected where no item excludes it and some
 * item includes it, or the list includes nothing (`!openacc`: every
 * other). kl__selects and kl__matches (one item, its '!' skipped) are
 * tool.h's. */
int kl__is_pattern(const char *item);
/* The same, where a list that includes nothing (or none) selects `name`
 * only if by_default. */
int kl__selects_by_name(const char *list, const char *name, int by_default);

/* ---- plans made once: a run's planner ------------------------------------
 * Sizing asks for the plans of the same rung at the same size more than
 * once (the fit of a default, then the job); the planner keeps every plan
 * of a run by its rung, instance and backend kind, so that each is made
 * once. */
typedef struct kl__planner {
  struct kl__planned *items;
  size_t count, capacity;
} kl__planner;
/* The plan, made or kept; NULL planner: made every time. */
kl_status kl__plan_get(kl__planner *pl, const kl_workload *w,
                       const kl_rung *r, const kl__instance *in,
                       int host_backend, const kl_device *device, kl_plan *p,
                       double *problem_bytes);
void kl__planner_free(kl__planner *pl);

/* ---- sizing.c ---------------------------------------------------------- */
/* A rung on one device: what sizing fits and jobs run. */
typedef struct kl__placed {
  const kl_rung *r;
  int device;
} kl__placed;

/* A device's free and total memory, and the host's free memory, at most
 * KLADDER_MEMORY_LIMIT: the one place the limit applies. */
kl_status kl__backend_memory(const kl_backend *b, int device,
                             size_t *free_bytes, size_t *total_bytes);
size_t kl__host_free(void);
/* Whether p's buffers fit, with a margin, in the memory free now. */
int kl__fits_now(const kl_plan *p, const kl_backend *b, int device);
/* KL_TOO_LARGE, saying what does not fit where, unless the plan's buffers
 * fit on the device and the harness's host copies fit on the host (none
 * for a library call, `host_copies` 0). */
kl_status kl__check_fits(const kl_workload *w, const kl_plan *p,
                         const kl_backend *b, int device, int host_copies);
/* An instance with an input file too large for the memory of the rungs
 * listed runs in chunks: in->chunk_size set to the largest that fits (as
 * a default size fits), with a note; 0 where the whole file fits, or where
 * not even one element does (the memory check then says so). */
kl_status kl__fit_chunks(kl__planner *pl, const kl_workload *w,
                         kl__instance *in, const kl__placed *rungs,
                         size_t count, char *note, size_t note_size);
/* Shrink in->n from the workload's default until the plans of every rung
 * listed fit their devices, with a note when it shrank. `caches`: a quick
 * default first grows past the devices' last-level caches
 * (kl_param.cache_multiple); a ceiling's does not, since it grows to the
 * bytes of the rung it serves. */
kl_status kl__fit_default_size(kl__planner *pl, const kl_workload *w,
                               kl__instance *in, const kl__placed *rungs,
                               size_t count, int caches, char *note,
                               size_t note_size);
/* Whether the rung's plan at size n fits the memory a default size may
 * use (a ceiling grown past its default to a rung's bytes); in->n kept. */
int kl__fits_as_default(kl__planner *pl, const kl_workload *w,
                        kl__instance *in, int64_t n, const kl__placed *rung);

/* The bytes of a plan's buffers, the memory a run of it works over. */
kl_status kl__plan_bytes(const kl_plan *p, double *bytes);

/* ---- buffers.c --------------------------------------------------------- */
/* A plan's buffers on a context: the backend's (dev), and the host copies
 * the check reads (in: inputs before the run; out: outputs after it). In a
 * library call some dev buffers are the caller's own (borrowed). */
typedef struct kl__buffers {
  void *dev[KL_MAX_BUFFERS];
  void *in[KL_MAX_BUFFERS];
  void *out[KL_MAX_BUFFERS];
  void *fill[KL_MAX_BUFFERS]; /* where the inputs are made, in host memory */
  void *owned[2 * KL_MAX_BUFFERS]; /* host copies to free */
  int owned_count;
  int borrowed[KL_MAX_BUFFERS]; /* dev[i] is the caller's: not freed */
  size_t kept[KL_MAX_BUFFERS];  /* dev[i] the context's block of these
                                   bytes (a library call's): kept again */
} kl__buffers;

/* Allocate every buffer, make fresh inputs, upload them, poison outputs
 * and scratch (zero where asked). */
kl_status kl__buffers_prepare(const kl_workload *w, const kl_plan *p,
                              kl_context *ctx, kl__buffers *bufs);
/* A library call's buffers: the caller's where the rung can use them in
 * place (inputs in the backend's memory, `on_device`, or any buffer of a
 * host backend), else allocated and, for inputs, copied from the caller's;
 * scratch allocated and poisoned or zeroed as in a run. */
kl_status kl__buffers_adopt(const kl_plan *p, kl_context *ctx,
                            void *const *user, int on_device,
                            kl__buffers *bufs);
/* Copy a library call's outputs that were not written in place back to
 * the caller's buffers. */
kl_status kl__buffers_give_back(const kl_plan *p, kl_context *ctx,
                                const kl__buffers *bufs, void *const *user);
/* Make chunk `chunk` of a plan of several the current one (p->chunk,
 * p->chunk_n) and load its inputs where the rung reads them. */
kl_status kl__buffers_load_chunk(const kl_workload *w, kl_plan *p,
                                 kl_context *ctx, const kl__buffers *bufs,
                                 int64_t chunk);
/* Queue the copies of the inputs (every buffer but outputs and scratch)
 * from their host copies to the backend's memory, where they live there;
 * no sync: a library call's upload, made again (host_data). */
kl_status kl__buffers_upload_inputs(const kl_plan *p, kl_context *ctx,
                                    const kl__buffers *bufs);
/* Copy the outputs (every buffer but inputs and scratch) that live in the
 * backend's memory to their host copies, and sync. */
kl_status kl__buffers_download(const kl_plan *p, kl_context *ctx,
                               kl__buffers *bufs);
/* Put the restored INOUT buffers back to their inputs. */
kl_status kl__buffers_restore(const kl_plan *p, kl_context *ctx,
                              const kl__buffers *bufs);
void kl__buffers_release(const kl_plan *p, kl_context *ctx,
                         kl__buffers *bufs);
kl_status kl__buffer_bytes(const kl_buffer_spec *s, size_t *bytes);

/* ---- results and reports ------------------------------------------------
 * A result as the core keeps it: the public one, the model's workload and
 * rung it came from, its plan, and the arrays it owns. */
typedef struct kl__result {
  kl_result pub;
  const kl_workload *w;
  const kl_rung *r;
  kl_plan plan;
  double *times;         /* [pub.reps]; owned */
  kl_trace_event *trace; /* [pub.trace_count]; owned */
  kl_rank_run *rank_runs; /* [pub.rank_run_count]; owned */
  int ceiling_only;      /* run only as a ceiling, not selected */
  char energy_why[192];  /* why an energy window asked for has none */
  /* The bound its runs were fitted to: kl_options.max_seconds, or a quick
   * run's (run.c); 0: none. */
  double max_seconds;
  /* 1: its one timed run was the checked run, which alone took longer
   * than max_seconds (measure.c). */
  int checked_timed;
  /* Where the workload is memory-bound (its main size has a
   * cache_multiple) and the plan's buffers fit in the device's last-level
   * cache: those buffers' bytes, and the cache's; 0 otherwise. The rate
   * is then the cache's (measure.c; a line under the table says so). */
  double in_cache_bytes, cache_bytes;
  /* The rungs whose timed runs were interleaved with this one's (itself
   * included: 1 alone), and the batches its timed runs came in (run.c,
   * measure.c). */
  int interleaved, rounds;
  /* Where the board's clocks were watched (kl__timing.clocks): their
   * mean over the samples around its batches (0: not watched), every
   * reason seen, the batches made again after a slowdown, and whether a
   * slowed batch was kept (it slowed every time it was tried). */
  double sm_mhz, mem_mhz;
  unsigned long long clock_reasons;
  int slowed_batches, throttled;
  /* Its context's launch floor (kl_backend.launch), seconds; 0: none. */
  double launch_floor;
  /* Where the rung's wall-clock time went (run.c): its setup (inputs,
   * upload, the checked run and the check, its ceiling's setup) and its
   * timing (warm-ups, timed runs with their ceiling's, their energy
   * window), seconds; 0: not measured. */
  double setup_seconds, timing_seconds;
} kl__result;

struct kl_report {
  kl_machine machine;
  char started[32];
  char *command_line;
  kl_options options;
  size_t count;
  kl__result *results;
  char notes[4096];
  int interrupted; /* stopped by options.stop before every job ran */
  /* On several ranks: one exchange between them, timed before the
   * first rung (run.c); 0 on one. */
  double exchange_seconds;
};

/* A fresh result of rung r of w on device `device` of its backend: names,
 * flags, and the problem's text from the plan (NULL: none yet). */
void kl__result_init(kl__result *res, const kl_workload *w, const kl_rung *r,
                     int device, const kl_plan *p);
/* The problem's text fields (shape, op, inputs, params) from a plan. */
void kl__result_describe(kl__result *res, const kl_plan *p);
/* Record a status and kl_last_error() in a result; returns st. */
kl_status kl__result_status(kl__result *res, kl_status st);
void kl__result_free(kl__result *res);
/* A report with no results yet, for the options given; its machine is
 * the host's until the caller describes the backends it runs
 * (kl__machine_describe). */
kl_status kl__report_new(const kl_options *o, size_t capacity,
                         kl_report **out);

/* ---- jobs ---------------------------------------------------------------
 * One rung to run on one device and one problem, planned once: the plan
 * carries the rung's scratch, and was checked to fit when the job was
 * made. The ceiling job (of the same run) is timed beside it. */
typedef struct kl__job {
  const kl_workload *w;
  const kl_rung *r;
  int device;
  kl__instance in;
  kl_plan plan;
  double problem_bytes; /* the plan's own buffers, before the scratch */
  int is_ceiling;
  int ceiling_only; /* made only to be a ceiling: not in the selection */
  /* Sized by a quick default (no size given, kl_options.full 0): its runs
   * are bounded by the quick run's time (run.c); a ceiling job, by the
   * job it serves. */
  int quick_size;
  ptrdiff_t ceiling; /* the job whose rung is this one's ceiling, -1 none */
  /* The run's named files to write, where this job's workload writes one
   * (named.c); NULL: none. */
  struct kl__outputs *outputs;
} kl__job;

typedef struct kl__jobs {
  kl__job *items;
  size_t count, capacity;
} kl__jobs;

kl_status kl__jobs_push(kl__jobs *l, const kl__job *j);

/* kl_run_rung of a rung given as the model's (a test's own rung, not in
 * its workload's table). */
kl_status kl__run_one(kl_context *ctx, const kl_workload *w,
                      const kl_rung *r, const kl_problem *pb, int reps,
                      int warmup, kl_report **out);

/* ---- named.c: a workload's named files (kl_options.files) ----------------
 * apply: the files of the options that workload w takes, into the
 * instance (a file to read checked as kl__input_size does); a name it
 * lacks is a usage error where `named` (the run's only workload), else
 * KL_UNAVAILABLE with a note (the run skips it).
 * The files a run writes: opened before any rung runs (outputs_open, for
 * the jobs whose workload writes one, each job's `outputs` set; KL_USAGE
 * where a path cannot be written), written from the first job whose check
 * passed (outputs_write, by the workload's hook), and put in place or
 * removed (outputs_finish: kept where `keep`, the run completed; a note
 * says which rung's were written, or that no rung passed; KL_IO where
 * writing failed). */
kl_status kl__named_files_apply(const kl_workload *w, const kl_options *o,
                                int named, kl__instance *in, char *note,
                                size_t note_size);
typedef struct kl__output_entry {
  const kl_workload *w;
  const kl_named_file *file;
  const char *path;
  FILE *f;
  char *dest, *temp;
  const kl_rung *by; /* the rung whose outputs were written; NULL: none */
  kl_status status;  /* KL_OK, or why writing failed (message kept) */
  char error[256];
} kl__output_entry;
typedef struct kl__outputs {
  int count;
  kl__output_entry items[KL_MAX_FILES];
} kl__outputs;
kl_status kl__outputs_open(kl__outputs *outs, kl__jobs *jobs);
void kl__outputs_write(kl__outputs *outs, const kl__job *job,
                       const kl_plan *p, const kl_verdict *v,
                       void *const *out);
kl_status kl__outputs_finish(kl__outputs *outs, int keep, char *note,
                             size_t note_size);

/* ---- nvml.c: NVML for one board, loaded at run time ----------------------
 * Its energy counter and power, its clocks and the reasons they are low,
 * and what a results file discloses of the board. */
typedef struct kl__nvml kl__nvml;
/* The clocks at one moment: SM and memory MHz, NVML's clock-event
 * reasons (bits: 0x4 power cap, 0x8 hardware slowdown, 0x20 and 0x40
 * software and hardware thermal, 0x80 power brake, 0x1 idle). */
typedef struct kl__clock_sample {
  double sm_mhz, mem_mhz;
  unsigned long long reasons;
} kl__clock_sample;
/* The board as a results file discloses it (kl_machine); 0 or -1 where
 * NVML does not say. */
typedef struct kl__gpu_disclosure {
  double power_limit_watts, app_sm_mhz, app_mem_mhz, max_sm_mhz;
  int ecc, persistence; /* 1 on, 0 off, -1 unknown */
} kl__gpu_disclosure;
/* An SM clock below this fraction of the application clock, neither idle
 * nor power-capped, is a slowdown (as nvbench takes 75%). */
#define KL__CLOCK_FLOOR 0.75
/* NVML for the board at PCI bus id `bus`: KL_OK, or KL_UNAVAILABLE with
 * why (no library, NVML not started, a board it does not know). */
kl_status kl__nvml_open(const char *bus, kl__nvml **out, char *why,
                        size_t size);
void kl__nvml_close(kl__nvml *n);
/* 1 with the value, 0 where NVML cannot read it. */
int kl__nvml_energy(const kl__nvml *n, double *joules);
/* The board's power: NVML's instantaneous field where it has one
 * (*averaged 0), else nvmlDeviceGetPowerUsage, which boards from Ampere
 * on average over the last second (*averaged 1). */
int kl__nvml_power(const kl__nvml *n, double *watts, int *averaged);
int kl__nvml_clocks(const kl__nvml *n, kl__clock_sample *s);
void kl__nvml_disclose(const kl__nvml *n, kl__gpu_disclosure *d);
/* Whether a sample shows the board slowing itself: a thermal or hardware
 * reason, or the SM clock under KL__CLOCK_FLOOR of app_sm_mhz (0: none
 * known) while neither idle nor power-capped. */
int kl__clocks_slowed(const kl__clock_sample *s, double app_sm_mhz);
/* The reasons as names, "power-cap,hw-thermal"; "" for none. */
void kl__clock_reasons_text(unsigned long long reasons, char *dst,
                            size_t size);

/* ---- energy.c: a device's energy counter (kl_options.energy) -------------
 * Opened once per device of a run, before any rung runs on it: NVML for a
 * device whose backend gives its PCI bus id, RAPL's package counters for
 * a backend whose memory is the host's; KL_UNAVAILABLE, with why in `why`,
 * where there is none to read. Opening measures the device's idle power
 * with the window's rule. */
typedef struct kl__energy kl__energy;
typedef struct kl__energy_rule {
  double min_seconds; /* a window lasts at least this long */
  int min_updates; /* and sees the counter move at least this often */
} kl__energy_rule;
void kl__energy_rule_default(kl__energy_rule *rule);
/* rule NULL: the default one (1 s, 10 updates). */
kl_status kl__energy_open(kl_context *ctx, const kl__energy_rule *rule,
                          kl__energy **out, char *why, size_t size);
void kl__energy_close(kl__energy *e);
const char *kl__energy_source(const kl__energy *e); /* "nvml", "rapl" */
double kl__energy_idle_watts(const kl__energy *e);
/* What one window measured: its seconds (from the counter's first update
 * seen to the end of its last batch), its mean watts (the counter's
 * joules between that update and the last one seen by then, over the
 * time between them, each update's time the middle between the watcher's
 * read that saw it and the one before), its joules (watts x seconds), the repetitions run in it, the
 * counter's updates, the sampled power's mean (0 where the device
 * reports none) and whether the two differ by more than 10%. */
typedef struct kl__energy_figures {
  double joules, seconds, watts, sampled_watts;
  long reps;
  int updates, mismatch;
} kl__energy_figures;
/* A window: batch(arg, per_batch) again and again (each call complete
 * when it returns) until the rule holds, the counter read between
 * batches, never inside one; batch NULL: nothing runs (idle power).
 * KL_UNAVAILABLE where the counter cannot be read or stops moving; a
 * batch's failure as it returned it. */
kl_status kl__energy_window(kl__energy *e, const kl__energy_rule *rule,
                            kl_status (*batch)(void *arg, int count),
                            void *arg, int per_batch, kl__energy_figures *f);

/* ---- noise.c: when a series of timed runs has measured its median ------- */
/* A series' rule: a fixed count (precision 0: min_reps runs), or runs
 * until the median's 95% interval is within precision of it (at least
 * min_reps runs and min_seconds of timed runs), at most max_reps runs
 * and max_seconds of the series' wall clock (0: no bound). */
typedef struct kl__noise_rule {
  int min_reps, max_reps;
  double precision, min_seconds, max_seconds;
} kl__noise_rule;
/* k such that the k-th smallest and the k-th largest of n runs bound
 * their median with 95% confidence; 0 under KL_NOISE_MIN_REPS runs. */
int kl__median_rank(int n);
/* The median of n values, which it sorts in place. */
double kl__median(double *t, int n);
/* That interval of n sorted times, and its larger side over the median;
 * -1 (low and high 0) where there is none. */
double kl__median_interval(const double *sorted, int n, double *low,
                           double *high);
/* The runs to make after n of times t (timed: their sum; wall: the
 * series' seconds so far); 0 when the series is over, why in *stop.
 * scratch: room for n values. */
/* A result's interval's larger side over its median; -1 where it has
 * none. */
double kl__median_spread(const kl_result *r);
int kl__noise_more(const kl__noise_rule *rule, const double *t, int n,
                   double timed, double wall, double *scratch, kl_stop *stop);

/* ---- measure.c --------------------------------------------------------- */
/* How a run times its rungs: reps timed runs (0: by noise, to precision)
 * after warmup, at most max_seconds of them (0: no bound); host_data:
 * kl_options.host_data, for the job's own repetitions (a ceiling's stay in
 * the backend's memory); the ranks (NULL: one process) and the stop flag
 * (NULL: none). */
typedef struct kl__timing {
  int reps;
  double precision;
  int warmup;
  double max_seconds;
  int host_data;
  const kl_ranks *ranks;
  const volatile sig_atomic_t *stop;
  /* The board's NVML where its clocks are watched around each batch of
   * timed runs (NULL: not), and its application SM clock (0: unknown). */
  const kl__nvml *clocks;
  double app_sm_mhz;
  /* Nonzero: the device's last-level cache flushed before each timed run
   * (kl_options.cache). */
  int cold;
} kl__timing;

/* Check, then time, one job in an open context (entered); with a ceiling
 * job beside it, time as many runs of that right after each batch of the
 * job's; with an energy counter (NULL: none), then the job's energy
 * window. In three steps: start (prepared, checked; KL_OK and *out, or
 * the result's status and *out NULL), step (one batch of timed runs,
 * *done once the rule ends them; others: another rung ran since this
 * one's last batch, which then starts with an untimed run) and finish
 * (the figures, the window, everything released: the result's status).
 * share: a measurement started before on the same context (or NULL);
 * where it times the same ceiling job, this one times that ceiling's
 * prepared buffers too, each its own runs of it. kl__measure makes the
 * three in a row. */
typedef struct kl__measuring kl__measuring;
kl_status kl__measure_start(const kl__job *job, kl_context *ctx,
                            const kl__timing *t, const kl__job *beside,
                            kl__measuring *share, kl__result *res,
                            kl__measuring **out);
kl_status kl__measure_step(kl__measuring *m, int others, int *done);
kl_status kl__measure_finish(kl__measuring *m, kl__energy *energy);
kl_status kl__measure(const kl__job *job, kl_context *ctx,
                      const kl__timing *t, const kl__job *beside,
                      kl__energy *energy, kl__result *res);

/* ---- ranks.c: kl_options.ranks' collectives, no-ops for one rank -------- */
/* Whether the caller's kl_ranks (its size) reaches `field`: one built
 * against an older kladder.h stops before the fields added since. */
#define KL__RANKS_HAS(r, field)                                               \
  ((r)->size >= offsetof(kl_ranks, field) + sizeof(r)->field)
int kl__ranks_count(const kl_ranks *r);
void kl__ranks_barrier(const kl_ranks *r);
/* Each of the n values becomes its maximum over the ranks. */
void kl__ranks_max(const kl_ranks *r, double *values, int n);
/* The status of the lowest rank whose st is not KL_OK, with its message
 * ("rank 2: ...") as kl_last_error() on every rank; st with one rank. */
kl_status kl__ranks_agree(const kl_ranks *r, kl_status st);
/* Whether r has the collectives the distributed workloads make. */
int kl__ranks_distributes(const kl_ranks *r);
/* In place: each of the n values becomes its sum over the ranks (where r
 * distributes), else its maximum times the count (every rank's cost
 * alike). */
void kl__ranks_sum(const kl_ranks *r, double *values, int n);
/* Every rank's n values, `mine` this one's, into all[rank * n + i] on
 * every rank (all: count * n values): an element-wise maximum of an
 * array where each rank fills its own slot. */
void kl__ranks_collect(const kl_ranks *r, const double *mine, int n,
                      double *all);
double kl__rate(const kl_workload *w, const kl_cost *c, double seconds);

/* ---- ceiling.c: the whole ceiling policy ---------------------------------
 * Which ceiling a job gets, at what size and where it is measured
 * (kl__ceiling_jobs: the ceiling jobs, each planned once, put first, and
 * every job's `ceiling` index), and, once all have run, how each result
 * relates to it (kl__ceiling_relate: its ceiling rate, percent and note,
 * and its speedup). */
kl_status kl__ceiling_jobs(kl__planner *pl, const kl_options *o,
                           kl__jobs *selected, kl__jobs *jobs,
                           kl_report *rep);
void kl__ceiling_relate(const kl__jobs *jobs, kl_report *rep);
/* Whether two plans of workload w solve the same problem as they were
 * made: the same main size, type and every parameter's value (the table's
 * problems, the rungs whose runs interleave). */
int kl__plans_alike(const kl_workload *w, const kl_plan *a, const kl_plan *b);
/* Whether two instances of workload w are the same problem: the same
 * size, type, seed and parameters, however each was given. */
int kl__same_problem(const kl_workload *w, const kl__instance *a,
                     const kl__instance *b);

/* ---- the writers' shared parts (fields.c) -------------------------------- */
/* "ceiling,vendor,known-wrong", the flags that apply. */
void kl__flags_text(unsigned flags, char *dst, size_t size);

#endif
