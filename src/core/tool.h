/* The command's helpers: what src/cli and the results layer (src/results)
 * call besides the installed API, and the tests with them. Not installed;
 * those the command takes are exported from libkladder.so only in its
 * private node (src/kladder.map), which may change in any release. */
#ifndef KLADDER_TOOL_H
#define KLADDER_TOOL_H

#include <stdio.h>

#include "json-read.h"
#include "kladder-run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every field's id, its index in the field table (kl_field_describe,
 * kl_results_number): KL__F_ and its JSON key, so that a reader names a
 * field through the table, and a field renamed there is a build error
 * here. */
typedef enum kl__field_id {
#define KL__FIELD(name, ...) KL__F_##name,
#include "fields.def"
#undef KL__FIELD
  KL__F_COUNT
} kl__field_id;

/* One result of a results file as the command's readers take it, every
 * field named once, here (results.c), after the field table: its texts
 * point into the file's tree ("" where absent or null), its numbers NAN
 * where absent or null; its trace's parts as the file holds them (NULL
 * where absent). Valid while the results are. */
typedef struct kl__row {
  const json_value *v; /* the result's object */
  const char *workload, *rung, *backend, *flags, *type, *shape, *params, *op,
      *inputs, *device_name, *unit, *check, *status, *error, *summary,
      *workload_summary, *dispatched, *energy_per, *ceiling_note, *scaling,
      *rank_grid, *peer;
  double step, n, device, median_s, min_s, max_s, rate, ceiling, percent_ceiling,
      bytes, flops, energy_w, energy_pj, bad_elements, abs_error,
      error_over_tolerance, ranks, efficiency, overlap, speedup,
      one_rank_seconds;
  int ceiling_only;
  /* 1 where the file gives median_s, a number or null (a newer format
   * may not). */
  int median_given;
  /* times_s (an array of numbers), phases (an object of seconds), the
   * trace (an object: its events, lost and dropped) and rank_runs (an
   * object: from_s and the runs). */
  const json_value *times, *phases, *trace, *rank_runs;
} kl__row;
/* Result i of r (i below kl_results_count). */
void kl__results_row(const kl_results *r, size_t i, kl__row *out);

/* Field `field` of result `result` where it is a text the file gives:
 * the text in the file's tree, whole; NULL where it is absent, null or no
 * text field. */
const char *kl__results_text_ref(const kl_results *r, size_t result,
                                 size_t field);

/* The run a results file holds, as the command's readers take it: texts
 * "" and numbers NAN where absent or null. */
typedef struct kl__run_view {
  const char *format, *started, *kladder, *command_line, *notes;
  int interrupted;
  /* The machine. */
  const char *host, *cpu, *gpu, *driver;
  double cpu_threads, omp_threads;
  /* The build. */
  const char *version, *commit, *build_type, *c_compiler, *c_flags,
      *gpu_compiler, *gpu_flags;
  /* The options. */
  double seed, reps, warmup, precision, max_time_s;
} kl__run_view;
void kl__results_run(const kl_results *r, kl__run_view *out);

/* kl_results_read of a text already read (len bytes; name stands for the
 * file in messages): for a reader that needs the bytes too (the history
 * hashes them). */
kl_status kl__results_parse(const char *name, const char *text, size_t len,
                            kl_results **out);

/* Open the output file `path` (not "-") for writing: *dest a copy of the
 * path, *f the stream, and *temp where it is written until it is complete
 * (renamed to *dest) or NULL for a device or pipe written directly.
 * KL_USAGE, with why the path cannot be written in `why`, where it cannot.
 * For outputs opened together and written all or none (compare's). */
kl_status kl__output_file(const char *path, FILE **f, char **dest,
                          char **temp, char *why, size_t why_size);

/* A whole text written to a path as every output of the library is: a
 * regular file or a new path under a temporary name renamed into place, a
 * device, a pipe or a link to one written in place (never replaced), "-"
 * standard output; a failure leaves nothing behind and says why in
 * kl_last_error() (KL_USAGE: the path cannot be written; KL_IO: the
 * writing failed). */
kl_status kl__file_write(const char *path, const void *data, size_t len);

/* Whether two paths name one file: the same text; the same device and
 * inode where both exist (x.mtx and ./x.mtx, a link); else the same
 * absolute path (an output not made yet). "-" (standard input or output)
 * is no file but itself. */
int kl__same_file(const char *a, const char *b);

/* Parse a sweep of sizes (kladder-run.h says its form): the values in
 * the order given into out[0 .. *count - 1]. KL_USAGE, with one line in kl_last_error(), for an empty
 * item, a size that does not parse, a range that runs down (LO above HI)
 * or has no step or a factor not above 1, a value that comes twice, or
 * more than `max` (at most KL_MAX_SWEEP) values. */
kl_status kl__parse_sizes(const char *text, int64_t *out, size_t max,
                         size_t *count);

/* The key of a kind of device in a wisdom file (wisdom.c), for device
 * `index` of the backend named: "BACKEND UNITS GIB NAME" (compute units,
 * memory in whole GiB, the device's name); KL_USAGE where it is not here. */
kl_status kl__wisdom_device(const char *backend, int index, char *dst,
                            size_t size);

/* 1 where `name` is selected by `patterns`, the selection patterns of
 * kladder-run.h. */
int kl__selects(const char *patterns, const char *name);
/* Whether one item of such a list (its `!` skipped) matches `name`. */
int kl__matches(const char *pattern, const char *name);

/* Every backend with its devices, and every workload (or those of the
 * comma-separated list) with its parameters and rungs, as one JSON
 * document: `kladder list --json`. */
kl_status kl__list_write_json(FILE *f, const char *workloads);

/* Parse "MxNxK" (dims), "LDA,LDB,LDC" (leads; an empty item keeps the
 * default) or "ALPHA,BETA" (scalars; likewise) into s. KL_USAGE with
 * kl_last_error() saying why for anything else. */
kl_status kl__shape_parse_dims(const char *text, kl_shape *s);
kl_status kl__shape_parse_leads(const char *text, kl_shape *s);
kl_status kl__shape_parse_scalars(const char *text, kl_shape *s);

/* s as a CSV field: as it is, or quoted (quotes doubled) where it holds a
 * comma, a quote or a line break (report.c). */
void kl__csv_text(FILE *f, const char *s);
/* A time as kladder run's table shows it, three significant digits or
 * more ("12.34 us", "1.500 ms", "2.000 s"); "-" where not above 0. */
void kl__time_text(double s, char *dst, size_t size);
/* A Chrome trace's member `key` (", \"ts\": 1.234"): a time in
 * microseconds to the nanosecond, from whole nanoseconds, so that an
 * event written inside another stays inside it as written (report.c). */
void kl__trace_ns(FILE *f, const char *key, long long ns);
/* printf's text appended to dst's, within its size. */
void kl__append(char *dst, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* PASS, FAIL, WRONG(expected), ... as the table and progress print it
 * (fields.c). */
const char *kl__check_text(const kl_result *r);

/* `text` at most `width` columns a line, broken between words (a word
 * longer than the line stands alone), later lines indented by `indent`,
 * a control character written \xNN; a newline at the end. */
void kl__text_wrapped(FILE *f, const char *text, int width, int indent);

#ifdef __cplusplus
}
#endif
#endif
