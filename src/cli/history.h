/* The results history (docs/history.md): every run kept in an SQLite
 * database, the command's alone (the library never opens one).
 *   kladder run ... --db FILE       the run appended when it completes
 *   kladder history --db FILE ...   a rung's time, rate and share of its
 *                                   ceiling over the runs; --check, the
 *                                   regression test over them; --import,
 *                                   results files added
 *   kladder report --db FILE ...    each rung's history beside its ladder
 * A run is appended from its results file (kladder-results-N JSON, read
 * by json-read.c), so a run appended by `run --db` and one imported are
 * the same rows. Built without SQLite (KL_SQLITE=OFF, or AUTO where
 * sqlite3.h is absent), every entry point says so in one line, exit 2. */
#ifndef KL_CLI_HISTORY_H
#define KL_CLI_HISTORY_H

#include <stddef.h>

typedef struct history_db history_db;

/* Opens (write: creating it where missing) the history at path, its
 * schema checked and, where written by an older kladder and write is set,
 * migrated forward. 0 and *out; else 2 with one line in err (not an SQLite
 * database, another program's, a newer kladder's schema, read-only,
 * locked past the timeout, missing where !write) and the file unchanged. */
int history_open(const char *path, int write, history_db **out, char *err,
                 size_t errlen);
void history_close(history_db *db);

/* Appends the results files paths[0..count) as one transaction: all or
 * none. A file already in the history (the same bytes) is skipped.
 * *added (may be NULL) counts the runs added. 0, or 2 with one line in
 * err and the database as it was. */
int history_append(history_db *db, const char *const *paths, int count,
                   int *added, char *err, size_t errlen);

/* One run of one rung, for the report's charts. */
typedef struct history_point {
  char started[32]; /* UTC, as the results file has it */
  char commit[48];
  char machine[96];
  double median_s;
} history_point;

/* The runs of one rung (workload, rung, backend, type, shape, params, op,
 * inputs as the results file writes them), every machine, by date. 0 and
 * *points (free() it), *count; else 2 with one line in err. */
int history_series(history_db *db, const char *const key[8],
                   history_point **points, size_t *count, char *err,
                   size_t errlen);

/* kladder history ...: the exit code. */
int history_main(int argc, char **argv);

#endif
