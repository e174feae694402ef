/* `kladder compare BASE.json NEW.json`: the results of two runs
 * matched by workload, rung, backend, type, size and parameters, each pair
 * with its time ratio, its ratio of shares of the ceiling, a two-sided
 * Mann-Whitney U test over the timed runs and a verdict. Table, CSV, JSON
 * and HTML. On the command's JSON reader (json-read.h) and the C library
 * alone. */
#ifndef KL_CLI_COMPARE_H
#define KL_CLI_COMPARE_H

#include <stdio.h>

/* argv[0] is "compare": the command's exit code (0 no regression, 1 a
 * pair slower beyond the threshold or a new failure, 2 bad usage, input
 * or output). */
int compare_main(int argc, char **argv);

/* A comparison made: both files read, every pair decided. */
typedef struct compare_result compare_result;

/* Reads and compares two results files; 0 and *out, or -1 with one line
 * in err (the file named, line:column for a parse error). A warning (a
 * format newer than this kladder reads) goes to warn, one line, or is
 * empty. threshold >= 0, 0 < alpha < 1. */
int compare_files(const char *base, const char *new_path, double threshold,
                  double alpha, compare_result **out, char *err,
                  size_t errlen, char *warn, size_t warnlen);
void compare_free(compare_result *c);
/* The command's exit code for it: 1 for a regression, else 0. */
int compare_exit_code(const compare_result *c);

/* The comparison as HTML: with page, a whole self-contained document;
 * without, one <section class="kl-compare"> (its own <style> inside) for
 * a report to embed. Returns 0, or -1 where the stream failed. */
int compare_write_html(FILE *f, const compare_result *c, int page);

#endif
