/* cg's pipelined CUDA rung (cg-gpu.h has the whole ladder). */
#include "cg-gpu.h"

/* ---- 9. pipelined CG (Ghysels and Vanroose) ----------------------------- */

/* Start, part 1: r = b - A x; b.b into partial 2 (0 and 1 are the next
 * kernel's). */
static __global__ void pipe_start_r_kernel(csr m, const double *__restrict__ x,
                                           const double *__restrict__ b,
                                           double *__restrict__ r,
                                           double *partials, int group) {
  double bb = 0;
  const int lane = group_lane(group);
  for (int64_t row = group_row(group); row - behind(group) < m.rows;
       row += groups(group)) {
    const double s = row_product(m, x, row, lane, group);
    if (lane == 0 && row < m.rows) {
      const double bi = b[row];
      r[row] = bi - s;
      bb += bi * bi;
    }
  }
  store_partial(bb, PARTIAL(partials, 2));
}

/* Start, part 2: w = A r; z, s and p start at zero (beta = 0 then
 * multiplies them: poison would make NaN); gamma = r.r and delta = w.r
 * for the first iteration. */
static __global__ void
pipe_start_w_kernel(csr m, const double *__restrict__ r, double *__restrict__ w,
                    double *__restrict__ z, double *__restrict__ s,
                    double *__restrict__ p, double *partials, int group) {
  double gamma = 0, delta = 0;
  const int lane = group_lane(group);
  for (int64_t row = group_row(group); row - behind(group) < m.rows;
       row += groups(group)) {
    const double sum = row_product(m, r, row, lane, group);
    if (lane == 0 && row < m.rows) {
      const double ri = r[row];
      w[row] = sum;
      z[row] = 0;
      s[row] = 0;
      p[row] = 0;
      gamma += ri * ri;
      delta += sum * ri;
    }
  }
  store_partial(gamma, PARTIAL(partials, 0));
  store_partial(delta, PARTIAL(partials, 1));
}

static __global__ void pipe_finish_start_kernel(const double *partials,
                                                unsigned count, double *scalars,
                                                stop_rule stop) {
  const double gamma = total(partials, 0, count);
  const double bb = total(partials, 2, count);
  if (threadIdx.x != 0) return;
  scalars[S_RR] = gamma;
  scalars[S_BB] = bb;
  scalars[S_K] = 0;
  scalars[S_BAD] = 0;
  scalars[S_ALPHA] = 0; /* every scalar a kernel might load is set */
  scalars[S_BETA] = 0;
  scalars[S_REPLACED] = 1;
  scalars[S_DONE] = go_on(stop, 0, gamma, bb) ? RUNNING : STOPPED;
}

/* The iteration's one reduction, finished: gamma = r.r, delta = w.r from
 * the last update; stop, or alpha and beta. The denominator is p.Ap in
 * exact arithmetic, and breaks down as it does.
 *
 * Residual replacement. The recurrences' r drifts from b - A x further
 * than plain CG's, since w = A r, s = A p and z = A s are recurrences too
 * and each passes its rounding on (Cools, Yetkin, Agullo, Giraud and
 * Vanroose, "Analyzing the effect of local rounding error propagation on
 * the maximal attainable accuracy of the pipelined Conjugate Gradient
 * method", SIAM J. Matrix Anal. Appl. 39(1), 2018): on a band of
 * condition 1e6 the true residual stalled at 2.6 tol. As their p-CG-rr
 * does, the solve asks the host (REPLACE) to compute r = b - A x, w = A r,
 * s = A p and z = A s in place of the recurrences' and goes on with the
 * same direction p: in tolerance mode every REPLACE_PERIOD iterations
 * (a fixed period in place of their criterion, whose estimates need more
 * norms in the reduction) and when the recurrences say it converged (the
 * next decide then stops on the true r, or goes on); in either mode when
 * the recurrences' denominator is not positive. Where the denominator
 * right after a replacement is not positive either, the solve starts
 * afresh from the true r (beta = 0). Restarting at every replacement in
 * place of keeping p, as an earlier form did, converged on the band of
 * condition 1e6 only after 3.5 times plain CG's iterations; keeping p,
 * every 48 iterations, 1.13 times (a CPU emulation of the recurrences
 * on matrices of condition 1e2 to 1e8). */
#define REPLACE_PERIOD (3 * BATCH)
static __global__ void pipe_decide_kernel(const double *partials,
                                          unsigned count, double *scalars,
                                          stop_rule stop) {
  if (stopped(scalars)) return;
  const double gamma = total(partials, 0, count);
  const double delta = total(partials, 1, count);
  if (threadIdx.x != 0) return;
  const int64_t k = (int64_t)scalars[S_K];
  const bool replaced = scalars[S_REPLACED] != 0;
  if (!go_on(stop, k, gamma, scalars[S_BB])) {
    if (!stop.fixed && k < stop.maxit && gamma > 0 && !replaced) {
      scalars[S_DONE] = REPLACE;
      return;
    }
    scalars[S_RR] = gamma;
    scalars[S_DONE] = STOPPED;
    return;
  }
  if (!stop.fixed && !replaced && k % REPLACE_PERIOD == 0) {
    scalars[S_DONE] = REPLACE;
    return;
  }
  double beta = k == 0 ? 0 : gamma / scalars[S_RR];
  double denominator = k == 0 ? delta : delta - beta * gamma / scalars[S_ALPHA];
  /* Past convergence (the seed's fixed 100 iterations of the 27-point
   * matrix) the recurrences' denominator is a difference of rounding
   * noise and can come out negative (-3e-24 at k = 64 on 20^3): replace,
   * and where the true vectors' is not positive either, start afresh,
   * whose denominator is r.Ar itself. Only that one's is a breakdown. */
  if (!positive_finite(denominator) && k > 0 && !replaced) {
    scalars[S_DONE] = REPLACE;
    return;
  }
  if (!positive_finite(denominator) && k > 0) {
    beta = 0;
    denominator = delta;
  }
  if (!positive_finite(denominator)) {
    scalars[S_BAD] = denominator;
    scalars[S_DONE] = BROKE_DOWN;
    return;
  }
  scalars[S_ALPHA] = gamma / denominator;
  scalars[S_BETA] = beta;
  scalars[S_RR] = gamma;
  scalars[S_K] = (double)(k + 1);
  scalars[S_REPLACED] = 0;
}

/* Every recurrence at once, and the next iteration's r.r and w.r. */
static __global__ void
pipe_update_kernel(double *__restrict__ x, double *__restrict__ r,
                   double *__restrict__ p, double *__restrict__ w,
                   double *__restrict__ z, double *__restrict__ s,
                   const double *__restrict__ q, int64_t n,
                   const double *scalars, double *partials) {
  if (stopped(scalars)) return;
  const double alpha = scalars[S_ALPHA], beta = scalars[S_BETA];
  double gamma = 0, delta = 0;
  for (int64_t i = thread_index(); i < n; i += grid_threads()) {
    const double zi = q[i] + beta * z[i];
    const double wi = w[i], ri = r[i];
    const double si = wi + beta * s[i];
    const double pi = ri + beta * p[i];
    const double r_next = ri - alpha * si, w_next = wi - alpha * zi;
    z[i] = zi;
    s[i] = si;
    p[i] = pi;
    x[i] += alpha * pi;
    r[i] = r_next;
    w[i] = w_next;
    gamma += r_next * r_next;
    delta += w_next * r_next;
  }
  store_partial(gamma, PARTIAL(partials, 0));
  store_partial(delta, PARTIAL(partials, 1));
}

/* A replacement, part 1: r = b - A x and s = A p, the true vectors. */
static __global__ void pipe_replace_rs_kernel(csr m,
                                              const double *__restrict__ x,
                                              const double *__restrict__ b,
                                              const double *__restrict__ p,
                                              double *__restrict__ r,
                                              double *__restrict__ s,
                                              int group) {
  const int lane = group_lane(group);
  for (int64_t row = group_row(group); row - behind(group) < m.rows;
       row += groups(group)) {
    const double ax = row_product(m, x, row, lane, group);
    const double ap = row_product(m, p, row, lane, group);
    if (lane == 0 && row < m.rows) {
      r[row] = b[row] - ax;
      s[row] = ap;
    }
  }
}

/* Part 2: w = A r and z = A s; gamma = r.r and delta = w.r for the next
 * decide. */
static __global__ void pipe_replace_wz_kernel(csr m,
                                              const double *__restrict__ r,
                                              const double *__restrict__ s,
                                              double *__restrict__ w,
                                              double *__restrict__ z,
                                              double *partials, int group) {
  double gamma = 0, delta = 0;
  const int lane = group_lane(group);
  for (int64_t row = group_row(group); row - behind(group) < m.rows;
       row += groups(group)) {
    const double ar = row_product(m, r, row, lane, group);
    const double as = row_product(m, s, row, lane, group);
    if (lane == 0 && row < m.rows) {
      const double ri = r[row];
      w[row] = ar;
      z[row] = as;
      gamma += ri * ri;
      delta += ar * ri;
    }
  }
  store_partial(gamma, PARTIAL(partials, 0));
  store_partial(delta, PARTIAL(partials, 1));
}

/* After a replacement: the next decide goes on from the true vectors. */
static __global__ void pipe_resume_kernel(double *scalars) {
  scalars[S_REPLACED] = 1;
  scalars[S_DONE] = RUNNING;
}

/* ---- 9. pipelined: launches --------------------------------------------- */

/* The start: r = b - A x, w = A r, z = s = p = 0, gamma and delta. */
static kl_status pipe_products(const kl_args *a, const geometry *g) {
  pipe_start_r_kernel<<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_X), VEC(a, CG_B), VEC(a, CG_R), PARTIALS(a), g->group);
  KL_GPU_CHECK_LAUNCH(pipe_start_r_kernel);
  pipe_start_w_kernel<<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_R), VEC(a, CG_W), VEC(a, CG_Z), VEC(a, CG_S),
      VEC(a, CG_P), PARTIALS(a), g->group);
  KL_GPU_CHECK_LAUNCH(pipe_start_w_kernel);
  return KL_OK;
}

static kl_status pipe_start(const kl_args *a, const geometry *g) {
  KL_TRY(pipe_products(a, g));
  pipe_finish_start_kernel<<<1, FINAL_BLOCK, 0, g->s>>>(
      PARTIALS(a), g->blocks, SCALARS(a), g->stop);
  KL_GPU_CHECK_LAUNCH(pipe_finish_start_kernel);
  return KL_OK;
}

/* decide (gamma, delta -> alpha, beta), q = A w, the update with both
 * dots: three launches, one reduction. The SpMV does not wait for the
 * reduction's result; on one stream it runs after the one-block decide.
 * The SpMV is the stream kernel's, not the lanes' of the rungs before it:
 * the recurrences' drift depends on the SpMV's rounding, and on the
 * lanes' sums this rung missed cg_hard.sh's bounds for three points of
 * its byte bound (LESSONS.md, cuda-pipelined). */
static kl_status pipe_iterations(const kl_args *a, const geometry *g,
                                 int64_t first, int count) {
  (void)first;
  for (int i = 0; i < count; i++) {
    pipe_decide_kernel<<<1, FINAL_BLOCK, 0, g->s>>>(PARTIALS(a), g->blocks,
                                                    SCALARS(a), g->stop);
    KL_GPU_CHECK_LAUNCH(pipe_decide_kernel);
    spmv_stream_kernel<SPMV_OUT, true><<<g->blocks, BLOCK, 0, g->s>>>(
        g->m, VEC(a, CG_W), VEC(a, CG_AP), NULL, NULL, SCALARS(a),
        PARTIALS(a));
    KL_GPU_CHECK_LAUNCH(spmv_stream_kernel);
    pipe_update_kernel<<<g->blocks, BLOCK, 0, g->s>>>(
        VEC(a, CG_X), VEC(a, CG_R), VEC(a, CG_P), VEC(a, CG_W), VEC(a, CG_Z),
        VEC(a, CG_S), VEC(a, CG_AP), g->rows, SCALARS(a), PARTIALS(a));
    KL_GPU_CHECK_LAUNCH(pipe_update_kernel);
  }
  return KL_OK;
}

/* The residual replacement the decide asks for (REPLACE): r, s, then w
 * and z, from x and p as they are. */
static kl_status pipe_replace(const kl_args *a, const geometry *g) {
  pipe_replace_rs_kernel<<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_X), VEC(a, CG_B), VEC(a, CG_P), VEC(a, CG_R),
      VEC(a, CG_S), g->group);
  KL_GPU_CHECK_LAUNCH(pipe_replace_rs_kernel);
  pipe_replace_wz_kernel<<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_R), VEC(a, CG_S), VEC(a, CG_W), VEC(a, CG_Z),
      PARTIALS(a), g->group);
  KL_GPU_CHECK_LAUNCH(pipe_replace_wz_kernel);
  pipe_resume_kernel<<<1, 1, 0, g->s>>>(SCALARS(a));
  KL_GPU_CHECK_LAUNCH(pipe_resume_kernel);
  return KL_OK;
}

static const device_rung pipe_rung = {pipe_start, pipe_iterations,
                                      pipe_replace, NULL};

static kl_status pipelined_solve(const kl_args *a, const geometry *g,
                                 int64_t *k) {
  return device_solve(a, g, &pipe_rung, k);
}

extern "C" kl_status kl__cg_gpu_pipelined(const kl_args *a, kl_reps *reps) {
  const int64_t rows = CG_ROWS(a->plan);
  KL_TRY(ready(a));
  KL_TRY(require(a, CG_W, rows, "w (kl__cg_gpu_pipelined_scratch)"));
  KL_TRY(require(a, CG_Z, rows, "z (kl__cg_gpu_pipelined_scratch)"));
  KL_TRY(require(a, CG_S, rows, "s (kl__cg_gpu_pipelined_scratch)"));
  geometry g = geometry_of(a);
  /* Batches of BATCH, not the tuning: a replacement, every REPLACE_PERIOD
   * iterations, then falls at a batch's end, where the host makes it; in
   * a longer batch the iterations after it would wait, empty. */
  g.batch = BATCH;
  KL_TRY(ensure_graph(a, &g, pipe_iterations));
  return repeat(a, reps, &g, NULL, pipelined_solve);
}
