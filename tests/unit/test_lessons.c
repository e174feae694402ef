/* Every rung of every workload has its lesson (issue 35): the registry
 * walked, each rung's LESSONS.md section found with its text and the code
 * its Kernel: lines name; each line of that code is the line of its file
 * on disk with that number (the embedded sources are the tree's); where a
 * rung names other code than the rung before it of its backend, the diff
 * between them is not empty, and the diff of a rung with itself is.
 *
 *   test_lessons SOURCE_DIR [--workloads W,...]
 *
 * Every rung missing its lesson is listed before the test fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kladder.h>

#include "lesson.h"
#include "../../src/core/tool.h"

static int failures;

#define FAIL(...)                                                             \
  do {                                                                        \
    printf("FAIL: " __VA_ARGS__);                                             \
    putchar('\n');                                                            \
    failures++;                                                               \
  } while (0)

/* The text of line `number` of a file on disk, into dst. */
static int disk_line(const char *root, const char *path, int number,
                     char *dst, size_t size) {
  char full[1024];
  snprintf(full, sizeof full, "%s/src/%s", root, path);
  FILE *f = fopen(full, "r");
  if (!f) return -1;
  int at = 1, found = -1;
  static char line[8192];
  while (fgets(line, sizeof line, f)) {
    if (at++ == number) {
      line[strcspn(line, "\r\n")] = '\0';
      snprintf(dst, size, "%s", line);
      found = 0;
      break;
    }
  }
  fclose(f);
  return found;
}

static void check_rung(const char *root, const char *workload,
                       const kl_rung_info *ri, int *missing) {
  lesson l;
  char why[320];
  if (kl__lesson_find(workload, ri->name, &l, why, sizeof why) != 0) {
    printf("missing: %s %s: %s\n", workload, ri->name, why);
    (*missing)++;
    return;
  }
  if (l.line_count == 0) {
    printf("missing: %s %s: its code: %s\n", workload, ri->name, why);
    (*missing)++;
    kl__lesson_free(&l);
    return;
  }
  if (strlen(l.text) < 80)
    FAIL("%s %s: a lesson of %zu characters is no lesson", workload,
         ri->name, strlen(l.text));
  for (int k = 0; k < l.line_count; k++) {
    const lesson_line *ln = &l.lines[k];
    if (!ln->path) continue;
    char want[8192], got[8192];
    snprintf(got, sizeof got, "%.*s", ln->length, ln->text);
    if (disk_line(root, ln->path, ln->number, want, sizeof want) != 0 ||
        strcmp(want, got) != 0) {
      FAIL("%s %s: src/%s:%d is not the line kl__shown (%s)", workload,
           ri->name, ln->path, ln->number, got);
      break;
    }
  }
  /* Each symbol named is defined in the code shown: a line with the
   * name followed by its parameters. */
  for (int k = 0; k < l.kernel_count; k++) {
    char spec[256];
    snprintf(spec, sizeof spec, "%s", l.kernels[k]);
    char *sym = strchr(spec, ' ');
    while (sym) {
      while (*sym == ' ' || *sym == '\t') sym++;
      char *end = sym + strcspn(sym, " \t");
      const char stop = *end;
      *end = '\0';
      int defined = 0;
      const size_t sl = strlen(sym);
      for (int i = 0; i < l.line_count && !defined && sl; i++) {
        const lesson_line *ln = &l.lines[i];
        for (int c = 0; ln->path && c + (int)sl < ln->length && !defined; c++)
          defined = !memcmp(ln->text + c, sym, sl) &&
                    (ln->text[c + sl] == '(' || ln->text[c + sl] == ' ');
      }
      if (sl && !defined)
        FAIL("%s %s: %s is not defined in the code shown", workload,
             ri->name, sym);
      sym = stop ? end + 1 : NULL;
    }
  }
  /* Its code against itself: no change. */
  diff_line *d = NULL;
  int lines = 0, changed = -1;
  if (kl__lesson_diff(&l, &l, &d, &lines, &changed) != 0 || changed != 0)
    FAIL("%s %s: the diff of its code with itself has %d changes", workload,
         ri->name, changed);
  free(d);
  char prev_name[64];
  lesson prev;
  if (kl__lesson_previous(workload, ri->name, prev_name, sizeof prev_name) &&
      kl__lesson_find(workload, prev_name, &prev, why, sizeof why) == 0) {
    int same_spec = prev.kernel_count == l.kernel_count;
    for (int k = 0; same_spec && k < l.kernel_count; k++)
      same_spec = !strcmp(prev.kernels[k], l.kernels[k]);
    if (prev.line_count > 0 &&
        kl__lesson_diff(&prev, &l, &d, &lines, &changed) == 0) {
      if (!same_spec && changed == 0)
        FAIL("%s %s: other code than %s, but an empty diff", workload,
             ri->name, prev_name);
      if (same_spec && changed != 0)
        FAIL("%s %s: the same code as %s, but a diff of %d lines", workload,
             ri->name, prev_name, changed);
      /* The diff's lines are the two codes' lines, each once. */
      int minus = 0, plus = 0, same = 0;
      for (int k = 0; k < lines; k++)
        minus += d[k].op == '-', plus += d[k].op == '+',
            same += d[k].op == ' ';
      if (minus > prev.line_count || plus > l.line_count ||
          minus + plus != changed)
        FAIL("%s %s: a diff of %d -, %d + lines from %d and %d", workload,
             ri->name, minus, plus, prev.line_count, l.line_count);
      free(d);
    }
    kl__lesson_free(&prev);
  }
  kl__lesson_free(&l);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_lessons SOURCE_DIR [--workloads W,...]\n");
    return 2;
  }
  const char *only = argc > 3 && !strcmp(argv[2], "--workloads") ? argv[3]
                                                                  : NULL;
  if (!kl__lesson_embedded) {
    printf("SKIP: built without lessons (KL_LESSONS=OFF)\n");
    return 77;
  }
  int missing = 0, rungs = 0;
  for (size_t w = 0; w < kl_workload_count(); w++) {
    kl_workload_info wi;
    wi.size = sizeof wi;
    if (kl_workload_describe(w, &wi) != KL_OK) {
      FAIL("workload %zu: %s", w, kl_last_error());
      continue;
    }
    if (only && !kl__selects(only, wi.name)) continue;
    for (int r = 0; r < wi.rung_count; r++) {
      kl_rung_info ri;
      ri.size = sizeof ri;
      if (kl_rung_describe(w, r, &ri) != KL_OK) {
        FAIL("%s rung %d: %s", wi.name, r, kl_last_error());
        continue;
      }
      rungs++;
      check_rung(argv[1], wi.name, &ri, &missing);
    }
  }
  if (rungs == 0) FAIL("no rung selected");
  if (missing) FAIL("%d of %d rungs without a lesson or its code", missing,
                    rungs);
  printf("%d rungs, %d without a lesson, %d failures\n", rungs, missing,
         failures);
  return failures ? 1 : 0;
}
