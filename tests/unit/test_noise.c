/* Repetitions by noise (src/core/noise.c) on a simulated noisy timer: the
 * median's interval has the ranks of the exact binomial and covers the
 * true median 95% of the time; the rule stops a quiet series once the
 * interval is within the precision (never before its minimum count and
 * time), a noisy one at its time or count bound, and a fixed count at the
 * count. Then through the harness: kl_run's results say how their runs
 * stopped, with an interval that holds their median. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/harness.h"
#include "expect.h"

/* Park-Miller's minimal standard generator, and normal deviates from it
 * (Box-Muller): the same draws on every machine. */
static unsigned long long state = 20261129;

static double uniform(void) {
  state = state * 16807 % 2147483647;
  return (double)state / 2147483647.0;
}

static double normal(void) {
  const double u = uniform(), v = uniform();
  return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* A run of `base` seconds spread by a factor exp(sigma z). */
static double simulated_run(double base, double sigma) {
  return base * exp(sigma * normal());
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The ranks against the binomial's, summed exactly (by a script) for the
 * counts below: the largest k with P(B < k) <= 2.5%. */
static void test_ranks(void) {
  static const int n[] = {5, 6, 7, 10, 20, 100, 1000};
  static const int k[] = {0, 1, 1, 2, 6, 40, 469};
  for (size_t i = 0; i < sizeof n / sizeof *n; i++)
    EXPECT(kl__median_rank(n[i]) == k[i]);
  EXPECT(kl__median_rank(KL_NOISE_MIN_REPS - 1) == 0);
  EXPECT(kl__median_rank(KL_NOISE_MAX_REPS) > 0);
}

/* 4000 series of 20 runs each from a skewed distribution whose median is
 * known (base: exp(sigma z) has median 1): the interval holds it in at
 * least 95% of them (the exact coverage at 20 is 95.86%) and at most 98%
 * (it is not the whole range); a binomial's 4 standard deviations apart
 * from 95.86% are 1.3%. */
static void test_coverage(void) {
  enum { SERIES = 4000, RUNS = 20 };
  double t[RUNS], low, high;
  int held = 0, made = 0;
  for (int s = 0; s < SERIES; s++) {
    for (int i = 0; i < RUNS; i++) t[i] = simulated_run(1e-3, 0.3);
    qsort(t, RUNS, sizeof *t, compare_doubles);
    made += kl__median_interval(t, RUNS, &low, &high) >= 0;
    held += low <= 1e-3 && 1e-3 <= high;
  }
  printf("interval of 20 runs: the median held in %d of %d\n", held, SERIES);
  EXPECT(made == SERIES);
  EXPECT(held >= 0.9456 * SERIES && held <= 0.98 * SERIES);
  /* Under 6 runs: no interval. */
  EXPECT(kl__median_interval(t, 5, &low, &high) < 0 && low == 0 && high == 0);
}

/* A series under the rule on the simulated timer: runs of 1 ms spread by
 * sigma, each costing `overhead` seconds more of wall clock (a reset). */
typedef struct outcome {
  int runs;
  kl_stop stop;
  double timed, wall, spread;
} outcome;

static outcome simulate(const kl__noise_rule *rule, double sigma,
                        double overhead) {
  enum { ROOM = KL_NOISE_MAX_REPS + 1 };
  static double t[ROOM], scratch[ROOM];
  outcome o = {0, KL_STOP_REPS, 0, 0, -1};
  int more;
  while ((more = kl__noise_more(rule, t, o.runs, o.timed, o.wall, scratch,
                                &o.stop)) > 0) {
    EXPECT(o.runs + more <= ROOM - 1 || !"more than the room");
    if (o.runs + more > ROOM - 1) break;
    for (int i = 0; i < more; i++) {
      t[o.runs] = simulated_run(1e-3, sigma);
      o.timed += t[o.runs];
      o.wall += t[o.runs] + overhead;
      o.runs++;
    }
  }
  memcpy(scratch, t, sizeof *t * (size_t)o.runs);
  qsort(scratch, (size_t)o.runs, sizeof *scratch, compare_doubles);
  double low, high;
  o.spread = kl__median_interval(scratch, o.runs, &low, &high);
  return o;
}

static void test_rule(void) {
  const kl__noise_rule noise = {KL_NOISE_MIN_REPS, KL_NOISE_MAX_REPS, 0.005,
                                KL_NOISE_MIN_SECONDS, 10};
  /* Quiet: converged, within the precision, after the minimum time (20
   * runs of 1 ms) and not much past it. */
  outcome o = simulate(&noise, 0.001, 0);
  printf("quiet: %d runs, %s, spread %.4f\n", o.runs, kl_stop_name(o.stop),
         o.spread);
  EXPECT(o.stop == KL_STOP_CONVERGED && o.spread >= 0 && o.spread <= 0.005);
  EXPECT(o.timed >= KL_NOISE_MIN_SECONDS && o.runs <= 40);
  /* 5% noise: about (1.96 x 1.25 x 5 / 0.5)^2 = 600 runs; converged,
   * neither far short nor far past. */
  o = simulate(&noise, 0.05, 0);
  printf("5%% noise: %d runs, %s, spread %.4f\n", o.runs,
         kl_stop_name(o.stop), o.spread);
  EXPECT(o.stop == KL_STOP_CONVERGED && o.spread <= 0.005);
  EXPECT(o.runs >= 300 && o.runs <= 2000);
  /* 50% noise under a 0.1 s bound, 1 ms of reset a run: the time bound,
   * overshot by less than a batch's eighth of what ran. */
  kl__noise_rule bounded = noise;
  bounded.max_seconds = 0.1;
  o = simulate(&bounded, 0.5, 1e-3);
  printf("50%% noise, 0.1 s: %d runs, %s, wall %.3f s, spread %.3f\n",
         o.runs, kl_stop_name(o.stop), o.wall, o.spread);
  EXPECT(o.stop == KL_STOP_MAX_TIME && o.spread > 0.005);
  EXPECT(o.wall >= 0.1 && o.wall < 0.1 * 1.25);
  /* No time bound: the count bound. */
  kl__noise_rule counted = noise;
  counted.max_seconds = 0;
  counted.max_reps = 500;
  o = simulate(&counted, 0.5, 0);
  EXPECT(o.stop == KL_STOP_MAX_REPS && o.runs == 500);
  /* Runs of microseconds, quiet: the most runs before the minimum time,
   * converged all the same. */
  kl__noise_rule tiny = noise;
  tiny.max_reps = 200;
  tiny.min_seconds = 1; /* 200 runs of 1 ms cannot reach it */
  o = simulate(&tiny, 0.001, 0);
  EXPECT(o.stop == KL_STOP_CONVERGED && o.runs == 200);
  /* A fixed count: exactly it, whatever the noise. */
  const kl__noise_rule fixed = {7, 7, 0, 0, 0};
  o = simulate(&fixed, 0.5, 0);
  EXPECT(o.stop == KL_STOP_REPS && o.runs == 7);
  /* Never converged under the minimum count, however quiet. */
  double same[KL_NOISE_MIN_REPS], scratch[KL_NOISE_MIN_REPS];
  for (int i = 0; i < KL_NOISE_MIN_REPS; i++) same[i] = 1.0;
  kl_stop stop = KL_STOP_REPS;
  EXPECT(kl__noise_more(&noise, same, KL_NOISE_MIN_REPS - 1, 1, 1, scratch,
                        &stop) == 1);
  EXPECT(kl__noise_more(&noise, same, KL_NOISE_MIN_REPS, 1, 1, scratch,
                        &stop) == 0 &&
         stop == KL_STOP_CONVERGED);
}

/* Through kl_run: by noise (the default) and with a fixed count. */
static void test_run(void) {
  for (int fixed = 0; fixed < 2; fixed++) {
    kl_options o;
    kl_options_init(&o);
    EXPECT(o.reps == 0 && o.precision == 0.005);
    o.workloads = "map";
    o.backends = "serial";
    o.n = 100000;
    o.skip_ceiling = 1;
    o.reps = fixed ? 3 : 0;
    o.precision = 0.05;
    kl_report *rep = NULL;
    EXPECT(kl_run(&o, &rep) == KL_OK && kl_report_count(rep) == 1);
    const kl_result *r = kl_report_result(rep, 0);
    if (r && fixed) {
      EXPECT(r->stop == KL_STOP_REPS && r->reps == 3 && r->t_low == 0);
    } else if (r) {
      printf("map serial by noise: %d runs, %s\n", r->reps,
             kl_stop_name(r->stop));
      EXPECT(r->reps >= KL_NOISE_MIN_REPS);
      EXPECT(r->stop == KL_STOP_CONVERGED || r->stop == KL_STOP_MAX_TIME);
      EXPECT(r->t_low > 0 && r->t_low <= r->t_median &&
             r->t_median <= r->t_high);
      EXPECT(r->stop != KL_STOP_CONVERGED ||
             kl__median_spread(r) <= o.precision);
    }
    kl_report_free(rep);
  }
  /* A precision out of range is refused, as a usage error. */
  kl_options bad;
  kl_options_init(&bad);
  bad.workloads = "map";
  bad.precision = 1;
  kl_report *rep = NULL;
  EXPECT(kl_run(&bad, &rep) == KL_USAGE);
  kl_report_free(rep);
}

int main(void) {
  test_ranks();
  test_coverage();
  test_rule();
  test_run();
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
