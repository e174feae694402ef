/* The one description of a result's fields (fields.c): the table, the CSV
 * and the JSON writers (report.c) read every value through it. */
#ifndef KL_FIELDS_H
#define KL_FIELDS_H

#include "harness.h"

/* In kl_field_kind's order (kladder-run.h), which kl_field_describe
 * gives. */
typedef enum kl__field_kind {
  KL__TEXT,    /* a string */
  KL__NUMBER,  /* a number */
  KL__SECONDS, /* a time, in seconds */
  KL__LIST,    /* numbers: JSON array; not in CSV */
  KL__PAIRS,   /* named numbers: CSV "a=1;b=2", JSON object */
  KL__EVENTS,  /* the traced run's events: JSON only (report.c) */
  KL__RANK_RUNS /* each rank's timed runs: JSON only (report.c) */
} kl__field_kind;

typedef enum kl__field_scope {
  KL__RESULT, /* one value per result */
  KL__RUN     /* one value per run: JSON's top level or a group of it, and
                 repeated on every CSV row */
} kl__field_scope;

/* A value as a getter gives it; present 0: not measured (CSV empty, JSON
 * null, the table "-"). */
typedef struct kl__value {
  int json; /* asked for by the JSON writer (empty texts become null) */
  int present;
  const char *text;
  double number;
  int is_bool;
  const double *numbers; /* a list, or the pairs' values */
  int numbers_present;   /* the pairs' values were measured */
  const char *const *names; /* the pairs' names */
  int count;
  const kl_result *result; /* KL__EVENTS, KL__RANK_RUNS: whose */
  char buffer[96]; /* for text a getter composes */
} kl__value;

typedef struct kl__field {
  const char *name; /* JSON key, and the table's name for it */
  const char *csv;  /* CSV column; NULL: not in the CSV */
  kl__field_scope scope;
  const char *group; /* KL__RUN: its JSON object ("machine"), "" the top */
  kl__field_kind kind;
  const char *format; /* printf format of a CSV number */
  void (*get)(const kl_report *rep, const kl__result *res, kl__value *v);
  /* Its unit: "s", "W", "J", "pJ", "MHz", "B", "%"; "result": the
   * result's own unit (the field "unit"); NULL: none. */
  const char *unit;
} kl__field;

extern const kl__field kl__fields[];
extern const size_t kl__field_count;
const kl__field *kl__field_named(const char *name);
/* The printf format a number of field f is written with (the CSV's, and
 * kl_result_text's). */
const char *kl__field_format(const kl__field *f);
void kl__field_get(const kl__field *f, const kl_report *rep,
                   const kl__result *res, int json, kl__value *v);
/* Whether a caller (`who`, for the message) may have field f's value as
 * a number (text 0) or as text (text 1; a number is text too), and it was
 * measured (present): KL_USAGE for a field of another kind, KL_UNAVAILABLE
 * for one not measured. */
kl_status kl__field_wants(const kl__field *f, int text, int present,
                          const char *who);

#endif
