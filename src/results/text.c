/* The text the results layer and the command share (results.h). */
#include "results.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kladder-run.h"

const char *kl__shown(const char *arg, char dst[SHOWN_SIZE]) {
  size_t end = 0;
  while (end < SHOWN_BYTES && arg[end]) end++;
  const int cut = arg[end] != '\0';
  if (cut)
    while (end > 0 && ((unsigned char)arg[end] & 0xC0) == 0x80) end--;
  char *out = dst;
  for (size_t i = 0; i < end; i++) {
    unsigned char ch = (unsigned char)arg[i];
    if (ch < 0x20 || ch == 0x7f) out += sprintf(out, "\\x%02x", ch);
    else *out++ = (char)ch;
  }
  strcpy(out, cut ? "..." : "");
  return dst;
}

int kl__in_list(const char *list, const char *name) {
  if (!list) return 1;
  const size_t len = strlen(name);
  for (const char *p = list; *p;) {
    const size_t item = strcspn(p, ",");
    if (item == len && strncmp(p, name, len) == 0) return 1;
    p += item + (p[item] == ',');
  }
  return 0;
}

void kl__html_escape(FILE *f, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default: fputc(*s, f);
    }
  }
}

void kl__html_text(FILE *f, const char *before, const char *s,
                   const char *after) {
  fputs(before, f);
  kl__html_escape(f, s);
  fputs(after, f);
}

int kl__said(int code, char *dst, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, size, fmt, ap);
  va_end(ap);
  return code;
}

const char *kl__field_key(int id) {
  kl_field_info f = {.size = sizeof f};
  return id >= 0 && kl_field_describe((size_t)id, &f) == KL_OK ? f.name : "?";
}

int kl__flagged(const char *list, const char *name) {
  const size_t len = strlen(name);
  for (const char *p = list; len && (p = strstr(p, name)) != NULL;
       p += len) {
    const int starts = p == list || strchr(",; ", p[-1]);
    const int ends = p[len] == '\0' || strchr(",; ", p[len]);
    if (starts && ends) return 1;
  }
  return 0;
}

void kl__json_text(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", f);
    else if (*p == '\t') fputs("\\t", f);
    else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

void kl__csv_exact(FILE *f, double v) {
  if (!isfinite(v)) return;
  char text[40];
  kl__exact_number(v, text, sizeof text);
  fputs(text, f);
}

void kl__json_exact(FILE *f, double v) {
  if (isfinite(v)) kl__csv_exact(f, v);
  else fputs("null", f);
}

void kl__json_member(FILE *f, const char *sep, const char *key,
                     const char *s) {
  fprintf(f, "%s\"%s\": ", sep, key);
  kl__json_text(f, s);
}

void kl__json_member_exact(FILE *f, const char *sep, const char *key,
                           double v) {
  fprintf(f, "%s\"%s\": ", sep, key);
  kl__json_exact(f, v);
}

/* ---- text in columns ----------------------------------------------------- */

/* The columns s[0..len) takes: one a character, UTF-8's continuation
 * bytes taking none. */
static int columns_of(const char *s, size_t len) {
  int cols = 0;
  for (size_t i = 0; i < len; i++)
    cols += ((unsigned char)s[i] & 0xC0) != 0x80;
  return cols;
}

/* The bytes of s's first `cols` characters. */
static size_t bytes_of(const char *s, int cols) {
  size_t i = 0;
  for (int c = 0; s[i]; i++) {
    if (((unsigned char)s[i] & 0xC0) != 0x80 && c++ == cols) break;
  }
  return i;
}

int kl__text_columns(const char *s) { return columns_of(s, strlen(s)); }

void kl__cut_text(const char *s, int width, char *dst, size_t size) {
  if (!dst || size == 0) return;
  if (width < 1) width = 1;
  if (kl__text_columns(s) <= width) {
    snprintf(dst, size, "%s", s);
    return;
  }
  snprintf(dst, size, "%.*s~", (int)bytes_of(s, width - 1), s);
}

void kl__wrap_text(FILE *f, const char *text, int width, int indent) {
  if (indent > width / 2) indent = width / 2;
  const char *p = text;
  int first = 1;
  while (*p) {
    const int lead = first ? 0 : indent;
    const int room = width - lead;
    const size_t len = strlen(p);
    size_t take = len;
    if (columns_of(p, len) > room) {
      take = bytes_of(p, room);
      /* The last space within the room breaks the line there (one after
       * the indent of a later line, so that each line moves on); a word
       * longer than the room is broken where the room ends. */
      const size_t text = strspn(p, " ");
      size_t space = take;
      while (space > text && p[space] != ' ') space--;
      if (space > text) take = space;
    }
    size_t end = take;
    while (end > 0 && p[end - 1] == ' ') end--;
    fprintf(f, "%*s%.*s\n", lead, "", (int)end, p);
    p += take;
    while (*p == ' ') p++;
    first = 0;
  }
  if (first) fputc('\n', f);
}

/* ---- machines' and devices' names ---------------------------------------- */

/* w[0..n) less a trademark's mark at its end: "Xeon(R)" is "Xeon". */
static size_t unmarked(const char *w, size_t n) {
  static const char *const marks[] = {"(R)", "(TM)", "(r)", "(tm)"};
  for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
    const size_t m = strlen(marks[i]);
    if (n >= m && memcmp(w + n - m, marks[i], m) == 0) return n - m;
  }
  return n;
}

static int word_is(const char *w, size_t n, const char *const *words,
                   size_t count) {
  for (size_t i = 0; i < count; i++)
    if (n == strlen(words[i]) && memcmp(w, words[i], n) == 0) return 1;
  return 0;
}

/* A maker's name, or a word every CPU's name says. */
static int common_word(const char *w, size_t n) {
  static const char *const words[] = {"NVIDIA", "AMD", "Intel", "CPU",
                                      "Processor", "Corporation"};
  return word_is(w, n, words, sizeof words / sizeof *words);
}

/* s[0..len) appended to dst (*used bytes of size used) as it is. */
static void append_span(const char *s, size_t len, char *dst, size_t size,
                        size_t *used) {
  const size_t n = len < size - 1 - *used ? len : size - 1 - *used;
  memcpy(dst + *used, s, n);
  *used += n;
  dst[*used] = '\0';
}

/* The model in a CPU's or GPU's name s[0..len), appended to dst: its words
 * less the clock, those that name its maker or say what every such name
 * says, and those that carry a trademark's mark ("Intel(R) Xeon(R)
 * Platinum 8480+ CPU @ 2.10GHz" is "Platinum 8480+", "NVIDIA H200"
 * "H200"). Where that leaves nothing, the marked words without their
 * marks too ("Intel(R) Xeon(R) Processor" is "Xeon"); where that does,
 * every word but the clock, unmarked. */
static void model_words(const char *s, size_t len, char *dst, size_t size,
                        size_t *used) {
  const size_t start = *used;
  for (int pass = 0; pass < 3 && *used == start; pass++) {
    for (size_t i = 0; i < len;) {
      while (i < len && s[i] == ' ') i++;
      const size_t w = i;
      while (i < len && s[i] != ' ') i++;
      size_t n = i - w;
      if (n == 0) break;
      if (s[w] == '@') { /* the clock: "@ 2.10GHz" or "@2.10GHz" */
        while (n == 1 && i < len && s[i] == ' ') i++;
        while (n == 1 && i < len && s[i] != ' ') i++;
        continue;
      }
      const size_t bare = unmarked(s + w, n);
      if ((pass == 0 && bare < n) || (pass < 2 && common_word(s + w, bare)))
        continue;
      n = bare;
      if (n == 0 || *used + n + 2 > size) continue;
      if (*used > start) dst[(*used)++] = ' ';
      memcpy(dst + *used, s + w, n);
      *used += n;
    }
  }
  dst[*used] = '\0';
  if (*used == start) append_span(s, len, dst, size, used);
}

void kl__machine_words(const char *name, char *dst, size_t size) {
  if (!dst || size == 0) return;
  size_t used = 0;
  dst[0] = '\0';
  const char *s = name ? name : "";
  /* "P ranks of ": a run under mpirun, a machine of its own; "P ranks, "
   * in front. */
  const size_t digits = strspn(s, "0123456789");
  if (digits > 0 && strncmp(s + digits, " ranks of ", 10) == 0) {
    append_span(s, digits, dst, size, &used);
    append_span(" ranks, ", 8, dst, size, &used);
    s += digits + 10;
  }
  /* "HOST: CPU / GPU" (the history's), "CPU | GPU", or one device's. */
  const char *slash = strstr(s, " / ");
  const char *bar = strstr(s, " | ");
  const char *sep = slash && (!bar || slash < bar) ? slash : bar;
  const size_t head = sep ? (size_t)(sep - s) : strlen(s);
  if (sep && sep[3]) {
    model_words(sep + 3, strlen(sep + 3), dst, size, &used);
    append_span(" / ", 3, dst, size, &used);
  }
  /* A host's name is one word before ": ". */
  const char *colon = memchr(s, ':', head);
  const char *cpu = s;
  if (colon && colon + 1 < s + head && colon[1] == ' ' &&
      !memchr(s, ' ', (size_t)(colon - s))) {
    append_span(s, (size_t)(colon - s) + 2, dst, size, &used);
    cpu = colon + 2;
  }
  model_words(cpu, head - (size_t)(cpu - s), dst, size, &used);
}

void kl__machine_cut(const char *name, int width, char *dst, size_t size) {
  if (!dst || size == 0) return;
  if (width < 1) width = 1;
  if (kl__text_columns(name) <= width) {
    snprintf(dst, size, "%s", name);
    return;
  }
  char words[512];
  kl__machine_words(name, words, sizeof words);
  if (kl__text_columns(words) <= width) {
    snprintf(dst, size, "%s", words);
    return;
  }
  /* Cut, less the separator the cut ends on: "H100 80GB HBM3~", not
   * "H100 80GB HBM3 / ~". */
  size_t end = bytes_of(words, width - 1);
  while (end > 0 && strchr(" /|:,", words[end - 1])) end--;
  snprintf(dst, size, "%.*s~", (int)end, words);
}
