/* cg-dist: cg's solve of the 3D Poisson system (27-point or 7-point, the
 * seed's matrix) split over the ranks of a run (kl_ranks), HPCG's way:
 * the grid over a px x py x pz rank grid whose busiest rank exchanges the
 * fewest points (kl__rank_grid; weak scaling: slabs along z), each rank
 * the rows of its box; before each product, p's values on the box's
 * faces (and, for 27 points, its edges and corners: up to 26 neighbours)
 * sent to the neighbours that read them, into a one-point layer around
 * each rank's box; each dot a local sum, then an allreduce. One rank (a
 * run without mpirun) is cg's solve of the same grid, no message sent.
 *
 * The split: weak scaling (the default), an n^3 box per rank, the grid
 * (px n) x (py n) x (pz n); strong, an n^3 grid, each axis shared in order
 * (kl__share). The rows are a box's points, x fastest, global row the
 * grid point's index; x*, b = A x* and the stopping rule are cg's over the
 * whole grid (cg.h): every rank makes the same decision from the same
 * allreduced dots.
 * Layout: b, x, r and Ap hold the box's rows; p holds the box with its
 * layer ((lx+2)(ly+2)(lz+2)), which the product reads; the CSR matrix's
 * columns index that layered box. The matrix-free rungs apply the stencil
 * with the grid's bounds instead (a neighbour outside the grid has no
 * entry, as in cg), in the same order of terms. The GPU rungs
 * (cg-dist-cuda.cu, cg-dist-nccl.cu: the halo and the dots through NCCL
 * on the device) run cg's cuda-matrix-free sweeps on the box: their p
 * has no layer, and the sweeps read past the box from a layered box the
 * received halo is put in (cg-dist.h has the halo's layout, which every
 * rung shares).
 * The check: the true residual |b - A x| / |b| over the whole grid (x's
 * layer exchanged first), in long double, summed over the ranks, against
 * cg's bounds (cg.c), and the iterations against a reference solve made
 * the same way over the same ranks (OpenMP, matrix-free, blocking).
 * Cost model: cg's for its seed kernels (14 passes over the vectors an
 * iteration; the CSR matrix once, none for the matrix-free rungs), and
 * for the GPU rungs cg's for cuda-matrix-free (7 passes), over the rank's
 * rows, summed over the ranks by the harness; the halos moved are not
 * counted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg-dist.h"
#include "cg-host.h"
#include "../../registry.h"

/* A box's nonzeros: each point's in-grid neighbours and itself. Along an
 * axis a box of l points from `start` in a grid of g has 3 l - [start =
 * 0] - [start + l = g] in-grid offsets of -1, 0, +1: the 27-point count
 * is the product over the axes, the 7-point one the rows plus each axis's
 * off-centre offsets times the rows of the other two. */
static int64_t box_nnz(const cgdist_box *b, int stencil) {
  int64_t along[3], rows = b->l[0] * b->l[1] * b->l[2];
  for (int a = 0; a < 3; a++)
    along[a] = 3 * b->l[a] - (b->start[a] == 0) -
               (b->start[a] + b->l[a] == b->grid[a]);
  if (stencil == CG_STENCIL_27) return along[0] * along[1] * along[2];
  int64_t nnz = rows;
  for (int a = 0; a < 3; a++) nnz += (along[a] - b->l[a]) * (rows / b->l[a]);
  return nnz;
}

static kl_status plan(kl_plan *p) {
  double *v = p->value;
  const int ranks = kl__rank_count(p);
  if (!(p->given >> D_P_MAXIT & 1)) v[D_P_MAXIT] = D_FIXED(p) ? 100 : 10000;
  int dims[3], coord[3];
  kl_status st = dist_grid(p, dims);
  if (st != KL_OK) return st;
  if (ranks > 1) memcpy(p->rank_grid, dims, sizeof dims);
  kl__rank_coords(kl__rank(p), dims, coord);
  double ext_points = 1, grid_points = 1;
  for (int a = 0; a < 3; a++) {
    int64_t start = p->n * coord[a], len = p->n, grid = p->n * dims[a];
    if (p->strong) {
      kl__share(p->n, coord[a], dims[a], &start, &len);
      grid = p->n;
    }
    p->constants[D_EXT + a] = (double)len;
    p->constants[D_START + a] = (double)start;
    p->constants[D_GRID + a] = (double)grid;
    ext_points *= (double)(len + 2);
    grid_points *= (double)grid;
  }
  /* Columns index the layered box in int32. */
  if (ext_points >= 0x1p31)
    return kl__usage(KL_TOO_LARGE, "cg-dist: a rank's box with its layer "
                     "has %.4g points, more than int32 columns index",
                     ext_points);
  if (grid_points > 0x1p53)
    return kl__usage(KL_TOO_LARGE, "cg-dist: a grid of %.4g rows over %d "
                     "ranks is too many", grid_points, ranks);
  const cgdist_box b = cgdist_box_of(p);
  const int64_t rows = b.l[0] * b.l[1] * b.l[2],
                nnz = box_nnz(&b, D_STENCIL(p));
  p->constants[D_NNZ] = (double)nnz;
  p->constant_count = D_NNZ + 1;
  kl__cg_plan_buffers(p, rows, nnz);
  return KL_OK;
}

/* r, p with its layer, Ap, and the halo's regions: each of the layer's
 * points once to send and once to receive. */
static kl_status scratch(kl_plan *p) {
  const cgdist_box b = cgdist_box_of(p);
  const int64_t rows = b.l[0] * b.l[1] * b.l[2],
                ext = b.e[0] * b.e[1] * b.e[2];
  kl_status st = kl__plan_scratch(p, CG_R, "r", KL_F64, rows,
                                  KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_P, "p", KL_F64, ext, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_AP, "Ap", KL_F64, rows, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, D_FACES, "halo", KL_F64, 2 * (ext - rows),
                          KL_MEM_PAGEABLE, 0);
  return st;
}

/* The pipelined rung: r, p, q (in Ap's place), the halo; w with its
 * layer (the product reads it), z, s. */
static kl_status pipelined_scratch(kl_plan *p) {
  kl_status st = scratch(p);
  const cgdist_box b = cgdist_box_of(p);
  const int64_t rows = b.l[0] * b.l[1] * b.l[2],
                ext = b.e[0] * b.e[1] * b.e[2];
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_P, "p", KL_F64, rows, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, D_W, "w", KL_F64, ext, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, D_Z, "z", KL_F64, rows, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, D_S, "s", KL_F64, rows, KL_MEM_DEVICE, 0);
  return st;
}

/* The matrix-free rungs: no CSR arrays. */
static kl_status matrix_free_scratch(kl_plan *p) {
  p->buffers[CG_OFFSETS].count = 0;
  p->buffers[CG_COLUMNS].count = 0;
  p->buffers[CG_VALUES].count = 0;
  return scratch(p);
}

/* ---- the stencil over the grid ------------------------------------------ */

/* Where row (i, j, k) of the box (1 .. l along each axis, layered
 * coordinates) has in-grid neighbours: lo[a] .. hi[a] of -1, 0, +1. */
static void bounds(const cgdist_box *b, const int64_t at[3], int lo[3],
                   int hi[3]) {
  for (int a = 0; a < 3; a++) {
    const int64_t g = b->start[a] + at[a] - 1;
    lo[a] = g == 0 ? 0 : -1;
    hi[a] = g == b->grid[a] - 1 ? 0 : 1;
  }
}

/* Row (i, j, k)'s entries in cg's order: columns into the layered box and
 * values; their count. */
static int row_entries(const cgdist_box *b, int stencil, int64_t i,
                       int64_t j, int64_t k, int64_t col[CG_STENCIL_MAX],
                       double val[CG_STENCIL_MAX]) {
  const int64_t at[3] = {i, j, k}, sy = b->e[0], sz = b->e[0] * b->e[1];
  const int64_t centre = i + sy * j + sz * k;
  int lo[3], hi[3];
  bounds(b, at, lo, hi);
  const double diagonal = kl__cg_stencil_diagonal(stencil);
  int e = 0;
  if (stencil == CG_STENCIL_27) {
    for (int dk = lo[2]; dk <= hi[2]; dk++)
      for (int dj = lo[1]; dj <= hi[1]; dj++)
        for (int di = lo[0]; di <= hi[0]; di++, e++) {
          col[e] = centre + di + sy * dj + sz * dk;
          val[e] = di == 0 && dj == 0 && dk == 0 ? diagonal : -1.0;
        }
    return e;
  }
  const int64_t step[3] = {sz, sy, 1};
  const int l3[3] = {lo[2], lo[1], lo[0]}, h3[3] = {hi[2], hi[1], hi[0]};
  for (int a = 0; a < 3; a++)
    if (l3[a]) col[e] = centre - step[a], val[e++] = -1.0;
  col[e] = centre, val[e++] = diagonal;
  for (int a = 2; a >= 0; a--)
    if (h3[a]) col[e] = centre + step[a], val[e++] = -1.0;
  return e;
}

/* ---- inputs ---------------------------------------------------------------
 * The CSR of the box's rows (columns into the layered box), b = A x* with
 * x* cg's over the grid's rows (each row's sum in the matrix's order),
 * and x0 = 0. */
static int64_t global_row(const cgdist_box *b, int64_t i, int64_t j,
                          int64_t k) {
  return (b->start[0] + i - 1) +
         b->grid[0] * ((b->start[1] + j - 1) + b->grid[1] * (b->start[2] + k - 1));
}

/* The layered box's point c as a global row. */
static int64_t column_row(const cgdist_box *b, int64_t c) {
  return global_row(b, c % b->e[0], c / b->e[0] % b->e[1],
                    c / b->e[0] / b->e[1]);
}

static void init(const kl_plan *p, void *const *host) {
  const cgdist_box b = cgdist_box_of(p);
  const int stencil = D_STENCIL(p);
  int64_t *offsets = host[CG_OFFSETS];
  int32_t *columns = host[CG_COLUMNS];
  double *values = host[CG_VALUES], *rhs = host[CG_B];
  const int csr = p->buffers[CG_VALUES].count > 0;
  if (csr) {
    offsets[0] = 0;
    for (int64_t k = 1; k <= b.l[2]; k++)
      for (int64_t j = 1; j <= b.l[1]; j++)
        for (int64_t i = 1; i <= b.l[0]; i++) {
          int64_t col[CG_STENCIL_MAX];
          double val[CG_STENCIL_MAX];
          const int64_t row = (i - 1) + b.l[0] * ((j - 1) + b.l[1] * (k - 1));
          offsets[row + 1] =
              offsets[row] + row_entries(&b, stencil, i, j, k, col, val);
        }
  }
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 1; k <= b.l[2]; k++)
    for (int64_t j = 1; j <= b.l[1]; j++)
      for (int64_t i = 1; i <= b.l[0]; i++) {
        int64_t col[CG_STENCIL_MAX];
        double val[CG_STENCIL_MAX];
        const int64_t row = (i - 1) + b.l[0] * ((j - 1) + b.l[1] * (k - 1));
        const int count = row_entries(&b, stencil, i, j, k, col, val);
        double sum = 0;
        for (int e = 0; e < count; e++) {
          sum += val[e] * kl__cg_x_star(p->seed, column_row(&b, col[e]));
          if (csr) {
            columns[offsets[row] + e] = (int32_t)col[e];
            values[offsets[row] + e] = val[e];
          }
        }
        rhs[row] = sum;
      }
  memset(host[CG_X], 0, sizeof(double) * (size_t)p->buffers[CG_X].count);
}

/* ---- the solve ------------------------------------------------------------ */

typedef struct solver {
  const kl_plan *p;
  const kl_args *a; /* the rung's (its phases), NULL in the check */
  cgdist_box b;
  int dims[3], coord[3];
  int stencil, parallel, overlap;
  /* The CSR arrays; values NULL: the stencil. */
  const int64_t *offsets;
  const int32_t *columns;
  const double *values;
  const double *rhs;
  double *x, *r, *pe, *ap, *halo;
  double *w, *z, *sv; /* the pipelined rung's: w with its layer, z, s */
  double exchange_seconds, allreduce_seconds;
} solver;

/* The region a direction's message is sent from (the box's points next to
 * that neighbour) or received into (the layer beside it), in layered
 * coordinates, half open; its place in the packed halo is cg-dist.h's
 * halo_region_start. */
static int64_t region(const cgdist_box *b, const int d[3], int receive,
                      int64_t lo[3], int64_t hi[3]) {
  int64_t size = 1;
  for (int a = 0; a < 3; a++) {
    if (d[a] == 0) lo[a] = 1, hi[a] = b->l[a] + 1;
    else if (d[a] < 0) lo[a] = receive ? 0 : 1, hi[a] = lo[a] + 1;
    else lo[a] = receive ? b->l[a] + 1 : b->l[a], hi[a] = lo[a] + 1;
    size *= hi[a] - lo[a];
  }
  return size;
}

static void region_copy(const solver *s, double *ext, double *packed,
                        const int64_t lo[3], const int64_t hi[3],
                        int to_packed) {
  kl__box_copy(s->b.e, sizeof(double), (char *)ext, (char *)packed, lo, hi,
               to_packed, s->parallel);
}

static int neighbour(const solver *s, const int d[3]) {
  const int c[3] = {s->coord[0] + d[0], s->coord[1] + d[1],
                    s->coord[2] + d[2]};
  return kl__rank_at(s->dims, c);
}

/* Pack the regions the neighbours read and start the messages; NULL
 * where nothing moves (one rank). Tag 0: two ranks share one direction. */
static void *halo_start(solver *s, double *ext) {
  const double t0 = kl__now();
  const cgdist_box *b = &s->b;
  const int64_t layer = b->e[0] * b->e[1] * b->e[2] -
                        b->l[0] * b->l[1] * b->l[2];
  kl_message m[26];
  int count = 0;
  for (int q = 0; q < 26; q++) {
    int d[3];
    int64_t lo[3], hi[3];
    halo_direction(q, d);
    const int64_t size = region(b, d, 0, lo, hi);
    const int64_t at = halo_region_start(b->l, d);
    const int nb = neighbour(s, d);
    if (nb >= 0 && halo_used(s->stencil, d)) {
      double *send = s->halo + at, *recv = s->halo + layer + at;
      region_copy(s, ext, send, lo, hi, 1);
      m[count++] = (kl_message){nb, 0, send, recv,
                                sizeof(double) * (size_t)size};
    }
  }
  void *pending = kl__exchange_start(s->p, m, count);
  s->exchange_seconds += kl__now() - t0;
  return pending;
}

static void halo_finish(solver *s, double *ext, void *pending) {
  const double t0 = kl__now();
  kl__exchange_wait(s->p, pending);
  const cgdist_box *b = &s->b;
  const int64_t layer = b->e[0] * b->e[1] * b->e[2] -
                        b->l[0] * b->l[1] * b->l[2];
  for (int q = 0; q < 26; q++) {
    int d[3];
    int64_t lo[3], hi[3];
    halo_direction(q, d);
    region(b, d, 1, lo, hi);
    if (neighbour(s, d) >= 0 && halo_used(s->stencil, d))
      region_copy(s, ext, s->halo + layer + halo_region_start(b->l, d), lo,
                  hi, 0);
  }
  s->exchange_seconds += kl__now() - t0;
}

/* Whether row (i, j, k) has every neighbour in the grid. */
static inline int inside(const cgdist_box *b, int64_t i, int64_t j,
                         int64_t k) {
  const int64_t g[3] = {b->start[0] + i - 1, b->start[1] + j - 1,
                        b->start[2] + k - 1};
  return g[0] > 0 && g[1] > 0 && g[2] > 0 && g[0] < b->grid[0] - 1 &&
         g[1] < b->grid[1] - 1 && g[2] < b->grid[2] - 1;
}

/* A row with every neighbour, its terms in row_entries's order. */
static inline double stencil_row(const double *c, int64_t sy, int64_t sz,
                                 int stencil) {
  const double diagonal = kl__cg_stencil_diagonal(stencil);
  double sum = 0;
  if (stencil == CG_STENCIL_27) {
    for (int dk = -1; dk <= 1; dk++)
      for (int dj = -1; dj <= 1; dj++) {
        const double *q = c + sy * dj + sz * dk;
        sum += -1.0 * q[-1];
        sum += (dj == 0 && dk == 0 ? diagonal : -1.0) * q[0];
        sum += -1.0 * q[1];
      }
    return sum;
  }
  sum += -1.0 * c[-sz];
  sum += -1.0 * c[-sy];
  sum += -1.0 * c[-1];
  sum += diagonal * c[0];
  sum += -1.0 * c[1];
  sum += -1.0 * c[sy];
  sum += -1.0 * c[sz];
  return sum;
}

/* out = A in over the box's rows lo .. hi - 1 (layered coordinates). */
static void product(const solver *s, const double *in, double *out,
                    const int64_t lo[3], const int64_t hi[3]) {
  const cgdist_box *b = &s->b;
  const int64_t sy = b->e[0], sz = b->e[0] * b->e[1];
#pragma omp parallel for collapse(2) schedule(static) if (s->parallel)
  for (int64_t k = lo[2]; k < hi[2]; k++)
    for (int64_t j = lo[1]; j < hi[1]; j++)
      for (int64_t i = lo[0]; i < hi[0]; i++) {
        const int64_t row = (i - 1) + b->l[0] * ((j - 1) + b->l[1] * (k - 1));
        double sum = 0;
        if (s->values) {
          for (int64_t e = s->offsets[row]; e < s->offsets[row + 1]; e++)
            sum += s->values[e] * in[s->columns[e]];
        } else if (inside(b, i, j, k)) {
          sum = stencil_row(in + i + sy * j + sz * k, sy, sz, s->stencil);
        } else {
          int64_t col[CG_STENCIL_MAX];
          double val[CG_STENCIL_MAX];
          const int count = row_entries(b, s->stencil, i, j, k, col, val);
          for (int e = 0; e < count; e++) sum += val[e] * in[col[e]];
        }
        out[row] = sum;
      }
}

/* A slab of the shell's product (kl__box_shell). */
typedef struct product_job {
  const solver *s;
  const double *in;
  double *out;
} product_job;

static void product_slab(void *ctx, const int64_t lo[3],
                         const int64_t hi[3]) {
  const product_job *j = ctx;
  product(j->s, j->in, j->out, lo, hi);
}

/* Ap = A p, p's layer exchanged first; or, overlapped, the rows two or
 * more from the layer while it travels, then the shell next to it
 * (kl__box_shell: two planes across z, two across y between them, two
 * across x). */
static void spmv(solver *s, double *in, double *out) {
  const cgdist_box *b = &s->b;
  void *pending = halo_start(s, in);
  int64_t lo[3], hi[3];
  if (!s->overlap) {
    halo_finish(s, in, pending);
    for (int a = 0; a < 3; a++) lo[a] = 1, hi[a] = b->l[a] + 1;
    product(s, in, out, lo, hi);
    return;
  }
  for (int a = 0; a < 3; a++) lo[a] = 2, hi[a] = b->l[a];
  product(s, in, out, lo, hi);
  halo_finish(s, in, pending);
  for (int a = 0; a < 3; a++) lo[a] = 1, hi[a] = b->l[a] + 1;
  const product_job job = {s, in, out};
  kl__box_shell(lo, hi, product_slab, (void *)&job);
}

/* ---- the seed's vector kernels over the box's rows -------------------------
 * Compact vectors (b, x, r, Ap) by row; p by its layered index. */
#define BOX_LOOP(s, ...)                                                      \
  do {                                                                        \
    const cgdist_box *b_ = &(s)->b;                                           \
    const int par_ = (s)->parallel;                                           \
    _Pragma("omp parallel for collapse(2) schedule(static) if (par_)")        \
    for (int64_t k_ = 0; k_ < b_->l[2]; k_++)                                 \
      for (int64_t j_ = 0; j_ < b_->l[1]; j_++) {                             \
        const int64_t c_ = b_->l[0] * (j_ + b_->l[1] * k_);                   \
        const int64_t e_ = 1 + b_->e[0] * ((j_ + 1) + b_->e[1] * (k_ + 1));   \
        for (int64_t i_ = 0; i_ < b_->l[0]; i_++) {                           \
          const int64_t row = c_ + i_, at = e_ + i_;                          \
          (void)row, (void)at;                                                \
          __VA_ARGS__;                                                        \
        }                                                                     \
      }                                                                       \
  } while (0)

static double dot_rows(const solver *s, const double *u, const double *v) {
  double sum = 0;
  const cgdist_box *b = &s->b;
  const int64_t rows = b->l[0] * b->l[1] * b->l[2];
#pragma omp parallel for schedule(static) reduction(+ : sum) if (s->parallel)
  for (int64_t i = 0; i < rows; i++) sum += u[i] * v[i];
  return sum;
}

static double dot_p(const solver *s, const double *v) {
  double sum = 0;
  const cgdist_box *b = &s->b;
  const double *pe = s->pe;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : sum) \
    if (s->parallel)
  for (int64_t k = 0; k < b->l[2]; k++)
    for (int64_t j = 0; j < b->l[1]; j++) {
      const int64_t c = b->l[0] * (j + b->l[1] * k);
      const int64_t e = 1 + b->e[0] * ((j + 1) + b->e[1] * (k + 1));
      for (int64_t i = 0; i < b->l[0]; i++) sum += pe[e + i] * v[c + i];
    }
  return sum;
}

/* In place: the n values summed over the ranks (their allreduce). */
static void sum_all(solver *s, double *v, int n) {
  const double t0 = kl__now();
  kl__allreduce(s->p, v, n, KL_F64, KL_RANKS_SUM);
  s->allreduce_seconds += kl__now() - t0;
}

/* cg's solve (cg-host.c) over the ranks, from s->x. */
static kl_status solve(solver *s, int64_t *iterations, double *residual) {
  const kl_plan *p = s->p;
  double *x = s->x, *r = s->r, *pe = s->pe, *ap = s->ap;
  const double *rhs = s->rhs;
  BOX_LOOP(s, pe[at] = x[row]);
  spmv(s, pe, ap);
  BOX_LOOP(s, r[row] = rhs[row] - ap[row]; pe[at] = r[row]);
  double both[2] = {dot_rows(s, r, r), dot_rows(s, rhs, rhs)};
  sum_all(s, both, 2);
  double rr = both[0];
  const double bb = both[1];
  int64_t k = 0;
  while (D_GO_ON(p, k, rr, bb)) {
    spmv(s, pe, ap);
    double pAp = dot_p(s, ap);
    sum_all(s, &pAp, 1);
    /* Every rank has the same pAp: all stop here together. */
    if (!(pAp > 0) || !isfinite(pAp)) return kl__cg_not_spd(pAp, k);
    const double alpha = rr / pAp;
    BOX_LOOP(s, x[row] += alpha * pe[at]; r[row] -= alpha * ap[row]);
    double next = dot_rows(s, r, r);
    sum_all(s, &next, 1);
    const double beta = next / rr;
    BOX_LOOP(s, pe[at] = r[row] + beta * pe[at]);
    rr = next;
    k++;
  }
  *iterations = k;
  *residual = bb > 0 ? sqrt(rr / bb) : 0;
  return KL_OK;
}

/* ---- pipelined CG (Ghysels and Vanroose), as cg's cuda-pipelined -------
 * One allreduce an iteration, of r.r and w.r together, started after the
 * update and finished after the next product q = A w, which it travels
 * behind (MPI_Iallreduce). The recurrences: z = q + beta z, s = w + beta
 * s, p = r + beta p, x += alpha p, r -= alpha s, w -= alpha z, with beta
 * = gamma / gamma_old and alpha = gamma / (delta - beta gamma / alpha_old)
 * (gamma = r.r, delta = w.r), fresh (beta 0, alpha = gamma / delta) at
 * the start. Where the recurrences' r says converged in tolerance mode,
 * or their denominator is not positive, the true residual replaces them
 * once and the solve goes on from it fresh (cg-pipelined-cuda.cu says
 * why); a fresh denominator that is not positive is a breakdown. p here
 * has no layer: w is what the product reads. */

/* r = b - A x and w = A r from x (w's layer as room), z = s = p = 0, and
 * gamma = r.r, delta = w.r (and b.b where bb is not NULL), summed over the
 * ranks; then q = A w. */
static void pipe_fresh(solver *s, double *gamma, double *delta, double *bb) {
  double *x = s->x, *r = s->r, *w = s->w, *q = s->ap, *pc = s->pe;
  double *z = s->z, *sv = s->sv;
  const double *rhs = s->rhs;
  BOX_LOOP(s, w[at] = x[row]);
  spmv(s, w, q);
  BOX_LOOP(s, r[row] = rhs[row] - q[row]; w[at] = r[row]);
  spmv(s, w, q);
  BOX_LOOP(s, w[at] = q[row]; z[row] = 0; sv[row] = 0; pc[row] = 0);
  double v[3] = {0, 0, 0};
  const cgdist_box *b = &s->b;
  const int64_t rows = b->l[0] * b->l[1] * b->l[2];
  double g = 0, d = 0, e = 0;
#pragma omp parallel for schedule(static) reduction(+ : g, d, e) \
    if (s->parallel)
  for (int64_t i = 0; i < rows; i++) {
    g += r[i] * r[i];
    d += q[i] * r[i];
    e += rhs[i] * rhs[i];
  }
  v[0] = g, v[1] = d, v[2] = e;
  sum_all(s, v, bb ? 3 : 2);
  *gamma = v[0];
  *delta = v[1];
  if (bb) *bb = v[2];
  spmv(s, w, q);
}

static kl_status solve_pipelined(solver *s, int64_t *iterations,
                                 double *residual) {
  const kl_plan *p = s->p;
  double *x = s->x, *r = s->r, *w = s->w, *q = s->ap, *pc = s->pe;
  double *z = s->z, *sv = s->sv;
  double gamma, delta, bb, rr = 0, alpha = 0;
  pipe_fresh(s, &gamma, &delta, &bb);
  int64_t k = 0;
  int replaced = 0;
  for (;;) {
    if (!D_GO_ON(p, k, gamma, bb)) {
      if (!D_FIXED(p) && k < D_MAXIT(p) && gamma > 0 && !replaced) {
        pipe_fresh(s, &gamma, &delta, NULL);
        replaced = 1;
        continue;
      }
      rr = gamma;
      break;
    }
    const int fresh = k == 0 || replaced;
    const double beta = fresh ? 0 : gamma / rr;
    const double den = fresh ? delta : delta - beta * gamma / alpha;
    if (!(den > 0) || !isfinite(den)) {
      if (fresh) return kl__cg_not_spd(den, k);
      pipe_fresh(s, &gamma, &delta, NULL);
      replaced = 1;
      continue;
    }
    alpha = gamma / den;
    rr = gamma;
    k++;
    replaced = 0;
    double g = 0, d = 0;
    const cgdist_box *b = &s->b;
    const int par = s->parallel;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : g, d) \
    if (par)
    for (int64_t kk = 0; kk < b->l[2]; kk++)
      for (int64_t jj = 0; jj < b->l[1]; jj++) {
        const int64_t c = b->l[0] * (jj + b->l[1] * kk);
        const int64_t e = 1 + b->e[0] * ((jj + 1) + b->e[1] * (kk + 1));
        for (int64_t i = 0; i < b->l[0]; i++) {
          const int64_t row = c + i, at = e + i;
          const double zi = q[row] + beta * z[row];
          const double si = w[at] + beta * sv[row];
          const double pi = r[row] + beta * pc[row];
          const double r_next = r[row] - alpha * si;
          const double w_next = w[at] - alpha * zi;
          z[row] = zi;
          sv[row] = si;
          pc[row] = pi;
          x[row] += alpha * pi;
          r[row] = r_next;
          w[at] = w_next;
          g += r_next * r_next;
          d += w_next * r_next;
        }
      }
    double v[2] = {g, d};
    const double t0 = kl__now();
    void *pending = kl__allreduce_start(p, v, 2, KL_F64, KL_RANKS_SUM);
    s->allreduce_seconds += kl__now() - t0;
    spmv(s, w, q); /* while the sums travel */
    const double t1 = kl__now();
    kl__allreduce_wait(p, pending);
    s->allreduce_seconds += kl__now() - t1;
    gamma = v[0];
    delta = v[1];
  }
  *iterations = k;
  *residual = bb > 0 ? sqrt(rr / bb) : 0;
  return KL_OK;
}

static kl_status solver_of(const kl_plan *p, solver *s) {
  memset(s, 0, sizeof *s);
  s->p = p;
  s->b = cgdist_box_of(p);
  s->stencil = D_STENCIL(p);
  kl_status st = dist_grid(p, s->dims);
  if (st == KL_OK) kl__rank_coords(kl__rank(p), s->dims, s->coord);
  return st;
}

/* ---- the rungs ------------------------------------------------------------ */

static const char *const phases[] = {"compute", "exchange", "allreduce",
                                     NULL};

static kl_status run(const kl_args *a, int parallel, int overlap,
                     int pipelined) {
  solver s;
  kl_status st = solver_of(a->plan, &s);
  if (st != KL_OK) return st;
  s.a = a;
  s.parallel = parallel;
  s.overlap = overlap;
  if (a->plan->buffers[CG_VALUES].count > 0) {
    s.offsets = a->buffers[CG_OFFSETS];
    s.columns = a->buffers[CG_COLUMNS];
    s.values = a->buffers[CG_VALUES];
  }
  s.rhs = a->buffers[CG_B];
  s.x = a->buffers[CG_X];
  s.r = a->buffers[CG_R];
  s.pe = a->buffers[CG_P];
  s.ap = a->buffers[CG_AP];
  s.halo = a->buffers[D_FACES];
  if (pipelined) {
    s.w = a->buffers[D_W];
    s.z = a->buffers[D_Z];
    s.sv = a->buffers[D_S];
  }
  int64_t k = 0;
  double residual = 0;
  const double t0 = kl__now();
  st = pipelined ? solve_pipelined(&s, &k, &residual)
                 : solve(&s, &k, &residual);
  const double wall = kl__now() - t0;
  kl__phase(a, D_PHASE_COMPUTE,
            wall - s.exchange_seconds - s.allreduce_seconds);
  kl__phase(a, D_PHASE_EXCHANGE, s.exchange_seconds);
  kl__phase(a, D_PHASE_ALLREDUCE, s.allreduce_seconds);
  if (st != KL_OK) return st;
  double *info = a->buffers[CG_INFO];
  info[CG_INFO_ITERATIONS] = (double)k;
  info[CG_INFO_RESIDUAL] = residual;
  if (a->counts) a->counts[CG_COUNT_ITERATIONS] = (double)k;
  return KL_OK;
}

static kl_status serial(const kl_args *a) { return run(a, 0, 0, 0); }
static kl_status openmp(const kl_args *a) { return run(a, 1, 0, 0); }
static kl_status overlapped(const kl_args *a) { return run(a, 1, 1, 0); }
static kl_status pipelined(const kl_args *a) { return run(a, 1, 0, 1); }

/* ---- the check ------------------------------------------------------------
 * cg's (cg.c), over the ranks: the true residual rho = |b - A x| / |b| in
 * long double, each rank's rows summed over the ranks, against
 *   tolerance mode:  rho <= tol + g
 *   fixed mode:      rho <= (1 + 10^-6) rho_ref + 2 g,
 *   g = (m + 4) (k + 1) u (|A|_inf |x| + |b|) / |b|,
 * and the iterations within 2 + k_ref / 10 of the reference's: the same
 * solve over the same ranks (OpenMP, the stencil, blocking), whose sums
 * differ from a rung's in their order only. The reference is kept for
 * the next rung on the same problem (one per thread) where every rank
 * kept it. */
typedef struct norms {
  long double rho, x_norm, b_norm, a_norm;
  int64_t widest;
} norms;

/* x's true residual; s->pe and s->halo are the room it uses. */
static void true_residual(solver *s, const double *x, norms *out) {
  const cgdist_box *b = &s->b;
  double *pe = s->pe;
  BOX_LOOP(s, pe[at] = x[row]);
  halo_finish(s, pe, halo_start(s, pe));
  long double rr = 0, bb = 0, xx = 0, ax = 0;
  double a_norm = 0, widest = 0;
#pragma omp parallel for collapse(2) schedule(static)                       \
    reduction(+ : rr, bb, xx, ax) reduction(max : a_norm, widest)
  for (int64_t k = 1; k <= b->l[2]; k++)
    for (int64_t j = 1; j <= b->l[1]; j++)
      for (int64_t i = 1; i <= b->l[0]; i++) {
        const int64_t row = (i - 1) + b->l[0] * ((j - 1) + b->l[1] * (k - 1));
        int64_t col[CG_STENCIL_MAX];
        double val[CG_STENCIL_MAX];
        const int count = row_entries(b, s->stencil, i, j, k, col, val);
        long double sum = 0, abs_sum = 0;
        for (int e = 0; e < count; e++) {
          sum += (long double)val[e] * pe[col[e]];
          abs_sum += fabsl((long double)val[e]);
        }
        const long double d = s->rhs[row] - sum;
        rr += d * d;
        bb += (long double)s->rhs[row] * s->rhs[row];
        xx += (long double)x[row] * x[row];
        ax += sum * sum;
        if ((double)abs_sum > a_norm) a_norm = (double)abs_sum;
        if (count > widest) widest = count;
      }
  double sums[4] = {(double)rr, (double)bb, (double)xx, (double)ax};
  double most[2] = {a_norm, widest};
  kl__allreduce(s->p, sums, 4, KL_F64, KL_RANKS_SUM);
  kl__allreduce(s->p, most, 2, KL_F64, KL_RANKS_MAX);
  out->b_norm = sqrtl(sums[1]);
  out->x_norm = sqrtl(sums[2]);
  out->a_norm = most[0];
  out->widest = (int64_t)most[1];
  out->rho = sums[1] > 0 ? sqrtl((long double)sums[0] / sums[1])
                         : sqrtl((long double)sums[3]);
}

typedef struct reference {
  char key[256];
  int valid;
  kl_status status;
  char error[256];
  int64_t iterations;
  long double residual;
} reference;

/* The check's room: a solver over the plan with vectors of its own. */
static kl_status check_solver(const kl_plan *p, const double *rhs, solver *s,
                              double **room) {
  kl_status st = solver_of(p, s);
  const cgdist_box *b = &s->b;
  const int64_t rows = b->l[0] * b->l[1] * b->l[2],
                ext = b->e[0] * b->e[1] * b->e[2];
  *room = malloc(sizeof(double) * (size_t)(3 * rows + ext + 2 * (ext - rows)));
  if (!*room && st == KL_OK)
    st = KL_FAIL(KL_NO_MEMORY, "cg-dist: no host memory for the check");
  if (*room) {
    s->x = *room;
    s->r = s->x + rows;
    s->ap = s->r + rows;
    s->pe = s->ap + rows;
    s->halo = s->pe + ext;
  }
  s->rhs = rhs;
  s->parallel = 1;
  return st;
}

static const reference *reference_of(const kl_plan *p, const double *rhs) {
  static _Thread_local reference cache;
  char key[sizeof cache.key];
  snprintf(key, sizeof key, "%lld|%d|%d|%.17g|%lld|%llu|%d|%d|%d",
           (long long)p->n, D_STENCIL(p), D_FIXED(p), D_TOL(p),
           (long long)D_MAXIT(p), (unsigned long long)p->seed, kl__rank(p),
           kl__rank_count(p), p->strong);
  /* Kept only where every rank kept it: a rank whose cache served another
   * problem in between (rank 0's one-rank run) solves again, and then
   * every rank must, so that their collectives stay in step. */
  double stale = !(cache.valid && strcmp(cache.key, key) == 0);
  kl__allreduce(p, &stale, 1, KL_F64, KL_RANKS_MAX);
  if (!stale) return &cache;
  memset(&cache, 0, sizeof cache);
  snprintf(cache.key, sizeof cache.key, "%s", key);
  solver s;
  double *room = NULL;
  cache.status = check_solver(p, rhs, &s, &room);
  /* Every rank solves, the collectives in step, even one without room
   * (its vectors of nothing: it fails after). */
  if (room) {
    memset(s.x, 0, sizeof(double) * (size_t)p->buffers[CG_X].count);
    double residual = 0;
    const kl_status st = solve(&s, &cache.iterations, &residual);
    if (cache.status == KL_OK) cache.status = st;
    if (st == KL_OK) {
      norms n;
      true_residual(&s, s.x, &n);
      cache.residual = n.rho;
    }
  }
  if (cache.status != KL_OK)
    snprintf(cache.error, sizeof cache.error, "%s", kl_last_error());
  cache.valid = cache.status == KL_OK;
  free(room);
  return &cache;
}

static void check(const kl_plan *p, const kl_rung *rung, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)rung;
  const double *x = out[CG_X], *info = out[CG_INFO];
  const reference *ref = reference_of(p, in[CG_B]);
  solver s;
  double *room = NULL;
  (void)check_solver(p, in[CG_B], &s, &room);
  norms n = {0, 0, 0, 0, 0};
  if (room) true_residual(&s, x, &n);
  free(room);
  if (!room || ref->status != KL_OK) {
    kl__verdict_set(v, 2, 2, 0, INFINITY, (double)n.rho);
    snprintf(v->detail, sizeof v->detail, "the reference solve failed: %.96s",
             room ? ref->error : "no host memory for the check");
    return;
  }
  const double k = info[CG_INFO_ITERATIONS];
  const long double u = 0x1p-53L, scale = n.b_norm > 0 ? n.b_norm : 1;
  const int64_t k_int = isfinite(k) && k >= 0 && k <= 1e18 ? (int64_t)k : 0;
  const long double gap = (long double)(n.widest + 4) * (k_int + 1) * u *
                          (n.a_norm * n.x_norm + n.b_norm) / scale;
  const long double bound = D_FIXED(p)
                                ? (1 + 1e-6L) * ref->residual + 2 * gap
                                : (long double)D_TOL(p) + gap;
  const double margin = 2 + floor((double)ref->iterations / 10);
  const int k_bad = !(k == floor(k) && k >= 0 && k <= (double)D_MAXIT(p) &&
                      fabs(k - (double)ref->iterations) <= margin);
  const int rho_bad = !(n.rho <= bound); /* NaN fails */
  kl__verdict_set(v, 2, rho_bad + k_bad, rho_bad ? 0 : 1,
                  k_bad ? fabs(k - (double)ref->iterations) / margin
                        : (double)(n.rho / bound),
                  (double)n.rho);
  if (rho_bad)
    snprintf(v->detail, sizeof v->detail,
             "true residual |b-Ax|/|b| = %.6Lg above %.6Lg over %d ranks",
             n.rho, bound, kl__rank_count(p));
  else if (k_bad)
    snprintf(v->detail, sizeof v->detail,
             "%.17g iterations, the reference solve over the same ranks "
             "%lld", k, (long long)ref->iterations);
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  const double k = counts ? counts[CG_COUNT_ITERATIONS] : 0;
  const double rows = (double)p->buffers[CG_B].count,
               nnz = p->constants[D_NNZ];
  const double matrix = p->buffers[CG_VALUES].count > 0
                            ? 8 * (rows + 1) + 12 * nnz
                            : 0;
  const double pass = 8 * rows;
  if (r->variant == CG_MATRIX_FREE) {
    /* cg's count for its matrix-free rung (cg.c): 7 passes an iteration,
     * 9 before, x's last step after an odd count. */
    c->bytes = 9 * pass + (fmod(k, 2) == 1 ? 2 * pass : 0) + k * 7 * pass;
    c->flops = 2 * nnz * (k + 1) + 13 * rows * k;
    c->items = rows * k;
    return;
  }
  if (r->variant == CG_PIPELINED) {
    /* cg's count for its pipelined rung: two products to start. */
    c->bytes = 2 * matrix + 12 * pass + k * (matrix + 15 * pass);
    c->flops = 2 * nnz * (k + 2) + 13 * rows * k;
    c->items = rows * k;
    return;
  }
  c->bytes = matrix + 9 * pass + k * (matrix + 14 * pass);
  c->flops = 2 * nnz * (k + 1) + 13 * rows * k;
  c->items = rows * k;
}

/* ---- the ladder ------------------------------------------------------------ */

#define F64 KL_TYPE_BIT(KL_F64)
/* The hooks every cg GPU rung shares. */
static const kl_rung_family gpu_family = {
    .scratch = KL_GPU_NCCL_FN(kl__cgdist_gpu_nccl_scratch),
    .setup = KL_GPU_NCCL_FN(kl__cgdist_gpu_nccl_setup),
    .teardown = KL_GPU_FN(kl__cg_gpu_teardown)};

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "cg's seed kernels on one thread, the CSR "
            "product after p's halo exchange, dots allreduced",
            .scratch = scratch, .phases = phases, .run = serial),
    KL_RUNG("openmp", openmp, "the seed kernels each an OpenMP loop, CSR, "
            "the halo exchanged before each product", .scratch = scratch,
            .phases = phases, .run = openmp),
    KL_RUNG("openmp-matrix-free", openmp, "the stencil applied with the "
            "grid's bounds, no matrix; the halo before each product",
            .scratch = matrix_free_scratch, .phases = phases, .run = openmp),
    KL_RUNG("openmp-overlap", openmp, "matrix-free; the rows two or more "
            "from the layer computed while the halo travels, then the shell",
            .scratch = matrix_free_scratch, .phases = phases,
            .run = overlapped),
    KL_RUNG("openmp-pipelined", openmp, "pipelined CG (Ghysels and "
            "Vanroose), CSR: one allreduce an iteration, travelling behind "
            "the product", .variant = CG_PIPELINED,
            .scratch = pipelined_scratch, .phases = phases, .run = pipelined),
    /* cg-dist-cuda.cu; cg's CUDA rungs' setup (a graph's state) and
     * teardown (it freed). */
    KL_RUNG("cuda-staged", gpu, "cg's cuda-matrix-free sweeps on the box, "
            "p's halo packed on the GPU and sent through pinned host "
            "memory; one rank: cuda-matrix-free's solve",
            .variant = CG_MATRIX_FREE,
            .scratch = KL_GPU_FN(kl__cgdist_gpu_staged_scratch),
            .setup = KL_GPU_FN(kl__cg_gpu_setup),
            .phases = phases,
            .run = KL_GPU_FN(kl__cgdist_gpu_staged),
            .family = &gpu_family),
    KL_RUNG("cuda-aware", gpu, "cuda-staged with p's halo sent from the "
            "GPU's memory (a CUDA-aware MPI; stands aside without one)",
            .variant = CG_MATRIX_FREE,
            .scratch = KL_GPU_FN(kl__cgdist_gpu_aware_scratch),
            .setup = KL_GPU_FN(kl__cgdist_gpu_aware_setup),
            .phases = phases,
            .run = KL_GPU_FN(kl__cgdist_gpu_aware),
            .family = &gpu_family),
    /* cg-dist-nccl.cu; the setup makes the ranks' communicator. */
    KL_RUNG("cuda-nccl", gpu, "cuda-staged with p's halo exchanged by "
            "ncclSend and ncclRecv in one group and the dots by "
            "ncclAllReduce, alpha and beta on the GPU; stands aside where "
            "two ranks share a GPU", .variant = CG_MATRIX_FREE,
            .phases = phases,
            .run = KL_GPU_NCCL_FN(kl__cgdist_gpu_nccl),
            .family = &gpu_family),
    KL_RUNG("cuda-nccl-batched", gpu, "cuda-nccl's iterations queued 16 at "
            "a time, the stop decided on the GPU: one host wait a batch, "
            "not an iteration", .variant = CG_MATRIX_FREE,
            .phases = phases,
            .run = KL_GPU_NCCL_FN(kl__cgdist_gpu_nccl_batched),
            .family = &gpu_family),
    KL_RUNG("cuda-nccl-overlap", gpu, "cuda-nccl-batched with p's halo "
            "on the GPU's urgent stream while sweep A's inner tiles run; "
            "the edge tiles wait for it", .variant = CG_MATRIX_FREE,
            .phases = phases,
            .run = KL_GPU_NCCL_FN(kl__cgdist_gpu_nccl_overlap),
            .family = &gpu_family),
};

static const char *const stencils[] = {"27", "7", NULL};

static const kl_param params[] = {
    [D_P_N] = {.name = "n", .kind = KL_PARAM_SIZE,
               .flags = KL_PARAM_MAIN_SIZE,
               .help = "grid points along each axis: each rank's box (weak "
                       "scaling) or the whole grid (strong)",
               .default_value = 128, .host_default = 64, .min = 1,
               .max = 1290, .quick_default = 128, .quick_host_default = 48,
               .step = 1},
    [D_P_STENCIL] = {.name = "stencil", .kind = KL_PARAM_CHOICE,
                     .help = "the 3D Poisson matrix, 27-point or 7-point",
                     .default_value = CG_STENCIL_27, .choices = stencils},
    [D_P_MODE] = CG_PARAM_MODE,
    [D_P_TOL] = CG_PARAM_TOL,
    [D_P_MAXIT] = CG_PARAM_MAXIT,
};

static const kl_test_problem tests[] = {
    {"stencil=27", 1},  {"stencil=7", 1},  {"stencil=27", 2},
    {"stencil=7", 3},   {"stencil=27", 10}, {"stencil=7", 10},
    {"stencil=27,mode=fixed,maxit=7", 12}, {NULL, 0}};

static const char *const counts[] = {"iterations", NULL};

const kl_workload kl__workload_cg_dist = {
    .name = "cg-dist",
    .summary = "cg's Poisson solve split over the ranks: halo exchange "
               "before each product, dots allreduced",
    .tolerance = "cg's bounds on the true residual over the whole grid; "
                 "iterations within 2 + k/10 of a reference solve over the "
                 "same ranks",
    .source = "seed 003; HPCG's decomposition, halos and allreduce",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = F64,
    .default_type = KL_F64,
    .params = params,
    .param_count = D_PARAMS,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_stream, NULL},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = tests,
    .counts = counts,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
    .distributed = 1,
};
