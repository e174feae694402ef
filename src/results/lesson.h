/* The lessons of a ladder (`kladder explain`, the report's): for each rung,
 * its text from its workload's LESSONS.md, the code its Kernel: lines name
 * (each symbol's definition, with the line numbers of its file), and the
 * unified diff of that code against the previous rung of the same backend.
 * Every LESSONS.md and every source they can name are embedded at build
 * time (cmake/kladder-lessons.cmake): nothing is read at run time.
 *
 * LESSONS.md: a level-1 heading per workload, a level-2 heading per rung,
 * the names as `kladder list --all` prints them; under a rung, `Kernel:
 * FILE SYMBOL...` lines (FILE relative to the workload's folder, or to src/
 * where it begins with backends/ or workloads/), an optional `From:` line,
 * then the text in paragraphs. */
#ifndef KL_CLI_LESSON_H
#define KL_CLI_LESSON_H

#include <stddef.h>
#include <stdio.h>

typedef struct kl__lesson_file {
  const char *path; /* relative to src/: "workloads/map/map.c" */
  const char *text;
  size_t length;
} kl__lesson_file;

/* The embedded files, ended by a NULL path; kl__lesson_embedded 0 where the
 * build left them out (KL_LESSONS=OFF). */
extern const kl__lesson_file kl__lesson_files[];
extern const int kl__lesson_embedded;

/* One line of a rung's code: its text (not NUL-terminated), its file and
 * its line number there. */
typedef struct lesson_line {
  const char *path;
  int number;
  const char *text;
  int length;
} lesson_line;

#define LESSON_MAX_KERNELS 8

typedef struct lesson {
  char from[160];  /* "seed 000 §3.1.2", "" where none */
  char *text;      /* the paragraphs, joined by "\n\n"; malloc'd */
  int kernel_count;
  char kernels[LESSON_MAX_KERNELS][256]; /* each Kernel: line, as written */
  /* The code: every symbol's definition in order, with a line of NULL
   * path between two (a gap). */
  lesson_line *lines;
  int line_count;
} lesson;

/* One line of a diff: ' ' the same, '-' only in the previous rung's code,
 * '+' only in this one's, '@' the start of a hunk (old and new: the file
 * line numbers where it starts, 0 where that side has none). */
typedef struct diff_line {
  char op;
  const lesson_line *line;
  int old_start, new_start;
} diff_line;

/* The lesson of rung `rung` of `workload`: 0 with *out filled (free it
 * with lesson_free), or -1 with why in err (no lessons built, no section,
 * no Kernel: line, a file or symbol not found). A lesson whose text was
 * found but not its code is still returned, with line_count 0 and why in
 * err: the caller shows what there is. */
int kl__lesson_find(const char *workload, const char *rung, lesson *out,
                    char *err, size_t errlen);
void kl__lesson_free(lesson *l);

/* The unified diff of a's code and b's (3 lines of context): 0 with *out
 * (malloc'd, *count lines, free it) where it could be made; the changed
 * lines are counted in *changed. -1 where the code is too long to diff. */
int kl__lesson_diff(const lesson *a, const lesson *b, diff_line **out,
                    int *count, int *changed);

/* The rung before `rung` in its ladder on the same backend, not a
 * known-wrong one (a step to build on), into dst: 1, or 0 where there is
 * none (the first of its backend, or a name this build lacks). */
int kl__lesson_previous(const char *workload, const char *rung, char *dst,
                        size_t size);

/* text wrapped at `width` columns, each line after `indent` spaces. */
void kl__lesson_wrap(FILE *f, const char *text, int indent, int width);

#endif
