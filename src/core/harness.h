/* Between the core's own files: instances, plans, sizing, buffers and one
 * rung's measurement. Not for backends or workloads, which see internal.h.
 * The files depend on each other in one direction only:
 *   params -> sizing -> buffers -> measure -> run, library; report reads
 *   results through params. */
#ifndef KL_HARNESS_H
#define KL_HARNESS_H

#include <time.h>

#include "internal.h"

/* ---- files.c ----------------------------------------------------------- */
/* Open the results file `path` for writing: *dest a copy of the path, *f
 * the stream, and *temp where it is written until it is complete (renamed
 * to *dest) or NULL for a device or pipe written directly. KL_USAGE, with
 * why the path cannot be written in `why`, where it cannot. */
kl_status kl__output_file(const char *path, FILE **f, char **dest,
                          char **temp, char *why, size_t why_size);

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
} kl__instance;

/* ---- params.c ---------------------------------------------------------- */
/* The instance a workload runs with under these options. Where it lacks
 * a parameter, type, op or shape asked for: a usage error when `named`
 * (the only workload of the run), else KL_UNAVAILABLE with a remark
 * appended to note (the run skips it). */
kl_status kl__instance_from_options(const kl_options *o, const kl_workload *w,
                                    kl__instance *in, int named, char *note,
                                    size_t note_size);
kl_status kl__instance_from_problem(const kl_workload *w, const kl_problem *pb,
                                    kl__instance *in);
/* The plan of an instance for rung r (its scratch included; r may be NULL)
 * on a backend whose memory is host memory or not. */
kl_status kl__plan_make(const kl_workload *w, const kl_rung *r,
                        const kl__instance *in, int host_backend, kl_plan *p);
/* The main size a workload runs at by default, on host backends or not. */
int64_t kl__default_size(const kl_workload *w, int host_backend);
/* The main size an instance runs at on a host backend or not: where no
 * size was given, host backends take the smaller host default. */
int64_t kl__instance_size(const kl_workload *w, const kl__instance *in,
                          int host_backend);
/* The backend of that name, available here; else a usage error naming
 * the valid ones, or KL_UNAVAILABLE saying why it is not usable. */
kl_status kl__backend_named(const char *name, const kl_backend **out);
/* Whether `name` is one of the comma-separated names in `list`. */
int kl__listed(const char *list, const char *name);
/* Append to a bounded message. */
void kl__append(char *dst, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- sizing.c ---------------------------------------------------------- */
/* A backend's free and total memory, and the host's free memory, at most
 * KLADDER_MEMORY_LIMIT: the one place the limit applies. */
kl_status kl__backend_memory(const kl_backend *b, size_t *free_bytes,
                             size_t *total_bytes);
size_t kl__host_free(void);
/* KL_TOO_LARGE, saying what does not fit where, unless the plan's buffers
 * fit on the backend and the harness's host copies fit on the host. */
kl_status kl__check_fits(const kl_workload *w, const kl_plan *p,
                         const kl_backend *b);
/* An instance with an input file too large for the memory of the rungs
 * listed runs in chunks: in->chunk_size set to the largest that fits (as
 * a default size fits), with a note; 0 where the whole file fits, or where
 * not even one element does (the memory check then says so). */
kl_status kl__fit_chunks(const kl_workload *w, kl__instance *in,
                         const kl_rung *const *rungs, size_t count,
                         char *note, size_t note_size);
/* Shrink in->n from the workload's default until the plans of every rung
 * listed fit their backends, with a note when it shrank. */
kl_status kl__fit_default_size(const kl_workload *w, kl__instance *in,
                               const kl_rung *const *rungs, size_t count,
                               char *note, size_t note_size);

/* The bytes of a plan's buffers, the memory a run of it works over. */
kl_status kl__plan_bytes(const kl_plan *p, double *bytes);
/* Set in->n (given as the most it may be) to the smallest size at which
 * w's plan holds at least `bytes`: a ceiling measured over as much memory
 * as the rung it serves, and so no more cache-resident than it. */
kl_status kl__size_for_bytes(const kl_workload *w, kl__instance *in,
                             int host_backend, double bytes);

/* ---- buffers.c --------------------------------------------------------- */
/* A plan's buffers on a context: the backend's, and the host copies the
 * check reads (in: inputs before the run; out: outputs after it). */
typedef struct kl__buffers {
  void *dev[KL_MAX_BUFFERS];
  void *in[KL_MAX_BUFFERS];
  void *out[KL_MAX_BUFFERS];
  void *fill[KL_MAX_BUFFERS]; /* where the inputs are made, in host memory */
  void *owned[2 * KL_MAX_BUFFERS]; /* host copies to free */
  int owned_count;
} kl__buffers;

/* Allocate every buffer, make fresh inputs, upload them, poison outputs
 * and scratch (zero where asked). */
kl_status kl__buffers_prepare(const kl_workload *w, const kl_plan *p,
                              kl_context *ctx, kl__buffers *bufs);
/* Make chunk `chunk` of a plan of several the current one (p->chunk,
 * p->chunk_n) and load its inputs where the rung reads them. */
kl_status kl__buffers_load_chunk(const kl_workload *w, kl_plan *p,
                                 kl_context *ctx, const kl__buffers *bufs,
                                 int64_t chunk);
kl_status kl__buffers_download(const kl_plan *p, kl_context *ctx,
                               kl__buffers *bufs);
/* Put the restored INOUT buffers back to their inputs. */
kl_status kl__buffers_restore(const kl_plan *p, kl_context *ctx,
                              const kl__buffers *bufs);
void kl__buffers_release(const kl_plan *p, kl_context *ctx,
                         kl__buffers *bufs);
kl_status kl__buffer_bytes(const kl_buffer_spec *s, size_t *bytes);

/* ---- measure.c --------------------------------------------------------- */
/* A ceiling timed beside a rung: its rung, workload and instance. */
typedef struct kl__beside {
  const kl_workload *w;
  const kl_rung *r;
  kl__instance in;
} kl__beside;

/* Check, then time, one rung on one instance in an open context; with a
 * ceiling beside it, time that right after. */
kl_status kl__measure(const kl_workload *w, const kl_rung *r, kl_context *ctx,
                      const kl__instance *in, int reps, int warmup,
                      double max_seconds, const kl__beside *ceiling,
                      kl_result *res);
double kl__rate(const kl_workload *w, const kl_cost *c, double seconds);
/* The process's own context of backend b, for calls outside a run. */
kl_status kl__process_context(const kl_backend *b, kl_context **out);
/* Open and close a context of backend b. */
kl_status kl__context_open(const kl_backend *b, kl_context *ctx);
void kl__context_close(kl_context *ctx);

#endif
