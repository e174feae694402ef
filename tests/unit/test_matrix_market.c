/* The Matrix Market reader (src/core/matrix-market.c), under cg's rules:
 * the good files' CSR element by element against matrices written here,
 * one refusal per bad file (KL_USAGE, a word of its message and the line
 * it names), a generated matrix with long rows in both storages, the
 * cache of scan (a file changed without changing its size or time is not
 * read again; a touched one is), load's KL_IO for a file that changed
 * after its scan, and vectors read and written; then the one value parser
 * (the same text the same through a coordinate and an array file) and the
 * format without cg's rules. Its argument: the folder of the files
 * (tests/data/cg). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "expect.h"
#include "core/matrix-market.h"

/* cg's rules (cg.c): its matrix, which must pass for symmetric positive
 * definite, and its right-hand side. */
static const kl_mm_rules spd = {"matrix", "cg", KL_MM_VALUES | KL_MM_SPD};
static const kl_mm_rules rhs = {"right-hand side", "cg", 0};

static const char *data_dir;
static char temp_dir[512];

/* The files are named as they are in the folder, which main makes the
 * working directory: messages quote a name whole only up to KL_CLIP_BYTES. */
static const char *data(const char *name) { return name; }

/* A file's path in the test's temporary folder, written into the caller's
 * buffer: two names held at once are two strings. */
enum { TEMP_PATH = 1024 };
static const char *temp(char path[TEMP_PATH], const char *name) {
  snprintf(path, TEMP_PATH, "%s/%s", temp_dir, name);
  return path;
}

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  const size_t n = strlen(text);
  const int ok = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

/* The whole of a file, or NULL. */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = malloc(1 << 16);
  size_t n = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
  fclose(f);
  if (text) text[n] = '\0';
  return text;
}

/* A matrix as expected: its nonzeros in row-major order. */
typedef struct elem {
  int32_t row, column;
  double value;
} elem;

/* small.mtx, general.mtx and upper.mtx: one 5x5 matrix, A(4,1) an
 * explicit zero. */
static const elem small[] = {
    {0, 0, 4},  {0, 1, -1}, {0, 3, 0},    {0, 4, 0.25}, {1, 0, -1}, {1, 1, 4},
    {1, 2, -1}, {2, 1, -1}, {2, 2, 4},    {2, 3, -1},   {3, 0, 0},  {3, 2, -1},
    {3, 3, 4},  {3, 4, -1}, {4, 0, 0.25}, {4, 3, -1},   {4, 4, 5.5}};
static const elem integer[] = {{0, 0, 2}, {0, 2, -1}, {1, 1, 3}, {2, 0, -1},
                               {2, 2, 4}};

/* Scan and load the file into arrays of exactly the size scan gives, and
 * compare every element. */
static void expect_matrix(const char *path, int64_t rows, const elem *want,
                          int64_t nnz, int symmetric_storage) {
  kl_mm_info info = {.symmetric = -1};
  kl_status st = kl__mm_scan(&spd, path, &info);
  printf("%s: %s, %lld rows, %lld nonzeros, %s storage\n", path,
         kl_status_name(st), (long long)info.rows, (long long)info.nnz,
         info.symmetric ? "symmetric" : "general");
  EXPECT(st == KL_OK);
  EXPECT(info.rows == rows && info.nnz == nnz &&
         info.symmetric == symmetric_storage);
  if (st != KL_OK || info.rows != rows || info.nnz != nnz) return;
  int64_t *offsets = malloc((size_t)(rows + 1) * sizeof *offsets);
  int32_t *columns = malloc((size_t)nnz * sizeof *columns);
  double *values = malloc((size_t)nnz * sizeof *values);
  if (!offsets || !columns || !values) {
    EXPECT(!"out of memory");
    free(offsets), free(columns), free(values);
    return;
  }
  /* Poisoned, as the harness leaves buffers. */
  memset(offsets, 0xFF, (size_t)(rows + 1) * sizeof *offsets);
  memset(columns, 0xFF, (size_t)nnz * sizeof *columns);
  memset(values, 0xFF, (size_t)nnz * sizeof *values);
  st = kl__mm_load(&spd, path, &info, offsets, columns, values);
  EXPECT(st == KL_OK);
  int64_t bad = 0;
  bad += offsets[0] != 0 || offsets[rows] != nnz;
  for (int64_t r = 0; r < rows && !bad; r++)
    for (int64_t k = offsets[r]; k < offsets[r + 1]; k++)
      if (k < 0 || k >= nnz || want[k].row != r ||
          want[k].column != columns[k] || want[k].value != values[k] ||
          memcmp(&want[k].value, &values[k], sizeof *values) != 0) {
        if (!bad)
          printf("  first difference: element %lld: (%d, %d) = %g, want "
                 "(%d, %d) = %g\n", (long long)k, (int)r,
                 (int)columns[k], values[k], (int)want[k].row,
                 (int)want[k].column, want[k].value);
        bad++;
      }
  EXPECT(bad == 0);
  free(offsets);
  free(columns);
  free(values);
}

/* One refusal per file: KL_USAGE, the file's name, a word, the line. */
static void test_bad_files(void) {
  static const struct {
    const char *file, *word, *line;
  } bad[] = {
      {"bad-empty.mtx", "is empty", NULL},
      {"bad-no-header.mtx", "no Matrix Market header", "line 1:"},
      {"bad-array.mtx", "format 'array' is a dense", "line 1:"},
      {"bad-pattern.mtx", "'pattern' gives no values", "line 1:"},
      {"bad-complex.mtx", "field 'complex' is not taken", "line 1:"},
      {"bad-hermitian.mtx", "symmetry 'hermitian' is not taken", "line 1:"},
      {"bad-skew.mtx", "'skew-symmetric' is not taken", "line 1:"},
      {"bad-header-short.mtx", "the header has no symmetry", "line 1:"},
      {"bad-size-line.mtx", "malformed size line", "line 3:"},
      {"bad-not-square.mtx", "not square: 3 rows, 4 columns", "line 2:"},
      {"bad-rows-zero.mtx", "0 rows: an empty matrix", "line 2:"},
      {"bad-rows-big.mtx", "rows = 3000000000 is outside 1..2147483647",
       "line 2:"},
      {"bad-entries-negative.mtx", "entries = -1 is negative", "line 2:"},
      {"bad-huge.mtx", "999999999999 entries; the 12 bytes after it can hold "
                       "at most 2: the file is truncated", "line 2:"},
      {"bad-truncated.mtx", "truncated: it ends after 4 of the 5 entries",
       "line 7:"},
      {"bad-junk.mtx", "unexpected 'junk' after the value", "line 4:"},
      {"bad-not-number.mtx", "value '2.0x' is not a number", "line 4:"},
      {"bad-no-value.mtx", "entry (2, 2) has no value", "line 4:"},
      {"bad-integer-value.mtx", "'1.5' is not an integer", "line 4:"},
      {"bad-out-of-range.mtx", "row index '4' is out of range 1..3", "line 6:"},
      {"bad-index-zero.mtx", "column index '0' is out of range 1..3 (indices "
                             "start at 1)", "line 6:"},
      {"bad-duplicate.mtx", "entry (2, 1) is given twice, on lines 6 and 7",
       NULL},
      {"bad-both-triangles.mtx", "(2, 1) on line 6 and (1, 2) on line 7 are "
                                 "one entry", NULL},
      {"bad-both-triangles.mtx", "each off-diagonal pair once", NULL},
      {"bad-unsymmetric.mtx", "not symmetric: A(1, 2) = -0.5 (line 7) but "
                              "A(2, 1) = -1 (line 6)", NULL},
      {"bad-missing-mirror.mtx", "not symmetric: A(3, 2) = -1 (line 6) is "
                                 "given, A(2, 3) is not", NULL},
      {"bad-missing-diagonal.mtx", "no diagonal entry A(2, 2): the matrix is "
                                   "not positive definite", NULL},
      {"bad-negative-diagonal.mtx", "A(2, 2) = -2 is not positive: the matrix "
                                    "is not positive definite", "line 4:"},
      {"bad-zero-diagonal.mtx", "A(2, 2) = 0 is not positive", "line 4:"},
      {"bad-indefinite.mtx", "rows 1 and 2: the 2x2 minor", NULL},
      {"bad-indefinite.mtx", "with 1, 1 and 2 (line 6): the matrix is not "
                             "positive definite", NULL},
      {"bad-nan.mtx", "value 'NaN' is not finite", "line 6:"},
      {"bad-inf.mtx", "value '-inf' is not finite", "line 6:"},
      {"bad-overflow.mtx", "'1e999' is not finite: it overflows a double",
       "line 6:"},
      {"bad-extra-data.mtx", "data after the last of the 4 entries",
       "line 8:"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    kl_mm_info info;
    const kl_status st = kl__mm_scan(&spd, data(bad[k].file), &info);
    const char *error = kl_last_error();
    printf("%-26s %s: %s\n", bad[k].file, kl_status_name(st), error);
    EXPECT(st == KL_USAGE);
    EXPECT(strstr(error, bad[k].file) != NULL);
    if (!strstr(error, bad[k].word))
      printf("  wanted: %s\n", bad[k].word);
    EXPECT(strstr(error, bad[k].word) != NULL);
    EXPECT(!bad[k].line || strstr(error, bad[k].line) != NULL);
  }
  kl_mm_info info;
  EXPECT(kl__mm_scan(&spd, data("missing.mtx"), &info) == KL_USAGE &&
         strstr(kl_last_error(), "No such file or directory"));
  EXPECT(kl__mm_scan(&spd, ".", &info) == KL_USAGE &&
         strstr(kl_last_error(), "is a directory"));
  EXPECT(kl__mm_scan(&spd, "", &info) == KL_USAGE &&
         strstr(kl_last_error(), "name is empty"));
}

/* Files written here: the edges of the format and of the checks. NULL:
 * taken. */
static void test_edges(void) {
#define SYM "%%MatrixMarket matrix coordinate real symmetric\n"
#define GEN "%%MatrixMarket matrix coordinate real general\n"
  static const struct {
    const char *text, *word;
  } edge[] = {
      {SYM "3 3 4 5\n1 1 1\n2 2 1\n3 3 1\n",
       "line 2: malformed size line: '3 3 4 5' is not"},
      {SYM "1 1 1\n1 1 0x1p3\n", "value '0x1p3' is not a number"},
      {SYM "1 1 1\n1 1 1e\n", "value '1e' is not a number"},
      {SYM "1 1 1\n1 1 .\n", "value '.' is not a number"},
      {SYM "1 1 1\n1 1 -1.5\n", "A(1, 1) = -1.5 is not positive"},
      {SYM "1 1 1\n1 1 -0\n", "A(1, 1) = -0 is not positive"},
      {SYM "1 1 1\n1 -1 1\n", "column index '-1' is not a positive integer"},
      {SYM "1 1 1\n1 1.0 1\n", "column index '1.0' is not a positive"},
      {SYM "1 1 1\n1        \n", "line 3: the entry has no column index"},
      {SYM "1 1 1\n99999999999999999999 1 1\n",
       "row index '99999999999999999999' is out of range 1..1"},
      {"%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n",
       "object 'vector' is not 'matrix'"},
      {"%%MatrixMarket matrix coordinate real general extra\n1 1 1\n1 1 1\n",
       "unexpected 'extra' after the header's symmetry"},
      {"%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 1\n",
       "unknown field 'double'; valid: real, integer"},
      {"%%MatrixMarket matrix coordinate real\n", "the header has no symmetry"},
      {SYM, "line 1: malformed size line: the file ends before"},
      {SYM "% only comments\n\n", "malformed size line: the file ends"},
      {"\n" SYM "1 1 1\n1 1 1\n", "line 1: no Matrix Market header"},
      {"\x7f""ELF\x01\x02\n", "no Matrix Market header"},
      {SYM "1 1 1\n1 1 1 \x01\n", "unexpected '?' after the value"},
      /* CRLF line ends, blanks around, a last line without its end. */
      {SYM "% dos\r\n \t2 2 2\r\n1 1  3\t\r\n\r\n 2\t2 1e0", NULL},
      /* Mixed triangles in symmetric storage: each pair once. */
      {SYM "3 3 5\n1 1 2\n2 2 2\n3 3 2\n2 1 -1\n2 3 -1\n", NULL},
      /* Minors: zero is refused, whatever the scale; far from 0 beyond
       * the range of a double's product is taken. */
      {SYM "2 2 3\n1 1 1\n2 2 1\n2 1 1\n", "the 2x2 minor"},
      {SYM "2 2 3\n1 1 1e200\n2 2 1e200\n2 1 1e200\n", "the 2x2 minor"},
      {SYM "2 2 3\n1 1 1e-200\n2 2 1e-200\n2 1 -1e-200\n", "2x2 minor"},
      {SYM "2 2 3\n1 1 1e200\n2 2 1e200\n2 1 9.99e199\n", NULL},
      {SYM "2 2 3\n1 1 1e-200\n2 2 1e-200\n2 1 9.99e-201\n", NULL},
      {SYM "2 2 3\n1 1 4e300\n2 2 1e-300\n2 1 1.999\n", NULL},
      {SYM "2 2 3\n1 1 4e300\n2 2 1e-300\n2 1 2.001\n", "2x2 minor"},
      /* An off-diagonal value that underflows: an explicit zero. */
      {SYM "2 2 3\n1 1 1\n2 2 1\n2 1 1e-400\n", NULL},
      /* Bitwise: 0 and -0 are not the same value. */
      {GEN "2 2 4\n1 1 1\n2 2 1\n2 1 0\n1 2 -0\n",
       "A(1, 2) = -0 (line 6) but A(2, 1) = 0 (line 5)"},
      {GEN "2 2 4\n1 1 1\n2 2 1\n2 1 0.1\n1 2 0.10000000000000001\n", NULL},
      {GEN "2 2 4\n1 1 1\n2 2 1\n2 1 0.1\n1 2 0.10000000000000002\n",
       "A(1, 2) = 0.10000000000000002 (line 6) but A(2, 1) = 0.1 (line 5)"},
      {GEN "2 2 3\n1 1 1\n2 2 1\n1 1 1\n", "entry (1, 1) is given twice"},
      {SYM "1 1 2\n1 1 1\n\n% fine\n1 1 2\n",
       "entry (1, 1) is given twice, on lines 3 and 6"},
  };
#undef SYM
#undef GEN
  char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, "edge.mtx");
  for (size_t k = 0; k < sizeof edge / sizeof *edge; k++) {
    EXPECT(write_text(path, edge[k].text));
    kl_mm_info info;
    const kl_status st = kl__mm_scan(&spd, path, &info);
    printf("edge %zu: %s%s%s\n", k, kl_status_name(st), st ? ": " : "",
           st ? kl_last_error() : "");
    if (!edge[k].word) {
      EXPECT(st == KL_OK);
      continue;
    }
    EXPECT(st == KL_USAGE && strstr(kl_last_error(), edge[k].word));
    if (!strstr(kl_last_error(), edge[k].word))
      printf("  wanted: %s\n", edge[k].word);
  }
  remove(path);
}

/* Values as strtod reads them, on the fast path and off it: a diagonal
 * matrix of them. */
static void test_values(void) {
  static const char *const text[] = {
      "1", "+2", "0.1", "3.14159", "1e22", "1e23", "123456789012345678",
      "9007199254740993", "9007199254740992", "0.000001", "1e-22", "7e-23",
      "1.7976931348623157e308", "4.9e-324", "2.2250738585072014e-308",
      "12345678901234567890123456789", "1.00000000000000000000000000001",
      "100000000000000000000000000000e-29",
      "0.1000000000000000055511151231257827",
      "5.", ".5", "1E5", "1e+5", "000123.4500", "0.30000000000000004",
      "8.98846567431158e307", "2.5e-1"};
  enum { N = sizeof text / sizeof *text };
  char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, "values.mtx");
  FILE *f = fopen(path, "wb");
  EXPECT(f != NULL);
  if (!f) return;
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n",
          (int)N, (int)N, (int)N);
  for (int k = 0; k < N; k++) fprintf(f, "%d %d %s\n", k + 1, k + 1, text[k]);
  fclose(f);
  kl_mm_info info;
  int64_t offsets[N + 1];
  int32_t columns[N];
  double values[N];
  EXPECT(kl__mm_scan(&spd, path, &info) == KL_OK && info.nnz == N);
  EXPECT(kl__mm_load(&spd, path, &info, offsets, columns, values) == KL_OK);
  for (int k = 0; k < N; k++) {
    const double want = strtod(text[k], NULL);
    if (memcmp(&want, &values[k], sizeof want) != 0)
      printf("value '%s': %.17g, strtod %.17g\n", text[k], values[k], want);
    EXPECT(memcmp(&want, &values[k], sizeof want) == 0 && columns[k] == k);
  }
  remove(path);
}

/* Lines longer than the reader's block: a comment is taken, data is not. */
static void test_long_lines(void) {
  char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, "long.mtx");
  const size_t long_bytes = (size_t)5 << 20;
  for (int comment = 1; comment >= 0; comment--) {
    FILE *f = fopen(path, "wb");
    if (!f) {
      EXPECT(!"cannot write the temporary file");
      return;
    }
    fputs("%%MatrixMarket matrix coordinate real general\n", f);
    fputs(comment ? "%" : "1 1 1", f);
    for (size_t k = 0; k < long_bytes; k++) fputc(comment ? 'x' : ' ', f);
    fputs(comment ? "\n1 1 1\n1 1 2\n" : "\n1 1 2\n", f);
    fclose(f);
    kl_mm_info info;
    const kl_status st = kl__mm_scan(&spd, path, &info);
    printf("line of %zu bytes (%s): %s %s\n", long_bytes,
           comment ? "comment" : "data", kl_status_name(st),
           st ? kl_last_error() : "");
    if (comment) EXPECT(st == KL_OK && info.rows == 1 && info.nnz == 1);
    else
      EXPECT(st == KL_USAGE &&
             strstr(kl_last_error(), "line 2: the line is longer than"));
  }
  remove(path);
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

/* An arrow matrix (row and column 0 full: a row long enough for qsort)
 * with random entries elsewhere, entries in a random order, values of 17
 * significant digits (strtod's path) and short ones (the fast path), in
 * symmetric storage (each pair in either triangle) and in general. */
static void test_generated(void) {
  enum { N = 300 };
  double *dense = calloc((size_t)N * N, sizeof *dense);
  unsigned char *has = calloc((size_t)N * N, 1);
  elem *list = malloc((size_t)N * N * sizeof *list);
  int64_t *order = malloc((size_t)N * N * sizeof *order);
  if (!dense || !has || !list || !order) {
    EXPECT(!"out of memory");
    free(dense), free(has), free(list), free(order);
    return;
  }
  int64_t lower = 0, nnz = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      const uint64_t h = mix((uint64_t)i * N + (uint64_t)j + 1);
      if (i != j && j != 0 && h % 16 != 0) continue;
      const double v = i == j ? N + 0.5 * (double)(h % 7)
                       : h >> 8 & 1 ? -(double)(h % 1000 + 1) / 977.0
                                    : -(double)(h % 64) / 64.0;
      dense[i * N + j] = dense[j * N + i] = v;
      has[i * N + j] = has[j * N + i] = 1;
      lower++;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      if (has[i * N + j]) list[nnz++] = (elem){i, j, dense[i * N + j]};
  for (int general = 0; general <= 1; general++) {
    char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, general ? "generated-general.mtx"
                                    : "generated-symmetric.mtx");
    /* The entries to write, shuffled. */
    int64_t count = 0;
    for (int64_t k = 0; k < nnz; k++)
      if (general || list[k].row >= list[k].column) order[count++] = k;
    for (int64_t k = count - 1; k > 0; k--) {
      const int64_t t = (int64_t)(mix((uint64_t)k * 7919u) % (uint64_t)(k + 1));
      const int64_t swap = order[k];
      order[k] = order[t];
      order[t] = swap;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
      EXPECT(!"cannot write the temporary file");
      break;
    }
    fprintf(f, "%%%%MatrixMarket matrix coordinate real %s\n%d %d %lld\n",
            general ? "general" : "symmetric", N, N, (long long)count);
    for (int64_t k = 0; k < count; k++) {
      elem e = list[order[k]];
      if (!general && mix((uint64_t)k) & 1) {
        const int32_t swap = e.row;
        e.row = e.column;
        e.column = swap;
      }
      fprintf(f, "%d %d %.17g\n", e.row + 1, e.column + 1, e.value);
    }
    fclose(f);
    EXPECT(count == (general ? nnz : lower));
    expect_matrix(path, N, list, nnz, !general);
    remove(path);
  }
  free(dense);
  free(has);
  free(list);
  free(order);
}

static void set_mtime(const char *path, const struct timespec *mtime) {
  const struct timespec times[2] = {{0, UTIME_OMIT}, *mtime};
  EXPECT(utimensat(AT_FDCWD, path, times, 0) == 0);
}

/* Overwrite bytes of a file in place (its inode and size kept). */
static void patch(const char *path, long at, const char *bytes) {
  FILE *f = fopen(path, "r+b");
  EXPECT(f != NULL);
  if (!f) return;
  EXPECT(fseek(f, at, SEEK_SET) == 0);
  EXPECT(fwrite(bytes, 1, strlen(bytes), f) == strlen(bytes));
  EXPECT(fclose(f) == 0);
}

/* scan answers from its cache while the file keeps its size, time and
 * inode, even where the content changed under it; a new time reads it
 * again, and a refusal is cached as a result is. */
static void test_cache(void) {
  char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, "cache.mtx");
  char *text = read_text(data("small.mtx"));
  EXPECT(text && write_text(path, text));
  const char *diagonal = text ? strstr(text, "5 5 5.5\n") : NULL;
  EXPECT(diagonal != NULL);
  if (!diagonal) {
    free(text);
    return;
  }
  const long at = (long)(diagonal - text) + 4;
  kl_mm_info info, again;
  EXPECT(kl__mm_scan(&spd, path, &info) == KL_OK && info.nnz == 17);
  struct stat before;
  EXPECT(stat(path, &before) == 0);
  /* A(5,5) = -55: refused, were the file read. */
  patch(path, at, "-55");
  set_mtime(path, &before.st_mtim);
  EXPECT(kl__mm_scan(&spd, path, &again) == KL_OK && again.nnz == 17 &&
         again.rows == 5);
  /* Touched: read again. */
  struct timespec later = before.st_mtim;
  later.tv_sec += 10;
  set_mtime(path, &later);
  EXPECT(kl__mm_scan(&spd, path, &again) == KL_USAGE &&
         strstr(kl_last_error(), "A(5, 5) = -55 is not positive"));
  char first[512];
  snprintf(first, sizeof first, "%s", kl_last_error());
  /* The refusal, from the cache: the same message, though the file is
   * good again under the same size and time. */
  patch(path, at, "5.5");
  set_mtime(path, &later);
  EXPECT(kl__mm_scan(&spd, path, &again) == KL_USAGE &&
         strcmp(first, kl_last_error()) == 0);
  later.tv_sec += 10;
  set_mtime(path, &later);
  EXPECT(kl__mm_scan(&spd, path, &again) == KL_OK && again.nnz == 17);
  /* A copy put in its place, size and time kept: another inode. */
  char copy_buf[TEMP_PATH];
  const char *copy = temp(copy_buf, "cache-copy.mtx");
  EXPECT(write_text(copy, text));
  patch(copy, at, "-55");
  set_mtime(copy, &later);
  EXPECT(rename(copy, path) == 0);
  EXPECT(kl__mm_scan(&spd, path, &again) == KL_USAGE &&
         strstr(kl_last_error(), "is not positive"));
  remove(path);
  free(text);
}

/* load after a change: another size, the same size at another time, the
 * counts of another file, content that no longer passes. */
static void test_changed(void) {
  char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, "changed.mtx");
  char *small_text = read_text(data("small.mtx")),
       *general_text = read_text(data("general.mtx"));
  EXPECT(small_text && general_text);
  if (!small_text || !general_text) {
    free(small_text), free(general_text);
    return;
  }
  int64_t offsets[6];
  int32_t columns[17];
  double values[17];
  kl_mm_info info;
  EXPECT(write_text(path, small_text));
  EXPECT(kl__mm_scan(&spd, path, &info) == KL_OK);
  EXPECT(kl__mm_load(&spd, path, &info, offsets, columns, values) == KL_OK);
  EXPECT(write_text(path, general_text));
  kl_status st = kl__mm_load(&spd, path, &info, offsets, columns, values);
  printf("grown: %s: %s\n", kl_status_name(st), kl_last_error());
  EXPECT(st == KL_IO && strstr(kl_last_error(), "changed after it was "
                                                "scanned"));
  /* The same size, written later. */
  EXPECT(write_text(path, small_text));
  EXPECT(kl__mm_scan(&spd, path, &info) == KL_OK);
  struct stat s;
  EXPECT(stat(path, &s) == 0);
  struct timespec later = s.st_mtim;
  later.tv_sec += 10;
  set_mtime(path, &later);
  st = kl__mm_load(&spd, path, &info, offsets, columns, values);
  printf("touched: %s: %s\n", kl_status_name(st), kl_last_error());
  EXPECT(st == KL_IO && strstr(kl_last_error(), "modified or replaced"));
  /* Removed. */
  EXPECT(kl__mm_scan(&spd, path, &info) == KL_OK);
  remove(path);
  st = kl__mm_load(&spd, path, &info, offsets, columns, values);
  printf("removed: %s: %s\n", kl_status_name(st), kl_last_error());
  EXPECT(st == KL_IO && strstr(kl_last_error(), "No such file"));
  /* With no scan of this file to compare with (the cache holds another),
   * the counts: another matrix, or one that is no longer taken. */
  EXPECT(kl__mm_scan(&spd, data("small.mtx"), &info) == KL_OK);
  st = kl__mm_load(&spd, data("integer.mtx"), &info, offsets, columns, values);
  printf("other counts: %s: %s\n", kl_status_name(st), kl_last_error());
  EXPECT(st == KL_IO && strstr(kl_last_error(), "3 rows in symmetric storage "
                                                "now, 5 in symmetric then"));
  st = kl__mm_load(&spd, data("bad-negative-diagonal.mtx"), &info, offsets,
                      columns, values);
  EXPECT(st == KL_IO);
  kl_mm_info three = {.rows = 3, .nnz = 5, .symmetric = 1};
  st = kl__mm_load(&spd, data("bad-negative-diagonal.mtx"), &three, offsets,
                      columns, values);
  printf("now refused: %s: %s\n", kl_status_name(st), kl_last_error());
  EXPECT(st == KL_IO && strstr(kl_last_error(), "is not positive") &&
         strstr(kl_last_error(), "changed after it was scanned"));
  kl_mm_info more = {.rows = 5, .nnz = 16, .symmetric = 1};
  st = kl__mm_load(&spd, data("small.mtx"), &more, offsets, columns, values);
  printf("other nonzeros: %s: %s\n", kl_status_name(st), kl_last_error());
  EXPECT(st == KL_IO && strstr(kl_last_error(), "17 nonzeros now, 16 then"));
  free(small_text);
  free(general_text);
}

/* ---- vectors: Matrix Market array files (cg's --rhs and --solution) ---- */

#define ARRAY "%%MatrixMarket matrix array real general\n"

/* The values a good file holds, bit for bit. */
static void expect_vector(const char *text, const double *want, int64_t rows) {
  char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, "v.mtx");
  EXPECT(write_text(path, text));
  double got[8];
  memset(got, 0xFF, sizeof got);
  kl_status st = kl__mm_vector_scan(&rhs, path, rows);
  if (st == KL_OK) st = kl__mm_vector_load(&rhs, path, rows, got);
  printf("vector of %lld: %s %s\n", (long long)rows, kl_status_name(st),
         kl_last_error());
  EXPECT(st == KL_OK && memcmp(got, want, (size_t)rows * sizeof *got) == 0);
  remove(path);
}

static void test_vectors(void) {
  static const double three[] = {1, -2.5, 300};
  expect_vector(ARRAY "3 1\n1\n-2.5\n3e2\n", three, 3);
  /* integer, comments and blank lines anywhere after the header, CRLF,
   * blanks around values, no newline after the last. */
  static const double ints[] = {1, -2, 7};
  expect_vector("%%MatrixMarket matrix array integer general\r\n% b\r\n\r\n"
                "  3   1 \r\n 1\r\n% between\r\n-2 \r\n\r\n+7", ints, 3);
  /* The file the CLI tests solve with. */
  EXPECT(kl__mm_vector_scan(&rhs, data("rhs-small.mtx"), 5) == KL_OK);
  static const struct {
    const char *text, *word, *line;
  } bad[] = {
      {"", "is empty", NULL},
      {"3 1\n1\n2\n3\n", "no Matrix Market header", "line 1:"},
      {"%%MatrixMarket matrix coordinate real general\n3 1 3\n",
       "format 'coordinate' is a sparse matrix; a vector is an 'array' file",
       "line 1:"},
      {"%%MatrixMarket matrix array complex general\n3 1\n",
       "field 'complex' is not taken", "line 1:"},
      {"%%MatrixMarket matrix array pattern general\n3 1\n",
       "field 'pattern' is not taken; valid: real, integer", "line 1:"},
      {"%%MatrixMarket matrix array real symmetric\n3 1\n",
       "symmetry 'symmetric' is not taken: a vector (one column) is "
       "'general'", "line 1:"},
      {"%%MatrixMarket matrix array real\n3 1\n",
       "the header has no symmetry", "line 1:"},
      {"%%MatrixMarket matrix array real general x\n3 1\n",
       "unexpected 'x' after the header's symmetry", "line 1:"},
      {ARRAY, "the file ends before 'rows columns'", NULL},
      {ARRAY "% only comments\n3\n1\n2\n3\n",
       "malformed size line: 1 integer, not 'rows columns'", "line 3:"},
      {ARRAY "3 1 1\n1\n2\n3\n", "malformed size line: '3 1 1' is not",
       "line 2:"},
      {ARRAY "3 2\n1\n2\n3\n4\n5\n6\n",
       "2 columns: a vector is one column", "line 2:"},
      {ARRAY "4 1\n1\n2\n3\n4\n", "4 rows, but the matrix has 3",
       "line 2:"},
      {ARRAY "3 1\n1\nnan\n3\n", "value 'nan' is not finite", "line 4:"},
      {ARRAY "3 1\n1\n2\n-Inf\n", "value '-Inf' is not finite",
       "line 5:"},
      {ARRAY "3 1\n1e999\n2\n3\n", "'1e999' is not finite: it overflows",
       "line 3:"},
      {ARRAY "3 1\n1\n2.5x\n3\n", "value '2.5x' is not a number",
       "line 4:"},
      {ARRAY "3 1\n1 2\n3\n", "unexpected '2' after the value: an array "
       "file gives one value a line", "line 3:"},
      {"%%MatrixMarket matrix array integer general\n3 1\n1\n1.5\n3\n",
       "'1.5' is not an integer", "line 4:"},
      {ARRAY "3 1\n1\n2\n", "truncated: it ends after 2 of the 3 values",
       NULL},
      {ARRAY "3 1\n1\n2\n3\n4\n", "data after the last of the 3 values",
       "line 6:"},
  };
  char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, "bad.mtx");
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    EXPECT(write_text(path, bad[k].text));
    const kl_status st = kl__mm_vector_scan(&rhs, path, 3);
    const char *error = kl_last_error();
    printf("bad vector %zu: %s: %s\n", k, kl_status_name(st), error);
    EXPECT(st == KL_USAGE && strstr(error, "right-hand side file '"));
    EXPECT(strstr(error, bad[k].word) != NULL);
    EXPECT(!bad[k].line || strstr(error, bad[k].line) != NULL);
    /* A load of it (the file changed after a scan that took it). */
    double x[3];
    EXPECT(kl__mm_vector_load(&rhs, path, 3, x) == KL_IO);
    remove(path);
  }
  EXPECT(kl__mm_vector_scan(&rhs, "missing.mtx", 3) == KL_USAGE &&
         strstr(kl_last_error(), "cannot read right-hand side file "
                                 "'missing.mtx': No such file"));
  EXPECT(kl__mm_vector_scan(&rhs, ".", 3) == KL_USAGE &&
         strstr(kl_last_error(), "is a directory"));

  /* The cache: the same file asked for other rows is refused. */
  EXPECT(write_text(path, ARRAY "3 1\n1\n2\n3\n"));
  EXPECT(kl__mm_vector_scan(&rhs, path, 3) == KL_OK);
  EXPECT(kl__mm_vector_scan(&rhs, path, 4) == KL_USAGE &&
         strstr(kl_last_error(), "3 rows, but the matrix has 4"));
  EXPECT(kl__mm_vector_scan(&rhs, path, 3) == KL_OK);
  /* Touched after its scan: load says it changed. */
  struct stat st;
  EXPECT(stat(path, &st) == 0);
  struct timespec later = st.st_mtim;
  later.tv_sec += 10;
  set_mtime(path, &later);
  double x[3];
  const kl_status loaded = kl__mm_vector_load(&rhs, path, 3, x);
  printf("touched vector: %s: %s\n", kl_status_name(loaded),
         kl_last_error());
  EXPECT(loaded == KL_IO && strstr(kl_last_error(), "modified or replaced"));
  remove(path);

  /* What write writes reads back bit for bit: awkward values, a comment of
   * two lines with a control byte; under a locale whose decimal point is a
   * comma where this machine has one. */
  static const double awkward[] = {0.1,           -0.0,  1e-300,
                                   4.9e-324,      -3,    1.0 / 3,
                                   1.7976931348623157e308, 123456789012345678.0};
  const int64_t rows = sizeof awkward / sizeof *awkward;
  const char *had = setlocale(LC_NUMERIC, NULL);
  char saved[64];
  snprintf(saved, sizeof saved, "%s", had ? had : "C");
  const int comma = setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL ||
                    setlocale(LC_NUMERIC, "fr_FR.UTF-8") != NULL;
  printf("writing under a comma locale: %s\n", comma ? "yes" : "not here");
  FILE *f = fopen(path, "wb");
  EXPECT(f != NULL);
  if (f) {
    kl__mm_vector_write(f, awkward, rows, "first line\nsecond\tline");
    EXPECT(!ferror(f));
    EXPECT(fclose(f) == 0);
  }
  setlocale(LC_NUMERIC, saved);
  double back[8];
  memset(back, 0, sizeof back);
  kl_status got = kl__mm_vector_scan(&rhs, path, rows);
  if (got == KL_OK) got = kl__mm_vector_load(&rhs, path, rows, back);
  printf("written and read back: %s %s\n", kl_status_name(got),
         kl_last_error());
  EXPECT(got == KL_OK &&
         memcmp(back, awkward, (size_t)rows * sizeof *back) == 0);
  char *text = read_text(path);
  const char *head =
      ARRAY "% first line\n% second?line\n8 1\n0.10000000000000001\n-0\n";
  EXPECT(text && strncmp(text, head, strlen(head)) == 0);
  free(text);
  remove(path);
}

/* ---- the one value parser: the same text the same through both formats */

/* No checks past the format's own: a value's verdict is the parser's. */
static const kl_mm_rules plain = {"matrix", "a test", 0};

/* text as the one value of a 1x1 coordinate file and of a vector of one,
 * of the field given: the same verdict, the same value to the bit or the
 * same message. */
static void expect_same_value(const char *field, const char *text) {
  char path_buf[TEMP_PATH], coordinate[160], array[160], message[512];
  const char *path = temp(path_buf, "value.mtx");
  snprintf(coordinate, sizeof coordinate, "%%%%MatrixMarket matrix "
           "coordinate %s general\n1 1 1\n1 1 %s\n", field, text);
  snprintf(array, sizeof array, "%%%%MatrixMarket matrix array %s "
           "general\n1 1\n%s\n", field, text);
  kl_mm_info info;
  int64_t offsets[2];
  int32_t column;
  double a = -1, b = -2;
  EXPECT(write_text(path, coordinate));
  kl_status sa = kl__mm_scan(&plain, path, &info);
  if (sa == KL_OK)
    sa = kl__mm_load(&plain, path, &info, offsets, &column, &a);
  snprintf(message, sizeof message, "%s", kl_last_error());
  EXPECT(write_text(path, array));
  kl_status sb = kl__mm_vector_scan(&plain, path, 1);
  if (sb == KL_OK) sb = kl__mm_vector_load(&plain, path, 1, &b);
  printf("%s '%s': %s %s | %s %s\n", field, text, kl_status_name(sa),
         sa ? message : "", kl_status_name(sb), sb ? kl_last_error() : "");
  EXPECT(sa == sb);
  if (sa == KL_OK) EXPECT(memcmp(&a, &b, sizeof a) == 0);
  else EXPECT(strcmp(message, kl_last_error()) == 0);
  remove(path);
}

static void test_one_parser(void) {
  static const char *const text[] = {
      "1", "-0", "+2.5", "5.", ".5", "1E5", "1e-400", "0.1",
      "1.7976931348623157e308", "12345678901234567890123456789",
      "1e999", "-1e999", "1.7976931348623159e308", "nan", "NaN", "-inf",
      "Infinity", "nan(0x1)", "0x1p3", "1e", ".", "-", "1.5e+", "1,5",
      "2.0x", "1.0", "1e3", "-4", "99999999999999999999999"};
  for (size_t k = 0; k < sizeof text / sizeof *text; k++) {
    expect_same_value("real", text[k]);
    expect_same_value("integer", text[k]);
  }
}

/* Beyond cg's rules: a pattern file (each value 1), a matrix that is not
 * square, and what the format itself refuses. */
static void test_plain(void) {
  char path_buf[TEMP_PATH];
  const char *path = temp(path_buf, "plain.mtx");
  kl_mm_info info;
  int64_t offsets[3];
  int32_t columns[3];
  double values[3];
  EXPECT(write_text(path, "%%MatrixMarket matrix coordinate pattern general"
                          "\n2 3 3\n2 1\n1 3\n1 2\n"));
  EXPECT(kl__mm_scan(&plain, path, &info) == KL_OK && info.rows == 2 &&
         info.columns == 3 && info.nnz == 3 && info.field == KL_MM_PATTERN);
  EXPECT(kl__mm_load(&plain, path, &info, offsets, columns, values) ==
         KL_OK);
  EXPECT(offsets[0] == 0 && offsets[1] == 2 && offsets[2] == 3 &&
         columns[0] == 1 && columns[1] == 2 && columns[2] == 0 &&
         values[0] == 1 && values[1] == 1 && values[2] == 1);
  static const struct {
    const char *text, *word;
  } bad[] = {
      {"%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1 5\n",
       "line 3: unexpected '5' after the indices"},
      {"%%MatrixMarket matrix coordinate real general\n2 3 1\n1 4 1\n",
       "column index '4' is out of range 1..3"},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n",
       "not square: 2 rows, 3 columns (symmetric storage"},
      {"%%MatrixMarket matrix coordinate real general\n2 0 0\n",
       "the size line gives 0 columns"},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n",
       "'skew-symmetric' is not taken; valid: general, symmetric"},
      {"%%MatrixMarket matrix coordinate double general\n1 1 0\n",
       "unknown field 'double'; valid: real, integer, pattern"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n1 2 1\n",
       "entry (1, 2) is given twice, on lines 3 and 4"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    EXPECT(write_text(path, bad[k].text));
    const kl_status st = kl__mm_scan(&plain, path, &info);
    printf("plain %zu: %s: %s\n", k, kl_status_name(st), kl_last_error());
    EXPECT(st == KL_USAGE && strstr(kl_last_error(), bad[k].word));
  }
  /* Taken without KL_MM_SPD: no diagonal, a negative one, unsymmetric. */
  EXPECT(write_text(path, "%%MatrixMarket matrix coordinate real general\n"
                          "2 2 2\n1 2 -1\n2 2 -3\n"));
  EXPECT(kl__mm_scan(&plain, path, &info) == KL_OK && info.nnz == 2);
  remove(path);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    printf("usage: test_matrix_market DATA_DIR (tests/data/cg)\n");
    return 2;
  }
  data_dir = argv[1];
  if (chdir(data_dir) != 0) {
    printf("cannot enter %s\n", data_dir);
    return 1;
  }
  temp_template(temp_dir, sizeof temp_dir, "kladder-matrix-market");
  if (!mkdtemp(temp_dir)) {
    printf("no temporary directory\n");
    return 1;
  }
  expect_matrix(data("small.mtx"), 5, small, 17, 1);
  expect_matrix(data("general.mtx"), 5, small, 17, 0);
  expect_matrix(data("upper.mtx"), 5, small, 17, 1);
  expect_matrix(data("integer.mtx"), 3, integer, 5, 1);
  /* Again, from the cache of scan. */
  expect_matrix(data("integer.mtx"), 3, integer, 5, 1);
  test_bad_files();
  test_edges();
  test_values();
  test_long_lines();
  test_generated();
  test_cache();
  test_changed();
  test_vectors();
  test_one_parser();
  test_plain();
  /* Every test removed what it wrote: the folder is empty. */
  EXPECT(rmdir(temp_dir) == 0);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
