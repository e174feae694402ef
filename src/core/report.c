/* The result table on stdout, and the same fields as CSV and JSON. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

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
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static kl_status write_csv(const kl_report *rep, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return kl__usage(KL_IO, "cannot open '%s' for writing", path);
  const kl_machine *m = &rep->machine;
  fprintf(f, "workload,rung,backend,flags,op,inputs,type,n,shape,median_s,min_s,"
          "max_s,bytes,flops,items,unit,rate,ceiling,percent_ceiling,speedup,"
          "check,abs_error,error_over_tolerance,bad_elements,status,error,cpu,"
          "cpu_threads,omp_threads,gpu,driver,seed,reps,warmup,timed_runs,params,"
          "phases,counts\n");
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    char marks[64];
    rung_marks(r, marks, sizeof marks);
    /* Flags may hold a comma ("ceiling,vendor"): quoted. */
    fprintf(f, "%s,%s,%s,", r->workload->name, r->rung->name,
            r->rung->backend->name);
    csv_string(f, marks);
    char size[96];
    kl_result_size(r, size, sizeof size);
    fprintf(f, ",%s,%s,%s,%lld,%s,%.9g,%.9g,%.9g,%.17g,%.17g,%.17g,"
            "%s,%.6g,%.6g,%.4g,%.4g,%s,%.6g,%.4g,%lld,",
            kl_result_op(r), kl_result_inputs(r), kl_type_name(r->type),
            (long long)r->n, size, r->t_median, r->t_min, r->t_max, r->cost.bytes,
            r->cost.flops, r->cost.items, unit_text(r), r->merit, r->ceiling,
            r->percent, r->speedup, kl__check_text(r), r->verdict.abs_error,
            r->verdict.max_error, (long long)r->verdict.bad_count);
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
    char text[512];
    kl_result_params(r, text, sizeof text);
    csv_string(f, text);
    fputc(',', f);
    pairs_text(r, 1, text, sizeof text);
    csv_string(f, text);
    fputc(',', f);
    pairs_text(r, 0, text, sizeof text);
    csv_string(f, text);
    fputc('\n', f);
  }
  int bad = ferror(f);
  if (fclose(f) != 0 || bad)
    return kl__usage(KL_IO, "writing '%s' failed", path);
  return KL_OK;
}

kl_status kl_report_write_csv(const kl_report *rep, const char *path) {
  return kl__done(write_csv(rep, path));
}

/* ---- JSON -------------------------------------------------------------- */

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* JSON has no NaN or infinity. */
static void json_number(FILE *f, double x) {
  if (isfinite(x)) fprintf(f, "%.17g", x);
  else fprintf(f, "null");
}

static kl_status write_json(const kl_report *rep, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return kl__usage(KL_IO, "cannot open '%s' for writing", path);
  const kl_machine *m = &rep->machine;
  fprintf(f, "{\n  \"kladder\": \"%s\",\n  \"machine\": {\"cpu\": ", KL_VERSION);
  json_string(f, m->cpu);
  fprintf(f, ", \"cpu_threads\": %d, \"omp_threads\": %d, \"gpu\": ",
          m->cpu_threads, m->omp_threads);
  json_string(f, m->gpu);
  fprintf(f, ", \"driver\": ");
  json_string(f, m->driver);
  fprintf(f, ", \"host\": ");
  json_string(f, m->host);
  fprintf(f, "},\n  \"options\": {\"seed\": %llu, \"reps\": %d, \"warmup\": "
          "%d},\n  \"notes\": ",
          (unsigned long long)rep->options.seed, rep->options.reps,
          rep->options.warmup);
  json_string(f, rep->notes);
  fprintf(f, ",\n  \"results\": [");
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    char marks[64];
    rung_marks(r, marks, sizeof marks);
    fprintf(f, "%s\n    {\"workload\": ", i ? "," : "");
    json_string(f, r->workload->name);
    fprintf(f, ", \"rung\": ");
    json_string(f, r->rung->name);
    fprintf(f, ", \"backend\": ");
    json_string(f, r->rung->backend->name);
    fprintf(f, ", \"flags\": ");
    json_string(f, marks);
    fprintf(f, ", \"op\": ");
    json_string(f, kl_result_op(r));
    fprintf(f, ", \"inputs\": ");
    json_string(f, kl_result_inputs(r));
    char size[96];
    kl_result_size(r, size, sizeof size);
    fprintf(f, ", \"type\": \"%s\", \"n\": %lld, \"shape\": \"%s\", "
            "\"timed_runs\": %d, \"median_s\": ",
            kl_type_name(r->type), (long long)r->n, size, r->reps);
    json_number(f, r->t_median);
    fprintf(f, ", \"min_s\": ");
    json_number(f, r->t_min);
    fprintf(f, ", \"max_s\": ");
    json_number(f, r->t_max);
    fprintf(f, ", \"bytes\": ");
    json_number(f, r->cost.bytes);
    fprintf(f, ", \"flops\": ");
    json_number(f, r->cost.flops);
    fprintf(f, ", \"items\": ");
    json_number(f, r->cost.items);
    fprintf(f, ", \"unit\": \"%s\", \"rate\": ", unit_text(r));
    json_number(f, r->merit);
    fprintf(f, ", \"ceiling\": ");
    json_number(f, r->ceiling);
    fprintf(f, ", \"percent_ceiling\": ");
    json_number(f, r->percent);
    fprintf(f, ", \"speedup\": ");
    json_number(f, r->speedup);
    fprintf(f, ", \"check\": \"%s\", \"abs_error\": ", kl__check_text(r));
    json_number(f, r->verdict.abs_error);
    fprintf(f, ", \"error_over_tolerance\": ");
    json_number(f, r->verdict.max_error);
    fprintf(f, ", \"bad_elements\": %lld, \"status\": ",
            (long long)r->verdict.bad_count);
    json_string(f, kl_status_name(r->status));
    fprintf(f, ", \"error\": ");
    json_string(f, r->error);
    char text[512];
    kl_result_params(r, text, sizeof text);
    fprintf(f, ", \"params\": ");
    json_string(f, text);
    fprintf(f, ", \"phases\": {");
    for (int k = 0; r->rung->phases && k < r->phase_count; k++) {
      fprintf(f, "%s", k ? ", " : "");
      json_string(f, r->rung->phases[k]);
      fprintf(f, ": ");
      json_number(f, r->phase_median[k]);
    }
    fprintf(f, "}, \"counts\": {");
    for (int k = 0; r->workload->counts && k < KL_MAX_COUNTS &&
                    r->workload->counts[k]; k++) {
      fprintf(f, "%s", k ? ", " : "");
      json_string(f, r->workload->counts[k]);
      fprintf(f, ": ");
      json_number(f, r->counts[k]);
    }
    fprintf(f, "}}");
  }
  fprintf(f, "\n  ]\n}\n");
  int bad = ferror(f);
  if (fclose(f) != 0 || bad)
    return kl__usage(KL_IO, "writing '%s' failed", path);
  return KL_OK;
}

kl_status kl_report_write_json(const kl_report *rep, const char *path) {
  return kl__done(write_json(rep, path));
}
