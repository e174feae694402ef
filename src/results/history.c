/* The results history in SQLite (history.h; docs/history.md).
 *
 * The database: PRAGMA application_id KL_APP_ID marks it kladder's, PRAGMA
 * user_version its schema (SCHEMA_VERSION); an older one is migrated
 * forward by the steps in `migrations`, in the transaction that opens it.
 * WAL journal, a busy timeout (KLADDER_DB_TIMEOUT seconds, default 10),
 * and every write one BEGIN IMMEDIATE transaction: processes appending at
 * once wait their turn, and a process stopped in the middle leaves the
 * database as it was.
 *
 *   runs     one per results file: its own columns (the file's digest,
 *            FNV-1a 64 of its bytes, UNIQUE: a file imported twice is
 *            added once; its path and format, when it was added, the
 *            machine's name), then a column per run field
 *   results  one per result: its run and place in the file, then a
 *            column per result field
 *   times    each result's timed runs, in the order run
 *
 * A field's column comes from the field table (fields.def, through
 * kl_field_describe): every text or number field has one, named by its
 * JSON key (`check` is results' `verdict`, `commit` runs' `commit_id`),
 * TEXT, INTEGER or REAL (field_column). The tables are made with every
 * field's column; a field the library adds since is added to a history
 * when it is opened to write (add_columns), with no schema step, its rows
 * before holding NULL there; a history opened to read reads NULL for a
 * column it lacks (column_ref). The INSERTs name every field's column and
 * bind each value by its kind through the library's reader
 * (kl_results_number, kl__results_text_ref): a field is named nowhere
 * here but where a query needs it (its id, KL__F_).
 *
 * The regression check (--check) is documented at check_series. */
#define _POSIX_C_SOURCE 200809L
#include "results.h"
#include "../core/internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/fields.h"
#include "../core/tool.h"


#if !defined(KL_HAVE_SQLITE)

static const char no_sqlite[] =
    "this kladder was built without SQLite, which the results history "
    "needs (Debian: libsqlite3-dev; cmake -DKL_SQLITE=ON)";

const char *kl__history_missing(void) { return no_sqlite; }
/* Each stub's parameters but err are unused. */
int kl__history_open(const char *path KL__UNUSED, int write KL__UNUSED,
                     kl_history **out, char *err, size_t errlen) {
  *out = NULL;
  return kl__said(2, err, errlen, "%s", no_sqlite);
}
void kl__history_close(kl_history *db KL__UNUSED) {}
int kl__history_append(kl_history *db KL__UNUSED,
                       const char *const *paths KL__UNUSED,
                       int count KL__UNUSED, int *added, char *err,
                       size_t errlen) {
  if (added) *added = 0;
  return kl__said(2, err, errlen, "%s", no_sqlite);
}
int kl__history_series(kl_history *db KL__UNUSED,
                       const char *const key[8] KL__UNUSED,
                       kl__history_point **points, size_t *count, char *err,
                       size_t errlen) {
  *points = NULL;
  *count = 0;
  return kl__said(2, err, errlen, "%s", no_sqlite);
}
int kl__history_print(kl_history *h KL__UNUSED,
                      const kl__history_query *q KL__UNUSED,
                      int format KL__UNUSED, int check KL__UNUSED,
                      double threshold KL__UNUSED,
                      FILE *f KL__UNUSED, char *err, size_t errlen) {
  return kl__said(2, err, errlen, "%s", no_sqlite);
}

#else

#include <sqlite3.h>

const char *kl__history_missing(void) { return NULL; }

/* "KLdr": the database is kladder's history. */
#define KL_APP_ID 0x4b4c6472
#define SCHEMA_VERSION 1
#define DEFAULT_TIMEOUT_S 10.0

struct kl_history {
  sqlite3 *db;
  char path[4096];
  double timeout_s;
  /* The columns runs and results have (column_names), read when the
   * history is opened: a query reads NULL for a field's column that a
   * history not yet written by this kladder lacks. */
  char *columns[2];
};

static double timeout_seconds(void) {
  const char *t = getenv("KLADDER_DB_TIMEOUT");
  if (!t || !*t) return DEFAULT_TIMEOUT_S;
  char *end = NULL;
  errno = 0;
  const double v = strtod(t, &end);
  if (errno || end == t || *end || !(v >= 0) || v > 86400) return -1;
  return v;
}

/* One line for an SQLite failure: what it means to the user where that
 * is known (locked, not a database, read-only, full), else the call, its
 * message and where. */
static int sql_fail(kl_history *h, int rc, const char *call, int line,
                    char *err, size_t errlen) {
  const int base = rc & 0xff;
  const char *msg = h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(rc);
  if (base == SQLITE_BUSY || base == SQLITE_LOCKED)
    snprintf(err, errlen, "%s: the database is locked by another process "
             "(waited %g s; KLADDER_DB_TIMEOUT sets how long)", h->path,
             h->timeout_s);
  else if (base == SQLITE_NOTADB)
    snprintf(err, errlen, "%s: not an SQLite database (a kladder history is "
             "one: `kladder run --db FILE` makes it)", h->path);
  else if (base == SQLITE_READONLY)
    snprintf(err, errlen, "%s: cannot write the history: read-only (%s)",
             h->path, msg);
  else if (base == SQLITE_CANTOPEN)
    snprintf(err, errlen, "%s: cannot open the history: %s%s%s", h->path,
             msg, errno ? ": " : "", errno ? strerror(errno) : "");
  else if (base == SQLITE_FULL)
    snprintf(err, errlen, "%s: cannot write the history: the disk is full",
             h->path);
  else
    snprintf(err, errlen, "%s: %s: %s (%s:%d)", h->path, call, msg,
             __FILE__, line);
  return 2;
}
#define SQL_FAIL(h, rc, call) sql_fail(h, rc, call, __LINE__, err, errlen)

static int out_of_memory(kl_history *h, char *err, size_t errlen) {
  return kl__said(2, err, errlen, "%s: out of memory", h->path);
}

static int exec(kl_history *h, const char *sql, char *err, size_t errlen) {
  const int rc = sqlite3_exec(h->db, sql, NULL, NULL, NULL);
  return rc == SQLITE_OK ? 0 : SQL_FAIL(h, rc, "sqlite3_exec");
}

static int pragma_int(kl_history *h, const char *sql, long long *out,
                      char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) return SQL_FAIL(h, rc, "sqlite3_prepare_v2");
  rc = sqlite3_step(st);
  *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return SQL_FAIL(h, rc, "sqlite3_step");
  return 0;
}

static void rollback(kl_history *h) {
  if (!sqlite3_get_autocommit(h->db))
    (void)sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- the schema: a column per field -------------------------------------- */

/* The columns that are no field, runs' and results': the file's digest
 * (a file imported twice is added once), path and format, when it was
 * added, the machine's name (machine_name); a result's run and its place
 * in the file. Every other column is a field's (field_column). */
static const char runs_own[] =
    "id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE,"
    " source TEXT NOT NULL, added TEXT NOT NULL, format TEXT NOT NULL,"
    " machine TEXT NOT NULL";
static const char results_own[] =
    "id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " ord INTEGER NOT NULL";
static const char times_table[] =
    "CREATE TABLE times("
    " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    " ord INTEGER NOT NULL, seconds REAL,"
    " PRIMARY KEY(result_id, ord)) WITHOUT ROWID";
/* Made where missing each time the history is written, once every column
 * is there. */
static const char indexes[] =
    "CREATE INDEX IF NOT EXISTS results_rung ON results(workload, rung,"
    " backend);"
    "CREATE INDEX IF NOT EXISTS results_run ON results(run_id);"
    "CREATE INDEX IF NOT EXISTS runs_started ON runs(started)";

/* The fields a query matches a row on, never NULL: a series' key, and
 * its run's start, commit, build type and whether it was interrupted;
 * with the value a file that gives none stands for. */
static const struct {
  int field;
  const char *absent;
} required[] = {
    {KL__F_workload, ""}, {KL__F_rung, ""},   {KL__F_backend, ""},
    {KL__F_type, ""},     {KL__F_shape, ""},  {KL__F_params, ""},
    {KL__F_op, ""},       {KL__F_inputs, ""}, {KL__F_started, ""},
    {KL__F_commit, "unknown"}, {KL__F_build_type, ""},
    {KL__F_interrupted, "0"}};

/* A field's column. */
typedef struct column {
  size_t field;
  const char *name; /* the field's JSON key (check and commit aside) */
  int per_run;      /* in runs (else results) */
  int text;         /* TEXT, else a number: INTEGER or REAL */
  const char *type;
  const char *absent; /* NOT NULL: what an absent value is; else NULL */
} column;

/* Field i's column, from the field table: 0 where it has none (a list,
 * named numbers, the trace). Named by its JSON key, but for the two that
 * are SQL's words and the first schema named otherwise (`check` is
 * `verdict`, `commit` is `commit_id`); INTEGER for a number the CSV
 * writes whole. (A field named as a column of runs_own or results_own
 * would be a duplicate column, which the tests' first history refuses.) */
static int field_column(size_t i, column *c) {
  kl_field_info f = {.size = sizeof f};
  if (kl_field_describe(i, &f) != KL_OK ||
      (f.kind != KL_FIELD_TEXT && f.kind != KL_FIELD_NUMBER &&
       f.kind != KL_FIELD_SECONDS))
    return 0;
  c->field = i;
  c->name = i == KL__F_check ? "verdict" : i == KL__F_commit ? "commit_id"
                                                              : f.name;
  c->per_run = f.per_run;
  c->text = f.kind == KL_FIELD_TEXT;
  const char *format = kl__fields[i].format;
  c->type = c->text ? "TEXT"
            : format && strcmp(format, "%.0f") == 0 ? "INTEGER"
                                                    : "REAL";
  c->absent = NULL;
  for (size_t k = 0; k < sizeof required / sizeof *required; k++)
    if ((size_t)required[k].field == i) c->absent = required[k].absent;
  return 1;
}

/* The column's definition in CREATE TABLE and ALTER TABLE ADD COLUMN (a
 * NOT NULL one with a default, which the latter needs). */
static void column_definition(const column *c, char *dst, size_t size) {
  const char *quote = c->text ? "'" : "";
  if (c->absent)
    snprintf(dst, size, "\"%s\" %s NOT NULL DEFAULT %s%s%s", c->name, c->type,
             quote, c->absent, quote);
  else
    snprintf(dst, size, "\"%s\" %s", c->name, c->type);
}

/* The names of table's columns, one string "\x1fa\x1fb\x1f..." (malloc'd,
 * *names), so that a column is found by strstr of "\x1fNAME\x1f". */
static int column_names(kl_history *h, const char *table, char **names,
                        char *err, size_t errlen) {
  char sql[96];
  snprintf(sql, sizeof sql, "SELECT group_concat(name, char(31)) FROM "
           "pragma_table_info('%s')", table);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) return SQL_FAIL(h, rc, "sqlite3_prepare_v2");
  rc = sqlite3_step(st);
  const unsigned char *t = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
  const size_t len = t ? strlen((const char *)t) : 0;
  *names = rc == SQLITE_ROW ? malloc(len + 3) : NULL;
  if (*names) sprintf(*names, "\x1f%s\x1f", t ? (const char *)t : "");
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return SQL_FAIL(h, rc, "sqlite3_step");
  return *names ? 0 : out_of_memory(h, err, errlen);
}

static int has_column(const kl_history *h, int per_run, const char *name) {
  char key[128];
  snprintf(key, sizeof key, "\x1f%s\x1f", name);
  return h->columns[per_run] && strstr(h->columns[per_run], key);
}

/* The columns of both tables read again (after a change to them). */
static int read_columns(kl_history *h, char *err, size_t errlen) {
  for (int t = 0; t < 2; t++) {
    free(h->columns[t]);
    h->columns[t] = NULL;
  }
  int rc = column_names(h, "results", &h->columns[0], err, errlen);
  if (!rc) rc = column_names(h, "runs", &h->columns[1], err, errlen);
  return rc;
}

/* A statement built in memory (open_memstream): its text, NULL where
 * memory ran out. */
static char *built(FILE *f, char **text) {
  if (fclose(f) != 0) {
    free(*text);
    *text = NULL;
  }
  return *text;
}

/* The first schema (0 -> 1): runs and results, their own columns then a
 * column per field, and times. */
static int create_tables(kl_history *h, char *err, size_t errlen) {
  int rc = 0;
  for (int per_run = 1; per_run >= 0 && !rc; per_run--) {
    char *sql = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&sql, &len);
    if (!f) return out_of_memory(h, err, errlen);
    fprintf(f, "CREATE TABLE %s(%s", per_run ? "runs" : "results",
            per_run ? runs_own : results_own);
    for (size_t i = 0; i < kl_field_count(); i++) {
      column c;
      char definition[160];
      if (!field_column(i, &c) || c.per_run != per_run) continue;
      column_definition(&c, definition, sizeof definition);
      fprintf(f, ", %s", definition);
    }
    fputc(')', f);
    if (!built(f, &sql)) return out_of_memory(h, err, errlen);
    rc = exec(h, sql, err, errlen);
    free(sql);
  }
  return rc ? rc : exec(h, times_table, err, errlen);
}

/* Schema steps: migrations[v] takes a database of version v to v + 1. A
 * field's column is no step: add_columns adds it. */
static int (*const migrations[SCHEMA_VERSION])(kl_history *, char *,
                                               size_t) = {create_tables};

/* Every field's column added where the history lacks it (a field this
 * kladder has and the one that wrote the history had not), its rows
 * before NULL there; then the indexes. */
static int add_columns(kl_history *h, char *err, size_t errlen) {
  int rc = read_columns(h, err, errlen), added = 0;
  for (size_t i = 0; i < kl_field_count() && !rc; i++) {
    column c;
    if (!field_column(i, &c) || has_column(h, c.per_run, c.name)) continue;
    char definition[160], sql[256];
    column_definition(&c, definition, sizeof definition);
    snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s",
             c.per_run ? "runs" : "results", definition);
    rc = exec(h, sql, err, errlen);
    added = 1;
  }
  if (!rc && added) rc = read_columns(h, err, errlen);
  return rc ? rc : exec(h, indexes, err, errlen);
}

/* The schema checked, created or migrated (write), in one transaction. */
static int check_schema(kl_history *h, int write, char *err, size_t errlen) {
  long long app = 0, version = 0, tables = 0;
  int rc = pragma_int(h, "PRAGMA application_id", &app, err, errlen);
  if (rc) return rc;
  if (write) {
    rc = exec(h, "BEGIN IMMEDIATE", err, errlen);
    if (rc) return rc;
  }
  rc = pragma_int(h, "PRAGMA application_id", &app, err, errlen);
  if (!rc) rc = pragma_int(h, "PRAGMA user_version", &version, err, errlen);
  if (!rc)
    rc = pragma_int(h, "SELECT count(*) FROM sqlite_master", &tables, err,
                    errlen);
  if (!rc && app != KL_APP_ID && (app != 0 || version != 0 || tables != 0)) {
    snprintf(err, errlen, "%s: an SQLite database of another schema (%lld "
             "tables, application_id %lld, not kladder's history): kladder "
             "keeps its history in a database of its own", h->path, tables,
             app);
    rc = 2;
  }
  if (!rc && version > SCHEMA_VERSION) {
    snprintf(err, errlen, "%s: a history of schema %lld, newer than this "
             "kladder's (%d): use a newer kladder", h->path, version,
             SCHEMA_VERSION);
    rc = 2;
  }
  if (!rc && version < SCHEMA_VERSION && !write) {
    if (app == 0 && tables == 0)
      snprintf(err, errlen, "%s: an empty database, no history in it "
               "(`kladder run --db FILE` or `kladder history --import` adds "
               "runs)", h->path);
    else
      snprintf(err, errlen, "%s: a history of schema %lld, which this "
               "kladder migrates to %d when it writes to it (`kladder run "
               "--db FILE` or `kladder history --db FILE --import "
               "RESULTS.json`)", h->path, version,
               SCHEMA_VERSION);
    rc = 2;
  }
  if (!rc && version < SCHEMA_VERSION) {
    for (long long v = version; v < SCHEMA_VERSION && !rc; v++)
      rc = migrations[v](h, err, errlen);
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA "
             "user_version=%d", KL_APP_ID, SCHEMA_VERSION);
    if (!rc) rc = exec(h, sql, err, errlen);
  }
  if (!rc)
    rc = write ? add_columns(h, err, errlen) : read_columns(h, err, errlen);
  if (write) {
    if (!rc) rc = exec(h, "COMMIT", err, errlen);
    if (rc) rollback(h);
  }
  return rc;
}

/* Whether a reader of the history at path finds its -shm file or may make
 * it: the file is there, or its folder takes a new one. */
static int wal_index_makeable(const char *path) {
  char shm[4200], dir[4200];
  snprintf(shm, sizeof shm, "%s-shm", path);
  if (access(shm, F_OK) == 0) return 1;
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) return access(".", W_OK) == 0;
  if (slash == dir) slash[1] = '\0';
  else *slash = '\0';
  return access(dir, W_OK) == 0;
}

/* path as a read-only, immutable SQLite URI ("file:...?immutable=1"), its
 * '%', '?' and '#' escaped; 0 where it does not fit. */
static int uri_of(const char *path, char *out, size_t size) {
  size_t n = (size_t)snprintf(out, size, "file:");
  for (const char *p = path; *p; p++) {
    if (n + 4 >= size) return 0;
    if (*p == '%' || *p == '?' || *p == '#')
      n += (size_t)snprintf(out + n, size - n, "%%%02X", (unsigned char)*p);
    else
      out[n++] = *p;
  }
  return snprintf(out + n, size - n, "?immutable=1") < (int)(size - n);
}

int kl__history_open(const char *path, int write, kl_history **out, char *err,
                     size_t errlen) {
  *out = NULL;
  const double timeout = timeout_seconds();
  if (timeout < 0)
    return kl__said(2, err, errlen, "KLADDER_DB_TIMEOUT '%s' must be seconds "
                    "from 0 to 86400", getenv("KLADDER_DB_TIMEOUT"));
  struct stat sb;
  const int exists = stat(path, &sb) == 0;
  if (!*path || strcmp(path, "-") == 0)
    return kl__said(2, err, errlen, "--db needs a file (not '%s')", path);
  if (exists && !S_ISREG(sb.st_mode))
    return kl__said(2, err, errlen, "%s: not a regular file", path);
  if (!exists && !write)
    return kl__said(2, err, errlen, "%s: no such history (`kladder run --db "
                    "FILE` or `kladder history --import` makes it)", path);
  if (exists && write && access(path, W_OK) != 0)
    return kl__said(2, err, errlen, "%s: cannot write the history: %s", path,
                    strerror(errno));
  kl_history *h = calloc(1, sizeof *h);
  if (!h) return kl__said(2, err, errlen, "out of memory");
  snprintf(h->path, sizeof h->path, "%s", path);
  h->timeout_s = timeout;
  const int ro = !write && access(path, W_OK) != 0;
  int flags = ro ? SQLITE_OPEN_READONLY
                 : SQLITE_OPEN_READWRITE | (write ? SQLITE_OPEN_CREATE : 0);
  /* A history in WAL mode is read through its -shm file beside it, which
   * a reader makes where there is none: in a folder the reader cannot
   * write, it is opened as immutable instead (no one may write it there
   * now either), as SQLite's URI names it. */
  char uri[3 * sizeof h->path + 32];
  const char *name = path;
  if (ro && !wal_index_makeable(path) && uri_of(path, uri, sizeof uri)) {
    name = uri;
    flags |= SQLITE_OPEN_URI;
  }
  errno = 0;
  int rc = sqlite3_open_v2(name, &h->db, flags, NULL);
  if (rc != SQLITE_OK) {
    SQL_FAIL(h, rc, "sqlite3_open_v2");
    kl__history_close(h);
    return 2;
  }
  (void)sqlite3_extended_result_codes(h->db, 1);
  rc = sqlite3_busy_timeout(h->db, (int)(h->timeout_s * 1000));
  int bad = rc == SQLITE_OK ? 0 : SQL_FAIL(h, rc, "sqlite3_busy_timeout");
  if (!bad) bad = exec(h, "PRAGMA foreign_keys=ON", err, errlen);
  if (!bad) bad = check_schema(h, write, err, errlen);
  /* WAL: readers never wait for a writer, writers one after another. It
   * outlives the connection (a property of the file). */
  if (!bad && write) {
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(h->db, "PRAGMA journal_mode=WAL", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) bad = SQL_FAIL(h, rc, "PRAGMA journal_mode");
    sqlite3_finalize(st);
  }
  if (bad) {
    kl__history_close(h);
    return 2;
  }
  *out = h;
  return 0;
}

void kl__history_close(kl_history *h) {
  if (!h) return;
  if (h->db) sqlite3_close(h->db);
  free(h->columns[0]);
  free(h->columns[1]);
  free(h);
}

/* ---- append -------------------------------------------------------------- */

/* A results file read whole: its bytes (for the digest) and its tree. */
typedef struct loaded {
  const char *path;
  char digest[17];
  kl_results *file; /* read and validated by the library */
} loaded;

static int load_file(loaded *l, const char *path, char *err, size_t errlen) {
  memset(l, 0, sizeof *l);
  l->path = path;
  char *text = NULL;
  size_t len = 0;
  /* A file named "-" is that file, not standard input. */
  if (kl__file_read(strcmp(path, "-") ? path : "./-", &text, &len, err,
                    errlen) != 0)
    return 2;
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++) {
    hash ^= (unsigned char)text[i];
    hash *= 1099511628211ull;
  }
  snprintf(l->digest, sizeof l->digest, "%016llx", (unsigned long long)hash);
  /* The bytes just hashed, parsed and checked: the file read once. */
  const kl_status st = kl__results_parse(path, text, len, &l->file);
  free(text);
  if (st != KL_OK) return kl__said(2, err, errlen, "%s", kl_last_error());
  kl__run_view run;
  kl__results_run(l->file, &run);
  const char *why = NULL;
  if (kl_results_warning(l->file)[0])
    why = "a results format newer than this kladder reads";
  else if (!run.started[0])
    why = "no start time in it";
  if (why) {
    snprintf(err, errlen, "%s: %s", path, why);
    kl_results_free(l->file);
    l->file = NULL;
    return 2;
  }
  return 0;
}

/* The machine as the history names it: "HOST: CPU", and " / GPU" where
 * the run saw devices (the results file's "gpu": a count such as "2
 * devices: " before the first device's name is left out, and so are the
 * details after its " ("). */
static void machine_name(const kl__run_view *run, char *dst, size_t size) {
  const char *host = run->host, *cpu = run->cpu[0] ? run->cpu : "unknown CPU";
  const char *gpu = run->gpu[0] ? run->gpu : NULL;
  if (gpu) {
    const char *colon = strstr(gpu, " device");
    if (colon && strchr(colon, ':') && colon > gpu &&
        strspn(gpu, "0123456789") == (size_t)(colon - gpu)) {
      gpu = strchr(colon, ':') + 1;
      while (*gpu == ' ') gpu++;
    }
  }
  const char *cut = gpu ? strstr(gpu, " (") : NULL;
  const int len = gpu ? (cut ? (int)(cut - gpu) : (int)strlen(gpu)) : 0;
  snprintf(dst, size, "%s%s%s%s%.*s", host, *host ? ": " : "", cpu,
           len ? " / " : "", len, gpu ? gpu : "");
}

static int bind_text(sqlite3_stmt *st, int i, const char *s) {
  return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT)
           : sqlite3_bind_null(st, i);
}

static int step_done(kl_history *h, sqlite3_stmt *st, char *err,
                     size_t errlen) {
  const int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc == SQLITE_DONE ? 0 : SQL_FAIL(h, rc, "sqlite3_step");
}

/* An INSERT into runs or results: the table's own columns first, then
 * every field's column, its statement made from the field table
 * (prepare_insert). */
typedef struct insert {
  sqlite3_stmt *st;
  int own; /* the own columns' parameters, ?1 to ?own */
  column *columns;
  size_t count;
} insert;

static int prepare_insert(kl_history *h, int per_run, insert *in, char *err,
                          size_t errlen) {
  memset(in, 0, sizeof *in);
  in->columns = calloc(kl_field_count() + 1, sizeof *in->columns);
  char *sql = NULL;
  size_t len = 0;
  FILE *f = in->columns ? open_memstream(&sql, &len) : NULL;
  if (!f) return out_of_memory(h, err, errlen);
  in->own = per_run ? 4 : 2;
  fputs(per_run ? "INSERT INTO runs(digest, source, added, format, machine"
                : "INSERT INTO results(run_id, ord", f);
  for (size_t i = 0; i < kl_field_count(); i++) {
    column *c = &in->columns[in->count];
    if (!field_column(i, c) || c->per_run != per_run) continue;
    fprintf(f, ", \"%s\"", c->name);
    in->count++;
  }
  fputs(per_run ? ") VALUES(?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ','now'),"
                  " ?3, ?4"
                : ") VALUES(?1, ?2", f);
  for (size_t k = 0; k < in->count; k++)
    fprintf(f, ", ?%zu", (size_t)in->own + 1 + k);
  fputc(')', f);
  if (!built(f, &sql)) return out_of_memory(h, err, errlen);
  const int rc = sqlite3_prepare_v2(h->db, sql, -1, &in->st, NULL);
  free(sql);
  return rc == SQLITE_OK ? 0 : SQL_FAIL(h, rc, "sqlite3_prepare_v2");
}

static void finish_insert(insert *in) {
  sqlite3_finalize(in->st);
  free(in->columns);
}

/* The fields' values of result `result` of the file (a run's from any
 * result: its first) bound, each by its kind through the library's
 * reader; a required one the file lacks as the schema says. */
static int bind_fields(const insert *in, const kl_results *file,
                       size_t result) {
  int rc = SQLITE_OK;
  for (size_t k = 0; k < in->count && rc == SQLITE_OK; k++) {
    const column *c = &in->columns[k];
    const int at = in->own + 1 + (int)k;
    double v = 0;
    if (c->text) {
      const char *t = kl__results_text_ref(file, result, c->field);
      rc = bind_text(in->st, at, c->absent && (!t || !*t) ? c->absent : t);
    } else if (kl_results_number(file, result, c->field, &v) == KL_OK) {
      rc = sqlite3_bind_double(in->st, at, v);
    } else {
      rc = c->absent ? sqlite3_bind_double(in->st, at, strtod(c->absent, NULL))
                     : sqlite3_bind_null(in->st, at);
    }
  }
  return rc;
}

static const char insert_time[] =
    "INSERT INTO times(result_id, ord, seconds) VALUES(?1, ?2, ?3)";

typedef struct statements {
  sqlite3_stmt *known, *time;
  insert run, result;
} statements;

/* One results file's rows; *added 1 where it was not there before. */
static int append_one(kl_history *h, statements *s, const loaded *l,
                      int *added, char *err, size_t errlen) {
  *added = 0;
  int rc = sqlite3_bind_text(s->known, 1, l->digest, -1, SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) return SQL_FAIL(h, rc, "sqlite3_bind_text");
  rc = sqlite3_step(s->known);
  sqlite3_reset(s->known);
  if (rc == SQLITE_ROW) return 0;
  if (rc != SQLITE_DONE) return SQL_FAIL(h, rc, "sqlite3_step");
  kl__run_view run;
  kl__results_run(l->file, &run);
  char machine[160];
  machine_name(&run, machine, sizeof machine);
  /* A run under mpirun is P processes of the host at once: its results
   * (every rank's work, the slowest rank's time) are a machine of their
   * own, not points of the one-process series. */
  const size_t results = kl_results_count(l->file);
  int ranks = 1;
  for (size_t i = 0; i < results; i++) {
    double p = 1;
    if (kl_results_number(l->file, i, KL__F_ranks, &p) == KL_OK && p > ranks &&
        p < 1e6)
      ranks = (int)p;
  }
  if (ranks > 1) {
    char one[sizeof machine];
    memcpy(one, machine, sizeof one);
    /* "P ranks of " is under 24 characters: the name fills the rest. */
    const size_t w =
        (size_t)snprintf(machine, sizeof machine, "%d ranks of ", ranks);
    const size_t len = strnlen(one, sizeof machine - 1 - w);
    memcpy(machine + w, one, len);
    machine[w + len] = '\0';
  }
  sqlite3_stmt *st = s->run.st;
  rc = bind_text(st, 1, l->digest);
  if (!rc) rc = bind_text(st, 2, l->path);
  if (!rc) rc = bind_text(st, 3, run.format);
  if (!rc) rc = bind_text(st, 4, machine);
  if (!rc) rc = bind_fields(&s->run, l->file, 0);
  if (rc) return SQL_FAIL(h, rc, "sqlite3_bind");
  rc = step_done(h, st, err, errlen);
  if (rc) return rc;
  const sqlite3_int64 run_id = sqlite3_last_insert_rowid(h->db);
  for (size_t i = 0; i < results; i++) {
    st = s->result.st;
    rc = sqlite3_bind_int64(st, 1, run_id);
    if (!rc) rc = sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
    if (!rc) rc = bind_fields(&s->result, l->file, i);
    if (rc) return SQL_FAIL(h, rc, "sqlite3_bind");
    rc = step_done(h, st, err, errlen);
    if (rc) return rc;
    const sqlite3_int64 result_id = sqlite3_last_insert_rowid(h->db);
    kl__row r;
    kl__results_row(l->file, i, &r);
    const json_value *times = r.times;
    for (size_t k = 0; times && times->kind == JSON_ARRAY && k < times->count;
         k++) {
      st = s->time;
      const json_value *t = &times->items[k];
      rc = sqlite3_bind_int64(st, 1, result_id);
      if (!rc) rc = sqlite3_bind_int64(st, 2, (sqlite3_int64)k);
      if (!rc)
        rc = t->kind == JSON_NUMBER && isfinite(t->number)
                 ? sqlite3_bind_double(st, 3, t->number)
                 : sqlite3_bind_null(st, 3);
      if (rc) return SQL_FAIL(h, rc, "sqlite3_bind");
      rc = step_done(h, st, err, errlen);
      if (rc) return rc;
    }
  }
  *added = 1;
  return 0;
}

int kl__history_append(kl_history *h, const char *const *paths, int count,
                       int *added, char *err, size_t errlen) {
  if (added) *added = 0;
  loaded *files = calloc(count > 0 ? (size_t)count : 1, sizeof *files);
  if (!files) return kl__said(2, err, errlen, "out of memory");
  /* Every file read and checked before the database is touched. */
  int rc = 0;
  for (int i = 0; i < count && !rc; i++)
    rc = load_file(&files[i], paths[i], err, errlen);
  statements s;
  memset(&s, 0, sizeof s);
  if (!rc) rc = exec(h, "BEGIN IMMEDIATE", err, errlen);
  const char *sql[2] = {"SELECT 1 FROM runs WHERE digest = ?1", insert_time};
  sqlite3_stmt **slot[2] = {&s.known, &s.time};
  for (int i = 0; i < 2 && !rc; i++) {
    const int prc = sqlite3_prepare_v2(h->db, sql[i], -1, slot[i], NULL);
    if (prc != SQLITE_OK) rc = SQL_FAIL(h, prc, "sqlite3_prepare_v2");
  }
  if (!rc) rc = prepare_insert(h, 1, &s.run, err, errlen);
  if (!rc) rc = prepare_insert(h, 0, &s.result, err, errlen);
  int n = 0;
  for (int i = 0; i < count && !rc; i++) {
    int one = 0;
    rc = append_one(h, &s, &files[i], &one, err, errlen);
    n += one;
  }
  for (int i = 0; i < 2; i++) sqlite3_finalize(*slot[i]);
  finish_insert(&s.run);
  finish_insert(&s.result);
  if (!rc) rc = exec(h, "COMMIT", err, errlen);
  if (rc && h->db) rollback(h);
  for (int i = 0; i < count; i++) kl_results_free(files[i].file);
  free(files);
  if (!rc && added) *added = n;
  return rc;
}

/* ---- reading ------------------------------------------------------------- */

/* One result of one run, as the history command shows it. */
typedef struct point {
  char *key[8]; /* workload, rung, backend, type, shape, params, op, inputs */
  char *unit, *started, *commit, *build_type, *machine, *status, *verdict;
  double median, min, max, rate, ceiling, percent;
  int has_median, has_rate, has_ceiling, has_percent, interrupted;
  long long run, step;
} point;

static char *dup_column(sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return strdup(t ? (const char *)t : "");
}

static double column_number(sqlite3_stmt *st, int i, int *present) {
  *present = sqlite3_column_type(st, i) != SQLITE_NULL;
  return *present ? sqlite3_column_double(st, i) : 0;
}

static void free_points(point *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 8; k++) free(p[i].key[k]);
    free(p[i].unit);
    free(p[i].started);
    free(p[i].commit);
    free(p[i].build_type);
    free(p[i].machine);
    free(p[i].status);
    free(p[i].verdict);
  }
  free(p);
}

/* The fields that make a point's key, in its key's order. */
static const int key_fields[8] = {KL__F_workload, KL__F_rung, KL__F_backend,
                                  KL__F_type,     KL__F_shape, KL__F_params,
                                  KL__F_op,       KL__F_inputs};

/* The columns a point is read from, in their order (read_points): a
 * field's (its id), or the history's own: the machine's name, the run's
 * id (OWN_*). */
enum { OWN_MACHINE = -1, OWN_RUN = -2 };
static const int point_columns[] = {
    KL__F_workload,    KL__F_rung,       KL__F_backend,    KL__F_type,
    KL__F_shape,       KL__F_params,     KL__F_op,         KL__F_inputs,
    KL__F_unit,        KL__F_started,    KL__F_commit,     KL__F_build_type,
    OWN_MACHINE,       KL__F_status,     KL__F_check,      KL__F_median_s,
    KL__F_min_s,       KL__F_max_s,      KL__F_rate,       KL__F_ceiling,
    KL__F_percent_ceiling, KL__F_interrupted, OWN_RUN,     KL__F_step};
/* A series' order: its key, the step, the rung (ORDER BY). */
static const int series_order[] = {KL__F_workload, KL__F_type,   KL__F_shape,
                                   KL__F_params,   KL__F_op,     KL__F_inputs,
                                   KL__F_step,     KL__F_rung,   KL__F_backend};

/* Field `field`'s column (or an OWN_ one) as a query of results r joined
 * to runs u names it: NULL for a field's column the history lacks (one
 * written by a kladder before the field, opened to read: only a write
 * adds it). */
static void column_ref(FILE *f, const kl_history *h, int field) {
  column c;
  if (field == OWN_MACHINE) fputs("u.machine", f);
  else if (field == OWN_RUN) fputs("u.id", f);
  else if (field_column((size_t)field, &c) && has_column(h, c.per_run, c.name))
    fprintf(f, "%c.\"%s\"", c.per_run ? 'u' : 'r', c.name);
  else fputs("NULL", f);
}

/* Every point (where `key` binds the 8 keys: one series), ordered by
 * series, then (by_machine) machine and build type, then date. */
static int read_points(kl_history *h, const char *const *key, int by_machine,
                       point **out, size_t *count, char *err, size_t errlen) {
  char *sql = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&sql, &len);
  if (!f) return out_of_memory(h, err, errlen);
  const size_t columns = sizeof point_columns / sizeof *point_columns;
  for (size_t k = 0; k < columns; k++) {
    fputs(k ? ", " : "SELECT ", f);
    column_ref(f, h, point_columns[k]);
  }
  fputs(" FROM results r JOIN runs u ON r.run_id = u.id", f);
  for (int k = 0; key && k < 8; k++) {
    fputs(k ? " AND " : " WHERE ", f);
    column_ref(f, h, key_fields[k]);
    fprintf(f, " = ?%d", k + 1);
  }
  fputs(" ORDER BY ", f);
  for (size_t k = 0; k < sizeof series_order / sizeof *series_order; k++) {
    column_ref(f, h, series_order[k]);
    fputs(", ", f);
  }
  if (by_machine) {
    column_ref(f, h, OWN_MACHINE);
    fputs(", ", f);
    column_ref(f, h, KL__F_build_type);
    fputs(", ", f);
  }
  column_ref(f, h, KL__F_started);
  fputs(", u.id, r.ord", f);
  if (!built(f, &sql)) return out_of_memory(h, err, errlen);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
  free(sql);
  if (rc != SQLITE_OK) return SQL_FAIL(h, rc, "sqlite3_prepare_v2");
  for (int i = 0; key && i < 8 && rc == SQLITE_OK; i++)
    rc = sqlite3_bind_text(st, i + 1, key[i], -1, SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(st);
    return SQL_FAIL(h, rc, "sqlite3_bind_text");
  }
  point *p = NULL;
  size_t n = 0, cap = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (n == cap) {
      point *grown = realloc(p, (cap ? cap * 2 : 256) * sizeof *p);
      if (!grown) {
        rc = SQLITE_NOMEM;
        break;
      }
      p = grown;
      cap = cap ? cap * 2 : 256;
    }
    point *q = &p[n++];
    memset(q, 0, sizeof *q);
    for (int k = 0; k < 8; k++) q->key[k] = dup_column(st, k);
    q->unit = dup_column(st, 8);
    q->started = dup_column(st, 9);
    q->commit = dup_column(st, 10);
    q->build_type = dup_column(st, 11);
    q->machine = dup_column(st, 12);
    q->status = dup_column(st, 13);
    q->verdict = dup_column(st, 14);
    q->median = column_number(st, 15, &q->has_median);
    int dummy;
    q->min = column_number(st, 16, &dummy);
    q->max = column_number(st, 17, &dummy);
    q->rate = column_number(st, 18, &q->has_rate);
    q->ceiling = column_number(st, 19, &q->has_ceiling);
    q->percent = column_number(st, 20, &q->has_percent);
    q->interrupted = sqlite3_column_int(st, 21);
    q->run = sqlite3_column_int64(st, 22);
    q->step = sqlite3_column_int64(st, 23);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    free_points(p, n);
    return SQL_FAIL(h, rc, "sqlite3_step");
  }
  *out = p;
  *count = n;
  return 0;
}

int kl__history_series(kl_history *h, const char *const key[8],
                       kl__history_point **points, size_t *count, char *err,
                       size_t errlen) {
  point *p = NULL;
  size_t n = 0;
  *points = NULL;
  *count = 0;
  int rc = read_points(h, key, 0, &p, &n, err, errlen);
  if (rc) return rc;
  kl__history_point *out = calloc(n ? n : 1, sizeof *out);
  if (!out) {
    free_points(p, n);
    return kl__said(2, err, errlen, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!p[i].has_median || !(p[i].median > 0) ||
        strcmp(p[i].status, "success") != 0)
      continue;
    snprintf(out[k].started, sizeof out[k].started, "%s", p[i].started);
    snprintf(out[k].commit, sizeof out[k].commit, "%s", p[i].commit);
    snprintf(out[k].machine, sizeof out[k].machine, "%s", p[i].machine);
    out[k++].median_s = p[i].median;
  }
  free_points(p, n);
  *points = out;
  *count = k;
  return 0;
}

/* ---- the runs selected --------------------------------------------------- */

/* Digits s[0..n) as a number, or -1 where one is not a digit. */
static int digits(const char *s, int n) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* --since's date: YYYY-MM-DD, then THH, :MM and :SS, then Z, as the runs'
 * times are written. 1 where s is one; 0 where it does not start as one
 * (a commit, then); -1 where it starts as one but is no date or time
 * (a thirteenth month, a thirtieth of February, a 25th hour), why in
 * `why`. */
static int date_check(const char *s, char *why, size_t size) {
  if (strlen(s) < 10 || s[4] != '-' || s[7] != '-' || digits(s, 4) < 0)
    return 0;
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
  const int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12)
    return snprintf(why, size, "no month %.2s", s + 5), -1;
  if (d < 1 || d > days[m - 1] + (m == 2 && leap))
    return snprintf(why, size, "no day %.2s in %.7s", s + 8, s), -1;
  const char *t = s + 10;
  if (*t == 'T') {
    /* THH, then :MM, then :SS: each two digits in range. */
    static const int most[] = {23, 59, 59};
    static const char *const part[] = {"hour", "minute", "second"};
    t++;
    for (int k = 0; k < 3; k++) {
      if (k > 0 && *t != ':') break;
      if (k > 0) t++;
      const int v = t[0] && t[1] ? digits(t, 2) : -1;
      if (v < 0 || v > most[k])
        return snprintf(why, size, "no %s %.2s (00 to %d)", part[k], t,
                        most[k]),
               -1;
      t += 2;
    }
  }
  if (*t == 'Z') t++;
  if (*t) return snprintf(why, size, "unexpected '%.20s' after the date", t), -1;
  return 1;
}

/* The first date of --since: the date itself, or the first run of the
 * commit. */
static int since_date(kl_history *h, const char *since, char *dst,
                      size_t size, char *err, size_t errlen) {
  char why[96];
  const int date = date_check(since, why, sizeof why);
  if (date != 0) {
    char show[SHOWN_SIZE];
    if (date < 0)
      return kl__said(2, err, errlen, "--since '%s': not a date: %s",
                      kl__shown(since, show), why);
    snprintf(dst, size, "%s", since);
    return 0;
  }
  column started, commit;
  (void)field_column(KL__F_started, &started);
  (void)field_column(KL__F_commit, &commit);
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT min(\"%s\") FROM runs WHERE "
           "substr(\"%s\", 1, length(?1)) = ?1", started.name, commit.name);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) return SQL_FAIL(h, rc, "sqlite3_prepare_v2");
  rc = sqlite3_bind_text(st, 1, since, -1, SQLITE_TRANSIENT);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  const unsigned char *t = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
  if (t) snprintf(dst, size, "%s", (const char *)t);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return SQL_FAIL(h, rc, "sqlite3_step");
  if (!t) {
    char show[SHOWN_SIZE];
    return kl__said(2, err, errlen, "--since '%s': neither a date "
                    "(YYYY-MM-DD) nor a commit of a run in the history",
                    kl__shown(since, show));
  }
  return 0;
}

static int kept(const kl__history_query *q, const point *p, const char *from) {
  return kl__in_list(q->workloads, p->key[0]) &&
         kl__in_list(q->rungs, p->key[1]) &&
         kl__in_list(q->backends, p->key[2]) &&
         (!q->machine || strstr(p->machine, q->machine)) &&
         (!from || strcmp(p->started, from) >= 0);
}

static int same_series(const point *a, const point *b) {
  for (int k = 0; k < 8; k++)
    if (strcmp(a->key[k], b->key[k])) return 0;
  return 1;
}

/* A time with three significant digits and its unit. */
static void time_text(double s, char *dst, size_t size) {
  static const char *const unit[] = {"s", "ms", "us", "ns"};
  int u = 0;
  while (u < 3 && fabs(s) < 1 && s != 0) {
    s *= 1000;
    u++;
  }
  const int digits = fabs(s) >= 100 ? 0 : fabs(s) >= 10 ? 1 : 2;
  snprintf(dst, size, "%.*f %s", digits, s, unit[u]);
}

static void sig3(double v, char *dst, size_t size) {
  const double a = fabs(v);
  if (a >= 1e6 || (a < 1e-3 && a > 0)) snprintf(dst, size, "%.3g", v);
  else snprintf(dst, size, "%.*f", a >= 100 ? 0 : a >= 10 ? 1 : 2, v);
}

/* The series' heading: workload, rung, backend, type, size, the rate's
 * unit, then the parameters (which name op and inputs where they apply). */
static void series_heading(FILE *f, const point *p) {
  char line[512], shown_line[96];
  snprintf(line, sizeof line, "%s %s (%s) %s %s%s%s%s%s", p->key[0],
           p->key[1], p->key[2], p->key[3], p->key[4],
           *p->unit ? ", rate in " : "", p->unit, *p->key[5] ? ", " : "",
           p->key[5]);
  kl__cut_text(line, 80, shown_line, sizeof shown_line);
  fprintf(f, "%s\n", shown_line);
}

/* A commit in 13 columns: 12 digits of its hash, '+' after them for a
 * build of a tree with changes not committed (git's "-dirty"). */
static void commit_text(const char *commit, char *dst, size_t size) {
  const size_t len = strlen(commit);
  if (len > 6 && strcmp(commit + len - 6, "-dirty") == 0)
    snprintf(dst, size, "%.12s+", commit);
  else
    kl__cut_text(commit, 13, dst, size);
}

static void print_table(FILE *f, const point *p, size_t n,
                        const kl__history_query *q, const char *from) {
  const point *last = NULL;
  for (size_t i = 0; i < n; i++) {
    if (!kept(q, &p[i], from)) continue;
    if (!last || !same_series(last, &p[i])) {
      if (last) fputc('\n', f);
      series_heading(f, &p[i]);
      fprintf(f, "  %-16s  %-13s  %-18s  %9s  %7s  %5s\n", "started (UTC)",
              "commit", "machine", "time", "rate", "%ceil");
    }
    last = &p[i];
    char date[20], commit[24], machine[32], t[32], rate[32], pc[16];
    snprintf(date, sizeof date, "%.10s %.5s", p[i].started,
             strlen(p[i].started) > 11 ? p[i].started + 11 : "");
    commit_text(p[i].commit, commit, sizeof commit);
    kl__machine_cut(p[i].machine, 18, machine, sizeof machine);
    const int ok = strcmp(p[i].status, "success") == 0 && p[i].has_median;
    if (ok) time_text(p[i].median, t, sizeof t);
    else kl__cut_text(p[i].status, 9, t, sizeof t);
    if (ok && p[i].has_rate) sig3(p[i].rate, rate, sizeof rate);
    else snprintf(rate, sizeof rate, "-");
    /* A run whose check failed says so where its share would be. */
    if (strcmp(p[i].verdict, "FAIL") == 0) snprintf(pc, sizeof pc, "FAIL");
    else if (ok && p[i].has_percent)
      snprintf(pc, sizeof pc, "%.*f", p[i].percent < 10 ? 1 : 0, p[i].percent);
    else snprintf(pc, sizeof pc, "-");
    fprintf(f, "  %-16s  %-13s  %-18s  %9s  %7s  %5s\n", date, commit,
            machine, t, rate, pc);
  }
  if (!last) fprintf(f, "no runs in the history match\n");
}

/* The fewest of 15 to 17 digits that read back as v. */

/* A point's numbers in the order of the CSV's columns and the JSON's
 * members: each with its name and whether it is there. */
enum { NUMBERS = 6 };
typedef struct number_field {
  int field;
  int has;
  double value;
} number_field;

static void point_numbers(const point *r, number_field out[NUMBERS]) {
  const number_field all[NUMBERS] = {
      {KL__F_median_s, r->has_median, r->median},
      {KL__F_min_s, r->has_median, r->min},
      {KL__F_max_s, r->has_median, r->max},
      {KL__F_rate, r->has_rate, r->rate},
      {KL__F_ceiling, r->has_ceiling, r->ceiling},
      {KL__F_percent_ceiling, r->has_percent, r->percent}};
  memcpy(out, all, sizeof all);
}

static void print_csv(FILE *f, const point *p, size_t n,
                      const kl__history_query *q, const char *from) {
  for (int k = 0; k < 8; k++) fprintf(f, "%s,", kl__field_key(key_fields[k]));
  const int texts[4] = {KL__F_unit, KL__F_started, KL__F_commit,
                        KL__F_build_type};
  for (int k = 0; k < 4; k++) fprintf(f, "%s,", kl__field_key(texts[k]));
  fputs("machine,", f);
  number_field num[NUMBERS];
  const point none = {0};
  point_numbers(&none, num);
  for (int k = 0; k < NUMBERS; k++)
    fprintf(f, "%s,", kl__field_key(num[k].field));
  fprintf(f, "%s,%s,run\n", kl__field_key(KL__F_check),
          kl__field_key(KL__F_status));
  for (size_t i = 0; i < n; i++) {
    const point *r = &p[i];
    if (!kept(q, r, from)) continue;
    for (int k = 0; k < 8; k++) {
      kl__csv_text(f, r->key[k]);
      fputc(',', f);
    }
    const char *text[5] = {r->unit, r->started, r->commit, r->build_type,
                           r->machine};
    for (int k = 0; k < 5; k++) {
      kl__csv_text(f, text[k]);
      fputc(',', f);
    }
    number_field num[NUMBERS];
    point_numbers(r, num);
    for (int k = 0; k < NUMBERS; k++) {
      kl__csv_exact(f, num[k].has ? num[k].value : NAN);
      fputc(',', f);
    }
    kl__csv_text(f, r->verdict);
    fputc(',', f);
    kl__csv_text(f, r->status);
    fprintf(f, ",%lld\n", r->run);
  }
}

static void print_json(FILE *f, const point *p, size_t n,
                       const kl__history_query *q, const char *from) {
  fputs("{\"format\": \"kladder-history-1\", \"points\": [", f);
  int first = 1;
  for (size_t i = 0; i < n; i++) {
    const point *r = &p[i];
    if (!kept(q, r, from)) continue;
    fputs(first ? "\n  {" : ",\n  {", f);
    first = 0;
    for (int k = 0; k < 8; k++)
      kl__json_member(f, k ? ", " : "", kl__field_key(key_fields[k]),
                      r->key[k]);
    const char *names[5] = {kl__field_key(KL__F_unit),
                            kl__field_key(KL__F_started),
                            kl__field_key(KL__F_commit),
                            kl__field_key(KL__F_build_type), "machine"};
    const char *text[5] = {r->unit, r->started, r->commit, r->build_type,
                           r->machine};
    for (int k = 0; k < 5; k++) kl__json_member(f, ", ", names[k], text[k]);
    number_field num[NUMBERS];
    point_numbers(r, num);
    for (int k = 0; k < NUMBERS; k++)
      kl__json_member_exact(f, ", ", kl__field_key(num[k].field),
                            num[k].has ? num[k].value : NAN);
    kl__json_member(f, ", ", kl__field_key(KL__F_check), r->verdict);
    kl__json_member(f, ", ", kl__field_key(KL__F_status), r->status);
    fprintf(f, ", \"run\": %lld}", r->run);
  }
  fputs("\n]}\n", f);
}

/* ---- the regression check ------------------------------------------------ */

/* The method (docs/history.md): a step test on the latest runs. A
 * series is one rung on one problem, one machine and one build type, its
 * runs that succeeded and completed, by date: x_1 .. x_m, each run's
 * median time. For each candidate start j of a recent segment x_j .. x_m
 * of LATEST_MIN to LATEST_MAX runs, the baseline is the BASE_MAX runs
 * before j (at least BASE_MIN): its median b and its spread s = 1.4826 *
 * MAD (the median absolute deviation, scaled to a normal's sigma). The
 * segment is slower where every run in it is above both b * (1 + X)
 * (--threshold) and b + SIGMAS * s: a step up that the baseline's own
 * noise does not explain, held over at least LATEST_MIN runs. The
 * earliest such j is the change: its commit is named. */
#define LATEST_MIN 2
#define LATEST_MAX 10
#define BASE_MIN 5
#define BASE_MAX 20
#define SIGMAS 3.0

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct finding {
  size_t at;          /* the index of the first slower run */
  double base, recent; /* the baseline's median, the segment's */
  size_t runs, base_runs;
} finding;

static int check_series(const double *x, size_t m, double threshold,
                        finding *out) {
  double buf[BASE_MAX], dev[BASE_MAX];
  int found = 0;
  for (size_t len = LATEST_MIN; len <= LATEST_MAX && len < m; len++) {
    const size_t j = m - len;
    if (j < BASE_MIN) break;
    const size_t from = j > BASE_MAX ? j - BASE_MAX : 0;
    const size_t nb = j - from;
    memcpy(buf, x + from, nb * sizeof *buf);
    const double b = median_of(buf, nb);
    for (size_t i = 0; i < nb; i++) dev[i] = fabs(x[from + i] - b);
    const double s = 1.4826 * median_of(dev, nb);
    const double limit = fmax(b * (1 + threshold), b + SIGMAS * s);
    int slower = 1;
    for (size_t i = j; i < m && slower; i++) slower = x[i] > limit;
    if (!slower) {
      /* The runs from j on are not all slower: an earlier start, which
       * takes x_j in, cannot be either. */
      if (x[j] <= limit) break;
      continue;
    }
    double seg[LATEST_MAX];
    memcpy(seg, x + j, len * sizeof *seg);
    out->at = j;
    out->base = b;
    out->recent = median_of(seg, len);
    out->runs = len;
    out->base_runs = nb;
    found = 1;
  }
  return found;
}

static int run_check(FILE *f, const point *p, size_t n,
                     const kl__history_query *q, const char *from,
                     double threshold, int json, char *err, size_t errlen) {
  size_t series = 0, flagged = 0;
  double *x = malloc((n ? n : 1) * sizeof *x);
  size_t *at = malloc((n ? n : 1) * sizeof *at);
  if (!x || !at) {
    free(x);
    free(at);
    return kl__said(2, err, errlen, "history: out of memory");
  }
  if (json) fputs("{\"format\": \"kladder-history-check-1\", "
                  "\"regressions\": [", f);
  for (size_t i = 0; i < n;) {
    size_t e = i + 1;
    while (e < n && same_series(&p[i], &p[e]) &&
           !strcmp(p[i].machine, p[e].machine) &&
           !strcmp(p[i].build_type, p[e].build_type))
      e++;
    size_t m = 0;
    for (size_t k = i; k < e; k++)
      if (kept(q, &p[k], from) && !p[k].interrupted && p[k].has_median &&
          p[k].median > 0 && !strcmp(p[k].status, "success") &&
          strcmp(p[k].verdict, "FAIL") != 0) {
        x[m] = p[k].median;
        at[m++] = k;
      }
    if (m) series++;
    finding fd = {0, 0, 0, 0, 0};
    if (m && check_series(x, m, threshold, &fd)) {
      const point *c = &p[at[fd.at]];
      char b[32], r[32];
      time_text(fd.base, b, sizeof b);
      time_text(fd.recent, r, sizeof r);
      if (json) {
        fputs(flagged ? ",\n  {" : "\n  {", f);
        for (int k = 0; k < 8; k++)
          kl__json_member(f, k ? ", " : "", kl__field_key(key_fields[k]),
                          c->key[k]);
        kl__json_member(f, ", ", "machine", c->machine);
        kl__json_member(f, ", ", kl__field_key(KL__F_build_type),
                        c->build_type);
        kl__json_member(f, ", ", kl__field_key(KL__F_commit), c->commit);
        kl__json_member(f, ", ", kl__field_key(KL__F_started), c->started);
        kl__json_member_exact(f, ", ", "baseline_s", fd.base);
        kl__json_member_exact(f, ", ", "recent_s", fd.recent);
        kl__json_member_exact(f, ", ", "ratio", fd.recent / fd.base);
        fprintf(f, ", \"runs\": %zu, \"baseline_runs\": %zu}", fd.runs,
                fd.base_runs);
      } else {
        series_heading(f, c);
        /* The machine in the room the line leaves it, cut where it must
         * be so as to keep what tells it from the others. */
        char head[160], tail[64], machine[160], line[400];
        snprintf(head, sizeof head, "  slower from commit %s (%.10s) on ",
                 c->commit, c->started);
        snprintf(tail, sizeof tail, " (%s)",
                 *c->build_type ? c->build_type : "no build type");
        const int room = 80 - kl__text_columns(head) - kl__text_columns(tail);
        if (room >= 12)
          kl__machine_cut(c->machine, room, machine, sizeof machine);
        else snprintf(machine, sizeof machine, "%s", c->machine);
        snprintf(line, sizeof line, "%s%s%s", head, machine, tail);
        char shown_line[96];
        kl__cut_text(line, 80, shown_line, sizeof shown_line);
        fprintf(f, "%s\n    %s -> %s (%+.1f%%): the latest %zu runs against "
                "the %zu before\n", shown_line, b, r,
                100 * (fd.recent / fd.base - 1), fd.runs, fd.base_runs);
      }
      flagged++;
    }
    i = e;
  }
  free(x);
  free(at);
  if (json) {
    fprintf(f, "%s], \"series\": %zu, \"threshold\": ", flagged ? "\n" : "",
            series);
    kl__json_exact(f, threshold);
    fputs("}\n", f);
  } else if (flagged) {
    fprintf(f, "history: %zu of %zu series slower (the latest %d-%d runs "
            "against the %d-%d before)\n", flagged, series, LATEST_MIN,
            LATEST_MAX, BASE_MIN, BASE_MAX);
  } else {
    fprintf(f, "history: no regression in %zu series\n", series);
  }
  return flagged ? 1 : 0;
}

int kl__history_print(kl_history *h, const kl__history_query *q, int format,
                      int check, double threshold, FILE *f, char *err,
                      size_t errlen) {
  char from[64] = "";
  int rc = q->since ? since_date(h, q->since, from, sizeof from, err, errlen)
                    : 0;
  point *p = NULL;
  size_t n = 0;
  if (!rc) rc = read_points(h, NULL, check, &p, &n, err, errlen);
  if (rc) return rc;
  const char *since = q->since ? from : NULL;
  if (check) rc = run_check(f, p, n, q, since, threshold, format == 'j', err,
                            errlen);
  else if (format == 'c') print_csv(f, p, n, q, since);
  else if (format == 'j') print_json(f, p, n, q, since);
  else print_table(f, p, n, q, since);
  free_points(p, n);
  return rc;
}

#endif

/* ---- the library's functions (kladder-run.h) --------------------------------- */

static kl_status failed(const char *err) {
  return kl__usage(kl__history_missing() ? KL_UNAVAILABLE : KL_USAGE, "%s",
                   err);
}

kl_status kl_history_open(const char *path, int write, kl_history **out) {
  char err[1024];
  if (!out || !path)
    return kl__usage(KL_USAGE, "kl_history_open: %s is NULL",
                     out ? "path" : "out");
  return kl__history_open(path, write, out, err, sizeof err) ? failed(err)
                                                             : kl__done(KL_OK);
}

void kl_history_close(kl_history *h) { kl__history_close(h); }

kl_status kl_history_append(kl_history *h, const char *const *paths,
                            size_t count, size_t *added) {
  char err[1024];
  int n = 0;
  if (added) *added = 0;
  if (!h || (!paths && count) || count > INT_MAX)
    return kl__usage(KL_USAGE, "kl_history_append: no history or files");
  if (kl__history_append(h, paths, (int)count, &n, err, sizeof err))
    return failed(err);
  if (added) *added = (size_t)n;
  return kl__done(KL_OK);
}

/* The selection of q (NULL: all) to f in format, or the check. */
static kl_status select_runs(kl_history *h, const kl_history_query *q,
                             kl_format format, int check, double threshold,
                             FILE *f, int *regressed) {
  static const kl_history_query all = {sizeof all, NULL, NULL, NULL, NULL,
                                       NULL};
  if (!q) q = &all;
  if (!h || !f || q->size < sizeof *q)
    return kl__usage(KL_USAGE, "kl_history_%s: no history, no stream or a "
                     "query of another size", check ? "check" : "print");
  if (format != KL_FORMAT_TABLE && format != KL_FORMAT_JSON &&
      (check || format != KL_FORMAT_CSV))
    return kl__usage(KL_USAGE, "%d is not a format the history %s in",
                     (int)format, check ? "checks" : "prints");
  const kl__history_query sel = {q->workloads, q->rungs, q->backends,
                                 q->machine, q->since};
  char err[1024];
  const int rc = kl__history_print(
      h, &sel, format == KL_FORMAT_CSV ? 'c' : format == KL_FORMAT_JSON ? 'j'
                                                                       : 't',
      check, threshold, f, err, sizeof err);
  if (rc > 1) return failed(err);
  if (regressed) *regressed = rc == 1;
  if (ferror(f))
    return kl__usage(KL_IO, "cannot write the history's runs: %s",
                     strerror(errno ? errno : EIO));
  return kl__done(KL_OK);
}

kl_status kl_history_print(kl_history *h, const kl_history_query *q,
                           kl_format format, FILE *f) {
  return select_runs(h, q, format, 0, 0, f, NULL);
}

kl_status kl_history_check(kl_history *h, const kl_history_query *q,
                           double threshold, kl_format format, FILE *f,
                           int *regressed) {
  if (regressed) *regressed = 0;
  if (!(threshold >= 0 && threshold <= 100))
    return kl__usage(KL_USAGE, "kl_history_check: threshold %g must be a "
                     "fraction from 0 to 100", threshold);
  char *text = NULL;
  size_t len = 0;
  FILE *none = f ? NULL : open_memstream(&text, &len);
  if (!f && !none) return kl__usage(KL_NO_MEMORY, "out of memory");
  const kl_status st =
      select_runs(h, q, format, 1, threshold, f ? f : none, regressed);
  if (none) fclose(none);
  free(text);
  return st;
}
