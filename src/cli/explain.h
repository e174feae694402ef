/* `kladder explain`: a ladder as a lesson (explain.c). Each rung in ladder
 * order: its technique (LESSONS.md), its code with its file's line
 * numbers, the diff against the previous rung of the same backend, the
 * model's prediction, and with measurements (a results file, or the run
 * just made) its time, rate, share of the ceiling, speedup over the
 * previous step and a one-line verdict. 80 columns. */
#ifndef KL_CLI_EXPLAIN_H
#define KL_CLI_EXPLAIN_H

#include <stdio.h>

#include <kladder-run.h>

/* One rung's measurement, as a results file or a report holds it. */
typedef struct explain_measure {
  const char *workload, *rung;
  int ok;            /* it ran (status success) */
  double median_s, rate, ceiling, percent;
  const char *unit;
  const char *check; /* "PASS", "WRONG(expected)", ... */
  const char *ceiling_note;
  long long bad_elements;
  double abs_error, over_tolerance; /* the worst error, and over its bound */
  long long n;
} explain_measure;

/* argv[0] is "explain": the command's exit code. */
int explain_main(int argc, char **argv);
/* The lessons of every workload in a report just made (`kladder run
 * --explain`), with its measurements; 0, or an exit code. */
int explain_report(const kl_report *rep, FILE *f);

#endif
