/* `kladder explain`: see explain.h. The text, code and diff come from the
 * lessons embedded at build time (lesson.c); the prediction from the
 * library's model (kl_rung_predict); the measurements from a results file
 * (json-read.c) or a report. */
#include "explain.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tool.h"
#include "args.h"
#include "../results/lesson.h"
#include "text.h"

#define WIDTH 80

static const char usage_explain[] =
    "usage: kladder explain -w W [-b B] [-r RUNG] [-n N] [--results FILE]\n"
    "\n"
    "The ladder of workload W as a lesson: for each rung in ladder order, its\n"
    "technique, its code (with its file's line numbers), the lines that\n"
    "differ from the previous rung of the same backend, and the model's\n"
    "prediction (bytes, flops and items per repetition, and the ceiling the\n"
    "rate is compared with). The lessons and the code are embedded when\n"
    "kladder is built, so the code shown is the code that runs.\n"
    "\n"
    "  -w, --workload W   the workload (one)\n"
    "  -b, --backend B    only rungs of these backends (names or globs)\n"
    "  -r, --rung R       only these rungs (names or globs)\n"
    "  -n, --size N       the size the prediction is for (default: the\n"
    "                     rung's default, or the measured one), and of the\n"
    "                     results taken\n"
    "  --results FILE     measurements of `kladder run --json`: each step's\n"
    "                     time, rate, share of the ceiling, speedup over the\n"
    "                     previous step and what the step bought (each\n"
    "                     rung's first result in the file, of size N with -n)\n"
    "  -h, --help         this text\n"
    "\n"
    "exit codes: 0 every lesson shown whole; 1 a lesson or its code missing\n"
    "(the rest is shown); 2 bad usage or an unreadable results file.\n";

/* ---- printing ------------------------------------------------------------ */

/* A source line after a margin of `margin` characters, cut into pieces
 * that fit WIDTH columns, the pieces after the first under `cont`. */
static void code_text(FILE *f, const char *text, int length, int margin,
                      const char *cont) {
  const int room = WIDTH - margin;
  int at = 0;
  do {
    const int piece = length - at > room ? room : length - at;
    if (at > 0) fputs(cont, f);
    fprintf(f, "%.*s\n", piece, text + at);
    at += piece;
  } while (at < length);
}

static void print_code(FILE *f, const lesson *l) {
  const char *path = NULL;
  for (int i = 0; i < l->line_count; i++) {
    const lesson_line *ln = &l->lines[i];
    if (!ln->path) {
      fputs("         ...\n", f);
      continue;
    }
    if (!path || strcmp(path, ln->path) != 0) {
      path = ln->path;
      fprintf(f, "  src/%s\n", path);
    }
    fprintf(f, "  %5d | ", ln->number);
    code_text(f, ln->text, ln->length, 10, "        | ");
  }
}

static void print_diff(FILE *f, const diff_line *d, int count) {
  for (int i = 0; i < count; i++) {
    if (d[i].op == '@') {
      fprintf(f, "  @@ -%d +%d @@\n", d[i].old_start, d[i].new_start);
      continue;
    }
    const lesson_line *ln = d[i].line;
    if (!ln->path) {
      fprintf(f, "  %c      ...\n", d[i].op);
      continue;
    }
    fprintf(f, "  %c%5d | ", d[i].op, ln->number);
    code_text(f, ln->text, ln->length, 11, "         | ");
  }
}

/* 1.5 GB, 83.9 MFLOP: a count in its unit with a decimal prefix. */
static void amount(char *dst, size_t size, double v, const char *unit) {
  static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
  int k = 0;
  while (v >= 1000 && k < 5) v /= 1000, k++;
  snprintf(dst, size, "%.4g %s%s", v, prefix[k], unit);
}

/* ---- the ladder ---------------------------------------------------------- */

typedef struct step {
  kl_rung_info info;
  lesson les;
  int found;   /* its lesson was found (the text at least) */
  char why[320];
  const explain_measure *m;
} step;

static const char *verdict_of(const explain_measure *m) {
  return m->check ? m->check : "";
}

static int passed(const explain_measure *m) {
  return m && m->ok && m->check &&
         (!strcmp(m->check, "PASS") || !strcmp(m->check, "UNVERIFIABLE"));
}

static void print_measured(FILE *f, const step *s, const step *before,
                           const char *before_name) {
  const explain_measure *m = s->m;
  if (!m) {
    fputs("  Measured: not in the results\n", f);
    return;
  }
  if (!m->ok) {
    fprintf(f, "  Measured: did not run (%s)\n", verdict_of(m));
    return;
  }
  char line[512];
  int used = snprintf(line, sizeof line,
                      "Measured: n = %lld, median %.6g ms, rate %.6g %s",
                      m->n, m->median_s * 1e3, m->rate, m->unit);
  if (m->ceiling > 0)
    used += snprintf(line + used, sizeof line - (size_t)used,
                     ", %.6g%% of the ceiling %.6g %s", m->percent,
                     m->ceiling, m->unit);
  snprintf(line + used, sizeof line - (size_t)used, "; check %s",
           verdict_of(m));
  kl__lesson_wrap(f, line, 2, WIDTH - 2);
  if (s->info.flags & KL_RUNG_KNOWN_WRONG) {
    const int caught = !strcmp(verdict_of(m), "WRONG(expected)");
    snprintf(line, sizeof line, "Verdict: known wrong, %s%s%s%s",
             caught ? "caught" : "not caught at this size",
             m->ceiling_note ? ": " : "",
             m->ceiling_note ? m->ceiling_note : "",
             !m->ceiling_note && m->bad_elements > 0 ? ": elements wrong" : "");
    if (!m->ceiling_note && m->bad_elements > 0)
      snprintf(line, sizeof line, "Verdict: known wrong, %s by the check: "
               "%lld element%s outside the tolerance, the worst off by %.4g "
               "(%.4g times its bound); not a result",
               caught ? "caught" : "not caught", m->bad_elements,
               m->bad_elements == 1 ? "" : "s", m->abs_error,
               m->over_tolerance);
    kl__lesson_wrap(f, line, 2, WIDTH - 2);
    return;
  }
  if (!passed(m)) {
    snprintf(line, sizeof line, "Verdict: check %s: not a result%s%s",
             verdict_of(m), m->ceiling_note ? "; " : "",
             m->ceiling_note ? m->ceiling_note : "");
    kl__lesson_wrap(f, line, 2, WIDTH - 2);
    return;
  }
  if (!before) {
    kl__lesson_wrap(f, "Verdict: the first step measured: the base of the "
                       "speedups below", 2, WIDTH - 2);
    return;
  }
  const double speedup = before->m->median_s / m->median_s;
  if (m->ceiling > 0 && before->m->ceiling > 0)
    snprintf(line, sizeof line,
             "Verdict: %.3gx over %s from %s: %.3g%% -> %.3g%% of the "
             "ceiling", speedup, before_name, s->info.summary,
             before->m->percent, m->percent);
  else
    snprintf(line, sizeof line, "Verdict: %.3gx over %s from %s", speedup,
             before_name, s->info.summary);
  kl__lesson_wrap(f, line, 2, WIDTH - 2);
}

/* The lessons of workload wi's rungs selected by backends and rungs, with
 * measurements where `measures` has them; 0, or 1 where a lesson or its
 * code was missing. */
static int explain_workload(FILE *f, size_t wi, const char *backends,
                            const char *rungs, int64_t n,
                            const explain_measure *measures, size_t count) {
  kl_workload_info w;
  w.size = sizeof w;
  if (kl_workload_describe(wi, &w) != KL_OK) return 2;
  step *steps = calloc((size_t)w.rung_count, sizeof *steps);
  if (!steps) {
    fputs("kladder: error: out of memory\n", stderr);
    return 3;
  }
  int code = 0, shown = 0;
  for (int r = 0; r < w.rung_count; r++) {
    step *s = &steps[r];
    s->info.size = sizeof s->info;
    kl_rung_describe(wi, r, &s->info);
    s->found = kl__lesson_find(w.name, s->info.name, &s->les, s->why,
                               sizeof s->why) == 0;
    for (size_t k = 0; k < count; k++)
      if (!strcmp(measures[k].workload, w.name) &&
          !strcmp(measures[k].rung, s->info.name) &&
          (n <= 0 || measures[k].n == n)) {
        s->m = &measures[k];
        break;
      }
  }
  int selected = 0;
  for (int r = 0; r < w.rung_count; r++)
    selected += kl__selects(backends, steps[r].info.backend) &&
                kl__selects(rungs, steps[r].info.name);
  char head[512];
  snprintf(head, sizeof head, "%s: %s", w.name, w.summary);
  kl__lesson_wrap(f, head, 0, WIDTH);
  snprintf(head, sizeof head, "%d rung%s in ladder order, naive first; "
           "rate in %s; from %s", selected, selected == 1 ? "" : "s", w.unit,
           w.source ? w.source : "the project");
  kl__lesson_wrap(f, head, 2, WIDTH - 2);
  for (int r = 0; r < w.rung_count; r++) {
    step *s = &steps[r];
    if (!kl__selects(backends, s->info.backend) ||
        !kl__selects(rungs, s->info.name))
      continue;
    shown++;
    fputc('\n', f);
    char title[160];
    int len = snprintf(title, sizeof title, "== %d/%d %s (%s)%s%s%s ", shown,
                       selected, s->info.name, s->info.backend,
                       s->info.flags & KL_RUNG_KNOWN_WRONG ? " known-wrong" : "",
                       s->info.flags & KL_RUNG_VENDOR ? " vendor" : "",
                       s->info.flags & KL_RUNG_CEILING ? " ceiling" : "");
    fputs(title, f);
    for (int k = len; k < WIDTH; k++) fputc('=', f);
    fputc('\n', f);
    kl__lesson_wrap(f, s->info.summary, 2, WIDTH - 2);
    if (!s->found) {
      char line[512];
      snprintf(line, sizeof line, "(no lesson: %s)", s->why);
      kl__lesson_wrap(f, line, 2, WIDTH - 2);
      code = 1;
    } else {
      fputc('\n', f);
      if (s->les.from[0]) fprintf(f, "  From %s.\n", s->les.from);
      kl__lesson_wrap(f, s->les.text, 2, WIDTH - 2);
      fputc('\n', f);
      if (s->les.line_count == 0) {
        char line[512];
        snprintf(line, sizeof line, "Code: not found (%s)", s->why);
        kl__lesson_wrap(f, line, 2, WIDTH - 2);
        code = 1;
      } else {
        fputs("  Code:\n", f);
        print_code(f, &s->les);
      }
    }
    /* The previous rung of the same backend (a known-wrong one is no
     * step to build on), for the diff. */
    const step *prev = NULL;
    for (int k = r - 1; k >= 0 && !prev; k--)
      if (!strcmp(steps[k].info.backend, s->info.backend) &&
          !(steps[k].info.flags & KL_RUNG_KNOWN_WRONG))
        prev = &steps[k];
    if (s->found && s->les.line_count > 0) {
      if (!prev) {
        fprintf(f, "\n  Changes: the first %s rung, nothing before it\n",
                s->info.backend);
      } else if (!prev->found || prev->les.line_count == 0) {
        fprintf(f, "\n  Changes from %s: its code is not known\n",
                prev->info.name);
      } else {
        diff_line *d = NULL;
        int lines = 0, changed = 0;
        if (kl__lesson_diff(&prev->les, &s->les, &d, &lines, &changed) != 0) {
          fprintf(f, "\n  Changes from %s: too long to compare\n",
                  prev->info.name);
        } else if (changed == 0) {
          fprintf(f, "\n  Changes from %s: the same code (%s)\n",
                  prev->info.name, "it differs in how it is run");
        } else {
          fprintf(f, "\n  Changes from %s (%d lines):\n", prev->info.name,
                  changed);
          print_diff(f, d, lines);
        }
        free(d);
      }
    }
    kl_prediction p;
    p.size = sizeof p;
    const int64_t at = n > 0 ? n : s->m && s->m->n > 0 ? s->m->n : 0;
    if (kl_rung_predict(wi, r, at, &p) == KL_OK) {
      char bytes[32], flops[32], line[512];
      amount(bytes, sizeof bytes, p.cost.bytes, "B");
      amount(flops, sizeof flops, p.cost.flops, "FLOP");
      snprintf(line, sizeof line, "Model: n = %lld %s: %s moved, %s, %.0f "
               "items per repetition; ceiling: %s", (long long)p.n,
               kl_type_name(p.type), bytes, flops, p.cost.items, p.ceiling);
      fputc('\n', f);
      kl__lesson_wrap(f, line, 2, WIDTH - 2);
    } else {
      char line[512];
      snprintf(line, sizeof line, "Model: %s", kl_last_error());
      fputc('\n', f);
      kl__lesson_wrap(f, line, 2, WIDTH - 2);
    }
    if (measures) {
      /* The previous step measured and passed, on any backend. */
      const step *before = NULL;
      for (int k = r - 1; k >= 0 && !before; k--)
        if (kl__selects(backends, steps[k].info.backend) &&
            kl__selects(rungs, steps[k].info.name) && passed(steps[k].m) &&
            !(steps[k].info.flags & KL_RUNG_KNOWN_WRONG))
          before = &steps[k];
      print_measured(f, s, before, before ? before->info.name : "");
    }
  }
  for (int r = 0; r < w.rung_count; r++) kl__lesson_free(&steps[r].les);
  free(steps);
  return code;
}

/* ---- measurements -------------------------------------------------------- */

/* 0 for a number the file does not give. */
static double or_zero(double v) { return isnan(v) ? 0 : v; }

static int measures_of_json(const kl_results *file, explain_measure **out,
                            size_t *count) {
  const size_t results = kl_results_count(file);
  *out = NULL;
  *count = 0;
  explain_measure *m = calloc(results + 1, sizeof *m);
  if (!m) return -1;
  for (size_t i = 0; i < results; i++) {
    kl__row r;
    kl__results_row(file, i, &r);
    /* The ceiling's own job at its size is not the rung's measurement. */
    if (r.ceiling_only) continue;
    explain_measure *e = &m[(*count)++];
    e->workload = r.workload;
    e->rung = r.rung;
    e->ok = !strcmp(r.status, "success");
    e->median_s = or_zero(r.median_s);
    e->rate = or_zero(r.rate);
    e->ceiling = or_zero(r.ceiling);
    e->percent = or_zero(r.percent_ceiling);
    e->unit = r.unit;
    e->check = e->ok ? r.check : r.error[0] ? r.error : "an error";
    e->ceiling_note = r.ceiling_note[0] ? r.ceiling_note : NULL;
    e->bad_elements = (long long)or_zero(r.bad_elements);
    e->n = (long long)or_zero(r.n);
    e->abs_error = or_zero(r.abs_error);
    e->over_tolerance = or_zero(r.error_over_tolerance);
  }
  *out = m;
  return 0;
}

int explain_report(const kl_report *rep, FILE *f) {
  const size_t count = kl_report_count(rep);
  explain_measure *m = calloc(count + 1, sizeof *m);
  if (!m) return 3;
  for (size_t i = 0; i < count; i++) {
    const kl_result *r = kl_report_result(rep, i);
    m[i] = (explain_measure){r->workload, r->rung, r->status == KL_OK,
                             r->t_median, r->merit, r->ceiling, r->percent,
                             r->unit,
                             r->status == KL_OK ? kl__check_text(r) : r->error,
                             r->ceiling_note, (long long)r->verdict.bad_count,
                             r->verdict.abs_error, r->verdict.max_error,
                             (long long)r->n};
  }
  int code = 0;
  /* Each workload of the report once, in the order first met. */
  for (size_t i = 0; i < count; i++) {
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++)
      seen = !strcmp(m[k].workload, m[i].workload);
    size_t wi;
    if (seen || kl_workload_index(m[i].workload, &wi) != KL_OK) continue;
    /* Only the rungs that ran. */
    char rungs[4096] = "";
    size_t used = 0;
    for (size_t k = 0; k < count; k++)
      if (!strcmp(m[k].workload, m[i].workload) && used + 80 < sizeof rungs)
        used += (size_t)snprintf(rungs + used, sizeof rungs - used, "%s%s",
                                 used ? "," : "", m[k].rung);
    fputc('\n', f);
    const int c = explain_workload(f, wi, NULL, rungs, 0, m, count);
    if (c > code) code = c;
  }
  free(m);
  return code;
}

int explain_main(int argc, char **argv) {
  const char *workload = NULL, *backends = NULL, *rungs = NULL;
  const char *results = NULL, *size = NULL;
  /* Each option takes one value, once: which of two would count is not
   * for their order to decide. */
  arg_option options[] = {{"workload", 'w', ARG_VALUE, &workload, NULL, 0},
                          {"backend", 'b', ARG_VALUE, &backends, NULL, 0},
                          {"rung", 'r', ARG_VALUE, &rungs, NULL, 0},
                          {"size", 'n', ARG_VALUE, &size, NULL, 0},
                          {"results", 0, ARG_VALUE, &results, NULL, 0},
                          {0}};
  args a = {"explain", usage_explain, options, NULL, 0, NULL, 0};
  const int parsed = args_parse(&a, argc, argv);
  if (parsed >= 0) return parsed;
  if (!workload)
    return args_error("explain", "explain needs a workload: -w W");
  size_t wi;
  if (strchr(workload, ',') || kl_workload_index(workload, &wi) != KL_OK)
    return args_error("explain", "%s", strchr(workload, ',')
                                             ? "explain takes one workload"
                                             : kl_last_error());
  int64_t n = 0;
  if (size && kl_parse_size(size, &n) != KL_OK)
    return args_error("explain", "%s", kl_last_error());
  if (!kl__lesson_embedded)
    fputs("kladder: note: this build has no lessons (built with "
          "KL_LESSONS=OFF): the model's predictions alone\n", stderr);
  kl_results *file = NULL;
  explain_measure *m = NULL;
  size_t count = 0;
  if (results) {
    if (kl_results_read(results, &file) != KL_OK)
      return error_line("%s", kl_last_error());
    if (measures_of_json(file, &m, &count) != 0) {
      kl_results_free(file);
      fputs("kladder: error: ", stderr);
      one_line(stderr, results);
      fputs(": not a results file of `kladder run --json` (no results "
            "array)\n", stderr);
      return 2;
    }
  }
  int selected = 0;
  kl_workload_info w;
  w.size = sizeof w;
  kl_workload_describe(wi, &w);
  for (int r = 0; r < w.rung_count; r++) {
    kl_rung_info ri;
    ri.size = sizeof ri;
    kl_rung_describe(wi, r, &ri);
    selected += kl__selects(backends, ri.backend) && kl__selects(rungs, ri.name);
  }
  int code;
  if (!selected) {
    code = args_error("explain", "no rung of %s matches the -b and -r given",
                      w.name);
  } else {
    code = explain_workload(stdout, wi, backends, rungs, n,
                            results ? m : NULL, count);
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "kladder: error: writing the lesson: %s\n",
              strerror(errno ? errno : EIO));
      code = 3;
    }
  }
  free(m);
  kl_results_free(file);
  return code;
}
