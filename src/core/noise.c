/* Repetitions by noise: when a series of timed runs has measured its
 * median well enough, and the 95% interval of that median.
 *
 * The interval is the distribution-free one of order statistics: for n
 * runs sorted, the median lies between the k-th smallest and the k-th
 * largest with probability 1 - 2 P(B < k), B binomial(n, 1/2), whatever
 * the times' distribution (runs independent and alike). k is the largest
 * count whose two tails stay within 2.5% each; below 6 runs even the
 * extremes cover less than 95% (1 - 2/2^n), and there is no interval. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

const char *kl_stop_name(kl_stop s) {
  switch (s) {
  case KL_STOP_REPS: return "reps";
  case KL_STOP_CONVERGED: return "converged";
  case KL_STOP_MAX_TIME: return "max-time";
  case KL_STOP_MAX_REPS: return "max-reps";
  }
  return "?";
}

/* The k of n runs (1-based: x_(k) and x_(n+1-k) bound the median's 95%
 * interval); 0 below KL_NOISE_MIN_REPS. The binomial tail is summed from
 * 5 standard deviations below the mean, where what it leaves out is under
 * 3e-7 of the 2.5% sought; each term in logs, as 2^-n underflows past
 * n = 1074. */
int kl__median_rank(int n) {
  if (n < KL_NOISE_MIN_REPS) return 0;
  const double half = 0.5 * n, sd = 0.5 * sqrt((double)n);
  int i = (int)floor(half - 5 * sd);
  if (i < 0) i = 0;
  const double base = lgamma(n + 1.0) - n * log(2.0);
  double tail = 0; /* P(B < i) */
  while (1) {
    const double p = exp(base - lgamma(i + 1.0) - lgamma(n - i + 1.0));
    if (tail + p > 0.025) break;
    tail += p;
    i++;
  }
  return i > 0 ? i : 1;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double sorted_median(const double *sorted, int n) {
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double kl__median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, compare_doubles);
  return sorted_median(t, n);
}

double kl__median_interval(const double *sorted, int n, double *low,
                           double *high) {
  const int k = kl__median_rank(n);
  *low = *high = 0;
  if (k < 1) return -1;
  *low = sorted[k - 1];
  *high = sorted[n - k];
  const double m = sorted_median(sorted, n);
  if (m <= 0) return -1;
  return fmax(m - *low, *high - m) / m;
}

double kl__median_spread(const kl_result *r) {
  if (r->t_low <= 0 || r->t_high <= 0 || r->t_median <= 0) return -1;
  return fmax(r->t_median - r->t_low, r->t_high - r->t_median) / r->t_median;
}

/* The runs still to make after n whose times are t[0..n): timed, the
 * sum of their times; wall, the series' seconds so far (warm-up, resets
 * and timed runs). 0 when the series is over, with why in *stop. scratch:
 * room for n values. */
int kl__noise_more(const kl__noise_rule *rule, const double *t, int n,
                   double timed, double wall, double *scratch,
                   kl_stop *stop) {
  if (rule->precision <= 0) {
    *stop = KL_STOP_REPS;
    return n < rule->min_reps ? rule->min_reps - n : 0;
  }
  double spread = -1;
  /* The minimum time is for runs long enough to reach it within the
   * most runs: runs of microseconds that have made them all are done. */
  if (n >= rule->min_reps) {
    memcpy(scratch, t, sizeof *t * (size_t)n);
    kl__median(scratch, n); /* sorts them */
    double low, high;
    spread = kl__median_interval(scratch, n, &low, &high);
    if (spread >= 0 && spread <= rule->precision &&
        (timed >= rule->min_seconds || n >= rule->max_reps)) {
      *stop = KL_STOP_CONVERGED;
      return 0;
    }
  }
  if (n >= rule->max_reps) {
    *stop = KL_STOP_MAX_REPS;
    return 0;
  }
  if (rule->max_seconds > 0 && wall >= rule->max_seconds) {
    *stop = KL_STOP_MAX_TIME;
    return 0;
  }
  if (n < rule->min_reps) return rule->min_reps - n;
  /* The interval narrows as 1/sqrt(n): the count that would reach the
   * precision, and the count that would reach the minimum time; at least
   * an eighth more (so that the sorts cost O(n log n) in all), at most as
   * many again (a guess from few runs goes no further), within the time
   * and count left. */
  double want = 0;
  if (spread > rule->precision)
    want = n * (spread / rule->precision) * (spread / rule->precision) - n;
  if (timed < rule->min_seconds && timed > 0)
    want = fmax(want, n * (rule->min_seconds - timed) / timed);
  want = fmin(fmax(want, n / 8.0), (double)n);
  if (rule->max_seconds > 0 && wall > 0)
    want = fmin(want, (rule->max_seconds - wall) / (wall / n));
  want = fmin(want, (double)(rule->max_reps - n));
  return want < 1 ? 1 : (int)want;
}
