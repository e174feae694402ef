/* The one JSON writer (json.c): containers opened and closed in order,
 * members laid out inline ({"a": 1, "b": 2}) or one a line, strings
 * escaped, numbers as integers where they are whole and otherwise in the
 * fewest of 15 to 17 digits that read back exactly; a value that was not
 * measured, or is not finite, is null. */
#ifndef KL_JSON_H
#define KL_JSON_H

#include <stdio.h>

#define KL__JSON_DEPTH 8

typedef struct kl__json {
  FILE *f;
  int depth;
  int count[KL__JSON_DEPTH]; /* members written at each depth */
  int lines[KL__JSON_DEPTH]; /* one member a line at that depth */
  char close[KL__JSON_DEPTH];
} kl__json;

void kl__json_begin(kl__json *j, FILE *f);
/* A container ('{' or '['), as a member named key (NULL in an array or at
 * the top), its members one a line where `lines`. */
void kl__json_open(kl__json *j, const char *key, char bracket, int lines);
void kl__json_close(kl__json *j);
void kl__json_string(kl__json *j, const char *key, const char *s);
void kl__json_number(kl__json *j, const char *key, int present, double v);
void kl__json_bool(kl__json *j, const char *key, int b);
void kl__json_null(kl__json *j, const char *key);

/* The scalars alone. */
void kl__json_write_string(FILE *f, const char *s);
void kl__json_write_number(FILE *f, double v);
/* v in its shortest form of 15 to 17 significant digits that reads back
 * exactly (strtod): a JSON number's, and the results layer's CSV's. */
void kl__exact_number(double v, char *dst, size_t size);

#endif
