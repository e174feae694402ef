/* cg's problem: the 3D Poisson matrix in CSR, the inputs (b = A x*), the
 * matrix of a plan's buffers, the scratch each rung family adds to the
 * plan, and the breakdown error every solve reports. cg.c (the workload)
 * and every rung file build on this file; it calls none of them. */
#include <string.h>

#include "cg-host.h"

kl_status kl__cg_not_spd(double pAp, int64_t k) {
  return kl__usage(KL_USAGE, "cg: the matrix is not positive definite: "
                   "p'Ap = %g at iteration %lld", pAp, (long long)k);
}

void kl__cg_matrix_of(const kl_plan *p, void *const *buffers,
                      kl__cg_matrix *m) {
  memset(m, 0, sizeof *m);
  m->rows = CG_ROWS(p);
  m->n = CG_N(p);
  m->stencil = CG_STENCIL(p);
  if (p->buffers[CG_VALUES].count > 0 || !CG_IS_GRID(p)) {
    m->offsets = buffers[CG_OFFSETS];
    m->columns = buffers[CG_COLUMNS];
    m->values = buffers[CG_VALUES];
  }
}

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

/* Points along one axis that a stencil's row at coordinate c reaches
 * (itself included): 3 inside, 2 at a face, 1 where n = 1. */
static int axis_points(int64_t c, int64_t n) {
  return 1 + (c > 0) + (c < n - 1);
}

/* A row's entries from its axes' points: the 27-point stencil takes every
 * combination, the 7-point one the centre and each axis' others. Both
 * grow with each axis' count, so a run of rows along x is widest at its
 * widest x. */
static int64_t stencil_row_length(int stencil, int cx, int cy, int cz) {
  return stencil == CG_STENCIL_27 ? (int64_t)cx * cy * cz
                                  : (int64_t)cx + cy + cz - 2;
}

int64_t kl__cg_sell_slices(int64_t n, int stencil, int64_t *offsets) {
  const int64_t rows = n * n * n, h = CG_SELL_HEIGHT;
  const int64_t slices = CG_SELL_SLICES(rows);
  int64_t total = 0;
  if (offsets) offsets[0] = 0;
  for (int64_t s = 0; s < slices; s++) {
    const int64_t end = (s + 1) * h < rows ? (s + 1) * h : rows;
    int64_t width = 0;
    /* The slice's rows, one run along x (a grid line) at a time. */
    for (int64_t row = s * h; row < end;) {
      const int64_t i = row % n, line = row / n;
      const int64_t last = end < row - i + n ? end - 1 : row - i + n - 1;
      const int64_t i_last = i + (last - row);
      int cx = axis_points(i, n);
      if (axis_points(i_last, n) > cx) cx = axis_points(i_last, n);
      if ((i > 1 ? i : 1) <= (i_last < n - 2 ? i_last : n - 2)) cx = 3;
      const int64_t w = stencil_row_length(
          stencil, cx, axis_points(line % n, n), axis_points(line / n, n));
      if (w > width) width = w;
      row = last + 1;
    }
    total += width * h;
    if (offsets) offsets[s + 1] = total;
  }
  return total;
}

int64_t kl__cg_sell_room_csr(int64_t rows, int64_t nnz) {
  /* 12 bytes an entry against the CSR's 12 an entry and 8 a row. */
  const int64_t csr_bytes = 12 * nnz + 8 * rows;
  return csr_bytes / 12 + csr_bytes / (12 * CG_SELL_SLACK);
}

int64_t kl__cg_sell_room(const kl_plan *p) {
  return CG_IS_GRID(p) ? kl__cg_sell_slices(CG_N(p), CG_STENCIL(p), NULL)
                       : kl__cg_sell_room_csr(CG_ROWS(p), CG_NNZ(p));
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

/* ---- scratch ------------------------------------------------------------- */

static kl_status vectors(kl_plan *p, const int *which, int count) {
  static const char *const names[KL_MAX_BUFFERS] = {
      [CG_R] = "r", [CG_P] = "p", [CG_AP] = "Ap", [CG_W] = "w", [CG_Z] = "z",
      [CG_S] = "s"};
  kl_status st = KL_OK;
  for (int i = 0; i < count && st == KL_OK; i++)
    st = kl__plan_scratch(p, which[i], names[which[i]], KL_F64, CG_ROWS(p),
                          KL_MEM_DEVICE, 0);
  return st;
}

kl_status kl__cg_host_scratch(kl_plan *p) {
  static const int base[] = {CG_R, CG_P, CG_AP};
  return vectors(p, base, 3);
}

kl_status kl__cg_gpu_scratch(kl_plan *p) {
  kl_status st = kl__cg_host_scratch(p);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_SCALARS, "scalars", KL_F64, CG_SCALAR_COUNT,
                          KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_PARTIALS, "partials", KL_F64,
                          CG_PARTIAL_COUNT, KL_MEM_DEVICE, 0);
  return st;
}

kl_status kl__cg_gpu_pipelined_scratch(kl_plan *p) {
  static const int more[] = {CG_W, CG_Z, CG_S};
  kl_status st = kl__cg_gpu_scratch(p);
  return st == KL_OK ? vectors(p, more, 3) : st;
}

int64_t kl__cg_mirror_bytes(const kl_plan *p, int64_t offset_of[8]) {
  static const int arrays[8] = {CG_OFFSETS, CG_COLUMNS, CG_VALUES, CG_B,
                                CG_X,       CG_R,       CG_P,      CG_AP};
  int64_t at = 0;
  for (int i = 0; i < 8; i++) {
    const kl_buffer_spec *s = &p->buffers[arrays[i]];
    offset_of[i] = at;
    at += (s->count * (int64_t)kl_type_size(s->type) + 255) / 256 * 256;
  }
  return at;
}

kl_status kl__cg_gpu_copied_scratch(kl_plan *p) {
  kl_status st = kl__cg_gpu_scratch(p);
  int64_t offsets[8];
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_MIRROR, "host mirror", KL_U8,
                          kl__cg_mirror_bytes(p, offsets), KL_MEM_PINNED, 0);
  return st;
}

/* The sliced matrix (cuda-sell's, opencl-sell's): the built-in stencil's
 * slices exactly, a matrix of its own the room kl__cg_sell_room allows
 * (its slice widths are known only once its rows are read, in the rung's
 * setup). */
kl_status kl__cg_sell_scratch(kl_plan *p) {
  const int64_t entries = kl__cg_sell_room(p);
  kl_status st = kl__plan_scratch(p, CG_SELL_VALUES, "sliced values", KL_F64,
                                  entries, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_SELL_COLUMNS, "sliced columns", KL_I32,
                          entries, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_SELL_OFFSETS, "slice offsets", KL_I64,
                          CG_SELL_SLICES(CG_ROWS(p)) + 1, KL_MEM_DEVICE, 0);
  return st;
}

kl_status kl__cg_gpu_sell_scratch(kl_plan *p) {
  kl_status st = kl__cg_gpu_scratch(p);
  return st == KL_OK ? kl__cg_sell_scratch(p) : st;
}

/* A rung that applies the stencil itself plans no matrix: its footprint
 * is the vectors alone, and the check applies the stencil too. */
kl_status kl__cg_gpu_matrix_free_scratch(kl_plan *p) {
  if (!CG_IS_GRID(p))
    return kl__usage(KL_UNAVAILABLE, "cg: the matrix-free rung applies the "
                     "built-in stencils only, not a matrix of its own");
  p->buffers[CG_OFFSETS].count = 0;
  p->buffers[CG_COLUMNS].count = 0;
  p->buffers[CG_VALUES].count = 0;
  return kl__cg_gpu_scratch(p);
}

void kl__cg_plan_buffers(kl_plan *p, int64_t rows, int64_t nnz) {
  p->buffer_count = CG_INFO + 1;
  p->buffers[CG_OFFSETS] = (kl_buffer_spec){"offsets", KL_I64, rows + 1, KL_IN,
                                            KL_MEM_DEVICE, 0};
  p->buffers[CG_COLUMNS] = (kl_buffer_spec){"columns", KL_I32, nnz, KL_IN,
                                            KL_MEM_DEVICE, 0};
  p->buffers[CG_VALUES] = (kl_buffer_spec){"values", KL_F64, nnz, KL_IN,
                                           KL_MEM_DEVICE, 0};
  p->buffers[CG_B] = (kl_buffer_spec){"b", KL_F64, rows, KL_IN, KL_MEM_DEVICE,
                                      0};
  p->buffers[CG_X] = (kl_buffer_spec){"x", KL_F64, rows, KL_INOUT,
                                      KL_MEM_DEVICE, KL_BUFFER_RESTORED};
  p->buffers[CG_INFO] = (kl_buffer_spec){"info", KL_F64, CG_INFO_COUNT,
                                         KL_OUT, KL_MEM_DEVICE, 0};
}
