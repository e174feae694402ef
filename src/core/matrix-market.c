/* Matrix Market files (matrix-market.h): a strict reader, fast enough for
 * files of hundreds of MB on one core, and a vector's writer.
 *
 * scan and load make the same pass. The file is read in blocks of
 * BLOCK_BYTES; every entry of a coordinate file goes into COO arrays as
 * given (0-based) and is counted in its row (and its mirror's row for
 * symmetric storage); a counting sort makes CSR, each row is sorted, and
 * the checks that need the whole matrix (entries given twice, symmetry,
 * the diagonal, the 2x2 minors) run on the CSR. scan does it into arrays
 * of its own, frees them and keeps only the counts, or a refusal's
 * message, for the last file (path, size, modification time, inode).
 * load does it again into the caller's arrays: nothing of the matrix's
 * size outlives a call, which the harness's memory check could not see.
 * Errors found on the CSR have lost their line numbers; a second read of
 * the file finds them (the error path only). An array file (a vector) is
 * read by the same reader, header, size line and value parser, its values
 * straight into the caller's array. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "matrix-market.h"

/* Bytes read at a time, and the longest line taken: comment lines may be
 * any length, a data line that does not fit is refused. */
#define BLOCK_BYTES ((size_t)4 << 20)
/* The shortest entry line, "1 1 1", and the newline that ends all but the
 * last: n entries take at least 6 n - 1 bytes (4 n - 1 of a pattern). */
#define MIN_ENTRY_BYTES 6
/* Rows up to this long are sorted by insertion (most are sorted already,
 * which insertion sees in one pass); longer ones by qsort. */
#define INSERTION_MAX 32
/* kl_last_error()'s size (status.c): a cached refusal is kept whole. */
#define MESSAGE_BYTES 512
/* Longer paths are not cached: they are read again on every scan. */
#define CACHE_PATH_BYTES 1024
/* A word of the file quoted in a message: one byte past KL_CLIP_BYTES, so
 * that KL_CLIP marks it as cut. */
#define WORD_BYTES (KL_CLIP_BYTES + 2)

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ---- the cache ----------------------------------------------------------
 * A file is the same file while its size, modification time (to the
 * nanosecond where the file system keeps it) and inode are: a rewrite in
 * place changes the time, a copy put in its place the inode. A verdict
 * per format (coordinate, array) and per thread, as kl_last_error() is: a
 * scan on one thread neither sees nor races with another's. */
typedef struct file_id {
  int64_t size, mtime_s, mtime_ns;
  uint64_t dev, ino;
} file_id;

static file_id id_of(const struct stat *s) {
  return (file_id){(int64_t)s->st_size, (int64_t)s->st_mtim.tv_sec,
                   (int64_t)s->st_mtim.tv_nsec, (uint64_t)s->st_dev,
                   (uint64_t)s->st_ino};
}

static int same_id(const file_id *a, const file_id *b) {
  return a->size == b->size && a->mtime_s == b->mtime_s &&
         a->mtime_ns == b->mtime_ns && a->dev == b->dev && a->ino == b->ino;
}

typedef struct verdict {
  int valid;
  char path[CACHE_PATH_BYTES];
  file_id id;
  const kl_mm_rules *rules;
  int64_t rows; /* a vector's rows asked for */
  kl_status status; /* KL_OK, or KL_USAGE with message */
  kl_mm_info info;
  char message[MESSAGE_BYTES];
} verdict;

static _Thread_local verdict cache[2];

static const verdict *cached(int array, const char *path, const file_id *id,
                             const kl_mm_rules *rules, int64_t rows) {
  const verdict *c = &cache[array];
  return c->valid && c->rules == rules && c->rows == rows &&
                 strcmp(c->path, path) == 0 && same_id(&c->id, id)
             ? c
             : NULL;
}

static void remember(int array, const char *path, const file_id *id,
                     const kl_mm_rules *rules, int64_t rows, kl_status st,
                     const kl_mm_info *info) {
  verdict *c = &cache[array];
  if (strlen(path) >= sizeof c->path) return;
  *c = (verdict){.valid = 1, .id = *id, .rules = rules, .rows = rows,
                 .status = st, .info = *info};
  strcpy(c->path, path);
  if (st != KL_OK) snprintf(c->message, sizeof c->message, "%s",
                            kl_last_error());
}

/* ---- text ---------------------------------------------------------------
 * Every line handed to the parsers ends in '\n' (the reader puts one after
 * a last line that has none), so they look for it instead of an end. */
static int blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static int word_end(char c) { return blank(c) || c == '\n'; }
static int digit(char c) { return (unsigned)(c - '0') <= 9; }

static char *skip_blanks(char *p) {
  while (blank(*p)) p++;
  return p;
}

static char *next_word(char *p) {
  while (!word_end(*p)) p++;
  return skip_blanks(p);
}

/* Whether the word at p is `lower`, in any case. */
static int word_is(const char *p, const char *lower) {
  for (; *lower; p++, lower++) {
    const char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
    if (c != *lower) return 0;
  }
  return word_end(*p);
}

/* The word at p (or the rest of its line), cut for KL_CLIP and with
 * control bytes as '?' so that a binary file's bytes do not reach the
 * terminal. */
static const char *quote_to(const char *p, int whole_line,
                            char out[WORD_BYTES]) {
  size_t n = 0;
  for (; n < WORD_BYTES - 1 && p[n] != '\n' && (whole_line || !blank(p[n]));
       n++)
    out[n] = (unsigned char)p[n] < 0x20 || p[n] == 0x7f ? '?' : p[n];
  while (n > 0 && whole_line && blank(p[n - 1])) n--;
  out[n] = '\0';
  return out;
}

static const char *quote(const char *p, char out[WORD_BYTES]) {
  return quote_to(p, 0, out);
}

/* A value in a message: the fewest digits that give it back, so that 0.1
 * reads 0.1 and two values a bit apart differ. */
static const char *show(double v, char out[32]) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(out, 32, "%.*g", digits, v);
    if (strtod(out, NULL) == v) break;
  }
  return out;
}

/* A word of digits, its value saturated once it reaches `cap`. */
static char *parse_digits(char *p, int64_t cap, int64_t *out) {
  if (!digit(*p)) return NULL;
  int64_t v = 0;
  for (; digit(*p); p++)
    if (v < cap) v = v * 10 + (*p - '0');
  if (!word_end(*p)) return NULL;
  *out = v;
  return p;
}

/* Integers of the size line: optional sign, digits, saturated far above
 * any count taken. */
static char *parse_count(char *p, int64_t *out) {
  const int negative = *p == '-';
  if (*p == '+' || *p == '-') p++;
  int64_t v = 0;
  p = parse_digits(p, INT64_C(1) << 50, &v);
  if (p) *out = negative ? -v : v;
  return p;
}

/* An index: digits only, saturated above 2^40 (beyond any row). */
static char *parse_index(char *p, int64_t *out) {
  return parse_digits(p, INT64_C(1) << 40, out);
}

enum { VALUE_OK, VALUE_NOT_NUMBER, VALUE_NOT_INTEGER, VALUE_NOT_FINITE,
       VALUE_OVERFLOW };

/* A value: decimal only ([+-] digits [. digits] [e [+-] digits]), since
 * strtod's hexadecimal, "nan" and "inf" are no Matrix Market numbers;
 * an integer field's values are [+-] digits. A number of up to 19
 * significant digits (trailing zeros aside) whose mantissa is at most 2^53
 * and whose power of ten is within 10^22 is m * 10^e or m / 10^e of two
 * exact doubles, one correctly rounded operation where doubles are
 * evaluated as doubles (FLT_EVAL_METHOD 0): strtod's result, which every
 * other number gets. *end: the byte after the number. */
static int parse_value(char *s, int integer, char **end, double *out) {
  static const double pow10_d[] = {
      1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  char *p = s;
  const int negative = *p == '-';
  if (*p == '+' || *p == '-') p++;
  if (!digit(*p) && *p != '.') {
    if (word_is(p, "nan") || word_is(p, "inf") || word_is(p, "infinity") ||
        ((p[0] | 0x20) == 'n' && (p[1] | 0x20) == 'a' &&
         (p[2] | 0x20) == 'n' && p[3] == '('))
      return VALUE_NOT_FINITE;
    return VALUE_NOT_NUMBER;
  }
  /* The value is m 10^(zeros + scale): m the significant digits without
   * their trailing zeros, which are counted in zeros until a digit
   * follows them. */
  uint64_t m = 0;
  int kept = 0, exact = 1;
  int64_t zeros = 0, scale = 0, digits = 0;
#define TAKE(d)                                                               \
  do {                                                                        \
    digits++;                                                                 \
    if ((d) == 0) {                                                           \
      if (kept) zeros++;                                                      \
    } else if (kept + zeros + 1 <= 19) {                                      \
      kept += (int)zeros + 1;                                                 \
      for (; zeros > 0; zeros--) m *= 10;                                     \
      m = m * 10 + (uint64_t)(d);                                             \
    } else {                                                                  \
      exact = 0;                                                              \
    }                                                                         \
  } while (0)
  for (; digit(*p); p++) TAKE(*p - '0');
  if (*p == '.') {
    if (integer) return VALUE_NOT_INTEGER;
    for (p++; digit(*p); p++) {
      TAKE(*p - '0');
      scale--;
    }
  }
#undef TAKE
  if (!digits) return VALUE_NOT_NUMBER;
  if (*p == 'e' || *p == 'E') {
    if (integer) return VALUE_NOT_INTEGER;
    p++;
    const int minus = *p == '-';
    if (*p == '+' || *p == '-') p++;
    if (!digit(*p)) return VALUE_NOT_NUMBER;
    int64_t x = 0;
    for (; digit(*p); p++)
      if (x < 1000000) x = x * 10 + (*p - '0');
    scale += minus ? -x : x;
  }
  if (!word_end(*p)) return VALUE_NOT_NUMBER;
  *end = p;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
  if (exact && m <= UINT64_C(1) << 53) {
    const int64_t e = scale + zeros;
    if (m == 0) {
      *out = negative ? -0.0 : 0.0;
      return VALUE_OK;
    }
    if (e >= -22 && e <= 22) {
      const double v = e < 0 ? (double)m / pow10_d[-e] : (double)m * pow10_d[e];
      *out = negative ? -v : v;
      return VALUE_OK;
    }
  }
#else
  (void)exact;
  (void)pow10_d;
#endif
  /* The line is the reader's own memory: a '\0' in place of the blank
   * or newline after the number, for as long as strtod reads it. */
  const char saved = *p;
  *p = '\0';
  char *stop;
  const double v = strtod(s, &stop);
  *p = saved;
  if (stop != p) return VALUE_NOT_NUMBER;
  if (isinf(v)) return VALUE_OVERFLOW;
  *out = v;
  return VALUE_OK;
}

/* ---- the reader --------------------------------------------------------- */
typedef struct reader {
  FILE *f;
  char *buf; /* BLOCK_BYTES + 1: room for a last line's '\n' */
  size_t len, pos;
  int eof;
  int64_t line;  /* the number of the line last returned */
  int64_t base;  /* the file offset of buf[0] */
  int64_t total; /* bytes read */
} reader;

enum { LINE, END, TOO_LONG, READ_ERROR };

static int next_line(reader *r, char **s) {
  for (;;) {
    char *start = r->buf + r->pos;
    char *nl = memchr(start, '\n', r->len - r->pos);
    if (nl) {
      *s = start;
      r->pos = (size_t)(nl - r->buf) + 1;
      r->line++;
      return LINE;
    }
    if (r->eof) {
      if (r->pos == r->len) return END;
      *s = start;
      r->buf[r->len] = '\n';
      r->pos = r->len;
      r->line++;
      return LINE;
    }
    const size_t keep = r->len - r->pos;
    memmove(r->buf, start, keep);
    r->base += (int64_t)r->pos;
    r->pos = 0;
    r->len = keep;
    if (keep == BLOCK_BYTES) {
      r->buf[keep] = '\n';
      if (*skip_blanks(r->buf) != '%') return TOO_LONG;
      /* A long comment: its first byte stands for it until its end. */
      r->buf[0] = '%';
      r->base += (int64_t)keep - 1;
      r->len = 1;
    }
    const size_t want = BLOCK_BYTES - r->len;
    const size_t got = fread(r->buf + r->len, 1, want, r->f);
    r->len += got;
    r->total += (int64_t)got;
    if (got < want) {
      if (ferror(r->f)) return READ_ERROR;
      r->eof = 1;
    }
  }
}

/* ---- the file ----------------------------------------------------------- */
typedef struct matrix {
  const char *path;
  const kl_mm_rules *rules;
  int array; /* an array file (a vector), else coordinate */
  int symmetric, field;
  int64_t rows, cols, entries, nnz; /* an array's entries: its values */
  int32_t *ei, *ej; /* the entries as given, 0-based */
  double *ev;
  int64_t *offsets;
  int32_t *columns;
  double *values;
  double *out; /* an array's values, where loaded */
} matrix;

/* Where entries are, for a message about them: the lines of the first
 * two entries at (i, j), 0-based, or at (j, i) too in symmetric storage,
 * and the coordinates each was given as. */
typedef struct place {
  int64_t i, j;
  int found;
  int64_t line[2], given_i[2], given_j[2];
} place;

enum mode { SCAN, LOAD, LOCATE };

static int spd(const matrix *m) { return m->rules->checks & KL_MM_SPD; }

static kl_status refuse(const matrix *m, int64_t line, const char *fmt, ...)
    PRINTF_LIKE(3, 4);
static kl_status refuse(const matrix *m, int64_t line, const char *fmt, ...) {
  char why[MESSAGE_BYTES];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  if (line > 0)
    return kl__usage(KL_USAGE, "%s file " KL_Q ", line %lld: %s",
                     m->rules->kind, KL_CLIP(m->path), (long long)line, why);
  return kl__usage(KL_USAGE, "%s file " KL_Q ": %s", m->rules->kind,
                   KL_CLIP(m->path), why);
}

static kl_status no_memory(const matrix *m, const char *what) {
  return KL_FAIL(KL_NO_MEMORY, "out of host memory (%s) reading %s file "
                 KL_Q, what, m->rules->kind, KL_CLIP(m->path));
}

/* '%%MatrixMarket matrix', the format read (coordinate or array), the
 * field and the symmetry, and nothing after. */
static kl_status read_header(matrix *m, char *p) {
  char w[WORD_BYTES];
  const char *format = m->array ? "array" : "coordinate", *who = m->rules->who;
  const int values = m->array || (m->rules->checks & KL_MM_VALUES);
  if (!word_is(p, "%%matrixmarket"))
    return refuse(m, 1, "no Matrix Market header: the file does not start "
                  "with %%%%MatrixMarket");
  const char *what[] = {"object", "format", "field", "symmetry"};
  for (int k = 0; k < 4; k++) {
    p = next_word(p);
    if (*p == '\n')
      return refuse(m, 1, "the header has no %s: it is '%%%%MatrixMarket "
                    "matrix %s'", what[k], m->array
                    ? "array real|integer general"
                    : "coordinate real|integer general|symmetric");
    if (k == 0 && !word_is(p, "matrix"))
      return refuse(m, 1, "object " KL_Q " is not 'matrix'",
                    KL_CLIP(quote(p, w)));
    if (k == 1 && !m->array && word_is(p, "array"))
      return refuse(m, 1, "format 'array' is a dense matrix; %s reads "
                    "sparse 'coordinate' files", who);
    if (k == 1 && m->array && word_is(p, "coordinate"))
      return refuse(m, 1, "format 'coordinate' is a sparse matrix; a "
                    "vector is an 'array' file of one column");
    if (k == 1 && !word_is(p, format))
      return refuse(m, 1, "format " KL_Q " is not '%s'",
                    KL_CLIP(quote(p, w)), format);
    const int pattern = word_is(p, "pattern");
    if (k == 2 && word_is(p, "complex"))
      return refuse(m, 1, "field 'complex' is not taken: %s reads real "
                    "numbers ('real' or 'integer')", who);
    if (k == 2 && pattern && m->array)
      return refuse(m, 1, "field 'pattern' is not taken; valid: real, "
                    "integer");
    if (k == 2 && pattern && values)
      return refuse(m, 1, "field 'pattern' gives no values; %s needs "
                    "'real' or 'integer'", who);
    if (k == 2 && !pattern && !word_is(p, "real") && !word_is(p, "integer"))
      return refuse(m, 1, "unknown field " KL_Q "; valid: real, integer%s",
                    KL_CLIP(quote(p, w)), values ? "" : ", pattern");
    if (k == 2)
      m->field = pattern ? KL_MM_PATTERN
                 : word_is(p, "integer") ? KL_MM_INTEGER : KL_MM_REAL;
    if (k == 3 && m->array && !word_is(p, "general"))
      return refuse(m, 1, "symmetry " KL_Q " is not taken: a vector (one "
                    "column) is 'general'", KL_CLIP(quote(p, w)));
    if (k == 3 && word_is(p, "skew-symmetric"))
      return refuse(m, 1, "symmetry 'skew-symmetric' is not taken%s",
                    spd(m) ? ": a skew-symmetric matrix has a zero diagonal "
                    "and is never positive definite"
                    : "; valid: general, symmetric");
    if (k == 3 && word_is(p, "hermitian"))
      return refuse(m, 1, "symmetry 'hermitian' is not taken: %s needs a "
                    "real matrix, 'symmetric' or 'general'", who);
    if (k == 3 && !word_is(p, "general") && !word_is(p, "symmetric"))
      return refuse(m, 1, "unknown symmetry " KL_Q "; valid: general, "
                    "symmetric", KL_CLIP(quote(p, w)));
    if (k == 3) m->symmetric = word_is(p, "symmetric");
  }
  p = next_word(p);
  if (*p != '\n')
    return refuse(m, 1, "unexpected " KL_Q " after the header's symmetry",
                  KL_CLIP(quote(p, w)));
  return KL_OK;
}

/* The size line, 'rows columns entries' or a vector's 'rows 1', and the
 * bounds that keep a malicious one from sizing an allocation: entries <=
 * what the bytes after the line can hold (and rows <= entries where every
 * diagonal entry must be given). */
static kl_status read_size(matrix *m, const reader *r, int64_t size, char *s,
                           const kl_mm_info *expect) {
  const int want = m->array ? 2 : 3;
  const char *shape = m->array ? "rows columns" : "rows columns entries";
  int64_t v[3];
  int n = 0;
  char *p = skip_blanks(s);
  while (*p != '\n') {
    char *q = n < want ? parse_count(p, &v[n]) : NULL;
    if (!q) {
      char w[WORD_BYTES];
      return refuse(m, r->line, "malformed size line: " KL_Q " is not '%s' "
                    "(%s integers)", KL_CLIP(quote_to(skip_blanks(s), 1, w)),
                    shape, m->array ? "two" : "three");
    }
    n++;
    p = skip_blanks(q);
  }
  if (n != want)
    return refuse(m, r->line, "malformed size line: %d integer%s, not '%s'",
                  n, n == 1 ? "" : "s", shape);
  if (m->array && v[1] != 1)
    return refuse(m, r->line, "%lld columns: a vector is one column ('rows "
                  "1')", (long long)v[1]);
  if (m->array && v[0] != expect->rows)
    return refuse(m, r->line, "%lld rows, but the matrix has %lld",
                  (long long)v[0], (long long)expect->rows);
  m->rows = m->entries = v[0];
  m->cols = v[1];
  if (m->array) return KL_OK;
  if ((spd(m) || m->symmetric) && v[0] != v[1])
    return refuse(m, r->line, "the matrix is not square: %lld rows, %lld "
                  "columns%s", (long long)v[0], (long long)v[1],
                  spd(m) ? "" : " (symmetric storage is of a square one)");
  const char *name[2] = {"rows", "columns"};
  for (int k = 0; k < 2; k++) {
    if (v[k] == 0)
      return refuse(m, r->line, "the size line gives 0 %s: an empty matrix",
                    name[k]);
    if (v[k] < 1 || v[k] > INT32_MAX)
      return refuse(m, r->line, "%s = %lld is outside 1..%d (indices are "
                    "int32)", name[k], (long long)v[k], INT32_MAX);
  }
  if (v[2] < 0)
    return refuse(m, r->line, "entries = %lld is negative", (long long)v[2]);
  const int64_t after = size - (r->base + (int64_t)r->pos),
                most = (after + 1) / (m->field == KL_MM_PATTERN
                                          ? MIN_ENTRY_BYTES - 2
                                          : MIN_ENTRY_BYTES);
  if (v[2] > most)
    return refuse(m, r->line, "the size line gives %lld entries; the %lld "
                  "bytes after it can hold at most %lld: the file is "
                  "truncated or the size line wrong", (long long)v[2],
                  (long long)after, (long long)most);
  if (spd(m) && v[0] > v[2])
    return refuse(m, r->line, "%lld rows but %lld entries: a diagonal entry "
                  "is missing, so the matrix is not positive definite",
                  (long long)v[0], (long long)v[2]);
  m->entries = v[2];
  return KL_OK;
}

/* The one value parser of both formats: the value at *p, of the header's
 * field, into *v (a pattern entry's is 1, and nothing is read), *p then
 * past it and its blanks; or the line refused, saying why. */
static kl_status read_value(const matrix *m, int64_t line, char **p,
                            double *v) {
  char w[WORD_BYTES];
  char *q = *p;
  if (m->field == KL_MM_PATTERN) {
    *v = 1;
    return KL_OK;
  }
  switch (parse_value(*p, m->field == KL_MM_INTEGER, &q, v)) {
  case VALUE_OK: break;
  case VALUE_NOT_INTEGER:
    return refuse(m, line, "value " KL_Q " is not an integer (the header "
                  "says 'integer')", KL_CLIP(quote(*p, w)));
  case VALUE_NOT_FINITE:
    return refuse(m, line, "value " KL_Q " is not finite",
                  KL_CLIP(quote(*p, w)));
  case VALUE_OVERFLOW:
    return refuse(m, line, "value " KL_Q " is not finite: it overflows a "
                  "double", KL_CLIP(quote(*p, w)));
  default:
    return refuse(m, line, "value " KL_Q " is not a number",
                  KL_CLIP(quote(*p, w)));
  }
  *p = skip_blanks(q);
  return KL_OK;
}

/* One line of data from its first non-blank byte: a coordinate file's
 * entry (*j NULL: an array's value), and nothing after it. */
static kl_status read_data(const matrix *m, int64_t line, char *p,
                           int64_t *i, int64_t *j, double *v) {
  char w[WORD_BYTES];
  int64_t *index[2] = {i, j}, bound[2] = {m->rows, m->cols};
  const char *name[2] = {"row", "column"};
  for (int k = 0; j && k < 2; k++) {
    if (*p == '\n')
      return refuse(m, line, "the entry has no %s index", name[k]);
    char *q = parse_index(p, index[k]);
    if (!q)
      return refuse(m, line, "%s index " KL_Q " is not a positive integer",
                    name[k], KL_CLIP(quote(p, w)));
    if (*index[k] < 1 || *index[k] > bound[k])
      return refuse(m, line, "%s index " KL_Q " is out of range 1..%lld%s",
                    name[k], KL_CLIP(quote(p, w)), (long long)bound[k],
                    *index[k] == 0 ? " (indices start at 1)" : "");
    p = skip_blanks(q);
  }
  if (j && *p == '\n' && m->field != KL_MM_PATTERN)
    return refuse(m, line, "entry (%lld, %lld) has no value", (long long)*i,
                  (long long)*j);
  kl_status st = read_value(m, line, &p, v);
  if (st != KL_OK) return st;
  if (*p != '\n')
    return refuse(m, line, "unexpected " KL_Q " after the %s%s",
                  KL_CLIP(quote(p, w)), m->field == KL_MM_PATTERN
                  ? "indices" : "value", j ? ""
                  : ": an array file gives one value a line");
  /* The one check that needs no other entry, here where the line is. */
  char shown[32];
  if (j && spd(m) && *i == *j && !(*v > 0))
    return refuse(m, line, "diagonal entry A(%lld, %lld) = %s is not "
                  "positive: the matrix is not positive definite",
                  (long long)*i, (long long)*i, show(*v, shown));
  return KL_OK;
}

static void note(place *pl, int places, int symmetric, int64_t line,
                 int64_t i, int64_t j) {
  for (int k = 0; k < places; k++) {
    place *t = &pl[k];
    if (t->found < 2 && ((i == t->i && j == t->j) ||
                         (symmetric && i == t->j && j == t->i))) {
      t->line[t->found] = line;
      t->given_i[t->found] = i;
      t->given_j[t->found] = j;
      t->found++;
    }
  }
}

/* Header, size line, data, and nothing but comments after them; in LOAD
 * mode, a coordinate file's rows and storage as scanned (the caller's
 * offsets have expect->rows + 1 elements); in LOCATE mode, only where the
 * places are. */
static kl_status read_lines(matrix *m, reader *r, int64_t size,
                            enum mode mode, const kl_mm_info *expect,
                            place *pl, int places) {
  const char *noun = m->array ? "values" : "entries";
  char *s;
  int got = next_line(r, &s);
  kl_status st = KL_OK;
  if (got == LINE) st = read_header(m, s);
  int64_t k = 0;
  int sized = 0;
  while (st == KL_OK && got == LINE) {
    got = next_line(r, &s);
    if (got != LINE) break;
    char *p = skip_blanks(s);
    /* Comments and blank lines are taken anywhere after the header: many
     * files end in a blank line, and they hold nothing. */
    if (*p == '\n' || *p == '%') continue;
    if (!sized) {
      st = read_size(m, r, size, s, expect);
      sized = 1;
      if (st != KL_OK || mode == LOCATE || m->array) continue;
      if (mode == LOAD && (m->rows != expect->rows ||
                           m->symmetric != expect->symmetric)) {
        st = kl__usage(KL_IO, "%s file " KL_Q " changed after it was "
                       "scanned: %lld rows in %s storage now, %lld in %s "
                       "then", m->rules->kind, KL_CLIP(m->path),
                       (long long)m->rows,
                       m->symmetric ? "symmetric" : "general",
                       (long long)expect->rows,
                       expect->symmetric ? "symmetric" : "general");
        continue;
      }
      const size_t e = (size_t)m->entries;
      m->ei = malloc(e ? e * sizeof *m->ei : 1);
      m->ej = malloc(e ? e * sizeof *m->ej : 1);
      m->ev = malloc(e ? e * sizeof *m->ev : 1);
      if (mode == SCAN)
        m->offsets = calloc((size_t)m->rows + 1, sizeof *m->offsets);
      else
        memset(m->offsets, 0, ((size_t)m->rows + 1) * sizeof *m->offsets);
      if (!m->ei || !m->ej || !m->ev || !m->offsets)
        st = no_memory(m, "the entries");
      continue;
    }
    if (k == m->entries) {
      st = refuse(m, r->line, "data after the last of the %lld %s the size "
                  "line gives", (long long)m->entries, noun);
      break;
    }
    int64_t i = 0, j = 0;
    double v = 0;
    st = read_data(m, r->line, p, &i, m->array ? NULL : &j, &v);
    if (st != KL_OK) break;
    k++;
    if (m->array) {
      if (m->out) m->out[k - 1] = v;
    } else if (mode == LOCATE) {
      note(pl, places, m->symmetric, r->line, i - 1, j - 1);
    } else {
      m->ei[k - 1] = (int32_t)(i - 1);
      m->ej[k - 1] = (int32_t)(j - 1);
      m->ev[k - 1] = v;
      m->offsets[i]++;
      if (m->symmetric && i != j) m->offsets[j]++;
    }
  }
  if (st != KL_OK) return st;
  if (got == TOO_LONG)
    return refuse(m, r->line + 1, "the line is longer than %zu bytes",
                  BLOCK_BYTES);
  if (got == READ_ERROR)
    return kl__usage(KL_IO, "reading %s file " KL_Q ": %s", m->rules->kind,
                     KL_CLIP(m->path), strerror(errno));
  if (r->total != size)
    return kl__usage(KL_IO, "%s file " KL_Q " changed while it was read: "
                     "%lld bytes, then %lld", m->rules->kind,
                     KL_CLIP(m->path), (long long)size, (long long)r->total);
  if (!sized)
    return refuse(m, r->line, "malformed size line: the file ends before "
                  "'%s'", m->array ? "rows columns" : "rows columns entries");
  if (k < m->entries)
    return refuse(m, r->line, "the file is truncated: it ends after %lld of "
                  "the %lld %s the size line gives", (long long)k,
                  (long long)m->entries, noun);
  return KL_OK;
}

/* A file that scan and load may read: a regular one, not empty. */
static kl_status open_file(const char *path, const char *kind, FILE **f,
                           file_id *id) {
  struct stat s;
  if (!*path)
    return kl__usage(KL_USAGE, "the %s file's name is empty", kind);
  *f = fopen(path, "rb");
  if (!*f)
    return kl__usage(KL_USAGE, "cannot read %s file " KL_Q ": %s", kind,
                     KL_CLIP(path), strerror(errno));
  const char *why = NULL;
  if (fstat(fileno(*f), &s) != 0) why = strerror(errno);
  else if (S_ISDIR(s.st_mode)) why = "it is a directory";
  /* load reads the file again: a pipe could not be. */
  else if (!S_ISREG(s.st_mode)) why = "it is not a regular file";
  else if (s.st_size == 0) why = "it is empty";
  if (why) {
    fclose(*f);
    *f = NULL;
    return kl__usage(KL_USAGE, "cannot read %s file " KL_Q ": %s", kind,
                     KL_CLIP(path), why);
  }
  *id = id_of(&s);
  return KL_OK;
}

/* The whole file through read_lines, under the C locale's decimal point
 * (the calling program's locale may have another). */
static kl_status read_file(matrix *m, FILE *f, int64_t size, enum mode mode,
                           const kl_mm_info *expect, place *pl, int places) {
  reader r = {.f = f};
  r.buf = malloc(BLOCK_BYTES + 1);
  if (!r.buf) return no_memory(m, "reading");
  setvbuf(f, NULL, _IONBF, 0);
  const locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  /* Without one, the program's locale: its decimal point is '.' mostly. */
  const locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
  const kl_status st = read_lines(m, &r, size, mode, expect, pl, places);
  if (c_locale) {
    uselocale(old);
    freelocale(c_locale);
  }
  free(r.buf);
  return st;
}

/* Read the file once more for where entries are; places not found keep
 * found = 0. */
static void locate(const matrix *m, place *pl, int places) {
  FILE *f;
  file_id id;
  /* What this read says is lost: the caller's message follows it. */
  if (open_file(m->path, m->rules->kind, &f, &id) == KL_OK) {
    matrix again = {.path = m->path, .rules = m->rules};
    read_file(&again, f, id.size, LOCATE, NULL, pl, places);
    fclose(f);
  }
}

/* " (line N)" where found. */
static const char *on_line(const place *pl, int k, char out[40]) {
  out[0] = '\0';
  if (pl->found > k) snprintf(out, 40, " (line %lld)", (long long)pl->line[k]);
  return out;
}

/* ---- CSR ---------------------------------------------------------------- */
typedef struct pair {
  int32_t column;
  double value;
} pair;

static int by_column(const void *a, const void *b) {
  const int32_t x = ((const pair *)a)->column, y = ((const pair *)b)->column;
  return (x > y) - (x < y);
}

/* The entries into their rows (offsets made from the counts), each row
 * sorted by column. */
static kl_status fill(matrix *m) {
  int64_t *o = m->offsets;
  /* o[r] is row r's next free place as it fills, then its end: row r + 1's
   * start, one place on. */
  for (int64_t k = 0; k < m->entries; k++) {
    const int32_t i = m->ei[k], j = m->ej[k];
    const double v = m->ev[k];
    int64_t at = o[i]++;
    m->columns[at] = j;
    m->values[at] = v;
    if (m->symmetric && i != j) {
      at = o[j]++;
      m->columns[at] = i;
      m->values[at] = v;
    }
  }
  memmove(o + 1, o, (size_t)m->rows * sizeof *o);
  o[0] = 0;
  pair *tmp = NULL;
  size_t room = 0;
  for (int64_t r = 0; r < m->rows; r++) {
    int32_t *c = m->columns + o[r];
    double *v = m->values + o[r];
    const int64_t n = o[r + 1] - o[r];
    int64_t k = 1;
    while (k < n && c[k - 1] <= c[k]) k++;
    if (k >= n) continue;
    if (n <= INSERTION_MAX) {
      for (; k < n; k++) {
        const int32_t ck = c[k];
        const double vk = v[k];
        int64_t t = k;
        for (; t > 0 && c[t - 1] > ck; t--) {
          c[t] = c[t - 1];
          v[t] = v[t - 1];
        }
        c[t] = ck;
        v[t] = vk;
      }
      continue;
    }
    if ((size_t)n > room) {
      free(tmp);
      room = (size_t)n;
      tmp = malloc(room * sizeof *tmp);
      if (!tmp) return no_memory(m, "sorting the rows");
    }
    for (int64_t t = 0; t < n; t++) tmp[t] = (pair){c[t], v[t]};
    qsort(tmp, (size_t)n, sizeof *tmp, by_column);
    for (int64_t t = 0; t < n; t++) {
      c[t] = tmp[t].column;
      v[t] = tmp[t].value;
    }
  }
  free(tmp);
  return KL_OK;
}

/* Where column col is in [lo, end) of a sorted row, or -1. */
static int64_t find(const int32_t *c, int64_t lo, int64_t end, int32_t col) {
  int64_t hi = end;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (c[mid] < col) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && c[lo] == col ? lo : -1;
}

static int same_bits(double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  return x == y;
}

/* Whether a_ii a_jj - a_ij^2 > 0 for a_ii, a_jj > 0, free of overflow
 * and underflow: with a = ma 2^ea (ma in [1/2, 1)), the products differ by
 * more than 2^k for k = ea + eb - 2 ec beyond [-2, 2], and within it are
 * compared as numbers near 1. Rounding is monotonic, so a minor taken as
 * positive is positive; one within 2^-64 of 0 may be taken as not. */
static int minor_positive(double aii, double ajj, double aij) {
  /* Most minors are far from 0: products of normal size, one at most
   * half the other, decide it with roundings of 2^-53 either way. */
  const double p = aii * ajj, q = aij * aij;
  if (p >= DBL_MIN && p <= DBL_MAX && q <= DBL_MAX) {
    if (q <= 0.5 * p) return 1;
    if (q >= 2 * p) return 0;
  }
  int ea, eb, ec;
  const double ma = frexp(aii, &ea), mb = frexp(ajj, &eb),
               mc = frexp(fabs(aij), &ec);
  if (mc == 0) return 1;
  const long k = (long)ea + eb - 2L * ec;
  if (k > 2) return 1;
  if (k < -2) return 0;
  return ldexpl((long double)ma * mb, (int)k) - (long double)mc * mc > 0;
}

static kl_status twice(const matrix *m, int64_t i, int64_t j) {
  place pl = {.i = i, .j = j};
  locate(m, &pl, 1);
  if (pl.found < 2)
    return refuse(m, 0, "entry (%lld, %lld) is given twice", (long long)i + 1,
                  (long long)j + 1);
  if (pl.given_i[0] != pl.given_i[1])
    return refuse(m, 0, "entries (%lld, %lld) on line %lld and (%lld, %lld) "
                  "on line %lld are one entry of a symmetric matrix, given "
                  "twice: symmetric storage gives each off-diagonal pair once",
                  (long long)pl.given_i[0] + 1, (long long)pl.given_j[0] + 1,
                  (long long)pl.line[0], (long long)pl.given_i[1] + 1,
                  (long long)pl.given_j[1] + 1, (long long)pl.line[1]);
  return refuse(m, 0, "entry (%lld, %lld) is given twice, on lines %lld and "
                "%lld", (long long)pl.given_i[0] + 1,
                (long long)pl.given_j[0] + 1, (long long)pl.line[0],
                (long long)pl.line[1]);
}

static kl_status unsymmetric(const matrix *m, int64_t i, int64_t j,
                             double vij, const double *vji) {
  place pl[2] = {{.i = i, .j = j}, {.i = j, .j = i}};
  char at[2][40], shown[2][32];
  locate(m, pl, 2);
  if (!vji)
    return refuse(m, 0, "the matrix is not symmetric: A(%lld, %lld) = %s%s "
                  "is given, A(%lld, %lld) is not", (long long)i + 1,
                  (long long)j + 1, show(vij, shown[0]),
                  on_line(&pl[0], 0, at[0]), (long long)j + 1,
                  (long long)i + 1);
  return refuse(m, 0, "the matrix is not symmetric: A(%lld, %lld) = %s%s "
                "but A(%lld, %lld) = %s%s", (long long)i + 1,
                (long long)j + 1, show(vij, shown[0]),
                on_line(&pl[0], 0, at[0]), (long long)j + 1, (long long)i + 1,
                show(*vji, shown[1]), on_line(&pl[1], 0, at[1]));
}

/* Whether every entry above the diagonal has its mirror, bitwise equal,
 * and as many are below: then each below is one's mirror (no entry is
 * given twice), and half the searches prove the matrix symmetric. Where
 * not, check() looks at every entry for the first fault. */
static int mirrored(const matrix *m) {
  const int64_t *o = m->offsets;
  const int32_t *c = m->columns;
  const double *v = m->values;
  int64_t above = 0, below = 0;
  for (int64_t i = 0; i < m->rows; i++)
    for (int64_t k = o[i]; k < o[i + 1]; k++) {
      const int32_t j = c[k];
      if (j < i) {
        below++;
      } else if (j > i) {
        above++;
        const int64_t t = find(c, o[j], o[j + 1], (int32_t)i);
        if (t < 0 || !same_bits(v[k], v[t])) return 0;
      }
    }
  return above == below;
}

/* The checks that need the whole matrix (KL_MM_SPD's but the first),
 * each over the rows in order so that the first fault is the one named. */
static kl_status check(const matrix *m) {
  const int64_t *o = m->offsets;
  const int32_t *c = m->columns;
  const double *v = m->values;
  for (int64_t i = 0; i < m->rows; i++)
    for (int64_t k = o[i] + 1; k < o[i + 1]; k++)
      if (c[k] == c[k - 1]) return twice(m, i, c[k]);
  if (!spd(m)) return KL_OK;
  if (!m->symmetric && !mirrored(m))
    for (int64_t i = 0; i < m->rows; i++)
      for (int64_t k = o[i]; k < o[i + 1]; k++) {
        const int32_t j = c[k];
        if (j == i) continue;
        const int64_t t = find(c, o[j], o[j + 1], (int32_t)i);
        if (t < 0) return unsymmetric(m, i, j, v[k], NULL);
        if (!same_bits(v[k], v[t])) return unsymmetric(m, i, j, v[k], &v[t]);
      }
  double *diagonal = malloc((size_t)m->rows * sizeof *diagonal);
  if (!diagonal) return no_memory(m, "the diagonal");
  for (int64_t i = 0; i < m->rows; i++) {
    const int64_t t = find(c, o[i], o[i + 1], (int32_t)i);
    if (t < 0) {
      free(diagonal);
      return refuse(m, 0, "there is no diagonal entry A(%lld, %lld): the "
                    "matrix is not positive definite", (long long)i + 1,
                    (long long)i + 1);
    }
    diagonal[i] = v[t];
  }
  for (int64_t i = 0; i < m->rows; i++)
    for (int64_t k = o[i]; k < o[i + 1]; k++) {
      const int64_t j = c[k];
      if (j <= i || minor_positive(diagonal[i], diagonal[j], v[k])) continue;
      char at[40], shown[3][32];
      show(diagonal[i], shown[0]);
      show(diagonal[j], shown[1]);
      show(v[k], shown[2]);
      free(diagonal);
      place pl = {.i = i, .j = j};
      locate(m, &pl, 1);
      return refuse(m, 0, "rows %lld and %lld: the 2x2 minor A(%lld, %lld) "
                    "A(%lld, %lld) - A(%lld, %lld)^2 is not positive, with "
                    "%s, %s and %s%s: the matrix is not positive definite",
                    (long long)i + 1, (long long)j + 1, (long long)i + 1,
                    (long long)i + 1, (long long)j + 1, (long long)j + 1,
                    (long long)i + 1, (long long)j + 1, shown[0], shown[1],
                    shown[2], on_line(&pl, 0, at));
    }
  free(diagonal);
  return KL_OK;
}

static void free_entries(matrix *m) {
  free(m->ei);
  free(m->ej);
  free(m->ev);
  m->ei = m->ej = NULL;
  m->ev = NULL;
}

/* The file into m's CSR: read, count, (in SCAN mode allocate,) fill,
 * check; an array file read alone. */
static kl_status build(matrix *m, FILE *f, int64_t size, enum mode mode,
                       const kl_mm_info *expect) {
  kl_status st = read_file(m, f, size, mode, expect, NULL, 0);
  if (m->array) return st;
  if (st == KL_OK) {
    /* Row r's count is in offsets[r + 1]: offsets[r] becomes its start. */
    for (int64_t r = 0; r < m->rows; r++) m->offsets[r + 1] += m->offsets[r];
    m->nnz = m->offsets[m->rows];
    if (mode == LOAD && m->nnz != expect->nnz) {
      st = kl__usage(KL_IO, "%s file " KL_Q " changed after it was scanned: "
                     "%lld nonzeros now, %lld then", m->rules->kind,
                     KL_CLIP(m->path), (long long)m->nnz,
                     (long long)expect->nnz);
    } else if (mode == SCAN) {
      const size_t nnz = (size_t)m->nnz;
      m->columns = malloc(nnz ? nnz * sizeof *m->columns : 1);
      m->values = malloc(nnz ? nnz * sizeof *m->values : 1);
      if (!m->columns || !m->values) st = no_memory(m, "the matrix");
    }
  }
  if (st == KL_OK) st = fill(m);
  free_entries(m);
  if (st == KL_OK) st = check(m);
  return st;
}

/* Either format's scan: a vector's rows asked for in info->rows. */
static kl_status scan(const char *path, const kl_mm_rules *rules, int array,
                      kl_mm_info *info) {
  const int64_t rows = array ? info->rows : 0;
  struct stat s;
  if (stat(path, &s) == 0) {
    const file_id id = id_of(&s);
    const verdict *c = cached(array, path, &id, rules, rows);
    if (c && c->status != KL_OK)
      return kl__usage(c->status, "%s", c->message);
    if (c) {
      *info = c->info;
      return KL_OK;
    }
  }
  FILE *f;
  file_id id = {0};
  kl_status st = open_file(path, rules->kind, &f, &id);
  if (st != KL_OK) return st;
  matrix m = {.path = path, .rules = rules, .array = array};
  st = build(&m, f, id.size, SCAN, array ? info : NULL);
  fclose(f);
  free(m.offsets);
  free(m.columns);
  free(m.values);
  const kl_mm_info got = {m.rows, m.cols, m.nnz, m.symmetric, m.field};
  /* A refusal is the file's content and comes again for the same file;
   * memory and I/O failures may not. */
  if (st == KL_OK || st == KL_USAGE)
    remember(array, path, &id, rules, rows, st, &got);
  if (st == KL_OK) *info = got;
  return st;
}

/* Either format's load into m's arrays. */
static kl_status load(matrix *m, const kl_mm_info *expect) {
  FILE *f;
  file_id id = {0};
  const verdict *c = &cache[m->array];
  const char *kind = m->rules->kind;
  kl_status st = open_file(m->path, kind, &f, &id);
  if (st == KL_OK && c->valid && strcmp(c->path, m->path) == 0 &&
      !same_id(&c->id, &id)) {
    if (id.size != c->id.size)
      st = kl__usage(KL_IO, "%s file " KL_Q " changed after it was scanned: "
                     "%lld bytes now, %lld then", kind, KL_CLIP(m->path),
                     (long long)id.size, (long long)c->id.size);
    else
      st = kl__usage(KL_IO, "%s file " KL_Q " changed after it was scanned: "
                     "it was modified or replaced", kind, KL_CLIP(m->path));
    fclose(f);
    return st;
  }
  if (st == KL_OK) {
    st = build(m, f, id.size, LOAD, expect);
    fclose(f);
  }
  /* The file scanned was taken: one that is not now has changed. */
  if (st == KL_USAGE) {
    char why[MESSAGE_BYTES];
    snprintf(why, sizeof why, "%s", kl_last_error());
    st = kl__usage(KL_IO, "%s (the file changed after it was scanned)", why);
  }
  return st;
}

kl_status kl__mm_scan(const kl_mm_rules *rules, const char *path,
                      kl_mm_info *info) {
  return scan(path, rules, 0, info);
}

kl_status kl__mm_load(const kl_mm_rules *rules, const char *path,
                      const kl_mm_info *info, int64_t *offsets,
                      int32_t *columns, double *values) {
  matrix m = {.path = path, .rules = rules, .offsets = offsets,
              .columns = columns, .values = values};
  return load(&m, info);
}

kl_status kl__mm_vector_scan(const kl_mm_rules *rules, const char *path,
                             int64_t rows) {
  kl_mm_info info = {.rows = rows};
  return scan(path, rules, 1, &info);
}

kl_status kl__mm_vector_load(const kl_mm_rules *rules, const char *path,
                             int64_t rows, double *out) {
  matrix m = {.path = path, .rules = rules, .array = 1, .out = out};
  const kl_mm_info want = {.rows = rows};
  return load(&m, &want);
}

void kl__mm_vector_write(FILE *f, const double *x, int64_t rows,
                         const char *comment) {
  const locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  const locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
  fputs("%%MatrixMarket matrix array real general\n", f);
  /* Each line of the comment as a comment line, control bytes as '?'. */
  for (const char *c = comment; c && *c;) {
    const size_t len = strcspn(c, "\n");
    fputs("% ", f);
    for (size_t i = 0; i < len; i++)
      fputc((unsigned char)c[i] < 0x20 || c[i] == 0x7f ? '?' : c[i], f);
    fputc('\n', f);
    c += len + (c[len] == '\n');
  }
  fprintf(f, "%lld 1\n", (long long)rows);
  /* 17 significant digits read back as the same double. */
  for (int64_t i = 0; i < rows; i++) fprintf(f, "%.17g\n", x[i]);
  if (c_locale) {
    uselocale(old);
    freelocale(c_locale);
  }
}
