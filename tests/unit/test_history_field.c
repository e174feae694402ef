/* A field added to the field table is a column of the results history
 * with no other change (src/results/history.c takes its schema from the
 * table). This program links its own fields.c, compiled with
 * KL_TEST_EXTRA_FIELD (two fields more, at the end of fields.def:
 * test_extra_s, seconds, and test_extra_note, a text), over the library
 * built without them; `kladder` (argv[1]) is the command built without
 * them.
 *
 *   new      a history this build makes has both columns
 *   added    a history `kladder` wrote (no such columns) is read by this
 *            build as it is, then a results file that gives both fields
 *            appended: each a column, holding its value, the run before
 *            NULL there; `kladder` appends to it and reads it after
 *   first    a history of the first hand-written schema (as kladder wrote
 *            it before its columns came from the table), with a run in
 *            it: read as it is; once written, every field a column, the
 *            old run kept
 *
 * Exit 77 (skipped) where this kladder has no SQLite. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kladder-run.h"

#ifndef KL_HAVE_SQLITE
int main(void) {
  puts("SKIP: this kladder was built without SQLite (KL_SQLITE): no history");
  return 77;
}
#else
#include <sqlite3.h>

#include "expect.h"

static char dir[4096];
static const char *kladder;

/* A results file of one run of map serial, started on day `day`; extra:
 * it gives the test build's fields. */
static void write_results(const char *name, int day, int extra) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  EXPECT(f != NULL);
  if (!f) return;
  fprintf(f,
          "{\"format\": \"kladder-results-2\", \"started\": "
          "\"2026-11-%02dT00:00:00Z\", \"command_line\": \"kladder run\", "
          "\"kladder\": \"0.2.0\", \"interrupted\": false, \"machine\": "
          "{\"cpu\": \"Test CPU\", \"host\": \"ci\"}, \"options\": {\"seed\": "
          "1, \"reps\": 2, \"warmup\": 0}, \"build\": {\"version\": "
          "\"0.2.0\", \"commit\": \"c%03d\", \"build_type\": \"Release\"}, "
          "\"results\": [{\"workload\": \"map\", \"rung\": \"serial\", "
          "\"backend\": \"serial\", \"type\": \"f32\", \"n\": 1000, "
          "\"shape\": \"1000\", \"params\": \"\", \"op\": \"\", \"inputs\": "
          "\"\", \"median_s\": 0.001, \"min_s\": 0.001, \"max_s\": 0.001, "
          "\"times_s\": [0.001, 0.001], \"unit\": \"GB/s\", \"rate\": 8, "
          "\"check\": \"PASS\", \"status\": \"success\", \"step\": 1%s}]}\n",
          day, day,
          extra ? ", \"test_extra_s\": 0.25, \"test_extra_note\": \"a new "
                  "field\""
                : "");
  EXPECT(fclose(f) == 0);
}

/* `kladder history --db DB --import FILE` (FILE NULL: the table): its
 * exit code. */
static int command(const char *db, const char *file) {
  char dbp[4200], fp[4200];
  snprintf(dbp, sizeof dbp, "%s/%s", dir, db);
  snprintf(fp, sizeof fp, "%s/%s", dir, file ? file : "");
  fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    if (file)
      execl(kladder, kladder, "history", "--db", dbp, "--import", fp,
            (char *)NULL);
    else
      execl(kladder, kladder, "history", "--db", dbp, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void path_of(const char *name, char *dst, size_t size) {
  snprintf(dst, size, "%s/%s", dir, name);
}

/* The type of column `name` of `table` ("" where there is none). */
static void column_type(const char *db, const char *table, const char *name,
                        char *type, size_t size) {
  char path[4200];
  path_of(db, path, sizeof path);
  sqlite3 *s = NULL;
  sqlite3_stmt *st = NULL;
  type[0] = '\0';
  if (sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(s, "SELECT type FROM pragma_table_info(?1) WHERE "
                         "name = ?2", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC) == SQLITE_OK &&
      sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    snprintf(type, size, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(s);
}

/* The values of the test build's columns, result by result in the order
 * added: "0.25|a new field" a line, "-" for NULL; the count of results. */
static int extra_values(const char *db, char *out, size_t size) {
  char path[4200];
  path_of(db, path, sizeof path);
  sqlite3 *s = NULL;
  sqlite3_stmt *st = NULL;
  int n = 0;
  size_t used = 0;
  out[0] = '\0';
  if (sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(s, "SELECT test_extra_s, test_extra_note FROM "
                         "results ORDER BY id", -1, &st, NULL) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW && used < size) {
      const unsigned char *a = sqlite3_column_text(st, 0);
      const unsigned char *b = sqlite3_column_text(st, 1);
      used += (size_t)snprintf(out + used, size - used, "%s|%s\n",
                               a ? (const char *)a : "-",
                               b ? (const char *)b : "-");
      n++;
    }
  sqlite3_finalize(st);
  sqlite3_close(s);
  return n;
}

/* The history's runs as JSON (kl_history_print), read without writing. */
static int read_json(const char *db, char *out, size_t size) {
  char path[4200];
  path_of(db, path, sizeof path);
  kl_history *h = NULL;
  if (kl_history_open(path, 0, &h) != KL_OK) return 0;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  const int ok = f && kl_history_print(h, NULL, KL_FORMAT_JSON, f) == KL_OK;
  if (f) fclose(f);
  kl_history_close(h);
  snprintf(out, size, "%s", text ? text : "");
  free(text);
  return ok;
}

static int append(const char *db, const char *file) {
  char path[4200], fp[4200];
  path_of(db, path, sizeof path);
  path_of(file, fp, sizeof fp);
  kl_history *h = NULL;
  size_t added = 0;
  const char *paths[1] = {fp};
  const int ok = kl_history_open(path, 1, &h) == KL_OK &&
                 kl_history_append(h, paths, 1, &added) == KL_OK;
  kl_history_close(h);
  return ok ? (int)added : -1;
}

/* The first schema, as kladder made it before its columns came from the
 * field table, with one run in it. */
static const char first_schema[] =
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE,"
    " source TEXT NOT NULL, added TEXT NOT NULL, format TEXT NOT NULL,"
    " started TEXT NOT NULL, command_line TEXT, notes TEXT, kladder TEXT,"
    " interrupted INTEGER NOT NULL, machine TEXT NOT NULL, host TEXT,"
    " cpu TEXT, cpu_threads INTEGER, omp_threads INTEGER, gpu TEXT,"
    " driver TEXT, version TEXT, commit_id TEXT NOT NULL,"
    " build_type TEXT NOT NULL, c_compiler TEXT, c_flags TEXT,"
    " gpu_compiler TEXT, gpu_flags TEXT, seed INTEGER, reps INTEGER,"
    " warmup INTEGER, max_time_s REAL);"
    "CREATE TABLE results(id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " ord INTEGER NOT NULL, workload TEXT NOT NULL, rung TEXT NOT NULL,"
    " backend TEXT NOT NULL, flags TEXT, type TEXT NOT NULL, n REAL,"
    " shape TEXT NOT NULL, params TEXT NOT NULL, op TEXT NOT NULL,"
    " inputs TEXT NOT NULL, step INTEGER, device INTEGER, device_name TEXT,"
    " unit TEXT, median_s REAL, min_s REAL, max_s REAL, stddev_s REAL,"
    " rate REAL, ceiling REAL, percent_ceiling REAL, speedup REAL,"
    " bytes REAL, flops REAL, items REAL, verdict TEXT, status TEXT,"
    " timed_runs INTEGER);"
    "CREATE TABLE times("
    " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    " ord INTEGER NOT NULL, seconds REAL,"
    " PRIMARY KEY(result_id, ord)) WITHOUT ROWID;"
    "CREATE INDEX results_rung ON results(workload, rung, backend);"
    "CREATE INDEX results_run ON results(run_id);"
    "CREATE INDEX runs_started ON runs(started);"
    "INSERT INTO runs(digest, source, added, format, started, interrupted,"
    " machine, commit_id, build_type) VALUES('0123456789abcdef', 'old.json',"
    " '2026-11-01T00:00:00Z', 'kladder-results-2', '2026-11-01T00:00:00Z',"
    " 0, 'ci: Test CPU', 'c000', 'Release');"
    "INSERT INTO results(run_id, ord, workload, rung, backend, type, shape,"
    " params, op, inputs, median_s, status, verdict) VALUES(1, 0, 'map',"
    " 'serial', 'serial', 'f32', '1000', '', '', '', 0.002, 'success',"
    " 'PASS');"
    "PRAGMA application_id=1263297650; PRAGMA user_version=1;";

static void first(void) {
  char path[4200], text[8192], type[32];
  path_of("first.db", path, sizeof path);
  sqlite3 *s = NULL;
  EXPECT(sqlite3_open(path, &s) == SQLITE_OK &&
         sqlite3_exec(s, first_schema, NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(s);
  EXPECT(read_json("first.db", text, sizeof text) &&
         strstr(text, "\"commit\": \"c000\""));
  column_type("first.db", "results", "test_extra_s", type, sizeof type);
  EXPECT(strcmp(type, "") == 0);
  EXPECT(append("first.db", "new.json") == 1);
  /* Every text or number field a column now. */
  size_t missing = 0, columns = 0;
  for (size_t i = 0; i < kl_field_count(); i++) {
    kl_field_info f = {.size = sizeof f};
    if (kl_field_describe(i, &f) != KL_OK ||
        (f.kind != KL_FIELD_TEXT && f.kind != KL_FIELD_NUMBER &&
         f.kind != KL_FIELD_SECONDS))
      continue;
    const char *name = strcmp(f.name, "check") == 0    ? "verdict"
                       : strcmp(f.name, "commit") == 0 ? "commit_id"
                                                       : f.name;
    column_type("first.db", f.per_run ? "runs" : "results", name, type,
                sizeof type);
    columns++;
    if (!type[0]) {
      printf("first schema: no column %s after a write\n", name);
      missing++;
    }
  }
  EXPECT(columns > 40 && missing == 0);
  EXPECT(extra_values("first.db", text, sizeof text) == 2 &&
         strcmp(text, "-|-\n0.25|a new field\n") == 0);
  EXPECT(read_json("first.db", text, sizeof text) &&
         strstr(text, "\"commit\": \"c000\"") &&
         strstr(text, "\"commit\": \"c021\""));
}

static void cleanup(void) {
  static const char *const names[] = {"old.json", "new.json", "third.json",
                                      "made.db",  "added.db", "first.db"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char path[4200], side[4300];
    path_of(names[i], path, sizeof path);
    (void)unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    (void)unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    (void)unlink(side);
  }
  (void)rmdir(dir);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_history_field KLADDER\n");
    return 2;
  }
  kladder = argv[1];
  temp_template(dir, sizeof dir, "kl-history-field");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  size_t extra = 0;
  EXPECT(kl_field_index("test_extra_s", &extra) == KL_OK);
  write_results("old.json", 20, 0);
  write_results("new.json", 21, 1);
  write_results("third.json", 22, 1);
  char type[32], text[8192];

  /* new: a history made by this build. */
  char path[4200];
  path_of("made.db", path, sizeof path);
  kl_history *h = NULL;
  EXPECT(kl_history_open(path, 1, &h) == KL_OK);
  kl_history_close(h);
  column_type("made.db", "results", "test_extra_s", type, sizeof type);
  EXPECT(strcmp(type, "REAL") == 0);
  column_type("made.db", "results", "test_extra_note", type, sizeof type);
  EXPECT(strcmp(type, "TEXT") == 0);

  /* added: a history `kladder` wrote, which has no such column. */
  EXPECT(command("added.db", "old.json") == 0);
  column_type("added.db", "results", "test_extra_s", type, sizeof type);
  EXPECT(strcmp(type, "") == 0);
  column_type("added.db", "results", "median_s", type, sizeof type);
  EXPECT(strcmp(type, "REAL") == 0);
  EXPECT(read_json("added.db", text, sizeof text) &&
         strstr(text, "\"commit\": \"c020\""));
  EXPECT(append("added.db", "new.json") == 1);
  column_type("added.db", "results", "test_extra_s", type, sizeof type);
  EXPECT(strcmp(type, "REAL") == 0);
  column_type("added.db", "results", "test_extra_note", type, sizeof type);
  EXPECT(strcmp(type, "TEXT") == 0);
  EXPECT(extra_values("added.db", text, sizeof text) == 2 &&
         strcmp(text, "-|-\n0.25|a new field\n") == 0);
  /* The command without the fields appends to it (NULL there: it does
   * not know them) and reads it. */
  EXPECT(command("added.db", "third.json") == 0);
  EXPECT(command("added.db", NULL) == 0);
  EXPECT(extra_values("added.db", text, sizeof text) == 3 &&
         strcmp(text, "-|-\n0.25|a new field\n-|-\n") == 0);

  first();
  cleanup();
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
#endif
