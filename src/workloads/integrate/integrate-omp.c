#include "integrate.h"

/* Every point costs the same, so a static schedule balances the threads;
 * each thread sums its share in double and the reduction adds the shares. */
kl_status kl__integrate_omp(const kl_args *a) {
  const int64_t n = a->plan->n;
  const double h = a->plan->constants[INTEGRATE_H];
  double sum = 0;
  if (a->plan->type == KL_F32) {
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (int64_t i = 0; i < n; i++) sum += kl__integrand_f32(i, h);
  } else {
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (int64_t i = 0; i < n; i++) sum += kl__integrand_f64(i, h);
  }
  ((double *)a->buffers[INTEGRATE_OUT])[0] = sum * h;
  return KL_OK;
}
