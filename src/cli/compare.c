/* `kladder compare BASE.json NEW.json` (commands.h; docs/compare.md): its
 * arguments and output files; the comparison is the results layer's
 * (src/results/compare.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tool.h"
#include "args.h"
#include "commands.h"
#include "text.h"

static const char usage_compare[] =
    "usage: kladder compare [options] BASE.json NEW.json\n"
    "\n"
    "Compares two results files of `kladder run --json`: each result of NEW\n"
    "with BASE's of the same workload, rung, backend, type, size and\n"
    "parameters. The device's name is not part of the match (comparing\n"
    "machines is the point); a match found more than once in a file (a run\n"
    "on two devices) pairs in order of occurrence, and a note says so.\n"
    "\n"
    "  --threshold X   the smallest change that counts, a fraction of BASE's\n"
    "                  time (default 0.05: 5%)\n"
    "  --alpha A       the significance level of the U test, above 0 and\n"
    "                  below 1 (default 0.05)\n"
    "  --csv FILE      also write the comparison as CSV\n"
    "  --json FILE     also write it as JSON (format kladder-compare-1)\n"
    "  --html FILE     also write it as a self-contained HTML page\n"
    "  --field NAME    compare one numeric field of the results instead\n"
    "                  (`kladder list --fields` names them): each pair's\n"
    "                  value in BASE and NEW, NEW over BASE, and higher or\n"
    "                  lower where it moved by more than the threshold, else\n"
    "                  same; exit 1 where any pair moved\n"
    "  -h, --help      this text\n"
    "\n"
    "FILE - is standard output (the table then goes to standard error).\n"
    "Each file is written whole or not at all, and none names an input.\n"
    "\n"
    "The table, a row per pair: the median times; time, NEW's median over\n"
    "BASE's; %ceil, NEW's share of its ceiling over BASE's (fair across\n"
    "machines); interval, NEW's time over BASE's at 1 - A: the interval a\n"
    "two-sided Mann-Whitney U test over the timed runs inverts (Hodges-\n"
    "Lehmann; the CSV and JSON give the test's p too); the verdict:\n"
    "  slower   the interval above 1 (a change beyond the runs' noise), the\n"
    "           wider one at 1 - A/5 reaching 1 + X (it may be as large as\n"
    "           the threshold), the estimate at least half of X\n"
    "  faster   the same below 1, reaching 1 / (1 + X)\n"
    "  machine  slower or faster, but so was the ceiling timed beside the\n"
    "           rung in the same runs (the interval times the ceiling's rate\n"
    "           ratio holds 1): the machine moved, not the code\n"
    "  same     otherwise\n"
    "  failed   a check failed or the rung failed, on either side\n"
    "  aside    the rung stood aside on a side, and failed on neither\n"
    "With fewer than 3 timed runs on a side, or too few for the test to reach\n"
    "p < A at all (4 and 4 at 0.05), the interval reads 'few reps' and the\n"
    "ratio alone decides. Results of one file only are listed below.\n"
    "\n"
    "exit codes: 0 nothing slower (machine is not), 1 a pair slower or a\n"
    "check that passed in BASE failing in NEW (a CI regression gate), 2 bad\n"
    "usage or input (a file missing, empty, not JSON, not a results file or\n"
    "without results; an output that cannot be written or names an input).\n";

/* ---- output files -----------------------------------------------------------
 * Each is opened before any is written: a regular file under a temporary
 * name beside it, renamed into place once every file is complete; a
 * device or pipe directly, after the regular files; "-" is standard
 * output. */

enum { OUT_CSV, OUT_JSON, OUT_HTML, OUTS };
static const char *const out_flags[OUTS] = {"--csv", "--json", "--html"};
static const kl_format out_formats[OUTS] = {KL_FORMAT_CSV, KL_FORMAT_JSON,
                                           KL_FORMAT_HTML};

typedef struct output {
  const char *path;
  FILE *f;
  char *temp;   /* a regular file's temporary copy */
  int direct;   /* a device, a pipe or standard output */
} output;

static void output_discard(output *o) {
  if (o->f && o->f != stdout) fclose(o->f);
  o->f = NULL;
  if (o->temp) remove(o->temp);
  free(o->temp);
  o->temp = NULL;
}

/* "-" is standard output; any other path is opened as every output of the
 * library is (kl__output_file). */
static int output_open(output *o, char *why, size_t len) {
  if (strcmp(o->path, "-") == 0) {
    o->f = stdout;
    o->direct = 1;
    return 0;
  }
  char *dest = NULL;
  const kl_status st =
      kl__output_file(o->path, &o->f, &dest, &o->temp, why, len);
  free(dest);
  o->direct = !o->temp;
  return st == KL_OK ? 0 : -1;
}

/* Writes one output; closes it unless it is standard output. */
static int output_fill(output *o, int which, const kl_comparison *c,
                       char *why, size_t len) {
  errno = 0;
  const kl_status st = kl_comparison_print(c, out_formats[which], o->f);
  int bad = st != KL_OK;
  /* A report that cannot be drawn says why first. */
  if (bad && st != KL_IO) error_line("%s", kl_last_error());
  if (fflush(o->f) != 0) bad = 1;
  int e = bad ? (errno ? errno : EIO) : 0;
  if (o->f != stdout) {
    if (fclose(o->f) != 0 && !bad) {
      bad = 1;
      e = errno;
    }
    o->f = NULL;
  }
  return bad ? kl__said(-1, why, len, "%s", strerror(e)) : 0;
}

/* Every output whole, or none: 0, or the exit code after one line. */
static int write_outputs(const char *paths[OUTS], const kl_comparison *c) {
  output outs[OUTS];
  memset(outs, 0, sizeof outs);
  char why[256], show[SHOWN_SIZE];
  int code = 0, failed = -1;
  for (int i = 0; i < OUTS && !code; i++) {
    if (!paths[i]) continue;
    outs[i].path = paths[i];
    if (output_open(&outs[i], why, sizeof why)) {
      code = 2;
      failed = i;
    }
  }
  /* The regular files first, then devices and standard output. */
  for (int direct = 0; direct < 2 && !code; direct++)
    for (int i = 0; i < OUTS && !code; i++)
      if (paths[i] && outs[i].direct == direct &&
          output_fill(&outs[i], i, c, why, sizeof why)) {
        code = 2;
        failed = i;
      }
  for (int i = 0; i < OUTS && !code; i++)
    if (outs[i].temp) {
      if (rename(outs[i].temp, outs[i].path) != 0) {
        kl__said(-1, why, sizeof why, "%s", strerror(errno));
        code = 2;
        failed = i;
        break;
      }
      free(outs[i].temp);
      outs[i].temp = NULL;
    }
  for (int i = 0; i < OUTS; i++) output_discard(&outs[i]);
  if (code)
    error_line("cannot write %s '%s': %s", out_flags[failed],
               kl__shown(paths[failed], show), why);
  return code;
}

/* NAME a field of the results that is a number (or seconds). */
static int field_option(const char *name) {
  kl_field_info f = {.size = sizeof f};
  size_t field = 0;
  if (kl_field_index(name, &field) != KL_OK ||
      kl_field_describe(field, &f) != KL_OK)
    return args_error("compare", "--field '%.60s': no such field of the "
                      "results (`kladder list --fields` names them)", name);
  if (f.kind != KL_FIELD_NUMBER && f.kind != KL_FIELD_SECONDS)
    return args_error("compare", "--field '%.60s': not a number, which "
                      "compare needs", name);
  return 0;
}

/* ---- the command --------------------------------------------------------- */

/* A fraction: finite, and within [low, high] (open where said). */
static int parse_fraction(const char *text, const char *flag, double low,
                          int low_open, double high, double *out) {
  char show[SHOWN_SIZE];
  double v;
  if (args_real(text, 0, &v) && (low_open ? v > low : v >= low) && v < high) {
    *out = v;
    return 0;
  }
  if (high > 1)
    return args_error("compare", "%s '%s' must be a number from 0 up (0.05: "
                      "5%%)", flag, kl__shown(text, show));
  return args_error("compare", "%s '%s' must be a number above 0 and below 1",
                    flag, kl__shown(text, show));
}

int compare_main(int argc, char **argv) {
  const char *paths[OUTS] = {NULL}, *inputs[2];
  const char *threshold_text = NULL, *alpha_text = NULL, *field_name = NULL;
  double threshold = 0.05, alpha = 0.05;
  char show[SHOWN_SIZE];
  arg_option options[] = {
      {"threshold", 0, ARG_VALUE, &threshold_text, NULL, 0},
      {"alpha", 0, ARG_VALUE, &alpha_text, NULL, 0},
      {"csv", 0, ARG_VALUE, &paths[OUT_CSV], NULL, 0},
      {"json", 0, ARG_VALUE, &paths[OUT_JSON], NULL, 0},
      {"html", 0, ARG_VALUE, &paths[OUT_HTML], NULL, 0},
      {"field", 0, ARG_VALUE, &field_name, NULL, 0},
      {0}};
  args a = {"compare", usage_compare, options, inputs, 2,
            "compare takes two results files, BASE and NEW", 0};
  int bad = args_parse(&a, argc, argv);
  if (bad >= 0) return bad;
  if ((threshold_text && (bad = parse_fraction(threshold_text, "--threshold",
                                               0, 0, INFINITY, &threshold))) ||
      (alpha_text &&
       (bad = parse_fraction(alpha_text, "--alpha", 0, 1, 1, &alpha))) ||
      (field_name && (bad = field_option(field_name))))
    return bad;
  if (a.count != 2)
    return args_error("compare", "compare takes two results files, BASE and "
                      "NEW; %s", a.count ? "only one given" : "none given");
  if (field_name && (paths[OUT_CSV] || paths[OUT_JSON] || paths[OUT_HTML]))
    return args_error("compare", "--field shows its table alone: no --csv, "
                      "--json or --html with it");
  if (strcmp(inputs[0], "-") == 0 && strcmp(inputs[1], "-") == 0)
    return args_error("compare", "BASE and NEW cannot both be standard input "
                      "('-')");
  /* The outputs: each its own file, none an input; refused before any
   * file is read or written. */
  for (int i = 0; i < OUTS; i++) {
    if (!paths[i]) continue;
    for (int j = i + 1; j < OUTS; j++)
      if (paths[j] && kl__same_file(paths[i], paths[j]))
        return args_error("compare", "%s and %s name the same file '%s'",
                          out_flags[i], out_flags[j],
                          kl__shown(paths[i], show));
    for (int k = 0; k < 2; k++)
      if (strcmp(paths[i], "-") != 0 && kl__same_file(paths[i], inputs[k]))
        return error_line("%s '%s' is %s, an input: refusing to write over "
                          "it", out_flags[i], kl__shown(paths[i], show),
                          k ? "NEW" : "BASE");
  }
  kl_compare_options o = {sizeof o, threshold, alpha, field_name};
  kl_comparison *result = NULL;
  if (kl_compare(inputs[0], inputs[1], &o, &result) != KL_OK)
    return error_line("%s", kl_last_error());
  if (kl_comparison_warning(result)[0]) {
    fputs("kladder: warning: ", stderr);
    one_line(stderr, kl_comparison_warning(result));
    fputc('\n', stderr);
  }
  if (field_name) {
    /* One field's table in place of the times': its own exit code. */
    int code = 0;
    if (kl_comparison_print(result, KL_FORMAT_TABLE, stdout) != KL_OK ||
        fflush(stdout) != 0)
      code = error_line("writing the table: %s", strerror(errno ? errno : EIO));
    code = code ? code : kl_comparison_regressed(result);
    kl_comparison_free(result);
    return code;
  }
  int code = write_outputs(paths, result);
  if (code == 0) {
    int piped = 0;
    for (int i = 0; i < OUTS; i++) piped |= paths[i] && !strcmp(paths[i], "-");
    FILE *table = piped ? stderr : stdout;
    if (kl_comparison_print(result, KL_FORMAT_TABLE, table) != KL_OK ||
        fflush(table) != 0)
      code = error_line("writing the table: %s", strerror(errno ? errno : EIO));
  }
  if (code == 0) code = kl_comparison_regressed(result);
  if (code == 1)
    fprintf(stderr, "kladder: a regression (a pair slower beyond the "
            "threshold, or a new failure): see the table\n");
  kl_comparison_free(result);
  return code;
}
