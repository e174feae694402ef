/* The one JSON reader: a document (a results file, kladder run --json)
 * read whole into a tree, for kl_results_read (results.c) and the
 * command's report, compare, history and explain. RFC 8259 JSON; a
 * document that is not is refused with the file, line, column and what
 * was expected, in one line. The writer is json.c. A document is
 * read-only once read, and may then be read from any thread; reading one
 * touches no shared state. */
#ifndef KL_JSON_READ_H
#define KL_JSON_READ_H

#include <stddef.h>
#include <stdio.h>

typedef enum json_kind {
  JSON_NULL,
  JSON_FALSE,
  JSON_TRUE,
  JSON_NUMBER,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT
} json_kind;

typedef struct json_value json_value;
struct json_value {
  json_kind kind;
  double number;     /* JSON_NUMBER: its value (strtod of its text) */
  const char *text;  /* JSON_NUMBER: as written; JSON_STRING: decoded,
                        UTF-8, NUL-terminated (an escaped \u0000 ends it) */
  size_t count;      /* JSON_ARRAY: items; JSON_OBJECT: members */
  json_value *items; /* the items, or the members' values, in file order */
  const char **keys; /* JSON_OBJECT: the members' names (decoded) */
  int line, column;  /* where the value starts, from 1 */
};

typedef struct json_doc json_doc;

/* Reads PATH ("-": standard input) whole. 0 and *out on success; else -1,
 * *out NULL, and one line in err (at most errlen bytes, no newline) naming
 * the file: missing or unreadable (with strerror), a directory, empty, or
 * "PATH:LINE:COLUMN: expected ..." for a document that is not JSON, text
 * after the document included. Nesting deeper than 256 is refused. */
int kl__doc_read(const char *path, json_doc **out, char *err, size_t errlen);
/* A file opened to read, "-" standard input: a directory refused, and a
 * named pipe that no process writes to refused at once instead of waited
 * for; NULL with why in err (and, where it could not be opened, errno as
 * open left it: ENOENT for a missing file). */
FILE *kl__file_open(const char *path, char *err, size_t errlen);
/* PATH ("-": standard input) read whole into *text (malloc'd, len bytes,
 * not NUL-terminated): 0, or -1 with one line in err naming the file (it
 * cannot be read, with strerror; a directory; out of memory; a NUL byte,
 * which no text has, found as the file is read, so that a binary or
 * sparse file of gigabytes is refused at once). */
int kl__file_read(const char *path, char **text, size_t *len, char *err,
                  size_t errlen);
/* The same over a text of len bytes; name stands for the path in errors. */
int kl__doc_parse(const char *name, const char *text, size_t len, json_doc **out,
               char *err, size_t errlen);
const json_value *kl__doc_root(const json_doc *doc);
void kl__doc_free(json_doc *doc);

/* An object's member by name (the first of that name), or NULL where v is
 * NULL, not an object or has none. */
const json_value *kl__doc_member(const json_value *v, const char *key);
/* A member's string, or fallback where it is absent, null or not a
 * string. */
const char *kl__doc_string(const json_value *v, const char *key,
                        const char *fallback);
/* A member's number, or fallback where it is absent, null or not a
 * number; *present (where not NULL) says which. */
double kl__doc_number(const json_value *v, const char *key, double fallback,
                   int *present);
/* The i-th item of an array, or NULL. */
const json_value *kl__doc_item(const json_value *v, size_t i);

#endif
