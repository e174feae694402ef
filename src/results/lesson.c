/* The lessons: LESSONS.md sections found, the code they name extracted
 * from the embedded sources, and the diff of two rungs' code (see
 * lesson.h). */
#include "lesson.h"
#include "results.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kladder-run.h>

static const kl__lesson_file *source(const char *path) {
  for (const kl__lesson_file *f = kl__lesson_files; f->path; f++)
    if (strcmp(f->path, path) == 0) return f;
  return NULL;
}

/* The line [*at, end of line) of text; *at moves past its newline. */
static int next_line(const char *text, size_t length, size_t *at,
                     const char **line, size_t *len) {
  if (*at >= length) return 0;
  *line = text + *at;
  const char *nl = memchr(*line, '\n', length - *at);
  *len = nl ? (size_t)(nl - *line) : length - *at;
  *at += *len + (nl ? 1 : 0);
  return 1;
}

static int heading(const char *line, size_t len, int level, const char *name) {
  size_t k = 0;
  while (k < len && line[k] == '#') k++;
  if ((int)k != level || k >= len || line[k] != ' ') return 0;
  const char *s = line + k + 1;
  size_t n = len - k - 1;
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  while (n > 0 && *s == ' ') s++, n--;
  return name ? strlen(name) == n && memcmp(s, name, n) == 0 : 1;
}

static int starts(const char *line, size_t len, const char *word) {
  size_t n = strlen(word);
  return len >= n && memcmp(line, word, n) == 0;
}

static void trimmed(const char *s, size_t n, char *dst, size_t size) {
  while (n > 0 && isspace((unsigned char)*s)) s++, n--;
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  if (n >= size) n = size - 1;
  memcpy(dst, s, n);
  dst[n] = '\0';
}

/* Append n bytes to a malloc'd string. */
static int append(char **dst, size_t *used, const char *s, size_t n) {
  char *grown = realloc(*dst, *used + n + 1);
  if (!grown) return -1;
  memcpy(grown + *used, s, n);
  *used += n;
  grown[*used] = '\0';
  *dst = grown;
  return 0;
}

/* ---- a symbol's definition ------------------------------------------------
 * A scan that knows comments, strings and characters, so that a name in a
 * comment is not taken for its definition and braces in them are not
 * counted. */
static size_t skip_literal(const char *t, size_t n, size_t i) {
  if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
    while (i < n && t[i] != '\n') i++;
    return i;
  }
  if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
    i += 2;
    while (i + 1 < n && !(t[i] == '*' && t[i + 1] == '/')) i++;
    return i + 2 < n ? i + 2 : n;
  }
  if (t[i] == '"' || t[i] == '\'') {
    const char q = t[i++];
    while (i < n && t[i] != q && t[i] != '\n') i += t[i] == '\\' ? 2 : 1;
    return i < n ? i + 1 : n;
  }
  return i;
}

static int ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The matching closer of the opener at t[i], or n. */
static size_t matching(const char *t, size_t n, size_t i, char open,
                       char close) {
  int depth = 0;
  while (i < n) {
    size_t j = skip_literal(t, n, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (t[i] == open) depth++;
    else if (t[i] == close && --depth == 0) return i;
    i++;
  }
  return n;
}

static int line_of(const char *t, size_t i) {
  int line = 1;
  for (size_t k = 0; k < i; k++) line += t[k] == '\n';
  return line;
}

static size_t line_start(const char *t, size_t i) {
  while (i > 0 && t[i - 1] != '\n') i--;
  return i;
}

/* Whether the line [s, e) may be part of a definition's head (its return
 * type, a template or qualifier line): not blank, not a preprocessor line
 * or a comment, not the end of a statement or block. */
static int head_line(const char *t, size_t s, size_t e) {
  while (s < e && isspace((unsigned char)t[s])) s++;
  while (e > s && isspace((unsigned char)t[e - 1])) e--;
  if (s == e || t[s] == '#' || t[s] == '/' || t[s] == '*') return 0;
  const char last = t[e - 1];
  return last != ';' && last != '}' && last != '{' &&
         !(e - s >= 2 && t[e - 2] == '*' && last == '/');
}

/* The first definition of sym in t: its first line's offset and the
 * offset past its closing brace. */
static int definition(const char *t, size_t n, const char *sym, size_t *from,
                      size_t *to) {
  const size_t sl = strlen(sym);
  size_t i = 0;
  while (i < n) {
    size_t j = skip_literal(t, n, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (ident(t[i]) && (i == 0 || !ident(t[i - 1])) && i + sl <= n &&
        memcmp(t + i, sym, sl) == 0 && (i + sl == n || !ident(t[i + sl]))) {
      size_t k = i + sl;
      while (k < n && isspace((unsigned char)t[k])) k++;
      /* A line that begins with '#' is a macro's, not a definition. */
      size_t ls = line_start(t, i);
      while (ls < i && isspace((unsigned char)t[ls])) ls++;
      if (k < n && t[k] == '(' && t[ls] != '#') {
        size_t close = matching(t, n, k, '(', ')');
        size_t b = close + 1;
        while (b < n) {
          size_t c = skip_literal(t, n, b);
          if (c != b) b = c;
          else if (isspace((unsigned char)t[b])) b++;
          else break;
        }
        if (close < n && b < n && t[b] == '{') {
          size_t end = matching(t, n, b, '{', '}');
          if (end >= n) return -1;
          size_t s = line_start(t, i);
          while (s > 0) {
            size_t ps = line_start(t, s - 1);
            if (!head_line(t, ps, s - 1)) break;
            s = ps;
          }
          *from = s;
          *to = end + 1;
          return 0;
        }
      }
      i += sl;
      continue;
    }
    i++;
  }
  return -1;
}

static int add_line(lesson *l, const char *path, int number, const char *text,
                    int length) {
  lesson_line *grown =
      realloc(l->lines, sizeof *grown * (size_t)(l->line_count + 1));
  if (!grown) return -1;
  l->lines = grown;
  l->lines[l->line_count++] = (lesson_line){path, number, text, length};
  return 0;
}

/* The definitions a Kernel: line names, added to l's code. */
static int kernel_code(lesson *l, const char *folder, const char *spec,
                       char *err, size_t errlen) {
  char copy[256];
  snprintf(copy, sizeof copy, "%s", spec);
  char *file = strtok(copy, " \t");
  if (!file) return kl__said(-1, err, errlen, "an empty Kernel: line");
  char path[320];
  if (strncmp(file, "backends/", 9) == 0 || strncmp(file, "workloads/", 10) == 0)
    snprintf(path, sizeof path, "%s", file);
  else snprintf(path, sizeof path, "%s%s", folder, file);
  const kl__lesson_file *f = source(path);
  if (!f)
    return kl__said(-1, err, errlen, "Kernel: file src/%s is not among "
                    "the embedded sources", path);
  int symbols = 0;
  for (char *sym = strtok(NULL, " \t"); sym;
       sym = strtok(NULL, " \t"), symbols++) {
    size_t from, to;
    if (definition(f->text, f->length, sym, &from, &to) != 0)
      return kl__said(-1, err, errlen, "no definition of %s in src/%s", sym,
                      path);
    if (l->line_count > 0 && add_line(l, NULL, 0, "", 0) != 0) return -1;
    int number = line_of(f->text, from);
    for (size_t at = from; at < to; number++) {
      const char *nl = memchr(f->text + at, '\n', to - at);
      const size_t e = nl ? (size_t)(nl - f->text) : to;
      if (add_line(l, f->path, number, f->text + at, (int)(e - at)) != 0)
        return -1;
      at = e + 1;
    }
  }
  if (symbols == 0)
    return kl__said(-1, err, errlen, "Kernel: %s names no symbol", file);
  return 0;
}

void kl__lesson_free(lesson *l) {
  free(l->text);
  free(l->lines);
  memset(l, 0, sizeof *l);
}

int kl__lesson_find(const char *workload, const char *rung, lesson *out,
                    char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!kl__lesson_embedded)
    return kl__said(-1, err, errlen, "this build has no lessons (built "
                    "with KL_LESSONS=OFF)");
  for (const kl__lesson_file *f = kl__lesson_files; f->path; f++) {
    const size_t pl = strlen(f->path);
    if (pl < 10 || strcmp(f->path + pl - 10, "LESSONS.md") != 0) continue;
    size_t at = 0, len;
    const char *line;
    int in_workload = 0, in_rung = 0;
    size_t text_used = 0;
    int blank = 1;
    while (next_line(f->text, f->length, &at, &line, &len)) {
      if (heading(line, len, 1, NULL)) {
        if (in_rung) break;
        in_workload = heading(line, len, 1, workload);
        continue;
      }
      if (heading(line, len, 2, NULL)) {
        if (in_rung) break;
        in_rung = in_workload && heading(line, len, 2, rung);
        continue;
      }
      if (!in_rung) continue;
      if (starts(line, len, "Kernel:")) {
        if (out->kernel_count < LESSON_MAX_KERNELS)
          trimmed(line + 7, len - 7, out->kernels[out->kernel_count++],
                  sizeof out->kernels[0]);
        continue;
      }
      if (starts(line, len, "From:")) {
        trimmed(line + 5, len - 5, out->from, sizeof out->from);
        continue;
      }
      char piece[1024];
      trimmed(line, len, piece, sizeof piece);
      if (!piece[0]) {
        blank = 1;
        continue;
      }
      const char *sep = !out->text ? "" : blank ? "\n\n" : " ";
      if (append(&out->text, &text_used, sep, strlen(sep)) != 0 ||
          append(&out->text, &text_used, piece, strlen(piece)) != 0) {
        kl__lesson_free(out);
        return kl__said(-1, err, errlen, "out of memory");
      }
      blank = 0;
    }
    if (!in_rung) continue;
    /* The workload's folder: the lesson file's. */
    char folder[256];
    snprintf(folder, sizeof folder, "%.*s", (int)(pl - 10), f->path);
    if (!out->text)
      return kl__said(-1, err, errlen, "the lesson of %s %s in src/%s has "
                      "no text", workload, rung, f->path);
    if (out->kernel_count == 0)
      return kl__said(-1, err, errlen, "the lesson of %s %s in src/%s has "
                      "no Kernel: line", workload, rung, f->path);
    err[0] = '\0';
    for (int k = 0; k < out->kernel_count; k++)
      if (kernel_code(out, folder, out->kernels[k], err, errlen) != 0) {
        free(out->lines);
        out->lines = NULL;
        out->line_count = 0;
        return 0;
      }
    return 0;
  }
  return kl__said(-1, err, errlen, "no lesson for %s %s in any "
                  "src/workloads/*/LESSONS.md", workload, rung);
}

/* ---- the diff ------------------------------------------------------------ */

static int same(const lesson_line *a, const lesson_line *b) {
  return (a->path == NULL) == (b->path == NULL) && a->length == b->length &&
         memcmp(a->text, b->text, (size_t)a->length) == 0;
}

#define CONTEXT 3
#define MAX_CELLS (16 * 1024 * 1024)

int kl__lesson_diff(const lesson *a, const lesson *b, diff_line **out,
                    int *count, int *changed) {
  *out = NULL;
  *count = *changed = 0;
  const int n = a->line_count, m = b->line_count;
  if ((double)(n + 1) * (double)(m + 1) > MAX_CELLS) return -1;
  /* lcs[i][j]: the longest common subsequence of a[i..] and b[j..]. */
  int *lcs = calloc((size_t)(n + 1) * (size_t)(m + 1), sizeof *lcs);
  /* The script: at most n + m edits and context, and a hunk mark each. */
  diff_line *script = malloc(sizeof *script * (size_t)(2 * (n + m) + 2));
  char *op = malloc((size_t)(n + m) + 1);
  int *ai = malloc(sizeof *ai * (size_t)(n + m + 1)),
      *bi = malloc(sizeof *bi * (size_t)(n + m + 1));
  if (!lcs || !script || !op || !ai || !bi) {
    free(lcs), free(script), free(op), free(ai), free(bi);
    return -1;
  }
#define L(i, j) lcs[(size_t)(i) * (size_t)(m + 1) + (size_t)(j)]
  for (int i = n - 1; i >= 0; i--)
    for (int j = m - 1; j >= 0; j--)
      L(i, j) = same(&a->lines[i], &b->lines[j])
                    ? L(i + 1, j + 1) + 1
                    : (L(i + 1, j) >= L(i, j + 1) ? L(i + 1, j) : L(i, j + 1));
  /* The edit script: each step ' ', '-' or '+', with where it stands in
   * each side. */
  int steps = 0, i = 0, j = 0;
  while (i < n || j < m) {
    ai[steps] = i, bi[steps] = j;
    if (i < n && j < m && same(&a->lines[i], &b->lines[j])) op[steps] = ' ', i++, j++;
    else if (i < n && (j == m || L(i + 1, j) >= L(i, j + 1))) op[steps] = '-', i++;
    else op[steps] = '+', j++;
    steps++;
  }
#undef L
  free(lcs);
  /* Hunks: the changes with CONTEXT lines around them. */
  int lines = 0;
  for (int s = 0; s < steps;) {
    if (op[s] == ' ') {
      s++;
      continue;
    }
    int start = s - CONTEXT > 0 ? s - CONTEXT : 0;
    /* Extend over changes closer than 2 * CONTEXT lines apart. */
    int end = s;
    for (;;) {
      while (end < steps && op[end] != ' ') end++;
      int k = end;
      while (k < steps && op[k] == ' ' && k - end < 2 * CONTEXT) k++;
      if (k < steps && op[k] != ' ') end = k;
      else break;
    }
    int stop = end + CONTEXT < steps ? end + CONTEXT : steps;
    /* Where the hunk starts in each side's files. */
    int old_start = 0, new_start = 0;
    for (int k = start; k < stop && (!old_start || !new_start); k++) {
      if (op[k] != '+' && !old_start && a->lines[ai[k]].path)
        old_start = a->lines[ai[k]].number;
      if (op[k] != '-' && !new_start && b->lines[bi[k]].path)
        new_start = b->lines[bi[k]].number;
    }
    script[lines++] = (diff_line){'@', NULL, old_start, new_start};
    for (int k = start; k < stop; k++) {
      const lesson_line *ln = op[k] == '+' ? &b->lines[bi[k]] : &a->lines[ai[k]];
      script[lines++] = (diff_line){op[k], ln, 0, 0};
      if (op[k] != ' ') (*changed)++;
    }
    s = stop;
  }
  free(op), free(ai), free(bi);
  *out = script;
  *count = lines;
  return 0;
}

void kl__lesson_wrap(FILE *f, const char *text, int indent, int width) {
  const char *p = text;
  while (*p) {
    /* One paragraph. */
    const char *end = strstr(p, "\n\n");
    if (!end) end = p + strlen(p);
    int column = 0;
    while (p < end) {
      while (p < end && *p == ' ') p++;
      const char *w = p;
      while (p < end && *p != ' ') p++;
      const int len = (int)(p - w);
      if (len == 0) break;
      if (column > 0 && column + 1 + len > width) {
        fputc('\n', f);
        column = 0;
      }
      if (column == 0) column = fprintf(f, "%*s", indent, "");
      else column += fprintf(f, " ");
      column += fprintf(f, "%.*s", len, w);
    }
    if (column > 0) fputc('\n', f);
    if (*end) {
      fputc('\n', f);
      p = end + 2;
    } else p = end;
  }
}

int kl__lesson_previous(const char *workload, const char *rung, char *dst,
                        size_t size) {
  size_t wi;
  kl_workload_info w;
  w.size = sizeof w;
  if (kl_workload_index(workload, &wi) != KL_OK ||
      kl_workload_describe(wi, &w) != KL_OK)
    return 0;
  kl_rung_info ri[2];
  int found = 0;
  for (int r = 0; r < w.rung_count; r++) {
    ri[0].size = sizeof ri[0];
    if (kl_rung_describe(wi, r, &ri[0]) != KL_OK) continue;
    if (!strcmp(ri[0].name, rung)) {
      /* The rung before it of its backend, not a known-wrong one. */
      for (int k = r - 1; k >= 0; k--) {
        ri[1].size = sizeof ri[1];
        if (kl_rung_describe(wi, k, &ri[1]) == KL_OK &&
            !strcmp(ri[1].backend, ri[0].backend) &&
            !(ri[1].flags & KL_RUNG_KNOWN_WRONG)) {
          snprintf(dst, size, "%s", ri[1].name);
          found = 1;
          break;
        }
      }
      break;
    }
  }
  return found;
}
