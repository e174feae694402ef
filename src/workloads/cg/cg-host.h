/* cg's host side: the matrix as the host applies it, the Poisson matrix
 * and b (cg-problem.c), and the host solve with its timed loop
 * (cg-host.c). cg.c (the workload and its check), cg-omp.c and cg-acc.c
 * (the host-side rungs) build on it. */
#ifndef KL_CG_HOST_H
#define KL_CG_HOST_H

#include "cg.h"

/* The random stream of x*, the solution b is made from. */
#define CG_STREAM_X_STAR 1

/* A matrix as the host applies it: CSR where values is not NULL, else
 * the stencil of the n^3 grid. */
typedef struct kl__cg_matrix {
  int64_t rows;
  const int64_t *offsets;
  const int32_t *columns;
  const double *values;
  int64_t n;
  int stencil;
} kl__cg_matrix;

/* The matrix of a plan's buffers: the CSR arrays, or the stencil where
 * the plan has none (a rung without a matrix). */
void kl__cg_matrix_of(const kl_plan *p, void *const *buffers,
                      kl__cg_matrix *m);

/* The phases of the host rungs. */
enum { CG_PHASE_SPMV, CG_PHASE_DOT, CG_PHASE_AXPY, CG_PHASE_COUNT };

struct kl__cg_host;
/* A solve's three kernels, and what it does before and after (a data
 * region's entry and exit), inside its timed region: the host's
 * (kl__cg_host_kernels: serially or each an OpenMP loop), or another
 * backend's over the same buffers (cg-acc.c). */
typedef struct kl__cg_kernels {
  void (*matvec)(const struct kl__cg_host *h, const double *v, double *out);
  /* w = alpha x + beta y; w may be x or y, and x may be y. */
  void (*waxpby)(const struct kl__cg_host *h, double alpha, const double *x,
                 double beta, const double *y, double *w);
  double (*dot)(const struct kl__cg_host *h, const double *x,
                const double *y);
  void (*begin)(const struct kl__cg_host *h); /* or NULL */
  void (*end)(const struct kl__cg_host *h);   /* or NULL */
  /* Fused kernels of an iteration, or NULL (the seed's in their place):
   * out = A v, returning v.out; x += alpha p and r -= alpha Ap, returning
   * the new r.r. */
  double (*matvec_dot)(const struct kl__cg_host *h, const double *v,
                       double *out);
  double (*update)(const struct kl__cg_host *h, double alpha, double *x,
                   double *r, const double *p, const double *ap);
} kl__cg_kernels;
extern const kl__cg_kernels kl__cg_host_kernels;

/* One solve: the seed's kernels, serially or each an OpenMP loop. */
/* Where the check's reference solve crossed the marks its iteration rule
 * reads (cg.c's check): in, the matrix's |A|_inf and widest row; out, the
 * first iteration whose own |r| / |b| is within 10 tol (near), the
 * iteration the rule stops at (at), and the first within the attainable
 * level (floor, at `level`), the maxit where it never gets there. */
/* The rounding one CG step makes in |r| / |b|, (m + 4) u (|A| |x| + |b|)
 * / |b| (u = 2^-53; |b| = 0 taken as 1): m the most nonzeros in a row
 * (cg.c's check has the bound). The check's gap after k steps is k + 1
 * times it; a reference solve's attainable level is it. */
static inline long double kl__cg_step_rounding(int64_t widest,
                                               long double a_norm,
                                               long double x_norm,
                                               long double b_norm) {
  return (long double)(widest + 4) * 0x1p-53L * (a_norm * x_norm + b_norm) /
         (b_norm > 0 ? b_norm : 1);
}

typedef struct kl__cg_marks {
  double a_norm;
  int64_t widest;
  int64_t near, at, floor;
  double level;
} kl__cg_marks;

typedef struct kl__cg_host {
  const kl_plan *plan;
  kl__cg_matrix matrix;
  const double *b;
  double *x, *r, *p, *ap;
  int parallel;
  const kl__cg_kernels *kernels;
  void *const *buffers; /* every buffer of the rung: its kernels' scratch */
  double *phases; /* [CG_PHASE_COUNT] seconds added, or NULL */
  /* Where phases are kept: each kernel an event of the repetition that
   * began at `origin` (kl__now), into reps' trace. */
  kl_reps *reps;
  double origin;
  /* The first failure of a kernel that can fail (another backend's: an
   * OpenCL enqueue), kept by the kernel; the solve returns it. */
  kl_status failed;
  const kl_args *args; /* the rung's, for such kernels; NULL in the check */
  /* The check's reference, tolerance mode: the solve goes on past the
   * tolerance to the attainable level and notes the marks; NULL
   * elsewhere. */
  kl__cg_marks *marks;
} kl__cg_host;

void kl__cg_host_from_args(const kl_args *a, int parallel, kl__cg_host *h);
/* The host rungs' timed loop with these kernels: x put back, each solve
 * timed with the host clock, its kernels as phases spmv, dot, axpy. */
kl_status kl__cg_host_reps(const kl_args *a, kl_reps *reps, int parallel,
                           const kl__cg_kernels *kernels);
/* Solve from h->x; the iterations and the solve's own |r| / |b|.
 * kl__cg_not_spd's error where p.Ap <= 0. */
kl_status kl__cg_host_solve(kl__cg_host *h, int64_t *iterations,
                            double *residual);

/* The Poisson matrix: one row's entries in the CSR's order (their count,
 * at most CG_STENCIL_MAX), the nonzeros, the diagonal, the CSR arrays
 * (offsets of rows + 1, columns, values), and one row's product with v
 * in the CSR's order. Every one of them, and the check, walks a row
 * through kl__cg_stencil_entries. */
#define CG_STENCIL_MAX 27
int kl__cg_stencil_entries(int64_t n, int stencil, int64_t row,
                           int64_t columns[CG_STENCIL_MAX],
                           double values[CG_STENCIL_MAX]);
int64_t kl__cg_stencil_nnz(int64_t n, int stencil);
double kl__cg_stencil_diagonal(int stencil);
void kl__cg_stencil_csr(int64_t n, int stencil, int64_t *offsets,
                        int32_t *columns, double *values);
double kl__cg_stencil_row(int64_t n, int stencil, int64_t row,
                          const double *v);
/* Element i of x*, uniform in [-1, 1) from the seed; b = A x* in double,
 * each row's sum in the matrix's order. */
double kl__cg_x_star(uint64_t seed, int64_t i);
void kl__cg_make_b(const kl__cg_matrix *m, uint64_t seed, double *b);

#endif
