/* kladder's run API: for a program that drives runs as `kladder run`
 * does. A run selects workloads, backends and rungs (kl_options), checks
 * every rung on fresh inputs and times it beside its ceiling (kl_run), and
 * returns a report of results (kl_result) that it prints or writes as a
 * results file (kl_output).
 *
 *   workload - a problem with a reference result, a verification rule and
 *              a cost model; `kladder list` and kl_workload_describe()
 *              name them;
 *   rung     - one implementation of a workload on one backend; the rungs
 *              of a workload form its ladder, from naive to fastest;
 *   report   - the results of a run, one kl_result per rung measured.
 *
 * kladder.h's soname promise and thread contract hold here. */
#ifndef KLADDER_RUN_H
#define KLADDER_RUN_H

#include <signal.h>
#include <stdio.h>

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kl_ranks; /* kladder-ranks.h */

/* Parse a size: digits with an optional K, M or G suffix (powers of 1024).
 * KL_USAGE for zero, negative, non-numeric or overflowing text. */
kl_status kl_parse_size(const char *text, int64_t *out);

/* A sweep of sizes (kl_options.sizes, `kladder run -n`): comma-separated
 * items, each a size (as kl_parse_size) or a range, LO..HI:xF (LO, LO*F,
 * LO*F^2, ... while at most HI; F a number above 1, each point rounded to
 * a whole number) or LO..HI:+S (LO, LO+S, ... while at most HI; S a
 * size): "1K,64K,1M", "1K..256M:x4", "1K..8K:+1K", "100,1K..64K:x8". An
 * empty item, a range that runs down or has no step, a value that comes
 * twice, or more than KL_MAX_SWEEP points is KL_USAGE. KL_MAX_SWEEP: the
 * most points one sweep runs, sizes times the values of every parameter
 * swept (the lists in kl_options.params). */
#define KL_MAX_SWEEP 64

/* Selection patterns (kl_options' workloads, backends and rungs, and
 * `kladder run -w/-b/-r`): a comma-separated list of names and globs
 * (`*`, `?`, `[...]`, as fnmatch) that select, and of the same after a
 * `!` that deselect. A name is selected where no item deselects it, and
 * some item selects it or the list selects nothing (`!openacc`: every
 * other); NULL selects everything. */

/* ---- workloads and their rungs ----------------------------------------- */
#define KL_RUNG_VENDOR 1u      /* a vendor library: the reference to beat */
#define KL_RUNG_KNOWN_WRONG 2u /* a teaching rung that must fail its check */
#define KL_RUNG_CEILING 4u     /* its backend's ceiling for the workloads
                                  that name this one as theirs */

/* A named file of a workload (kl_options.files; the command's --NAME
 * FILE): cg reads "rhs" and writes "solution". */
#define KL_MAX_FILES 4
typedef struct kl_named_path {
  const char *name; /* the workload's name for the file: "rhs" */
  const char *path;
} kl_named_path;

typedef struct kl_workload_info {
  size_t size;         /* the caller's sizeof(kl_workload_info) */
  const char *name;
  const char *summary;
  const char *check;   /* the verification rule, in words */
  const char *source;  /* where it comes from (seed and section) */
  const char *unit;    /* of its rate: "GB/s", "GFLOP/s", "Gpt/s" */
  unsigned types;      /* KL_TYPE_BIT set */
  kl_type default_type;
  const char *input_help; /* what it does with --input FILE; NULL: none */
  int param_count;
  int rung_count;
  /* Its named files (kl_options.files), file_count of them: each one's
   * name, what it is in one line, and 1 where a run writes it (0: reads
   * it). */
  int file_count;
  const char *file_names[KL_MAX_FILES];
  const char *file_help[KL_MAX_FILES];
  int file_writes[KL_MAX_FILES];
  /* 1 where one problem is split over the ranks of a run (kl_ranks); 0:
   * each rank runs its own copy. */
  int distributed;
} kl_workload_info;

typedef struct kl_param_info {
  size_t size;          /* the caller's sizeof(kl_param_info) */
  const char *name;
  const char *kind;     /* "size", "int", "real" or "choice" */
  const char *help;
  /* The default: a number, a choice's name, or where the value is derived
   * (default_text set) NULL and 0. */
  double default_value;
  const char *default_choice;
  const char *default_text;
  double host_default;  /* the default on host backends; 0: the same */
  double min, max;      /* a number's range */
  const char *const *choices; /* a choice's names, NULL-terminated */
  int main_size;        /* the main size: -n */
  int tuning;           /* how some rungs run, not what they compute */
  /* A tuning's values that `kladder tune` sweeps, as -p takes a list
   * ("1,2,4,8,16"); NULL: a choice's every choice, a number's none. */
  const char *tune_values;
} kl_param_info;

typedef struct kl_rung_info {
  size_t size;          /* the caller's sizeof(kl_rung_info) */
  const char *name;
  const char *backend;
  const char *summary;
  unsigned flags;       /* KL_RUNG_VENDOR, _KNOWN_WRONG, _CEILING */
  unsigned types;       /* KL_TYPE_BIT set it runs */
  unsigned library;     /* types for which the library's entry point runs
                           it on its backend */
  int built;            /* built into this library */
  int available;        /* built, and its backend usable here */
  const char *peer;     /* the rung of another backend doing its work */
  char tunings[64];     /* the tuning parameters it reads: "m"; "" */
} kl_rung_info;

/* The workloads this library has. */
size_t kl_workload_count(void);
/* Workload i; its parameter p; its rung r, in ladder order. out->size
 * must be set. KL_USAGE for an index out of range. */
kl_status kl_workload_describe(size_t i, kl_workload_info *out);
kl_status kl_param_describe(size_t workload, int p, kl_param_info *out);
kl_status kl_rung_describe(size_t workload, int r, kl_rung_info *out);
/* What the model predicts for rung r of workload w before it runs: the
 * cost of one repetition (bytes, flops, items: counts known only after a
 * run, such as cg's iterations, taken as 0) at main size n (0: the
 * default for the rung's backend), at the workload's default type and
 * default parameters; the unit of its rate, and what the rate is compared
 * with (the ceiling policy, in words). out->size must be set. */
typedef struct kl_prediction {
  size_t size;        /* the caller's sizeof(kl_prediction) */
  int64_t n;          /* the main size predicted for */
  kl_type type;
  struct kl_cost_view {
    double bytes, flops, items;
  } cost;
  const char *unit;
  char ceiling[192];
} kl_prediction;
kl_status kl_rung_predict(size_t workload, int rung, int64_t n,
                          kl_prediction *out);
/* The index of a workload by name; KL_USAGE naming the valid ones. */
kl_status kl_workload_index(const char *name, size_t *out);

/* ---- running -----------------------------------------------------------
 * Positional values for the parameter groups: -s MxNxK (extents), --ld
 * (leading dimensions), --scalars (--alpha, --beta). Zero (or a clear bit
 * in scalars_set) means "not given". */
#define KL_MAX_DIMS 4
typedef struct kl_shape {
  int64_t dims[KL_MAX_DIMS];
  int64_t lead[KL_MAX_DIMS];
  double scalars[KL_MAX_DIMS];
  uint64_t scalars_set; /* bit i: scalars[i] was given */
} kl_shape;

typedef void (*kl_progress_fn)(void *ctx, const char *line);

/* The most timed or warm-up runs a run accepts. */
#define KL_MAX_REPS 1000000

/* Repetitions by noise (kl_options.reps 0, the default): a rung's timed
 * runs go on until the 95% interval of their median is within
 * kl_options.precision of it on either side, after at least
 * KL_NOISE_MIN_REPS runs (the fewest whose extremes bound such an
 * interval) and KL_NOISE_MIN_SECONDS of timed runs; they stop sooner at
 * kl_options.max_seconds or KL_NOISE_MAX_REPS runs. */
#define KL_NOISE_MIN_REPS 6
#define KL_NOISE_MIN_SECONDS 0.02
#define KL_NOISE_MAX_REPS 10000

/* What a timed run finds in the device's last-level cache
 * (kl_options.cache): whatever the run before left (warm), or nothing of
 * its data (cold: flushed before each run). */
typedef enum kl_cache { KL_CACHE_WARM, KL_CACHE_COLD } kl_cache;

/* Why a rung's timed runs stopped (kl_result.stop). */
typedef enum kl_stop {
  KL_STOP_REPS,      /* the count asked for (kl_options.reps) */
  KL_STOP_CONVERGED, /* the median's interval within the precision */
  KL_STOP_MAX_TIME,  /* the time bound (kl_options.max_seconds, quick) */
  KL_STOP_MAX_REPS   /* KL_NOISE_MAX_REPS runs */
} kl_stop;

/* "reps", "converged", "max-time", "max-reps". */
const char *kl_stop_name(kl_stop s);

/* How a distributed workload's size is read over ranks: weak, each
 * rank's share (HPCG's way, the default); strong, the whole problem. */
typedef enum kl_scaling { KL_SCALING_WEAK, KL_SCALING_STRONG } kl_scaling;

typedef struct kl_options {
  size_t size;           /* the caller's sizeof(kl_options): kl_options_init */
  const char *workloads; /* selection patterns; NULL = every workload */
  /* Comma-separated devices, "cuda", "cuda:1", "openmp"; NULL = device 0
   * of every available backend. */
  const char *backends;
  const char *rungs;     /* comma-separated; NULL = every rung */
  int64_t n;             /* the main size; 0 = each workload's default */
  kl_type type;          /* KL_TYPE_DEFAULT = each workload's default */
  /* Parameters, "NAME=VALUE[,NAME=VALUE...]". In a run of every workload a
   * workload without one of them is skipped (with a note); a workload
   * named with -w must have them all. A parameter may take a list, a
   * sweep (kl_run only): an item without '=' continues the list of the
   * parameter before it, and an item may be a range of a number's values,
   * as a sweep of sizes reads them (a real parameter's points are not
   * rounded, and its step +S is a real): "nx=8,16,32,hx=0.5..2:x2" is nx
   * 8, 16 and 32 and hx 0.5, 1 and 2. Every combination runs (the cross
   * product, with the sizes), each a problem of its own with its own
   * ceiling, at most KL_MAX_SWEEP of them, the last parameter varying
   * fastest. */
  const char *params;
  const char *op;     /* the operation parameter's value (--op) */
  const char *inputs; /* the input pattern parameter's value (--inputs) */
  /* An input file (--input FILE) for the workloads that take one
   * (histogram counts its bytes): n is its size, and the input pattern
   * does not apply. In a run of several workloads those without one are
   * skipped, with a note; NULL: none. */
  const char *input_file;
  kl_shape shape;     /* the group parameters by position */
  /* Timed runs after warm-up: 1..KL_MAX_REPS, or 0 (the default): as
   * many as the noise needs (KL_NOISE_MIN_REPS above). */
  int reps;
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
  /* Where not NULL: once *stop is nonzero (a signal handler may set it),
   * the run stops after the repetition in progress. The rungs that
   * finished are the report's, kl_report_interrupted() says so, and
   * kl_run returns KL_INTERRUPTED with the report. */
  const volatile sig_atomic_t *stop;
  /* Named files of the workloads that take them (kl_workload_info lists
   * each, read or written; the command's --NAME FILE): cg reads "rhs", its
   * right-hand side b, and writes "solution", its x. An entry whose name
   * is NULL is unused; a name may come once. A file a workload reads is
   * refused before anything runs where it is missing, unreadable, empty
   * or a directory (KL_USAGE), and the workload checks what is in it. A
   * file a run writes is opened before any rung runs (a path that cannot
   * be written: KL_USAGE, as kl_output_open), written from the outputs of
   * the first rung of the run whose check passed, and put in place when
   * the run completes (KL_OK or KL_CHECK_FAILED), whole, as a results
   * file is; a run stopped by an error leaves nothing, and one in which
   * no rung passed says so in its notes. In a run of several workloads,
   * one that takes no file of a name given is skipped, with a note. */
  kl_named_path files[KL_MAX_FILES];
  /* 0 (the default): where no size is given, each workload runs at its
   * quick size, past the caches but minutes for the whole suite; 1: at
   * its full default size, the seeds' (`kladder run --full`). */
  int full;
  /* A sweep of the main size (`kladder run -n 1K,64K,1M`, `-n
   * 1K..256M:x4`), as a sweep of sizes above: each size is a problem of
   * its own, run in the order given, each one's rungs in ladder order,
   * with its ceiling measured at that size; with the parameters' lists,
   * the sizes vary slowest. A size outside a workload's range or beyond
   * memory is refused as n's is, before anything runs. NULL: n alone (0
   * there). Not with n. */
  const char *sizes;
  /* Nonzero: each timed repetition is a library call on data in host
   * memory: on a backend whose memory is not the host's, the inputs are
   * copied from host memory to the backend's buffers and the outputs
   * back inside the timed region (wall clock, from before the first copy
   * to after the last copy has finished); no effect on host backends. A
   * rung that owns its repetition loop, or a problem in chunks, stands
   * aside (KL_UNAVAILABLE, with why); a ceiling timed beside a rung stays
   * in the backend's memory. Default 0 (`kladder run --host-data`). */
  int host_data;
  /* Ranks: NULL (one process), or the collectives of a run over several
   * processes at once (MPI ranks; see kl_ranks below). */
  const struct kl_ranks *ranks;
  /* With ranks: how the distributed workloads read the size (weak: each
   * rank's; strong: the whole); a workload that runs a copy per rank
   * stands aside under strong scaling, with a note. Default weak
   * (`kladder run --scaling strong`). */
  kl_scaling scaling;
  /* Nonzero: after each rung's timed runs, and outside them, an energy
   * window: the rung repeated for at least a second and ten updates of
   * its device's energy counter (a GPU board's through NVML; the host's
   * package through RAPL), its joules per repetition, mean watts and
   * picojoules per unit of the workload's rate (kl_result.energy_*). A
   * device without a readable counter has no energy figures (a note says
   * so), never zero ones, and the run's status is unchanged. Default 0
   * (`kladder run --energy`). */
  int energy;
  /* With reps 0: the 95% interval of a rung's median time within this
   * fraction of the median on either side ends its timed runs. Default
   * 0.005 (`kladder run --precision 0.5%`). */
  double precision;
  /* KL_CACHE_COLD: before each timed run, outside its time, the device's
   * last-level cache is flushed (a buffer of twice its size written), so
   * that no run finds its data there from the run before; a device whose
   * cache size is not known runs warm (kl_result says which). Default
   * KL_CACHE_WARM (`kladder run --cache cold|warm`). */
  kl_cache cache;
} kl_options;

/* Defaults: every workload, backend and rung, timed runs by noise
 * (precision 0.5%) after 2 warm-up, seed 20261121, 30 s per rung. */
void kl_options_init_sized(kl_options *o, size_t size);
static inline void kl_options_init(kl_options *o) {
  kl_options_init_sized(o, sizeof *o);
}

typedef enum kl_check_state {
  KL_CHECK_PASS,
  KL_CHECK_FAIL,
  KL_CHECK_CAUGHT, /* a known-wrong rung, correctly reported wrong */
  KL_CHECK_MISSED, /* a known-wrong rung that happened to pass */
  /* Nothing wrong found, but some of the output cannot be verified in the
   * type's range (its error bound overflows: gemm with alpha 1e308; cg on
   * a matrix whose scale overflows the solve's dot products). Not a
   * failure: the run's status and exit code count it as passed, and the
   * verdict says how much was left unverified. */
  KL_CHECK_UNVERIFIABLE
} kl_check_state;

/* The verdict of one check. */
typedef struct kl_verdict {
  int passed;
  int64_t checked;   /* elements compared */
  int64_t bad_count; /* elements outside the tolerance */
  int64_t first_bad; /* index of the first one, -1 when none */
  double max_error;  /* largest error / its tolerance; <= 1 passes */
  double abs_error;  /* largest absolute error against the reference */
  char detail[160];  /* e.g. the first bad element with expected and got */
  /* Elements (or quantities) not verifiable: their error bound overflows
   * the type's range; none of them counts as bad. */
  int64_t unverifiable;
} kl_verdict;

/* The cost model of one run. */
typedef struct kl_cost {
  double bytes; /* the fewest bytes a run must move through memory */
  double flops;
  double items; /* elements or points processed */
} kl_cost;

/* One timed event of a rung's last run, for the trace (kladder run
 * --trace) and the overlap: a copy, a kernel or host work, on a track
 * (the host, or a stream), in one of the rung's phases, `item` its
 * ordinal there (an interval, a chunk; -1: none), in seconds from the
 * run's start. An event of phase -1 is the whole run. */
#define KL_TRACK_HOST (-1)
typedef struct kl_trace_event {
  int track; /* KL_TRACK_HOST, or a stream, 0 .. 3 */
  int phase;
  int item;
  double start, end;
} kl_trace_event;

#define KL_MAX_PHASES 8
#define KL_MAX_COUNTS 4

/* One timed run of a rung on one rank of several (kl_result.rank_runs), as
 * rank 0 gathered it once the runs were over: its start and end in
 * seconds from the end of the barrier before the rung's first timed run
 * (each rank on its own clock: the ranks leave a barrier together), and
 * each of the rung's phases' seconds on that rank (0 where it has none).
 * A rung that owns its loop times its runs back to back: their starts are
 * the sums of the runs before. */
typedef struct kl_rank_run {
  int rank;
  int run; /* the timed run, from 0, in the order run */
  double start, end;
  double phase_seconds[KL_MAX_PHASES];
} kl_rank_run;

/* One rung measured on one problem: made by the library, read-only. */
typedef struct kl_result {
  size_t size; /* the library's sizeof(kl_result) */
  /* What ran, where. */
  const char *workload;
  const char *rung;
  const char *backend;
  const char *summary; /* the rung's, in one line */
  int device;          /* its index on the backend */
  char device_name[128];
  unsigned flags;      /* KL_RUNG_VENDOR, _KNOWN_WRONG, _CEILING */
  /* The problem. */
  kl_type type;
  int64_t n;           /* the main size */
  int extent_count;    /* the workload's extents (-s), 0 where none */
  int64_t extents[KL_MAX_DIMS];
  char shape[96];      /* n, or the extents joined by 'x' ("MxNxK") */
  char op[32];         /* the operation ("sum"), "" where none */
  char inputs[64];     /* the input pattern, or the input file's name */
  char params[256];    /* every parameter but the main size, "a=1;b=sum" */
  /* The timings: every timed run's seconds in the order run ([reps]), and
   * their median, minimum, maximum and standard deviation (0 for one). */
  int reps;
  double t_median, t_min, t_max, t_stddev;
  const double *times;
  /* A rung with phases: each phase's median over the timed runs. */
  int phase_count;
  const char *phase_names[KL_MAX_PHASES];
  double phase_median[KL_MAX_PHASES];
  /* What a run reported (cg: iterations), as the last run reported it. */
  int count_count;
  const char *count_names[KL_MAX_COUNTS];
  double counts[KL_MAX_COUNTS];
  /* The last timed run's events: the rung's own where it traces them,
   * else one event for the whole run; trace_origin when that run began
   * (monotonic seconds); trace_lost: events that did not fit. overlap:
   * that run's wall time over the longest of its phases' busy times (1:
   * the slowest kind of work hid all others), 0 where unknown. */
  const kl_trace_event *trace;
  int trace_count, trace_lost;
  double trace_origin;
  double overlap;
  /* The rate, by the workload's cost model at the median. */
  kl_cost cost;
  const char *unit;    /* "GB/s", "GFLOP/s", "Gpt/s" */
  double merit;        /* the rate in that unit */
  double ceiling;      /* the ceiling, same unit; 0 none */
  double percent;      /* 100 * merit / ceiling; 0 when none */
  /* Why there is no percent, or why it is above 105%; NULL where it needs
   * none. */
  const char *ceiling_note;
  double speedup;      /* the first rung's median / this one's; 0 none */
  kl_check_state check;
  kl_verdict verdict;
  kl_status status;    /* KL_OK, or why the rung could not run */
  char error[256];
  /* The warm-up runs made: the options' count, or fewer where --max-time
   * cut them (reps says how many timed runs were made). */
  int warmup_runs;
  /* The ranks the rung ran on at once (1 without kl_options.ranks): its
   * times are the slowest rank's, its cost and rate every rank's. */
  int ranks;
  /* With several ranks: the median time of the same rung on rank 0 alone,
   * measured just before (weak scaling: the same share; strong: the whole
   * problem), and the efficiency against it: one_rank_seconds / t_median
   * (weak) or one_rank_seconds / (ranks * t_median) (strong); 0 where not
   * measured. */
  double one_rank_seconds, efficiency;
  /* With several ranks: each rank's timed runs, rank by rank in the order
   * run (every run, or where ranks x runs would pass 65536 the first
   * 65536 / ranks of each rank's), and when the first began on this rank
   * (monotonic seconds, as trace_origin). NULL and 0 on one rank. */
  const kl_rank_run *rank_runs;
  int rank_run_count;
  double rank_origin;
  /* The seconds the rung's set-up spent compiling programs (an OpenCL
   * program's build, once per device and options: 0 where the context
   * had built them already), untimed and apart from the times; the
   * slowest rank's. -1 where its backend compiles none. */
  double setup_build_seconds;
  /* Energy (kl_options.energy): the counter it was read from ("nvml": the
   * GPU board's, "rapl": the host's CPU packages), NULL where there is
   * none (every energy figure then unmeasured, whatever its value). Over
   * a window of energy_reps repetitions (energy_seconds long, after the
   * timed runs, in which the counter moved energy_updates times):
   * joules per repetition, mean watts, and picojoules per unit of the
   * workload's metric (per byte for GB/s, per flop for GFLOP/s, per item
   * else). idle_watts: the device's power before its first rung ran, 0
   * where unknown. sampled_watts: the mean of the power the device
   * reported while the window ran, 0 where it reports none;
   * energy_mismatch 1 where it and energy_watts differ by more than 10%
   * of energy_watts. */
  const char *energy_source;
  double energy_joules, energy_watts, energy_pj, energy_seconds;
  int energy_reps, energy_updates;
  double idle_watts, sampled_watts;
  int energy_mismatch;
  /* Why the timed runs stopped, and the 95% interval of their median
   * (order statistics: see KL_NOISE_MIN_REPS); t_low and t_high 0 under
   * KL_NOISE_MIN_REPS runs, where there is none. */
  kl_stop stop;
  double t_low, t_high;
  /* What its timed runs found in the cache (kl_options.cache): cold only
   * where the device's cache size is known. */
  kl_cache cache;
} kl_result;

typedef struct kl_machine {
  size_t size; /* the library's sizeof(kl_machine) */
  char cpu[128];
  int cpu_threads;
  int omp_threads;
  char gpu[128];    /* "" without one */
  char driver[64];  /* "" without one */
  char host[64];
  /* The CPU's frequency policy where the OS says it (cpufreq's
   * scaling_governor: "performance", "powersave", ...; "" where it does
   * not), and cpu 0's clock in MHz at the run's start (cpufreq, else
   * /proc/cpuinfo; 0 where neither says): a disclosure, as SPEC results
   * carry one. */
  char cpu_governor[32];
  double cpu_mhz;
  /* The first GPU board whose clocks the run watched (NVML): its enforced
   * power limit in W, its default application clocks and its maximum SM
   * clock in MHz (0 where not known), ECC and persistence mode (1 on, 0
   * off, -1 not known). */
  double gpu_power_limit_w, gpu_app_sm_mhz, gpu_app_mem_mhz, gpu_max_sm_mhz;
  int gpu_ecc, gpu_persistence;
} kl_machine;

/* The results of a run. */
typedef struct kl_report kl_report;

/* Run the selected rungs. KL_OK when every check passed; KL_CHECK_FAILED
 * when one failed; another status when nothing could be run (bad names,
 * sizes too large) or a rung met a device error. The report, where
 * returned, is freed by kl_report_free. */
kl_status kl_run(const kl_options *opt, kl_report **out);
void kl_report_free(kl_report *r);

/* The results in the report. */
size_t kl_report_count(const kl_report *r);
/* Result i, in the order run (ceilings first); NULL past the end. */
const kl_result *kl_report_result(const kl_report *r, size_t i);
const kl_machine *kl_report_machine(const kl_report *r);
/* When the run started, UTC, ISO 8601 ("2026-11-23T14:05:09Z"); "" where
 * unknown. */
const char *kl_report_started(const kl_report *r);
/* The command line the options recorded, or NULL. */
const char *kl_report_command_line(const kl_report *r);
/* Size adjustments and other remarks for the reader; "" where none. */
const char *kl_report_notes(const kl_report *r);
/* 1 where the run was stopped (kl_options.stop) before every rung ran. */
int kl_report_interrupted(const kl_report *r);

/* The table `kladder run` prints: brief, rows within 100 columns, the
 * ladders grouped by problem and the ceilings apart; and the wide one
 * (`kladder run -v`), a row per result with every column. */
kl_status kl_report_print(const kl_report *r, FILE *f);
kl_status kl_report_print_wide(const kl_report *r, FILE *f);
kl_status kl_report_write_csv(const kl_report *r, const char *path);
kl_status kl_report_write_json(const kl_report *r, const char *path);

/* ---- fields ------------------------------------------------------------
 * The one description of a result's fields, which the table, the CSV and
 * the JSON writers read, and any front end may: each field's JSON key and
 * CSV column, kind, unit and group, and each result's value of it. */
typedef enum kl_field_kind {
  KL_FIELD_TEXT,
  KL_FIELD_NUMBER,
  KL_FIELD_SECONDS,
  KL_FIELD_LIST,     /* numbers: a JSON array; not in the CSV */
  KL_FIELD_PAIRS,    /* named numbers: CSV "a=1;b=2", a JSON object */
  KL_FIELD_EVENTS,   /* the traced run's events: JSON only */
  KL_FIELD_RANK_RUNS /* each rank's timed runs: JSON only */
} kl_field_kind;

typedef struct kl_field_info {
  size_t size;       /* the caller's sizeof(kl_field_info) */
  const char *name;  /* its JSON key; unique */
  const char *csv;   /* its CSV column; NULL: not in the CSV */
  kl_field_kind kind;
  /* "s", "W", "J", "pJ", "MHz", "B", "%"; "result": the result's own unit
   * (its field "unit": "GB/s"); "": none. */
  const char *unit;
  /* 1: one value per run (the machine, the options, the build), in JSON's
   * object `group` ("" its top level) and on every CSV row; 0: per
   * result. */
  int per_run;
  const char *group;
} kl_field_info;

/* The fields, in the JSON writer's order; field i described (out->size
 * set); the index of a field by its JSON key (KL_USAGE naming none). */
size_t kl_field_count(void);
kl_status kl_field_describe(size_t i, kl_field_info *out);
kl_status kl_field_index(const char *name, size_t *out);
/* Result `result` of a report, its value of field `field`: as a number
 * (a NUMBER or SECONDS field; a yes/no one 1 or 0), or as text (a TEXT
 * field, or a number as the CSV writes it). KL_UNAVAILABLE where the
 * value was not measured (CSV empty, JSON null); KL_USAGE for an index
 * past the end, or a field of another kind. */
kl_status kl_result_number(const kl_report *r, size_t result, size_t field,
                           double *out);
kl_status kl_result_text(const kl_report *r, size_t result, size_t field,
                         char *out, size_t size);

/* ---- results read back ---------------------------------------------------
 * A results file (kladder run --json, kl_report_write_json) read back, of
 * any format version from kladder-results-1 on, its fields got by the
 * same description as a run's: kl_results_number and kl_results_text are
 * kl_result_number and kl_result_text of the file (an empty text, which
 * the file holds as null, and a field an older format lacks are
 * KL_UNAVAILABLE). One validation for every front end: the document is
 * JSON, its "format" a kladder-results-N, its "results" a non-empty list
 * of objects each naming its workload and rung, and every field the
 * description knows of the kind it says (a text a string, a number
 * finite, seconds not negative), or null. A file that is not is refused:
 * KL_USAGE and one line in kl_last_error() naming the path, and the line
 * and column where it goes wrong. A newer format is read for the fields
 * known here, kl_results_warning() saying so ("" otherwise). "-" reads
 * standard input. Read-only once read: any number of threads may read
 * it; free it once. */
typedef struct kl_results kl_results;
kl_status kl_results_read(const char *path, kl_results **out);
void kl_results_free(kl_results *r);
/* Its results; its format's version (1, 2, ...). */
size_t kl_results_count(const kl_results *r);
int kl_results_format(const kl_results *r);
const char *kl_results_warning(const kl_results *r);
kl_status kl_results_number(const kl_results *r, size_t result, size_t field,
                            double *out);
kl_status kl_results_text(const kl_results *r, size_t result, size_t field,
                          char *out, size_t size);

/* A results file opened before the run, so that a bad path costs nothing
 * and a failed run leaves nothing behind. open checks the path and starts
 * the file (a regular file is tried beside it under a temporary name, and
 * write makes that again, writes it and renames it into place, so that a
 * process killed before then leaves no file; a device or pipe is written
 * directly; "-" is standard output), and
 * fails with KL_USAGE and one line in kl_last_error() when it cannot be
 * written: a directory, a missing folder, no permission, a full device.
 * write finishes the file from the report and frees the output; discard
 * removes what open created and frees it. */
typedef enum kl_format {
  KL_FORMAT_CSV,
  KL_FORMAT_JSON,
  /* Chrome trace-event JSON of every result's traced run (kl_result.trace):
   * one process per result, a thread per track; over several ranks a
   * process per rank after them, each result's timed runs on that rank
   * (kl_result.rank_runs) with their phases nested. Perfetto and
   * chrome://tracing open it. */
  KL_FORMAT_TRACE,
  /* The text a command prints (kl_comparison_print, kl_history_print);
   * not a results file. */
  KL_FORMAT_TABLE,
  /* A self-contained HTML page (kl_comparison_print); not a results
   * file. */
  KL_FORMAT_HTML
} kl_format;
typedef struct kl_output kl_output;
kl_status kl_output_open(const char *path, kl_format format, kl_output **out);
kl_status kl_output_write(kl_output *out, const kl_report *r);
void kl_output_discard(kl_output *out);
/* One problem instance, as kl_run_rung takes it. */
typedef struct kl_problem {
  size_t size;        /* the caller's sizeof(kl_problem): kl_problem_init */
  int64_t n;          /* the main size; 0: the parameters give it */
  kl_type type;       /* KL_TYPE_DEFAULT: the workload's default */
  /* "NAME=VALUE,..." or NULL: every default. One value of each: a list
   * (a sweep) is kl_run's, and KL_USAGE here. */
  const char *params;
  uint64_t seed;
  /* An input file, for a workload that takes one (see kl_options); NULL:
   * inputs from the seed. */
  const char *input_file;
} kl_problem;

/* n 0, the default type, no parameters, seed 0, no input file. */
void kl_problem_init_sized(kl_problem *p, size_t size);
static inline void kl_problem_init(kl_problem *p) {
  kl_problem_init_sized(p, sizeof *p);
}

/* One rung of a workload, by name, on one problem, without a ceiling: for
 * tests and embedding programs; reps timed runs (0: by noise, to 0.5%, at
 * most KL_NOISE_MAX_REPS of them) after warmup. On ctx, whose backend must be the rung's;
 * NULL: the process's default context of that backend. KL_OK when it ran
 * and its check passed (or, for a known-wrong rung, failed as expected);
 * KL_CHECK_FAILED when the check failed. Once the workload, the rung and
 * the problem struct are valid, *out (where out is not NULL) receives a
 * report of the one result, also when the rung could not run on the
 * problem (a bad parameter, a size beyond memory, a device error: the
 * result's status and error say why); kl_report_free it. Before that (an
 * unknown name, a problem without its size, a context of another
 * backend), *out is NULL. */
kl_status kl_run_rung(kl_context *ctx, const char *workload, const char *rung,
                      const kl_problem *problem, int reps, int warmup,
                      kl_report **out);

/* ---- results compared, kept and drawn ------------------------------------
 * What `kladder compare`, `kladder history` and `kladder report` do with
 * results files (kladder run --json, kl_report_write_json), the same code
 * for the command and any caller. Each function returns KL_OK, or
 * KL_USAGE (bad input: a file named, with line:column for a parse error),
 * KL_IO (an output that cannot be written) or KL_UNAVAILABLE (a history
 * in a library built without SQLite), with one line in kl_last_error(). */

/* Two results files compared (docs/compare.md): each result of NEW with
 * BASE's of the same workload, rung, backend, type, size and parameters
 * (the device is not part of the match; a match found more than once in
 * a file pairs in order of occurrence). Per pair: the median times, NEW
 * over BASE, a two-sided Mann-Whitney U test over the timed runs, the
 * interval of the time ratio it inverts, and a verdict at threshold and
 * alpha: same, faster, slower, machine (the ceiling timed beside the rung
 * moved too), failed, aside. With `field`, a numeric field of the results
 * (kl_field_index) compared instead: each pair's value in BASE and NEW,
 * NEW over BASE, and higher, lower, same (within the threshold) or "not
 * measured". o NULL: the defaults, KL_COMPARE_OPTIONS_INIT. "-" reads
 * standard input (for one of the two). */
typedef struct kl_compare_options {
  size_t size;      /* the caller's sizeof(kl_compare_options) */
  double threshold; /* the smallest change that counts, a fraction: 0 up */
  double alpha;     /* the U test's significance level, in (0, 1) */
  const char *field; /* NULL: the times; else a number field's name */
} kl_compare_options;
#define KL_COMPARE_OPTIONS_INIT {sizeof(kl_compare_options), 0.05, 0.05, NULL}
typedef struct kl_comparison kl_comparison;
kl_status kl_compare(const char *base, const char *new_path,
                     const kl_compare_options *o, kl_comparison **out);
/* Frees a comparison (NULL: nothing). */
void kl_comparison_free(kl_comparison *c);
/* Its pairs, in BASE's order (results of one file alone are not pairs:
 * the CSV and JSON list them). */
size_t kl_comparison_count(const kl_comparison *c);
/* Pair i: what ran (the texts live as long as the comparison), BASE's
 * and NEW's figure (median seconds, or the field's value; NaN where there
 * is none), NEW over BASE, the time ratio's interval at 1 - alpha and the
 * U test's p (NaN: none), the verdict in words and whether it is a
 * regression (slower, or failing in NEW where BASE passed; with a field,
 * moved). KL_USAGE for i past the end. */
typedef struct kl_compare_pair {
  size_t size; /* the caller's sizeof(kl_compare_pair) */
  const char *workload, *rung, *backend, *type, *shape, *op, *inputs,
      *params;
  int occurrence; /* the k-th of its match in its file, from 1 */
  int ceiling;    /* 1: a ceiling's result */
  double base, new_value, ratio, low, high, p_value;
  const char *verdict;
  int regression;
} kl_compare_pair;
kl_status kl_comparison_pair(const kl_comparison *c, size_t i,
                             kl_compare_pair *out);
/* 1 where a pair regressed (`kladder compare` exits 1), else 0. */
int kl_comparison_regressed(const kl_comparison *c);
/* A file's format newer than this library reads, compared for the fields
 * it knows: one line; "" otherwise. */
const char *kl_comparison_warning(const kl_comparison *c);
/* The comparison as `kladder compare` writes it: KL_FORMAT_TABLE its
 * table, KL_FORMAT_CSV, KL_FORMAT_JSON (kladder-compare-1), KL_FORMAT_HTML
 * the report of both files with the comparison first; with a field, the
 * table alone. print writes to f; write to path, whole or not at all
 * ("-": standard output). */
kl_status kl_comparison_print(const kl_comparison *c, kl_format format,
                              FILE *f);
kl_status kl_comparison_write(const kl_comparison *c, kl_format format,
                              const char *path);

/* The results history (docs/history.md): results files kept in an SQLite
 * database. open: write 1 creates it where missing and migrates an older
 * schema forward; 0 reads it (read-only files too). Refused, the file
 * unchanged: not an SQLite database, another program's, a newer schema,
 * locked past KLADDER_DB_TIMEOUT seconds (default 10). One connection is
 * one thread's at a time. */
typedef struct kl_history kl_history;
kl_status kl_history_open(const char *path, int write, kl_history **out);
/* Closes a history (NULL: nothing). */
void kl_history_close(kl_history *h);
/* Appends results files, all in one transaction: all or none. A file
 * already in the history (the same bytes) is skipped; *added (may be
 * NULL) counts the runs added. */
kl_status kl_history_append(kl_history *h, const char *const *paths,
                            size_t count, size_t *added);
/* A selection of the history's runs: comma-separated names (NULL: any),
 * a part of the machine's name, and since: a date (YYYY-MM-DD, UTC) or a
 * commit's prefix, the runs from it on. */
typedef struct kl_history_query {
  size_t size; /* the caller's sizeof(kl_history_query) */
  const char *workloads, *rungs, *backends, *machine, *since;
} kl_history_query;
/* The runs selected (q NULL: all), each rung's by date, as `kladder
 * history` prints them: KL_FORMAT_TABLE, KL_FORMAT_CSV or KL_FORMAT_JSON
 * (kladder-history-1). */
kl_status kl_history_print(kl_history *h, const kl_history_query *q,
                           kl_format format, FILE *f);
/* The regression check (`kladder history --check`) over the runs
 * selected: each series' latest runs against those before them on the
 * same machine and build type, slower beyond threshold (a fraction) and
 * the baseline's noise. The findings to f (KL_FORMAT_TABLE or
 * KL_FORMAT_JSON; f NULL: none); *regressed 1 where one was found. */
kl_status kl_history_check(kl_history *h, const kl_history_query *q,
                           double threshold, kl_format format, FILE *f,
                           int *regressed);

/* The HTML report of results files (`kladder report`): one self-contained
 * page, each workload's ladders, rooflines, growth and timelines, and
 * where db is not NULL each rung's history beside its ladder; to out,
 * whole or not at all ("-": standard output). At most 16 files. */
kl_status kl_report_write_html(const char *out, const char *const *inputs,
                               size_t count, kl_history *db);
/* The performance page (`kladder report --markdown`): a file's machine
 * is the folder it lies in, a column; machines and backends (NULL: as
 * the files have them) the columns in order and rows every table has. */
kl_status kl_report_write_markdown(const char *out,
                                   const char *const *inputs, size_t count,
                                   const char *machines,
                                   const char *backends);

#ifdef __cplusplus
}
#endif
#endif
