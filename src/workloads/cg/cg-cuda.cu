/* cg's CUDA rungs on the seed's solve, each dot read by the host
 * (cg-gpu.h has the whole ladder): copied, resident, vector and stream.
 * And every CUDA rung's setup and teardown. */
#include "cg-gpu.h"

/* ---- 1 to 5: the seed's solve, its three operations per rung ------------ */

/* The seed's operations on the plan's buffers, by index. */
typedef struct seed_ops {
  kl_status (*matvec)(const kl_args *a, const geometry *g, int in, int out);
  kl_status (*waxpby)(const kl_args *a, const geometry *g, double alpha,
                      int x, double beta, int y, int w);
  kl_status (*dot)(const kl_args *a, const geometry *g, int x, int y,
                   double *result);
} seed_ops;

/* The seed's loop: p's update at the top, so that the last iteration
 * skips it; 14 vector passes an iteration. */
static kl_status seed_solve(const kl_args *a, const geometry *g,
                            const seed_ops *op, int64_t *iterations) {
  double rr = 0, bb = 0, rr_old = 0;
  int64_t k = 0;
  KL_TRY(op->matvec(a, g, CG_X, CG_AP));
  KL_TRY(op->waxpby(a, g, 1, CG_B, -1, CG_AP, CG_R));
  KL_TRY(op->dot(a, g, CG_R, CG_R, &rr));
  KL_TRY(op->dot(a, g, CG_B, CG_B, &bb));
  while (go_on(g->stop, k, rr, bb)) {
    if (k == 0) KL_TRY(op->waxpby(a, g, 1, CG_R, 0, CG_R, CG_P));
    else KL_TRY(op->waxpby(a, g, 1, CG_R, rr / rr_old, CG_P, CG_P));
    KL_TRY(op->matvec(a, g, CG_P, CG_AP));
    double pap = 0;
    KL_TRY(op->dot(a, g, CG_P, CG_AP, &pap));
    if (!positive_finite(pap)) return kl__cg_not_spd(pap, k);
    const double alpha = rr / pap;
    KL_TRY(op->waxpby(a, g, 1, CG_X, alpha, CG_P, CG_X));
    KL_TRY(op->waxpby(a, g, 1, CG_R, -alpha, CG_AP, CG_R));
    rr_old = rr;
    KL_TRY(op->dot(a, g, CG_R, CG_R, &rr));
    k++;
  }
  *iterations = k;
  return put_info(a, g, k, rr, bb);
}

/* ---- 1 and 2. the seed's kernels ---------------------------------------- */

/* One thread per row, as OpenACC's `kernels` made of the seed's matvec. */
static __global__ void matvec_kernel(csr m, const double *__restrict__ v,
                                     double *__restrict__ out) {
  for (int64_t row = thread_index(); row < m.rows; row += grid_threads()) {
    double sum = 0;
    for (int64_t j = m.offsets[row]; j < m.offsets[row + 1]; j++)
      sum += m.values[j] * v[m.columns[j]];
    out[row] = sum;
  }
}

/* w = alpha x + beta y; w may be x or y (x = x + alpha p), so no
 * __restrict__. */
static __global__ void waxpby_kernel(double alpha, const double *x, double beta,
                                     const double *y, double *w, int64_t n) {
  for (int64_t i = thread_index(); i < n; i += grid_threads())
    w[i] = alpha * x[i] + beta * y[i];
}

/* The seed's dot as a compiler's reduction makes it: a block's sum, then
 * one atomic per block into a zeroed result. */
static __global__ void dot_atomic_kernel(const double *__restrict__ x,
                                         const double *__restrict__ y,
                                         double *result, int64_t n) {
  double v = 0;
  for (int64_t i = thread_index(); i < n; i += grid_threads())
    v += x[i] * y[i];
  v = kl_block_reduce<KL_OP_SUM>(v);
  if (threadIdx.x == 0) atomicAdd(result, v);
}

/* resident: the seed's kernels on the device's data. */
static kl_status resident_matvec(const kl_args *a, const geometry *g, int in,
                                 int out) {
  matvec_kernel<<<g->row_blocks, BLOCK, 0, g->s>>>(g->m, VEC(a, in),
                                                   VEC(a, out));
  KL_GPU_CHECK_LAUNCH(matvec_kernel);
  return KL_OK;
}

static kl_status resident_waxpby(const kl_args *a, const geometry *g,
                                 double alpha, int x, double beta, int y,
                                 int w) {
  waxpby_kernel<<<g->row_blocks, BLOCK, 0, g->s>>>(
      alpha, VEC(a, x), beta, VEC(a, y), VEC(a, w), g->rows);
  KL_GPU_CHECK_LAUNCH(waxpby_kernel);
  return KL_OK;
}

static kl_status resident_dot(const kl_args *a, const geometry *g, int x,
                              int y, double *result) {
  double *sum = SCALARS(a) + S_DOT;
  KL_GPU_CHECK(cudaMemsetAsync(sum, 0, sizeof *sum, g->s));
  dot_atomic_kernel<<<g->blocks, BLOCK, 0, g->s>>>(VEC(a, x), VEC(a, y),
                                                   sum, g->rows);
  KL_GPU_CHECK_LAUNCH(dot_atomic_kernel);
  return read_back(result, sum, 1, g->s);
}

/* ---- 1. copied: every array through a host mirror ----------------------- */

/* copied: before each kernel its inputs go from the mirror to the device,
 * after it its outputs come back, waited for: OpenACC's copy clauses on a
 * `kernels` region with no data region around it. The device buffers that
 * receive inputs (the matrix, b) get the bytes they already hold. */
static int mirror_slot(int buffer) {
  switch (buffer) {
  case CG_OFFSETS: return 0;
  case CG_COLUMNS: return 1;
  case CG_VALUES: return 2;
  case CG_B: return 3;
  case CG_X: return 4;
  case CG_R: return 5;
  case CG_P: return 6;
  default: return 7; /* CG_AP */
  }
}

static size_t buffer_bytes(const kl_args *a, int buffer) {
  const kl_buffer_spec *s = &a->plan->buffers[buffer];
  return (size_t)s->count * kl_type_size(s->type);
}

static kl_status to_device(const kl_args *a, const geometry *g, int buffer) {
  KL_GPU_CHECK(cudaMemcpyAsync(a->buffers[buffer],
                               g->mirror + g->mirror_at[mirror_slot(buffer)],
                               buffer_bytes(a, buffer),
                               cudaMemcpyHostToDevice, g->s));
  return KL_OK;
}

static kl_status to_host(const kl_args *a, const geometry *g, int buffer) {
  KL_GPU_CHECK(cudaMemcpyAsync(g->mirror + g->mirror_at[mirror_slot(buffer)],
                               a->buffers[buffer], buffer_bytes(a, buffer),
                               cudaMemcpyDeviceToHost, g->s));
  KL_GPU_CHECK(cudaStreamSynchronize(g->s));
  return KL_OK;
}

static kl_status copied_matvec(const kl_args *a, const geometry *g, int in,
                               int out) {
  KL_TRY(to_device(a, g, CG_OFFSETS));
  KL_TRY(to_device(a, g, CG_COLUMNS));
  KL_TRY(to_device(a, g, CG_VALUES));
  KL_TRY(to_device(a, g, in));
  KL_TRY(resident_matvec(a, g, in, out));
  return to_host(a, g, out);
}

static kl_status copied_waxpby(const kl_args *a, const geometry *g,
                               double alpha, int x, double beta, int y,
                               int w) {
  KL_TRY(to_device(a, g, x));
  if (y != x) KL_TRY(to_device(a, g, y));
  KL_TRY(resident_waxpby(a, g, alpha, x, beta, y, w));
  return to_host(a, g, w);
}

static kl_status copied_dot(const kl_args *a, const geometry *g, int x, int y,
                            double *result) {
  KL_TRY(to_device(a, g, x));
  if (y != x) KL_TRY(to_device(a, g, y));
  return resident_dot(a, g, x, y, result);
}

static const seed_ops copied_ops = {copied_matvec, copied_waxpby,
                                    copied_dot};

/* Whether the plan carries cuda-copied's mirror (kl__cg_gpu_copied_scratch):
 * pinned bytes at CG_MIRROR, where another rung has pipelined's w or
 * nothing. */
static int has_mirror(const kl_plan *p) {
  return p->buffer_count > CG_MIRROR &&
         p->buffers[CG_MIRROR].type == KL_U8 &&
         p->buffers[CG_MIRROR].placement == KL_MEM_PINNED;
}

static kl_status mirror_of(const kl_args *a, geometry *g) {
  if (!has_mirror(a->plan))
    return KL_FAIL(KL_USAGE, "cg: cuda-copied needs its host mirror "
                   "(kl__cg_gpu_copied_scratch)");
  const int64_t bytes = kl__cg_mirror_bytes(a->plan, g->mirror_at);
  KL_TRY(require(a, CG_MIRROR, bytes, "cuda-copied's host mirror"));
  g->mirror = (unsigned char *)a->buffers[CG_MIRROR];
  return KL_OK;
}

/* Each repetition starts from x0 in the host's copy, as the seed's x does:
 * untimed, as the harness's restore of x is. */
static kl_status copied_x0(const kl_args *a, const geometry *g,
                           int64_t *unused) {
  (void)unused;
  return to_host(a, g, CG_X);
}

static kl_status copied_solve(const kl_args *a, const geometry *g,
                              int64_t *iterations) {
  KL_TRY(seed_solve(a, g, &copied_ops, iterations));
  /* x lives on the host; the check reads the device's. */
  KL_TRY(to_device(a, g, CG_X));
  KL_GPU_CHECK(cudaStreamSynchronize(g->s));
  return KL_OK;
}

extern "C" kl_status kl__cg_gpu_copied(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  KL_TRY(mirror_of(a, &g));
  return repeat(a, reps, &g, copied_x0, copied_solve);
}

/* ---- 2. resident -------------------------------------------------------- */

static const seed_ops resident_ops = {resident_matvec, resident_waxpby,
                                      resident_dot};

static kl_status resident_solve(const kl_args *a, const geometry *g,
                                int64_t *iterations) {
  return seed_solve(a, g, &resident_ops, iterations);
}

extern "C" kl_status kl__cg_gpu_resident(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, resident_solve);
}

/* ---- 3. vector: a group of lanes per CSR row ---------------------------- */

/* Vector: out = A v. */
static __global__ void spmv_group_kernel(csr m, const double *__restrict__ v,
                                         double *__restrict__ out, int group) {
  const int lane = group_lane(group);
  for (int64_t row = group_row(group); row - behind(group) < m.rows;
       row += groups(group)) {
    const double s = row_product(m, v, row, lane, group);
    if (lane == 0 && row < m.rows) out[row] = s;
  }
}

/* Vector: x.y by blocks; the totals kernel finishes it. */
static __global__ void dot_partials_kernel(const double *__restrict__ x,
                                           const double *__restrict__ y,
                                           double *partials, int64_t n) {
  double v = 0;
  for (int64_t i = thread_index(); i < n; i += grid_threads())
    v += x[i] * y[i];
  store_partial(v, partials);
}

/* vector: a group of lanes per row; dots by blocks, then one block, the
 * result to the host. */
static kl_status vector_matvec(const kl_args *a, const geometry *g, int in,
                               int out) {
  spmv_group_kernel<<<g->blocks, BLOCK, 0, g->s>>>(g->m, VEC(a, in),
                                                   VEC(a, out), g->group);
  KL_GPU_CHECK_LAUNCH(spmv_group_kernel);
  return KL_OK;
}

static kl_status vector_dot(const kl_args *a, const geometry *g, int x, int y,
                            double *result) {
  dot_partials_kernel<<<g->blocks, BLOCK, 0, g->s>>>(VEC(a, x), VEC(a, y),
                                                     PARTIALS(a), g->rows);
  KL_GPU_CHECK_LAUNCH(dot_partials_kernel);
  return totals(a, g, 1, result);
}

static const seed_ops vector_ops = {vector_matvec, resident_waxpby,
                                    vector_dot};

static kl_status vector_solve(const kl_args *a, const geometry *g,
                              int64_t *iterations) {
  return seed_solve(a, g, &vector_ops, iterations);
}

extern "C" kl_status kl__cg_gpu_vector(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, vector_solve);
}

/* ---- 4. stream: rows by blocks through shared memory -------------------- */

/* stream: vector's solve with rows by blocks through shared memory. */
static kl_status stream_matvec(const kl_args *a, const geometry *g, int in,
                               int out) {
  spmv_stream_kernel<SPMV_OUT, false><<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, in), VEC(a, out), NULL, NULL, SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(spmv_stream_kernel);
  return KL_OK;
}

static const seed_ops stream_ops = {stream_matvec, resident_waxpby,
                                    vector_dot};

static kl_status stream_solve(const kl_args *a, const geometry *g,
                              int64_t *iterations) {
  return seed_solve(a, g, &stream_ops, iterations);
}

extern "C" kl_status kl__cg_gpu_stream(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, stream_solve);
}

/* ---- 5. lanes: a few lanes a row, a run of the row a lane --------------- */

/* lanes: stream's solve with the SpMV of the rungs after it, a group of
 * lanes a row (launch_csr_spmv). */
static kl_status lanes_matvec(const kl_args *a, const geometry *g, int in,
                              int out) {
  return launch_csr_spmv<SPMV_OUT, false>(g, VEC(a, in), VEC(a, out), NULL,
                                          NULL, SCALARS(a), PARTIALS(a));
}

static const seed_ops lanes_ops = {lanes_matvec, resident_waxpby,
                                   vector_dot};

static kl_status lanes_solve(const kl_args *a, const geometry *g,
                             int64_t *iterations) {
  return seed_solve(a, g, &lanes_ops, iterations);
}

extern "C" kl_status kl__cg_gpu_lanes(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  KL_TRY(lanes_geometry(a, &g));
  return repeat(a, reps, &g, NULL, lanes_solve);
}

/* ---- every CUDA rung's setup and teardown ------------------------------- */

/* Every CUDA rung's setup: cuda-copied's mirror gets the matrix and b
 * once, outside every timed run (the seed's host arrays exist before its
 * solve). A graph is made at its rung's first call, where it is known
 * which rung runs. */
extern "C" kl_status kl__cg_gpu_setup(kl_args *a) {
  a->state.pointer[0] = NULL;
  if (!has_mirror(a->plan)) return KL_OK;
  geometry g = geometry_of(a);
  KL_TRY(mirror_of(a, &g));
  KL_TRY(to_host(a, &g, CG_OFFSETS));
  KL_TRY(to_host(a, &g, CG_COLUMNS));
  KL_TRY(to_host(a, &g, CG_VALUES));
  return to_host(a, &g, CG_B);
}

extern "C" void kl__cg_gpu_teardown(kl_args *a) {
  if (a->state.pointer[0])
    (void)cudaGraphExecDestroy((cudaGraphExec_t)a->state.pointer[0]);
  a->state.pointer[0] = NULL;
}
