/* Parameters: from the options, -p text and a kl_problem to an instance,
 * from an instance to a plan, and back to text for the reports; and the
 * name patterns that select workloads, backends and rungs. */
#define _POSIX_C_SOURCE 200809L /* fnmatch */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

void kl__append(char *dst, size_t size, const char *fmt, ...) {
  size_t used = strlen(dst);
  if (used >= size) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst + used, size - used, fmt, ap);
  va_end(ap);
}

static const char *label_of(const kl_param *p) {
  return p->label ? p->label : p->name;
}

void kl_param_text(const kl_param *p, double value, char *dst, size_t size) {
  if (p->kind == KL_PARAM_CHOICE) {
    size_t count = 0;
    while (p->choices && p->choices[count]) count++;
    snprintf(dst, size, "%s",
             value >= 0 && (size_t)value < count ? p->choices[(size_t)value]
                                                 : "?");
  } else if (p->kind == KL_PARAM_REAL) {
    /* The fewest digits, 15 to 17, that read back exactly: 0.1, not
     * 0.10000000000000001. */
    char text[32];
    for (int digits = 15; digits <= 17; digits++) {
      snprintf(text, sizeof text, "%.*g", digits, value);
      if (strtod(text, NULL) == value) break;
    }
    snprintf(dst, size, "%s", text);
  } else if (value > -0x1p63 && value < 0x1p63) {
    snprintf(dst, size, "%lld", (long long)value);
  } else {
    snprintf(dst, size, "%.17g", value); /* past every int64 */
  }
}

/* KL_OK where v lies in p's range; else why not (a size too large is
 * KL_TOO_LARGE), naming the value as the user wrote it where `written`
 * is given. */
static kl_status check_range(const kl_workload *w, const kl_param *p,
                             double v, const char *written) {
  if (p->kind == KL_PARAM_CHOICE || (v >= p->min && v <= p->max)) return KL_OK;
  char text[32], lo[32], hi[32];
  if (written) snprintf(text, sizeof text, "%s", written);
  else kl_param_text(p, v, text, sizeof text);
  kl_param_text(p, p->min, lo, sizeof lo);
  kl_param_text(p, p->max, hi, sizeof hi);
  return kl__usage(v > p->max && p->kind == KL_PARAM_SIZE ? KL_TOO_LARGE
                                                          : KL_USAGE,
                   "%s: %s = %s is outside [%s, %s]", w->name, p->name, text,
                   lo, hi);
}

/* A whole number for parameter p (-n, a file's size, an integer -p),
 * compared with its range exactly (as a double, 2^62 + 1 would pass for
 * 2^62; a bound at or past 2^63 is past every int64) and named as written
 * (`written`, or n's digits where NULL) where it is outside. */
static kl_status check_whole(const kl_workload *w, const kl_param *p,
                             int64_t n, const char *written) {
  const int above = p->max < 0x1p63 && n > (int64_t)p->max;
  const int below = p->min > -0x1p63 && n < (int64_t)p->min;
  if (!above && !below) return KL_OK;
  char text[32];
  if (!written) snprintf(text, sizeof text, "%lld", (long long)n);
  return check_range(w, p, above ? INFINITY : -INFINITY,
                     written ? written : text);
}

/* Parse one value of parameter p of workload w. */
static kl_status parse_value(const kl_workload *w, const kl_param *p,
                             const char *text, double *value) {
  if (p->kind == KL_PARAM_CHOICE) {
    char valid[256] = "";
    for (size_t i = 0; p->choices && p->choices[i]; i++) {
      if (strcmp(p->choices[i], text) == 0) {
        *value = (double)i;
        return KL_OK;
      }
      kl__append(valid, sizeof valid, "%s%s", i ? ", " : "", p->choices[i]);
    }
    return kl__usage(KL_USAGE, "unknown %s " KL_Q " for %s; valid: %s",
                     label_of(p), KL_CLIP(text), w->name, valid);
  }
  double v = 0;
  /* An integer is held exactly until it is compared with the range. */
  int64_t whole = 0;
  const int integer = p->kind == KL_PARAM_SIZE || p->kind == KL_PARAM_INT;
  if (p->kind == KL_PARAM_SIZE) {
    kl_status st = kl_parse_size(text, &whole);
    if (st != KL_OK) {
      char why[256];
      snprintf(why, sizeof why, "%s", kl_last_error());
      return kl__usage(st, "%s: %s: %s", w->name, p->name, why);
    }
    v = (double)whole;
  } else {
    const char *why = NULL;
    if (p->kind == KL_PARAM_INT) {
      char *end = NULL;
      errno = 0;
      whole = strtoll(text, &end, 10);
      v = (double)whole;
      if (end == text || *end != '\0') why = "is not an integer";
      else if (errno == ERANGE) why = "is beyond the range of a 64-bit integer";
    } else {
      why = kl__parse_real(text, &v);
    }
    if (why)
      return kl__usage(KL_USAGE, "%s: %s = " KL_Q " %s", w->name, p->name,
                       KL_CLIP(text), why);
  }
  kl_status st = integer ? check_whole(w, p, whole, text) : KL_OK;
  if (st == KL_OK) st = check_range(w, p, v, text);
  if (st == KL_OK) *value = v;
  return st;
}

kl_status kl__param_value(const kl_workload *w, int i, const char *text,
                          double *value) {
  return parse_value(w, &w->params[i], text, value);
}

/* Parameter i is given: the main size also sets n. */
static void give(const kl_workload *w, kl__instance *in, int i, double v) {
  /* The same parameter set twice to different values, by -p and by an
   * alias of it (-n, -s, --op, ...): refused once all are applied. */
  if ((in->given >> i & 1) && in->value[i] != v && !in->conflict) {
    in->conflict = i + 1;
    in->conflict_values[0] = in->value[i];
    in->conflict_values[1] = v;
  }
  in->value[i] = v;
  in->given |= 1ull << i;
  if (w->params[i].flags & KL_PARAM_MAIN_SIZE) {
    in->n = (int64_t)v;
    in->n_given = 1;
  }
}

static kl_status check_conflict(const kl_workload *w, const kl__instance *in) {
  if (!in->conflict) return KL_OK;
  const kl_param *p = &w->params[in->conflict - 1];
  char first[32], second[32];
  kl_param_text(p, in->conflict_values[0], first, sizeof first);
  kl_param_text(p, in->conflict_values[1], second, sizeof second);
  return kl__usage(KL_USAGE, "%s: %s given twice, as %s and as %s (by -p "
                   "and by an option that sets it: -n, -s, --ld, --alpha, "
                   "--beta, --scalars, --op or --inputs)", w->name, p->name,
                   first, second);
}

/* ---- -p text: parameters, each with one value or a sweep's list ----------
 * "NAME=VALUE[,NAME=VALUE...]", where an item without '=' continues the
 * list of the parameter before it: "nx=8,16,hx=1" is nx 8 and 16, hx 1.
 * Its points are the cross product of the lists, the last parameter
 * varying fastest. */

/* One parameter of a -p text: its name and the text of its values. */
typedef struct param_text {
  char name[256];
  char values[2048];
} param_text;

/* The parameter at *at, and *at moved past its values (NULL at the
 * end). */
static kl_status next_param(const char **at, param_text *pt) {
  const char *p = *at;
  const char *end = strchr(p, ',');
  size_t len = end ? (size_t)(end - p) : strlen(p);
  char item[256];
  if (len >= sizeof item)
    return kl__usage(KL_USAGE, "parameter " KL_Q " is too long", KL_CLIP(p));
  memcpy(item, p, len);
  item[len] = '\0';
  char *eq = strchr(item, '=');
  if (!eq || eq == item || !eq[1])
    return kl__usage(KL_USAGE, "parameter " KL_Q " is not NAME=VALUE",
                     KL_CLIP(item));
  *eq = '\0';
  snprintf(pt->name, sizeof pt->name, "%s", item);
  snprintf(pt->values, sizeof pt->values, "%s", eq + 1);
  size_t used = strlen(pt->values);
  for (p = end ? end + 1 : NULL; p; p = end ? end + 1 : NULL) {
    end = strchr(p, ',');
    len = end ? (size_t)(end - p) : strlen(p);
    if (memchr(p, '=', len)) break; /* the next parameter */
    if (used + 1 + len >= sizeof pt->values)
      return kl__usage(KL_USAGE, "parameter %s: its list is too long "
                       "(over %zu bytes)", pt->name, sizeof pt->values - 1);
    pt->values[used++] = ',';
    memcpy(pt->values + used, p, len);
    used += len;
    pt->values[used] = '\0';
  }
  *at = p;
  return KL_OK;
}

typedef struct value_of {
  const kl_workload *w;
  const kl_param *p;
} value_of;

static kl_status parse_one(void *ctx, const char *text, double *value) {
  const value_of *of = ctx;
  return parse_value(of->w, of->p, text, value);
}

/* The values of parameter i of w in a list's text: one, or a sweep's. */
static kl_status param_values(const kl_workload *w, int i, const char *text,
                              double *values, size_t *count) {
  const kl_param *p = &w->params[i];
  value_of ctx = {w, p};
  char what[160];
  snprintf(what, sizeof what, "%s: %s", w->name, p->name);
  const kl__sweep_of of = {what, p->kind != KL_PARAM_REAL,
                           p->kind != KL_PARAM_CHOICE, parse_one, &ctx};
  return kl__sweep_values(&of, text, values, KL_MAX_SWEEP, count);
}

/* The points of a -p text for w: the product of its parameters' value
 * counts (at most KL_MAX_SWEEP + 1: more is too many), and in `what` the
 * lists' lengths ("8 values of nx x 3 values of hx"). A name w lacks
 * counts one: apply_params says what becomes of it. A parameter with a
 * list may be given once. */
static kl_status param_points(const kl_workload *w, const char *text,
                              size_t *points, char *what, size_t what_size) {
  *points = 1;
  what[0] = '\0';
  if (!text) return KL_OK;
  if (!*text) return kl__usage(KL_USAGE, "empty parameter list");
  uint64_t seen = 0, listed = 0;
  double values[KL_MAX_SWEEP];
  param_text pt;
  for (const char *p = text; p;) {
    kl_status st = next_param(&p, &pt);
    if (st != KL_OK) return st;
    const int i = kl_param_index(w, pt.name);
    if (i < 0) continue;
    size_t count = 0;
    st = param_values(w, i, pt.values, values, &count);
    if (st != KL_OK) return st;
    const uint64_t bit = 1ull << i;
    if ((seen & bit) && (count > 1 || (listed & bit)))
      return kl__usage(KL_USAGE, "%s: %s is given twice, once as a list",
                       w->name, pt.name);
    seen |= bit;
    if (count == 1) continue;
    listed |= bit;
    kl__append(what, what_size, "%s%zu values of %s", what[0] ? " x " : "",
               count, pt.name);
    *points *= count;
    if (*points > KL_MAX_SWEEP) *points = KL_MAX_SWEEP + 1;
  }
  return KL_OK;
}

/* Apply a -p text's point `point` (of `points`, param_points') to an
 * instance. An unknown name is a usage error where `named`, else
 * KL_UNAVAILABLE with a note. */
static kl_status apply_params(const kl_workload *w, const char *text,
                              int named, kl__instance *in, char *note,
                              size_t note_size, size_t point, size_t points) {
  if (!text) return KL_OK;
  if (!*text) return kl__usage(KL_USAGE, "empty parameter list");
  double values[KL_MAX_SWEEP];
  size_t stride = points ? points : 1; /* of the lists still to come */
  param_text pt;
  for (const char *p = text; p;) {
    kl_status st = next_param(&p, &pt);
    if (st != KL_OK) return st;
    int i = kl_param_index(w, pt.name);
    if (i < 0) {
      if (named) {
        char valid[256] = "";
        for (int k = 0; k < w->param_count; k++)
          kl__append(valid, sizeof valid, "%s%s", k ? ", " : "",
                     w->params[k].name);
        return kl__usage(KL_USAGE, "workload %s has no parameter %s; valid: "
                         "%s", w->name, pt.name, valid);
      }
      kl__append(note, note_size, "%s: skipped, it has no parameter %s. ",
                 w->name, pt.name);
      return KL_UNAVAILABLE;
    }
    size_t count = 0;
    st = param_values(w, i, pt.values, values, &count);
    if (st != KL_OK) return st;
    stride /= count;
    give(w, in, i, values[point / (stride ? stride : 1) % count]);
  }
  return KL_OK;
}

/* The i-th parameter with flag, or -1. */
static int nth_with(const kl_workload *w, unsigned flag, int nth) {
  for (int i = 0; i < w->param_count; i++)
    if ((w->params[i].flags & flag) && nth-- == 0) return i;
  return -1;
}

static int count_with(const kl_workload *w, unsigned flag) {
  int count = 0;
  for (int i = 0; i < w->param_count; i++)
    count += (w->params[i].flags & flag) != 0;
  return count;
}

/* The positional groups applied; where the workload has fewer parameters
 * in a group than were given, what it has, in words ("no shape", "only 3
 * extents"), and nothing applied. */
static int shape_misfit(int have, int given_index, const char *none,
                        const char *what, char *why, size_t why_size) {
  if (given_index < have) return 0;
  if (have == 0) snprintf(why, why_size, "has no %s", none);
  else snprintf(why, why_size, "takes at most %d %s", have, what);
  return 1;
}

static int apply_shape(const kl_workload *w, const kl_shape *s,
                       kl__instance *in, char *why, size_t why_size) {
  const int extents = count_with(w, KL_PARAM_EXTENT),
            leads = count_with(w, KL_PARAM_LEAD),
            scalars = count_with(w, KL_PARAM_SCALAR);
  for (int i = 0; i < KL_MAX_DIMS; i++) {
    if (s->dims[i] &&
        shape_misfit(extents, i, "shape", "extents", why, why_size))
      return 0;
    if (s->lead[i] && shape_misfit(leads, i, "leading dimensions",
                                   "leading dimensions", why, why_size))
      return 0;
    if ((s->scalars_set >> i & 1) &&
        shape_misfit(scalars, i, "scalars", "scalars", why, why_size))
      return 0;
  }
  for (int i = 0; i < KL_MAX_DIMS; i++) {
    if (s->dims[i]) give(w, in, nth_with(w, KL_PARAM_EXTENT, i), (double)s->dims[i]);
    if (s->lead[i]) give(w, in, nth_with(w, KL_PARAM_LEAD, i), (double)s->lead[i]);
    if (s->scalars_set >> i & 1)
      give(w, in, nth_with(w, KL_PARAM_SCALAR, i), s->scalars[i]);
  }
  return 1;
}

/* Every given value within its parameter's range (-n and the positional
 * groups set them unchecked). */
static kl_status check_ranges(const kl_workload *w, const kl__instance *in) {
  for (int i = 0; i < w->param_count; i++) {
    kl_status st = in->given >> i & 1
                       ? check_range(w, &w->params[i], in->value[i], NULL)
                       : KL_OK;
    if (st != KL_OK) return st;
  }
  return KL_OK;
}

/* --op and --inputs: the parameter with that role. */
static kl_status apply_role(const kl_workload *w, unsigned flag,
                            const char *what, const char *value, int named,
                            kl__instance *in, char *note, size_t note_size) {
  if (!value) return KL_OK;
  int i = kl__param_with(w, flag);
  if (i < 0) {
    if (named)
      return kl__usage(KL_USAGE, "workload %s has no %s %s", w->name, what,
                       value);
    kl__append(note, note_size, "%s: skipped, it has no %s %s. ", w->name,
               what, value);
    return KL_UNAVAILABLE;
  }
  double v;
  kl_status st = parse_value(w, &w->params[i], value, &v);
  if (st == KL_OK) give(w, in, i, v);
  return st;
}

/* An input file: n is its size, so that neither the main size nor the
 * input pattern may be given too. A workload that takes none is an error
 * where `named`, else skipped with a note. */
static kl_status apply_input(const kl_workload *w, const char *path,
                             int named, kl__instance *in, char *note,
                             size_t note_size) {
  if (!path) return KL_OK;
  if (!w->input) {
    if (named)
      return kl__usage(KL_USAGE, "workload %s takes no input file (--input)",
                       w->name);
    kl__append(note, note_size, "%s: skipped, it takes no input file. ",
               w->name);
    return KL_UNAVAILABLE;
  }
  const int main = kl__param_with(w, KL_PARAM_MAIN_SIZE),
            pattern = kl__param_with(w, KL_PARAM_INPUTS);
  if (in->n_given)
    return kl__usage(KL_USAGE, "%s: n is the size of the input file; give "
                     "--input or the size (-n, -p n=), not both", w->name);
  if (pattern >= 0 && (in->given >> pattern & 1))
    return kl__usage(KL_USAGE, "%s: an input file has no %s; give --input "
                     "or --inputs, not both", w->name,
                     label_of(&w->params[pattern]));
  int64_t size = 0;
  kl_status st = kl__input_size(path, &size);
  if (st == KL_OK && w->input->size) st = w->input->size(path, &size);
  if (st != KL_OK) return st;
  in->input_file = path;
  in->n = size;
  in->n_given = 1;
  if (main >= 0) {
    st = check_whole(w, &w->params[main], size, NULL);
    if (st != KL_OK) return st;
    give(w, in, main, (double)size);
  }
  return check_ranges(w, in);
}

int kl__is_pattern(const char *item) {
  return item[0] == '!' || strpbrk(item, "*?[") != NULL;
}

int kl__matches(const char *pattern, const char *name) {
  if (pattern[0] == '!') pattern++;
  return fnmatch(pattern, name, 0) == 0;
}

int kl__selects(const char *list, const char *name) {
  return kl__selects_by_name(list, name, 1);
}

int kl__selects_by_name(const char *list, const char *name, int by_default) {
  if (!list) return by_default;
  int includes = 0, included = 0;
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    char item[128];
    if (len > 0 && len < sizeof item) {
      memcpy(item, p, len);
      item[len] = '\0';
      if (item[0] == '!') {
        if (kl__matches(item, name)) return 0; /* excluded */
      } else {
        includes++;
        included |= kl__matches(item, name);
      }
    }
    p = end ? end + 1 : NULL;
  }
  return (includes == 0 && by_default) || included;
}

kl_status kl__instance_from_options(const kl_options *o, const kl_workload *w,
                                    size_t point, size_t *points,
                                    kl__instance *in, int named, char *note,
                                    size_t note_size) {
  if (points) *points = 1;
  memset(in, 0, sizeof *in);
  in->seed = o->seed;
  in->quick = !o->full;
  /* Over several ranks a distributed workload splits one problem; any
   * other runs a copy per rank, which strong scaling has no meaning for. */
  if (kl__ranks_count(o->ranks) > 1) {
    const char *why = NULL;
    if (w->distributed && !kl__ranks_distributes(o->ranks))
      why = "is distributed, and kl_options.ranks lacks its collectives "
            "(allreduce, exchange)";
    else if (!w->distributed && o->scaling == KL_SCALING_STRONG)
      why = "runs a copy per rank: strong scaling is for the distributed "
            "workloads";
    if (why && named) return kl__usage(KL_USAGE, "%s %s", w->name, why);
    if (why) {
      kl__append(note, note_size, "%s: skipped, it %s. ", w->name, why);
      return KL_UNAVAILABLE;
    }
    if (w->distributed) {
      in->ranks = o->ranks;
      in->strong = o->scaling == KL_SCALING_STRONG;
    }
  }
  in->type = o->type == KL_TYPE_DEFAULT ? w->default_type : o->type;
  if (!(w->types & KL_TYPE_BIT(in->type))) {
    if (named)
      return kl__usage(KL_USAGE, "workload %s has no type %s", w->name,
                       kl_type_name(in->type));
    kl__append(note, note_size, "%s: skipped, it has no type %s. ", w->name,
               kl_type_name(in->type));
    return KL_UNAVAILABLE;
  }
  /* A sweep: its sizes, slowest, then the parameters' lists. */
  double sizes[KL_MAX_SWEEP];
  size_t size_count = 1, param_count = 1;
  char lists[256];
  kl_status st = KL_OK;
  if (o->sizes && o->n > 0)
    return kl__usage(KL_USAGE, "give the size (n) or a sweep of sizes "
                     "(sizes), not both");
  if (o->sizes)
    st = kl__sweep_sizes(o->sizes, sizes, KL_MAX_SWEEP, &size_count);
  if (st == KL_OK)
    st = param_points(w, o->params, &param_count, lists, sizeof lists);
  if (st != KL_OK) return st;
  if (size_count * param_count > KL_MAX_SWEEP) {
    char sized[32] = "";
    if (o->sizes) snprintf(sized, sizeof sized, "%zu sizes", size_count);
    return kl__usage(KL_USAGE, "%s: a sweep of more than %d points (%s%s%s); "
                     "sweep fewer values", w->name, KL_MAX_SWEEP, sized,
                     sized[0] && lists[0] ? " x " : "", lists);
  }
  if (points) *points = size_count * param_count;
  if (point >= size_count * param_count)
    return KL_FAIL(KL_USAGE, "point %zu of a sweep of %zu", point,
                   size_count * param_count);
  const int64_t n =
      o->sizes ? (int64_t)sizes[point / param_count] : o->n;
  if (n > 0) {
    in->n = n;
    in->n_given = 1;
    const int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
    if (main >= 0) {
      st = check_whole(w, &w->params[main], n, NULL);
      if (st != KL_OK) return st;
      give(w, in, main, (double)n);
    }
  }
  st = apply_role(w, KL_PARAM_OP, "op", o->op, named, in, note, note_size);
  if (st == KL_OK)
    st = apply_role(w, KL_PARAM_INPUTS, "inputs", o->inputs, named, in, note,
                    note_size);
  if (st != KL_OK) return st;
  char why[96];
  if (!apply_shape(w, &o->shape, in, why, sizeof why)) {
    if (named) return kl__usage(KL_USAGE, "%s %s", w->name, why);
    kl__append(note, note_size, "%s: skipped, it %s. ", w->name, why);
    return KL_UNAVAILABLE;
  }
  st = apply_params(w, o->params, named, in, note, note_size,
                    point % param_count, param_count);
  if (st == KL_OK) st = check_conflict(w, in);
  if (st == KL_OK) st = check_ranges(w, in);
  if (st == KL_OK)
    st = apply_input(w, o->input_file, named, in, note, note_size);
  return st == KL_OK ? kl__named_files_apply(w, o, named, in, note, note_size)
                     : st;
}

kl_status kl__instance_from_problem(const kl_workload *w, const kl_problem *pb,
                                    kl__instance *in) {
  memset(in, 0, sizeof *in);
  in->seed = pb->seed;
  in->type = pb->type == KL_TYPE_DEFAULT ? w->default_type : pb->type;
  if ((int)in->type < 0 || in->type >= KL_TYPE_COUNT)
    return kl__usage(KL_USAGE, "%s: %d is not a kl_type value (KL_F32 .. "
                     "KL_U64, or KL_TYPE_DEFAULT)", w->name, (int)pb->type);
  if (!(w->types & KL_TYPE_BIT(in->type)))
    return kl__usage(KL_USAGE, "%s has no type %s", w->name,
                     kl_type_name(in->type));
  if (pb->n < 0)
    return kl__usage(KL_USAGE, "%s: size %lld must be at least 1", w->name,
                     (long long)pb->n);
  if (pb->n > 0) in->n = pb->n, in->n_given = 1;
  char note[256] = "";
  if (pb->n > 0) {
    const int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
    if (main >= 0) {
      const kl_status st = check_whole(w, &w->params[main], pb->n, NULL);
      if (st != KL_OK) return st;
      give(w, in, main, (double)pb->n);
    }
  }
  size_t points = 1;
  char lists[256];
  kl_status st = param_points(w, pb->params, &points, lists, sizeof lists);
  if (st == KL_OK && points > 1)
    st = kl__usage(KL_USAGE, "%s: one problem takes one value of each "
                   "parameter, not %s (a sweep is kl_run's)", w->name, lists);
  if (st == KL_OK)
    st = apply_params(w, pb->params, 1, in, note, sizeof note, 0, 1);
  if (st == KL_OK) st = check_conflict(w, in);
  if (st == KL_OK) st = apply_input(w, pb->input_file, 1, in, note,
                                    sizeof note);
  if (st == KL_OK && !in->n_given) in->n = kl__default_size(w, 0, 0);
  return st;
}

int64_t kl__default_size(const kl_workload *w, int host_backend, int quick) {
  int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
  if (main < 0) return 1;
  const kl_param *p = &w->params[main];
  double value = p->default_value, host = p->host_default;
  if (quick && p->quick_default > 0) value = p->quick_default;
  if (quick && p->quick_host_default > 0) host = p->quick_host_default;
  if (host_backend && host > 0 && host < value) return (int64_t)host;
  return (int64_t)value;
}

int64_t kl__instance_size(const kl_workload *w, const kl__instance *in,
                          int host_backend) {
  /* Host backends take their smaller default where no size was given. */
  const int64_t host = in->quick && in->host_quick > 0
                           ? in->host_quick
                           : kl__default_size(w, 1, in->quick);
  return !in->n_given && host_backend && host < in->n ? host : in->n;
}

kl_status kl__buffer_bytes(const kl_buffer_spec *s, size_t *bytes) {
  size_t size = kl_type_size(s->type);
  if (s->count < 0 || size == 0 || (uint64_t)s->count > SIZE_MAX / size)
    return kl__usage(KL_TOO_LARGE, "buffer %s of %lld elements is too large",
                     s->name, (long long)s->count);
  *bytes = (size_t)s->count * size;
  return KL_OK;
}

kl_status kl__plan_bytes(const kl_plan *p, double *bytes) {
  *bytes = 0;
  for (int i = 0; i < p->buffer_count; i++) {
    size_t b = 0;
    kl_status st = kl__buffer_bytes(&p->buffers[i], &b);
    if (st != KL_OK) return st;
    *bytes += (double)b;
  }
  return KL_OK;
}

/* Plans made by this thread: the planner's test reads it. */
static _Thread_local long plans_made;

long kl__plans_made(void) { return plans_made; }

/* The plan; with `wisdom`, each tuning r reads that is not given takes
 * the wisdom's tuned value for r, its device, type and size (p->tuned). */
static kl_status plan_make(const kl_workload *w, const kl_rung *r,
                           const kl__instance *in, int host_backend,
                           const kl_device *device, kl_plan *p,
                           double *problem_bytes, int wisdom) {
  plans_made++;
  memset(p, 0, sizeof *p);
  p->device = device;
  if (problem_bytes) *problem_bytes = 0;
  p->type = in->type;
  p->seed = in->seed;
  p->given = in->given;
  p->n = kl__instance_size(w, in, host_backend);
  if (p->n < 1)
    return kl__usage(KL_USAGE, "%s: size %lld must be at least 1", w->name,
                     (long long)p->n);
  for (int i = 0; i < w->param_count; i++) {
    const kl_param *q = &w->params[i];
    if (in->given >> i & 1) p->value[i] = in->value[i];
    else if (q->flags & KL_PARAM_MAIN_SIZE) p->value[i] = (double)p->n;
    else if (host_backend && q->host_default > 0) p->value[i] = q->host_default;
    else p->value[i] = q->default_value;
  }
  if (wisdom && r && (r->tunings & ~in->given)) {
    double tuned[KL_MAX_PARAMS];
    const uint64_t set =
        kl__wisdom_tuned(w, r, in->type, kl__wisdom_size(w, p->n, p->value),
                         device ? device->index : 0, tuned) &
        r->tunings & ~in->given;
    for (int i = 0; i < w->param_count; i++)
      if (set & KL_PARAM_BIT(i)) p->value[i] = tuned[i];
    p->tuned = set;
  }
  /* One chunk, the whole problem, unless an input file does not fit. */
  p->input_file = in->input_file;
  p->caller_inputs = in->caller_inputs;
  memcpy(p->files, in->files, sizeof p->files);
  p->chunk_count = in->chunk_size > 0 && in->chunk_size < p->n
                       ? (p->n + in->chunk_size - 1) / in->chunk_size
                       : 1;
  p->chunk_n = kl__chunk_size(p);
  p->ranks = in->ranks;
  p->strong = in->strong;
  kl_status st = w->plan(p);
  if (st == KL_OK && (p->chunk_count < 1 || p->chunk_count > p->n))
    st = KL_FAIL(KL_USAGE, "%s: %lld chunks for n = %lld", w->name,
                 (long long)p->chunk_count, (long long)p->n);
  /* As many chunks as their size needs: none is empty (10 elements in 6
   * chunks are 5 chunks of 2). */
  p->chunk = 0;
  p->chunk_n = kl__chunk_size(p);
  if (st == KL_OK) p->chunk_count = (p->n + p->chunk_n - 1) / p->chunk_n;
  if (st == KL_OK && problem_bytes) st = kl__plan_bytes(p, problem_bytes);
  kl_status (*scratch)(kl_plan *) = r ? kl_rung_scratch(r) : NULL;
  if (st == KL_OK && scratch) st = scratch(p);
  /* Test hook: KLADDER_INJECT_ASIDE=RUNG makes that rung refuse every
   * problem, as a rung that cannot serve one does (it stands aside). */
  const char *aside = getenv("KLADDER_INJECT_ASIDE");
  if (st == KL_OK && r && aside && strcmp(aside, r->name) == 0)
    st = kl__usage(KL_UNAVAILABLE, "%s %s cannot serve this problem "
                   "(KLADDER_INJECT_ASIDE)", w->name, r->name);
  return st;
}

kl_status kl__plan_make(const kl_workload *w, const kl_rung *r,
                        const kl__instance *in, int host_backend,
                        const kl_device *device, kl_plan *p,
                        double *problem_bytes) {
  kl_status st =
      plan_make(w, r, in, host_backend, device, p, problem_bytes, 1);
  /* A tuned value this problem cannot take (a wisdom of other sizes): the
   * rung's defaults instead. */
  if (st != KL_OK && p->tuned)
    st = plan_make(w, r, in, host_backend, device, p, problem_bytes, 0);
  return st;
}

/* ---- the planner ---------------------------------------------------------- */

struct kl__planned {
  const kl_workload *w;
  const kl_rung *r;
  kl__instance in;
  int host;
  const kl_device *device;
  kl_status status;
  kl_plan plan;
  double problem_bytes;
};

kl_status kl__plan_get(kl__planner *pl, const kl_workload *w,
                       const kl_rung *r, const kl__instance *in,
                       int host_backend, const kl_device *device, kl_plan *p,
                       double *problem_bytes) {
  if (!pl)
    return kl__plan_make(w, r, in, host_backend, device, p, problem_bytes);
  /* A plan depends on the size an instance runs at, not on whether it was
   * given: the key has the size. */
  kl__instance key = *in;
  key.n = kl__instance_size(w, in, host_backend);
  key.n_given = 1;
  for (size_t i = 0; i < pl->count; i++) {
    const struct kl__planned *e = &pl->items[i];
    if (e->w == w && e->r == r && e->host == host_backend &&
        e->device == device && memcmp(&e->in, &key, sizeof key) == 0) {
      *p = e->plan;
      if (problem_bytes) *problem_bytes = e->problem_bytes;
      /* The same message as when it was made. */
      return e->status == KL_OK ? KL_OK
             : kl__plan_make(w, r, in, host_backend, device, p,
                             problem_bytes);
    }
  }
  double bytes = 0;
  kl_status st = kl__plan_make(w, r, in, host_backend, device, p, &bytes);
  if (problem_bytes) *problem_bytes = bytes;
  if (pl->count == pl->capacity) {
    size_t cap = pl->capacity ? 2 * pl->capacity : 64;
    struct kl__planned *grown = realloc(pl->items, cap * sizeof *grown);
    if (!grown) return st; /* not kept: made again when asked */
    pl->items = grown;
    pl->capacity = cap;
  }
  struct kl__planned *e = &pl->items[pl->count++];
  e->w = w;
  e->r = r;
  e->in = key;
  e->host = host_backend;
  e->device = device;
  e->status = st;
  e->plan = *p;
  e->problem_bytes = bytes;
  return st;
}

void kl__planner_free(kl__planner *pl) {
  free(pl->items);
  memset(pl, 0, sizeof *pl);
}


/* ---- back to text ---------------------------------------------------------- */

void kl__shape_text(const kl_workload *w, const kl_plan *p, char *dst,
                    size_t size) {
  dst[0] = '\0';
  for (int i = 0; i < w->param_count; i++)
    if (w->params[i].flags & KL_PARAM_EXTENT)
      kl__append(dst, size, "%s%lld", dst[0] ? "x" : "",
                 (long long)p->value[i]);
  if (!dst[0]) snprintf(dst, size, "%lld", (long long)p->n);
}
