/* The one JSON writer: results files and `kladder list --json` go through
 * it, so that strings are escaped and numbers written by one policy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void kl__json_begin(kl__json *j, FILE *f) {
  memset(j, 0, sizeof *j);
  j->f = f;
}

static void indent(kl__json *j, int depth) {
  fputc('\n', j->f);
  for (int i = 0; i < depth; i++) fputs("  ", j->f);
}

/* Before a value: the comma after the previous one, the line break of a
 * container laid out one member a line, and the key inside an object. */
static void before(kl__json *j, const char *key) {
  if (j->depth > 0) {
    const int d = j->depth;
    if (j->count[d]) fputc(',', j->f);
    if (j->lines[d]) indent(j, d);
    else if (j->count[d]) fputc(' ', j->f);
    j->count[d]++;
  }
  if (key) {
    kl__json_write_string(j->f, key);
    fputs(": ", j->f);
  }
}

void kl__json_write_string(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

void kl__json_write_number(FILE *f, double v) {
  if (!isfinite(v)) {
    fputs("null", f); /* JSON has no NaN or infinity */
    return;
  }
  if (v > -9e18 && v < 9e18 && (double)(long long)v == v) {
    fprintf(f, "%lld", (long long)v);
    return;
  }
  char text[40];
  kl__exact_number(v, text, sizeof text);
  fputs(text, f);
}

void kl__exact_number(double v, char *dst, size_t size) {
  if (!dst || size == 0) return;
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(dst, size, "%.*g", digits, v);
    if (strtod(dst, NULL) == v) return;
  }
}

void kl__json_open(kl__json *j, const char *key, char bracket, int lines) {
  before(j, key);
  fputc(bracket, j->f);
  if (j->depth + 1 < KL__JSON_DEPTH) {
    j->depth++;
    j->count[j->depth] = 0;
    j->lines[j->depth] = lines;
    j->close[j->depth] = bracket == '{' ? '}' : ']';
  }
}

void kl__json_close(kl__json *j) {
  if (j->depth == 0) return;
  const int d = j->depth;
  if (j->lines[d] && j->count[d]) indent(j, d - 1);
  fputc(j->close[d], j->f);
  j->depth--;
}

void kl__json_string(kl__json *j, const char *key, const char *s) {
  before(j, key);
  kl__json_write_string(j->f, s);
}

void kl__json_number(kl__json *j, const char *key, int present, double v) {
  before(j, key);
  if (present) kl__json_write_number(j->f, v);
  else fputs("null", j->f);
}

void kl__json_bool(kl__json *j, const char *key, int b) {
  before(j, key);
  fputs(b ? "true" : "false", j->f);
}

void kl__json_null(kl__json *j, const char *key) {
  before(j, key);
  fputs("null", j->f);
}
