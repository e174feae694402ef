/* cg's host solve: the seed's three kernels (matvec, waxpby, dot), run
 * serially or each an OpenMP parallel loop, the solve (with a rung's fused
 * kernels where it has them), and its timed loop.
 * The check's reference solve (cg.c) is this solve, OpenMP-parallel; the
 * host rungs (cg-omp.c) and the OpenACC rungs (cg-acc.c, with kernels of
 * their own) run its timed loop. */
#include <math.h>

#include "cg.h"
#include "cg-host.h"

/* ---- the seed's three kernels ---------------------------------------------
 * `parallel` 0 runs each loop on one thread: the serial rung is the same
 * code as the OpenMP one, without the threads. */

static void matvec(const kl__cg_host *h, const double *restrict v,
                   double *restrict out) {
  const kl__cg_matrix *m = &h->matrix;
  const int64_t *restrict offsets = m->offsets;
  const int32_t *restrict columns = m->columns;
  const double *restrict values = m->values;
  if (!values) {
#pragma omp parallel for if (h->parallel) schedule(static)
    for (int64_t row = 0; row < m->rows; row++)
      out[row] = kl__cg_stencil_row(m->n, m->stencil, row, v);
    return;
  }
#pragma omp parallel for if (h->parallel) schedule(static)
  for (int64_t row = 0; row < m->rows; row++) {
    double sum = 0;
    for (int64_t e = offsets[row]; e < offsets[row + 1]; e++)
      sum += values[e] * v[columns[e]];
    out[row] = sum;
  }
}

/* w = alpha x + beta y; w may be x or y. */
static void waxpby(const kl__cg_host *h, double alpha, const double *x,
                   double beta, const double *y, double *w) {
  const int64_t rows = h->matrix.rows;
#pragma omp parallel for if (h->parallel) schedule(static)
  for (int64_t i = 0; i < rows; i++) w[i] = alpha * x[i] + beta * y[i];
}

static double dot(const kl__cg_host *h, const double *restrict x,
                  const double *restrict y) {
  const int64_t rows = h->matrix.rows;
  double sum = 0;
#pragma omp parallel for if (h->parallel) schedule(static) reduction(+ : sum)
  for (int64_t i = 0; i < rows; i++) sum += x[i] * y[i];
  return sum;
}

const kl__cg_kernels kl__cg_host_kernels = {matvec, waxpby, dot, NULL,
                                            NULL,   NULL,   NULL};

/* Each kernel's time into its phase, and the kernel into the trace, where
 * phases are kept. */
#define TIMED(h, phase, call)                                                 \
  do {                                                                        \
    const double t0_ = (h)->phases ? kl__now() : 0;                           \
    call;                                                                     \
    if ((h)->phases) {                                                        \
      const double t1_ = kl__now();                                           \
      (h)->phases[phase] += t1_ - t0_;                                        \
      kl__trace_add((h)->reps, KL_TRACK_HOST, phase, -1, t0_ - (h)->origin,   \
                    t1_ - (h)->origin);                                       \
    }                                                                         \
  } while (0)

/* CG_GO_ON, and with marks: their crossings noted at iteration k, and
 * the solve going on past the tolerance to the attainable level, the
 * rounding one step makes (kl__cg_step_rounding), with x's norm read as
 * the tolerance is reached. */
static int going(kl__cg_host *h, int64_t k, double rr, double bb) {
  const kl_plan *p = h->plan;
  const int go = CG_GO_ON(p, k, rr, bb);
  kl__cg_marks *m = h->marks;
  if (!m) return go;
  const double tol = CG_TOL(p);
  if (m->near < 0 && !(rr > 100 * tol * tol * bb)) m->near = k;
  if (m->at < 0 && !go) {
    m->at = k;
    const double xx = h->kernels->dot(h, h->x, h->x);
    m->level = (double)kl__cg_step_rounding(m->widest, m->a_norm, sqrt(xx),
                                            sqrt(bb));
  }
  if (m->at >= 0 && m->floor < 0 && !(rr > m->level * m->level * bb))
    m->floor = k;
  return m->floor < 0 && k < CG_MAXIT(p) && rr > 0;
}

static kl_status solve(kl__cg_host *h, int64_t *iterations,
                       double *residual) {
  const kl__cg_kernels *f = h->kernels;
  double *x = h->x, *r = h->r, *pv = h->p, *ap = h->ap;
  double rr, bb, pAp;
  TIMED(h, CG_PHASE_SPMV, f->matvec(h, x, ap));
  TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, h->b, -1, ap, r));
  TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, r, 0, r, pv));
  TIMED(h, CG_PHASE_DOT, rr = f->dot(h, r, r));
  TIMED(h, CG_PHASE_DOT, bb = f->dot(h, h->b, h->b));
  int64_t k = 0;
  kl__cg_marks *m = h->marks;
  if (m) m->near = m->at = m->floor = -1;
  while (going(h, k, rr, bb)) {
    if (f->matvec_dot) {
      TIMED(h, CG_PHASE_SPMV, pAp = f->matvec_dot(h, pv, ap));
    } else {
      TIMED(h, CG_PHASE_SPMV, f->matvec(h, pv, ap));
      TIMED(h, CG_PHASE_DOT, pAp = f->dot(h, pv, ap));
    }
    if (h->failed != KL_OK) return h->failed;
    if (!(pAp > 0) || !isfinite(pAp)) return kl__cg_not_spd(pAp, k);
    const double alpha = rr / pAp;
    double next;
    if (f->update) {
      TIMED(h, CG_PHASE_AXPY, next = f->update(h, alpha, x, r, pv, ap));
    } else {
      TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, x, alpha, pv, x));
      TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, r, -alpha, ap, r));
      TIMED(h, CG_PHASE_DOT, next = f->dot(h, r, r));
    }
    TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, r, next / rr, pv, pv));
    rr = next;
    k++;
  }
  if (m && m->at < 0) m->at = k;
  if (m && m->floor < 0) m->floor = k;
  *iterations = m ? m->at : k;
  *residual = bb > 0 ? sqrt(rr / bb) : 0;
  return h->failed;
}

/* The kernels' begin and end around the solve, end on every path. */
kl_status kl__cg_host_solve(kl__cg_host *h, int64_t *iterations,
                            double *residual) {
  if (h->kernels->begin) h->kernels->begin(h);
  kl_status st = solve(h, iterations, residual);
  if (h->kernels->end) h->kernels->end(h);
  return st;
}

void kl__cg_host_from_args(const kl_args *a, int parallel, kl__cg_host *h) {
  const kl_plan *p = a->plan;
  h->plan = p;
  kl__cg_matrix_of(p, a->buffers, &h->matrix);
  h->b = a->buffers[CG_B];
  h->x = a->buffers[CG_X];
  h->r = a->buffers[CG_R];
  h->p = a->buffers[CG_P];
  h->ap = a->buffers[CG_AP];
  h->parallel = parallel;
  h->kernels = &kl__cg_host_kernels;
  h->buffers = a->buffers;
  h->phases = NULL;
  h->reps = NULL;
  h->origin = 0;
  h->failed = KL_OK;
  h->args = a;
  h->marks = NULL;
}

/* The host rungs' timed loop: x put back, the solve timed with the host
 * clock and its three kernels as phases spmv, dot, axpy. */
kl_status kl__cg_host_reps(const kl_args *a, kl_reps *reps, int parallel,
                           const kl__cg_kernels *kernels) {
  kl__cg_host h;
  kl__cg_host_from_args(a, parallel, &h);
  h.kernels = kernels;
  double *info = a->buffers[CG_INFO];
  for (int i = 0; i < reps->count; i++) {
    if (a->reset) {
      kl_status st = a->reset(a);
      if (st != KL_OK) return st;
    }
    double phases[KL_MAX_PHASES] = {0};
    h.phases = phases;
    h.reps = reps;
    reps->trace_count = reps->trace_lost = 0;
    int64_t k = 0;
    double residual = 0;
    const double t0 = kl__now();
    h.origin = t0;
    kl_status st = kl__cg_host_solve(&h, &k, &residual);
    reps->seconds[i] = kl__now() - t0;
    if (st != KL_OK) return st;
    for (int q = 0; q < CG_PHASE_COUNT; q++)
      reps->phase_seconds[(size_t)i * KL_MAX_PHASES + (size_t)q] = phases[q];
    /* Through the context: with another backend's kernels info may be in
     * device memory. */
    const double solved[CG_INFO_COUNT] = {[CG_INFO_ITERATIONS] = (double)k,
                                          [CG_INFO_RESIDUAL] = residual};
    st = a->ctx->backend->copy(a->ctx, 0, info, solved, sizeof solved);
    if (st == KL_OK) st = a->ctx->backend->sync(a->ctx);
    if (st != KL_OK) return st;
    if (a->counts) a->counts[CG_COUNT_ITERATIONS] = (double)k;
  }
  return KL_OK;
}
