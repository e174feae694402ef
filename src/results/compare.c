/* `kladder compare BASE.json NEW.json` (compare.h; docs/compare.md).
 *
 * Each result of NEW is matched with the result of BASE of the same
 * workload, rung, backend, type, size and parameters (the params text, op
 * and inputs); the device's name is not part of the match, since comparing
 * machines is the point. A key found more than once in a file (a run on
 * two devices) is matched in order of occurrence, with a note.
 *
 * Per pair: NEW's median time over BASE's, NEW's share of its ceiling
 * over BASE's (fair across machines), a two-sided Mann-Whitney U test over
 * the timed runs and the interval of the time ratio it inverts, the
 * ceiling's change in the same runs, and a verdict at --threshold and
 * --alpha (decide() says the rule). The test is
 * the one google/benchmark's tools/compare.py makes (through SciPy's
 * mannwhitneyu): the exact distribution of U where there are no ties and
 * 50 runs or fewer in all, else the normal approximation with the tie
 * correction and a continuity correction of 1/2. */
#define _POSIX_C_SOURCE 200809L
#include "results.h"
#include "../core/internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kladder-run.h"
#include "../core/tool.h"

/* Fewer timed runs than this on a side: no test, the ratio alone. */
#define MIN_REPS 3
/* The exact distribution of U up to this many runs in all (C(50, 25) is
 * below 2^53: every count exact in a double). */
#define EXACT_MAX 50
/* The table's width, as kladder run's. */
#define WIDTH 100
/* The results formats this kladder reads: kladder-results-1 and -2. */
#define KNOWN_MAJOR 2

/* ---- the model --------------------------------------------------------- */

typedef enum side_state { SIDE_OK, SIDE_FAILED, SIDE_ASIDE } side_state;

/* One result of a results file; its texts point into the file's tree. */
typedef struct row {
  const char *workload, *rung, *backend, *type, *shape, *op, *inputs,
      *params, *flags, *check, *status, *device_name;
  char shape_text[32]; /* the shape where a file gives n alone */
  int device;
  double median, percent; /* NAN where absent or null */
  double ceiling_rate;    /* its ceiling's rate in the same run; NAN: none */
  double *times;
  size_t reps;
  side_state state;
  int ceiling;
  char *key;                /* what a match compares */
  int occurrence, of_count; /* k-th of its key in its file, of so many */
  int matched;
} row;

/* One results file. */
typedef struct side {
  const char *path, *name; /* as given; name: as messages show it */
  kl_results *file; /* read and validated by the library */
  const char *format, *started, *kladder, *commit, *cpu, *gpu;
  int major, interrupted;
  row *rows;
  size_t count;
} side;

typedef enum verdict {
  V_SAME,
  V_FASTER,
  V_SLOWER,
  V_MACHINE,
  V_FAILED,
  V_ASIDE,
  VERDICTS
} verdict;
static const char *const verdict_names[VERDICTS] = {
    "same", "faster", "slower", "machine", "failed", "aside"};

typedef enum test_kind { T_NONE, T_EXACT, T_NORMAL } test_kind;
static const char *const test_names[] = {"none", "exact", "normal"};

typedef struct pair {
  const row *b, *n;
  double ratio, ceil_ratio; /* NEW over BASE; NAN where not measured */
  /* NEW's time over BASE's: the Hodges-Lehmann estimate, its interval at
   * 1 - alpha and the wider one at 1 - alpha / 5; NAN where there is none
   * (few runs, too many). */
  double estimate, lo, hi, lo_wide, hi_wide;
  /* The ceiling's rate, NEW's over BASE's, in the same runs; NAN: none. */
  double machine;
  double u, p;              /* NEW's U and the two-sided p; NAN: no test */
  test_kind test;
  int few;        /* too few runs: the ratio alone decides */
  verdict v;
  int regression; /* slower, or failing in NEW where BASE passed */
} pair;

struct kl_comparison {
  side base, new_;
  double threshold, alpha;
  pair *pairs;
  size_t count;
  size_t verdicts[VERDICTS];
  size_t only_base, only_new, few;
  char **notes;
  size_t note_count;
  int regression;
  int by_field; /* --field: field's values compared, not the times */
  size_t field;
  char field_name[64];
  char warning[512];
  char *paths[2]; /* the files', as given: the HTML page reads them again */
};

/* ---- reading a results file ---------------------------------------------- */

static const char *const known_formats = "kladder-results-1 and -2";

/* Why a result lacks what a comparison needs: for a format this kladder
 * knows, a malformed file (with line and column); for a newer one, a
 * format it cannot read. */
static int missing(const side *s, const json_value *at, size_t index,
                   const char *what, char *err, size_t errlen) {
  if (s->major > KNOWN_MAJOR)
    return kl__said(-1, err, errlen,
                    "%s: format %s is newer than this kladder reads "
                    "(%s), and its result %zu %s",
                    s->name, s->format, known_formats, index + 1, what);
  return kl__said(-1, err, errlen, "%s:%d:%d: result %zu %s", s->name, at->line,
                  at->column, index + 1, what);
}

/* The checks kladder run does not count as failures
 * (docs/verification.md): a known-wrong rung caught or not, and UNVERIFIABLE. */
static side_state state_of(const row *r) {
  if (strcmp(r->check, "ASIDE") == 0) return SIDE_ASIDE;
  if (strcmp(r->status, "success") != 0) return SIDE_FAILED;
  static const char *const passed[] = {"PASS", "UNVERIFIABLE",
                                       "WRONG(expected)",
                                       "PASS(known-wrong)"};
  int ok = 0;
  for (size_t i = 0; i < sizeof passed / sizeof *passed; i++)
    ok |= strcmp(r->check, passed[i]) == 0;
  /* A result that passed has a time. */
  if (ok && !(r->median > 0 && isfinite(r->median))) ok = 0;
  return ok ? SIDE_OK : SIDE_FAILED;
}

/* Result `index` of a side's file, which the library validated: what
 * ran, the problem and the times as the file holds them. */
static int read_row(const side *s, size_t index, row *r, char *err,
                    size_t errlen) {
  kl__row v;
  kl__results_row(s->file, index, &v);
  r->workload = v.workload;
  r->rung = v.rung;
  r->backend = v.backend;
  r->type = v.type;
  r->check = v.check;
  r->status = v.status;
  /* The size: the shape's text, or n. */
  r->shape = v.shape;
  if (!r->shape[0]) {
    if (isnan(v.n))
      return missing(s, v.v, index, "has no shape or size", err, errlen);
    snprintf(r->shape_text, sizeof r->shape_text, "%.17g", v.n);
    r->shape = r->shape_text;
  }
  if (!v.median_given)
    return missing(s, v.v, index, "has no \"median_s\"", err, errlen);
  r->median = v.median_s;
  r->percent = v.percent_ceiling;
  r->ceiling_rate = v.ceiling;
  r->op = v.op;
  r->inputs = v.inputs;
  r->params = v.params;
  r->flags = v.flags;
  r->device_name = v.device_name;
  r->device = v.device >= 0 && v.device < 1e6 ? (int)v.device : 0;
  r->ceiling = kl__flagged(r->flags, "ceiling");
  if (v.times && v.times->kind == JSON_ARRAY) {
    r->times = malloc((v.times->count ? v.times->count : 1) * sizeof *r->times);
    if (!r->times)
      return kl__said(-1, err, errlen, "%s: out of memory", s->name);
    /* The library took only finite numbers or null: a null is no run. */
    for (size_t i = 0; i < v.times->count; i++)
      if (v.times->items[i].kind == JSON_NUMBER)
        r->times[r->reps++] = v.times->items[i].number;
  }
  r->state = state_of(r);
  return 0;
}

/* What a match compares, fields apart by a separator no text holds. */
static char *key_of(const row *r) {
  const char *parts[] = {r->workload, r->rung, r->backend, r->type,
                         r->shape, r->op, r->inputs, r->params};
  size_t len = 1;
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    len += strlen(parts[i]) + 1;
  char *key = malloc(len), *o = key;
  if (!key) return NULL;
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    o += sprintf(o, "%s\x1f", parts[i]);
  return key;
}

static void side_free(side *s) {
  for (size_t i = 0; i < s->count; i++) {
    free(s->rows[i].times);
    free(s->rows[i].key);
  }
  free(s->rows);
  kl_results_free(s->file);
  memset(s, 0, sizeof *s);
}

static int read_side(side *s, const char *path, char *err, size_t errlen,
                     char *warn, size_t warnlen) {
  s->path = path;
  s->name = strcmp(path, "-") == 0 ? "standard input" : path;
  /* The library's one validation: the format, a non-empty list of
   * results, every field of its kind (with line and column). */
  if (kl_results_read(path, &s->file) != KL_OK)
    return kl__said(-1, err, errlen, "%s", kl_last_error());
  kl__run_view run;
  kl__results_run(s->file, &run);
  const size_t results = kl_results_count(s->file);
  s->format = run.format;
  s->major = kl_results_format(s->file);
  s->rows = calloc(results, sizeof *s->rows);
  if (!s->rows)
    return kl__said(-1, err, errlen, "%s: out of memory", s->name);
  for (size_t i = 0; i < results; i++) {
    row *r = &s->rows[s->count++];
    if (read_row(s, i, r, err, errlen)) return -1;
    if (!(r->key = key_of(r)))
      return kl__said(-1, err, errlen, "%s: out of memory", s->name);
  }
  /* Each key's occurrences in this file. */
  for (size_t i = 0; i < s->count; i++) {
    row *r = &s->rows[i];
    for (size_t j = 0; j < s->count; j++) {
      if (strcmp(s->rows[j].key, r->key) != 0) continue;
      r->of_count++;
      if (j <= i) r->occurrence++;
    }
  }
  s->started = run.started;
  s->kladder = run.kladder;
  s->commit = run.commit;
  s->cpu = run.cpu;
  s->gpu = run.gpu;
  s->interrupted = run.interrupted;
  if (kl_results_warning(s->file)[0] && warn && warnlen && !warn[0])
    snprintf(warn, warnlen, "%s; comparing the fields it knows",
             kl_results_warning(s->file));
  return 0;
}

/* ---- statistics ------------------------------------------------------------
 * Mann-Whitney U (Mann and Whitney 1947), two-sided, as google/benchmark's
 * tools/gbench/report.py runs it through scipy.stats.mannwhitneyu. */

typedef struct obs {
  double v;
  int from_new;
} obs;

static int by_value(const void *a, const void *b) {
  const double x = ((const obs *)a)->v, y = ((const obs *)b)->v;
  return (x > y) - (x < y);
}

/* U of y against x: the pairs (x_i, y_j) with y_j > x_i, ties counted 1/2,
 * from y's rank sum (midranks for ties); *ties, the sum of t^3 - t over
 * the groups of t equal values. NAN where memory is short. */
static double u_of(const double *x, size_t nx, const double *y, size_t ny,
                   double *ties) {
  const size_t total = nx + ny;
  obs *o = malloc(total * sizeof *o);
  if (!o) return NAN;
  for (size_t i = 0; i < nx; i++) o[i] = (obs){x[i], 0};
  for (size_t j = 0; j < ny; j++) o[nx + j] = (obs){y[j], 1};
  qsort(o, total, sizeof *o, by_value);
  double rank_sum = 0, t3 = 0;
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j < total && o[j].v == o[i].v) j++;
    const double rank = (double)(i + 1 + j) / 2, t = (double)(j - i);
    t3 += t * t * t - t;
    for (size_t k = i; k < j; k++)
      if (o[k].from_new) rank_sum += rank;
    i = j;
  }
  free(o);
  *ties = t3;
  return rank_sum - (double)ny * (double)(ny + 1) / 2;
}

/* C(m + n, m), the arrangements of two samples. */
static double arrangements(size_t m, size_t n) {
  double c = 1;
  for (size_t i = 1; i <= m; i++) c = c * (double)(n + i) / (double)i;
  return c;
}

/* The exact two-sided p of U = u for samples of m and n without ties:
 * the number of arrangements with each U is the coefficient of the
 * Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) /
 * (1 - q^i), built one factor pair at a time (every step a polynomial of
 * integer counts). */
static double exact_p(size_t m, size_t n, double u) {
  const size_t top = m * n;
  double *c = calloc(top + m + 1, sizeof *c);
  if (!c) return NAN;
  c[0] = 1;
  size_t degree = 0;
  for (size_t i = 1; i <= m; i++) {
    const size_t k = n + i;
    for (size_t d = degree + k + 1; d-- > k;) c[d] -= c[d - k];
    degree += k;
    for (size_t d = i; d <= degree; d++) c[d] += c[d - i];
    degree -= i;
  }
  double below = 0, above = 0, all = 0;
  for (size_t d = 0; d <= top; d++) {
    all += c[d];
    if ((double)d <= u) below += c[d];
    if ((double)d >= u) above += c[d];
  }
  free(c);
  const double p = 2 * (below < above ? below : above) / all;
  return p < 1 ? p : 1;
}

/* The normal approximation: mean m n / 2, variance m n / 12 ((N + 1) -
 * sum(t^3 - t) / (N (N - 1))) with the tie correction, and a continuity
 * correction of 1/2. */
static double normal_p(size_t m, size_t n, double u, double ties) {
  const double N = (double)(m + n), mn = (double)m * (double)n;
  const double var = mn / 12 * ((N + 1) - ties / (N * (N - 1)));
  if (!(var > 0)) return 1; /* every time equal */
  double z = (fabs(u - mn / 2) - 0.5) / sqrt(var);
  if (z < 0) z = 0;
  const double p = erfc(z / sqrt(2.0));
  return p < 1 ? p : 1;
}

static void u_test(pair *p, double alpha) {
  const row *b = p->b, *n = p->n;
  p->u = p->p = NAN;
  p->test = T_NONE;
  /* The smallest p the test can give at these counts: 2 / C(m+n, m). */
  p->few = b->reps < MIN_REPS || n->reps < MIN_REPS ||
           2 / arrangements(b->reps, n->reps) >= alpha;
  if (b->reps == 0 || n->reps == 0) return;
  double ties = 0;
  p->u = u_of(b->times, b->reps, n->times, n->reps, &ties);
  if (isnan(p->u)) return;
  if (ties == 0 && b->reps + n->reps <= EXACT_MAX) {
    p->test = T_EXACT;
    p->p = exact_p(b->reps, n->reps, p->u);
  } else {
    p->test = T_NORMAL;
    p->p = normal_p(b->reps, n->reps, p->u, ties);
  }
}

/* The z of a two-sided level: erfc(z / sqrt 2) = alpha, by bisection. */
static double z_of(double alpha) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; i++) {
    const double mid = (lo + hi) / 2;
    if (erfc(mid / sqrt(2.0)) > alpha) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/* The most time ratios an interval is made from (64 MB of doubles). */
#define MAX_RATIOS ((size_t)8 << 20)

static int by_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* NEW's time over BASE's as an interval, the one the U test inverts
 * (Hodges and Lehmann, 1963; Lehmann, "Nonparametrics", 1975, 2.6): the
 * m n ratios new_i / base_j sorted, the estimate their median, the
 * interval from the C-th smallest to the C-th largest, with C = m n / 2 -
 * z sqrt(m n (m + n + 1) / 12) rounded down (U's normal approximation; at
 * least 1), z of the two-sided level: alpha, and alpha / 5 for the wider
 * one. Where C falls below 1 (too few runs for the level) or the ratios
 * would pass MAX_RATIOS, none. */
static void ratio_interval(pair *p, double alpha) {
  const row *b = p->b, *n = p->n;
  p->estimate = p->lo = p->hi = p->lo_wide = p->hi_wide = NAN;
  const size_t m = n->reps, k = b->reps;
  if (m == 0 || k == 0 || m > MAX_RATIOS / k) return;
  const double mn = (double)m * (double)k;
  const double spread = sqrt(mn * (double)(m + k + 1) / 12);
  const double c = floor(mn / 2 - z_of(alpha) * spread);
  double wide = floor(mn / 2 - z_of(alpha / 5) * spread);
  if (c < 1) return;
  if (wide < 1) wide = 1;
  double *r = malloc((size_t)(m * k) * sizeof *r);
  if (!r) return;
  size_t count = 0;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < k; j++)
      if (b->times[j] > 0 && n->times[i] > 0)
        r[count++] = n->times[i] / b->times[j];
  if (count == m * k) {
    qsort(r, count, sizeof *r, by_double);
    p->estimate = count % 2 ? r[count / 2]
                            : (r[count / 2 - 1] + r[count / 2]) / 2;
    p->lo = r[(size_t)c - 1];
    p->hi = r[count - (size_t)c];
    p->lo_wide = r[(size_t)wide - 1];
    p->hi_wide = r[count - (size_t)wide];
  }
  free(r);
}

/* ---- matching and verdicts ----------------------------------------------- */

/* The verdict of a time ratio's bounds, scaled by `scale` (1, or the
 * ceiling's rate ratio to take the machine's change out): slower where
 * the interval at 1 - alpha lies above 1 (a change beyond the runs'
 * noise), the wider one at 1 - alpha / 5 reaches 1 + threshold (the change
 * may be as large as the threshold) and the estimate is at least half the
 * threshold (sqrt(1 + threshold): noise that only just passes the first
 * test is not a regression of half the size). A change at the threshold
 * is flagged nearly always, one well below it measured tightly is not.
 * Faster the same way below 1. */
static verdict by_interval(const pair *p, double scale, double threshold) {
  const double half = sqrt(1 + threshold); /* half the change, in ratio */
  if (p->lo * scale > 1 && p->hi_wide * scale >= 1 + threshold &&
      p->estimate * scale >= half)
    return V_SLOWER;
  if (p->hi * scale < 1 && p->lo_wide * scale <= 1 / (1 + threshold) &&
      p->estimate * scale <= 1 / half)
    return V_FASTER;
  return V_SAME;
}

/* Without an interval: the medians' ratio beyond the threshold, where the
 * U test's p is below alpha or too few runs leave no test. */
static verdict by_ratio(const pair *p, double scale, double threshold,
                        double alpha) {
  const int decided = p->few || (!isnan(p->p) && p->p < alpha);
  if (decided && p->ratio * scale > 1 + threshold) return V_SLOWER;
  if (decided && p->ratio * scale < 1 / (1 + threshold)) return V_FASTER;
  return V_SAME;
}

/* A pair's verdict: by its interval where it has one (ratio_interval),
 * else by its ratio (too few runs for an interval, or too many). A slower
 * or faster pair that the same rule no longer calls so once the change of
 * the ceiling timed beside it in the same runs is taken out (same, or the
 * other way) is `machine`: the machine moved, not the code; it is not a
 * regression. */
static void decide(pair *p, double threshold, double alpha) {
  const row *b = p->b, *n = p->n;
  p->ratio = p->ceil_ratio = p->u = p->p = NAN;
  p->estimate = p->lo = p->hi = p->lo_wide = p->hi_wide = p->machine = NAN;
  p->test = T_NONE;
  if (b->state != SIDE_OK || n->state != SIDE_OK) {
    const int failed = b->state == SIDE_FAILED || n->state == SIDE_FAILED;
    p->v = failed ? V_FAILED : V_ASIDE;
    /* A new failure: NEW fails where BASE passed. */
    p->regression = n->state == SIDE_FAILED && b->state == SIDE_OK;
    return;
  }
  p->ratio = n->median / b->median;
  if (b->percent > 0 && n->percent > 0 && isfinite(b->percent) &&
      isfinite(n->percent))
    p->ceil_ratio = n->percent / b->percent;
  if (b->ceiling_rate > 0 && n->ceiling_rate > 0 &&
      isfinite(b->ceiling_rate) && isfinite(n->ceiling_rate))
    p->machine = n->ceiling_rate / b->ceiling_rate;
  u_test(p, alpha);
  if (!p->few) ratio_interval(p, alpha);
  const int interval = !p->few && !isnan(p->lo);
  p->v = interval ? by_interval(p, 1, threshold)
                  : by_ratio(p, 1, threshold, alpha);
  if ((p->v == V_SLOWER || p->v == V_FASTER) && !isnan(p->machine) &&
      (interval ? by_interval(p, p->machine, threshold)
                : by_ratio(p, p->machine, threshold, alpha)) != p->v)
    p->v = V_MACHINE;
  p->regression = p->v == V_SLOWER;
}

static int add_note(kl_comparison *c, const char *text) {
  char **grown = realloc(c->notes, (c->note_count + 1) * sizeof *grown);
  if (!grown) return -1;
  c->notes = grown;
  char *copy = malloc(strlen(text) + 1);
  if (!copy) return -1;
  c->notes[c->note_count++] = strcpy(copy, text);
  return 0;
}

/* A result's parameters but op and inputs (said apart), ' ' between. */
static void params_rest(const row *r, char *dst, size_t size) {
  size_t used = 0;
  dst[0] = '\0';
  for (const char *p = r->params; *p && used < size;) {
    const size_t len = strcspn(p, ";");
    if (len && strncmp(p, "op=", 3) != 0 && strncmp(p, "inputs=", 7) != 0)
      used += (size_t)snprintf(dst + used, size - used, "%s%.*s",
                               used ? " " : "", (int)len, p);
    p += len;
    if (*p) p++;
  }
}

/* A result in words: "reduce openmp-clause openmp:1 f64 sum n=65536". */
static void label(const row *r, char *dst, size_t size) {
  char dev[16] = "", rest[256];
  if (r->device > 0) snprintf(dev, sizeof dev, ":%d", r->device);
  params_rest(r, rest, sizeof rest);
  snprintf(dst, size, "%s %s %s%s %s%s%s %s%s%s%s%s%s", r->workload, r->rung,
           r->backend, dev, r->type, r->op[0] ? " " : "", r->op,
           strchr(r->shape, 'x') ? "" : "n=", r->shape,
           r->inputs[0] ? " inputs=" : "", r->inputs, rest[0] ? " " : "",
           rest);
}

static size_t key_count(const side *s, const char *key) {
  size_t count = 0;
  for (size_t i = 0; i < s->count; i++)
    count += strcmp(s->rows[i].key, key) == 0;
  return count;
}

/* Pairs in BASE's order; the notes on keys found more than once. */
static int match(kl_comparison *c, char *err, size_t errlen) {
  side *b = &c->base, *n = &c->new_;
  c->pairs = calloc(b->count, sizeof *c->pairs);
  if (!c->pairs)
    return kl__said(-1, err, errlen, "out of memory");
  for (size_t i = 0; i < b->count; i++) {
    row *br = &b->rows[i];
    for (size_t j = 0; j < n->count; j++) {
      row *nr = &n->rows[j];
      if (nr->matched || nr->occurrence != br->occurrence ||
          strcmp(nr->key, br->key) != 0)
        continue;
      br->matched = nr->matched = 1;
      pair *p = &c->pairs[c->count++];
      p->b = br;
      p->n = nr;
      decide(p, c->threshold, c->alpha);
      c->verdicts[p->v]++;
      c->few += p->v <= V_MACHINE && p->few;
      c->regression |= p->regression;
      break;
    }
  }
  for (size_t i = 0; i < b->count; i++) c->only_base += !b->rows[i].matched;
  for (size_t j = 0; j < n->count; j++) c->only_new += !n->rows[j].matched;
  /* Each key found more than once, in either file, once. */
  char text[768], what[512];
  for (int pass = 0; pass < 2; pass++) {
    const side *s = pass ? n : b, *other = pass ? b : n;
    for (size_t i = 0; i < s->count; i++) {
      const row *r = &s->rows[i];
      const size_t there = key_count(other, r->key);
      if (r->occurrence != 1 || (r->of_count < 2 && there < 2)) continue;
      if (pass == 1 && there > 0) continue; /* said in the first pass */
      label(r, what, sizeof what);
      snprintf(text, sizeof text, "%s occurs %zu times in BASE and %zu in "
               "NEW (a run on several devices?): matched in order of "
               "occurrence", what, pass ? there : (size_t)r->of_count,
               pass ? (size_t)r->of_count : there);
      if (add_note(c, text))
        return kl__said(-1, err, errlen, "out of memory");
    }
  }
  return 0;
}

static int compare_files(kl_comparison *c, const char *base,
                         const char *new_path, char *err, size_t errlen) {
  return read_side(&c->base, base, err, errlen, c->warning,
                   sizeof c->warning) ||
         read_side(&c->new_, new_path, err, errlen, c->warning,
                   sizeof c->warning) ||
         match(c, err, errlen);
}

static int field_moved(const kl_comparison *c, const pair *p, double *x,
                       double *y);

kl_status kl_compare(const char *base, const char *new_path,
                     const kl_compare_options *o, kl_comparison **out) {
  const kl_compare_options defaults = KL_COMPARE_OPTIONS_INIT;
  if (!out) return kl__usage(KL_USAGE, "kl_compare: out is NULL");
  *out = NULL;
  if (!base || !new_path)
    return kl__usage(KL_USAGE, "kl_compare: a results file is NULL");
  if (!o) o = &defaults;
  if (o->size < sizeof *o)
    return kl__usage(KL_USAGE, "kl_compare: options of %zu bytes, not %zu "
                     "(set size to sizeof(kl_compare_options))", o->size,
                     sizeof *o);
  if (!(o->threshold >= 0) || !isfinite(o->threshold))
    return kl__usage(KL_USAGE, "kl_compare: threshold %g must be a number "
                     "from 0 up", o->threshold);
  if (!(o->alpha > 0 && o->alpha < 1))
    return kl__usage(KL_USAGE, "kl_compare: alpha %g must be above 0 and "
                     "below 1", o->alpha);
  kl_comparison *c = calloc(1, sizeof *c);
  if (!c) return kl__usage(KL_NO_MEMORY, "kl_compare: out of memory");
  c->threshold = o->threshold;
  c->alpha = o->alpha;
  if (o->field) {
    kl_field_info fi = {.size = sizeof fi};
    if (kl_field_index(o->field, &c->field) != KL_OK ||
        kl_field_describe(c->field, &fi) != KL_OK ||
        (fi.kind != KL_FIELD_NUMBER && fi.kind != KL_FIELD_SECONDS)) {
      free(c);
      return kl__usage(KL_USAGE, "field " KL_Q ": not a number field of the "
                       "results (`kladder list --fields` names them)",
                       KL_CLIP(o->field));
    }
    c->by_field = 1;
    snprintf(c->field_name, sizeof c->field_name, "%s", fi.name);
  }
  char err[1024];
  c->paths[0] = strdup(base);
  c->paths[1] = strdup(new_path);
  if (!c->paths[0] || !c->paths[1]) {
    kl_comparison_free(c);
    return kl__usage(KL_NO_MEMORY, "kl_compare: out of memory");
  }
  if (compare_files(c, c->paths[0], c->paths[1], err, sizeof err)) {
    kl_comparison_free(c);
    return kl__usage(KL_USAGE, "%s", err);
  }
  if (c->by_field) {
    c->regression = 0;
    for (size_t i = 0; i < c->count; i++)
      c->regression |= field_moved(c, &c->pairs[i], NULL, NULL) < 2;
  }
  *out = c;
  return kl__done(KL_OK);
}

void kl_comparison_free(kl_comparison *c) {
  if (!c) return;
  side_free(&c->base);
  side_free(&c->new_);
  free(c->pairs);
  for (size_t i = 0; i < c->note_count; i++) free(c->notes[i]);
  free(c->notes);
  free(c->paths[0]);
  free(c->paths[1]);
  free(c);
}

int kl_comparison_regressed(const kl_comparison *c) {
  return c && c->regression ? 1 : 0;
}

size_t kl_comparison_count(const kl_comparison *c) { return c ? c->count : 0; }

const char *kl_comparison_warning(const kl_comparison *c) {
  return c ? c->warning : "";
}

/* ---- the table ----------------------------------------------------------- */

static void ratio_text(double r, char *dst, size_t size) {
  if (!(r > 0) || !isfinite(r)) snprintf(dst, size, "-");
  else snprintf(dst, size, r < 100 ? "%.2fx" : "%.0fx", r);
}

/* The time ratio's interval, "0.98-1.03"; "few reps" without a test. */
static void interval_text(const pair *p, char *dst, size_t size) {
  if (p->v > V_MACHINE) snprintf(dst, size, "-");
  else if (p->few) snprintf(dst, size, "few reps");
  else if (isnan(p->lo)) snprintf(dst, size, "p %.2g", p->p);
  else if (p->hi < 10) snprintf(dst, size, "%.2f-%.2f", p->lo, p->hi);
  else snprintf(dst, size, "%.3g-%.3g", p->lo, p->hi);
}

static void backend_text(const pair *p, char *dst, size_t size) {
  const int b = p->b->device, n = p->n->device;
  if (b == n && b == 0) snprintf(dst, size, "%s", p->b->backend);
  else if (b == n) snprintf(dst, size, "%s:%d", p->b->backend, b);
  else snprintf(dst, size, "%s:%d>%d", p->b->backend, b, n);
}

/* A problem's heading, as kladder run's: "reduce: f64 sum, n=65536", with
 * its inputs and parameters (op and inputs said once). */
static void heading(const row *r, char *dst, size_t size) {
  snprintf(dst, size, "%s: %s%s%s, %s%s", r->workload, r->type,
           r->op[0] ? " " : "", r->op, strchr(r->shape, 'x') ? "" : "n=",
           r->shape);
  size_t used = strlen(dst);
  if (r->inputs[0] && strcmp(r->inputs, "random") != 0 && used < size)
    used += (size_t)snprintf(dst + used, size - used, ", inputs %s",
                             r->inputs);
  char rest[256];
  params_rest(r, rest, sizeof rest);
  if (rest[0] && used < size) snprintf(dst + used, size - used, ", %s", rest);
}

/* Text wrapped at WIDTH, later lines indented, control characters
 * escaped. */
static void wrapped(FILE *f, const char *text, int indent) {
  kl__text_wrapped(f, text, WIDTH, indent);
}

static void side_line(FILE *f, const char *which, const side *s) {
  char line[1024];
  snprintf(line, sizeof line, "%s %s | kladder %s%s%s%s, %s | CPU: %s | "
           "GPU: %s%s", which, s->name, s->kladder[0] ? s->kladder : "?",
           s->commit[0] ? " (" : "", s->commit, s->commit[0] ? ")" : "",
           s->started[0] ? s->started : "start unknown",
           s->cpu[0] ? s->cpu : "?", s->gpu && s->gpu[0] ? s->gpu : "none",
           s->interrupted ? " | interrupted" : "");
  wrapped(f, line, 6);
}

static void table_row(FILE *f, const pair *p) {
  char rung[96], where[64], bt[24], nt[24], ratio[24], ceil[24], iv[40];
  if (p->b->occurrence > 1)
    snprintf(rung, sizeof rung, "%s #%d", p->b->rung, p->b->occurrence);
  else
    snprintf(rung, sizeof rung, "%s", p->b->rung);
  backend_text(p, where, sizeof where);
  kl__time_text(p->b->state == SIDE_OK ? p->b->median : NAN, bt, sizeof bt);
  kl__time_text(p->n->state == SIDE_OK ? p->n->median : NAN, nt, sizeof nt);
  ratio_text(p->ratio, ratio, sizeof ratio);
  ratio_text(p->ceil_ratio, ceil, sizeof ceil);
  interval_text(p, iv, sizeof iv);
  fprintf(f, "%-9s %-22s %-8s %10s %10s %6s %6s %9s  %s\n", p->b->workload,
          rung, where, bt, nt, ratio, ceil, iv, verdict_names[p->v]);
}

static int write_table(FILE *f, const kl_comparison *c) {
  char line[1024];
  side_line(f, "base:", &c->base);
  side_line(f, "new:", &c->new_);
  fprintf(f, "time: the median of the timed runs; verdict beyond --threshold "
          "%g%% at --alpha %g\n", c->threshold * 100, c->alpha);
  fprintf(f, "\n%-9s %-22s %-8s %10s %10s %6s %6s %9s  %s\n", "workload",
          "rung", "backend", "base", "new", "time", "%ceil", "interval",
          "verdict");
  /* Groups by problem in the order BASE ran them; the ceilings last. */
  char *done = calloc(c->count ? c->count : 1, 1);
  if (!done) return -1;
  char key[512], other[512];
  for (int pass = 0; pass < 2; pass++) {
    int headed = 0;
    for (size_t i = 0; i < c->count; i++) {
      if (done[i] || c->pairs[i].b->ceiling != pass) continue;
      if (pass == 1 && !headed) {
        fprintf(f, "\nceilings, compared as the rungs are:\n");
        headed = 1;
      }
      heading(c->pairs[i].b, key, sizeof key);
      fprintf(f, "%s", pass == 0 ? "\n" : "");
      wrapped(f, key, 2);
      for (size_t j = i; j < c->count; j++) {
        if (done[j] || c->pairs[j].b->ceiling != pass) continue;
        heading(c->pairs[j].b, other, sizeof other);
        if (strcmp(key, other) != 0) continue;
        table_row(f, &c->pairs[j]);
        done[j] = 1;
      }
    }
  }
  free(done);
  if (c->count == 0) fprintf(f, "\n(no result of NEW matches one of BASE)\n");
  fputc('\n', f);
  snprintf(line, sizeof line, "time: NEW's median over BASE's (below 1: "
           "faster); %%ceil: NEW's share of its ceiling over BASE's, fair "
           "across machines; interval: NEW's time over BASE's at %g%%, the "
           "one a two-sided Mann-Whitney U test over the timed runs inverts "
           "(Hodges-Lehmann); machine: a change the ceiling timed beside the "
           "rung made too.", 100 * (1 - c->alpha));
  wrapped(f, line, 2);
  if (c->few) {
    snprintf(line, sizeof line, "few reps: fewer than %d timed runs on a "
             "side, or too few for the test to reach p < %g at all: the time "
             "ratio alone decides.", MIN_REPS, c->alpha);
    wrapped(f, line, 2);
  }
  char what[512];
  for (size_t i = 0; i < c->count; i++) {
    const pair *p = &c->pairs[i];
    if (p->v != V_FAILED && p->v != V_ASIDE) continue;
    label(p->b, what, sizeof what);
    snprintf(line, sizeof line, "%s: %s: BASE %s, NEW %s%s",
             verdict_names[p->v], what, p->b->check, p->n->check,
             p->regression ? " (a new failure)" : "");
    wrapped(f, line, 2);
  }
  for (size_t i = 0; i < c->note_count; i++) {
    snprintf(line, sizeof line, "note: %s", c->notes[i]);
    wrapped(f, line, 2);
  }
  for (int pass = 0; pass < 2; pass++) {
    const side *s = pass ? &c->new_ : &c->base;
    for (size_t i = 0; i < s->count; i++) {
      if (s->rows[i].matched) continue;
      label(&s->rows[i], what, sizeof what);
      snprintf(line, sizeof line, "only in %s: %s", pass ? "NEW" : "BASE",
               what);
      wrapped(f, line, 2);
    }
  }
  for (int pass = 0; pass < 2; pass++)
    if ((pass ? &c->new_ : &c->base)->interrupted)
      fprintf(f, "note: %s was interrupted: it holds the rungs that "
              "finished\n", pass ? "NEW" : "BASE");
  fprintf(f, "%zu pair%s: %zu slower, %zu faster, %zu machine, %zu same, "
          "%zu failed, %zu aside; %zu only in BASE, %zu only in NEW\n",
          c->count, c->count == 1 ? "" : "s", c->verdicts[V_SLOWER],
          c->verdicts[V_FASTER], c->verdicts[V_MACHINE], c->verdicts[V_SAME],
          c->verdicts[V_FAILED], c->verdicts[V_ASIDE], c->only_base,
          c->only_new);
  return ferror(f) ? -1 : 0;
}

/* ---- CSV ----------------------------------------------------------------- */


static const char csv_header[] =
    "workload,rung,backend,type,shape,op,inputs,params,ceiling,occurrence,"
    "base_device,new_device,base_device_name,new_device_name,base_median_s,"
    "new_median_s,time_ratio,base_percent_ceiling,new_percent_ceiling,"
    "ceiling_ratio,base_reps,new_reps,u,p_value,test,few_reps,base_check,"
    "new_check,verdict,regression,ratio_estimate,ratio_low,ratio_high,"
    "machine_ratio\n";

/* v as kl__csv_exact writes it, then sep. */
static void csv_exact(FILE *f, double v, char sep) {
  kl__csv_exact(f, v);
  fputc(sep, f);
}

/* One line: a pair (both rows), or a result of one file (the other NULL). */
static void csv_line(FILE *f, const row *b, const row *n, const pair *p,
                     const char *verdict_text) {
  const row *r = b ? b : n;
  const char *key[] = {r->workload, r->rung, r->backend, r->type, r->shape,
                       r->op, r->inputs, r->params};
  for (size_t i = 0; i < sizeof key / sizeof *key; i++) {
    kl__csv_text(f, key[i]);
    fputc(',', f);
  }
  fprintf(f, "%d,%d,", r->ceiling, r->occurrence);
  if (b) fprintf(f, "%d", b->device);
  fputc(',', f);
  if (n) fprintf(f, "%d", n->device);
  fputc(',', f);
  kl__csv_text(f, b ? b->device_name : "");
  fputc(',', f);
  kl__csv_text(f, n ? n->device_name : "");
  fputc(',', f);
  csv_exact(f, b ? b->median : NAN, ',');
  csv_exact(f, n ? n->median : NAN, ',');
  csv_exact(f, p ? p->ratio : NAN, ',');
  csv_exact(f, b ? b->percent : NAN, ',');
  csv_exact(f, n ? n->percent : NAN, ',');
  csv_exact(f, p ? p->ceil_ratio : NAN, ',');
  if (b) fprintf(f, "%zu", b->reps);
  fputc(',', f);
  if (n) fprintf(f, "%zu", n->reps);
  fputc(',', f);
  csv_exact(f, p ? p->u : NAN, ',');
  kl__csv_exact(f, p ? p->p : NAN);
  fprintf(f, ",%s,%s,", p ? test_names[p->test] : "none",
          p && p->v <= V_MACHINE ? (p->few ? "1" : "0") : "");
  kl__csv_text(f, b ? b->check : "");
  fputc(',', f);
  kl__csv_text(f, n ? n->check : "");
  fprintf(f, ",%s,%d,", verdict_text, p ? p->regression : 0);
  csv_exact(f, p ? p->estimate : NAN, ',');
  csv_exact(f, p ? p->lo : NAN, ',');
  csv_exact(f, p ? p->hi : NAN, ',');
  kl__csv_exact(f, p ? p->machine : NAN);
  fputc('\n', f);
}

static int write_csv(FILE *f, const kl_comparison *c) {
  fputs(csv_header, f);
  for (size_t i = 0; i < c->count; i++)
    csv_line(f, c->pairs[i].b, c->pairs[i].n, &c->pairs[i],
             verdict_names[c->pairs[i].v]);
  for (size_t i = 0; i < c->base.count; i++)
    if (!c->base.rows[i].matched)
      csv_line(f, &c->base.rows[i], NULL, NULL, "only-in-base");
  for (size_t i = 0; i < c->new_.count; i++)
    if (!c->new_.rows[i].matched)
      csv_line(f, NULL, &c->new_.rows[i], NULL, "only-in-new");
  return ferror(f) ? -1 : 0;
}

/* ---- JSON ---------------------------------------------------------------- */

/* A result's identity: the fields of its key. */
static void json_identity(FILE *f, const row *r) {
  kl__json_member(f, "", kl__field_key(KL__F_workload), r->workload);
  kl__json_member(f, ", ", kl__field_key(KL__F_rung), r->rung);
  kl__json_member(f, ", ", kl__field_key(KL__F_backend), r->backend);
  kl__json_member(f, ", ", kl__field_key(KL__F_type), r->type);
  kl__json_member(f, ", ", kl__field_key(KL__F_shape), r->shape);
  kl__json_member(f, ", ", kl__field_key(KL__F_op), r->op);
  kl__json_member(f, ", ", kl__field_key(KL__F_inputs), r->inputs);
  kl__json_member(f, ", ", kl__field_key(KL__F_params), r->params);
  /* compare's own key: whether the result is a ceiling (its flags). */
  fprintf(f, ", \"ceiling\": %s, \"occurrence\": %d", /* own key */
          r->ceiling ? "true" : "false", r->occurrence);
}

/* One side of a pair, or a result of one file. */
static void json_side(FILE *f, const row *r) {
  fprintf(f, "{\"%s\": %d", kl__field_key(KL__F_device), r->device);
  kl__json_member(f, ", ", kl__field_key(KL__F_device_name), r->device_name);
  kl__json_member_exact(f, ", ", kl__field_key(KL__F_median_s), r->median);
  kl__json_member_exact(f, ", ", kl__field_key(KL__F_percent_ceiling),
                        r->percent);
  fprintf(f, ", \"reps\": %zu", r->reps); /* own key: its timed runs */
  kl__json_member(f, ", ", kl__field_key(KL__F_check), r->check);
  kl__json_member(f, ", ", kl__field_key(KL__F_status), r->status);
  fputc('}', f);
}

static void json_file(FILE *f, const side *s) {
  kl__json_member(f, "{", "file", s->name);
  kl__json_member(f, ", ", "format", s->format);
  kl__json_member(f, ", ", kl__field_key(KL__F_started), s->started);
  kl__json_member(f, ", ", kl__field_key(KL__F_kladder), s->kladder);
  kl__json_member(f, ", ", kl__field_key(KL__F_commit), s->commit);
  kl__json_member(f, ", ", kl__field_key(KL__F_cpu), s->cpu);
  if (s->gpu && s->gpu[0])
    kl__json_member(f, ", ", kl__field_key(KL__F_gpu), s->gpu);
  else fprintf(f, ", \"%s\": null", kl__field_key(KL__F_gpu));
  fprintf(f, ", \"%s\": %s, \"results\": %zu}",
          kl__field_key(KL__F_interrupted), s->interrupted ? "true" : "false",
          s->count);
}

static int write_json(FILE *f, const kl_comparison *c) {
  fprintf(f, "{\n  \"format\": \"kladder-compare-1\",\n  \"%s\": ",
          kl__field_key(KL__F_kladder));
  kl__json_text(f, KL_VERSION);
  fputs(",\n  \"base\": ", f);
  json_file(f, &c->base);
  fputs(",\n  \"new\": ", f);
  json_file(f, &c->new_);
  kl__json_member_exact(f, ",\n  ", "threshold", c->threshold);
  kl__json_member_exact(f, ", ", "alpha", c->alpha);
  fprintf(f, ", \"min_reps\": %d,\n  \"method\": \"two-sided Mann-Whitney "
          "U over the timed runs: exact without ties up to %d runs in all, "
          "else the normal approximation with tie and continuity "
          "correction; the time ratio's interval the one the test inverts "
          "(Hodges-Lehmann, U's normal approximation)\",\n  \"pairs\": [",
          MIN_REPS, EXACT_MAX);
  for (size_t i = 0; i < c->count; i++) {
    const pair *p = &c->pairs[i];
    fprintf(f, "%s\n    {", i ? "," : "");
    json_identity(f, p->b);
    kl__json_member_exact(f, ", ", "time_ratio", p->ratio);
    kl__json_member_exact(f, ", ", "ceiling_ratio", p->ceil_ratio);
    kl__json_member_exact(f, ", ", "ratio_estimate", p->estimate);
    fputs(", \"ratio_interval\": ", f);
    if (isnan(p->lo)) {
      fputs("null", f);
    } else {
      fputc('[', f);
      kl__json_exact(f, p->lo);
      fputs(", ", f);
      kl__json_exact(f, p->hi);
      fputc(']', f);
    }
    kl__json_member_exact(f, ", ", "machine_ratio", p->machine);
    kl__json_member_exact(f, ", ", "u", p->u);
    kl__json_member_exact(f, ", ", "p_value", p->p);
    fprintf(f, ", \"test\": \"%s\", \"few_reps\": %s, \"verdict\": \"%s\", "
            "\"regression\": %s, \"base\": ", test_names[p->test],
            p->v <= V_MACHINE && p->few ? "true" : "false",
            verdict_names[p->v], p->regression ? "true" : "false");
    json_side(f, p->b);
    fputs(", \"new\": ", f);
    json_side(f, p->n);
    fputc('}', f);
  }
  fputs(c->count ? "\n  ],\n" : "],\n", f);
  for (int pass = 0; pass < 2; pass++) {
    const side *s = pass ? &c->new_ : &c->base;
    fprintf(f, "  \"only_in_%s\": [", pass ? "new" : "base");
    int any = 0;
    for (size_t i = 0; i < s->count; i++) {
      if (s->rows[i].matched) continue;
      fprintf(f, "%s\n    {", any++ ? "," : "");
      json_identity(f, &s->rows[i]);
      fputs(", \"result\": ", f);
      json_side(f, &s->rows[i]);
      fputc('}', f);
    }
    fputs(any ? "\n  ],\n" : "],\n", f);
  }
  fputs("  \"notes\": [", f); /* own key: the comparison's notes */
  for (size_t i = 0; i < c->note_count; i++) {
    fputs(i ? ", " : "", f);
    kl__json_text(f, c->notes[i]);
  }
  fputs("],\n  \"summary\": ", f); /* own key: the comparison's summary */
  fprintf(f, "{\"pairs\": %zu, \"slower\": %zu, "
          "\"faster\": %zu, \"machine\": %zu, \"same\": %zu, \"failed\": %zu, "
          "\"aside\": %zu, \"only_in_base\": %zu, \"only_in_new\": %zu, "
          "\"regression\": %s, \"exit_code\": %d}\n}\n", c->count,
          c->verdicts[V_SLOWER], c->verdicts[V_FASTER], c->verdicts[V_MACHINE],
          c->verdicts[V_SAME], c->verdicts[V_FAILED], c->verdicts[V_ASIDE],
          c->only_base, c->only_new,
          c->regression ? "true" : "false", kl_comparison_regressed(c));
  return ferror(f) ? -1 : 0;
}

/* ---- HTML ---------------------------------------------------------------- */


static void html_cell(FILE *f, const char *cls, const char *text) {
  fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "",
          cls ? "\"" : "");
  kl__html_text(f, "", text, "</td>");
}

static void html_side(FILE *f, const char *which, const side *s) {
  fprintf(f, "<p><b>%s</b> ", which);
  kl__html_text(f, "", s->name, ": kladder ");
  kl__html_escape(f, s->kladder[0] ? s->kladder : "?");
  if (s->commit[0]) kl__html_text(f, " (", s->commit, ")");
  kl__html_text(f, ", ", s->started, " | CPU: ");
  kl__html_text(f, "", s->cpu, " | GPU: ");
  kl__html_escape(f, s->gpu && s->gpu[0] ? s->gpu : "none");
  if (s->interrupted) fputs(" | interrupted", f);
  fputs("</p>\n", f);
}

/* The comparison as one <section class="kl-compare"> (its own <style>
 * inside) for a page to embed. */
static int write_section(FILE *f, const kl_comparison *c) {
  fputs("<section class=\"kl-compare\">\n<style>\n"
        ".kl-compare{font-family:sans-serif;font-size:14px}\n"
        ".kl-compare table{border-collapse:collapse}\n"
        ".kl-compare th,.kl-compare td{padding:2px 8px;text-align:right;"
        "border-bottom:1px solid #ddd;white-space:nowrap}\n"
        ".kl-compare th.t,.kl-compare td.t{text-align:left}\n"
        ".kl-compare tr.slower td.v,.kl-compare tr.failed td.v{color:#b00;"
        "font-weight:bold}\n"
        ".kl-compare tr.faster td.v{color:#070;font-weight:bold}\n"
        ".kl-compare tr.machine td.v{color:#a60}\n"
        ".kl-compare tr.ceiling{color:#666}\n"
        "</style>\n<h2>kladder compare</h2>\n", f);
  html_side(f, "base:", &c->base);
  html_side(f, "new:", &c->new_);
  fprintf(f, "<p>time: NEW's median over BASE's; %%ceil: NEW's share of its "
          "ceiling over BASE's; interval: NEW's time over BASE's at %g%%, "
          "the one a two-sided Mann-Whitney U test over the timed runs "
          "inverts; p: that test's; verdict beyond a threshold of %g%%; "
          "machine: a change the ceiling timed beside the rung made too."
          "</p>\n", 100 * (1 - c->alpha), c->threshold * 100);
  fputs("<table>\n<thead><tr><th class=\"t\">workload</th><th class=\"t\">"
        "problem</th><th class=\"t\">rung</th><th class=\"t\">backend</th>"
        "<th>base</th><th>new</th><th>time</th><th>base %ceil</th>"
        "<th>new %ceil</th><th>%ceil</th><th>reps</th><th>interval</th>"
        "<th>p</th><th class=\"t\">verdict</th></tr></thead>\n<tbody>\n", f);
  char text[512];
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < c->count; i++) {
      const pair *p = &c->pairs[i];
      if (p->b->ceiling != pass) continue;
      fprintf(f, "<tr class=\"%s%s\">", verdict_names[p->v],
              pass ? " ceiling" : "");
      html_cell(f, "t", p->b->workload);
      heading(p->b, text, sizeof text);
      const char *problem = strchr(text, ':');
      html_cell(f, "t", problem ? problem + 2 : text);
      char nth[16] = "";
      if (p->b->occurrence > 1)
        snprintf(nth, sizeof nth, " #%d", p->b->occurrence);
      snprintf(text, sizeof text, "%s%s%s", p->b->rung, nth,
               pass ? " [ceiling]" : "");
      html_cell(f, "t", text);
      backend_text(p, text, sizeof text);
      html_cell(f, "t", text);
      kl__time_text(p->b->state == SIDE_OK ? p->b->median : NAN, text,
                    sizeof text);
      html_cell(f, NULL, text);
      kl__time_text(p->n->state == SIDE_OK ? p->n->median : NAN, text,
                    sizeof text);
      html_cell(f, NULL, text);
      ratio_text(p->ratio, text, sizeof text);
      html_cell(f, NULL, text);
      for (int s = 0; s < 2; s++) {
        const double pct = (s ? p->n : p->b)->percent;
        if (pct > 0 && isfinite(pct)) snprintf(text, sizeof text, "%.1f%%",
                                               pct);
        else snprintf(text, sizeof text, "-");
        html_cell(f, NULL, text);
      }
      ratio_text(p->ceil_ratio, text, sizeof text);
      html_cell(f, NULL, text);
      snprintf(text, sizeof text, "%zu/%zu", p->b->reps, p->n->reps);
      html_cell(f, NULL, text);
      interval_text(p, text, sizeof text);
      html_cell(f, NULL, text);
      if (p->v > V_MACHINE || p->few || isnan(p->p))
        snprintf(text, sizeof text, "-");
      else
        snprintf(text, sizeof text, "%.2g", p->p);
      html_cell(f, NULL, text);
      if (p->v == V_FAILED || p->v == V_ASIDE)
        snprintf(text, sizeof text, "%s (BASE %s, NEW %s)",
                 verdict_names[p->v], p->b->check, p->n->check);
      else
        snprintf(text, sizeof text, "%s", verdict_names[p->v]);
      html_cell(f, "t v", text);
      fputs("</tr>\n", f);
    }
  fputs("</tbody>\n</table>\n<ul>\n", f);
  if (c->few)
    fprintf(f, "<li>few reps: fewer than %d timed runs on a side, or too few "
            "for the test to reach p &lt; %g at all: the time ratio alone "
            "decides.</li>\n", MIN_REPS, c->alpha);
  for (size_t i = 0; i < c->note_count; i++)
    kl__html_text(f, "<li>", c->notes[i], "</li>\n");
  for (int pass = 0; pass < 2; pass++) {
    const side *s = pass ? &c->new_ : &c->base;
    for (size_t i = 0; i < s->count; i++) {
      if (s->rows[i].matched) continue;
      label(&s->rows[i], text, sizeof text);
      fprintf(f, "<li>only in %s: ", pass ? "NEW" : "BASE");
      kl__html_text(f, "", text, "</li>\n");
    }
  }
  fprintf(f, "<li>%zu pairs: %zu slower, %zu faster, %zu machine, %zu same, "
          "%zu failed, %zu aside; %zu only in BASE, %zu only in NEW</li>\n"
          "</ul>\n</section>\n", c->count, c->verdicts[V_SLOWER],
          c->verdicts[V_FASTER], c->verdicts[V_MACHINE], c->verdicts[V_SAME],
          c->verdicts[V_FAILED], c->verdicts[V_ASIDE], c->only_base,
          c->only_new);
  return ferror(f) ? -1 : 0;
}

/* 'h': the report of both files (report-html.c), the comparison as its
 * first section. */
static void embed_comparison(FILE *f, const void *ctx) {
  (void)write_section(f, (const kl_comparison *)ctx);
}

static int write_field_table(FILE *f, const kl_comparison *c);

kl_status kl_comparison_print(const kl_comparison *c, kl_format format,
                              FILE *f) {
  if (!c || !f) return kl__usage(KL_USAGE, "kl_comparison_print: NULL");
  if (c->by_field && format != KL_FORMAT_TABLE)
    return kl__usage(KL_USAGE, "a comparison of one field (%s) writes its "
                     "table alone", c->field_name);
  errno = 0;
  int bad = 0;
  if (format == KL_FORMAT_HTML) {
    const char *inputs[2] = {c->base.path, c->new_.path};
    char err[1024];
    if (kl__report_page(f, inputs, 2, embed_comparison, c, err, sizeof err))
      return kl__usage(KL_USAGE, "%s", err);
  } else if (format == KL_FORMAT_TABLE) {
    bad = c->by_field ? write_field_table(f, c) : write_table(f, c);
  } else if (format == KL_FORMAT_CSV) {
    bad = write_csv(f, c);
  } else if (format == KL_FORMAT_JSON) {
    bad = write_json(f, c);
  } else {
    return kl__usage(KL_USAGE, "%d is not a format a comparison is written "
                     "in", (int)format);
  }
  if (bad || ferror(f))
    return kl__usage(KL_IO, "cannot write the comparison: %s",
                     strerror(errno ? errno : EIO));
  return kl__done(KL_OK);
}

kl_status kl_comparison_write(const kl_comparison *c, kl_format format,
                              const char *path) {
  if (!path) return kl__usage(KL_USAGE, "kl_comparison_write: path is NULL");
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return kl__usage(KL_NO_MEMORY, "out of memory");
  kl_status st = kl_comparison_print(c, format, f);
  if (fclose(f) != 0 && st == KL_OK)
    st = kl__usage(KL_NO_MEMORY, "out of memory");
  if (st == KL_OK) st = kl__file_write(path, text, len); /* "-": stdout */
  free(text);
  return st == KL_OK ? kl__done(KL_OK) : st;
}

/* ---- one field (--field) ------------------------------------------------ */

/* Pair p's value of the field in BASE and NEW (*x, *y where not NULL),
 * read from the files through the library: 0 higher, 1 lower (beyond the
 * threshold), 2 same, 3 not measured. */
static int field_moved(const kl_comparison *c, const pair *p, double *x,
                       double *y) {
  double bx = NAN, ny = NAN;
  const int have =
      kl_results_number(c->base.file, (size_t)(p->b - c->base.rows),
                        c->field, &bx) == KL_OK &&
      kl_results_number(c->new_.file, (size_t)(p->n - c->new_.rows),
                        c->field, &ny) == KL_OK;
  const double ratio = have && bx != 0 ? ny / bx : NAN;
  if (x) *x = have ? bx : NAN;
  if (y) *y = have ? ny : NAN;
  return !have ? 3
         : bx == ny || (isfinite(ratio) && fabs(ratio - 1) <= c->threshold)
             ? 2
         : ny > bx ? 0
                   : 1;
}

static const char *const field_says[] = {"higher", "lower", "same",
                                         "not measured"};

/* compare --field's table: each pair's value in BASE and NEW, NEW over
 * BASE and whether it moved beyond the threshold. */
static int write_field_table(FILE *f, const kl_comparison *c) {
  size_t tally[4] = {0};
  fprintf(f, "%-10s %-24s %-8s %12s %12s %9s  %s\n", "workload", "rung",
          "backend", "BASE", "NEW", "NEW/BASE", c->field_name);
  for (size_t i = 0; i < c->count; i++) {
    const pair *p = &c->pairs[i];
    double x, y;
    const int k = field_moved(c, p, &x, &y);
    const double ratio = k < 3 && x != 0 ? y / x : NAN;
    tally[k]++;
    char bs[24] = "-", ns[24] = "-", rs[24] = "-";
    if (k < 3) snprintf(bs, sizeof bs, "%.6g", x);
    if (k < 3) snprintf(ns, sizeof ns, "%.6g", y);
    if (isfinite(ratio)) snprintf(rs, sizeof rs, "%.3fx", ratio);
    fprintf(f, "%-10s %-24s %-8s %12s %12s %9s  %s\n", p->n->workload,
            p->n->rung, p->n->backend, bs, ns, rs, field_says[k]);
  }
  fprintf(f, "%zu pairs: %zu higher, %zu lower, %zu same, %zu not measured "
          "(%s; threshold %g)\n", c->count, tally[0], tally[1], tally[2],
          tally[3], c->field_name, c->threshold);
  return ferror(f) ? -1 : 0;
}

kl_status kl_comparison_pair(const kl_comparison *c, size_t i,
                             kl_compare_pair *out) {
  if (!c || !out || i >= c->count)
    return kl__usage(KL_USAGE, "kl_comparison_pair: no pair %zu (of %zu)", i,
                     c ? c->count : 0);
  if (out->size < sizeof *out)
    return kl__usage(KL_USAGE, "kl_comparison_pair: a pair of %zu bytes, "
                     "not %zu", out->size, sizeof *out);
  const pair *p = &c->pairs[i];
  const row *r = p->b;
  kl_compare_pair v = {sizeof v, r->workload, r->rung, r->backend, r->type,
                       r->shape, r->op, r->inputs, r->params, r->occurrence,
                       r->ceiling, p->b->median, p->n->median, p->ratio,
                       p->lo, p->hi, p->p, verdict_names[p->v],
                       p->regression};
  if (c->by_field) {
    const int k = field_moved(c, p, &v.base, &v.new_value);
    v.ratio = k < 3 && v.base != 0 ? v.new_value / v.base : NAN;
    v.low = v.high = v.p_value = NAN;
    v.verdict = field_says[k];
    v.regression = k < 2;
  }
  *out = v;
  return kl__done(KL_OK);
}

