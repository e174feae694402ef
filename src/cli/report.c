/* `kladder report` (commands.h): its arguments, then the results layer's
 * HTML report (report-html.c) or performance page (report-md.c). */
#include <stdio.h>

#include "args.h"
#include "commands.h"
#include "text.h"

/* The HTML page takes 16 files; the performance page, a machine's file
 * per workload for every machine. */
#define MAX_PAGE_FILES 512

static const char usage_report[] =
    "usage: kladder report RESULTS.json [MORE.json ...] [--db FILE] -o "
    "REPORT.html\n"
    "       kladder report --markdown [--machines M,...] [--backends B,...]\n"
    "                      RESULTS.json [...] -o PAGE.md\n"
    "\n"
    "One self-contained HTML page from results files (kladder run --json):\n"
    "each workload's ladders (a bar per rung, its ceiling, the spread of its\n"
    "repetitions, speedups, verdicts), the peers on other backends, a\n"
    "roofline per device, cost growth where rungs ran at several sizes, and\n"
    "the timelines of traced runs. No network: it opens from disk in any\n"
    "browser and prints.\n"
    "\n"
    "  -o, --output FILE   the page to write (\"-\": standard output)\n"
    "  --db FILE           beside each ladder, each rung's history in the\n"
    "                      results history FILE (`kladder history --help`)\n"
    "  -h, --help          this text\n"
    "\n"
    "--markdown: the performance page instead (docs/performance.md is made\n"
    "so): a file's machine is the folder it lies in (results/h100/reduce.json:\n"
    "h100), a column; each problem (workload, type, operation) a table whose\n"
    "rows are backends; a cell the fastest rung that passed its check there,\n"
    "its rate, its share of the ceiling and its speed over the vendor rung.\n"
    "  --machines M,...    the columns and their order; one with no file reads\n"
    "                      \"not measured\"; a file of another is refused\n"
    "  --backends B,...    rows every table has (\"not measured\" where no run)\n"
    "\n"
    "exit codes: 0 written, 2 bad usage or a file that cannot be read or\n"
    "written (one line naming it; nothing is written).\n";

int report_main(int argc, char **argv) {
  const char *out = NULL, *db_path = NULL, *machines = NULL,
             *backends = NULL;
  int markdown = 0;
  /* The HTML page takes MAX_FILES; the performance page, a machine's
   * file per workload for every machine. */
  const char *inputs[MAX_PAGE_FILES];
  kl_history *db = NULL;
  char too_many[64];
  snprintf(too_many, sizeof too_many, "report takes at most %d results "
           "files", MAX_PAGE_FILES);
  arg_option options[] = {{"output", 'o', ARG_VALUE, &out, NULL, 0},
                          {"db", 0, ARG_VALUE, &db_path, NULL, 0},
                          {"markdown", 0, ARG_FLAG, &markdown, NULL, 0},
                          {"machines", 0, ARG_VALUE, &machines, NULL, 0},
                          {"backends", 0, ARG_VALUE, &backends, NULL, 0},
                          {0}};
  args a = {"report", usage_report, options, inputs, MAX_PAGE_FILES,
            too_many, 0};
  const int parsed = args_parse(&a, argc, argv);
  if (parsed >= 0) return parsed;
  const int count = a.count;
  if (!count)
    return args_error("report", "no results file given: kladder report "
                      "RESULTS.json -o REPORT.html");
  if (!out) return args_error("report", "no output given: -o REPORT.html");
  if ((machines || backends) && !markdown)
    return args_error("report", "--machines and --backends go with "
                      "--markdown");
  if (markdown && db_path)
    return args_error("report", "--db goes with the HTML report, not "
                      "--markdown");
  const kl_status st =
      markdown ? kl_report_write_markdown(out, inputs, (size_t)count,
                                          machines, backends)
      : db_path && kl_history_open(db_path, 0, &db) != KL_OK
          ? KL_USAGE
          : kl_report_write_html(out, inputs, (size_t)count, db);
  kl_history_close(db);
  return st != KL_OK ? error_line("%s", kl_last_error()) : 0;
}
