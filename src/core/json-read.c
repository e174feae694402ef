/* The JSON reader (json-read.h): recursive descent over the
 * whole text, values in one arena per document. */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "json-read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 256

/* Every allocation of a document, freed together. */
typedef struct block {
  struct block *next;
} block;

struct json_doc {
  block *blocks;
  json_value root;
};

typedef struct parser {
  const char *name, *text, *at, *end;
  int line;
  const char *line_start;
  json_doc *doc;
  char *err;
  size_t errlen;
  int failed;
} parser;

static void *doc_alloc(json_doc *doc, size_t bytes) {
  block *b = malloc(sizeof(block) + bytes);
  if (!b) return NULL;
  b->next = doc->blocks;
  doc->blocks = b;
  return b + 1;
}

static int column(const parser *p) { return (int)(p->at - p->line_start) + 1; }

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(parser *p, const char *fmt, ...) {
  if (p->failed) return -1;
  p->failed = 1;
  int used = snprintf(p->err, p->errlen, "%s:%d:%d: ", p->name, p->line,
                      column(p));
  if (used < 0 || (size_t)used >= p->errlen) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err + used, p->errlen - (size_t)used, fmt, ap);
  va_end(ap);
  return -1;
}

static void skip_space(parser *p) {
  while (p->at < p->end) {
    const char c = *p->at;
    if (c == '\n') {
      p->line++;
      p->line_start = p->at + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    p->at++;
  }
}

/* What stands at the position, for a message: a character or the end. */
static const char *found(const parser *p, char *buf, size_t len) {
  if (p->at >= p->end) return "the end of the file";
  const unsigned char c = (unsigned char)*p->at;
  if (c >= 0x20 && c < 0x7f)
    snprintf(buf, len, "'%c'", c);
  else
    snprintf(buf, len, "byte 0x%02x", c);
  return buf;
}

static int expected(parser *p, const char *what) {
  char buf[32];
  return fail(p, "expected %s, found %s", what, found(p, buf, sizeof buf));
}

static int literal(parser *p, const char *word) {
  const size_t len = strlen(word);
  if ((size_t)(p->end - p->at) < len || memcmp(p->at, word, len) != 0)
    return expected(p, "a value");
  p->at += len;
  return 0;
}

static int hex4(parser *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    if (p->at >= p->end) return expected(p, "four hex digits after \\u");
    const char c = *p->at;
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return expected(p, "four hex digits after \\u");
    v = v * 16 + (unsigned)d;
    p->at++;
  }
  *out = v;
  return 0;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xc0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xe0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  o[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* A string at p->at (its opening quote), decoded into the arena. An
 * escape never makes the text longer than its source, so the source's
 * length bounds the copy. */
static int string(parser *p, const char **out) {
  p->at++; /* the quote */
  const char *start = p->at;
  while (p->at < p->end && *p->at != '"') {
    if (*p->at == '\\' && p->at + 1 < p->end) p->at++;
    p->at++;
  }
  if (p->at >= p->end) {
    p->at = start - 1;
    return fail(p, "a string that does not end");
  }
  const size_t len = (size_t)(p->at - start);
  char *o = doc_alloc(p->doc, len + 1);
  if (!o) return fail(p, "out of memory");
  *out = o;
  p->at = start;
  const char *stop = start + len;
  while (p->at < stop) {
    const unsigned char c = (unsigned char)*p->at;
    if (c < 0x20) return fail(p, "a control character inside a string");
    if (c != '\\') {
      *o++ = (char)c;
      p->at++;
      continue;
    }
    p->at++;
    const char e = *p->at++;
    switch (e) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '/': *o++ = '/'; break;
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u': {
      unsigned cp = 0;
      if (hex4(p, &cp)) return -1;
      /* A C string ends at a NUL: "serial\u0000junk" would read as
       * "serial" and pass for another name. */
      if (cp == 0) {
        p->at -= 6;
        return fail(p, "a NUL character (\\u0000) inside a string");
      }
      if (cp >= 0xd800 && cp < 0xdc00 && stop - p->at >= 6 &&
          p->at[0] == '\\' && p->at[1] == 'u') {
        const char *keep = p->at;
        unsigned low = 0;
        p->at += 2;
        if (hex4(p, &low)) return -1;
        if (low >= 0xdc00 && low < 0xe000)
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        else
          p->at = keep;
      }
      if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd; /* a lone surrogate */
      o += put_utf8(o, cp);
      break;
    }
    default:
      p->at -= 2;
      return fail(p, "an unknown escape in a string");
    }
  }
  *o = '\0';
  p->at = stop + 1; /* past the closing quote */
  return 0;
}

static int number(parser *p, json_value *v) {
  const char *s = p->at;
  if (p->at < p->end && *p->at == '-') p->at++;
  if (p->at >= p->end || *p->at < '0' || *p->at > '9')
    return expected(p, "a digit");
  if (*p->at == '0') {
    p->at++;
  } else {
    while (p->at < p->end && *p->at >= '0' && *p->at <= '9') p->at++;
  }
  if (p->at < p->end && *p->at == '.') {
    p->at++;
    if (p->at >= p->end || *p->at < '0' || *p->at > '9')
      return expected(p, "a digit after the decimal point");
    while (p->at < p->end && *p->at >= '0' && *p->at <= '9') p->at++;
  }
  if (p->at < p->end && (*p->at == 'e' || *p->at == 'E')) {
    p->at++;
    if (p->at < p->end && (*p->at == '+' || *p->at == '-')) p->at++;
    if (p->at >= p->end || *p->at < '0' || *p->at > '9')
      return expected(p, "a digit in the exponent");
    while (p->at < p->end && *p->at >= '0' && *p->at <= '9') p->at++;
  }
  const size_t len = (size_t)(p->at - s);
  char *t = doc_alloc(p->doc, len + 1);
  if (!t) return fail(p, "out of memory");
  memcpy(t, s, len);
  t[len] = '\0';
  v->kind = JSON_NUMBER;
  v->text = t;
  v->number = strtod(t, NULL);
  return 0;
}

/* Items or members are gathered in a growing array, then copied into
 * the arena at their final count. */
typedef struct growing {
  json_value *values;
  const char **keys;
  size_t count, capacity;
} growing;

static int grow(parser *p, growing *g) {
  if (g->count < g->capacity) return 0;
  const size_t cap = g->capacity ? 2 * g->capacity : 8;
  json_value *v = realloc(g->values, cap * sizeof *v);
  if (!v) return fail(p, "out of memory");
  g->values = v;
  const char **k = realloc(g->keys, cap * sizeof *k);
  if (!k) return fail(p, "out of memory");
  g->keys = k;
  g->capacity = cap;
  return 0;
}

static int value(parser *p, json_value *v, int depth);

static int finish(parser *p, growing *g, json_value *v, int object) {
  v->count = g->count;
  if (g->count) {
    v->items = doc_alloc(p->doc, g->count * sizeof *v->items);
    if (!v->items) return fail(p, "out of memory");
    memcpy(v->items, g->values, g->count * sizeof *v->items);
    if (object) {
      v->keys = doc_alloc(p->doc, g->count * sizeof *v->keys);
      if (!v->keys) return fail(p, "out of memory");
      memcpy(v->keys, g->keys, g->count * sizeof *v->keys);
    }
  }
  return 0;
}

static int compound(parser *p, json_value *v, int depth, int object) {
  if (depth >= MAX_DEPTH) return fail(p, "nesting deeper than %d", MAX_DEPTH);
  const char close = object ? '}' : ']';
  p->at++;
  v->kind = object ? JSON_OBJECT : JSON_ARRAY;
  growing g = {0};
  int rc = 0;
  skip_space(p);
  if (p->at < p->end && *p->at == close) {
    p->at++;
  } else {
    for (;;) {
      if ((rc = grow(p, &g))) break;
      const char *key = NULL;
      if (object) {
        skip_space(p);
        if (p->at >= p->end || *p->at != '"') {
          rc = expected(p, "a member name in quotes");
          break;
        }
        if ((rc = string(p, &key))) break;
        skip_space(p);
        if (p->at >= p->end || *p->at != ':') {
          rc = expected(p, "':' after a member name");
          break;
        }
        p->at++;
      }
      g.keys[g.count] = key;
      if ((rc = value(p, &g.values[g.count], depth + 1))) break;
      g.count++;
      skip_space(p);
      if (p->at < p->end && *p->at == ',') {
        p->at++;
        continue;
      }
      if (p->at < p->end && *p->at == close) {
        p->at++;
        break;
      }
      rc = expected(p, object ? "',' or '}'" : "',' or ']'");
      break;
    }
  }
  if (rc == 0) rc = finish(p, &g, v, object);
  free(g.values);
  free(g.keys);
  return rc;
}

static int value(parser *p, json_value *v, int depth) {
  skip_space(p);
  memset(v, 0, sizeof *v);
  v->line = p->line;
  v->column = column(p);
  if (p->at >= p->end) return expected(p, "a value");
  switch (*p->at) {
  case '{': return compound(p, v, depth, 1);
  case '[': return compound(p, v, depth, 0);
  case '"':
    v->kind = JSON_STRING;
    return string(p, &v->text);
  case 't': v->kind = JSON_TRUE; return literal(p, "true");
  case 'f': v->kind = JSON_FALSE; return literal(p, "false");
  case 'n': v->kind = JSON_NULL; return literal(p, "null");
  default:
    if (*p->at == '-' || (*p->at >= '0' && *p->at <= '9')) return number(p, v);
    return expected(p, "a value");
  }
}

int kl__doc_parse(const char *name, const char *text, size_t len, json_doc **out,
               char *err, size_t errlen) {
  *out = NULL;
  json_doc *doc = calloc(1, sizeof *doc);
  if (!doc) {
    snprintf(err, errlen, "%s: out of memory", name);
    return -1;
  }
  parser p = {name, text, text, text + len, 1, text, doc, err, errlen, 0};
  /* A UTF-8 byte order mark is allowed before the document. */
  if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) p.at += 3;
  skip_space(&p);
  if (p.at >= p.end) {
    snprintf(err, errlen, "%s: empty: no JSON document in it", name);
    kl__doc_free(doc);
    return -1;
  }
  int rc = value(&p, &doc->root, 0);
  if (rc == 0) {
    skip_space(&p);
    if (p.at < p.end) rc = expected(&p, "the end of the file after the document");
  }
  if (rc) {
    kl__doc_free(doc);
    return -1;
  }
  *out = doc;
  return 0;
}

FILE *kl__file_open(const char *path, char *err, size_t errlen) {
  if (strcmp(path, "-") == 0) return stdin;
  /* Opened without waiting: a named pipe with no writer would hold the
   * open (and the command) forever. */
  const int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) {
    const int why = errno;
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(why));
    errno = why;
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    close(fd);
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    snprintf(err, errlen, "%s: a directory, not a file to read", path);
    return NULL;
  }
  /* A device (/dev/zero) or a socket may never end: only a file or a
   * pipe is read. */
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    close(fd);
    snprintf(err, errlen, "%s: a device, not a file to read", path);
    return NULL;
  }
  /* A pipe is read once something writes to it; one that no process has
   * open for writing (its first read, not waiting, is at its end) is
   * refused at once. The byte that read may take is put back. */
  char first = 0;
  ssize_t firsts = 0;
  if (S_ISFIFO(st.st_mode)) {
    firsts = read(fd, &first, 1);
    if (firsts == 0) {
      close(fd);
      snprintf(err, errlen, "%s: a pipe that no process writes to", path);
      return NULL;
    }
    if (firsts < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
      close(fd);
      return NULL;
    }
  }
  const int flags = fcntl(fd, F_GETFL);
  FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0
                ? fdopen(fd, "rb")
                : NULL;
  if (!f) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    close(fd);
    return NULL;
  }
  if (firsts > 0) ungetc((unsigned char)first, f);
  return f;
}

int kl__file_read(const char *path, char **out, size_t *out_len, char *err,
                  size_t errlen) {
  *out = NULL;
  *out_len = 0;
  FILE *f = kl__file_open(path, err, errlen);
  if (!f) return -1;
  const int stdin_ = f == stdin;
  size_t len = 0, cap = 1 << 16;
  char *text = malloc(cap);
  int rc = 0;
  const char *nul = NULL;
  while (text) {
    const size_t got = fread(text + len, 1, cap - len, f);
    /* A text has no NUL byte: a binary or sparse file is refused at its
     * first, not read whole (gigabytes of zeros). */
    if ((nul = memchr(text + len, '\0', got)) != NULL) {
      len += got;
      break;
    }
    len += got;
    if (len < cap) break;
    char *bigger = cap < SIZE_MAX / 2 ? realloc(text, cap * 2) : NULL;
    if (!bigger) {
      free(text);
      text = NULL;
      break;
    }
    text = bigger;
    cap *= 2;
  }
  if (!text) {
    snprintf(err, errlen, "%s: out of memory", path);
    rc = -1;
  } else if (nul) {
    snprintf(err, errlen, "%s: a NUL byte at byte %zu: not a text file",
             path, (size_t)(nul - text) + 1);
    rc = -1;
  } else if (ferror(f)) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    rc = -1;
  }
  if (!stdin_) fclose(f);
  if (rc) {
    free(text);
    return rc;
  }
  *out = text;
  *out_len = len;
  return 0;
}

int kl__doc_read(const char *path, json_doc **out, char *err, size_t errlen) {
  *out = NULL;
  char *text = NULL;
  size_t len = 0;
  int rc = kl__file_read(path, &text, &len, err, errlen);
  if (rc == 0)
    rc = kl__doc_parse(strcmp(path, "-") == 0 ? "standard input" : path, text,
                       len, out, err, errlen);
  free(text);
  return rc;
}

const json_value *kl__doc_root(const json_doc *doc) {
  return doc ? &doc->root : NULL;
}

void kl__doc_free(json_doc *doc) {
  if (!doc) return;
  for (block *b = doc->blocks; b;) {
    block *next = b->next;
    free(b);
    b = next;
  }
  free(doc);
}

const json_value *kl__doc_member(const json_value *v, const char *key) {
  if (!v || v->kind != JSON_OBJECT) return NULL;
  for (size_t i = 0; i < v->count; i++)
    if (strcmp(v->keys[i], key) == 0) return &v->items[i];
  return NULL;
}

const char *kl__doc_string(const json_value *v, const char *key,
                        const char *fallback) {
  const json_value *m = kl__doc_member(v, key);
  return m && m->kind == JSON_STRING ? m->text : fallback;
}

double kl__doc_number(const json_value *v, const char *key, double fallback,
                   int *present) {
  const json_value *m = kl__doc_member(v, key);
  const int ok = m && m->kind == JSON_NUMBER;
  if (present) *present = ok;
  return ok ? m->number : fallback;
}

const json_value *kl__doc_item(const json_value *v, size_t i) {
  if (!v || v->kind != JSON_ARRAY || i >= v->count) return NULL;
  return &v->items[i];
}
