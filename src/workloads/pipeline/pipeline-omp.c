#include "pipeline.h"

/* Interval by interval on the host, each one's sum traced as host work:
 * one loop (serial) or a parallel for (openmp). */
static double sum_serial(int64_t first, int64_t n, double h) {
  double sum = 0;
  for (int64_t i = 0; i < n; i++) sum += kl__integrand_f64(first + i, h);
  return sum;
}

static double sum_parallel(int64_t first, int64_t n, double h) {
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (int64_t i = 0; i < n; i++) sum += kl__integrand_f64(first + i, h);
  return sum;
}

static kl_status on_host(const kl_args *a, kl_reps *reps,
                         double (*sum_interval)(int64_t, int64_t, double)) {
  const kl_plan *p = a->plan;
  const int64_t n = p->n, intervals = kl__pipe_intervals(p);
  const double h = p->constants[PIPE_H];
  for (int r = 0; r < reps->count; r++) {
    kl_status st = a->reset ? a->reset(a) : KL_OK;
    if (st != KL_OK) return st;
    reps->trace_count = reps->trace_lost = 0;
    const double origin = kl__now();
    double total = 0, end = 0;
    for (int64_t j = 0; j < intervals; j++) {
      const double start = kl__now() - origin;
      total += sum_interval(j * n, n, h);
      end = kl__now() - origin;
      kl__trace_add(reps, KL_TRACK_HOST, PIPE_HOST, (int)j, start, end);
    }
    ((double *)a->buffers[PIPE_OUT])[0] = total * h;
    reps->seconds[r] = end;
    for (int k = 0; k < 3; k++)
      reps->phase_seconds[(size_t)r * KL_MAX_PHASES + (size_t)k] =
          kl__trace_busy(reps->trace, reps->trace_count, k);
  }
  return KL_OK;
}

kl_status kl__pipe_serial(const kl_args *a, kl_reps *reps) {
  return on_host(a, reps, sum_serial);
}

kl_status kl__pipe_omp(const kl_args *a, kl_reps *reps) {
  return on_host(a, reps, sum_parallel);
}
