/* cg: the workload (plan, inputs, check, cost), the ladder and kl_cg()
 * (seed 003). cg.h has the solve every rung makes and the layout;
 * cg-problem.c the matrix, b and the rungs' scratch; cg-host.c the host
 * solve that the check's reference makes. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg-host.h"
#include "kladder-cg.h"
#include "../../core/matrix-market.h"
#include "../../registry.h"

/* The 27-point matrix's rows pass 2^31 from here on (1291^3); column
 * indices are int32. */
#define CG_MAX_GRID 1290
#define CG_DEFAULT_FIXED 100
#define CG_DEFAULT_CAP 10000
/* A matrix file's cap in tolerance mode: this many iterations a row (at
 * least CG_DEFAULT_CAP). In floating point CG loses the orthogonality
 * that ends it within n steps in exact arithmetic, and on an
 * ill-conditioned matrix converges only after several times n (A.
 * Greenbaum, "Iterative Methods for Solving Linear Systems", SIAM 1997,
 * ch. 4): a 1000-row band of condition 1e8 (tests/tools/spd_gen) takes
 * 13,066. A grid's stencil, of condition about n^2, needs far fewer. */
#define CG_CAP_PER_ROW 20

/* ---- parameters and plan ------------------------------------------------- */

/* The named files (kl_named_file), in the order of the input hooks' list:
 * b from a file (--rhs), x written (--solution). */
enum { CG_FILE_RHS, CG_FILE_SOLUTION };
/* The Matrix Market reader's rules (matrix-market.h): A, refused where it
 * cannot be symmetric positive definite, and b. */
static const kl_mm_rules cg_matrix = {"matrix", "cg", KL_MM_VALUES | KL_MM_SPD};
static const kl_mm_rules cg_rhs = {"right-hand side", "cg", 0};

static kl_status input_size(const char *path, int64_t *n) {
  kl_mm_info info;
  kl_status st = kl__mm_scan(&cg_matrix, path, &info);
  if (st == KL_OK) *n = info.rows;
  return st;
}

static kl_status plan(kl_plan *p) {
  double *v = p->value;
  const int stencil_given = p->given >> CG_P_STENCIL & 1,
            nnz_given = p->given >> CG_P_NNZ & 1;
  int64_t rows = 0, nnz = 0;
  const char *rhs = p->files[CG_FILE_RHS];
  /* A user's own system: its matrix from a file, then b and x too. */
  if (!p->input_file && rhs)
    return kl__usage(KL_USAGE, "cg: a right-hand side file (--rhs) goes with "
                     "a matrix file (--matrix FILE); the built-in matrix's b "
                     "is made from the seed");
  if (!p->input_file && p->files[CG_FILE_SOLUTION])
    return kl__usage(KL_USAGE, "cg: a solution file (--solution) goes with a "
                     "matrix file (--matrix FILE)");
  if (p->input_file) {
    if (stencil_given && CG_STENCIL(p) != CG_STENCIL_NONE)
      return kl__usage(KL_USAGE, "cg: a matrix file (--matrix) has no "
                       "stencil; give the file or stencil=, not both");
    if (nnz_given)
      return kl__usage(KL_USAGE, "cg: nnz is the matrix file's");
    kl_mm_info info;
    kl_status st = kl__mm_scan(&cg_matrix, p->input_file, &info);
    if (st != KL_OK) return st;
    v[CG_P_STENCIL] = CG_STENCIL_NONE;
    rows = info.rows;
    nnz = info.nnz;
    if (rhs) st = kl__mm_vector_scan(&cg_rhs, rhs, rows);
    if (st != KL_OK) return st;
  } else if (CG_STENCIL(p) == CG_STENCIL_NONE) {
    if (!p->caller_inputs)
      return kl__usage(KL_USAGE, "cg: stencil=none takes its matrix from a "
                       "file: give --matrix FILE");
    if (!nnz_given)
      return kl__usage(KL_USAGE, "cg: a caller's matrix needs its nnz");
    rows = p->n;
    nnz = (int64_t)v[CG_P_NNZ];
  } else {
    if (nnz_given)
      return kl__usage(KL_USAGE, "cg: nnz follows from the stencil; give "
                       "it only with a matrix of your own (kl_cg)");
    if (p->n > CG_MAX_GRID)
      return kl__usage(KL_TOO_LARGE, "cg: grid %lld^3 has more rows than "
                       "int32 columns index (n <= %d)", (long long)p->n,
                       CG_MAX_GRID);
    rows = p->n * p->n * p->n;
    nnz = kl__cg_stencil_nnz(p->n, CG_STENCIL(p));
  }
  if (CG_BATCH(p) % 2 != 0)
    return kl__usage(KL_USAGE, "cg: batch = %d is odd (the matrix-free "
                     "rung's two p buffers take turns: a batch starts on "
                     "the same one)", CG_BATCH(p));
  if (p->chunk_count > 1)
    return kl__usage(KL_TOO_LARGE, "cg: the matrix (%lld rows, %lld "
                     "nonzeros) does not fit in memory whole", (long long)rows,
                     (long long)nnz);
  v[CG_P_NNZ] = (double)nnz;
  if (!(p->given >> CG_P_MAXIT & 1)) {
    double cap = CG_DEFAULT_CAP;
    if (p->input_file && (double)rows * CG_CAP_PER_ROW > cap)
      cap = fmin((double)rows * CG_CAP_PER_ROW, 1e9);
    v[CG_P_MAXIT] = CG_MODE(p) == CG_FIXED ? CG_DEFAULT_FIXED : cap;
  }
  kl__cg_plan_buffers(p, rows, nnz);
  return KL_OK;
}

/* ---- inputs ---------------------------------------------------------------
 * The matrix (the stencil's CSR, or the file's), b = A x* for x* uniform
 * in [-1, 1) from the seed or b from its file (--rhs), and x0 = 0. */
static kl_status finish_inputs(const kl_plan *p, void *const *host) {
  memset(host[CG_X], 0, sizeof(double) * (size_t)CG_ROWS(p));
  if (p->files[CG_FILE_RHS])
    return kl__mm_vector_load(&cg_rhs, p->files[CG_FILE_RHS], CG_ROWS(p),
                              host[CG_B]);
  kl__cg_matrix m;
  kl__cg_matrix_of(p, host, &m);
  kl__cg_make_b(&m, p->seed, host[CG_B]);
  return KL_OK;
}

/* No file: the plan refuses --rhs without --matrix. */
static void init(const kl_plan *p, void *const *host) {
  if (CG_IS_GRID(p) && p->buffers[CG_VALUES].count > 0)
    kl__cg_stencil_csr(CG_N(p), CG_STENCIL(p), host[CG_OFFSETS],
                       host[CG_COLUMNS], host[CG_VALUES]);
  (void)finish_inputs(p, host);
}

static kl_status load_chunk(const kl_plan *p, void *const *host) {
  kl_mm_info info;
  kl_status st = kl__mm_scan(&cg_matrix, p->input_file, &info);
  if (st == KL_OK && (info.rows != CG_ROWS(p) || info.nnz != CG_NNZ(p)))
    st = kl__usage(KL_IO, "cg: matrix file " KL_Q " changed during the run",
                   KL_CLIP(p->input_file));
  if (st == KL_OK)
    st = kl__mm_load(&cg_matrix, p->input_file, &info, host[CG_OFFSETS],
                     host[CG_COLUMNS], host[CG_VALUES]);
  if (st == KL_OK) st = finish_inputs(p, host);
  return st;
}

/* --solution: x as a Matrix Market array file, with what it solves. */
static kl_status write_solution(const kl_plan *p, const kl_rung *r,
                                const kl_verdict *v, void *const *out,
                                FILE *f) {
  const double *info = out[CG_INFO];
  const char *rhs = p->files[CG_FILE_RHS];
  const char *matrix = strrchr(p->input_file, '/'),
             *b = rhs ? strrchr(rhs, '/') : NULL;
  char comment[1024];
  snprintf(comment, sizeof comment,
           "kladder %s cg: x solving A x = b, A from %s, b %s%s\n"
           "rung %s (%s) after %.17g iterations, %s mode (tol %.3g, maxit "
           "%lld)\ntrue residual |b - A x|/|b| = %.6g, checked (PASS)",
           KL_VERSION, matrix ? matrix + 1 : p->input_file,
           rhs ? "from " : "= A x* from the seed",
           rhs ? (b ? b + 1 : rhs) : "", r->name, r->backend->name,
           info[CG_INFO_ITERATIONS],
           CG_MODE(p) == CG_FIXED ? "fixed" : "tolerance", CG_TOL(p),
           (long long)CG_MAXIT(p), v->abs_error);
  kl__mm_vector_write(f, out[CG_X], CG_ROWS(p), comment);
  return KL_OK;
}

/* ---- the check ------------------------------------------------------------
 * The true residual rho = |b - A x| / |b| of the rung's x, in long double
 * (b = 0: |A x|), against
 *   tolerance mode:  rho <= tol + g
 *   fixed mode:      rho <= (1 + 10^-6) rho_ref + 2 g
 * rho_ref the true residual of the reference solve (the host rung's
 * algorithm, OpenMP, in double) after the same iterations, and
 *   g = (m + 4) (k + 1) u (|A|_inf |x| + |b|) / |b|,
 * a bound of the gap between the residual a solve updates and the true
 * one after k iterations (Greenbaum, "Iterative Methods for Solving Linear
 * Systems", 1997, 7.3: about u (|A| |x| + |b|) per step for each of the m
 * + 4 roundings a row's update makes; m the most nonzeros in a row, u =
 * 2^-53; |A|_inf bounds |A|_2 for a symmetric A). In fixed mode the two
 * solves' true residuals differ by their updated residuals' difference
 * and both gaps: 2 g, and 10^-6 of itself for the updated residuals, which
 * other orders of summation move by far less before convergence (a single
 * element of x off by 10^-3 of itself moves rho by more, and fails).
 *
 * And the iterations k. Fixed mode: the reference's count within 2 (both
 * run maxit, unless r.r reaches 0 exactly). Tolerance mode: between the
 * first iteration at which the reference's own residual is within 10 tol
 * and the first at which it reaches its attainable level, (m + 4) u (|A|
 * |x| + |b|) / |b|, the rounding one step makes (a solve that goes on past
 * it no longer converges: its residual is rounding), each within 2. A
 * fixed share of the reference's count does not hold on ill-conditioned
 * matrices: CG in floating point converges later than in exact arithmetic
 * by an amount rounding decides (Greenbaum and Strakos, 1992), so that
 * other sums cross the tolerance many iterations apart, and pipelined
 * CG's recurrences, even with residual replacement, lose more (tens of
 * percent more iterations at conditions of 1e6 to 1e8: cg's LESSONS.md
 * has the counts). So the reference solves on past its tolerance to its
 * attainable level (its count is still where it crossed the tolerance),
 * and the rule's upper end follows the matrix's own convergence. */
typedef struct reference {
  char key[512];
  int valid;
  kl_status status;
  int64_t iterations;
  int64_t near, floor; /* tolerance mode: the marks (kl__cg_marks) */
  long double residual;
} reference;

typedef struct residual_norms {
  long double rho, x_norm, b_norm, a_norm;
  int64_t widest_row;
} residual_norms;

static void true_residual(const kl__cg_matrix *m, const double *b,
                          const double *x, residual_norms *out) {
  long double rr = 0, bb = 0, xx = 0, ax = 0;
  long double a_norm = 0;
  int64_t widest = 0;
#pragma omp parallel for schedule(static) reduction(+ : rr, bb, xx, ax)      \
    reduction(max : a_norm, widest)
  for (int64_t row = 0; row < m->rows; row++) {
    long double sum = 0, abs_sum = 0;
    int64_t width = 0;
    if (m->values) {
      for (int64_t e = m->offsets[row]; e < m->offsets[row + 1]; e++) {
        sum += (long double)m->values[e] * x[m->columns[e]];
        abs_sum += fabsl((long double)m->values[e]);
      }
      width = m->offsets[row + 1] - m->offsets[row];
    } else {
      int64_t c[CG_STENCIL_MAX];
      double a[CG_STENCIL_MAX];
      width = kl__cg_stencil_entries(m->n, m->stencil, row, c, a);
      for (int64_t e = 0; e < width; e++) {
        sum += (long double)a[e] * x[c[e]];
        abs_sum += fabsl((long double)a[e]);
      }
    }
    const long double d = b[row] - sum;
    rr += d * d;
    bb += (long double)b[row] * b[row];
    xx += (long double)x[row] * x[row];
    ax += sum * sum;
    if (abs_sum > a_norm) a_norm = abs_sum;
    if (width > widest) widest = width;
  }
  out->b_norm = sqrtl(bb);
  out->x_norm = sqrtl(xx);
  out->a_norm = a_norm;
  out->widest_row = widest;
  out->rho = bb > 0 ? sqrtl(rr / bb) : sqrtl(ax);
}

/* The reference solve of a problem, kept for the next rung on the same
 * problem: the serial rung's algorithm on the host, OpenMP-parallel. One
 * cache per thread, so that runs on several threads do not race. */
/* b's bits, hashed (FNV-1a over its words): the key of a reference tells
 * a b read from a file from another, or from b = A x*. */
static uint64_t b_hash(const double *b, int64_t rows) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int64_t i = 0; i < rows; i++) {
    uint64_t bits;
    memcpy(&bits, &b[i], sizeof bits);
    h = (h ^ bits) * 0x100000001b3ull;
  }
  return h;
}

static const reference *reference_of(const kl_plan *p, void *const *in) {
  static _Thread_local reference cache;
  char key[sizeof cache.key];
  snprintf(key, sizeof key, "%s|%lld|%d|%.0f|%d|%.17g|%lld|%llu|%016llx",
           p->input_file ? p->input_file : "", (long long)CG_N(p),
           CG_STENCIL(p), p->value[CG_P_NNZ], CG_MODE(p), CG_TOL(p),
           (long long)CG_MAXIT(p), (unsigned long long)p->seed,
           (unsigned long long)b_hash(in[CG_B], CG_ROWS(p)));
  if (cache.valid && strcmp(cache.key, key) == 0) return &cache;
  memset(&cache, 0, sizeof cache);
  snprintf(cache.key, sizeof cache.key, "%s", key);
  const size_t bytes = sizeof(double) * (size_t)CG_ROWS(p);
  double *x = calloc(1, bytes ? bytes : 1), *r = malloc(bytes ? bytes : 1),
         *pv = malloc(bytes ? bytes : 1), *ap = malloc(bytes ? bytes : 1);
  kl__cg_host h = {.plan = p, .b = in[CG_B], .x = x, .r = r, .p = pv,
                   .ap = ap, .parallel = 1,
                   .kernels = &kl__cg_host_kernels};
  kl__cg_matrix_of(p, in, &h.matrix);
  double residual = 0;
  kl__cg_marks marks = {0};
  if (x && CG_MODE(p) != CG_FIXED) {
    residual_norms matrix; /* at x = 0: |A|_inf and the widest row */
    true_residual(&h.matrix, h.b, x, &matrix);
    marks.a_norm = (double)matrix.a_norm;
    marks.widest = matrix.widest_row;
    h.marks = &marks;
  }
  if (!x || !r || !pv || !ap)
    cache.status = KL_FAIL(KL_NO_MEMORY, "cg: no host memory for the "
                           "reference solve");
  else
    cache.status = kl__cg_host_solve(&h, &cache.iterations, &residual);
  cache.near = h.marks && marks.near >= 0 ? marks.near : cache.iterations;
  cache.floor = h.marks ? marks.floor : cache.iterations;
  if (cache.status == KL_OK) {
    residual_norms norms;
    true_residual(&h.matrix, h.b, x, &norms);
    cache.residual = norms.rho;
    cache.valid = 1;
  }
  free(x), free(r), free(pv), free(ap);
  return &cache;
}

static void check(const kl_plan *p, const kl_rung *rung, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)rung;
  kl__cg_matrix m;
  kl__cg_matrix_of(p, in, &m);
  const double *x = out[CG_X], *info = out[CG_INFO];
  residual_norms norms;
  true_residual(&m, in[CG_B], x, &norms);
  const double k = info[CG_INFO_ITERATIONS];
  /* A scale whose squares overflow f64 (|b| or |A||x| above ~1.3e154)
   * leaves a solve in double no digits: its dot products are infinite from
   * the first, so neither the rung nor a reference can make progress, and
   * nothing about the answer can be verified. */
  if (!isfinite((double)(norms.b_norm * norms.b_norm)) ||
      !isfinite((double)(norms.a_norm * norms.x_norm))) {
    kl__verdict_set(v, 2, 0, -1, 0, (double)norms.rho);
    kl__verdict_unverifiable(v, 2, "the system's scale overflows f64 in the "
                             "solve's dot products (|b|^2 or |A||x| beyond "
                             "1.8e308)");
    return;
  }
  const reference *ref = reference_of(p, in);
  const int64_t k_int = isfinite(k) && k >= 0 && k <= 1e18 ? (int64_t)k : 0;
  const long double gap =
      (k_int + 1) * kl__cg_step_rounding(norms.widest_row, norms.a_norm,
                                         norms.x_norm, norms.b_norm);
  const long double bound =
      CG_MODE(p) == CG_FIXED ? (1 + 1e-6L) * ref->residual + 2 * gap
                             : (long double)CG_TOL(p) + gap;
  const int fixed = CG_MODE(p) == CG_FIXED;
  const double k_low = (double)(fixed ? ref->iterations : ref->near) - 2,
               k_high = (double)(fixed ? ref->iterations : ref->floor) + 2;
  const double margin = fmax(k_high - (double)ref->iterations,
                             (double)ref->iterations - k_low);
  const int k_bad = !(k == floor(k) && k >= 0 && k <= (double)CG_MAXIT(p) &&
                      k >= k_low && k <= k_high);
  const int rho_bad = !(norms.rho <= bound); /* NaN fails */
  const double over = (double)(norms.rho / bound);
  kl__verdict_set(v, 2, rho_bad + k_bad, rho_bad ? 0 : 1,
                  k_bad ? fabs(k - (double)ref->iterations) / margin : over,
                  (double)norms.rho);
  if (ref->status != KL_OK) {
    kl__verdict_set(v, 2, 2, 0, INFINITY, (double)norms.rho);
    snprintf(v->detail, sizeof v->detail, "the reference solve failed: %s",
             kl_last_error());
  } else if (rho_bad) {
    snprintf(v->detail, sizeof v->detail,
             "true residual |b-Ax|/|b| = %.6Lg above %.6Lg (%s %.3Lg, "
             "rounding %.3Lg) after %.17g iterations", norms.rho, bound,
             CG_MODE(p) == CG_FIXED ? "the reference's" : "tol",
             CG_MODE(p) == CG_FIXED ? ref->residual : (long double)CG_TOL(p),
             gap, k);
  } else if (k_bad) {
    snprintf(v->detail, sizeof v->detail,
             "%.17g iterations, outside %.0f to %.0f (the reference's %lld: "
             "%s)", k, fmax(k_low, 0), k_high, (long long)ref->iterations,
             fixed ? "the same count, within 2"
                   : "from its residual within 10 tol to its attainable "
                     "level, within 2");
  }
}

/* ---- the cost model -------------------------------------------------------
 * Per iteration: the matrix once (8 (rows + 1) + 12 nnz bytes) and the
 * vector passes of the rung's variant, 8 rows bytes each:
 *   unfused (the seed's kernels): Ap = A p (p, Ap: 2), p.Ap (2),
 *     x += alpha p (3), r -= alpha Ap (3), r.r (1), p = r + beta p (3): 14;
 *   fused: SpMV with p.Ap (2), x, r and r.r (4 read, 2 written), p (3): 11;
 *   sell: fused's 11, the matrix in sliced ELLPACK: 12 bytes an entry its
 *     slices hold and 8 a slice, no row offsets; the built-in stencil's
 *     padding included (its scratch is sized to it), a matrix of its own
 *     counted without its padding (known only in the rung's setup): its
 *     bytes low by that padding, never high;
 *   pipelined: q = A w (2), one update reading q, z, w, s, r, p, x and
 *     writing z, s, p, x, r, w with both dots (13): 15;
 *   matrix-free: no matrix; p's update and p.Ap in the stencil (r, p read,
 *     p written: 3), then r and r.r (p, r read, r written: 3), and every
 *     other iteration x for two (x read and written: 2 more): 7 on
 *     average, and x's last step (p, x read, x written: 3 in place of 1)
 *     after an odd count. An odd iteration that reads p_(j-1) rather
 *     than recover it (beta under 1/16, cg-matrix-free-cuda.cu) reads one
 *     pass more, which the model leaves out.
 * Before the iterations: r = b - A x0, p = r, r.r, b.b: the matrix and 9
 * passes (pipelined: two products, the matrix twice and 12 passes).
 * flops: 2 per nonzero per product, 13 per row per iteration. */
static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  const double k = counts ? counts[CG_COUNT_ITERATIONS] : 0;
  const double rows = (double)CG_ROWS(p), nnz = (double)CG_NNZ(p);
  const double matrix = 8 * (rows + 1) + 12 * nnz, pass = 8 * rows;
  double per = matrix + 14 * pass, before = matrix + 9 * pass, products = 1;
  switch (r->variant) {
  case CG_FUSED: per = matrix + 11 * pass; break;
  case CG_SELL: { /* the sliced matrix as its slices hold it */
    const double entries = CG_IS_GRID(p)
                               ? (double)p->buffers[CG_SELL_VALUES].count
                               : nnz;
    const double sliced =
        12 * entries + 8 * (double)p->buffers[CG_SELL_OFFSETS].count;
    per = sliced + 11 * pass;
    before = sliced + 9 * pass;
    break;
  }
  case CG_PIPELINED:
    per = matrix + 15 * pass;
    before = 2 * matrix + 12 * pass;
    products = 2;
    break;
  case CG_MATRIX_FREE:
    per = 7 * pass;
    before = 9 * pass + (fmod(k, 2) == 1 ? 2 * pass : 0);
    break;
  default: break;
  }
  c->bytes = before + k * per;
  c->flops = 2 * nnz * (k + products) + 13 * rows * k;
  c->items = rows * k;
}

/* ---- the ladder ------------------------------------------------------------ */

#define F64 KL_TYPE_BIT(KL_F64)
static const char *const host_phases[] = {"spmv", "dot", "axpy", NULL};

/* The CUDA rungs share one setup and teardown (cg-cuda.cu): cuda-copied's
 * mirror filled once, a rung's graph released; and a scratch, which some
 * replace with their own. */
static const kl_rung_family gpu_family = {
    .scratch = kl__cg_gpu_scratch,
    .setup = KL_GPU_FN(kl__cg_gpu_setup),
    .teardown = KL_GPU_FN(kl__cg_gpu_teardown)};

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial,
            "the seed's starting code: matvec, waxpby and dot, one thread",
            .variant = CG_UNFUSED, .scratch = kl__cg_host_scratch,
            .library = F64, .run_reps = kl__cg_serial,
            .phases = host_phases),
    KL_RUNG("openmp", openmp,
            "the seed's three kernels, each an OpenMP parallel loop",
            .variant = CG_UNFUSED, .scratch = kl__cg_host_scratch,
            .library = F64, .run_reps = kl__cg_omp, .phases = host_phases),
    KL_RUNG("cuda-copied", gpu,
            "teaching: the seed's first GPU step, the three kernels with "
            "their arrays copied in and out on every call",
            .variant = CG_UNFUSED, .scratch = kl__cg_gpu_copied_scratch,
            .run_reps = KL_GPU_FN(kl__cg_gpu_copied),
            .family = &gpu_family),
    KL_RUNG("cuda-resident", gpu,
            "the seed's fix: data resident on the device; CSR one thread "
            "per row, each dot read by the host",
            .variant = CG_UNFUSED, .run_reps = KL_GPU_FN(kl__cg_gpu_resident),
            .family = &gpu_family),
    KL_RUNG("cuda-csr-vector", gpu,
            "CSR one group of lanes per row; block reductions",
            .variant = CG_UNFUSED, .run_reps = KL_GPU_FN(kl__cg_gpu_vector),
            .family = &gpu_family),
    KL_RUNG("cuda-csr-stream", gpu,
            "CSR by blocks of rows: the nonzeros streamed coalesced "
            "through shared memory, each row summed there",
            .variant = CG_UNFUSED, .run_reps = KL_GPU_FN(kl__cg_gpu_stream),
            .family = &gpu_family),
    KL_RUNG("cuda-csr-lanes", gpu,
            "CSR a few lanes a row, each lane a run of 7 entries in "
            "flight, blocks of about 4096 entries in address order; no "
            "shared memory or barrier",
            .variant = CG_UNFUSED, .run_reps = KL_GPU_FN(kl__cg_gpu_lanes),
            .family = &gpu_family),
    KL_RUNG("cuda-fused", gpu,
            "cuda-csr-lanes with p.Ap inside the SpMV; x, r and r.r in "
            "one kernel; two host reads per iteration",
            .variant = CG_FUSED, .run_reps = KL_GPU_FN(kl__cg_gpu_fused),
            .family = &gpu_family),
    KL_RUNG("cuda-device-scalars", gpu,
            "cuda-fused with alpha, beta and the stop on the device; the "
            "host waits once per batch",
            .variant = CG_FUSED,
            .run_reps = KL_GPU_FN(kl__cg_gpu_device_scalars),
            .tunings = KL_PARAM_BIT(CG_P_BATCH),
            .family = &gpu_family),
    KL_RUNG("cuda-graph", gpu,
            "cuda-device-scalars' batch of iterations as one CUDA graph",
            .variant = CG_FUSED, .run_reps = KL_GPU_FN(kl__cg_gpu_graph),
            .library = F64,
            .tunings = KL_PARAM_BIT(CG_P_BATCH),
            .family = &gpu_family),
    KL_RUNG("cuda-pipelined", gpu,
            "Ghysels and Vanroose's pipelined CG: one reduction per "
            "iteration",
            .variant = CG_PIPELINED, .scratch = kl__cg_gpu_pipelined_scratch,
            .run_reps = KL_GPU_FN(kl__cg_gpu_pipelined),
            .family = &gpu_family),
    KL_RUNG("cuda-sell", gpu,
            "cuda-graph with the matrix in sliced ELLPACK (made once): a "
            "thread a row, each slice's entries read as a copy reads, no "
            "shared memory or barrier; a matrix padded by up to 1/8",
            .variant = CG_SELL, .scratch = kl__cg_gpu_sell_scratch,
            .setup = KL_GPU_FN(kl__cg_gpu_sell_setup),
            .run_reps = KL_GPU_FN(kl__cg_gpu_sell),
            .tunings = KL_PARAM_BIT(CG_P_BATCH),
            .family = &gpu_family),
    KL_RUNG("cuda-matrix-free", gpu,
            "no matrix: the stencil applied from the grid, p's update "
            "inside it; 7 vector passes an iteration on average",
            .variant = CG_MATRIX_FREE,
            .scratch = kl__cg_gpu_matrix_free_scratch,
            .run_reps = KL_GPU_FN(kl__cg_gpu_matrix_free),
            .fallback = "cuda-sell",
            .tunings = KL_PARAM_BIT(CG_P_BATCH) | KL_PARAM_BIT(CG_P_PLANES),
            .family = &gpu_family),
    KL_RUNG("cusparse", gpu,
            "vendor: cuSPARSE SpMV (preprocessed once), cuBLAS dots and "
            "axpys, each dot read by the host (CuPy's loop)",
            .flags = KL_RUNG_VENDOR, .variant = CG_UNFUSED,
            .scratch = KL_GPU_SPARSE_FN(kl__cg_cusparse_scratch),
            .setup = KL_GPU_SPARSE_FN(kl__cg_cusparse_setup),
            .teardown = KL_GPU_SPARSE_FN(kl__cg_cusparse_teardown),
            .run_reps = KL_GPU_SPARSE_FN(kl__cg_cusparse)),
    KL_RUNG("openacc-waxpby", openacc,
            "the seed's first step: waxpby a parallel loop copying its "
            "arrays on each call; matvec and dot on the host",
            .variant = CG_UNFUSED,
            .scratch = KL_ACC_FN(kl__cg_acc_host_scratch),
            .run_reps = KL_ACC_FN(kl__cg_acc_waxpby), .phases = host_phases),
    KL_RUNG("openacc-waxpby-dot", openacc,
            "the seed's second step: waxpby and dot on the device, arrays "
            "copied on each call",
            .variant = CG_UNFUSED,
            .scratch = KL_ACC_FN(kl__cg_acc_host_scratch),
            .run_reps = KL_ACC_FN(kl__cg_acc_waxpby_dot),
            .phases = host_phases),
    KL_RUNG("openacc-copied", openacc,
            "teaching: all three kernels on the device, each call copying "
            "its arrays (the matrix on every matvec): the seed's slowdown",
            .variant = CG_UNFUSED,
            .scratch = KL_ACC_FN(kl__cg_acc_host_scratch),
            .run_reps = KL_ACC_FN(kl__cg_acc_copied), .phases = host_phases,
            .peer = "cuda-copied"),
    KL_RUNG("openacc-data", openacc,
            "the seed's fix: openacc-copied inside a data region per solve; "
            "the matrix crosses once",
            .variant = CG_UNFUSED,
            .scratch = KL_ACC_FN(kl__cg_acc_host_scratch),
            .run_reps = KL_ACC_FN(kl__cg_acc_data), .phases = host_phases,
            .peer = "cuda-resident"),
    KL_RUNG("openacc-tuned", openacc,
            "device buffers (deviceptr); a row per 32-lane worker, 256-lane "
            "gangs, the dot a partial per 32-lane gang",
            .variant = CG_UNFUSED, .scratch = KL_ACC_FN(kl__cg_gpu_scratch),
            .run_reps = KL_ACC_FN(kl__cg_acc_tuned), .phases = host_phases,
            .peer = "cuda-csr-vector", .library = F64),
    KL_RUNG("opencl", opencl, "the seed's matvec, waxpby and dot as OpenCL "
            "kernels, each dot read by the host", .variant = CG_UNFUSED,
            .peer = "cuda-resident", .phases = host_phases,
            .scratch = KL_CL_FN(kl__cg_cl_scratch),
            .setup = KL_CL_FN(kl__cg_cl_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run_reps = KL_CL_FN(kl__cg_cl)),
    KL_RUNG("opencl-fused", opencl,
            "opencl with p.Ap inside the SpMV; x, r and r.r in one kernel; "
            "three kernels and two host reads per iteration",
            .variant = CG_FUSED, .peer = "cuda-fused",
            .phases = host_phases, .scratch = KL_CL_FN(kl__cg_cl_scratch),
            .setup = KL_CL_FN(kl__cg_cl_fused_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run_reps = KL_CL_FN(kl__cg_cl_fused)),
    KL_RUNG("opencl-stream", opencl,
            "opencl-fused with the SpMV streamed: a group's rows' nonzeros "
            "loaded coalesced into local memory in chunks, then summed a row "
            "an item", .variant = CG_FUSED, .peer = "cuda-csr-stream",
            .phases = host_phases, .scratch = KL_CL_FN(kl__cg_cl_scratch),
            .setup = KL_CL_FN(kl__cg_cl_stream_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run_reps = KL_CL_FN(kl__cg_cl_stream)),
    KL_RUNG("opencl-sell", opencl,
            "opencl-fused with the matrix in sliced ELLPACK (made once): an "
            "item a row, each slice's entries read as a copy reads; a "
            "matrix padded by up to 1/8", .variant = CG_SELL,
            .peer = "cuda-sell", .phases = host_phases,
            .scratch = KL_CL_FN(kl__cg_cl_sell_scratch),
            .setup = KL_CL_FN(kl__cg_cl_sell_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run_reps = KL_CL_FN(kl__cg_cl_sell)),
};

static const char *const stencils[] = {"27", "7", "none", NULL};
const char *const kl__cg_modes[] = {"tolerance", "fixed", NULL};
static const char *const counts[] = {"iterations", NULL};

static const kl_param params[] = {
    [CG_P_N] = {.name = "n", .kind = KL_PARAM_SIZE,
                .flags = KL_PARAM_MAIN_SIZE,
                .help = "grid points along each axis (n^3 rows); a matrix "
                        "file's rows",
                .default_value = 201, /* the seed's exercise */
                .host_default = 128, .min = 1, .max = 2147483647.0,
                .quick_default = 128, .quick_host_default = 64,
                .cache_multiple = 4,
                .step = 1},
    [CG_P_STENCIL] = {.name = "stencil", .kind = KL_PARAM_CHOICE,
                      .help = "the 3D Poisson matrix, 27-point or 7-point; "
                              "none: a matrix file (--matrix) or kl_cg's",
                      .default_value = CG_STENCIL_27, .choices = stencils},
    [CG_P_NNZ] = {.name = "nnz", .kind = KL_PARAM_SIZE,
                  .help = "nonzeros; given only for kl_cg's own matrix",
                  .default_text = "the stencil's or the file's", .min = 1,
                  .max = 0x1p40},
    [CG_P_MODE] = CG_PARAM_MODE,
    [CG_P_TOL] = CG_PARAM_TOL,
    [CG_P_MAXIT] = CG_PARAM_MAXIT,
    /* 16, measured on the H100 at 201^3 and on test-sized problems
     * (cg-gpu.h); kladder tune sweeps the candidates per device and size. */
    [CG_P_BATCH] = {.name = "batch", .kind = KL_PARAM_INT,
                    .flags = KL_PARAM_TUNING,
                    .help = "iterations the device-scalar GPU rungs launch "
                            "between two reads of the stop flag (even)",
                    .default_value = CG_BATCH_DEFAULT, .min = 2,
                    .max = 4096,
                    .tune_values = "4,8,16,32,64"},
    /* 3, tuned on the H100; the H200 takes 4 (LESSONS.md, the sweeps'
     * shape), which its built-in wisdom has. */
    [CG_P_PLANES] = {.name = "planes", .kind = KL_PARAM_INT,
                     .flags = KL_PARAM_TUNING,
                     .help = "planes a tile of cuda-matrix-free's sweeps",
                     .default_value = CG_PLANES_DEFAULT,
                     .min = CG_PLANES_MIN,
                     .max = CG_PLANES_MAX, .tune_values = "3,4"},
};

/* Grids without interior (1^3: one row, solved in one iteration; 2^3:
 * every row a boundary row), the smallest interior (3^3), 10^3, and 64^3,
 * both stencils; the fixed count, even and odd (cuda-matrix-free adds
 * an even last iteration's step to x after the loop); a tolerance the
 * 7-point matrix needs hundreds of iterations for; the shortest and a
 * long batch. */
static const kl_test_problem tests[] = {
    {"stencil=27", 1},  {"stencil=7", 1},
    {"stencil=27", 2},  {"stencil=7", 2},
    {"stencil=27", 3},  {"stencil=7", 3},
    {"stencil=27", 10}, {"stencil=7", 10},
    {"stencil=27", 64}, {"stencil=7", 64},
    {"stencil=27,mode=fixed,maxit=100", 20},
    {"stencil=7,mode=fixed,maxit=30", 33},
    {"stencil=27,mode=fixed,maxit=7", 12},
    {"stencil=7,tol=1e-12", 17},
    /* The device-scalar rungs' batch: the shortest, over an odd count
     * (many reads of the flag, the matrix-free rung's last step after the
     * loop), and a long one past convergence (its tail of empty
     * iterations). */
    {"stencil=27,mode=fixed,maxit=7,batch=2", 12},
    {"stencil=7,batch=64", 9},
    /* The matrix-free sweeps' other count of planes: tiles that divide
     * the grid, and a last one cut short. */
    {"stencil=27,mode=fixed,maxit=7,planes=4", 12},
    {"stencil=7,planes=4", 11},
    {NULL, 0}};
/* Past 2^31 nonzeros: 431^3 rows, 27-point (2.15e9 nonzeros, 26 GB), a
 * few fixed iterations. */
static const kl_test_problem big_tests[] = {
    {"stencil=27,mode=fixed,maxit=3", 431}, {NULL, 0}};

static const kl_named_file files[] = {
    [CG_FILE_RHS] = {"rhs", KL_IN,
                     "b in place of A x*: a Matrix Market array file, the "
                     "matrix's rows x 1, real or integer (with --matrix)",
                     NULL},
    [CG_FILE_SOLUTION] = {"solution", KL_OUT,
                          "x, as a Matrix Market array file, of the first "
                          "rung whose check passed (with --matrix)",
                          write_solution},
    {NULL, KL_IN, NULL, NULL}};

static const kl_input_hooks input = {
    .help = "a symmetric positive definite matrix in Matrix Market "
            "coordinate format (--matrix FILE), b = A x* or --rhs FILE",
    .load_chunk = load_chunk,
    .size = input_size,
    .files = files,
};

/* The wisdom's size: tune sweeps the grid's side n (n^3 rows); a matrix
 * (stencil none: a file's, or every kl_cg call's CSR) has n rows, which
 * count as the grid of as many, cbrt(n). */
static int64_t wisdom_size(int64_t n, const double *value) {
  return (int)value[CG_P_STENCIL] == CG_STENCIL_NONE
             ? (int64_t)llround(cbrt((double)n))
             : n;
}

const kl_workload kl__workload_cg = {
    .name = "cg",
    .summary = "conjugate gradient on a 3D Poisson matrix (27- or 7-point) "
               "or a Matrix Market file, double precision",
    .tolerance = "true residual |b-Ax|/|b| in long double (the abs err "
                 "column) <= tol + g (fixed mode: (1 + 1e-6) x the "
                 "reference solve's + 2 g), g = (m+4)(k+1) u (|A| |x| + "
                 "|b|)/|b|; iterations between the reference's within 10 tol and at "
                 "its attainable level (m+4) u (|A| |x| + |b|)/|b|, each within "
                 "2",
    .source = "seed 003, OpenACC CG: matvec, waxpby, dot",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = F64,
    .default_type = KL_F64,
    .params = params,
    .param_count = sizeof params / sizeof *params,
    .counts = counts,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_stream, NULL},
    .plan = plan,
    .init = init,
    .input = &input,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
    .wisdom_size = wisdom_size,
};

/* ---- the library entry ---------------------------------------------------- */

static kl_status run_cg(kl_context *ctx, const kl_cg_matrix *a,
                        int64_t grid_n, int stencil, const double *b,
                        double *x, double tol, int64_t maxit,
                        int data_on_device, kl_cg_result *result) {
  if (!b || !x || !result)
    return kl__usage(KL_USAGE, "kl_cg: b, x and result must not be NULL");
  if (result->size < sizeof result->size)
    return kl__usage(KL_USAGE, "kl_cg: result->size is not set (set it to "
                     "sizeof *result)");
  if (maxit < 1)
    return kl__usage(KL_USAGE, "kl_cg: maxit must be at least 1 (got %lld)",
                     (long long)maxit);
  if (!(tol >= 0))
    return kl__usage(KL_USAGE, "kl_cg: tol must be 0 (a fixed count) or "
                     "from 1e-15 to 0.5 (got %g)", tol);
  if (!a) {
    /* The built-in matrix, made here in host memory. */
    if (stencil != 27 && stencil != 7)
      return kl__usage(KL_USAGE, "kl_cg: stencil must be 27 or 7 (got %d)",
                       stencil);
    if (grid_n < 1 || grid_n > CG_MAX_GRID)
      return kl__usage(grid_n < 1 ? KL_USAGE : KL_TOO_LARGE, "kl_cg: grid_n "
                       "must be from 1 to %d (got %lld)", CG_MAX_GRID,
                       (long long)grid_n);
    if (data_on_device)
      return kl__usage(KL_USAGE, "kl_cg: the built-in matrix takes b and x "
                       "in host memory; pass a CSR matrix for device arrays");
    const int s = stencil == 27 ? CG_STENCIL_27 : CG_STENCIL_7;
    kl_cg_matrix m = {grid_n * grid_n * grid_n,
                      kl__cg_stencil_nnz(grid_n, s), NULL, NULL, NULL};
    int64_t *offsets = malloc(sizeof *offsets * (size_t)(m.rows + 1));
    int32_t *columns = malloc(sizeof *columns * (size_t)m.nnz);
    double *values = malloc(sizeof *values * (size_t)m.nnz);
    kl_status st = KL_OK;
    if (!offsets || !columns || !values)
      st = kl__usage(KL_TOO_LARGE, "kl_cg: no host memory for the %lld^3 "
                     "grid's matrix", (long long)grid_n);
    if (st == KL_OK) {
      kl__cg_stencil_csr(grid_n, s, offsets, columns, values);
      m.offsets = offsets, m.columns = columns, m.values = values;
      st = run_cg(ctx, &m, 0, 0, b, x, tol, maxit, 0, result);
    }
    free(offsets), free(columns), free(values);
    return st;
  }
  if (!a->offsets || !a->columns || !a->values || a->rows < 1 || a->nnz < 1)
    return kl__usage(KL_USAGE, "kl_cg: the matrix needs rows >= 1, nnz >= 1 "
                     "and its three arrays");
  char params[256];
  snprintf(params, sizeof params, "stencil=none,nnz=%lld,mode=%s,tol=%.17g,"
           "maxit=%lld", (long long)a->nnz, tol > 0 ? "tolerance" : "fixed",
           tol > 0 ? tol : 1e-10, (long long)maxit);
  kl_problem pb = {.size = sizeof pb,
                   .n = a->rows, .type = KL_F64, .params = params};
  double info[CG_INFO_COUNT] = {0, 0};
  void *buffers[KL_MAX_BUFFERS] = {0};
  buffers[CG_OFFSETS] = (void *)a->offsets;
  buffers[CG_COLUMNS] = (void *)a->columns;
  buffers[CG_VALUES] = (void *)a->values;
  buffers[CG_B] = (void *)b;
  buffers[CG_X] = x;
  buffers[CG_INFO] = info;
  kl_status st = kl__run_library(ctx, &kl__workload_cg, &pb, buffers,
                                 data_on_device);
  if (st != KL_OK) return st;
  /* Converged: the stopping rule met. A solve that stopped before maxit
   * met it (r.r <= tol^2 b.b, or r = 0), whatever the last bit of the
   * residual it reports; one that stopped at maxit met it where that
   * residual is within tol. */
  kl_cg_result full = {.size = sizeof full};
  full.iterations = (int64_t)info[CG_INFO_ITERATIONS];
  full.residual = info[CG_INFO_RESIDUAL];
  full.converged = !isnan(full.residual) &&
                   (tol == 0 || full.iterations < maxit ||
                    full.residual <= tol);
  /* The fields the caller's struct has (its size), and that size. */
  const size_t size = result->size < sizeof full ? result->size
                                                 : sizeof full;
  memcpy(result, &full, size);
  result->size = size;
  if (!full.converged && isnan(full.residual))
    return kl__usage(KL_NOT_CONVERGED, "kl_cg: not converged: |r|/|b| is "
                     "not a number after %lld iterations",
                     (long long)full.iterations);
  if (!full.converged)
    return kl__usage(KL_NOT_CONVERGED, "kl_cg: not converged: |r|/|b| = %g "
                     "after maxit = %lld iterations, above tol = %g",
                     full.residual, (long long)maxit, tol);
  return KL_OK;
}

kl_status kl_cg(kl_context *ctx, const kl_cg_matrix *a, int64_t grid_n,
                int stencil, const double *b, double *x, double tol,
                int64_t maxit, int data_on_device, kl_cg_result *result) {
  return kl__done(run_cg(ctx, a, grid_n, stencil, b, x, tol, maxit,
                         data_on_device, result));
}
