#define _POSIX_C_SOURCE 200809L /* mkstemp */
/* The JSON reader (src/core/json-read.c): values of every kind
 * read back exactly, escapes decoded, and every malformed text refused
 * with its file, line and column in one line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"
#include "json-read.h"

static json_doc *parse(const char *text, char *err, size_t len) {
  json_doc *doc = NULL;
  if (kl__doc_parse("t.json", text, strlen(text), &doc, err, len) != 0)
    return NULL;
  return doc;
}

/* A malformed text: refused, and the message holds want. */
static void refused(const char *text, const char *want) {
  char err[256] = "";
  json_doc *doc = parse(text, err, sizeof err);
  EXPECT(doc == NULL);
  if (!strstr(err, want)) printf("  for %s: got '%s', want '%s'\n", text, err, want);
  EXPECT(strstr(err, want) != NULL);
  EXPECT(strchr(err, '\n') == NULL);
  kl__doc_free(doc);
}

int main(void) {
  char err[256];
  json_doc *doc = parse(
      "{\"a\": 1, \"b\": -2.5e-3, \"c\": \"x\\\"y\\\\z\\n\\u00e9\\ud83d\\ude00\","
      " \"d\": [true, false, null, []], \"e\": {}, \"f\": 0.1,\n"
      " \"g\": 123456789012345678, \"a\": 2}",
      err, sizeof err);
  EXPECT(doc != NULL);
  const json_value *r = kl__doc_root(doc);
  EXPECT(r && r->kind == JSON_OBJECT && r->count == 8);
  EXPECT(kl__doc_number(r, "a", 0, NULL) == 1); /* the first of that name */
  int present = 0;
  EXPECT(kl__doc_number(r, "b", 0, &present) == -2.5e-3 && present);
  EXPECT(kl__doc_number(r, "zz", 7, &present) == 7 && !present);
  EXPECT(kl__doc_number(r, "c", 7, &present) == 7 && !present);
  EXPECT(strcmp(kl__doc_string(r, "c", ""), "x\"y\\z\n\xc3\xa9\xf0\x9f\x98\x80") == 0);
  EXPECT(kl__doc_string(r, "a", NULL) == NULL);
  const json_value *d = kl__doc_member(r, "d");
  EXPECT(d && d->kind == JSON_ARRAY && d->count == 4);
  EXPECT(kl__doc_item(d, 0)->kind == JSON_TRUE && kl__doc_item(d, 1)->kind == JSON_FALSE);
  EXPECT(kl__doc_item(d, 2)->kind == JSON_NULL);
  EXPECT(kl__doc_item(d, 3)->kind == JSON_ARRAY && kl__doc_item(d, 3)->count == 0);
  EXPECT(kl__doc_item(d, 4) == NULL);
  EXPECT(kl__doc_member(r, "e")->kind == JSON_OBJECT);
  EXPECT(kl__doc_number(r, "f", 0, NULL) == 0.1);
  EXPECT(strcmp(kl__doc_member(r, "g")->text, "123456789012345678") == 0);
  EXPECT(kl__doc_member(r, "g")->line == 2);
  kl__doc_free(doc);

  /* Numbers as the library writes them read back to the same double. */
  const double values[] = {5.6622999863975565e-05, 98.76580211989055, 1e308,
                           4.9e-324, -0.0, 20261121};
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    char text[64];
    snprintf(text, sizeof text, "[%.17g]", values[i]);
    doc = parse(text, err, sizeof err);
    EXPECT(doc && kl__doc_item(kl__doc_root(doc), 0)->number == values[i]);
    kl__doc_free(doc);
  }

  refused("", "t.json: empty");
  refused("  \n ", "t.json: empty");
  refused("{", "t.json:1:2: expected a member name in quotes, found the end");
  refused("{\"a\" 1}", "t.json:1:6: expected ':' after a member name");
  refused("[1,\n 2,, 3]", "t.json:2:4: expected a value, found ','");
  refused("[1 2]", "t.json:1:4: expected ',' or ']', found '2'");
  refused("{\"a\": tru}", "t.json:1:7: expected a value");
  refused("[01]", "t.json:1:3: expected ',' or ']', found '1'");
  refused("[1.]", "expected a digit after the decimal point");
  refused("[1e]", "expected a digit in the exponent");
  refused("[-]", "expected a digit");
  refused("\"abc", "a string that does not end");
  refused("[\"a\tb\"]", "a control character inside a string");
  refused("[\"\\q\"]", "an unknown escape");
  refused("[\"\\u12g4\"]", "four hex digits");
  refused("{} {}", "t.json:1:4: expected the end of the file after the document");
  refused("[1] x", "found 'x'");
  refused("nul", "expected a value");
  refused("\x01", "found byte 0x01");
  char deep[600];
  memset(deep, '[', 300);
  deep[300] = '\0';
  refused(deep, "nesting deeper than 256");

  /* Files: missing, a directory, one that reads. */
  EXPECT(kl__doc_read("/no/such/file.json", &doc, err, sizeof err) != 0 &&
         strstr(err, "/no/such/file.json: cannot read: No such file") && !doc);
  EXPECT(kl__doc_read("/tmp", &doc, err, sizeof err) != 0 &&
         strstr(err, "/tmp: a directory") && !doc);
  char path[512];
  temp_template(path, sizeof path, "kl-json");
  int fd = mkstemp(path);
  EXPECT(fd >= 0);
  if (fd >= 0) {
    const char text[] = "\xef\xbb\xbf{\"format\": \"kladder-results-2\"}\n";
    EXPECT(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
    close(fd);
    EXPECT(kl__doc_read(path, &doc, err, sizeof err) == 0);
    EXPECT(strcmp(kl__doc_string(kl__doc_root(doc), "format", ""),
                  "kladder-results-2") == 0);
    kl__doc_free(doc);
    unlink(path);
  }
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
