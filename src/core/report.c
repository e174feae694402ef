/* The result table on stdout, and the same fields as CSV and JSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

const char *kl__check_text(const kl_result *r) {
  if (r->status != KL_OK) return "ERROR";
  switch (r->check) {
  case KL_CHECK_PASS: return "PASS";
  case KL_CHECK_FAIL: return "FAIL";
  case KL_CHECK_CAUGHT: return "WRONG(expected)";
  case KL_CHECK_MISSED: return "PASS(known-wrong)";
  }
  return "?";
}

static const char *unit_text(const kl_result *r) {
  return kl_metric_unit(r->workload);
}

static void rung_marks(const kl_result *r, char *dst, size_t size) {
  dst[0] = '\0';
  const char *sep = "";
  if (r->rung->flags & KL_RUNG_CEILING) {
    snprintf(dst, size, "ceiling");
    sep = ",";
  }
  if (r->rung->flags & KL_RUNG_VENDOR) {
    size_t used = strlen(dst);
    snprintf(dst + used, size - used, "%svendor", sep);
    sep = ",";
  }
  if (r->rung->flags & KL_RUNG_KNOWN_WRONG) {
    size_t used = strlen(dst);
    snprintf(dst + used, size - used, "%sknown-wrong", sep);
  }
}

static void format_time(double s, char *dst, size_t size) {
  if (s <= 0) snprintf(dst, size, "-");
  else if (s < 1e-3) snprintf(dst, size, "%.2f us", s * 1e6);
  else if (s < 1.0) snprintf(dst, size, "%.3f ms", s * 1e3);
  else snprintf(dst, size, "%.3f s", s);
}

/* Why %ceil is missing or above 105%: one line per workload and reason,
 * with the rungs it concerns. */
static void print_ceiling_notes(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    int first = 1;
    for (size_t j = 0; j < i && first; j++)
      first = !(rep->results[j].workload == r->workload &&
                rep->results[j].ceiling_note == r->ceiling_note);
    if (!r->ceiling_note || !first) continue;
    fprintf(f, "%%ceil %s, %s", r->percent > 0 ? "above 105%" : "-",
            r->workload->name);
    for (size_t j = i; j < rep->count; j++) {
      const kl_result *o = &rep->results[j];
      if (o->workload == r->workload && o->ceiling_note == r->ceiling_note)
        fprintf(f, " %s", o->rung->name);
    }
    fprintf(f, ": %s\n", r->ceiling_note);
  }
}

/* The counts a run reported (cg's iterations) and the time per unit of
 * the first one, a line per result that has them. */
static void print_counts(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    const char *const *names = r->workload->counts;
    if (!names || !names[0] || r->status != KL_OK) continue;
    fprintf(f, "%s %s:", r->workload->name, r->rung->name);
    for (int k = 0; k < KL_MAX_COUNTS && names[k]; k++)
      fprintf(f, "%s %.15g %s", k ? "," : "", r->counts[k], names[k]);
    if (r->counts[0] > 0)
      fprintf(f, ", %.4g ms each", r->t_median / r->counts[0] * 1e3);
    fputc('\n', f);
  }
}

/* The traced run of a rung with phases: its wall time, each phase's busy
 * time and the overlap, a line per result that has them. */
static void print_overlap(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    if (r->status != KL_OK || r->trace_count == 0 || r->phase_count == 0)
      continue;
    char t[32];
    format_time(kl__trace_wall(r->trace, r->trace_count), t, sizeof t);
    fprintf(f, "%s %s, last run: wall %s; busy", r->workload->name,
            r->rung->name, t);
    for (int k = 0; k < r->phase_count; k++) {
      format_time(kl__trace_busy(r->trace, r->trace_count, k), t, sizeof t);
      fprintf(f, "%s %s %s", k ? "," : "", r->rung->phases[k], t);
    }
    if (r->overlap > 0) fprintf(f, "; overlap %.3f\n", r->overlap);
    else fprintf(f, "; overlap unknown: %d events lost\n", r->trace_lost);
  }
}

static int same_problem(const kl_result *a, const kl_result *b) {
  return a->workload == b->workload && a->n == b->n && a->type == b->type &&
         memcmp(a->plan.value, b->plan.value,
                sizeof a->plan.value[0] * (size_t)a->workload->param_count) ==
             0;
}

/* Each rung beside its peer on another backend, where both ran on one
 * problem and passed. */
static void print_peers(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    if (!r->rung->peer || r->status != KL_OK ||
        r->check != KL_CHECK_PASS || r->merit <= 0)
      continue;
    for (size_t j = 0; j < rep->count; j++) {
      const kl_result *o = &rep->results[j];
      if (o->status != KL_OK || o->check != KL_CHECK_PASS || o->merit <= 0 ||
          strcmp(o->rung->name, r->rung->peer) != 0 || !same_problem(r, o))
        continue;
      fprintf(f, "%s %s beside %s: %.4g vs %.4g %s, %.3fx\n",
              r->workload->name, r->rung->name, o->rung->name, r->merit,
              o->merit, unit_text(r), r->merit / o->merit);
      break;
    }
  }
}

static kl_status print_report(const kl_report *rep, FILE *f) {
  const kl_machine *m = &rep->machine;
  fprintf(f, "kladder %s | CPU: %s, %d threads, OpenMP %d | GPU: %s%s%s\n",
          KL_VERSION, m->cpu, m->cpu_threads, m->omp_threads,
          m->gpu[0] ? m->gpu : "none", m->driver[0] ? " | " : "", m->driver);
  fprintf(f, "seed %llu, %d timed runs after %d warm-up; time = median "
          "[min, max]\n\n",
          (unsigned long long)rep->options.seed, rep->options.reps,
          rep->options.warmup);
  fprintf(f, "%-9s %-24s %-7s %-4s %-4s %14s %11s %11s %11s %15s %7s %9s %9s  "
          "%s\n",
          "workload", "rung", "backend", "op", "type", "n", "median", "min",
          "max", "rate", "%ceil", "speedup", "abs err", "check");
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    char med[32], tmin[32], tmax[32], rate[32], pct[16], spd[16], marks[64];
    format_time(r->t_median, med, sizeof med);
    format_time(r->t_min, tmin, sizeof tmin);
    format_time(r->t_max, tmax, sizeof tmax);
    if (r->status == KL_OK)
      snprintf(rate, sizeof rate, "%.1f %s", r->merit, unit_text(r));
    else
      snprintf(rate, sizeof rate, "-");
    if (r->percent > 0) snprintf(pct, sizeof pct, "%.1f%%", r->percent);
    else snprintf(pct, sizeof pct, "-");
    if (r->speedup > 0) snprintf(spd, sizeof spd, "%.2fx", r->speedup);
    else snprintf(spd, sizeof spd, "-");
    rung_marks(r, marks, sizeof marks);
    char err[16] = "-";
    if (r->status == KL_OK)
      snprintf(err, sizeof err, "%.2e", r->verdict.abs_error);
    const char *op = kl_result_op(r);
    char size[96];
    kl_result_size(r, size, sizeof size);
    fprintf(f, "%-9s %-24s %-7s %-4s %-4s %14s %11s %11s %11s %15s %7s %9s "
            "%9s  %s%s%s%s\n",
            r->workload->name, r->rung->name, r->rung->backend->name,
            op[0] ? op : "-", kl_type_name(r->type), size, med,
            tmin, tmax, rate, pct, spd, err, kl__check_text(r),
            marks[0] ? " [" : "", marks, marks[0] ? "]" : "");
  }
  fprintf(f, "\n%%ceil: percent of the backend's ceiling in this run: for "
          "memory-bound rungs the ceiling rung their workload names (the "
          "device copy), timed right after the rung; for compute-bound ones "
          "the vendor rung. speedup: over the first rung of the same workload and "
          "size. abs err: largest absolute error against the reference.\n");
  if (rep->notes[0]) fprintf(f, "note: %s\n", rep->notes);
  print_ceiling_notes(rep, f);
  print_counts(rep, f);
  print_overlap(rep, f);
  print_peers(rep, f);
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    if (r->status == KL_OK && r->reps < rep->options.reps)
      fprintf(f, "%s %s: %d timed run%s instead of %d, to stay within %.0f s "
              "(--max-time)\n", r->workload->name, r->rung->name, r->reps,
              r->reps == 1 ? "" : "s", rep->options.reps,
              rep->options.max_seconds);
    if (r->status != KL_OK)
      fprintf(f, "%s %s: error: %s\n", r->workload->name, r->rung->name,
              r->error);
    else if (r->check != KL_CHECK_PASS)
      fprintf(f, "%s %s: %s: %lld of %lld elements outside tolerance "
              "(worst %.3g x tolerance)%s%s\n",
              r->workload->name, r->rung->name, kl__check_text(r),
              (long long)r->verdict.bad_count, (long long)r->verdict.checked,
              r->verdict.max_error, r->verdict.detail[0] ? "; " : "",
              r->verdict.detail);
  }
  return ferror(f) ? KL_FAIL(KL_IO, "writing the table failed") : KL_OK;
}

kl_status kl_report_print(const kl_report *rep, FILE *f) {
  return kl__done(print_report(rep, f));
}

/* "name=value;..." of a result's phase medians (seconds) or counts. */
static void pairs_text(const kl_result *r, int phases, char *dst,
                       size_t size) {
  dst[0] = '\0';
  const char *const *names = phases ? r->rung->phases : r->workload->counts;
  const int count = phases ? r->phase_count : KL_MAX_COUNTS;
  for (int k = 0; names && k < count && names[k]; k++) {
    size_t used = strlen(dst);
    snprintf(dst + used, size - used, "%s%s=%.9g", k ? ";" : "", names[k],
             phases ? r->phase_median[k] : r->counts[k]);
  }
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* A measured value, or an empty field where there is none. */
static void csv_number(FILE *f, int measured, const char *format, double x) {
  fputc(',', f);
  if (measured && isfinite(x)) fprintf(f, format, x);
}

/* What a result has measured: its timings and cost once it ran, its
 * check once it was checked. */
static int timed(const kl_result *r) { return r->status == KL_OK; }
static int checked(const kl_result *r) { return r->verdict.checked > 0; }

static const char csv_header[] =
    "workload,rung,backend,flags,op,inputs,type,n,shape,median_s,min_s,"
    "max_s,stddev_s,bytes,flops,items,unit,rate,ceiling,percent_ceiling,"
    "ceiling_note,speedup,check,abs_error,error_over_tolerance,bad_elements,"
    "status,error,cpu,cpu_threads,omp_threads,gpu,driver,seed,reps,warmup,"
    "timed_runs,params,phases,counts,overlap,started,version,commit,"
    "build_type,"
    "c_compiler,c_flags,gpu_compiler,gpu_flags,command_line\n";

static void csv_row(FILE *f, const kl_report *rep, const kl_result *r) {
  const kl_machine *m = &rep->machine;
  const kl_build_info *b = kl_build();
  char marks[64], size[96], text[512];
  rung_marks(r, marks, sizeof marks);
  kl_result_size(r, size, sizeof size);
  fprintf(f, "%s,%s,%s,", r->workload->name, r->rung->name,
          r->rung->backend->name);
  csv_string(f, marks); /* "ceiling,vendor" holds a comma */
  fprintf(f, ",%s,%s,%s,%lld,%s", kl_result_op(r), kl_result_inputs(r),
          kl_type_name(r->type), (long long)r->n, size);
  csv_number(f, timed(r), "%.9g", r->t_median);
  csv_number(f, timed(r), "%.9g", r->t_min);
  csv_number(f, timed(r), "%.9g", r->t_max);
  csv_number(f, timed(r) && r->reps > 1, "%.9g", r->t_stddev);
  csv_number(f, timed(r), "%.17g", r->cost.bytes);
  csv_number(f, timed(r), "%.17g", r->cost.flops);
  csv_number(f, timed(r), "%.17g", r->cost.items);
  fprintf(f, ",%s", unit_text(r));
  csv_number(f, timed(r), "%.6g", r->merit);
  csv_number(f, r->ceiling > 0, "%.6g", r->ceiling);
  csv_number(f, r->ceiling > 0, "%.4g", r->percent);
  fputc(',', f);
  csv_string(f, r->ceiling_note);
  csv_number(f, r->speedup > 0, "%.4g", r->speedup);
  fprintf(f, ",%s", kl__check_text(r));
  csv_number(f, checked(r), "%.6g", r->verdict.abs_error);
  csv_number(f, checked(r), "%.4g", r->verdict.max_error);
  csv_number(f, checked(r), "%.0f", (double)r->verdict.bad_count);
  fputc(',', f);
  csv_string(f, kl_status_name(r->status));
  fputc(',', f);
  csv_string(f, r->error);
  fputc(',', f);
  csv_string(f, m->cpu);
  fprintf(f, ",%d,%d,", m->cpu_threads, m->omp_threads);
  csv_string(f, m->gpu);
  fputc(',', f);
  csv_string(f, m->driver);
  fprintf(f, ",%llu,%d,%d,%d,", (unsigned long long)rep->options.seed,
          rep->options.reps, rep->options.warmup, r->reps);
  kl_result_params(r, text, sizeof text);
  csv_string(f, text);
  fputc(',', f);
  pairs_text(r, 1, text, sizeof text);
  csv_string(f, text);
  fputc(',', f);
  pairs_text(r, 0, text, sizeof text);
  csv_string(f, text);
  csv_number(f, timed(r) && r->overlap > 0, "%.9g", r->overlap);
  const char *const meta[] = {rep->started, b->version, b->commit,
                              b->build_type, b->c_compiler, b->c_flags,
                              b->gpu_compiler, b->gpu_flags,
                              rep->command_line};
  for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
    fputc(',', f);
    csv_string(f, meta[i]);
  }
  fputc('\n', f);
}

/* ---- JSON -------------------------------------------------------------- */

static void json_string(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* A measured value, or null where there is none (JSON has no NaN or
 * infinity either). */
static void json_number(FILE *f, int measured, double x) {
  if (measured && isfinite(x)) fprintf(f, "%.17g", x);
  else fputs("null", f);
}

/* "key": value pairs, each after a comma. */
static void json_key(FILE *f, const char *key) { fprintf(f, ", \"%s\": ", key); }

static void json_text(FILE *f, const char *key, const char *value) {
  json_key(f, key);
  json_string(f, value);
}

static void json_value(FILE *f, const char *key, int measured, double x) {
  json_key(f, key);
  json_number(f, measured, x);
}

/* The first member, written when the file is opened: a device that
 * cannot take it fails before the run. */
static const char json_head[] = "{\n  \"format\": \"kladder-results-1\"";

static void json_result(FILE *f, const kl_result *r) {
  char marks[64], size[96], text[512];
  rung_marks(r, marks, sizeof marks);
  kl_result_size(r, size, sizeof size);
  fprintf(f, "{\"workload\": ");
  json_string(f, r->workload->name);
  json_text(f, "rung", r->rung->name);
  json_text(f, "backend", r->rung->backend->name);
  json_text(f, "flags", marks);
  json_text(f, "op", kl_result_op(r));
  json_text(f, "inputs", kl_result_inputs(r));
  json_text(f, "type", kl_type_name(r->type));
  json_value(f, "n", 1, (double)r->n);
  json_text(f, "shape", size);
  json_value(f, "timed_runs", 1, r->reps);
  json_value(f, "median_s", timed(r), r->t_median);
  json_value(f, "min_s", timed(r), r->t_min);
  json_value(f, "max_s", timed(r), r->t_max);
  json_value(f, "stddev_s", timed(r) && r->reps > 1, r->t_stddev);
  json_key(f, "times_s");
  if (timed(r) && r->times) {
    fputc('[', f);
    for (int i = 0; i < r->reps; i++) {
      if (i) fputs(", ", f);
      json_number(f, 1, r->times[i]);
    }
    fputc(']', f);
  } else {
    fputs("null", f);
  }
  json_value(f, "bytes", timed(r), r->cost.bytes);
  json_value(f, "flops", timed(r), r->cost.flops);
  json_value(f, "items", timed(r), r->cost.items);
  json_text(f, "unit", unit_text(r));
  json_value(f, "rate", timed(r), r->merit);
  json_value(f, "ceiling", r->ceiling > 0, r->ceiling);
  json_value(f, "percent_ceiling", r->ceiling > 0, r->percent);
  json_text(f, "ceiling_note", r->ceiling_note);
  json_value(f, "speedup", r->speedup > 0, r->speedup);
  json_text(f, "check", kl__check_text(r));
  json_value(f, "abs_error", checked(r), r->verdict.abs_error);
  json_value(f, "error_over_tolerance", checked(r), r->verdict.max_error);
  json_value(f, "bad_elements", checked(r), (double)r->verdict.bad_count);
  json_text(f, "status", kl_status_name(r->status));
  json_text(f, "error", r->error);
  kl_result_params(r, text, sizeof text);
  json_text(f, "params", text);
  json_key(f, "phases");
  fputc('{', f);
  for (int k = 0; r->rung->phases && k < r->phase_count; k++) {
    fprintf(f, "%s", k ? ", " : "");
    json_string(f, r->rung->phases[k]);
    fprintf(f, ": ");
    json_number(f, timed(r), r->phase_median[k]);
  }
  fputc('}', f);
  json_key(f, "counts");
  fputc('{', f);
  for (int k = 0; r->workload->counts && k < KL_MAX_COUNTS &&
                  r->workload->counts[k]; k++) {
    fprintf(f, "%s", k ? ", " : "");
    json_string(f, r->workload->counts[k]);
    fprintf(f, ": ");
    json_number(f, timed(r), r->counts[k]);
  }
  fputc('}', f);
  json_value(f, "overlap", timed(r) && r->overlap > 0, r->overlap);
  fputc('}', f);
}

/* Everything after json_head. */
static void json_body(FILE *f, const kl_report *rep) {
  const kl_machine *m = &rep->machine;
  const kl_build_info *b = kl_build();
  fprintf(f, ",\n  \"kladder\": ");
  json_string(f, b->version);
  fprintf(f, ",\n  \"started\": ");
  json_string(f, rep->started[0] ? rep->started : NULL);
  fprintf(f, ",\n  \"command_line\": ");
  json_string(f, rep->command_line);
  fprintf(f, ",\n  \"build\": {\"version\": ");
  json_string(f, b->version);
  json_text(f, "commit", b->commit[0] ? b->commit : NULL);
  json_text(f, "build_type", b->build_type);
  json_text(f, "c_compiler", b->c_compiler);
  json_text(f, "c_flags", b->c_flags);
  json_text(f, "gpu_compiler", b->gpu_compiler[0] ? b->gpu_compiler : NULL);
  json_text(f, "gpu_flags", b->gpu_compiler[0] ? b->gpu_flags : NULL);
  fprintf(f, "},\n  \"machine\": {\"cpu\": ");
  json_string(f, m->cpu);
  json_value(f, "cpu_threads", 1, m->cpu_threads);
  json_value(f, "omp_threads", 1, m->omp_threads);
  json_text(f, "gpu", m->gpu[0] ? m->gpu : NULL);
  json_text(f, "driver", m->driver[0] ? m->driver : NULL);
  json_text(f, "host", m->host);
  fprintf(f, "},\n  \"options\": {\"seed\": %llu, \"reps\": %d, \"warmup\": "
          "%d, \"max_time_s\": ",
          (unsigned long long)rep->options.seed, rep->options.reps,
          rep->options.warmup);
  json_number(f, rep->options.max_seconds > 0, rep->options.max_seconds);
  fprintf(f, ", \"ceilings\": %s},\n  \"notes\": ",
          rep->options.skip_ceiling ? "false" : "true");
  json_string(f, rep->notes);
  fprintf(f, ",\n  \"results\": [");
  for (size_t i = 0; i < rep->count; i++) {
    fprintf(f, "%s\n    ", i ? "," : "");
    json_result(f, &rep->results[i]);
  }
  fprintf(f, "\n  ]\n}\n");
}

/* ---- the trace ---------------------------------------------------------- */

/* Chrome's trace-event format, a process per result and a thread per
 * track (tid 0 the host, tid s + 1 stream s); complete ("X") events in
 * microseconds from the first traced run's start. Written when the file
 * is opened: */
static const char trace_head[] = "{\"displayTimeUnit\": \"ms\", "
                                 "\"traceEvents\": [\n";

static void trace_meta(FILE *f, int pid, int tid, const char *what,
                       const char *key, const char *value) {
  fprintf(f, "{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"%s\", "
          "\"args\": {\"%s\": ", pid, tid, what, key);
  json_string(f, value);
  fputs("}},\n", f);
}

static void trace_body(FILE *f, const kl_report *rep) {
  double zero = 0;
  int any = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    if (r->trace_count == 0) continue;
    if (!any || r->trace_origin < zero) zero = r->trace_origin;
    any = 1;
  }
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    if (r->trace_count == 0) continue;
    const int pid = (int)i + 1;
    char name[160];
    snprintf(name, sizeof name, "%s %s", r->workload->name, r->rung->name);
    trace_meta(f, pid, 0, "process_name", "name", name);
    if (r->overlap > 0)
      snprintf(name, sizeof name, "overlap %.9g", r->overlap);
    else
      snprintf(name, sizeof name, "%d events lost", r->trace_lost);
    if (r->overlap > 0 || r->trace_lost > 0)
      trace_meta(f, pid, 0, "process_labels", "labels", name);
    int named[KL_MAX_STREAMS + 1] = {0};
    for (int e = 0; e < r->trace_count; e++) {
      const int tid = r->trace[e].track + 1;
      if (tid < 0 || tid > KL_MAX_STREAMS || named[tid]) continue;
      named[tid] = 1;
      if (tid == 0) snprintf(name, sizeof name, "host");
      else snprintf(name, sizeof name, "stream %d", tid - 1);
      trace_meta(f, pid, tid, "thread_name", "name", name);
    }
    const double at = r->trace_origin - zero;
    for (int e = 0; e < r->trace_count; e++) {
      const kl_trace_event *ev = &r->trace[e];
      const int phase = ev->phase >= 0 && ev->phase < r->phase_count;
      const char *what = phase ? r->rung->phases[ev->phase] : r->rung->name;
      if (ev->item >= 0) snprintf(name, sizeof name, "%s %d", what, ev->item);
      else snprintf(name, sizeof name, "%s", what);
      fprintf(f, "{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"name\": ",
              pid, ev->track + 1);
      json_string(f, name);
      fputs(", \"cat\": ", f);
      json_string(f, phase ? what : "run");
      fprintf(f, ", \"ts\": %.4f, \"dur\": %.4f},\n", (at + ev->start) * 1e6,
              (ev->end - ev->start) * 1e6);
    }
  }
  /* JSON allows no comma after the last element: a closing metadata
   * event names the file's maker. */
  fprintf(f, "{\"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"name\": "
          "\"process_name\", \"args\": {\"name\": \"kladder %s\"}}\n]}\n",
          KL_VERSION);
}

/* ---- results files ----------------------------------------------------- */

struct kl_output {
  kl_format format;
  FILE *f;
  char *path;
  char *temp; /* written here and renamed to path; NULL: written directly */
};

static void output_free(kl_output *o) {
  if (!o) return;
  if (o->f) fclose(o->f);
  if (o->temp) remove(o->temp);
  free(o->temp);
  free(o->path);
  free(o);
}

static kl_status output_open(const char *path, kl_format format,
                             kl_output **out) {
  *out = NULL;
  if (format != KL_FORMAT_CSV && format != KL_FORMAT_JSON &&
      format != KL_FORMAT_TRACE)
    return kl__usage(KL_USAGE, "%d is not a kl_format value", (int)format);
  if (!path || !*path)
    return kl__usage(KL_USAGE, "the results file name is empty");
  kl_output *o = calloc(1, sizeof *o);
  if (!o) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  o->format = format;
  char why[160] = "";
  kl_status st = kl__output_file(path, &o->f, &o->path, &o->temp, why,
                                 sizeof why);
  if (st == KL_OK) {
    fputs(format == KL_FORMAT_CSV    ? csv_header
          : format == KL_FORMAT_JSON ? json_head
                                     : trace_head,
          o->f);
    if (fflush(o->f) != 0 || ferror(o->f)) {
      snprintf(why, sizeof why, "%s", strerror(errno));
      st = KL_USAGE;
    }
  }
  if (st != KL_OK) {
    output_free(o);
    return kl__usage(st, "cannot write results to " KL_Q ": %s",
                     KL_CLIP(path), why);
  }
  *out = o;
  return KL_OK;
}

kl_status kl_output_open(const char *path, kl_format format, kl_output **out) {
  return kl__done(output_open(path, format, out));
}

static kl_status output_write(kl_output *o, const kl_report *rep) {
  if (!o) return kl__usage(KL_USAGE, "no results file to write");
  if (!rep) {
    output_free(o);
    return kl__usage(KL_USAGE, "no report to write");
  }
  if (o->format == KL_FORMAT_CSV)
    for (size_t i = 0; i < rep->count; i++) csv_row(o->f, rep, &rep->results[i]);
  else if (o->format == KL_FORMAT_JSON)
    json_body(o->f, rep);
  else
    trace_body(o->f, rep);
  /* errno of the step that failed, whichever it was. */
  int err = 0;
  if (fflush(o->f) != 0 || ferror(o->f)) err = errno ? errno : EIO;
  if (fclose(o->f) != 0 && !err) err = errno;
  o->f = NULL;
  if (!err && o->temp && rename(o->temp, o->path) != 0) err = errno;
  const int bad = err != 0;
  if (!bad && o->temp) {
    free(o->temp);
    o->temp = NULL;
  }
  kl_status st = bad ? kl__usage(KL_IO, "writing results to " KL_Q " failed: "
                                 "%s", KL_CLIP(o->path), strerror(err))
                     : KL_OK;
  output_free(o);
  return st;
}

kl_status kl_output_write(kl_output *o, const kl_report *rep) {
  return kl__done(output_write(o, rep));
}

void kl_output_discard(kl_output *o) { output_free(o); }

static kl_status write_file(const kl_report *rep, const char *path,
                            kl_format format) {
  kl_output *o;
  kl_status st = output_open(path, format, &o);
  return st == KL_OK ? output_write(o, rep) : st;
}

kl_status kl_report_write_csv(const kl_report *rep, const char *path) {
  return kl__done(write_file(rep, path, KL_FORMAT_CSV));
}

kl_status kl_report_write_json(const kl_report *rep, const char *path) {
  return kl__done(write_file(rep, path, KL_FORMAT_JSON));
}
