/* cg on the host: the seed's three kernels (matvec, waxpby, dot) and its
 * solve, run serially (the serial rung, the seed's starting code) or with
 * each kernel an OpenMP parallel loop (the openmp rung); the check's
 * reference solve; the 3D Poisson matrix in CSR and b = A x*. */
#include <math.h>
#include <stdlib.h>

#include "cg.h"
#include "cg-host.h"

/* ---- the 3D Poisson matrix ------------------------------------------------
 * Row (i, j, k) = i + n (j + n k). Its entries in ascending column order:
 * the 27-point stencil walks dk, dj, di from -1 to 1 (the diagonal is the
 * 14th where every neighbour exists); the 7-point one walks -n^2, -n, -1,
 * 0, +1, +n, +n^2. Both the CSR generator and the stencil's own product
 * (the matrix-free reference) follow that order, so that their sums round
 * alike. */

/* Neighbour range along one axis: lo = -1 unless at 0, hi = 1 unless at
 * the last point. */
#define AXIS_RANGE(c, n, lo, hi)                                              \
  const int lo = (c) > 0 ? -1 : 0, hi = (c) < (n) - 1 ? 1 : 0

int kl__cg_stencil_entries(int64_t n, int stencil, int64_t row,
                           int64_t columns[CG_STENCIL_MAX],
                           double values[CG_STENCIL_MAX]) {
  const int64_t i = row % n, j = row / n % n, k = row / n / n;
  AXIS_RANGE(i, n, i0, i1);
  AXIS_RANGE(j, n, j0, j1);
  AXIS_RANGE(k, n, k0, k1);
  const double diagonal = kl__cg_stencil_diagonal(stencil);
  int e = 0;
  if (stencil == CG_STENCIL_27) {
    for (int dk = k0; dk <= k1; dk++)
      for (int dj = j0; dj <= j1; dj++)
        for (int di = i0; di <= i1; di++, e++) {
          columns[e] = row + di + n * (dj + n * dk);
          values[e] = di == 0 && dj == 0 && dk == 0 ? diagonal : -1.0;
        }
    return e;
  }
  const int64_t step[3] = {n * n, n, 1};
  const int lo[3] = {k0, j0, i0}, hi[3] = {k1, j1, i1};
  for (int a = 0; a < 3; a++)
    if (lo[a]) columns[e] = row - step[a], values[e++] = -1.0;
  columns[e] = row, values[e++] = diagonal;
  for (int a = 2; a >= 0; a--)
    if (hi[a]) columns[e] = row + step[a], values[e++] = -1.0;
  return e;
}

int64_t kl__cg_stencil_nnz(int64_t n, int stencil) {
  if (stencil == CG_STENCIL_27) return (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
  return n * n * n + 6 * n * n * (n - 1);
}

double kl__cg_stencil_diagonal(int stencil) {
  return stencil == CG_STENCIL_27 ? 27.0 : 6.0;
}

void kl__cg_stencil_csr(int64_t n, int stencil, int64_t *offsets,
                        int32_t *columns, double *values) {
  const int64_t rows = n * n * n;
  int64_t c[CG_STENCIL_MAX];
  double v[CG_STENCIL_MAX];
  offsets[0] = 0;
#pragma omp parallel for schedule(static) private(c, v)
  for (int64_t row = 0; row < rows; row++)
    offsets[row + 1] = kl__cg_stencil_entries(n, stencil, row, c, v);
  for (int64_t row = 0; row < rows; row++) offsets[row + 1] += offsets[row];
#pragma omp parallel for schedule(static) private(c, v)
  for (int64_t row = 0; row < rows; row++) {
    const int count = kl__cg_stencil_entries(n, stencil, row, c, v);
    for (int e = 0; e < count; e++) {
      columns[offsets[row] + e] = (int32_t)c[e];
      values[offsets[row] + e] = v[e];
    }
  }
}

double kl__cg_stencil_row(int64_t n, int stencil, int64_t row,
                          const double *v) {
  int64_t c[CG_STENCIL_MAX];
  double a[CG_STENCIL_MAX];
  const int count = kl__cg_stencil_entries(n, stencil, row, c, a);
  double sum = 0;
  for (int e = 0; e < count; e++) sum += a[e] * v[c[e]];
  return sum;
}

double kl__cg_x_star(uint64_t seed, int64_t i) {
  return 2 * kl__uniform(seed, CG_STREAM_X_STAR, (uint64_t)i) - 1;
}

void kl__cg_make_b(const kl__cg_matrix *m, uint64_t seed, double *b) {
  int64_t c[CG_STENCIL_MAX];
  double a[CG_STENCIL_MAX];
#pragma omp parallel for schedule(static) private(c, a)
  for (int64_t row = 0; row < m->rows; row++) {
    double sum = 0;
    if (m->values) {
      for (int64_t e = m->offsets[row]; e < m->offsets[row + 1]; e++)
        sum += m->values[e] * kl__cg_x_star(seed, m->columns[e]);
    } else {
      const int count = kl__cg_stencil_entries(m->n, m->stencil, row, c, a);
      for (int e = 0; e < count; e++)
        sum += a[e] * kl__cg_x_star(seed, c[e]);
    }
    b[row] = sum;
  }
}

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
                                             NULL};

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

static kl_status solve(kl__cg_host *h, int64_t *iterations,
                       double *residual) {
  const kl_plan *p = h->plan;
  const kl__cg_kernels *f = h->kernels;
  double *x = h->x, *r = h->r, *pv = h->p, *ap = h->ap;
  double rr, bb, pAp;
  TIMED(h, CG_PHASE_SPMV, f->matvec(h, x, ap));
  TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, h->b, -1, ap, r));
  TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, r, 0, r, pv));
  TIMED(h, CG_PHASE_DOT, rr = f->dot(h, r, r));
  TIMED(h, CG_PHASE_DOT, bb = f->dot(h, h->b, h->b));
  int64_t k = 0;
  while (CG_GO_ON(p, k, rr, bb)) {
    TIMED(h, CG_PHASE_SPMV, f->matvec(h, pv, ap));
    TIMED(h, CG_PHASE_DOT, pAp = f->dot(h, pv, ap));
    if (!(pAp > 0) || !isfinite(pAp)) return kl__cg_not_spd(pAp, k);
    const double alpha = rr / pAp;
    TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, x, alpha, pv, x));
    TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, r, -alpha, ap, r));
    double next;
    TIMED(h, CG_PHASE_DOT, next = f->dot(h, r, r));
    TIMED(h, CG_PHASE_AXPY, f->waxpby(h, 1, r, next / rr, pv, pv));
    rr = next;
    k++;
  }
  *iterations = k;
  *residual = bb > 0 ? sqrt(rr / bb) : 0;
  return KL_OK;
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

kl_status kl__cg_serial(const kl_args *a, kl_reps *reps) {
  return kl__cg_host_reps(a, reps, 0, &kl__cg_host_kernels);
}

kl_status kl__cg_omp(const kl_args *a, kl_reps *reps) {
  return kl__cg_host_reps(a, reps, 1, &kl__cg_host_kernels);
}
