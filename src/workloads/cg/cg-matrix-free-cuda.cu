/* cg's matrix-free CUDA rung (cg-gpu.h has the whole ladder; its sweeps
 * are in cg-matrix-free.h, which cg-dist's GPU rungs share). */
#include "cg-matrix-free.h"

/* ---- 11. matrix-free: the solve on the device ---------------------------- */

/* The finishing kernels sum as many partials as the stencil kernels
 * wrote: the matrix-free geometry's blocks in place of the CSR ones. */
static void mf_geometry(const kl_args *a, geometry *g) {
  mf_grid_of(a, g, &g->blocks);
  g->early = CG_EARLY;
}

/* r = b - A x0 and p = 0 (the first p is r + 0 p); r.r and b.b. */
static kl_status mf_start(const kl_args *a, const geometry *g) {
  mf_vectors v = {VEC(a, CG_X), NULL, VEC(a, CG_B),
                  NULL,         VEC(a, CG_R), VEC(a, CG_P)};
  KL_TRY(launch_stencil<MF_START>(a, g, v));
  return finish(a, g, FINISH_START);
}

/* Iteration j reads p from one of CG_P and CG_AP (no Ap is stored) and
 * writes the new p into the other: kernel A's neighbours of the old p must
 * not change under it. An even iteration leaves x alone; the odd one after
 * it adds both iterations' steps, while p_(j-1) is still in its buffer.
 * x is then read and written every other iteration: 7 passes an iteration,
 * not 8. */
static kl_status mf_iterations(const kl_args *a, const geometry *g,
                               int64_t first, int count) {
  for (int i = 0; i < count; i++) {
    const int odd = (int)((first + i) % 2);
    double *p_old = VEC(a, odd ? CG_AP : CG_P);
    double *p_new = VEC(a, odd ? CG_P : CG_AP);
    mf_vectors direction = {VEC(a, CG_R), p_old, NULL, NULL, NULL, p_new};
    KL_TRY(launch_stencil<MF_DIRECTION>(a, g, direction));
    KL_TRY(finish(a, g, FINISH_PAP));
    mf_vectors update = {p_new,        p_old,        NULL,
                         VEC(a, CG_X), VEC(a, CG_R), NULL};
    if (odd)
      KL_TRY(launch_stencil<MF_UPDATE>(a, g, update));
    else
      KL_TRY(launch_stencil<MF_RESIDUAL>(a, g, update));
    KL_TRY(finish(a, g, FINISH_RR));
  }
  return KL_OK;
}

static const device_rung mf_rung = {mf_start, mf_iterations, NULL,
                                     mf_settle};

static kl_status matrix_free_solve(const kl_args *a, const geometry *g,
                                   int64_t *k) {
  return device_solve(a, g, &mf_rung, k);
}

extern "C" kl_status kl__cg_gpu_matrix_free_solve(const kl_args *a,
                                                  geometry *g,
                                                  int64_t *iterations) {
  mf_geometry(a, g);
  KL_TRY(ensure_graph(a, g, mf_iterations));
  return matrix_free_solve(a, g, iterations);
}

extern "C" kl_status kl__cg_gpu_matrix_free(const kl_args *a,
                                            kl_reps *reps) {
  const kl_plan *p = a->plan;
  if (!CG_IS_GRID(p) || CG_ROWS(p) != CG_N(p) * CG_N(p) * CG_N(p))
    return kl__usage(KL_UNAVAILABLE, "cg: cuda-matrix-free needs a grid "
                     "(a stencil), not a matrix");
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  mf_geometry(a, &g);
  KL_TRY(ensure_graph(a, &g, mf_iterations));
  return repeat(a, reps, &g, NULL, matrix_free_solve);
}
