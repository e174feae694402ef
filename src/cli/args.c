/* The command line of every command (args.h). */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int args_error(const char *command, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int code = error_vline(command ? command : "", fmt, ap);
  va_end(ap);
  return code;
}

/* An option's name as given: "--size" (a prefix typed too), or "-n". */
static const char *name_of(const arg_option *o, int as_long, char dst[64]) {
  if (as_long && o->name) snprintf(dst, 64, "--%s", o->name);
  else snprintf(dst, 64, "-%c", o->letter);
  return dst;
}

const char *args_name(const arg_option *o, char dst[64]) {
  return name_of(o, o->given == 'l', dst);
}

/* -h and --help, every command's, after its own options. */
static int help_slot;
static arg_option help_option = {"help", 'h', ARG_FLAG, &help_slot, NULL, 0};

static arg_option *next_of(const args *a, arg_option *o) {
  if (o == &help_option) return NULL;
  o = o ? o + 1 : a->options;
  return o->name || o->letter ? o : &help_option;
}

/* The long option `typed` (after "--", up to '=' or its end) names: the
 * one of that name, else the one it is a prefix of; NULL (reported)
 * where none or several. */
static arg_option *long_option(const args *a, const char *typed, size_t len) {
  arg_option *found = NULL;
  char matches[512] = "";
  int several = 0;
  for (arg_option *o = next_of(a, NULL); o; o = next_of(a, o)) {
    if (!o->name || !len || strncmp(o->name, typed, len) != 0) continue;
    if (!o->name[len]) return o;
    const size_t used = strlen(matches);
    snprintf(matches + used, sizeof matches - used, " --%s", o->name);
    several |= found && found->slot != o->slot;
    found = o;
  }
  if (found && !several) return found;
  char name[SHOWN_BYTES + 4], show[SHOWN_SIZE];
  snprintf(name, sizeof name, "--%.*s",
           (int)(len < SHOWN_BYTES ? len : SHOWN_BYTES + 1), typed);
  if (found)
    args_error(a->command, "option '%s' is ambiguous; possibilities:%s",
               kl__shown(name, show), matches);
  else
    args_error(a->command, "unknown option '%s'", kl__shown(name, show));
  return NULL;
}

/* A list the values of a repeated option add up to: "a,b". */
static int list_add(char **list, const char *items) {
  const size_t len = *list ? strlen(*list) : 0, add = strlen(items);
  char *t = realloc(*list, len + add + 2);
  if (!t) return 0;
  if (len) t[len] = ',';
  memcpy(t + len + (len > 0), items, add + 1);
  *list = t;
  return 1;
}

/* Option o, given as_long or not, with value (NULL: none). */
static int take(args *a, arg_option *o, int as_long, const char *value) {
  char name[64], first[64];
  name_of(o, as_long, name);
  if (o == &help_option) {
    fputs(a->usage, stdout);
    return 0;
  }
  if (o->kind == ARG_FLAG) {
    *(int *)o->slot = 1;
    return -1;
  }
  if (!*value)
    return args_error(a->command, "option '%s' needs a non-empty value", name);
  if (o->kind == ARG_VALUE)
    for (arg_option *e = a->options; e->name || e->letter; e++) {
      if (e->slot != o->slot || !e->given) continue;
      if (e != o)
        return args_error(a->command, "options '%s' and '%s' are one "
                          "option, given twice; it takes one value",
                          args_name(e, first), name);
      return args_error(a->command, "option '%s' given twice; it takes one "
                        "value", name);
    }
  if (!o->given) o->given = as_long ? 'l' : 's';
  int code = o->check ? o->check(a->command, value) : 0;
  if (code) return code;
  if (o->kind == ARG_VALUE) *(const char **)o->slot = value;
  else if (!list_add(o->slot, value)) {
    fputs("kladder: error: out of host memory\n", stderr);
    return 3;
  }
  return -1;
}

int args_parse(args *a, int argc, char **argv) {
  char show[SHOWN_SIZE], name[64];
  int only_operands = 0, code = -1;
  a->count = 0;
  for (int i = 1; i < argc && code < 0; i++) {
    const char *w = argv[i];
    if (only_operands || w[0] != '-' || !w[1]) {
      if (a->count == a->max_operands) {
        if (a->operands_are)
          return args_error(a->command, "unexpected argument '%s'; %s",
                            kl__shown(w, show), a->operands_are);
        return args_error(a->command, "unexpected argument '%s'; %s takes "
                          "options only", kl__shown(w, show), a->command);
      }
      a->operands[a->count++] = w;
    } else if (!strcmp(w, "--")) {
      only_operands = 1;
    } else if (w[1] == '-') {
      const size_t len = strcspn(w + 2, "=");
      arg_option *o = long_option(a, w + 2, len);
      const char *value = w[2 + len] ? w + 3 + len : NULL;
      if (!o) return 2;
      if (o->kind == ARG_FLAG && value)
        return args_error(a->command, "option '%s' takes no value",
                          name_of(o, 1, name));
      if (o->kind != ARG_FLAG && !value && (value = argv[++i]) == NULL)
        return args_error(a->command, "option '%s' needs a value",
                          name_of(o, 1, name));
      code = take(a, o, 1, value);
    } else {
      /* Short options: flags together (-qv), a value after its letter or
       * in the next word. */
      for (const char *p = w + 1; *p && code < 0; p++) {
        arg_option *o = next_of(a, NULL);
        while (o && o->letter != *p) o = next_of(a, o);
        if (!o) {
          const unsigned char c = (unsigned char)*p;
          return args_error(a->command, c > ' ' && c < 0x7f
                                            ? "unknown option '-%c'"
                                            : "unknown option '-\\x%02x'",
                            c);
        }
        const char *value = NULL;
        if (o->kind != ARG_FLAG && !*(value = p + 1) &&
            (value = argv[++i]) == NULL)
          return args_error(a->command, "option '%s' needs a value",
                            name_of(o, 0, name));
        code = take(a, o, 0, value);
        if (value) break;
      }
    }
  }
  return code;
}

int args_count(const char *text, unsigned long long min,
               unsigned long long max, unsigned long long *out) {
  char *end = NULL;
  errno = 0;
  const unsigned long long v = strtoull(text, &end, 10);
  if (errno || end == text || *end || !plain_number(text) || text[0] == '-' ||
      v < min || v > max)
    return 0;
  *out = v;
  return 1;
}

int args_real(const char *text, int percent, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (percent && end != text && end[0] == '%' && !end[1]) v /= 100, end++;
  if (errno || end == text || *end || !plain_number(text) || !isfinite(v))
    return 0;
  *out = v;
  return 1;
}
