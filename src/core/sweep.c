/* Sweeps: the text of a list of values and ranges ("1K,64K,1M",
 * "1K..256M:x4", "8..64:+8", or a mix) expanded into the values a run
 * takes one by one: kl_options.sizes (`kladder run -n`) and a parameter's
 * list in kl_options.params (`-p NAME=a,b,c`). The values are parsed by
 * the caller's parser (a size, a parameter's own kind); this file knows
 * the grammar alone. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The most points a geometric range of whole numbers may pass through
 * before its distinct values are counted (rounding makes the first ones
 * of 1..100:x1.05 equal). */
#define RANGE_STEPS 4096

/* One item of a list, as a string. */
#define ITEM_BYTES 128

static kl_status add_value(const kl__sweep_of *of, const char *text,
                           const char *item, double v, double *out,
                           size_t max, size_t *count) {
  for (size_t i = 0; i < *count; i++)
    if (out[i] == v)
      return kl__usage(KL_USAGE, "%s list " KL_Q " has %.17g twice (item "
                       KL_Q ")", of->what, KL_CLIP(text), v, KL_CLIP(item));
  if (*count == max)
    return kl__usage(KL_USAGE, "%s list " KL_Q " has more than %zu values "
                     "(a sweep runs at most %d points)", of->what,
                     KL_CLIP(text), max, KL_MAX_SWEEP);
  out[(*count)++] = v;
  return KL_OK;
}

/* A range LO..HI:xF (LO, LO*F, LO*F^2, ... while at most HI; F above 1)
 * or LO..HI:+S (LO, LO+S, ... while at most HI; S above 0). Whole-number
 * points are rounded, and a point that rounds to the one before it is
 * left out. */
static kl_status add_range(const kl__sweep_of *of, const char *text,
                           const char *item, const char *dots, double *out,
                           size_t max, size_t *count) {
  char lo_text[ITEM_BYTES], hi_text[ITEM_BYTES];
  const char *colon = strchr(dots + 2, ':');
  if (!of->ranges)
    return kl__usage(KL_USAGE, "%s takes no range " KL_Q ": its values are "
                     "names; list them", of->what, KL_CLIP(item));
  if (!colon)
    return kl__usage(KL_USAGE, "%s range " KL_Q " needs a step: LO..HI:xF "
                     "(times F) or LO..HI:+S (plus S)", of->what,
                     KL_CLIP(item));
  const size_t lo_len = (size_t)(dots - item),
               hi_len = (size_t)(colon - (dots + 2));
  if (lo_len == 0 || hi_len == 0)
    return kl__usage(KL_USAGE, "%s range " KL_Q " is not LO..HI:xF or "
                     "LO..HI:+S", of->what, KL_CLIP(item));
  snprintf(lo_text, sizeof lo_text, "%.*s", (int)lo_len, item);
  snprintf(hi_text, sizeof hi_text, "%.*s", (int)hi_len, dots + 2);
  double lo = 0, hi = 0;
  kl_status st = of->parse(of->ctx, lo_text, &lo);
  if (st == KL_OK) st = of->parse(of->ctx, hi_text, &hi);
  if (st != KL_OK) return st;
  if (lo > hi)
    return kl__usage(KL_USAGE, "%s range " KL_Q " runs down: %s is above %s",
                     of->what, KL_CLIP(item), lo_text, hi_text);
  const char *step = colon + 1;
  const int times = step[0] == 'x' || step[0] == '*';
  double by = 0;
  if (!times && step[0] != '+')
    return kl__usage(KL_USAGE, "%s range " KL_Q ": the step " KL_Q " is not "
                     "xF (times F) or +S (plus S)", of->what, KL_CLIP(item),
                     KL_CLIP(step));
  if (times || !of->integer) {
    const char *why = kl__parse_real(step + 1, &by);
    if (why)
      return kl__usage(KL_USAGE, "%s range " KL_Q ": the %s " KL_Q " %s",
                       of->what, KL_CLIP(item), times ? "factor" : "step",
                       KL_CLIP(step + 1), why);
  } else {
    int64_t whole = 0; /* a whole step: digits with K, M or G */
    st = kl_parse_size(step + 1, &whole);
    if (st != KL_OK)
      return kl__usage(KL_USAGE, "%s range " KL_Q ": the step " KL_Q " is "
                       "not a positive whole number", of->what,
                       KL_CLIP(item), KL_CLIP(step + 1));
    by = (double)whole;
  }
  if (times && !(by > 1))
    return kl__usage(KL_USAGE, "%s range " KL_Q ": the factor must be above "
                     "1", of->what, KL_CLIP(item));
  if (!times && !(by > 0))
    return kl__usage(KL_USAGE, "%s range " KL_Q ": the step must be above "
                     "0", of->what, KL_CLIP(item));
  if (times && !(lo > 0))
    return kl__usage(KL_USAGE, "%s range " KL_Q ": a range by a factor "
                     "starts above 0", of->what, KL_CLIP(item));
  /* Rounding error must neither drop HI nor add a point past it. */
  const double slack = times ? hi * 1e-9 : by * 1e-9;
  double last = 0;
  int any = 0;
  for (int k = 0;; k++) {
    if (k == RANGE_STEPS)
      return kl__usage(KL_USAGE, "%s range " KL_Q " has more than %zu "
                       "values (a sweep runs at most %d points)", of->what,
                       KL_CLIP(item), max, KL_MAX_SWEEP);
    double v = times ? lo * pow(by, k) : lo + by * k;
    if (!(v <= hi + slack)) break;
    if (v > hi) v = hi;
    /* Whole numbers rounded; reals to 15 digits, so that 0.1..0.5:+0.1
     * passes 0.3, not 0.30000000000000004. */
    if (of->integer) {
      v = round(v);
    } else {
      char digits[32];
      snprintf(digits, sizeof digits, "%.15g", v);
      v = strtod(digits, NULL);
    }
    if (any && v == last) continue;
    st = add_value(of, text, item, v, out, max, count);
    if (st != KL_OK) return st;
    last = v;
    any = 1;
  }
  return KL_OK;
}

kl_status kl__sweep_values(const kl__sweep_of *of, const char *text,
                           double *out, size_t max, size_t *count) {
  *count = 0;
  if (!text || !*text)
    return kl__usage(KL_USAGE, "%s list is empty", of->what);
  for (const char *p = text; p;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    char item[ITEM_BYTES];
    if (len == 0)
      return kl__usage(KL_USAGE, "%s list " KL_Q " has an empty item",
                       of->what, KL_CLIP(text));
    if (len >= sizeof item)
      return kl__usage(KL_USAGE, "%s list " KL_Q ": an item is too long",
                       of->what, KL_CLIP(text));
    memcpy(item, p, len);
    item[len] = '\0';
    p = end ? end + 1 : NULL;
    const char *dots = strstr(item, "..");
    kl_status st;
    if (dots) {
      st = add_range(of, text, item, dots, out, max, count);
    } else {
      double v = 0;
      st = of->parse(of->ctx, item, &v);
      if (st == KL_OK) st = add_value(of, text, item, v, out, max, count);
    }
    if (st != KL_OK) return st;
  }
  return KL_OK;
}

static kl_status parse_one_size(void *ctx, const char *text, double *value) {
  (void)ctx;
  int64_t n = 0;
  kl_status st = kl_parse_size(text, &n);
  if (st == KL_OK) *value = (double)n;
  return st;
}

kl_status kl__sweep_sizes(const char *text, double *out, size_t max,
                          size_t *count) {
  const kl__sweep_of of = {"size", 1, 1, parse_one_size, NULL};
  return kl__sweep_values(&of, text, out, max, count);
}

static kl_status parse_sizes(const char *text, int64_t *out, size_t max,
                             size_t *count) {
  if (!count || (!out && max > 0))
    return kl__usage(KL_USAGE, "kl__parse_sizes: out or count is NULL");
  *count = 0;
  double values[KL_MAX_SWEEP];
  size_t got = 0;
  kl_status st = kl__sweep_sizes(text, values,
                                 max < KL_MAX_SWEEP ? max : KL_MAX_SWEEP,
                                 &got);
  if (st != KL_OK) return st;
  for (size_t i = 0; i < got; i++) /* 2^63 is past int64_t */
    out[i] = values[i] < 9223372036854775807.0 ? (int64_t)values[i]
                                               : INT64_MAX;
  *count = got;
  return KL_OK;
}

kl_status kl__parse_sizes(const char *text, int64_t *out, size_t max,
                         size_t *count) {
  return kl__done(parse_sizes(text, out, max, count));
}
