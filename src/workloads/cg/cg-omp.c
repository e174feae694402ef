/* cg's host rungs: the seed's solve (cg-host.c) run serially (the serial
 * rung, the seed's starting code) or with each kernel an OpenMP parallel
 * loop (the openmp rung). */
#include "cg.h"
#include "cg-host.h"

kl_status kl__cg_serial(const kl_args *a, kl_reps *reps) {
  return kl__cg_host_reps(a, reps, 0, &kl__cg_host_kernels);
}

kl_status kl__cg_omp(const kl_args *a, kl_reps *reps) {
  return kl__cg_host_reps(a, reps, 1, &kl__cg_host_kernels);
}
