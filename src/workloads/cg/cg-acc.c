/* cg with OpenACC: the seed's lesson step by step (seed 003).
 *
 * The first four rungs take the seed's host arrays (the scratch hook
 * moves every buffer to pageable host memory) and name them in data
 * clauses, so that each compute region copies its arrays in and out:
 *   openacc-waxpby      waxpby on the device, matvec and dot on the host;
 *   openacc-waxpby-dot  waxpby and dot on the device;
 *   openacc-copied      all three on the device: every call copies its
 *                       arrays (the matrix on every matvec), slower than
 *                       the host (the teaching rung);
 *   openacc-data        the same kernels inside an unstructured data
 *                       region per solve (enter data / exit data): the
 *                       clauses find their arrays present and copy nothing,
 *                       and the matrix crosses once per solve.
 * openacc-tuned keeps every array in the harness's device buffers
 * (deviceptr) and partitions each loop itself: a row of the matrix per
 * 32-lane vector, gangs of 256 lanes for the vector loops, and the dot
 * as a partial per gang combined by a second loop (kl__cg_acc_tuned).
 *
 * The host parts run on one thread, as the seed's program does; the
 * solve, its phases and its stop are kl__cg_host_reps' (cg-host.c). */
#include "cg.h"
#include "cg-host.h"

/* ---- each call copies its arrays --------------------------------------- */

static void waxpby_copied(const kl__cg_host *h, double alpha, const double *x,
                          double beta, const double *y, double *w) {
  const int64_t n = h->matrix.rows;
  /* One mapping per array: w may be x or y, and x may be y. */
  if (w == x && w == y) {
#pragma acc parallel loop copy(w[0 : n])
    for (int64_t i = 0; i < n; i++) w[i] = (alpha + beta) * w[i];
  } else if (w == x) {
#pragma acc parallel loop copy(w[0 : n]) copyin(y[0 : n])
    for (int64_t i = 0; i < n; i++) w[i] = alpha * w[i] + beta * y[i];
  } else if (w == y) {
#pragma acc parallel loop copy(w[0 : n]) copyin(x[0 : n])
    for (int64_t i = 0; i < n; i++) w[i] = alpha * x[i] + beta * w[i];
  } else if (x == y) {
#pragma acc parallel loop copyin(x[0 : n]) copyout(w[0 : n])
    for (int64_t i = 0; i < n; i++) w[i] = alpha * x[i] + beta * x[i];
  } else {
#pragma acc parallel loop copyin(x[0 : n], y[0 : n]) copyout(w[0 : n])
    for (int64_t i = 0; i < n; i++) w[i] = alpha * x[i] + beta * y[i];
  }
}

static double dot_copied(const kl__cg_host *h, const double *x,
                         const double *y) {
  const int64_t n = h->matrix.rows;
  double sum = 0;
  if (x == y) {
#pragma acc parallel loop copyin(x[0 : n]) reduction(+ : sum)
    for (int64_t i = 0; i < n; i++) sum += x[i] * x[i];
  } else {
#pragma acc parallel loop copyin(x[0 : n], y[0 : n]) reduction(+ : sum)
    for (int64_t i = 0; i < n; i++) sum += x[i] * y[i];
  }
  return sum;
}

static void matvec_copied(const kl__cg_host *h, const double *v,
                          double *out) {
  const int64_t rows = h->matrix.rows, nnz = CG_NNZ(h->plan);
  const int64_t *offsets = h->matrix.offsets;
  const int32_t *columns = h->matrix.columns;
  const double *values = h->matrix.values;
#pragma acc parallel loop copyin(offsets[0 : rows + 1], columns[0 : nnz],    \
                                 values[0 : nnz], v[0 : rows])               \
    copyout(out[0 : rows])
  for (int64_t row = 0; row < rows; row++) {
    double sum = 0;
    for (int64_t e = offsets[row]; e < offsets[row + 1]; e++)
      sum += values[e] * v[columns[e]];
    out[row] = sum;
  }
}

/* ---- the seed's fix: the arrays on the device for the whole solve ------ */

/* GCC 12 does not count a name in an enter or exit data clause as a use
 * (-Wunused-variable); the regions are made all the same. */
#define UNUSED_BUT_IN_DATA_CLAUSES                                            \
  (void)offsets, (void)columns, (void)values, (void)b, (void)x, (void)r,      \
      (void)p, (void)ap

static void data_begin(const kl__cg_host *h) {
  const int64_t rows = h->matrix.rows, nnz = CG_NNZ(h->plan);
  const int64_t *offsets = h->matrix.offsets;
  const int32_t *columns = h->matrix.columns;
  const double *values = h->matrix.values, *b = h->b;
  double *x = h->x, *r = h->r, *p = h->p, *ap = h->ap;
#pragma acc enter data copyin(offsets[0 : rows + 1], columns[0 : nnz],       \
                              values[0 : nnz], b[0 : rows], x[0 : rows])     \
    create(r[0 : rows], p[0 : rows], ap[0 : rows])
  UNUSED_BUT_IN_DATA_CLAUSES;
}

static void data_end(const kl__cg_host *h) {
  const int64_t rows = h->matrix.rows, nnz = CG_NNZ(h->plan);
  const int64_t *offsets = h->matrix.offsets;
  const int32_t *columns = h->matrix.columns;
  const double *values = h->matrix.values, *b = h->b;
  double *x = h->x, *r = h->r, *p = h->p, *ap = h->ap;
#pragma acc exit data copyout(x[0 : rows])                                   \
    delete (offsets[0 : rows + 1], columns[0 : nnz], values[0 : nnz],        \
            b[0 : rows], r[0 : rows], p[0 : rows], ap[0 : rows])
  UNUSED_BUT_IN_DATA_CLAUSES;
}

/* ---- tuned: device buffers, partitioned by hand ------------------------ */

/* A gang of 4 workers of 32 lanes: a row per worker, its nonzeros over
 * the lanes (a 27-point row fills 27 of 32), so that a row's columns and
 * values are read as contiguous runs (8 workers: 2.45 ms at 201^3 against
 * 2.32; one row per thread: 10.3 ms). */
#define ROW_WORKERS 4
#define ROW_LANES 32
/* The vector loops: 256 lanes a gang. */
#define LANES 256
/* The dot: GANGS gangs of DOT_LANES lanes, each reducing its piece into a
 * partial of its own. GCC reduces across the lanes of one 32-lane vector
 * with shuffles, but across a longer vector through a lock that every gang
 * takes in turn: 1024 gangs of 256 lanes cost 0.25 ms whatever the size.
 * 4224 = 32 gangs (the most an SM holds) on each of the H100's 132 SMs. */
#define GANGS 4224
#define DOT_LANES 32

static void matvec_tuned(const kl__cg_host *h, const double *v,
                         double *out) {
  const int64_t rows = h->matrix.rows;
  const int64_t *restrict offsets = h->matrix.offsets;
  const int32_t *restrict columns = h->matrix.columns;
  const double *restrict values = h->matrix.values;
#pragma acc parallel loop gang worker num_workers(ROW_WORKERS)               \
    vector_length(ROW_LANES) deviceptr(offsets, columns, values, v, out)
  for (int64_t row = 0; row < rows; row++) {
    double sum = 0;
#pragma acc loop vector reduction(+ : sum)
    for (int64_t e = offsets[row]; e < offsets[row + 1]; e++)
      sum += values[e] * v[columns[e]];
    out[row] = sum;
  }
}

static void waxpby_tuned(const kl__cg_host *h, double alpha, const double *x,
                         double beta, const double *y, double *w) {
  const int64_t n = h->matrix.rows;
#pragma acc parallel loop gang vector vector_length(LANES) deviceptr(x, y, w)
  for (int64_t i = 0; i < n; i++) w[i] = alpha * x[i] + beta * y[i];
}

/* GCC combines a `parallel loop reduction` across its gangs with a
 * compare-and-swap loop on one address, one gang after another: with the
 * 8448 gangs it launches by default, 12 ms whatever the size. Here each
 * gang sums its own piece across its lanes only and writes one partial;
 * one gang of 32 lanes sums the partials. */
static double dot_tuned(const kl__cg_host *h, const double *x,
                        const double *y) {
  const int64_t n = h->matrix.rows, piece = (n + GANGS - 1) / GANGS;
  double *restrict partials = h->buffers[CG_PARTIALS];
#pragma acc parallel loop gang num_gangs(GANGS) vector_length(DOT_LANES)     \
    deviceptr(x, y, partials)
  for (int g = 0; g < GANGS; g++) {
    const int64_t begin = g * piece < n ? g * piece : n;
    const int64_t end = begin + piece < n ? begin + piece : n;
    double sum = 0;
#pragma acc loop vector reduction(+ : sum)
    for (int64_t i = begin; i < end; i++) sum += x[i] * y[i];
    partials[g] = sum;
  }
  double sum = 0;
#pragma acc parallel loop gang vector num_gangs(1) vector_length(DOT_LANES)  \
    deviceptr(partials) reduction(+ : sum)
  for (int g = 0; g < GANGS; g++) sum += partials[g];
  return sum;
}

/* ---- the rungs ---------------------------------------------------------- */

kl_status kl__cg_acc_waxpby(const kl_args *a, kl_reps *reps) {
  kl__cg_kernels k = kl__cg_host_kernels;
  k.waxpby = waxpby_copied;
  return kl__cg_host_reps(a, reps, 0, &k);
}

kl_status kl__cg_acc_waxpby_dot(const kl_args *a, kl_reps *reps) {
  kl__cg_kernels k = kl__cg_host_kernels;
  k.waxpby = waxpby_copied;
  k.dot = dot_copied;
  return kl__cg_host_reps(a, reps, 0, &k);
}

kl_status kl__cg_acc_copied(const kl_args *a, kl_reps *reps) {
  static const kl__cg_kernels k = {
      matvec_copied, waxpby_copied, dot_copied, NULL, NULL, NULL, NULL};
  return kl__cg_host_reps(a, reps, 0, &k);
}

kl_status kl__cg_acc_data(const kl_args *a, kl_reps *reps) {
  static const kl__cg_kernels k = {matvec_copied, waxpby_copied,
                                   dot_copied,    data_begin,
                                   data_end,      NULL,
                                   NULL};
  return kl__cg_host_reps(a, reps, 0, &k);
}

kl_status kl__cg_acc_tuned(const kl_args *a, kl_reps *reps) {
  static const kl__cg_kernels k = {
      matvec_tuned, waxpby_tuned, dot_tuned, NULL, NULL, NULL, NULL};
  return kl__cg_host_reps(a, reps, 0, &k);
}

/* The copying rungs' buffers, every one in pageable host memory, as the
 * seed's arrays are. (The tuned rung's are the GPU rungs': r, p, Ap, and
 * partials, GANGS of them used, on the device.) */
kl_status kl__cg_acc_host_scratch(kl_plan *p) {
  kl_status st = kl__cg_host_scratch(p);
  for (int i = 0; i < p->buffer_count && st == KL_OK; i++)
    p->buffers[i].placement = KL_MEM_PAGEABLE;
  return st;
}

