/* cg's fused CUDA rungs (cg-gpu.h has the whole ladder): the SpMV with
 * p.Ap, then x, r and r.r in one kernel, then p. cuda-fused reads the
 * scalars on the host; cuda-device-scalars keeps them on the device and
 * reads a flag once per batch; cuda-graph launches the batch as a graph. */
#include "cg-gpu.h"

/* ---- 5 to 7. the kernels after the SpMV --------------------------------- */

/* x += alpha p, r -= alpha Ap, and the new r.r. */
template <bool DEV>
static __global__ void
update_kernel(double *__restrict__ x, double *__restrict__ r,
              const double *__restrict__ p, const double *__restrict__ ap,
              int64_t n, double alpha, const double *scalars,
              double *partials) {
  if (DEV) {
    if (stopped(scalars)) return;
    alpha = scalars[S_ALPHA];
  }
  double rr = 0;
  for (int64_t i = thread_index(); i < n; i += grid_threads()) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * ap[i];
    r[i] = ri;
    rr += ri * ri;
  }
  store_partial(rr, partials);
}

/* p = r + beta p. */
template <bool DEV>
static __global__ void direction_kernel(double *__restrict__ p,
                                        const double *__restrict__ r, int64_t n,
                                        double beta, const double *scalars) {
  if (DEV) {
    if (stopped(scalars)) return;
    beta = scalars[S_BETA];
  }
  for (int64_t i = thread_index(); i < n; i += grid_threads())
    p[i] = r[i] + beta * p[i];
}

/* ---- 5. fused: three kernels an iteration, the scalars on the host ------ */

/* The fused and device-scalar start: r = b - A x, p = r; r.r and b.b. */
static kl_status launch_start(const kl_args *a, const geometry *g) {
  spmv_stream_kernel<SPMV_START, false><<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_X), VEC(a, CG_R), VEC(a, CG_B), VEC(a, CG_P),
      SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(spmv_stream_kernel);
  return KL_OK;
}

template <bool DEV>
static kl_status launch_spmv_dot(const kl_args *a, const geometry *g) {
  spmv_stream_kernel<SPMV_DOT, DEV><<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_P), VEC(a, CG_AP), NULL, NULL, SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(spmv_stream_kernel);
  return KL_OK;
}

template <bool DEV>
static kl_status launch_update(const kl_args *a, const geometry *g,
                               double alpha) {
  update_kernel<DEV><<<g->blocks, BLOCK, 0, g->s>>>(
      VEC(a, CG_X), VEC(a, CG_R), VEC(a, CG_P), VEC(a, CG_AP), g->rows, alpha,
      SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(update_kernel);
  return KL_OK;
}

template <bool DEV>
static kl_status launch_direction(const kl_args *a, const geometry *g,
                                  double beta) {
  direction_kernel<DEV><<<g->blocks, BLOCK, 0, g->s>>>(
      VEC(a, CG_P), VEC(a, CG_R), g->rows, beta, SCALARS(a));
  KL_GPU_CHECK_LAUNCH(direction_kernel);
  return KL_OK;
}

static kl_status fused_solve(const kl_args *a, const geometry *g,
                             int64_t *iterations) {
  double start[2] = {0, 0}, pap = 0, rr_next = 0;
  KL_TRY(launch_start(a, g));
  KL_TRY(totals(a, g, 2, start));
  double rr = start[0], beta = 0;
  const double bb = start[1];
  int64_t k = 0;
  while (go_on(g->stop, k, rr, bb)) {
    if (k > 0) KL_TRY(launch_direction<false>(a, g, beta));
    KL_TRY(launch_spmv_dot<false>(a, g));
    KL_TRY(totals(a, g, 1, &pap));
    if (!positive_finite(pap)) return kl__cg_not_spd(pap, k);
    KL_TRY(launch_update<false>(a, g, rr / pap));
    KL_TRY(totals(a, g, 1, &rr_next));
    beta = rr_next / rr;
    rr = rr_next;
    k++;
  }
  *iterations = k;
  return put_info(a, g, k, rr, bb);
}

extern "C" kl_status kl__cg_gpu_fused(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, fused_solve);
}

/* ---- 6 and 7. device scalars: batches of iterations, or a graph --------- */

static kl_status scalar_start(const kl_args *a, const geometry *g) {
  KL_TRY(launch_start(a, g));
  return finish(a, g, FINISH_START);
}

static kl_status scalar_iterations(const kl_args *a, const geometry *g,
                                   int64_t first, int count) {
  (void)first;
  for (int i = 0; i < count; i++) {
    KL_TRY(launch_spmv_dot<true>(a, g));
    KL_TRY(finish(a, g, FINISH_PAP));
    KL_TRY(launch_update<true>(a, g, 0));
    KL_TRY(finish(a, g, FINISH_RR));
    KL_TRY(launch_direction<true>(a, g, 0));
  }
  return KL_OK;
}

static const device_rung scalar_rung = {scalar_start, scalar_iterations,
                                        NULL, NULL};

static kl_status device_scalars_solve(const kl_args *a, const geometry *g,
                                      int64_t *k) {
  return device_solve(a, g, &scalar_rung, k);
}

extern "C" kl_status kl__cg_gpu_device_scalars(const kl_args *a,
                                               kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, device_scalars_solve);
}

extern "C" kl_status kl__cg_gpu_graph(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  KL_TRY(ensure_graph(a, &g, scalar_iterations));
  return repeat(a, reps, &g, NULL, device_scalars_solve);
}
