/* The command's own text helpers (text.h): one-line messages and the
 * signals that stop a command. */
#define _POSIX_C_SOURCE 200809L
#include "text.h"

#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>

void one_line(FILE *f, const char *text) {
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\x%02x", *p);
    else fputc(*p, f);
  }
}

int error_vline(const char *hint_command, const char *fmt, va_list ap) {
  char text[1024];
  vsnprintf(text, sizeof text, fmt, ap);
  fputs("kladder: error: ", stderr);
  one_line(stderr, text);
  if (hint_command)
    fprintf(stderr, " (see `kladder %s%s--help`)", hint_command,
            *hint_command ? " " : "");
  fputc('\n', stderr);
  return 2;
}

int error_line(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int code = error_vline(NULL, fmt, ap);
  va_end(ap);
  return code;
}

void catch_stop_signals(void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
}

int plain_number(const char *s) {
  if (*s == '+' || *s == '-') s++;
  const unsigned char first = (unsigned char)s[0];
  if (!isdigit(first) && !(first == '.' && isdigit((unsigned char)s[1])))
    return 0;
  return strpbrk(s, "xX") == NULL;
}
