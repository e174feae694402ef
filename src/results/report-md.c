/* `kladder report --markdown`: the performance page of a set of results
 * files (kladder run --json), in Markdown.
 *
 * A machine is the folder a file lies in (results/h100/reduce.json is
 * machine h100), a column of every table; --machines NAME,... sets the
 * columns and their order, a named machine with no file among them
 * reading "not measured" throughout. Each problem (workload, type and
 * operation) is a table whose rows are the backends (a distributed run's
 * are "BACKEND, R ranks"), those of the files and those --backends names;
 * a cell is the fastest rung that passed its check on that backend and
 * machine: its rate, its share of the ceiling measured in the same run,
 * and its speed over the vendor rung of the same backend where the run
 * has one. The machines' table says each one's device, host, kladder
 * version and the date its runs started. The page depends on nothing but
 * the files and the options: the same files make the same page. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "results.h"
#include "../core/internal.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tool.h"

#define MAX_MACHINES 16
#define MAX_ROWS 32
#define MAX_PROBLEMS 128
#define NAME 96

typedef struct machine {
  char name[NAME];
  char device[160], host[160], version[32], first[16], last[16];
  int files;
} machine;

/* One problem's table: its rows and, per row and machine, the best
 * result so far (NULL: none). */
typedef struct problem {
  char workload[NAME], type[16], op[32];
  int rows;
  char row[MAX_ROWS][NAME];
  const kl__row *best[MAX_ROWS][MAX_MACHINES];
  const kl__row *vendor[MAX_ROWS][MAX_MACHINES];
} problem;

typedef struct page {
  machine m[MAX_MACHINES];
  int machines, fixed; /* fixed: --machines named them all */
  problem *p;
  int problems;
  char extra_rows[MAX_ROWS][NAME];
  int extras;
} page;

/* The folder a path lies in, its last component ("." where none). */
static void folder_of(const char *path, char *dst, size_t size) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dst, size, ".");
    return;
  }
  const char *start = slash;
  while (start > path && start[-1] != '/') start--;
  snprintf(dst, size, "%.*s", (int)(slash - start), start);
}

static int machine_index(page *pg, const char *name, int add) {
  for (int i = 0; i < pg->machines; i++)
    if (!strcmp(pg->m[i].name, name)) return i;
  if (!add || pg->machines == MAX_MACHINES) return -1;
  machine *m = &pg->m[pg->machines];
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%.*s", NAME - 1, name);
  return pg->machines++;
}

static int row_index(problem *p, const char *row) {
  for (int i = 0; i < p->rows; i++)
    if (!strcmp(p->row[i], row)) return i;
  if (p->rows == MAX_ROWS) return -1;
  snprintf(p->row[p->rows], NAME, "%s", row);
  return p->rows++;
}

static problem *problem_of(page *pg, const char *w, const char *type,
                           const char *op) {
  for (int i = 0; i < pg->problems; i++)
    if (!strcmp(pg->p[i].workload, w) && !strcmp(pg->p[i].type, type) &&
        !strcmp(pg->p[i].op, op))
      return &pg->p[i];
  if (pg->problems == MAX_PROBLEMS) return NULL;
  problem *p = &pg->p[pg->problems++];
  memset(p, 0, sizeof *p);
  snprintf(p->workload, sizeof p->workload, "%s", w);
  snprintf(p->type, sizeof p->type, "%s", type);
  snprintf(p->op, sizeof p->op, "%s", op);
  for (int i = 0; i < pg->extras; i++) row_index(p, pg->extra_rows[i]);
  return p;
}

/* One file's results into the page, under machine mi. */
static void take_results(page *pg, int mi, const kl__row *rows, size_t count) {
  for (size_t i = 0; i < count; i++) {
    const kl__row *r = &rows[i];
    if (r->ceiling_only || strcmp(r->status, "success") ||
        strcmp(r->check, "PASS") || !(r->rate > 0))
      continue;
    problem *p = problem_of(pg, r->workload[0] ? r->workload : "?", r->type,
                            r->op);
    if (!p) continue;
    char row[NAME];
    const char *backend = r->backend[0] ? r->backend : "?";
    if (r->ranks > 1)
      snprintf(row, sizeof row, "%s, %d ranks", backend, (int)r->ranks);
    else
      snprintf(row, sizeof row, "%s", backend);
    const int k = row_index(p, row);
    if (k < 0) continue;
    const kl__row **best = &p->best[k][mi];
    if (!*best || r->rate > (*best)->rate) *best = r;
    if (kl__flagged(r->flags, "vendor")) {
      const kl__row **v = &p->vendor[k][mi];
      if (!*v || r->rate > (*v)->rate) *v = r;
    }
  }
}

static void take_machine(machine *m, const kl__run_view *run) {
  char date[16];
  snprintf(date, sizeof date, "%.10s", run->started);
  if (!m->files || strcmp(date, m->last) > 0) {
    snprintf(m->device, sizeof m->device, "%s",
             run->gpu[0] ? run->gpu : "no GPU");
    snprintf(m->host, sizeof m->host, "%s, %d threads",
             run->cpu[0] ? run->cpu : "unknown CPU",
             isnan(run->cpu_threads) ? 0 : (int)run->cpu_threads);
    snprintf(m->version, sizeof m->version, "%s",
             run->kladder[0] ? run->kladder : "?");
    snprintf(m->last, sizeof m->last, "%s", date);
  }
  if (!m->files || strcmp(date, m->first) < 0)
    snprintf(m->first, sizeof m->first, "%s", date);
  m->files++;
}

/* A rate in three significant figures, in the unit's next thousand up
 * where it reaches it (GB/s to TB/s, GFLOP/s to TFLOP/s). */
static void rate_text(double rate, const char *unit, char *dst, size_t size) {
  char u[32];
  snprintf(u, sizeof u, "%s", unit);
  if (rate >= 1000 && u[0] == 'G') {
    rate /= 1000;
    u[0] = 'T';
  }
  if (rate >= 100) snprintf(dst, size, "%.0f %s", rate, u);
  else if (rate >= 10) snprintf(dst, size, "%.1f %s", rate, u);
  else snprintf(dst, size, "%.3g %s", rate, u);
}

/* A cell: the rung, its rate, its share of the ceiling and its speed
 * over the vendor rung; brief, the rate alone ("-": not measured). */
static void cell(FILE *f, const kl__row *best, const kl__row *vendor,
                 int brief) {
  if (!best) {
    fputs(brief ? " - |" : " not measured |", f);
    return;
  }
  char rate[64];
  rate_text(best->rate, best->unit, rate, sizeof rate);
  if (brief) {
    fprintf(f, " %s |", rate);
    return;
  }
  fprintf(f, " %s: %s", best->rung[0] ? best->rung : "?", rate);
  if (!isnan(best->percent_ceiling))
    fprintf(f, ", %.0f%% of ceiling", best->percent_ceiling);
  if (vendor && vendor != best)
    fprintf(f, ", %.2fx %s", best->rate / vendor->rate,
            vendor->rung[0] ? vendor->rung : "?");
  else if (vendor)
    fputs(" (vendor)", f);
  fputs(" |", f);
}

/* The machines' column heads, each with its kladder version and the date
 * its runs started (brief: the names alone), and the rule under them. */
static void header(FILE *f, const page *pg, int brief) {
  for (int m = 0; m < pg->machines; m++) {
    const machine *x = &pg->m[m];
    if (x->files && !brief)
      fprintf(f, " %s (%s, %s) |", x->name, x->version, x->last);
    else fprintf(f, " %s |", x->name);
  }
  fputs("\n| --- |", f);
  for (int m = 0; m < pg->machines; m++) fputs(" --- |", f);
  fputc('\n', f);
}

static int by_workload(const void *a, const void *b) {
  const problem *x = a, *y = b;
  int c = strcmp(x->workload, y->workload);
  if (!c) c = strcmp(x->type, y->type);
  return c ? c : strcmp(x->op, y->op);
}

static void write_page(FILE *f, page *pg) {
  fputs("# Performance\n\n", f);
  fputs("<!-- Made by `kladder report --markdown` from results files (`make "
        "performance`): edit those, not this page. -->\n\n", f);
  fputs("Each cell is the fastest rung that passed its check on that backend "
        "and machine: its median\nrate, its share of the ceiling measured in "
        "the same run, and its speed over the vendor\nlibrary's rung of the "
        "same backend where the run has one (`kladder run` at its default\n"
        "sizes). \"not measured\": no run of that backend on that machine is "
        "kept.\n\n", f);
  fputs("## Machines\n\n| machine | device | host | kladder | run |\n"
        "| --- | --- | --- | --- | --- |\n", f);
  for (int i = 0; i < pg->machines; i++) {
    const machine *m = &pg->m[i];
    if (!m->files) {
      fprintf(f, "| %s | not measured | | | |\n", m->name);
      continue;
    }
    fprintf(f, "| %s | %s | %s | %s | %s", m->name, m->device, m->host,
            m->version, m->first);
    if (strcmp(m->first, m->last)) fprintf(f, " to %s", m->last);
    fputs(" |\n", f);
  }
  qsort(pg->p, (size_t)pg->problems, sizeof *pg->p, by_workload);
  /* The summary: each problem's fastest rate on any backend, a row
   * (brief: README quotes it; the tables under it say which rung). */
  fputs("\n## Summary\n\nEach problem's fastest rate on each machine, on "
        "any backend (the tables below\nsay which rung); \"-\": not "
        "measured.\n\n<!-- summary -->\n| problem |", f);
  header(f, pg, 1);
  for (int i = 0; i < pg->problems; i++) {
    const problem *p = &pg->p[i];
    fprintf(f, "| %s", p->workload);
    if (p->type[0]) fprintf(f, ", %s", p->type);
    if (p->op[0]) fprintf(f, ", %s", p->op);
    fputs(" |", f);
    for (int m = 0; m < pg->machines; m++) {
      int best = -1;
      for (int k = 0; k < p->rows; k++)
        if (p->best[k][m] &&
            (best < 0 || p->best[k][m]->rate > p->best[best][m]->rate))
          best = k;
      cell(f, best < 0 ? NULL : p->best[best][m],
           best < 0 ? NULL : p->vendor[best][m], 1);
    }
    fputc('\n', f);
  }
  fputs("<!-- end summary -->\n", f);
  for (int i = 0; i < pg->problems; i++) {
    problem *p = &pg->p[i];
    fprintf(f, "\n## %s", p->workload);
    if (p->type[0]) fprintf(f, ", %s", p->type);
    if (p->op[0]) fprintf(f, ", %s", p->op);
    fputs("\n\n| backend |", f);
    header(f, pg, 0);
    for (int k = 0; k < p->rows; k++) {
      fprintf(f, "| %s |", p->row[k]);
      for (int m = 0; m < pg->machines; m++)
        cell(f, p->best[k][m], p->vendor[k][m], 0);
      fputc('\n', f);
    }
  }
}

/* A comma-separated list into names (each at most NAME - 1). */
static int split_names(const char *list, char (*names)[NAME], int max,
                       int *count) {
  *count = 0;
  for (const char *s = list; *s;) {
    const char *end = strchr(s, ',');
    const size_t n = end ? (size_t)(end - s) : strlen(s);
    if (n == 0 || n >= NAME || *count == max) return -1;
    snprintf(names[(*count)++], NAME, "%.*s", (int)n, s);
    s += n + (end ? 1 : 0);
    if (end && !*s) return -1;
  }
  return 0;
}

int kl__report_markdown(const char *out, const char *const *inputs, int count,
                        const char *machines, const char *backends, char *err,
                        size_t errlen) {
  page *pg = calloc(1, sizeof *pg);
  if (pg) pg->p = calloc(MAX_PROBLEMS, sizeof *pg->p);
  if (!pg || !pg->p) {
    if (pg) free(pg->p);
    free(pg);
    return kl__said(2, err, errlen, "out of memory");
  }
  int rc = 0;
  char names[MAX_MACHINES][NAME];
  int n = 0;
  if (machines && split_names(machines, names, MAX_MACHINES, &n))
    rc = kl__said(2, err, errlen,
                  "--machines '%s': names separated by commas, at most 16",
                  machines);
  for (int i = 0; i < n && !rc; i++) machine_index(pg, names[i], 1);
  pg->fixed = machines != NULL;
  if (!rc && backends &&
      split_names(backends, pg->extra_rows, MAX_ROWS, &pg->extras))
    rc = kl__said(2, err, errlen, "--backends '%s': names separated by commas",
                  backends);
  for (int i = 0; i < count && !rc; i++)
    if (!strcmp(out, inputs[i]))
      rc = kl__said(2, err, errlen,
                    "-o %s would overwrite the results file it reads", out);
  if (!rc && count < 1)
    rc = kl__said(2, err, errlen, "no results file");
  kl_results **docs = rc ? NULL : calloc((size_t)(count > 0 ? count : 1),
                                         sizeof *docs);
  kl__row **rows = rc ? NULL : calloc((size_t)(count > 0 ? count : 1),
                                      sizeof *rows);
  if (!rc && (!docs || !rows))
    rc = kl__said(2, err, errlen, "out of memory");
  for (int i = 0; i < count && !rc; i++) {
    if (kl_results_read(inputs[i], &docs[i]) != KL_OK) {
      rc = kl__said(2, err, errlen, "%s", kl_last_error());
      break;
    }
    const size_t results = kl_results_count(docs[i]);
    rows[i] = calloc(results, sizeof **rows);
    if (!rows[i]) {
      rc = kl__said(2, err, errlen, "out of memory");
      break;
    }
    for (size_t k = 0; k < results; k++)
      kl__results_row(docs[i], k, &rows[i][k]);
    kl__run_view run;
    kl__results_run(docs[i], &run);
    char folder[NAME];
    folder_of(inputs[i], folder, sizeof folder);
    const int mi = machine_index(pg, folder, !pg->fixed);
    if (mi < 0) {
      rc = kl__said(2, err, errlen, "%s: machine '%s' is not among --machines",
                    inputs[i], folder);
      break;
    }
    take_machine(&pg->m[mi], &run);
    take_results(pg, mi, rows[i], results);
  }
  if (!rc) {
    /* The page made in memory, then written as every output is. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
      rc = kl__said(2, err, errlen, "out of memory");
    } else {
      write_page(f, pg);
      if (fclose(f) != 0)
        rc = kl__said(2, err, errlen, "out of memory");
      else if (kl__file_write(out, text, len) != KL_OK)
        rc = kl__said(2, err, errlen, "%s", kl_last_error());
    }
    free(text);
  }
  for (int i = 0; docs && i < count; i++) {
    kl_results_free(docs[i]);
    if (rows) free(rows[i]);
  }
  free(docs);
  free(rows);
  free(pg->p);
  free(pg);
  return rc;
}

kl_status kl_report_write_markdown(const char *out,
                                   const char *const *inputs, size_t count,
                                   const char *machines,
                                   const char *backends) {
  char err[1024];
  if (!out || (!inputs && count) || count > INT_MAX)
    return kl__usage(KL_USAGE, "kl_report_write_markdown: no output or "
                     "inputs");
  if (kl__report_markdown(out, inputs, (int)count, machines, backends, err,
                          sizeof err))
    return kl__usage(KL_USAGE, "%s", err);
  return kl__done(KL_OK);
}
