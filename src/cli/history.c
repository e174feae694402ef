/* `kladder history` (commands.h; docs/history.md): its arguments; the
 * history itself is the results layer's (src/results/history.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "commands.h"
#include "text.h"

/* ---- the command's help -------------------------------------------------- */

static const char usage_history[] =
    "usage: kladder history --db FILE [-w W] [-r RUNG] [-b B] [--machine M]\n"
    "                       [--since DATE|COMMIT] [--csv | --json] [--check\n"
    "                       [--threshold X]]\n"
    "       kladder history --db FILE --import RESULTS.json [MORE.json ...]\n"
    "\n"
    "The results history: runs appended by `kladder run --db FILE` or\n"
    "imported from results files (kladder run --json). Without --check or\n"
    "--import, each rung's runs by date: its median time, rate and share of\n"
    "its ceiling, with the commit and the machine.\n"
    "\n"
    "  --db FILE            the history (an SQLite database)\n"
    "  -w, --workload W     only these workloads (a comma-separated list)\n"
    "  -r, --rung RUNG      only these rungs\n"
    "  -b, --backend B      only these backends\n"
    "  --machine M          only the machines whose name contains M\n"
    "  --since DATE|COMMIT  only the runs from DATE (YYYY-MM-DD, UTC) on, or\n"
    "                       from the first run of COMMIT (a prefix) on\n"
    "  --csv, --json        the runs as CSV or JSON (kladder-history-1)\n"
    "  --check              the regression check: each rung's latest runs\n"
    "                       against the runs before them on the same machine\n"
    "                       and build type (docs/history.md); exit 1 where\n"
    "                       one is slower\n"
    "  --threshold X        the smallest slowdown --check flags, a fraction\n"
    "                       (default 0.05: 5%)\n"
    "  --import             add the results files named after the options,\n"
    "                       all in one transaction (a file already in the\n"
    "                       history is skipped)\n"
    "  -h, --help           this text\n"
    "\n"
    "KLADDER_DB_TIMEOUT: seconds to wait for another process's write\n"
    "(default 10). Exit codes: 0 done (--check: no regression), 1 --check\n"
    "found a regression, 2 bad usage or input (one line; the history\n"
    "unchanged).\n";


typedef struct query {
  const char *db, *workloads, *rungs, *backends, *machine, *since;
  int csv, json, check, import;
  double threshold;
  const char *files[4096];
  int count;
} query;


static int asks_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) return 0;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
  }
  return 0;
}


/* ---- options ------------------------------------------------------------- */

static int parse(query *q, int argc, char **argv) {
  memset(q, 0, sizeof *q);
  q->threshold = 0.05;
  const char *threshold = NULL;
  arg_option options[] = {{"db", 0, ARG_VALUE, &q->db, NULL, 0},
                          {"workload", 'w', ARG_VALUE, &q->workloads, NULL, 0},
                          {"rung", 'r', ARG_VALUE, &q->rungs, NULL, 0},
                          {"backend", 'b', ARG_VALUE, &q->backends, NULL, 0},
                          {"machine", 0, ARG_VALUE, &q->machine, NULL, 0},
                          {"since", 0, ARG_VALUE, &q->since, NULL, 0},
                          {"csv", 0, ARG_FLAG, &q->csv, NULL, 0},
                          {"json", 0, ARG_FLAG, &q->json, NULL, 0},
                          {"check", 0, ARG_FLAG, &q->check, NULL, 0},
                          {"threshold", 0, ARG_VALUE, &threshold, NULL, 0},
                          {"import", 0, ARG_FLAG, &q->import, NULL, 0},
                          {0}};
  args a = {"history", usage_history, options, q->files,
            (int)(sizeof q->files / sizeof q->files[0]),
            "too many results files", 0};
  const int rc = args_parse(&a, argc, argv);
  if (rc >= 0) return rc;
  q->count = a.count;
  char show[SHOWN_SIZE];
  if (threshold && (!args_real(threshold, 0, &q->threshold) ||
                    q->threshold < 0 || q->threshold > 100))
    return args_error("history", "--threshold '%s' must be a fraction from 0 "
                      "to 100", kl__shown(threshold, show));
  if (q->import && !q->count)
    return args_error("history", "--import needs the results files to add");
  if (q->count && !q->import)
    return args_error("history", "'%s': a file given without --import",
                      kl__shown(q->files[0], show));
  if (!q->db) return args_error("history", "no history given (--db FILE)");
  if (q->csv + q->json > 1)
    return args_error("history", "--csv and --json: one of them");
  if (q->import && (q->check || q->csv || q->json || q->workloads ||
                    q->rungs || q->backends || q->machine || q->since))
    return args_error("history", "--import takes files alone (no selection, "
                      "--check or output options)");
  if (q->check && q->csv)
    return args_error("history", "--check writes text or --json");
  return -1;
}

/* A history made by a failed import, and SQLite's files beside it,
 * removed. */
static void forget(const char *db) {
  static const char *const beside[] = {"", "-wal", "-shm", "-journal"};
  char path[4096];
  for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++)
    if (snprintf(path, sizeof path, "%s%s", db, beside[i]) < (int)sizeof path)
      (void)remove(path);
}

int history_main(int argc, char **argv) {
  const char *missing = kl__history_missing();
  if (missing && !asks_help(argc, argv)) {
    fprintf(stderr, "kladder: error: history: %s\n", missing);
    return 2;
  }
  query q;
  int rc = parse(&q, argc, argv);
  if (rc >= 0) return rc;
  kl_history *h = NULL;
  /* An import that fails leaves no history where there was none. */
  struct stat before;
  const int existed = stat(q.db, &before) == 0;
  if (kl_history_open(q.db, q.import, &h) != KL_OK)
    return error_line("%s", kl_last_error());
  if (q.import) {
    size_t added = 0;
    const kl_status st =
        kl_history_append(h, q.files, (size_t)q.count, &added);
    kl_history_close(h);
    if (st != KL_OK) {
      if (!existed) forget(q.db);
      return error_line("%s (nothing imported)", kl_last_error());
    }
    printf("history: %zu of %d results files added to %s", added, q.count,
           q.db);
    if ((int)added < q.count) printf(" (%d already there)", q.count - (int)added);
    printf("\n");
    return 0;
  }
  const kl_history_query sel = {sizeof sel, q.workloads, q.rungs, q.backends,
                                q.machine, q.since};
  const kl_format format = q.csv    ? KL_FORMAT_CSV
                           : q.json ? KL_FORMAT_JSON
                                    : KL_FORMAT_TABLE;
  int regressed = 0;
  const kl_status st =
      q.check ? kl_history_check(h, &sel, q.threshold, format, stdout,
                                 &regressed)
              : kl_history_print(h, &sel, format, stdout);
  kl_history_close(h);
  if (st != KL_OK && st != KL_IO) return error_line("%s", kl_last_error());
  if (st == KL_IO || fflush(stdout) != 0) {
    fprintf(stderr, "kladder: error: history: cannot write: %s\n",
            strerror(errno));
    return 2;
  }
  return regressed;
}
