/* `kladder report` and `kladder run --html` (report-html.h): the results
 * files read with json-read.c, then one HTML page written from them alone,
 * top to bottom:
 *   header     per file: when, the command line, machine, devices, build;
 *   ladders    per workload, per problem: a bar per rung in ladder order
 *              (rate, the spread of its repetitions, its ceiling), a table
 *              (time, rate, share of the ceiling, speedup over the rung
 *              before and the first, verdict, description), and its peers
 *              on other backends side by side;
 *   ceilings   the rungs measured only as ceilings;
 *   roofline   per device: the measured copy bandwidth and vendor compute
 *              ceilings, each rung a point at its intensity;
 *   energy     per device and unit, where the results have energy (run
 *              --energy): each rung a point at its power and rate;
 *   growth     where a rung ran at several sizes: time and rate against
 *              size, log axes, the vendor rung's curve dashed, the
 *              shortest time of the device as the floor;
 *   history    (--db) beside each ladder, each rung's runs in the results
 *              history: median time against the runs by date, a line per
 *              machine, the commits named (history.c reads them);
 *   timelines  each rung whose run traced more than one event: a lane per
 *              track, coloured by phase, and the Chrome trace to save;
 *   self-check a script that checks the drawn page (tests/cli/report.sh reads
 *              its verdict from a headless browser).
 * Every number shown is a number of the files: each carries its JSON text
 * (data-v), the result it belongs to (data-r) and its key (data-k), or
 * data-c where it is computed from them (a ratio), so a test can read both
 * (tests/cli/check_report.py). Numbers are shown with at least three
 * significant digits, as the table of `kladder run` shows them. */
#define _POSIX_C_SOURCE 200809L /* open_memstream, fileno */
#include "results.h"
#include "../core/internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/tool.h"
#include "kladder-run.h"
#include "lesson.h"

#define MAX_FILES 16
#define MAX_TIMELINES 40
/* Timeline marks on a page at most (about 150 bytes each): with the saved
 * trace's bound, a page stays under 2 MB whatever ran. */
#define MAX_MARKS 6000

/* ---- the results, as read ------------------------------------------------ */

typedef struct row {
  int file, index; /* the file, and the result's place in its "results" */
  const kl_results *doc; /* the file */
  kl__row f;             /* its fields, as the file gives them */
  const char *workload, *rung, *backend, *flags, *type, *shape, *params,
      *op, *inputs, *device, *unit, *check, *status, *summary, *wsummary;
  double step, n, median, min, max, rate, ceiling, bytes, flops;
  int has_rate, has_median, has_ceiling, ceiling_only;
  /* --energy: mean watts of its window and pJ per unit of work (pJ/B,
   * pJ/flop), where it has them. */
  double energy_w, energy_pj;
  int has_energy;
  const char *energy_per;
  /* The rung the library's entry point runs for this problem on this
   * backend (kl_dispatch), "" where the file does not say. */
  const char *dispatched;
  int group; /* its problem's index in the groups */
  int series_sizes; /* the sizes its series ran at (count_series) */
} row;

typedef struct report {
  int files;
  const char *paths[MAX_FILES];
  kl_results *docs[MAX_FILES];
  row *rows;
  size_t count;
  FILE *f;
  int charts; /* SVGs written */
  int marks; /* timeline marks drawn, against MAX_MARKS */
  kl__report_extra extra; /* a section after the header, or NULL */
  const void *extra_ctx;
  kl_history *db; /* --db: the results history, or NULL */
  int db_failed; /* a read of it failed: the page says so once */
} report;

static int has_flag(const row *r, const char *flag) {
  return kl__flagged(r->flags, flag);
}

static int ran(const row *r) {
  return strcmp(r->status, "success") == 0 && r->has_median && r->median > 0;
}

/* A text, or `none` where the file gives none. */
static const char *or_text(const char *text, const char *none) {
  return text[0] ? text : none;
}

/* 0 for a number the file does not give; *has (where not NULL) says
 * whether it does. */
static double given(double v, int *has) {
  if (has) *has = !isnan(v);
  return isnan(v) ? 0 : v;
}

static void read_row(row *r, const kl_results *doc, int file, int index) {
  memset(r, 0, sizeof *r);
  r->file = file;
  r->index = index;
  r->doc = doc;
  kl__results_row(doc, (size_t)index, &r->f);
  const kl__row *v = &r->f;
  r->workload = v->workload;
  r->rung = v->rung;
  r->backend = v->backend;
  r->flags = v->flags;
  r->type = v->type;
  r->shape = v->shape;
  r->params = v->params;
  r->op = v->op;
  r->inputs = v->inputs;
  r->device = v->device_name;
  r->unit = v->unit;
  r->check = v->check;
  r->status = v->status;
  r->summary = v->summary;
  r->wsummary = v->workload_summary;
  r->step = given(v->step, NULL);
  r->n = given(v->n, NULL);
  r->median = given(v->median_s, &r->has_median);
  r->min = isnan(v->min_s) ? r->median : v->min_s;
  r->max = isnan(v->max_s) ? r->median : v->max_s;
  r->rate = given(v->rate, &r->has_rate);
  r->ceiling = given(v->ceiling, &r->has_ceiling);
  r->bytes = given(v->bytes, NULL);
  r->flops = given(v->flops, NULL);
  r->ceiling_only = v->ceiling_only;
  int watts = 0, pj = 0;
  r->energy_w = given(v->energy_w, &watts);
  r->energy_pj = given(v->energy_pj, &pj);
  r->has_energy = watts && pj && r->energy_w > 0 && r->energy_pj > 0;
  r->energy_per = v->energy_per;
  r->dispatched = v->dispatched;
  r->group = -1;
}

/* A results file: read and checked by the library (kl_results_read), its
 * results taken. */
static int load(report *rep, const char *path, char *err, size_t errlen) {
  kl_results *doc = NULL;
  if (kl_results_read(path, &doc) != KL_OK) {
    snprintf(err, errlen, "%s", kl_last_error());
    return 2;
  }
  const size_t results = kl_results_count(doc);
  if (kl_results_warning(doc)[0])
    fprintf(stderr, "kladder: warning: %s: showing the fields it knows\n",
            kl_results_warning(doc));
  row *grown = realloc(rep->rows, (rep->count + results) * sizeof *grown);
  if (!grown) {
    snprintf(err, errlen, "%s: out of memory", path);
    kl_results_free(doc);
    return 2;
  }
  rep->rows = grown;
  for (size_t i = 0; i < results; i++)
    read_row(&rep->rows[rep->count++], doc, rep->files, (int)i);
  rep->paths[rep->files] = path;
  rep->docs[rep->files++] = doc;
  return 0;
}

/* ---- text ---------------------------------------------------------------- */


/* At least three significant digits, as `kladder run` prints rates. */
static void sig3(double v, char *dst, size_t size) {
  /* Twelve digits first: 1e-4 s in microseconds is 99.99999999999999,
   * which reads 100. */
  char exact[40];
  snprintf(exact, sizeof exact, "%.12g", v);
  v = strtod(exact, NULL);
  const double a = fabs(v);
  if (a >= 1e15) snprintf(dst, size, "%.3e", v);
  else if (a >= 100) snprintf(dst, size, "%.0f", v);
  else if (a >= 10) snprintf(dst, size, "%.1f", v);
  else if (a >= 1) snprintf(dst, size, "%.2f", v);
  else if (a > 0) snprintf(dst, size, "%#.3g", v);
  else snprintf(dst, size, "0");
}

/* A time in the unit that keeps it between 1 and 1000. */
static void time_text(double s, char *dst, size_t size) {
  static const char *units[] = {"ns", "\xc2\xb5s", "ms", "s"};
  static const double scale[] = {1e9, 1e6, 1e3, 1};
  int u = 3;
  while (u > 0 && fabs(s) * scale[u] < 1) u--;
  char num[32];
  sig3(s * scale[u], num, sizeof num);
  /* (The result is looked at: GCC then trusts the truncation is meant.) */
  if (snprintf(dst, size, "%s %s", num, units[u]) < 0) dst[0] = '\0';
}

/* The kinds of shown numbers (data-f), which tests/cli/check_report.py
 * formats again. */
enum { F_NUM, F_TIME, F_PCT, F_TIMES };

static void number_text(double v, int kind, const char *unit, char *dst,
                  size_t size) {
  char num[48];
  if (kind == F_TIME) {
    time_text(v, dst, size);
    return;
  }
  sig3(v, num, sizeof num);
  int n;
  if (kind == F_PCT) n = snprintf(dst, size, "%s%%", num);
  else if (kind == F_TIMES) n = snprintf(dst, size, "%s\xc3\x97", num);
  else n = snprintf(dst, size, "%s%s%s", num, unit && *unit ? " " : "",
                    unit ? unit : "");
  if (n < 0) dst[0] = '\0';
}

static const char *kind_name(int kind) {
  return kind == F_TIME ? "time" : kind == F_PCT ? "pct"
                                 : kind == F_TIMES ? "times" : "num";
}

/* A table cell with a number of a result, field `id` of its file: the
 * number as the file holds it kept beside, with the field's key. */
static void cell_field(FILE *f, const row *r, kl__field_id id, int kind,
                       const char *unit) {
  double v = 0;
  kl_field_info info = {.size = sizeof info};
  if (kl_results_number(r->doc, (size_t)r->index, id, &v) != KL_OK ||
      kl_field_describe(id, &info) != KL_OK) {
    fputs("<td class=\"n\">-</td>", f);
    return;
  }
  char text[64];
  number_text(v, kind, unit, text, sizeof text);
  fprintf(f, "<td class=\"n\" data-r=\"%d.%d\" data-k=\"%s\" data-f=\"%s\" "
          "data-u=\"", r->file, r->index, info.name, kind_name(kind));
  kl__html_escape(f, unit ? unit : "");
  fprintf(f, "\" data-v=\"%.17g\">", v);
  kl__html_text(f, "", text, "</td>");
}

/* A number computed from the files' (a ratio): marked data-c. */
static void cell_computed(FILE *f, int present, double v, int kind) {
  if (!present || !isfinite(v)) {
    fputs("<td class=\"n\">-</td>", f);
    return;
  }
  char text[64];
  number_text(v, kind, NULL, text, sizeof text);
  fprintf(f, "<td class=\"n\" data-c=\"%.17g\" data-f=\"%s\">", v,
          kind_name(kind));
  kl__html_text(f, "", text, "</td>");
}

/* ---- problems --------------------------------------------------------------
 * A problem: one file's workload at one type, shape, operation, inputs
 * and parameters; its rungs, on every backend, form its ladder. */

static int same_problem(const row *a, const row *b) {
  return a->file == b->file && !strcmp(a->workload, b->workload) &&
         !strcmp(a->type, b->type) && !strcmp(a->shape, b->shape) &&
         !strcmp(a->params, b->params) && !strcmp(a->op, b->op) &&
         !strcmp(a->inputs, b->inputs);
}

/* Groups numbered in the order their first row comes; the ceiling-only
 * rows stay out of them (-1). */
static int make_groups(report *rep) {
  int groups = 0;
  for (size_t i = 0; i < rep->count; i++) {
    row *r = &rep->rows[i];
    if (r->ceiling_only) continue;
    for (size_t k = 0; k < i && r->group < 0; k++)
      if (rep->rows[k].group >= 0 && same_problem(&rep->rows[k], r))
        r->group = rep->rows[k].group;
    if (r->group < 0) r->group = groups++;
  }
  return groups;
}

/* The rows of group g in ladder order (step, then file order). */
static size_t group_rows(const report *rep, int g, const row **out) {
  size_t count = 0;
  for (size_t i = 0; i < rep->count; i++)
    if (rep->rows[i].group == g) out[count++] = &rep->rows[i];
  for (size_t i = 1; i < count; i++) /* insertion sort: stable */
    for (size_t k = i; k > 0 && out[k - 1]->step > out[k]->step; k--) {
      const row *t = out[k];
      out[k] = out[k - 1];
      out[k - 1] = t;
    }
  return count;
}

static void problem_heading(FILE *f, const report *rep, const row *r) {
  kl__html_text(f, "<h3>", r->workload, ": ");
  kl__html_escape(f, r->type);
  fputs(r->shape[0] && strchr(r->shape, 'x') ? ", " : ", n = ", f);
  kl__html_escape(f, r->shape);
  /* The parameters name the operation and the inputs where there are
   * any; else they are named alone. */
  if (r->params[0]) {
    kl__html_text(f, ", ", r->params, "");
  } else {
    if (r->op[0]) kl__html_text(f, ", op ", r->op, "");
    if (r->inputs[0]) kl__html_text(f, ", inputs ", r->inputs, "");
  }
  if (rep->files > 1) fprintf(f, " <span class=\"file\">(file %d)</span>", r->file + 1);
  fputs("</h3>\n", f);
}

/* ---- axes ---------------------------------------------------------------- */

typedef struct axis {
  double lo, hi; /* the values at the ends */
  int log;
  double from, to; /* pixels */
} axis;

static double at(const axis *a, double v) {
  double t;
  if (a->log) {
    if (v <= 0) v = a->lo;
    t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
  } else {
    t = (v - a->lo) / (a->hi - a->lo);
  }
  if (t < 0) t = 0;
  if (t > 1) t = 1;
  return a->from + t * (a->to - a->from);
}

/* An axis over [lo, hi]: log where they span more than `log_above`
 * (decades at the ends), else linear from 0 to a round top. */
static axis make_axis(double lo, double hi, double log_above, double from,
                      double to) {
  axis a = {0, 1, 0, from, to};
  if (!(hi > 0)) return a;
  if (lo > 0 && hi / lo > log_above) {
    a.log = 1;
    a.lo = pow(10, floor(log10(lo)));
    a.hi = pow(10, ceil(log10(hi)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    return a;
  }
  const double step = pow(10, floor(log10(hi)));
  a.hi = ceil(hi / step * 1.05) * step;
  return a;
}

/* Tick labels: the decades of a log axis, five steps of a linear one. */
static int ticks(const axis *a, double *out, int max) {
  int count = 0;
  if (a->log) {
    for (double v = a->lo; v <= a->hi * 1.0001 && count < max; v *= 10)
      out[count++] = v;
  } else {
    for (int i = 0; i <= 4 && count < max; i++)
      out[count++] = a->lo + (a->hi - a->lo) * i / 4;
  }
  return count;
}

/* A tick's label: short, with an SI suffix from a thousand up. */
static void tick_text(double v, char *dst, size_t size) {
  static const char suffix[] = "KMGTPE";
  const double a = fabs(v);
  if (v == 0) {
    snprintf(dst, size, "0");
  } else if (a >= 1e3 && a < 1e21) {
    int k = 0;
    while (k < 5 && a >= 1e3 * pow(1e3, k + 1)) k++;
    char num[32];
    sig3(v / (1e3 * pow(1e3, k)), num, sizeof num);
    /* 1.00K reads as 1K on an axis. */
    char *dot = strchr(num, '.');
    if (dot) {
      char *end = num + strlen(num) - 1;
      while (end > dot && *end == '0') *end-- = '\0';
      if (end == dot) *end = '\0';
    }
    if (snprintf(dst, size, "%s%c", num, suffix[k]) < 0) dst[0] = '\0';
  } else if (a < 1e-2) {
    snprintf(dst, size, "%.0e", v);
  } else {
    sig3(v, dst, size);
  }
}

static void svg_open(report *rep, int w, int h, const char *label) {
  rep->charts++;
  fprintf(rep->f, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
          "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
          "aria-label=\"", w, h, w, h);
  kl__html_text(rep->f, "", label, "\">\n");
}

static void text_at(FILE *f, double x, double y, const char *anchor,
                    const char *cls, const char *s) {
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s%s>", x, y,
          anchor, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
  kl__html_text(f, "", s, "</text>\n");
}

/* The grid of a chart with two axes, its ticks labelled: x below, y to
 * the left (times where y_times); beyond 8 x ticks, every other one. */
static void grid(FILE *f, const axis *ax, const axis *ay, int y_times) {
  double tv[16];
  char tt[32];
  int nt = ticks(ax, tv, 16);
  for (int t = 0; t < nt; t++) {
    const double x = at(ax, tv[t]);
    fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
            "y2=\"%.1f\"/>\n", x, ay->to, x, ay->from);
    if (nt <= 8 || t % 2 == 0) {
      tick_text(tv[t], tt, sizeof tt);
      text_at(f, x, ay->from + 16, "middle", "axis", tt);
    }
  }
  nt = ticks(ay, tv, 16);
  for (int t = 0; t < nt; t++) {
    const double y = at(ay, tv[t]);
    fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
            "y2=\"%.1f\"/>\n", ax->from, y, ax->to, y);
    if (y_times) time_text(tv[t], tt, sizeof tt);
    else tick_text(tv[t], tt, sizeof tt);
    text_at(f, ax->from - 6, y + 4, "end", "axis", tt);
  }
}

/* A roofline's frame (log axes both ways, x from xlo to xhi, y from half
 * ylo to twice yhi), opened in a <figure> of `cls` with its grid and the
 * axes' labels: the compute roofline's and the energy roofline's. */
enum { ROOF_W = 560, ROOF_H = 380, ROOF_X0 = 70, ROOF_X1 = 530, ROOF_Y0 = 330,
       ROOF_Y1 = 30 };
static void log_chart_open(report *rep, const char *cls, const char *title,
                           double xlo, double xhi, double ylo, double yhi,
                           const char *xlabel, const char *ylabel, axis *ax,
                           axis *ay) {
  FILE *f = rep->f;
  *ax = make_axis(xlo, xhi, 1, ROOF_X0, ROOF_X1);
  *ay = make_axis(ylo / 2, yhi * 2, 1, ROOF_Y0, ROOF_Y1);
  ax->log = ay->log = 1;
  fprintf(f, "<figure class=\"%s\">", cls);
  svg_open(rep, ROOF_W, ROOF_H, title);
  grid(f, ax, ay, 0);
  text_at(f, (ROOF_X0 + ROOF_X1) / 2.0, ROOF_H - 12, "middle", "axis", xlabel);
  text_at(f, ROOF_X0, ROOF_Y1 - 10, "start", "axis", ylabel);
}

/* A name cut to at most `max` characters, with an ellipsis. */
static void clipped(const char *s, size_t max, char *dst, size_t size) {
  if (strlen(s) <= max) {
    snprintf(dst, size, "%s", s);
    return;
  }
  snprintf(dst, size, "%.*s\xe2\x80\xa6", (int)(max - 1), s);
}

/* ---- the ladder ---------------------------------------------------------- */

#define LADDER_W 760
#define LABEL_W 236
#define BAR_X0 244
#define BAR_X1 600
#define ROW_H 20

static void ladder_chart(report *rep, const row **rows, size_t count) {
  FILE *f = rep->f;
  double lo = 0, hi = 0;
  for (size_t i = 0; i < count; i++) {
    const row *r = rows[i];
    if (!ran(r) || !r->has_rate) continue;
    const double top = r->min > 0 ? r->rate * r->median / r->min : r->rate;
    const double bottom = r->max > 0 ? r->rate * r->median / r->max : r->rate;
    if (top > hi) hi = top;
    if (r->has_ceiling && r->ceiling > hi) hi = r->ceiling;
    if (bottom > 0 && (lo == 0 || bottom < lo)) lo = bottom;
  }
  const int h = 34 + ROW_H * (int)count + 26;
  const axis a = make_axis(lo, hi, 50, BAR_X0, BAR_X1);
  svg_open(rep, LADDER_W, h, "the ladder: each rung's rate");
  const char *unit = count ? rows[0]->unit : "";
  char label[128];
  snprintf(label, sizeof label, "rate, %s (%s axis); | the ceiling; "
           "whisker: fastest to slowest repetition", unit,
           a.log ? "log" : "linear");
  text_at(f, BAR_X0, 14, "start", "axis", label);
  double tv[8];
  const int nt = ticks(&a, tv, 8);
  const int y_axis = 34 + ROW_H * (int)count + 4;
  for (int t = 0; t < nt; t++) {
    const double x = at(&a, tv[t]);
    fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"26\" x2=\"%.1f\" "
            "y2=\"%d\"/>\n", x, x, y_axis);
    char tt[32];
    tick_text(tv[t], tt, sizeof tt);
    text_at(f, x, y_axis + 14, "middle", "axis", tt);
  }
  for (size_t i = 0; i < count; i++) {
    const row *r = rows[i];
    const double y = 30 + ROW_H * (double)i;
    const double mid = y + ROW_H / 2.0;
    char name[80];
    clipped(r->rung, 24, name, sizeof name);
    char left[128];
    snprintf(left, sizeof left, "%s %s", name, r->backend);
    clipped(left, 34, name, sizeof name);
    text_at(f, LABEL_W, mid + 4, "end", "name", name);
    const int failed = strcmp(r->check, "FAIL") == 0;
    const int wrong = has_flag(r, "known-wrong");
    const int vendor = has_flag(r, "vendor");
    if (!ran(r) || !r->has_rate) {
      text_at(f, BAR_X0 + 4, mid + 4, "start", "none",
              r->status[0] && strcmp(r->status, "success") ? r->status
                                                          : "not timed");
      continue;
    }
    const char *cls = failed ? "bar fail" : wrong ? "bar wrong"
                                  : vendor ? "bar vendor" : "bar";
    const double x = at(&a, r->rate);
    /* The bar opens its lesson, below the table. */
    kl__html_text(f, "<a class=\"lesson-link\" href=\"#lesson-", r->workload,
                  "-");
    kl__html_text(f, "", r->rung, "\">");
    fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%d\"><title>", cls, BAR_X0, y + 3,
            x - BAR_X0 > 1 ? x - BAR_X0 : 1, ROW_H - 6);
    kl__html_text(f, "", r->rung, ": ");
    kl__html_text(f, "", r->summary,
                  " (click: its lesson)</title></rect></a>\n");
    if (r->min > 0 && r->max > 0) {
      const double x0 = at(&a, r->rate * r->median / r->max);
      const double x1 = at(&a, r->rate * r->median / r->min);
      fprintf(f, "<line class=\"spread\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
              "y2=\"%.1f\"/>\n", x0, mid, x1, mid);
    }
    if (r->has_ceiling && r->ceiling > 0) {
      const double xc = at(&a, r->ceiling);
      fprintf(f, "<line class=\"ceil\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
              "y2=\"%.1f\"/>\n", xc, y + 1, xc, y + ROW_H - 1);
    }
    char value[64];
    number_text(r->rate, F_NUM, NULL, value, sizeof value);
    if (failed) snprintf(value + strlen(value), sizeof value - strlen(value), " FAIL");
    else if (wrong) snprintf(value + strlen(value), sizeof value - strlen(value), " known wrong");
    else if (vendor) snprintf(value + strlen(value), sizeof value - strlen(value), " vendor");
    text_at(f, BAR_X1 + 8, mid + 4, "start", failed ? "value fail" : "value",
            value);
  }
  fputs("</svg>\n", f);
}

static void ladder_table(report *rep, const row **rows, size_t count) {
  FILE *f = rep->f;
  /* Energy beside the rate, where a rung of the ladder has it. */
  int energy = 0;
  for (size_t i = 0; i < count; i++) energy |= rows[i]->has_energy;
  fputs("<table class=\"rungs\"><thead><tr><th>step</th><th>rung</th>"
        "<th>backend</th><th>device</th><th>median</th><th>rate</th>", f);
  if (energy) fputs("<th>energy</th><th>power</th>", f);
  fputs("<th>% ceiling</th><th>vs before</th><th>vs first</th>"
        "<th>check</th><th>what it does</th></tr></thead><tbody>\n", f);
  const row *before = NULL;
  for (size_t i = 0; i < count; i++) {
    const row *r = rows[i];
    const int failed = strcmp(r->check, "FAIL") == 0;
    const int wrong = has_flag(r, "known-wrong");
    fprintf(f, "<tr class=\"%s\">", failed ? "fail" : wrong ? "wrong" : "");
    fprintf(f, "<td>%.0f</td><td>", r->step);
    kl__html_escape(f, r->rung);
    if (has_flag(r, "vendor")) fputs(" <span class=\"tag\">vendor</span>", f);
    if (wrong) fputs(" <span class=\"tag wrong\">known wrong</span>", f);
    if (has_flag(r, "ceiling")) fputs(" <span class=\"tag\">ceiling</span>", f);
    kl__html_text(f, "</td><td>", r->backend, "</td><td>");
    kl__html_text(f, "", r->device, "</td>");
    cell_field(f, r, KL__F_median_s, F_TIME, NULL);
    cell_field(f, r, KL__F_rate, F_NUM, r->unit);
    if (energy) {
      cell_field(f, r, KL__F_energy_pj, F_NUM, r->energy_per);
      cell_field(f, r, KL__F_energy_w, F_NUM, "W");
    }
    cell_field(f, r, KL__F_percent_ceiling, F_PCT, NULL);
    cell_computed(f, before && ran(r) && ran(before),
                  before ? before->median / r->median : 0, F_TIMES);
    cell_field(f, r, KL__F_speedup, F_TIMES, NULL);
    fprintf(f, "<td class=\"check %s\">", failed ? "fail" : "");
    kl__html_text(f, "", r->check[0] ? r->check : r->status,
                  "</td><td class=\"what\">");
    kl__html_escape(f, r->summary);
    const char *error = r->f.error;
    if (error[0])
      kl__html_text(f, "<br><span class=\"error\">", error, "</span>");
    fputs("</td></tr>\n", f);
    if (ran(r)) before = r;
  }
  fputs("</tbody></table>\n", f);
}

/* A table head's cells, one a name, escaped. */
static void head_cells(FILE *f, const char *const *names, int count) {
  for (int i = 0; i < count; i++) kl__html_text(f, "<th>", names[i], "</th>");
}

/* A result over several ranks: its file gives the ranks (more than one),
 * the scaling, rank 0's time alone and the efficiency. */
static int scaled(const row *r) {
  return !isnan(r->f.efficiency) && ran(r) && r->f.ranks > 1;
}

/* Where the problem ran over several ranks (a distributed workload): each
 * rung's efficiency against rank 0 alone and its phases as shares of its
 * run, the table of a scaling study. Phases that run at once (an
 * overlapped rung's) add up to more than the run. */
static void scaling_table(report *rep, const row **rows, size_t count) {
  FILE *f = rep->f;
  enum { MAX_PHASE_COLUMNS = 8 };
  const char *names[MAX_PHASE_COLUMNS];
  int phases = 0, any = 0;
  for (size_t i = 0; i < count; i++) {
    if (!scaled(rows[i])) continue;
    any = 1;
    const json_value *ph = rows[i]->f.phases;
    for (size_t k = 0; ph && ph->kind == JSON_OBJECT && k < ph->count; k++) {
      int seen = 0;
      for (int q = 0; q < phases && !seen; q++)
        seen = !strcmp(names[q], ph->keys[k]);
      if (!seen && phases < MAX_PHASE_COLUMNS) names[phases++] = ph->keys[k];
    }
  }
  if (!any) return;
  fputs("<table class=\"rungs scaling\"><caption>over several ranks: each "
        "rung's time against rank 0 alone on its own part (weak) or on the "
        "whole problem (strong), and its phases as shares of its run "
        "(phases that overlap add up to more)</caption><thead><tr>"
        "<th>rung</th><th>ranks</th><th>grid</th><th>scaling</th>"
        "<th>median</th>"
        "<th>rank 0 alone</th><th>efficiency</th>", f);
  head_cells(f, names, phases);
  fputs("</tr></thead><tbody>\n", f);
  for (size_t i = 0; i < count; i++) {
    const row *r = rows[i];
    if (!scaled(r)) continue;
    kl__html_text(f, "<tr><td>", r->rung, "</td>");
    const char *grid = r->f.rank_grid;
    fprintf(f, "<td class=\"n\">%.0f</td><td>", r->f.ranks);
    kl__html_text(f, "", grid[0] ? grid : "-", "</td><td>");
    kl__html_text(f, "", r->f.scaling, "</td>");
    cell_field(f, r, KL__F_median_s, F_TIME, NULL);
    cell_field(f, r, KL__F_one_rank_seconds, F_TIME, NULL);
    cell_field(f, r, KL__F_efficiency, F_NUM, NULL);
    const json_value *ph = r->f.phases;
    for (int q = 0; q < phases; q++) {
      const json_value *v = kl__doc_member(ph, names[q]);
      const int present = v && v->kind == JSON_NUMBER;
      cell_computed(f, present, present ? 100 * v->number / r->median : 0,
                    F_PCT);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table>\n", f);
}

static void html_line(FILE *f, const lesson_line *ln, char op) {
  if (!ln->path) {
    fprintf(f, "%s      ...\n", op ? " " : "");
    return;
  }
  char text[1024];
  snprintf(text, sizeof text, "%.*s", ln->length, ln->text);
  if (op) fprintf(f, "<span class=\"%s\">%c", op == '+' ? "add"
                  : op == '-' ? "del" : "same", op);
  fprintf(f, "%5d | ", ln->number);
  kl__html_escape(f, text);
  fputs(op ? "</span>\n" : "\n", f);
}

/* The lessons of a workload's rungs (lesson.h), each once however many
 * problems it ran, folded: its technique, its code and the diff from the
 * rung before it of its backend, under the id its bars link to
 * (lesson-WORKLOAD-RUNG). The lessons are this build's of kladder, not
 * the results'. */
static void ladder_lessons(report *rep, const char *workload) {
  FILE *f = rep->f;
  fprintf(f, "<div class=\"lessons\"><h3>lessons</h3><p class=\"what\">"
          "Each rung's technique, its code and what changed from the rung "
          "before it on its backend, as kladder %s that drew this page has "
          "them; a bar above opens its rung's.</p>\n", KL_VERSION);
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->group < 0 || strcmp(r->workload, workload)) continue;
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++)
      seen = rep->rows[k].group >= 0 &&
             !strcmp(rep->rows[k].workload, workload) &&
             !strcmp(rep->rows[k].rung, r->rung);
    if (seen) continue;
    lesson les, prev;
    char why[320], prev_name[64];
    const int found = kl__lesson_find(r->workload, r->rung, &les, why,
                                      sizeof why) == 0;
    kl__html_text(f, "<details class=\"lesson\" id=\"lesson-", r->workload,
                  "-");
    kl__html_text(f, "", r->rung, "\"><summary>lesson: ");
    kl__html_text(f, "", r->rung, " (");
    kl__html_text(f, "", r->backend, ")</summary>\n");
    if (!found) {
      kl__html_text(f, "<p class=\"nolesson\">no lesson: ", why,
                    "</p></details>\n");
      continue;
    }
    if (les.from[0])
      kl__html_text(f, "<p class=\"from\">From ", les.from, ".</p>\n");
    fputs("<p>", f);
    for (const char *t = les.text; *t; t++) {
      if (t[0] == '\n' && t[1] == '\n') {
        fputs("</p>\n<p>", f);
        t++;
      } else {
        char one[2] = {*t, 0};
        kl__html_escape(f, one);
      }
    }
    fputs("</p>\n", f);
    if (les.line_count == 0) {
      kl__html_text(f, "<p class=\"nolesson\">code not found: ", why, "</p>\n");
    } else {
      const char *path = NULL;
      fputs("<pre class=\"code\">", f);
      for (int k = 0; k < les.line_count; k++) {
        if (les.lines[k].path &&
            (!path || strcmp(path, les.lines[k].path) != 0)) {
          path = les.lines[k].path;
          kl__html_text(f, "<span class=\"file\">src/", path, "</span>\n");
        }
        html_line(f, &les.lines[k], 0);
      }
      fputs("</pre>\n", f);
      if (kl__lesson_previous(r->workload, r->rung, prev_name,
                              sizeof prev_name) &&
          kl__lesson_find(r->workload, prev_name, &prev, why, sizeof why) ==
              0) {
        diff_line *d = NULL;
        int lines = 0, changed = 0;
        if (prev.line_count > 0 &&
            kl__lesson_diff(&prev, &les, &d, &lines, &changed) == 0) {
          kl__html_text(f, "<p class=\"what\">Changes from ", prev_name, "");
          fprintf(f, ": %d lines</p>\n<pre class=\"diff\">", changed);
          for (int k = 0; k < lines; k++) {
            if (d[k].op == '@')
              fprintf(f, "<span class=\"hunk\">@@ -%d +%d @@</span>\n",
                      d[k].old_start, d[k].new_start);
            else html_line(f, d[k].line, d[k].op);
          }
          fputs("</pre>\n", f);
          free(d);
        }
        kl__lesson_free(&prev);
      }
    }
    kl__lesson_free(&les);
    fputs("</details>\n", f);
  }
  fputs("</div>\n", f);
}

/* The work a rung does, apart from its backend: its name without the
 * backend's prefix ("cuda-triad" and "openacc-triad" both "triad"), or
 * "" where the name is the backend's alone. */
static const char *work_of(const row *r) {
  const size_t len = strlen(r->backend);
  if (strncmp(r->rung, r->backend, len) == 0) {
    if (r->rung[len] == '-') return r->rung + len + 1;
    if (r->rung[len] == '\0') return "";
  }
  return r->rung;
}

/* Peers: the rungs of the problem that do the same work on different
 * backends, a row per work and a column per backend. Only where the
 * problem ran on two backends or more. */
static void peers_table(report *rep, const row **rows, size_t count) {
  FILE *f = rep->f;
  const char *backends[8];
  int nb = 0;
  for (size_t i = 0; i < count; i++) {
    int seen = 0;
    for (int b = 0; b < nb; b++) seen |= !strcmp(backends[b], rows[i]->backend);
    if (!seen && nb < 8) backends[nb++] = rows[i]->backend;
  }
  if (nb < 2) return;
  /* Only works that two backends or more do. */
  int shared = 0;
  for (size_t i = 0; i < count && !shared; i++)
    for (size_t k = i + 1; k < count; k++)
      if (strcmp(rows[i]->backend, rows[k]->backend) &&
          !strcmp(work_of(rows[i]), work_of(rows[k])))
        shared = 1;
  if (!shared) return;
  fputs("<table class=\"peers\"><caption>peers: the same work on each "
        "backend, its rate</caption><thead><tr>"
        "<th>work</th>", f);
  head_cells(f, backends, nb);
  fputs("</tr></thead><tbody>\n", f);
  for (size_t i = 0; i < count; i++) {
    const char *work = work_of(rows[i]);
    int first = 1, others = 0;
    for (size_t k = 0; k < count; k++) {
      if (strcmp(work_of(rows[k]), work) != 0) continue;
      if (k < i) first = 0;
      if (strcmp(rows[k]->backend, rows[i]->backend)) others = 1;
    }
    if (!first || !others) continue;
    kl__html_text(f, "<tr><td>", work[0] ? work : "(the backend's one rung)",
                  "</td>");
    for (int b = 0; b < nb; b++) {
      const row *p = NULL;
      for (size_t k = 0; k < count && !p; k++)
        if (!strcmp(rows[k]->backend, backends[b]) &&
            !strcmp(work_of(rows[k]), work))
          p = rows[k];
      if (!p) {
        fputs("<td class=\"n\">-</td>", f);
        continue;
      }
      cell_field(f, p, KL__F_rate, F_NUM, p->unit);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table>\n", f);
}

/* The rungs that name a peer (kl_rung.peer: the rung of another backend
 * doing their work, an OpenACC rung's CUDA rung) beside it, where both
 * ran on the problem. */
static void named_peers(report *rep, const row **rows, size_t count) {
  FILE *f = rep->f;
  int any = 0;
  for (size_t i = 0; i < count; i++) {
    const char *peer = rows[i]->f.peer;
    const row *p = NULL;
    for (size_t k = 0; k < count && !p && peer[0]; k++)
      if (!strcmp(rows[k]->rung, peer) && ran(rows[k])) p = rows[k];
    if (!p || !ran(rows[i])) continue;
    if (!any)
      fputs("<table class=\"peers\"><caption>each rung beside the rung of "
            "another backend that does its work</caption><thead><tr>"
            "<th>rung</th><th>rate</th><th>its peer</th><th>rate</th>"
            "<th>time, peer over rung</th></tr></thead><tbody>\n", f);
    any = 1;
    kl__html_text(f, "<tr><td>", rows[i]->rung, "</td>");
    cell_field(f, rows[i], KL__F_rate, F_NUM, rows[i]->unit);
    kl__html_text(f, "<td>", p->rung, "</td>");
    cell_field(f, p, KL__F_rate, F_NUM, p->unit);
    cell_computed(f, 1, p->median / rows[i]->median, F_TIMES);
    fputs("</tr>\n", f);
  }
  if (any) fputs("</tbody></table>\n", f);
}

/* ---- history (--db) ------------------------------------------------------ */

/* The lines' colours, here and in the growth charts. */
static const char *palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                "#bcbd22", "#17becf"};

#define HIST_W 360
#define HIST_H 150
#define HIST_X0 56
#define HIST_X1 348
#define HIST_Y0 108
#define HIST_Y1 24
#define HIST_MACHINES 3 /* named in the legend; more share its last colour */

/* The history chart's machine of a run: its index among the first nm
 * named, nm for any other. */
static int machine_index(const char *const *machines, int nm,
                         const char *machine) {
  int k = 0;
  while (k < nm && strcmp(machines[k], machine)) k++;
  return k;
}

/* Run i of n, spaced evenly by date across the history chart. */
static double run_x(size_t i, size_t n) {
  return n == 1 ? (HIST_X0 + HIST_X1) / 2.0
                : HIST_X0 + (HIST_X1 - HIST_X0) * (double)i / (double)(n - 1);
}

/* One rung's history: its median time in each run of the history, by
 * date, a line per machine. Nothing where the history has no run of it. */
static void history_chart(report *rep, const row *r) {
  FILE *f = rep->f;
  const char *key[8] = {r->workload, r->rung, r->backend, r->type,
                        r->shape, r->params, r->op, r->inputs};
  kl__history_point *p = NULL;
  size_t n = 0;
  char err[512];
  if (kl__history_series(rep->db, key, &p, &n, err, sizeof err)) {
    if (!rep->db_failed)
      fprintf(stderr, "kladder: warning: report: the history: %s\n", err);
    rep->db_failed = 1;
    return;
  }
  if (n == 0) {
    free(p);
    return;
  }
  const char *machines[HIST_MACHINES];
  int nm = 0;
  double lo = p[0].median_s, hi = p[0].median_s;
  for (size_t i = 0; i < n; i++) {
    if (p[i].median_s < lo) lo = p[i].median_s;
    if (p[i].median_s > hi) hi = p[i].median_s;
    int known = 0;
    for (int k = 0; k < nm && !known; k++)
      known = !strcmp(machines[k], p[i].machine);
    if (!known && nm < HIST_MACHINES) machines[nm++] = p[i].machine;
  }
  axis ay = make_axis(lo, hi, 30, HIST_Y0, HIST_Y1);
  svg_open(rep, HIST_W, HIST_H, "the rung's history: time against the runs");
  char title[96], name[64];
  clipped(r->rung, 30, name, sizeof name);
  snprintf(title, sizeof title, "%s: median time, %zu run%s", name, n,
           n == 1 ? "" : "s");
  text_at(f, HIST_X0, 14, "start", "axis", title);
  double tv[8];
  char tt[32];
  const int nt = ticks(&ay, tv, 8);
  for (int t = 0; t < nt; t += ay.log ? 1 : 2) {
    const double y = at(&ay, tv[t]);
    fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
            "y2=\"%.1f\"/>\n", HIST_X0, y, HIST_X1, y);
    time_text(tv[t], tt, sizeof tt);
    text_at(f, HIST_X0 - 4, y + 4, "end", "axis", tt);
  }
  /* The runs spaced evenly by date; a line per machine. */
  for (int m = 0; m <= nm; m++) {
    const char *colour = palette[(m < nm ? m : HIST_MACHINES) % 10];
    int drawn = 0;
    for (size_t i = 0; i < n; i++) {
      if (machine_index(machines, nm, p[i].machine) != m) continue;
      const double x = run_x(i, n);
      if (!drawn)
        fprintf(f, "<polyline class=\"series\" stroke=\"%s\" points=\"",
                colour);
      fprintf(f, "%.1f,%.1f ", x, at(&ay, p[i].median_s));
      drawn++;
    }
    if (drawn) fputs("\"/>\n", f);
    for (size_t i = 0; i < n; i++) {
      if (machine_index(machines, nm, p[i].machine) != m) continue;
      const double x = run_x(i, n);
      time_text(p[i].median_s, tt, sizeof tt);
      fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\">"
              "<title>", x, at(&ay, p[i].median_s), colour);
      kl__html_text(f, "", p[i].started, ", commit ");
      kl__html_text(f, "", p[i].commit, ", ");
      kl__html_escape(f, p[i].machine);
      fprintf(f, ": %s</title></circle>\n", tt);
    }
  }
  char c[24];
  clipped(p[0].commit, 14, c, sizeof c);
  text_at(f, HIST_X0, HIST_Y0 + 14, n == 1 ? "start" : "start", "axis", c);
  if (n > 1) {
    clipped(p[n - 1].commit, 14, c, sizeof c);
    text_at(f, HIST_X1, HIST_Y0 + 14, "end", "axis", c);
  }
  for (int m = 0; m < nm; m++) {
    char label[40];
    kl__machine_cut(machines[m], m + 1 < nm ? 17 : 26, label, sizeof label);
    fprintf(f, "<text x=\"%d\" y=\"%d\" style=\"fill:%s\">",
            4 + 118 * m, HIST_H - 8, palette[m % 10]);
    kl__html_text(f, "", label, "</text>\n");
  }
  fputs("</svg>\n", f);
  free(p);
}

static void history_charts(report *rep, const row **rows, size_t count) {
  FILE *f = rep->f;
  fputs("<figure class=\"history\">", f);
  const int before = rep->charts;
  for (size_t i = 0; i < count; i++) history_chart(rep, rows[i]);
  if (rep->charts == before)
    fputs("<figcaption>no run of this ladder in the history</figcaption>", f);
  else
    fputs("<figcaption>history: each rung's median time in the runs of the "
          "history, by date (first and last commit below), a line per "
          "machine</figcaption>", f);
  fputs("</figure>\n", f);
}

static void ladders(report *rep, int groups) {
  FILE *f = rep->f;
  const row **rows = malloc(rep->count * sizeof *rows);
  if (!rows) return;
  /* Workloads in the order they first come. */
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->group < 0) continue;
    int first = 1;
    for (size_t k = 0; k < i && first; k++)
      if (rep->rows[k].group >= 0 && !strcmp(rep->rows[k].workload, r->workload))
        first = 0;
    if (!first) continue;
    fprintf(f, "<section class=\"workload\" id=\"w-");
    kl__html_text(f, "", r->workload, "\"><h2>");
    kl__html_text(f, "", r->workload, "</h2><p class=\"what\">");
    kl__html_text(f, "", r->wsummary, "</p>\n");
    for (int g = 0; g < groups; g++) {
      size_t count = group_rows(rep, g, rows);
      if (!count || strcmp(rows[0]->workload, r->workload)) continue;
      fputs("<div class=\"problem\">", f);
      problem_heading(f, rep, rows[0]);
      ladder_chart(rep, rows, count);
      if (rep->db) history_charts(rep, rows, count);
      ladder_table(rep, rows, count);
      scaling_table(rep, rows, count);
      peers_table(rep, rows, count);
      named_peers(rep, rows, count);
      fputs("</div>\n", f);
    }
    ladder_lessons(rep, r->workload);
    fputs("</section>\n", f);
  }
  free(rows);
}

static void ceilings(report *rep) {
  FILE *f = rep->f;
  int any = 0;
  for (size_t i = 0; i < rep->count; i++) any |= rep->rows[i].ceiling_only;
  if (!any) return;
  fputs("<section id=\"ceilings\"><h2>Ceilings</h2><p class=\"what\">The "
        "rungs measured only as other rungs' ceilings, each at the size "
        "that holds the bytes of the rung it is the ceiling of.</p>\n"
        "<table class=\"rungs\"><thead><tr><th>workload</th><th>rung</th>"
        "<th>backend</th><th>device</th><th>size</th><th>median</th>"
        "<th>rate</th><th>check</th></tr></thead><tbody>\n", f);
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (!r->ceiling_only) continue;
    kl__html_text(f, "<tr><td>", r->workload, "</td><td>");
    kl__html_text(f, "", r->rung, "</td><td>");
    kl__html_text(f, "", r->backend, "</td><td>");
    kl__html_text(f, "", r->device, "</td><td>");
    kl__html_text(f, "", r->shape, "</td>");
    cell_field(f, r, KL__F_median_s, F_TIME, NULL);
    cell_field(f, r, KL__F_rate, F_NUM, r->unit);
    kl__html_text(f, "<td>", r->check, "</td></tr>\n");
  }
  fputs("</tbody></table></section>\n", f);
}

/* ---- the roofline -------------------------------------------------------- */

static void roofline_one(report *rep, int file, const char *device) {
  FILE *f = rep->f;
  double bw = 0, peak = 0, xlo = 0, xhi = 0, ylo = 0, yhi = 0;
  int points = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->file != file || strcmp(r->device, device) || !ran(r)) continue;
    if (has_flag(r, "ceiling") && !strcmp(r->unit, "GB/s") && r->rate > bw)
      bw = r->rate;
    if (has_flag(r, "vendor") && !strcmp(r->unit, "GFLOP/s") && r->rate > peak)
      peak = r->rate;
    if (r->flops > 0 && r->bytes > 0 && !r->ceiling_only) {
      const double x = r->flops / r->bytes, y = r->flops / r->median / 1e9;
      if (!points || x < xlo) xlo = x;
      if (!points || x > xhi) xhi = x;
      if (!points || y < ylo) ylo = y;
      if (!points || y > yhi) yhi = y;
      points++;
    }
  }
  if (!points) return;
  if (peak > yhi) yhi = peak;
  if (bw > 0 && peak > 0) {
    const double ridge = peak / bw;
    if (ridge > xhi) xhi = ridge;
    if (ridge < xlo) xlo = ridge;
  }
  const int x0 = ROOF_X0, x1 = ROOF_X1;
  axis ax, ay;
  log_chart_open(rep, "roofline", "roofline", xlo / 2, xhi * 2, ylo, yhi,
                 "arithmetic intensity, flop/byte (cost model)",
                 "GFLOP/s attained", &ax, &ay);
  if (bw > 0) {
    /* The bandwidth roof from the left edge to the ridge (or the right). */
    const double xa = ax.lo, xb = peak > 0 ? peak / bw : ax.hi;
    fprintf(f, "<polyline class=\"roof\" points=\"%.1f,%.1f %.1f,%.1f",
            at(&ax, xa), at(&ay, bw * xa), at(&ax, xb), at(&ay, bw * xb));
    if (peak > 0) fprintf(f, " %.1f,%.1f", at(&ax, ax.hi), at(&ay, peak));
    fputs("\"/>\n", f);
  } else if (peak > 0) {
    fprintf(f, "<line class=\"roof\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
            "y2=\"%.1f\"/>\n", x0, at(&ay, peak), x1, at(&ay, peak));
  }
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->file != file || strcmp(r->device, device) || !ran(r) ||
        r->ceiling_only || !(r->flops > 0 && r->bytes > 0))
      continue;
    const double x = r->flops / r->bytes, y = r->flops / r->median / 1e9;
    fprintf(f, "<circle class=\"point%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\">"
            "<title>", has_flag(r, "vendor") ? " vendor" : "", at(&ax, x),
            at(&ay, y));
    kl__html_text(f, "", r->workload, " ");
    kl__html_escape(f, r->rung);
    fprintf(f, ": %.3g flop/byte, %.3g GFLOP/s</title></circle>\n", x, y);
  }
  kl__html_text(f, "</svg><figcaption>", device, "");
  char a[48], b[48];
  number_text(bw, F_NUM, "GB/s", a, sizeof a);
  number_text(peak, F_NUM, "GFLOP/s", b, sizeof b);
  fprintf(f, ": bandwidth roof %s (the fastest copy ceiling measured), "
          "compute roof %s; hover a point for its rung.",
          bw > 0 ? a : "not measured", peak > 0 ? b : "not measured (no "
          "vendor GEMM in these results)");
  fputs("</figcaption></figure>\n", f);
}

static void rooflines(report *rep) {
  FILE *f = rep->f;
  int any = 0;
  for (size_t i = 0; i < rep->count; i++)
    any |= rep->rows[i].flops > 0 && rep->rows[i].bytes > 0 &&
           ran(&rep->rows[i]);
  if (!any) return;
  fputs("<section id=\"roofline\"><h2>Roofline</h2><p class=\"what\">Per "
        "device: each rung a point at its arithmetic intensity (flops over "
        "bytes of its workload's cost model) and its attained GFLOP/s; the "
        "roof is the copy bandwidth and the vendor GEMM measured in the same "
        "run.</p>\n", f);
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    int first = 1;
    for (size_t k = 0; k < i && first; k++)
      if (rep->rows[k].file == r->file && !strcmp(rep->rows[k].device, r->device))
        first = 0;
    if (first) roofline_one(rep, r->file, r->device);
  }
  fputs("</section>\n", f);
}

/* ---- energy roofline ----------------------------------------------------------
 * Per device and unit of rate: each rung with energy a point at its mean
 * power over its energy window and its rate; a dashed line through the
 * rung of the least energy per unit of work (rate over power constant:
 * the rungs above it do more work per joule). */
static void energy_one(report *rep, int file, const char *device,
                       const char *unit) {
  FILE *f = rep->f;
  double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
  const row *best = NULL;
  int points = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->file != file || strcmp(r->device, device) ||
        strcmp(r->unit, unit) || !ran(r) || !r->has_energy || r->rate <= 0)
      continue;
    const double x = r->energy_w, y = r->rate;
    if (!points || x < xlo) xlo = x;
    if (!points || x > xhi) xhi = x;
    if (!points || y < ylo) ylo = y;
    if (!points || y > yhi) yhi = y;
    if (!best || r->energy_pj < best->energy_pj) best = r;
    points++;
  }
  if (!points) return;
  char label[64];
  snprintf(label, sizeof label, "%s attained", unit);
  axis ax, ay;
  log_chart_open(rep, "roofline energy", "energy roofline", xlo / 1.5,
                 xhi * 1.5, ylo, yhi,
                 "mean power over the energy window, W (board or package)",
                 label, &ax, &ay);
  /* Rate = power x work per joule: the best rung's, across the chart. */
  const double per_watt = best->rate / best->energy_w;
  fprintf(f, "<polyline class=\"roof\" stroke-dasharray=\"6 4\" "
          "points=\"%.1f,%.1f %.1f,%.1f\"/>\n", at(&ax, ax.lo),
          at(&ay, per_watt * ax.lo), at(&ax, ax.hi),
          at(&ay, per_watt * ax.hi));
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->file != file || strcmp(r->device, device) ||
        strcmp(r->unit, unit) || !ran(r) || !r->has_energy || r->rate <= 0)
      continue;
    fprintf(f, "<circle class=\"point%s\" cx=\"%.1f\" cy=\"%.1f\" "
            "r=\"4\"><title>", has_flag(r, "vendor") ? " vendor" : "",
            at(&ax, r->energy_w), at(&ay, r->rate));
    kl__html_text(f, "", r->workload, " ");
    kl__html_escape(f, r->rung);
    fprintf(f, ": %.3g W, %.3g ", r->energy_w, r->rate);
    kl__html_escape(f, unit);
    fprintf(f, ", %.3g ", r->energy_pj);
    kl__html_text(f, "", r->energy_per, "</title></circle>\n");
  }
  kl__html_text(f, "</svg><figcaption>", device, ", ");
  kl__html_text(f, "", unit, ": the least energy per unit of work: ");
  kl__html_text(f, "", best->workload, " ");
  kl__html_escape(f, best->rung);
  char text[48];
  number_text(best->energy_pj, F_NUM, best->energy_per, text, sizeof text);
  kl__html_text(f, " (", text, "");
  fputs("), the dashed line; hover a point for its rung.</figcaption>"
        "</figure>\n", f);
}

static void energy_rooflines(report *rep) {
  FILE *f = rep->f;
  int any = 0;
  for (size_t i = 0; i < rep->count; i++)
    any |= rep->rows[i].has_energy && ran(&rep->rows[i]);
  if (!any) return;
  fputs("<section id=\"energy\"><h2>Energy</h2><p class=\"what\">Per "
        "device (kladder run --energy): each rung a point at the mean power "
        "of its energy window (the board's or the CPU packages', idle draw "
        "included) and its rate; the dashed line is the rate per watt of "
        "the rung that spent the least energy per unit of work.</p>\n", f);
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (!r->has_energy) continue;
    int first = 1;
    for (size_t k = 0; k < i && first; k++)
      if (rep->rows[k].has_energy && rep->rows[k].file == r->file &&
          !strcmp(rep->rows[k].device, r->device) &&
          !strcmp(rep->rows[k].unit, r->unit))
        first = 0;
    if (first) energy_one(rep, r->file, r->device, r->unit);
  }
  fputs("</section>\n", f);
}

/* ---- cost growth ------------------------------------------------------------
 * A series: one rung on one device, at one type and set of parameters, at
 * several sizes. A chart: the series of one workload, device, type and
 * parameters. */

static int same_series(const row *a, const row *b) {
  return a->file == b->file && !strcmp(a->workload, b->workload) &&
         !strcmp(a->rung, b->rung) && !strcmp(a->device, b->device) &&
         !strcmp(a->type, b->type) && !strcmp(a->params, b->params) &&
         !strcmp(a->op, b->op) && !strcmp(a->inputs, b->inputs);
}

static int same_chart(const row *a, const row *b) {
  return a->file == b->file && !strcmp(a->workload, b->workload) &&
         !strcmp(a->device, b->device) && !strcmp(a->type, b->type) &&
         !strcmp(a->params, b->params) && !strcmp(a->op, b->op) &&
         !strcmp(a->inputs, b->inputs);
}

static int sizes_of_series(const report *rep, const row *s) {
  int sizes = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->ceiling_only || !ran(r) || !same_series(r, s)) continue;
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++)
      seen = !rep->rows[k].ceiling_only && ran(&rep->rows[k]) &&
             same_series(&rep->rows[k], s) && rep->rows[k].n == r->n;
    sizes += !seen;
  }
  return sizes;
}

/* Each row's series_sizes, counted once per series (its rows share it):
 * the growth charts ask for it in every loop. */
static void count_series(report *rep) {
  for (size_t i = 0; i < rep->count; i++) {
    row *r = &rep->rows[i];
    r->series_sizes = -1;
    for (size_t k = 0; k < i && r->series_sizes < 0; k++)
      if (same_series(&rep->rows[k], r))
        r->series_sizes = rep->rows[k].series_sizes;
    if (r->series_sizes < 0) r->series_sizes = sizes_of_series(rep, r);
  }
}

/* One of the two charts of a growth: time (rate 0) or rate against n. */
static void growth_chart(report *rep, const row *c, int rate, double floor) {
  FILE *f = rep->f;
  double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
  int any = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->ceiling_only || !ran(r) || !same_chart(r, c) ||
        r->series_sizes < 2 || r->n <= 0)
      continue;
    const double y = rate ? r->rate : r->median;
    if (y <= 0) continue;
    if (!any || r->n < xlo) xlo = r->n;
    if (!any || r->n > xhi) xhi = r->n;
    if (!any || y < ylo) ylo = y;
    if (!any || y > yhi) yhi = y;
    any = 1;
  }
  if (!any) return;
  if (!rate && floor > 0 && floor < ylo) ylo = floor;
  const int w = 370, h = 300, x0 = 64, x1 = 344, y0 = 250, y1 = 24;
  axis ax = make_axis(xlo, xhi, 1, x0, x1);
  axis ay = make_axis(ylo, yhi, 1, y0, y1);
  ax.log = ay.log = 1;
  svg_open(rep, w, h, rate ? "rate against size" : "time against size");
  grid(f, &ax, &ay, !rate);
  char label[96];
  snprintf(label, sizeof label, "%s against n (log axes)",
           rate ? c->unit : "median time");
  text_at(f, (x0 + x1) / 2.0, 14, "middle", "axis", label);
  text_at(f, (x0 + x1) / 2.0, h - 14, "middle", "axis", "n");
  if (!rate && floor > 0) {
    const double y = at(&ay, floor);
    fprintf(f, "<line class=\"floor\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
            "y2=\"%.1f\"><title>the shortest time measured on this device in "
            "this run: the launch-latency floor</title></line>\n",
            x0, y, x1, y);
  }
  int series = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const row *s = &rep->rows[i];
    if (s->ceiling_only || !ran(s) || !same_chart(s, c) ||
        s->series_sizes < 2)
      continue;
    int first = 1;
    for (size_t k = 0; k < i && first; k++)
      if (!rep->rows[k].ceiling_only && ran(&rep->rows[k]) &&
          same_series(&rep->rows[k], s))
        first = 0;
    if (!first) continue;
    const char *colour = palette[series++ % 10];
    fprintf(f, "<polyline class=\"series%s\" stroke=\"%s\" points=\"",
            has_flag(s, "vendor") ? " vendor" : "", colour);
    /* Points in the order of n. */
    double last = -1;
    for (;;) {
      const row *next = NULL;
      for (size_t k = 0; k < rep->count; k++) {
        const row *r = &rep->rows[k];
        if (r->ceiling_only || !ran(r) || !same_series(r, s) || r->n <= last)
          continue;
        if (!next || r->n < next->n) next = r;
      }
      if (!next) break;
      fprintf(f, "%.1f,%.1f ", at(&ax, next->n),
              at(&ay, rate ? next->rate : next->median));
      last = next->n;
    }
    kl__html_text(f, "\"><title>", s->rung, "</title></polyline>\n");
  }
  /* A ring on the point of the rung the library dispatches at each size. */
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->ceiling_only || !ran(r) || !same_chart(r, c) ||
        r->series_sizes < 2 || r->n <= 0 || strcmp(r->rung, r->dispatched))
      continue;
    const double y = rate ? r->rate : r->median;
    if (y <= 0) continue;
    fprintf(f, "<circle class=\"dispatched\" cx=\"%.1f\" cy=\"%.1f\" "
            "r=\"5\"><title>the library runs ", at(&ax, r->n), at(&ay, y));
    kl__html_escape(f, r->rung);
    fprintf(f, " at n = %.0f</title></circle>\n", r->n);
  }
  fputs("</svg>\n", f);
}

/* A row of c's chart at size n on `backend`: the rung named `rung`;
 * with rung NULL, the vendor rung (vendor 1) or the one of the least
 * median (vendor 0). NULL where there is none. */
static const row *chart_row(const report *rep, const row *c, double n,
                            const char *backend, const char *rung,
                            int vendor) {
  const row *best = NULL;
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->ceiling_only || !ran(r) || !same_chart(r, c) || r->n != n ||
        strcmp(r->backend, backend))
      continue;
    if (rung) {
      if (!strcmp(r->rung, rung)) return r;
    } else if (vendor) {
      if (has_flag(r, "vendor")) return r;
    } else if (!best || r->median < best->median) {
      best = r;
    }
  }
  return best;
}

/* Under a growth chart whose rows say what the library dispatches: a row
 * per size and backend with the fastest rung measured, the vendor rung's
 * time, and the dispatched rung's time and how far it is from the
 * fastest (1x: the library picked the fastest measured). */
static void dispatch_table(report *rep, const row *c) {
  FILE *f = rep->f;
  int any = 0;
  for (size_t i = 0; i < rep->count && !any; i++) {
    const row *r = &rep->rows[i];
    any = !r->ceiling_only && ran(r) && same_chart(r, c) &&
          r->series_sizes >= 2 && r->dispatched[0];
  }
  if (!any) return;
  fputs("<table class=\"rungs dispatch\"><caption>what the library runs "
        "(kl_dispatch on a context of each backend) against the fastest "
        "rung measured</caption><thead><tr><th>n</th><th>backend</th>"
        "<th>fastest</th><th>median</th><th>vendor</th><th>dispatched</th>"
        "<th>median</th><th>fastest / dispatched</th></tr></thead><tbody>\n",
        f);
  double last = -1;
  for (;;) {
    double n = -1;
    for (size_t i = 0; i < rep->count; i++) {
      const row *r = &rep->rows[i];
      if (!r->ceiling_only && ran(r) && same_chart(r, c) && r->n > last &&
          r->dispatched[0] && (n < 0 || r->n < n))
        n = r->n;
    }
    if (n < 0) break;
    /* Each backend at this size once, in file order. */
    for (size_t i = 0; i < rep->count; i++) {
      const row *r = &rep->rows[i];
      if (r->ceiling_only || !ran(r) || !same_chart(r, c) || r->n != n ||
          !r->dispatched[0])
        continue;
      int seen = 0;
      for (size_t k = 0; k < i && !seen; k++) {
        const row *q = &rep->rows[k];
        seen = !q->ceiling_only && ran(q) && same_chart(q, c) && q->n == n &&
               q->dispatched[0] && !strcmp(q->backend, r->backend);
      }
      if (seen) continue;
      const row *fast = chart_row(rep, c, n, r->backend, NULL, 0);
      const row *vend = chart_row(rep, c, n, r->backend, NULL, 1);
      const row *disp = chart_row(rep, c, n, r->backend, r->dispatched, 0);
      fprintf(f, "<tr><td class=\"n\">%.0f</td><td>", n);
      kl__html_text(f, "", r->backend, "</td><td>");
      kl__html_text(f, "", fast->rung, "</td>");
      cell_field(f, fast, KL__F_median_s, F_TIME, NULL);
      if (vend) cell_field(f, vend, KL__F_median_s, F_TIME, NULL);
      else fputs("<td class=\"n\">-</td>", f);
      kl__html_text(f, "<td>", r->dispatched, "");
      if (!disp) fputs(" <span class=\"tag\">not run</span>", f);
      fputs("</td>", f);
      if (disp) cell_field(f, disp, KL__F_median_s, F_TIME, NULL);
      else fputs("<td class=\"n\">-</td>", f);
      cell_computed(f, disp != NULL, disp ? fast->median / disp->median : 0,
                    F_TIMES);
      fputs("</tr>\n", f);
    }
    last = n;
  }
  fputs("</tbody></table>\n", f);
}

static void growth(report *rep) {
  FILE *f = rep->f;
  count_series(rep);
  int open = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const row *c = &rep->rows[i];
    if (c->ceiling_only || !ran(c) || c->series_sizes < 2) continue;
    int first = 1;
    for (size_t k = 0; k < i && first; k++)
      if (!rep->rows[k].ceiling_only && ran(&rep->rows[k]) &&
          rep->rows[k].series_sizes >= 2 &&
          same_chart(&rep->rows[k], c))
        first = 0;
    if (!first) continue;
    if (!open) {
      fputs("<section id=\"growth\"><h2>Cost growth</h2><p class=\"what\">"
            "Where a rung ran at several sizes: its median time and its rate "
            "against the size, each rung a line (vendor rungs dashed), with "
            "the shortest time measured on the device as the floor a launch "
            "cannot go under. A ring marks the rung the library's entry "
            "point runs at each size (its wisdom's pick, else the backend's "
            "library rung), and the table under the chart sets it beside "
            "the fastest rung measured and the vendor's.</p>\n", f);
      open = 1;
    }
    double floor = 0;
    for (size_t k = 0; k < rep->count; k++) {
      const row *r = &rep->rows[k];
      if (r->file == c->file && !strcmp(r->device, c->device) && ran(r) &&
          (floor == 0 || r->median < floor))
        floor = r->median;
    }
    fputs("<figure class=\"growth\">", f);
    growth_chart(rep, c, 0, floor);
    growth_chart(rep, c, 1, floor);
    kl__html_text(f, "<figcaption>", c->workload, " on ");
    kl__html_text(f, "", c->device, ", ");
    kl__html_escape(f, c->type);
    if (c->params[0]) kl__html_text(f, ", ", c->params, "");
    fputs(". Lines: ", f);
    int series = 0;
    for (size_t k = 0; k < rep->count; k++) {
      const row *s = &rep->rows[k];
      if (s->ceiling_only || !ran(s) || !same_chart(s, c) ||
          s->series_sizes < 2)
        continue;
      int seen = 0;
      for (size_t q = 0; q < k && !seen; q++)
        seen = !rep->rows[q].ceiling_only && ran(&rep->rows[q]) &&
               same_series(&rep->rows[q], s);
      if (seen) continue;
      fprintf(f, "%s<span style=\"color:%s\">&#9632;</span> ",
              series ? ", " : "", palette[series % 10]);
      kl__html_escape(f, s->rung);
      series++;
    }
    fputs(".</figcaption></figure>\n", f);
    dispatch_table(rep, c);
  }
  if (open) fputs("</section>\n", f);
}

/* ---- timelines ----------------------------------------------------------- */

static const json_value *events_of(const row *r) {
  const json_value *events = kl__doc_member(r->f.trace, "events");
  return events && events->kind == JSON_ARRAY ? events : NULL;
}

static int event_ok(const json_value *e) {
  return e && e->kind == JSON_ARRAY && e->count == 5 &&
         e->items[0].kind == JSON_NUMBER && e->items[1].kind == JSON_STRING &&
         e->items[2].kind == JSON_NUMBER && e->items[3].kind == JSON_NUMBER &&
         e->items[4].kind == JSON_NUMBER;
}

/* Events closer than a pixel on one track and phase are drawn as one mark
 * (its title counts them), so that a run of thousands of chunks stays a
 * page of kilobytes. */
typedef struct span {
  double x0, x1, busy;
  int count;
  double item;
} span;

static int event_mark(FILE *f, const span *sp, int y, int h,
                      const char *phase, const char *colour) {
  fprintf(f, "<rect class=\"event\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
          "height=\"%d\" fill=\"%s\"><title>", sp->x0, y,
          sp->x1 - sp->x0 > 0.5 ? sp->x1 - sp->x0 : 0.5, h, colour);
  kl__html_escape(f, phase);
  char d[32];
  time_text(sp->busy, d, sizeof d);
  if (sp->count > 1) fprintf(f, ": %d events, %s busy", sp->count, d);
  else if (sp->item >= 0) fprintf(f, " %.0f: %s", sp->item, d);
  else fprintf(f, ": %s", d);
  fputs("</title></rect>\n", f);
  return 1;
}

static void timeline(report *rep, const row *r, const json_value *events) {
  FILE *f = rep->f;
  int tracks[8], nt = 0;
  const char *phases[8];
  int np = 0;
  double end = 0;
  for (size_t i = 0; i < events->count; i++) {
    const json_value *e = &events->items[i];
    if (!event_ok(e)) continue;
    const int track = (int)e->items[0].number;
    int seen = 0;
    for (int t = 0; t < nt; t++) seen |= tracks[t] == track;
    if (!seen && nt < 8) tracks[nt++] = track;
    seen = 0;
    for (int p = 0; p < np; p++) seen |= !strcmp(phases[p], e->items[1].text);
    if (!seen && np < 8) phases[np++] = e->items[1].text;
    if (e->items[4].number > end) end = e->items[4].number;
  }
  if (!nt || end <= 0) return;
  for (int i = 1; i < nt; i++) /* tracks in order: the host (-1) first */
    for (int k = i; k > 0 && tracks[k - 1] > tracks[k]; k--) {
      const int t = tracks[k];
      tracks[k] = tracks[k - 1];
      tracks[k - 1] = t;
    }
  const int lane = 24, x0 = 80, x1 = 740, top = 24;
  const int h = top + lane * nt + 34;
  const axis a = {0, end, 0, x0, x1};
  fputs("<figure class=\"timeline\">", f);
  svg_open(rep, 760, h, "timeline");
  for (int t = 0; t < nt; t++) {
    char name[32];
    if (tracks[t] < 0) snprintf(name, sizeof name, "host");
    else snprintf(name, sizeof name, "stream %d", tracks[t]);
    text_at(f, x0 - 6, top + lane * t + 16, "end", "name", name);
  }
  span spans[8][8];
  memset(spans, 0, sizeof spans);
  int drawn = 0;
  for (size_t i = 0; i < events->count; i++) {
    const json_value *e = &events->items[i];
    if (!event_ok(e)) continue;
    int t = 0, p = 0;
    while (t < nt && tracks[t] != (int)e->items[0].number) t++;
    while (p < np && strcmp(phases[p], e->items[1].text)) p++;
    if (t == nt || p == np) continue;
    const double xa = at(&a, e->items[3].number), xb = at(&a, e->items[4].number);
    span *sp = &spans[t][p];
    /* Within a pixel of the last of its track and phase: one mark. */
    if (sp->count && xa - sp->x1 < 1.0) {
      if (xb > sp->x1) sp->x1 = xb;
      sp->busy += e->items[4].number - e->items[3].number;
      sp->count++;
      continue;
    }
    if (sp->count) drawn += event_mark(f, sp, top + lane * t + 3, lane - 6,
                                       phases[p], palette[p % 10]);
    *sp = (span){xa, xb, e->items[4].number - e->items[3].number, 1,
                 e->items[2].number};
  }
  for (int t = 0; t < nt; t++)
    for (int p = 0; p < np; p++)
      if (spans[t][p].count)
        drawn += event_mark(f, &spans[t][p], top + lane * t + 3, lane - 6,
                            phases[p], palette[p % 10]);
  char tt[32];
  for (int k = 0; k <= 4; k++) {
    const double v = end * k / 4;
    const double x = at(&a, v);
    time_text(v, tt, sizeof tt);
    text_at(f, x, top + lane * nt + 16, k == 0 ? "start" : k == 4 ? "end"
                                                                    : "middle",
            "axis", tt);
  }
  kl__html_text(f, "</svg><figcaption>", r->workload, " ");
  kl__html_text(f, "", r->rung, " (");
  kl__html_text(f, "", r->shape, "): the last timed run; phases ");
  for (int p = 0; p < np; p++) {
    fprintf(f, "%s<span style=\"color:%s\">&#9632;</span> ", p ? ", " : "",
            palette[p % 10]);
    kl__html_escape(f, phases[p]);
  }
  kl_field_info overlap = {.size = sizeof overlap};
  if (!isnan(r->f.overlap) &&
      kl_field_describe(KL__F_overlap, &overlap) == KL_OK) {
    char o[32];
    sig3(r->f.overlap, o, sizeof o);
    fprintf(f, "; overlap <span data-r=\"%d.%d\" data-k=\"%s\" "
            "data-f=\"num\" data-u=\"\" data-v=\"%.17g\">%s</span> (wall "
            "time over the busiest phase's)", r->file, r->index, overlap.name,
            r->f.overlap, o);
  }
  rep->marks += drawn;
  if ((size_t)drawn < events->count)
    fprintf(f, "; %zu events drawn as %d marks (those within a pixel of "
            "each other on a track merged)", events->count, drawn);
  const double dropped = kl__doc_number(r->f.trace, "dropped", 0, NULL);
  if (dropped > 0) fprintf(f, "; the first %zu events (%.0f more in the run "
                           "were not kept)", events->count, dropped);
  fputs(".</figcaption></figure>\n", f);
}

/* The traced events of every result as one Chrome trace (a process per
 * result, a thread per track), base64 in a data: link to save. */
static void b64(FILE *f, const unsigned char *s, size_t n) {
  static const char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    const unsigned v = (unsigned)s[i] << 16 |
                       (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
                       (i + 2 < n ? s[i + 2] : 0);
    fputc(digits[v >> 18 & 63], f);
    fputc(digits[v >> 12 & 63], f);
    fputc(i + 1 < n ? digits[v >> 6 & 63] : '=', f);
    fputc(i + 2 < n ? digits[v & 63] : '=', f);
  }
}

/* At most this many events in the saved trace, so that the page stays
 * under 2 MB whatever ran: beyond it each run keeps its first events, an
 * equal share, and the page says so (`kladder run --trace` keeps all). */
#define TRACE_LINK_EVENTS 6000

/* A results file's rank_runs item: [rank, run, start_s, end_s, {phase:
 * seconds}]. */
static int rank_run_ok(const json_value *u) {
  return u && u->kind == JSON_ARRAY && u->count == 5 &&
         u->items[0].kind == JSON_NUMBER && u->items[1].kind == JSON_NUMBER &&
         u->items[2].kind == JSON_NUMBER && u->items[3].kind == JSON_NUMBER &&
         u->items[4].kind == JSON_OBJECT;
}

static const json_value *rank_runs_of(const row *r) {
  const json_value *runs = kl__doc_member(r->f.rank_runs, "runs");
  return runs && runs->kind == JSON_ARRAY ? runs : NULL;
}

/* Over several ranks, as `kladder run --trace` writes it: a process per
 * rank (pids after *pid) holding each run of each result on that rank,
 * from the file's from_s, and its phases nested in it, end to end, where
 * they fit. At most TRACE_LINK_EVENTS runs; the runs written. */
static size_t rank_processes(report *rep, FILE *t, int *pid) {
  int ranks = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const json_value *runs = rank_runs_of(&rep->rows[i]);
    for (size_t e = 0; runs && e < runs->count; e++)
      if (rank_run_ok(&runs->items[e]) &&
          runs->items[e].items[0].number >= ranks &&
          runs->items[e].items[0].number < 1 << 16)
        ranks = (int)runs->items[e].items[0].number + 1;
  }
  size_t written = 0;
  for (int k = 0; k < ranks; k++) {
    const int p = ++*pid;
    fprintf(t, "{\"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"name\": "
            "\"process_name\", \"args\": {\"name\": \"rank %d\"}},\n", p, k);
    for (size_t i = 0; i < rep->count; i++) {
      const row *r = &rep->rows[i];
      const json_value *runs = rank_runs_of(r);
      const double from =
          kl__doc_number(r->f.rank_runs, "from_s", 0, NULL);
      char name[200];
      snprintf(name, sizeof name, "%s %s %s %s", r->workload, r->rung,
               r->type, r->shape);
      for (size_t e = 0; runs && e < runs->count; e++) {
        const json_value *u = &runs->items[e];
        if (!rank_run_ok(u) || (int)u->items[0].number != k ||
            written == TRACE_LINK_EVENTS)
          continue;
        written++;
        const long long a = llround((from + u->items[2].number) * 1e9);
        const long long b = llround((from + u->items[3].number) * 1e9);
        const json_value *ph = &u->items[4];
        fprintf(t, "{\"ph\": \"X\", \"pid\": %d, \"tid\": 0, \"name\": ",
                p);
        kl__json_write_string(t, name);
        fputs(", \"cat\": \"run\"", t);
        kl__trace_ns(t, "ts", a);
        kl__trace_ns(t, "dur", b - a);
        fprintf(t, ", \"args\": {\"run\": %.0f", u->items[1].number);
        double sum = 0;
        for (size_t q = 0; q < ph->count; q++) {
          if (ph->items[q].kind != JSON_NUMBER) continue;
          fputs(", ", t);
          kl__json_write_string(t, ph->keys[q]);
          fprintf(t, ": %s", ph->items[q].text);
          sum += ph->items[q].number;
        }
        fputs("}},\n", t);
        if (sum > u->items[3].number - u->items[2].number + 1e-9) continue;
        long long at = a;
        for (size_t q = 0; q < ph->count; q++) {
          if (ph->items[q].kind != JSON_NUMBER) continue;
          long long end = at + llround(ph->items[q].number * 1e9);
          if (end > b) end = b;
          if (end <= at) continue;
          fprintf(t, "{\"ph\": \"X\", \"pid\": %d, \"tid\": 0, "
                  "\"name\": ", p);
          kl__json_write_string(t, ph->keys[q]);
          fputs(", \"cat\": ", t);
          kl__json_write_string(t, ph->keys[q]);
          kl__trace_ns(t, "ts", at);
          kl__trace_ns(t, "dur", end - at);
          fputs("},\n", t);
          at = end;
        }
      }
    }
  }
  return written;
}

static void chrome_trace_link(report *rep) {
  size_t total = 0, traced = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const json_value *events = events_of(&rep->rows[i]);
    if (!events || events->count == 0) continue;
    total += events->count;
    traced++;
  }
  const size_t share = total > TRACE_LINK_EVENTS && traced
                           ? TRACE_LINK_EVENTS / traced
                           : total;
  char *text = NULL;
  size_t len = 0;
  FILE *t = open_memstream(&text, &len);
  if (!t) return;
  fputs("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n", t);
  int pid = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    const json_value *events = events_of(r);
    if (!events || events->count == 0) continue;
    pid++;
    fprintf(t, "{\"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"name\": "
            "\"process_name\", \"args\": {\"name\": ", pid);
    char name[200];
    snprintf(name, sizeof name, "%s %s %s %s", r->workload, r->rung,
             r->type, r->shape);
    kl__json_write_string(t, name);
    fputs("}},\n", t);
    for (size_t k = 0; k < events->count && k < share; k++) {
      const json_value *e = &events->items[k];
      if (!event_ok(e)) continue;
      fprintf(t, "{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"name\": ", pid,
              (int)e->items[0].number + 1);
      kl__json_write_string(t, e->items[1].text);
      fputs(", \"cat\": ", t);
      kl__json_write_string(t, e->items[1].text);
      fprintf(t, ", \"ts\": %.4f, \"dur\": %.4f},\n", e->items[3].number * 1e6,
              (e->items[4].number - e->items[3].number) * 1e6);
    }
  }
  const int results = pid;
  const size_t rank_runs = rank_processes(rep, t, &pid);
  fputs("{\"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"name\": \"process_name\", "
        "\"args\": {\"name\": \"kladder report\"}}\n]}\n", t);
  fclose(t);
  if (pid) {
    fputs("<p><a class=\"save\" download=\"kladder-trace.json\" "
          "href=\"data:application/json;base64,", rep->f);
    b64(rep->f, (const unsigned char *)text, len);
    fprintf(rep->f, "\">Save the Chrome trace</a> of these %d runs (open it "
            "in Perfetto, ui.perfetto.dev, or chrome://tracing).", results);
    if (share < total)
      fprintf(rep->f, " It keeps the first %zu events of each run, %d in "
              "all of %zu, so that this page stays small; `kladder run "
              "--trace FILE` writes every one.", share,
              (int)(share * traced), total);
    if (rank_runs)
      fprintf(rep->f, " A process per rank holds each rung's timed runs on "
              "that rank (%zu), their phases nested inside.", rank_runs);
    fputs("</p>\n", rep->f);
  }
  free(text);
}

static void timelines(report *rep) {
  FILE *f = rep->f;
  int shown_ = 0, more = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    const json_value *events = events_of(r);
    if (!events || events->count < 2 || !ran(r)) continue;
    if (shown_ == MAX_TIMELINES || rep->marks >= MAX_MARKS) {
      more++;
      continue;
    }
    if (!shown_)
      fputs("<section id=\"timelines\"><h2>Timelines</h2><p class=\"what\">"
            "Each rung that traced its run: its events in a lane per track "
            "(the host, each stream), coloured by phase; hover an event for "
            "its time.</p>\n", f);
    timeline(rep, r, events);
    shown_++;
  }
  /* Runs over several ranks are in the saved trace, drawn or not. */
  int ranks = 0;
  for (size_t i = 0; i < rep->count && !ranks; i++)
    ranks = rank_runs_of(&rep->rows[i]) != NULL;
  if (!shown_ && ranks)
    fputs("<section id=\"timelines\"><h2>Timelines</h2>\n", f);
  if (!shown_ && !ranks) return;
  if (more) fprintf(f, "<p class=\"note\">%d more traced runs are in the "
                    "saved trace, not drawn here.</p>\n", more);
  chrome_trace_link(rep);
  fputs("</section>\n", f);
}

/* ---- the page ------------------------------------------------------------ */

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:"
    "1000px;color:#222;padding:0 12px}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;"
    "margin-top:32px}h3{font-size:15px;margin:18px 0 4px}"
    "table{border-collapse:collapse;margin:6px 0 12px;font-size:12.5px}"
    "td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;"
    "vertical-align:top}td.n{text-align:right;font-variant-numeric:"
    "tabular-nums;white-space:nowrap}"
    "table.meta th{color:#555;font-weight:normal}"
    "caption{text-align:left;white-space:nowrap;color:#555;padding:2px 0}"
    "tr.fail td{background:#fde2e2}tr.wrong td{background:#fff4d6}"
    "td.check.fail{color:#b00;font-weight:bold}.error{color:#b00}"
    ".tag{font-size:11px;border:1px solid #999;border-radius:3px;"
    "padding:0 3px;color:#555}.tag.wrong{border-color:#c90;color:#960}"
    ".what{color:#555}.note{color:#555;font-style:italic}"
    "svg.chart{display:block;max-width:100%;height:auto;margin:4px 0}"
    "svg text{font:11px sans-serif;fill:#333}svg text.axis{fill:#666}"
    "svg text.value.fail{fill:#b00;font-weight:bold}"
    "svg text.none{fill:#999;font-style:italic}"
    ".grid{stroke:#e6e6e6}.bar{fill:#4a7ab5}.bar.vendor{fill:#8c6bb1}"
    ".bar.wrong{fill:url(#hatch);stroke:#c90}.bar.fail{fill:#d62728}"
    ".spread{stroke:#222;stroke-width:1.2}.ceil{stroke:#e6550d;"
    "stroke-width:2}.roof{stroke:#e6550d;stroke-width:2;fill:none}"
    ".point{fill:#4a7ab5;fill-opacity:.75}.point.vendor{fill:#8c6bb1}"
    ".series{fill:none;stroke-width:1.8}.series.vendor{stroke-dasharray:"
    "5 3}.floor{stroke:#999;stroke-dasharray:2 3}"
    "circle.dispatched{fill:none;stroke:#000;stroke-width:1.5}"
    ".event{stroke:none}"
    "figure{margin:8px 0 16px}figure.growth svg{display:inline-block}"
    "figure.history svg{display:inline-block}"
    "figcaption{font-size:12.5px;color:#444}#selfcheck{color:#999;"
    "font-size:11px}"
    "details.lesson{margin:2px 0;font-size:13px}details.lesson summary{"
    "cursor:pointer;color:#345}pre.code,pre.diff{font-size:11.5px;"
    "background:#f6f6f6;padding:6px;overflow-x:auto}.add{color:#0a5d1a}"
    ".del{color:#a11}.hunk{color:#777}.file{color:#555;font-style:italic}"
    ".nolesson{color:#a11}a.lesson-link{cursor:pointer}"
    "@media print{body{max-width:none;margin:0}.problem,figure{"
    "break-inside:avoid}a.save,#selfcheck{display:none}}";

/* The page's own check, run once it is drawn: every chart has marks and
 * a size, no label leaves its chart's box, no script error happened. Its
 * verdict goes into #selfcheck, where a headless browser's --dump-dom
 * reads it (tests/cli/report.sh). */
static const char check_script[] =
    "<script>\n"
    "(function(){\n"
    "var problems=[];\n"
    "window.addEventListener('error',function(e){problems.push('script "
    "error: '+e.message);});\n"
    "function check(){\n"
    " var charts=document.querySelectorAll('svg.chart'),texts=0;\n"
    " for(var i=0;i<charts.length;i++){\n"
    "  var s=charts[i],vb=s.viewBox.baseVal,r=s.getBoundingClientRect();\n"
    "  if(!s.querySelector('rect,line,circle,polyline'))problems.push("
    "'chart '+i+' has no marks');\n"
    "  if(r.width<10||r.height<10)problems.push('chart '+i+' not drawn');\n"
    "  var ts=s.querySelectorAll('text');\n"
    "  for(var k=0;k<ts.length;k++){var b=ts[k].getBBox();texts++;\n"
    "   if(b.x<vb.x-0.5||b.y<vb.y-0.5||b.x+b.width>vb.x+vb.width+0.5||"
    "b.y+b.height>vb.y+vb.height+0.5)\n"
    "    problems.push('chart '+i+': label \"'+ts[k].textContent+'\" "
    "outside its box');}\n"
    " }\n"
    " var links=document.querySelectorAll('a.lesson-link');\n"
    " for(var j=0;j<links.length;j++){var id=links[j].getAttribute('href')"
    ".slice(1),d=document.getElementById(id);\n"
    "  if(!d||d.tagName!=='DETAILS')problems.push('bar '+j+' opens no "
    "lesson ('+id+')');}\n"
    " var out=document.getElementById('selfcheck');\n"
    " out.textContent=problems.length?'selfcheck: FAIL: '+problems.slice(0,"
    "10).join('; '):'selfcheck: ok: '+charts.length+' charts, '+texts+' "
    "labels';\n"
    "}\n"
    "function openLesson(){var d=location.hash&&document.getElementById("
    "location.hash.slice(1));if(d&&d.tagName==='DETAILS')d.open=true;}\n"
    "window.addEventListener('hashchange',openLesson);openLesson();\n"
    "document.addEventListener('click',function(e){var a=e.target.closest"
    "&&e.target.closest('a.lesson-link');if(!a)return;var d=document."
    "getElementById(a.getAttribute('href').slice(1));if(d)d.open=true;});\n"
    "if(document.readyState==='complete')check();else window.addEventListener"
    "('load',check);\n"
    "})();\n"
    "</script>\n";

static void meta_row(FILE *f, const char *name, const char *value) {
  if (!value || !*value) return;
  kl__html_text(f, "<tr><th>", name, "</th><td>");
  kl__html_text(f, "", value, "</td></tr>\n");
}

static void header(report *rep) {
  FILE *f = rep->f;
  for (int i = 0; i < rep->files; i++) {
    kl__run_view run;
    kl__results_run(rep->docs[i], &run);
    if (rep->files > 1) {
      fprintf(f, "<h2>File %d: ", i + 1);
      kl__html_text(f, "", rep->paths[i], "</h2>\n");
    }
    fputs("<table class=\"meta\">\n", f);
    meta_row(f, "started", run.started);
    meta_row(f, "command", run.command_line);
    char cpu[256];
    snprintf(cpu, sizeof cpu, "%s, %.0f hardware threads, %.0f OpenMP threads",
             or_text(run.cpu, "?"), given(run.cpu_threads, NULL),
             given(run.omp_threads, NULL));
    meta_row(f, "CPU", cpu);
    char gpu[256] = "";
    if (run.gpu[0])
      snprintf(gpu, sizeof gpu, "%s, driver %s", run.gpu,
               or_text(run.driver, "?"));
    meta_row(f, "GPU", gpu[0] ? gpu : "none");
    meta_row(f, "host", run.host);
    /* The devices the results ran on. */
    char devices[1024] = "";
    for (size_t k = 0; k < rep->count; k++) {
      const row *r = &rep->rows[k];
      if (r->file != i) continue;
      int seen = 0;
      for (size_t q = 0; q < k && !seen; q++)
        seen = rep->rows[q].file == i && !strcmp(rep->rows[q].backend, r->backend) &&
               !strcmp(rep->rows[q].device, r->device);
      if (seen) continue;
      const size_t used = strlen(devices);
      snprintf(devices + used, sizeof devices - used, "%s%s: %s",
               used ? "; " : "", r->backend, r->device);
    }
    meta_row(f, "devices", devices);
    char b[512];
    snprintf(b, sizeof b, "kladder %s, commit %s, %s; %s %s",
             or_text(run.version, "?"), or_text(run.commit, "?"),
             or_text(run.build_type, "?"), or_text(run.c_compiler, "?"),
             run.c_flags);
    meta_row(f, "build", b);
    if (run.gpu_compiler[0]) {
      snprintf(b, sizeof b, "%s %s", run.gpu_compiler, run.gpu_flags);
      meta_row(f, "GPU build", b);
    }
    if (!isnan(run.reps))
      snprintf(b, sizeof b, "%.0f timed runs after %.0f warm-up, seed %.0f; "
               "time: the median", run.reps, given(run.warmup, NULL),
               given(run.seed, NULL));
    else
      snprintf(b, sizeof b, "timed runs until the median is known to "
               "+/-%g%%, after %.0f warm-up, seed %.0f; time: the median",
               100 * given(run.precision, NULL), given(run.warmup, NULL),
               given(run.seed, NULL));
    meta_row(f, "runs", b);
    meta_row(f, "format", run.format);
    meta_row(f, "notes", run.notes);
    if (run.interrupted)
      meta_row(f, "interrupted", "the run was stopped: these are the rungs "
               "that finished");
    fputs("</table>\n", f);
  }
}

static void page(report *rep) {
  FILE *f = rep->f;
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width\">"
        "<title>kladder report</title><style>", f);
  fputs(style, f);
  fputs("</style></head><body>\n<h1>kladder report</h1>\n", f);
  /* The hatching of known-wrong bars, defined once. */
  fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\" "
        "aria-hidden=\"true\"><defs><pattern id=\"hatch\" width=\"6\" "
        "height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\""
        "rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff4d6\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#c90\" "
        "stroke-width=\"3\"/></pattern></defs></svg>\n", f);
  header(rep);
  if (rep->extra) rep->extra(f, rep->extra_ctx);
  const int groups = make_groups(rep);
  fputs("<nav><p>", f);
  for (size_t i = 0; i < rep->count; i++) {
    const row *r = &rep->rows[i];
    if (r->group < 0) continue;
    int first = 1;
    for (size_t k = 0; k < i && first; k++)
      first = rep->rows[k].group < 0 || strcmp(rep->rows[k].workload, r->workload);
    if (!first) continue;
    kl__html_text(f, "<a href=\"#w-", r->workload, "\">");
    kl__html_text(f, "", r->workload, "</a> ");
  }
  fputs("</p></nav>\n", f);
  ladders(rep, groups);
  ceilings(rep);
  rooflines(rep);
  energy_rooflines(rep);
  growth(rep);
  timelines(rep);
  fputs("<p id=\"selfcheck\">selfcheck: not run (scripts off)</p>\n", f);
  fputs(check_script, f);
  fputs("</body></html>\n", f);
}

/* ---- files --------------------------------------------------------------- */

static int write_whole(const char *out, const char *text, size_t len,
                       char *err, size_t errlen) {
  if (strcmp(out, "-") == 0) {
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
      snprintf(err, errlen, "cannot write the report to standard output: %s",
               strerror(errno));
      return 2;
    }
    return 0;
  }
  struct stat st;
  if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "cannot write the report to %s: a directory", out);
    return 2;
  }
  if (kl__file_write(out, text, len) != KL_OK) {
    snprintf(err, errlen, "%s", kl_last_error());
    return 2;
  }
  return 0;
}

static int page_of(FILE *f, const char *const *inputs, int count,
                   kl__report_extra extra, const void *ctx, kl_history *db,
                   char *err, size_t errlen) {
  if (count < 1 || count > MAX_FILES) {
    snprintf(err, errlen, "a report reads 1 to %d results files, not %d",
             MAX_FILES, count);
    return 2;
  }
  report rep = {0};
  rep.extra = extra;
  rep.extra_ctx = ctx;
  rep.db = db;
  int rc = 0;
  for (int i = 0; i < count && rc == 0; i++)
    rc = load(&rep, inputs[i], err, errlen);
  if (rc == 0) {
    rep.f = f;
    page(&rep);
  }
  for (int i = 0; i < rep.files; i++) kl_results_free(rep.docs[i]);
  free(rep.rows);
  return rc;
}

int kl__report_page(FILE *f, const char *const *inputs, int count,
                    kl__report_extra extra, const void *ctx, char *err,
                    size_t errlen) {
  return page_of(f, inputs, count, extra, ctx, NULL, err, errlen);
}

int kl__report_write(const char *out, const char *const *inputs, int count,
                    kl_history *db, char *err, size_t errlen) {
  for (int i = 0; i < count; i++)
    if (strcmp(out, "-") != 0 &&
        kl__same_file(out, inputs[i])) {
      snprintf(err, errlen, "the report %s would overwrite the results file "
               "it reads", out);
      return 2;
    }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    snprintf(err, errlen, "out of memory");
    return 2;
  }
  int rc = page_of(f, inputs, count, NULL, NULL, db, err, errlen);
  if (fclose(f) != 0 && rc == 0) {
    snprintf(err, errlen, "out of memory");
    rc = 2;
  }
  if (rc == 0) rc = write_whole(out, text, len, err, errlen);
  free(text);
  return rc;
}

kl_status kl_report_write_html(const char *out, const char *const *inputs,
                               size_t count, kl_history *db) {
  char err[1024];
  if (!out || (!inputs && count))
    return kl__usage(KL_USAGE, "kl_report_write_html: no output or inputs");
  if (kl__report_write(out, inputs, count > INT_MAX ? INT_MAX : (int)count,
                       db, err, sizeof err))
    return kl__usage(KL_USAGE, "%s", err);
  return kl__done(KL_OK);
}
