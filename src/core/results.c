/* A results file read back (kl_results_read): the JSON tree of the
 * document, validated once against the field table, and each result's
 * fields got by that table as a run's report gives them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "internal.h"
#include "json-read.h"
#include "tool.h"

/* The format version this library writes; older ones are read as they
 * are (a field they lack is not measured), newer ones for the fields
 * known here. */
#define KNOWN_FORMAT 2

struct kl_results {
  json_doc *doc;
  const json_value *root, *results;
  int format;
  char warning[192];
};

/* "kladder-results-N" or "-N.M": N; 0 for another version text; -1 for
 * another prefix. */
static int format_major(const char *format) {
  static const char prefix[] = "kladder-results-";
  if (strncmp(format, prefix, sizeof prefix - 1) != 0) return -1;
  const char *p = format + sizeof prefix - 1;
  long major = 0;
  if (*p < '0' || *p > '9') return 0;
  while (*p >= '0' && *p <= '9' && major < 1000000)
    major = major * 10 + (*p++ - '0');
  if (*p == '.' && p[1] >= '0' && p[1] <= '9') {
    p++;
    while (*p >= '0' && *p <= '9') p++;
  }
  return *p == '\0' && major >= 1 && major < 1000000 ? (int)major : 0;
}

/* Where a field's value lives: a result's object, or for a field of the
 * run its group of the document (the top level where the group is ""). */
static const json_value *holder(const kl_results *r, const kl__field *f,
                                const json_value *result) {
  if (f->scope != KL__RUN) return result;
  return f->group && f->group[0] ? kl__doc_member(r->root, f->group)
                                 : r->root;
}

static int is_number(const json_value *v) {
  return v->kind == JSON_NUMBER && isfinite(v->number);
}

/* Why value v of field f is not what the format writes, or NULL: a text
 * is a string, a number finite (or yes/no), seconds not negative, a list
 * numbers; null for any of them where nothing was measured. The events
 * and the ranks' runs are the trace's, read by no front end here. */
static const char *wrong_value(const kl__field *f, const json_value *v) {
  if (v->kind == JSON_NULL) return NULL;
  switch (f->kind) {
  case KL__TEXT:
    return v->kind == JSON_STRING ? NULL : "is not a string";
  case KL__NUMBER:
    if (v->kind == JSON_TRUE || v->kind == JSON_FALSE) return NULL;
    return is_number(v) ? NULL : "is not a finite number";
  case KL__SECONDS:
    if (!is_number(v)) return "is not a finite number of seconds";
    return v->number >= 0 ? NULL : "is negative";
  case KL__LIST:
  case KL__PAIRS:
    /* A list's items, or the named numbers' values. */
    if (v->kind != (f->kind == KL__LIST ? JSON_ARRAY : JSON_OBJECT))
      return f->kind == KL__LIST ? "is not an array" : "is not an object";
    for (size_t i = 0; i < v->count; i++)
      if (!is_number(&v->items[i]) && v->items[i].kind != JSON_NULL)
        return "holds a value that is not a finite number";
    return NULL;
  default:
    return NULL;
  }
}

/* Every known field of every result, and of the run, as the format
 * writes it; a result names its workload and rung. */
static kl_status validate(const kl_results *r, const char *name) {
  for (size_t i = 0; i < r->results->count; i++) {
    const json_value *res = &r->results->items[i];
    if (res->kind != JSON_OBJECT)
      return kl__usage(KL_USAGE, "%s:%d:%d: result %zu is not an object",
                       name, res->line, res->column, i + 1);
    for (size_t k = 0; k < kl__field_count; k++) {
      const kl__field *f = &kl__fields[k];
      if (f->scope == KL__RUN && i > 0) continue;
      const json_value *in = holder(r, f, res);
      const json_value *v = kl__doc_member(in, f->name);
      const char *why = v ? wrong_value(f, v) : NULL;
      if (why)
        return kl__usage(KL_USAGE, "%s:%d:%d: \"%s\" %s", name, v->line,
                         v->column, f->name, why);
    }
    /* What every reader takes a result by: what ran (a name that is not
     * empty), where, on what and how it ended; of a format known here, as
     * its writer always gives them. A newer format may name them
     * otherwise: its readers take the fields it has. */
    static const char *const named[] = {"workload", "rung", "backend",
                                        "type", "check", "status"};
    const size_t needed = r->format <= KNOWN_FORMAT ? 6 : 2;
    for (size_t k = 0; k < needed; k++) {
      const json_value *v = kl__doc_member(res, named[k]);
      if (!v || v->kind != JSON_STRING || (k < 2 && !v->text[0]))
        return kl__usage(KL_USAGE, "%s:%d:%d: result %zu has no \"%s\"",
                         name, res->line, res->column, i + 1, named[k]);
    }
    if (r->format <= KNOWN_FORMAT && !kl__doc_member(res, "shape") &&
        !kl__doc_member(res, "n"))
      return kl__usage(KL_USAGE, "%s:%d:%d: result %zu has no \"shape\" or "
                       "\"n\"", name, res->line, res->column, i + 1);
    /* A rung that ran has its time: a success without one would be read
     * as a time of nothing (0 s, or a verdict on nothing). A newer format
     * may name it otherwise: its readers say what they lack. */
    const json_value *status = kl__doc_member(res, "status");
    const json_value *median = kl__doc_member(res, "median_s");
    if (r->format <= KNOWN_FORMAT && status && status->kind == JSON_STRING &&
        strcmp(status->text, "success") == 0 &&
        (!median || median->kind == JSON_NULL))
      return kl__usage(KL_USAGE, "%s:%d:%d: result %zu succeeded but has no "
                       "\"median_s\"", name, res->line, res->column, i + 1);
    if (r->format <= KNOWN_FORMAT && !median)
      return kl__usage(KL_USAGE, "%s:%d:%d: result %zu has no \"median_s\"",
                       name, res->line, res->column, i + 1);
  }
  return KL_OK;
}

/* A document read or parsed (doc; NULL with why in err where it was
 * not), checked as a results file: *out, which owns it, or the document
 * freed. name stands for the file in messages. */
static kl_status results_of(json_doc *doc, const char *name, const char *err,
                            kl_results **out) {
  if (!doc) return kl__usage(KL_USAGE, "%s", err);
  kl_results *r = calloc(1, sizeof *r);
  if (!r) {
    kl__doc_free(doc);
    return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  }
  r->doc = doc;
  kl_status st = KL_OK;
  r->root = kl__doc_root(r->doc);
  const json_value *format = kl__doc_member(r->root, "format");
  if (r->root->kind != JSON_OBJECT || !format || format->kind != JSON_STRING)
    st = kl__usage(KL_USAGE, "%s: not a kladder results file (no "
                   "\"format\": \"kladder-results-N\" in it)", name);
  if (st == KL_OK && (r->format = format_major(format->text)) < 0)
    st = kl__usage(KL_USAGE, "%s: not a kladder results file (its format "
                   "is " KL_Q ")", name, KL_CLIP(format->text));
  if (st == KL_OK && r->format == 0)
    st = kl__usage(KL_USAGE, "%s: format " KL_Q " has no version this "
                   "kladder reads (kladder-results-1 to -%d)", name,
                   KL_CLIP(format->text), KNOWN_FORMAT);
  if (st == KL_OK) {
    r->results = kl__doc_member(r->root, "results");
    if (!r->results && r->format > KNOWN_FORMAT)
      st = kl__usage(KL_USAGE, "%s: format %.40s is newer than this kladder "
                     "reads (kladder-results-1 to -%d), and has no "
                     "\"results\"", name, format->text, KNOWN_FORMAT);
    else if (!r->results)
      st = kl__usage(KL_USAGE, "%s: no \"results\" in it", name);
    else if (r->results->kind != JSON_ARRAY)
      st = kl__usage(KL_USAGE, "%s:%d:%d: \"results\" is not an array", name,
                     r->results->line, r->results->column);
    else if (r->results->count == 0)
      st = kl__usage(KL_USAGE, "%s: no results in it (\"results\" is "
                     "empty)", name);
  }
  if (st == KL_OK) st = validate(r, name);
  if (st != KL_OK) {
    kl_results_free(r);
    return st;
  }
  if (r->format > KNOWN_FORMAT)
    snprintf(r->warning, sizeof r->warning, "%s: format %.40s is newer "
             "than this kladder reads (kladder-results-1 to -%d)", name,
             format->text, KNOWN_FORMAT);
  *out = r;
  return KL_OK;
}

static kl_status results_read(const char *path, kl_results **out) {
  if (!out) return kl__usage(KL_USAGE, "kl_results_read: out is NULL");
  *out = NULL;
  if (!path) return kl__usage(KL_USAGE, "kl_results_read: path is NULL");
  json_doc *doc = NULL;
  char err[512];
  (void)kl__doc_read(path, &doc, err, sizeof err);
  return results_of(doc, strcmp(path, "-") == 0 ? "standard input" : path,
                    err, out);
}

kl_status kl_results_read(const char *path, kl_results **out) {
  return kl__done(results_read(path, out));
}

kl_status kl__results_parse(const char *name, const char *text, size_t len,
                            kl_results **out) {
  *out = NULL;
  json_doc *doc = NULL;
  char err[512];
  (void)kl__doc_parse(name, text, len, &doc, err, sizeof err);
  return kl__done(results_of(doc, name, err, out));
}

void kl_results_free(kl_results *r) {
  if (!r) return;
  kl__doc_free(r->doc);
  free(r);
}

size_t kl_results_count(const kl_results *r) {
  return r ? r->results->count : 0;
}

int kl_results_format(const kl_results *r) { return r ? r->format : 0; }

const char *kl_results_warning(const kl_results *r) {
  return r ? r->warning : "";
}

/* Field `field` of result `result`: its JSON value (NULL where absent or
 * null: not measured). */
static kl_status value_of(const kl_results *r, size_t result, size_t field,
                          const char *who, const kl__field **f,
                          const json_value **v) {
  if (!r || result >= r->results->count)
    return kl__usage(KL_USAGE, "%s: result %zu of %zu", who, result,
                     r ? r->results->count : 0);
  if (field >= kl__field_count)
    return kl__usage(KL_USAGE, "%s: field %zu of %zu", who, field,
                     kl__field_count);
  *f = &kl__fields[field];
  *v = kl__doc_member(holder(r, *f, &r->results->items[result]), (*f)->name);
  if (*v && (*v)->kind == JSON_NULL) *v = NULL;
  return KL_OK;
}

static kl_status results_number(const kl_results *r, size_t result,
                                size_t field, double *out) {
  const kl__field *f = NULL;
  const json_value *v = NULL;
  kl_status st = value_of(r, result, field, "kl_results_number", &f, &v);
  if (st != KL_OK) return st;
  st = kl__field_wants(f, 0, v != NULL, "kl_results_number");
  if (st != KL_OK) return st;
  *out = v->kind == JSON_NUMBER ? v->number : v->kind == JSON_TRUE;
  return KL_OK;
}

kl_status kl_results_number(const kl_results *r, size_t result, size_t field,
                            double *out) {
  return kl__done(results_number(r, result, field, out));
}

static kl_status results_text(const kl_results *r, size_t result,
                              size_t field, char *out, size_t size) {
  const kl__field *f = NULL;
  const json_value *v = NULL;
  if (!out || size == 0)
    return kl__usage(KL_USAGE, "kl_results_text: no room for the text");
  out[0] = '\0';
  kl_status st = value_of(r, result, field, "kl_results_text", &f, &v);
  if (st != KL_OK) return st;
  st = kl__field_wants(f, 1, v != NULL, "kl_results_text");
  if (st != KL_OK) return st;
  if (f->kind == KL__TEXT)
    snprintf(out, size, "%s", v->text);
  else
    snprintf(out, size, kl__field_format(f),
             v->kind == JSON_NUMBER ? v->number : (double)(v->kind == JSON_TRUE));
  return KL_OK;
}

kl_status kl_results_text(const kl_results *r, size_t result, size_t field,
                          char *out, size_t size) {
  return kl__done(results_text(r, result, field, out, size));
}

/* ---- the command's views ------------------------------------------------
 * Field `id`'s value where its holder keeps it (NULL where absent or
 * null). */
static const json_value *named(const kl_results *r, const json_value *result,
                               kl__field_id id) {
  const kl__field *f = &kl__fields[id];
  const json_value *v = kl__doc_member(holder(r, f, result), f->name);
  return v && v->kind != JSON_NULL ? v : NULL;
}

static const char *text(const kl_results *r, const json_value *result,
                        kl__field_id id) {
  const json_value *v = named(r, result, id);
  return v && v->kind == JSON_STRING ? v->text : "";
}

static double number(const kl_results *r, const json_value *result,
                     kl__field_id id) {
  const json_value *v = named(r, result, id);
  if (v && v->kind == JSON_NUMBER) return v->number;
  if (v && (v->kind == JSON_TRUE || v->kind == JSON_FALSE))
    return v->kind == JSON_TRUE;
  return NAN;
}

void kl__results_row(const kl_results *r, size_t i, kl__row *out) {
  memset(out, 0, sizeof *out);
  const json_value *v = &r->results->items[i];
  out->v = v;
#define T(f) out->f = text(r, v, KL__F_##f)
#define N(f) out->f = number(r, v, KL__F_##f)
  T(workload), T(rung), T(backend), T(flags), T(type), T(shape), T(params);
  T(op), T(inputs), T(device_name), T(unit), T(check), T(status), T(error);
  T(summary), T(workload_summary), T(dispatched), T(energy_per);
  T(ceiling_note), T(scaling), T(rank_grid), T(peer);
  N(step), N(n), N(device), N(median_s), N(min_s), N(max_s), N(rate), N(ceiling);
  N(percent_ceiling), N(bytes), N(flops), N(energy_w), N(energy_pj);
  N(bad_elements), N(abs_error), N(error_over_tolerance), N(ranks);
  N(efficiency), N(overlap), N(speedup), N(one_rank_seconds);
  out->ceiling_only = number(r, v, KL__F_ceiling_only) == 1;
  out->median_given =
      kl__doc_member(v, kl__fields[KL__F_median_s].name) != NULL;
  out->times = named(r, v, KL__F_times_s);
  out->phases = named(r, v, KL__F_phases);
  out->trace = named(r, v, KL__F_trace);
  out->rank_runs = named(r, v, KL__F_rank_runs);
}

void kl__results_run(const kl_results *r, kl__run_view *out) {
  memset(out, 0, sizeof *out);
  const json_value *v = &r->results->items[0];
  /* The format marker is the document's, not a field. */
  out->format = kl__doc_string(r->root, "format", "");
  T(started), T(kladder), T(command_line), T(notes);
  out->interrupted = number(r, v, KL__F_interrupted) == 1;
  T(host), T(cpu), T(gpu), T(driver), N(cpu_threads), N(omp_threads);
  T(version), T(commit), T(build_type), T(c_compiler), T(c_flags);
  T(gpu_compiler), T(gpu_flags);
  N(seed), N(reps), N(warmup), N(precision), N(max_time_s);
#undef T
#undef N
}

const char *kl__results_text_ref(const kl_results *r, size_t result,
                                 size_t field) {
  const kl__field *f = NULL;
  const json_value *v = NULL;
  if (value_of(r, result, field, "kl__results_text_ref", &f, &v) != KL_OK)
    return NULL;
  return f->kind == KL__TEXT && v && v->kind == JSON_STRING ? v->text : NULL;
}
