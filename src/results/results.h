/* The results layer (src/results/): what is done with results files once
 * written, in the library, so that the command and a binding call the same
 * code: two files compared (compare.c), the history kept in SQLite
 * (history.c), the HTML report and the performance page drawn
 * (report-html.c, report-md.c, with the lessons of lesson.c), and the text
 * they share (text.c). It includes the core's headers; the core includes
 * nothing of it. The user's functions are kladder-run.h's (kl_compare,
 * kl_history_*, kl_report_write_html); these kl__ ones are the layer's
 * own, and the few the command takes (KLADDER_PRIVATE: the text helpers,
 * the lessons, kl__history_missing). Each returns 0, or an exit code (2,
 * bad input) with one line in err. */
#ifndef KL_RESULTS_H
#define KL_RESULTS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/json.h" /* the one JSON writer, kl__exact_number */
#include "kladder-run.h"

/* A function whose argument f is a printf format, its arguments from a. */
#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ---- text ---------------------------------------------------------------- */

/* Arguments echoed in messages are cut to this many bytes: a 100 kB
 * argument must not push the reason out of sight. */
#define SHOWN_BYTES 40
#define SHOWN_SIZE (4 * SHOWN_BYTES + 8)

/* arg as a message shows it: cut at a character boundary and marked with
 * "...", control characters written \xNN so the message stays one line. */
const char *kl__shown(const char *arg, char dst[SHOWN_SIZE]);
/* Whether name is an item of the comma-separated list, exactly (NULL:
 * any name is). */
int kl__in_list(const char *list, const char *name);
/* s with & < > " ' written as HTML's entities; NULL writes nothing. */
void kl__html_escape(FILE *f, const char *s);
/* before and after as they are, s escaped between them: an element's
 * text, or an attribute's value, in one call. */
void kl__html_text(FILE *f, const char *before, const char *s,
                   const char *after);
/* A message into dst (size bytes, cut to fit), printf-like; returns
 * `code`, so that a function refusing its input says why and returns its
 * failure in one statement. */
PRINTF_LIKE(4, 5)
int kl__said(int code, char *dst, size_t size, const char *fmt, ...);
/* Field id's JSON key, as the library's field table names it (an output
 * names a field by it, never by a text of its own). */
const char *kl__field_key(int id);
/* Whether `name` is an item of `list`, a results file's flags
 * ("ceiling,vendor"; items apart by ',', ';' or a space). */
int kl__flagged(const char *list, const char *name);
/* s as a JSON string: quoted, a quote and a backslash escaped, a line
 * break and a tab as JSON's short escapes, any other control character
 * (and DEL) as a \u escape; NULL is "". */
void kl__json_text(FILE *f, const char *s);
/* v in its shortest exact form (kl__exact_number) where finite; else
 * nothing, an empty CSV field (csv), or null (json). Compare's and the
 * history's outputs; the results files' writer (kl__json_write_number)
 * writes whole numbers as integers instead. */
void kl__csv_exact(FILE *f, double v);
void kl__json_exact(FILE *f, double v);
/* A member of a JSON object: sep (", " or ""), "key": and the value, s
 * as kl__json_text writes it or v as kl__json_exact does. */
void kl__json_member(FILE *f, const char *sep, const char *key,
                     const char *s);
void kl__json_member_exact(FILE *f, const char *sep, const char *key,
                           double v);
/* The columns s takes in a terminal: one a character (UTF-8). */
int kl__text_columns(const char *s);
/* s in at most width columns: as it is, or cut and its last column '~'. */
void kl__cut_text(const char *s, int width, char *dst, size_t size);
/* text on f in lines of at most width columns, broken at spaces (a word
 * longer than a line where the line ends), the lines after the first
 * indented by indent; the first keeps its spaces, so that its columns
 * stay where they were. */
void kl__wrap_text(FILE *f, const char *text, int width, int indent);
/* A machine's or a device's name in its short form, the part that tells
 * machines apart first: a GPU's model before the host and its CPU, the
 * makers' words, trademarks' marks and the clock left out. "vm: Intel(R)
 * Xeon(R) Platinum 8480+ / NVIDIA H100 80GB HBM3" (the history's "HOST:
 * CPU / GPU"; " | " too) is "H100 80GB HBM3 / vm: Platinum 8480+",
 * "NVIDIA H200" "H200"; "P ranks of " is "P ranks, " in front. */
void kl__machine_words(const char *name, char *dst, size_t size);
/* name in at most width columns: as it is where it fits, else its short
 * form (kl__machine_words), cut with '~' where that is still too long, so
 * that a cut keeps what differs between two machines rather than the
 * prefix they share. */
void kl__machine_cut(const char *name, int width, char *dst, size_t size);

/* ---- the history (history.c) --------------------------------------------- */

/* NULL where the library was built with SQLite; else why there is no
 * history (every function below refuses with that line). */
const char *kl__history_missing(void);

/* Opens (write: creating it where missing) the history at path, its
 * schema checked and, where written by an older kladder and write is set,
 * migrated forward. Refused (the file unchanged): not an SQLite database,
 * another program's, a newer kladder's schema, read-only, locked past the
 * timeout, missing where !write; and every call without SQLite. */
int kl__history_open(const char *path, int write, kl_history **out,
                     char *err, size_t errlen);
void kl__history_close(kl_history *h);
/* Appends the results files paths[0..count) as one transaction: all or
 * none. A file already in the history (the same bytes) is skipped.
 * *added (may be NULL) counts the runs added. */
int kl__history_append(kl_history *h, const char *const *paths, int count,
                       int *added, char *err, size_t errlen);

/* One run of one rung, for the report's charts. */
typedef struct kl__history_point {
  char started[32]; /* UTC, as the results file has it */
  char commit[48];
  char machine[96];
  double median_s;
} kl__history_point;

/* The runs of one rung (workload, rung, backend, type, shape, params, op,
 * inputs as the results file writes them), every machine, by date:
 * *points (free() it), *count. */
int kl__history_series(kl_history *h, const char *const key[8],
                       kl__history_point **points, size_t *count, char *err,
                       size_t errlen);

/* `kladder history`'s selection: comma-separated lists (NULL: any), a
 * part of the machine's name, a date or a commit to start from. */
typedef struct kl__history_query {
  const char *workloads, *rungs, *backends, *machine, *since;
} kl__history_query;
/* The runs selected to f: format 't' the table, 'c' CSV, 'j' JSON
 * (kladder-history-1); or, check set, the regression check over them at
 * `threshold` ('t' text, 'j' JSON): 1 where it found one. */
int kl__history_print(kl_history *h, const kl__history_query *q, int format,
                      int check, double threshold, FILE *f, char *err,
                      size_t errlen);

/* ---- the report (report-html.c, report-md.c) ----------------------------- */

/* The report of the results files `inputs` to `out` (through a temporary
 * file beside it, renamed into place when whole; "-" standard output),
 * each rung's history in db (NULL: none) beside its ladder. */
int kl__report_write(const char *out, const char *const *inputs, int count,
                     kl_history *db, char *err, size_t errlen);
/* The page of `inputs` written to f, with `extra` (where not NULL) called
 * to write a section of its own after the header (compare's comparison). */
typedef void (*kl__report_extra)(FILE *f, const void *ctx);
int kl__report_page(FILE *f, const char *const *inputs, int count,
                    kl__report_extra extra, const void *ctx, char *err,
                    size_t errlen);
/* The performance page of inputs[0 .. count - 1] into out ("-": standard
 * output); machines and backends: comma-separated names (the columns, in
 * order, and rows every table has), or NULL. */
int kl__report_markdown(const char *out, const char *const *inputs,
                        int count, const char *machines, const char *backends,
                        char *err, size_t errlen);

#endif
