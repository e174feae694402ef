/* The command's shared text helpers (text.h). */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include "text.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *shown(const char *arg, char dst[SHOWN_SIZE]) {
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

int usage_error_of(const char *command, const char *fmt, const char *arg) {
  char show[SHOWN_SIZE];
  fprintf(stderr, "kladder: error: %s: ", command);
  fprintf(stderr, fmt, arg ? shown(arg, show) : "");
  fprintf(stderr, " (`kladder %s --help`)\n", command);
  return 2;
}

void one_line(FILE *f, const char *text) {
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\x%02x", *p);
    else fputc(*p, f);
  }
}

void html_escape(FILE *f, const char *s) {
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

int write_file(const char *path, const char *text, size_t len, int shared) {
  const size_t plen = strlen(path);
  char *temp = malloc(plen + 16);
  if (!temp) {
    errno = ENOMEM;
    return -1;
  }
  snprintf(temp, plen + 16, "%s.tmp-XXXXXX", path);
  const int fd = mkstemp(temp);
  if (fd < 0) {
    free(temp);
    return -1;
  }
  FILE *f = fdopen(fd, "wb");
  int ok = f && fwrite(text, 1, len, f) == len;
  if (f) ok = (fclose(f) == 0) && ok;
  else close(fd);
  if (ok && shared) {
    const mode_t mask = umask(0);
    umask(mask);
    ok = chmod(temp, 0666 & ~mask) == 0;
  }
  if (ok) ok = rename(temp, path) == 0;
  if (!ok) {
    const int why = errno;
    remove(temp);
    errno = why;
  }
  free(temp);
  return ok ? 0 : -1;
}

void csv_text(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void exact_number(double v, char *dst, size_t size) {
  if (!dst || size == 0) return;
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(dst, size, "%.*g", digits, v);
    if (strtod(dst, NULL) == v) return;
  }
}

void catch_stop_signals(void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
}
