#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static _Thread_local char last_error[512];

static const char *const status_names[] = {
#define KL_STATUS_NAME(name, exit_code, text) text,
    KL_STATUS_MAP(KL_STATUS_NAME)
#undef KL_STATUS_NAME
};

static const int exit_codes[] = {
#define KL_STATUS_EXIT(name, exit_code, text) exit_code,
    KL_STATUS_MAP(KL_STATUS_EXIT)
#undef KL_STATUS_EXIT
};

const char *kl_status_name(kl_status s) {
  if ((int)s < 0 || s >= KL_STATUS_COUNT) return "unknown status";
  return status_names[s];
}

int kl_exit_code(kl_status s) {
  if ((int)s < 0 || s >= KL_STATUS_COUNT) return 3;
  return exit_codes[s];
}

const char *kl_last_error(void) { return last_error; }

kl_status kl__done(kl_status s) {
  if (s == KL_OK) last_error[0] = '\0';
  return s;
}

kl_status kl__fail_at(kl_status s, const char *file, int line,
                      const char *fmt, ...) {
  /* Keep only the path below src/ so that messages do not carry the
   * build machine's directories. */
  const char *short_file = strstr(file, "src/");
  int len = snprintf(last_error, sizeof last_error, "%s:%d: ",
                     short_file ? short_file : file, line);
  if (len < 0 || (size_t)len >= sizeof last_error) return s;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error + len, sizeof last_error - (size_t)len, fmt, ap);
  va_end(ap);
  return s;
}

const char *kl__ellipsis(const char *text) {
  return strlen(text) > KL_CLIP_BYTES ? "..." : "";
}

kl_status kl__usage(kl_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return s;
}

static const char *const type_names[] = {
#define KL_TYPE_NAME(name, text, size) text,
    KL_TYPE_MAP(KL_TYPE_NAME)
#undef KL_TYPE_NAME
};

static const size_t type_sizes[] = {
#define KL_TYPE_SIZE(name, text, size) size,
    KL_TYPE_MAP(KL_TYPE_SIZE)
#undef KL_TYPE_SIZE
};

static const char *const placement_names[] = {
#define KL_PLACEMENT_NAME(name, text) text,
    KL_PLACEMENT_MAP(KL_PLACEMENT_NAME)
#undef KL_PLACEMENT_NAME
};

const char *kl_placement_name(kl_placement p) {
  if ((int)p < 0 || p >= KL_PLACEMENT_COUNT) return "(not a placement)";
  return placement_names[p];
}

const char *kl_type_name(kl_type t) {
  if (t == KL_TYPE_DEFAULT) return "default";
  if ((int)t < 0 || t >= KL_TYPE_COUNT) return "(not a type)";
  return type_names[t];
}

size_t kl_type_size(kl_type t) {
  if ((int)t < 0 || t >= KL_TYPE_COUNT) return 0;
  return type_sizes[t];
}

static kl_status parse_type(const char *name, kl_type *out) {
  for (int t = 0; t < KL_TYPE_COUNT; t++) {
    if (strcmp(name, type_names[t]) == 0) {
      *out = (kl_type)t;
      return KL_OK;
    }
  }
  char valid[128] = "";
  for (int t = 0; t < KL_TYPE_COUNT; t++) {
    size_t used = strlen(valid);
    snprintf(valid + used, sizeof valid - used, "%s%s", t ? ", " : "",
             type_names[t]);
  }
  return kl__usage(KL_USAGE, "unknown type " KL_Q "; valid: %s",
                   KL_CLIP(name), valid);
}

kl_status kl_type_parse(const char *name, kl_type *out) {
  return kl__done(parse_type(name, out));
}

static kl_status parse_size(const char *text, int64_t *out) {
  if (text == NULL || *text == '\0')
    return kl__usage(KL_USAGE, "size is empty; give a positive integer");
  const char *p = text;
  if (*p == '-')
    return kl__usage(KL_USAGE, "size " KL_Q " is negative; give a positive "
                     "integer", KL_CLIP(text));
  if (*p == '+') p++;
  if (*p < '0' || *p > '9')
    return kl__usage(KL_USAGE, "size " KL_Q " is not a number",
                     KL_CLIP(text));
  int64_t value = 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    int digit = *p - '0';
    if (value > (INT64_MAX - digit) / 10)
      return kl__usage(KL_TOO_LARGE, "size " KL_Q " is too large",
                       KL_CLIP(text));
    value = value * 10 + digit;
  }
  int shift = 0;
  if (*p == 'K' || *p == 'k') shift = 10, p++;
  else if (*p == 'M' || *p == 'm') shift = 20, p++;
  else if (*p == 'G' || *p == 'g') shift = 30, p++;
  if (*p != '\0')
    return kl__usage(KL_USAGE,
                     "size " KL_Q " is not a number (digits, then K, M or "
                     "G)", KL_CLIP(text));
  if (value == 0)
    return kl__usage(KL_USAGE, "size " KL_Q " is zero; give a positive integer",
                     KL_CLIP(text));
  if (value > (INT64_MAX >> shift))
    return kl__usage(KL_TOO_LARGE, "size " KL_Q " is too large",
                       KL_CLIP(text));
  *out = value << shift;
  return KL_OK;
}

kl_status kl_parse_size(const char *text, int64_t *out) {
  return kl__done(parse_size(text, out));
}

const char *kl__parse_real(const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0') return "is not a number";
  if (!isfinite(v) && errno != ERANGE) return "is not a finite number";
  /* An underflow is the nearest double, subnormal or zero, as Python and
   * NumPy read it; an overflow is out of range. */
  if (errno == ERANGE && fabs(v) > 1.0)
    return "is beyond the range of a double (about 1.8e308)";
  *out = v;
  return NULL;
}

/* Split text at sep into at most KL_MAX_DIMS items of under 64 characters;
 * the item count, or -1 when there are too many or one is too long. */
static int split(const char *text, char sep, char items[][64]) {
  int count = 0;
  for (const char *p = text;; count++) {
    const char *end = strchr(p, sep);
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (count == KL_MAX_DIMS || len >= 64) return -1;
    memcpy(items[count], p, len);
    items[count][len] = '\0';
    if (!end) return count + 1;
    p = end + 1;
  }
}

/* Positive sizes separated by sep into out[i], an empty item leaving
 * out[i] as it is when skip_empty. 0 when all parsed; -1 when the list is
 * malformed; else the 1-based index of the first bad item, its status in
 * *st. */
static int parse_sizes(const char *text, char sep, int skip_empty,
                       int64_t *out, kl_status *st) {
  char items[KL_MAX_DIMS][64];
  int count = text ? split(text, sep, items) : -1;
  if (count < 0) return -1;
  for (int i = 0; i < count; i++) {
    if (skip_empty && !items[i][0]) continue;
    *st = kl_parse_size(items[i], &out[i]);
    if (*st != KL_OK) return i + 1;
  }
  return 0;
}

static kl_status parse_dims(const char *text, kl_shape *s) {
  kl_status st = KL_OK;
  int bad = parse_sizes(text, 'x', 0, s->dims, &st);
  if (bad < 0)
    return kl__usage(KL_USAGE, "shape " KL_Q " is not MxNxK (at most %d "
                     "extents)", KL_CLIP(text ? text : ""), KL_MAX_DIMS);
  if (bad)
    return kl__usage(st, "shape " KL_Q ": extent %d is not a positive integer",
                     KL_CLIP(text), bad);
  return KL_OK;
}

kl_status kl__shape_parse_dims(const char *text, kl_shape *s) {
  return kl__done(parse_dims(text, s));
}

static kl_status parse_leads(const char *text, kl_shape *s) {
  kl_status st = KL_OK;
  int bad = parse_sizes(text, ',', 1, s->lead, &st);
  if (bad < 0)
    return kl__usage(KL_USAGE, "leading dimensions " KL_Q " are not "
                     "LDA,LDB,LDC", KL_CLIP(text ? text : ""));
  if (bad)
    return kl__usage(st, "leading dimension %d in " KL_Q " is not a "
                     "positive integer", bad, KL_CLIP(text));
  return KL_OK;
}

kl_status kl__shape_parse_leads(const char *text, kl_shape *s) {
  return kl__done(parse_leads(text, s));
}

static kl_status parse_scalars(const char *text, kl_shape *s) {
  char items[KL_MAX_DIMS][64];
  int count = text ? split(text, ',', items) : -1;
  if (count < 0)
    return kl__usage(KL_USAGE, "scalars " KL_Q " are not a comma-separated "
                     "list", KL_CLIP(text ? text : ""));
  for (int i = 0; i < count; i++) {
    if (!items[i][0]) continue;
    double v;
    const char *why = kl__parse_real(items[i], &v);
    if (why)
      return kl__usage(KL_USAGE, "scalar " KL_Q " in " KL_Q " %s",
                       KL_CLIP(items[i]), KL_CLIP(text), why);
    s->scalars[i] = v;
    s->scalars_set |= 1ull << i;
  }
  return KL_OK;
}

kl_status kl__shape_parse_scalars(const char *text, kl_shape *s) {
  return kl__done(parse_scalars(text, s));
}
