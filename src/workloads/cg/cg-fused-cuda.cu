/* cg's fused CUDA rungs (cg-gpu.h has the whole ladder): the SpMV with
 * p.Ap, then x, r and r.r in one kernel, then p. cuda-fused reads the
 * scalars on the host; cuda-device-scalars keeps them on the device and
 * reads a flag once per batch; cuda-graph launches the batch as a graph;
 * cuda-sell is cuda-graph with the matrix in sliced ELLPACK (cg.h). */
#include "cg-gpu.h"

/* ---- 6 to 8. the kernels after the SpMV --------------------------------- */

/* With PAIRS a thread takes two neighbouring elements, one 16-byte access
 * of each vector, where a single element a thread left the vector kernels
 * a tenth below the copy's rate on the H200 (cg's lessons). It needs
 * every vector 16-byte aligned: the plan's buffers are, a caller's x on
 * the device need not be (pairs_of). The scalar loop takes an odd last
 * element. */
static bool pairs_of(const void *a, const void *b) {
  return (((uintptr_t)a | (uintptr_t)b) % sizeof(double2)) == 0;
}

/* x += alpha p, r -= alpha Ap, and the new r.r. */
template <bool DEV, bool PAIRS>
static __global__ void
update_kernel(double *__restrict__ x, double *__restrict__ r,
              const double *__restrict__ p, const double *__restrict__ ap,
              int64_t n, double alpha, const double *scalars,
              double *partials) {
  if (DEV) {
    if (stopped(scalars)) return;
    alpha = scalars[S_ALPHA];
  }
  double rr = 0;
  if (PAIRS)
    for (int64_t i = thread_index(); i < n / 2; i += grid_threads()) {
      double2 xi = ((double2 *)x)[i], ri = ((double2 *)r)[i];
      const double2 pi = ((const double2 *)p)[i];
      const double2 api = ((const double2 *)ap)[i];
      xi.x += alpha * pi.x;
      xi.y += alpha * pi.y;
      ri.x -= alpha * api.x;
      ri.y -= alpha * api.y;
      ((double2 *)x)[i] = xi;
      ((double2 *)r)[i] = ri;
      rr += ri.x * ri.x + ri.y * ri.y;
    }
  for (int64_t i = (PAIRS ? n - n % 2 : 0) + thread_index(); i < n;
       i += grid_threads()) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * ap[i];
    r[i] = ri;
    rr += ri * ri;
  }
  store_partial(rr, partials);
}

/* p = r + beta p. */
template <bool DEV, bool PAIRS>
static __global__ void direction_kernel(double *__restrict__ p,
                                        const double *__restrict__ r, int64_t n,
                                        double beta, const double *scalars) {
  if (DEV) {
    if (stopped(scalars)) return;
    beta = scalars[S_BETA];
  }
  if (PAIRS)
    for (int64_t i = thread_index(); i < n / 2; i += grid_threads()) {
      double2 pi = ((double2 *)p)[i];
      const double2 ri = ((const double2 *)r)[i];
      pi.x = ri.x + beta * pi.x;
      pi.y = ri.y + beta * pi.y;
      ((double2 *)p)[i] = pi;
    }
  for (int64_t i = (PAIRS ? n - n % 2 : 0) + thread_index(); i < n;
       i += grid_threads())
    p[i] = r[i] + beta * p[i];
}

/* The vector kernels' grid: a pair of rows a thread, each block once, up
 * to CG_MAX_BLOCKS blocks (then they stride). One-shot blocks sweep the
 * vectors as a copy does; on the resident grid, striding, the update ran
 * 4-8% slower on the H200 (LESSONS.md, cuda-graph). cuda-sell's grid is
 * one-shot already (sell_geometry). */
static void vector_geometry(geometry *g) {
  int64_t blocks = kl__gpu_blocks((g->rows + 1) / 2, BLOCK);
  if (blocks > CG_MAX_BLOCKS) blocks = CG_MAX_BLOCKS;
  g->vector_blocks = (unsigned)blocks;
}

/* ---- 6. fused: three kernels an iteration, the scalars on the host ------ */

/* The fused and device-scalar start: r = b - A x, p = r; r.r and b.b. */
static kl_status launch_start(const kl_args *a, const geometry *g) {
  return launch_csr_spmv<SPMV_START, false>(g, VEC(a, CG_X), VEC(a, CG_R),
                                            VEC(a, CG_B), VEC(a, CG_P),
                                            SCALARS(a), PARTIALS(a));
}

template <bool DEV>
static kl_status launch_spmv_dot(const kl_args *a, const geometry *g) {
  return launch_csr_spmv<SPMV_DOT, DEV>(g, VEC(a, CG_P), VEC(a, CG_AP), NULL,
                                        NULL, SCALARS(a), PARTIALS(a));
}

template <bool DEV>
static kl_status launch_update(const kl_args *a, const geometry *g,
                               double alpha) {
  double *x = VEC(a, CG_X), *r = VEC(a, CG_R), *p = VEC(a, CG_P);
  double *ap = VEC(a, CG_AP);
  void (*kernel)(double *, double *, const double *, const double *, int64_t,
                 double, const double *, double *) =
      pairs_of(x, r) && pairs_of(p, ap) ? update_kernel<DEV, true>
                                        : update_kernel<DEV, false>;
  kernel<<<vector_grid(g), BLOCK, 0, g->s>>>(x, r, p, ap, g->rows, alpha,
                                             SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(update_kernel);
  return KL_OK;
}

template <bool DEV>
static kl_status launch_direction(const kl_args *a, const geometry *g,
                                  double beta) {
  double *p = VEC(a, CG_P), *r = VEC(a, CG_R);
  void (*kernel)(double *, const double *, int64_t, double, const double *) =
      pairs_of(p, r) ? direction_kernel<DEV, true>
                     : direction_kernel<DEV, false>;
  kernel<<<vector_grid(g), BLOCK, 0, g->s>>>(p, r, g->rows, beta,
                                             SCALARS(a));
  KL_GPU_CHECK_LAUNCH(direction_kernel);
  return KL_OK;
}

static kl_status fused_solve(const kl_args *a, const geometry *g,
                             int64_t *iterations) {
  double start[2] = {0, 0}, pap = 0, rr_next = 0;
  KL_TRY(launch_start(a, g));
  KL_TRY(totals_of(a, g, spmv_partials(g), 2, start));
  double rr = start[0], beta = 0;
  const double bb = start[1];
  int64_t k = 0;
  while (go_on(g->stop, k, rr, bb)) {
    if (k > 0) KL_TRY(launch_direction<false>(a, g, beta));
    KL_TRY(launch_spmv_dot<false>(a, g));
    KL_TRY(totals_of(a, g, spmv_partials(g), 1, &pap));
    if (!positive_finite(pap)) return kl__cg_not_spd(pap, k);
    KL_TRY(launch_update<false>(a, g, rr / pap));
    KL_TRY(totals_of(a, g, vector_grid(g), 1, &rr_next));
    beta = rr_next / rr;
    rr = rr_next;
    k++;
  }
  *iterations = k;
  return put_info(a, g, k, rr, bb);
}

extern "C" kl_status kl__cg_gpu_fused(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  vector_geometry(&g);
  KL_TRY(lanes_geometry(a, &g));
  return repeat(a, reps, &g, NULL, fused_solve);
}

/* ---- 7 and 8. device scalars: batches of iterations, or a graph --------- */

static kl_status scalar_start(const kl_args *a, const geometry *g) {
  KL_TRY(launch_start(a, g));
  return finish(a, g, FINISH_START);
}

/* An iteration of the device-scalar rungs, on the SpMV with p.Ap that
 * SPMV_DOT_FN launches. */
typedef kl_status (*spmv_dot_fn)(const kl_args *a, const geometry *g);
template <spmv_dot_fn SPMV_DOT_FN>
static kl_status fused_iterations(const kl_args *a, const geometry *g,
                                  int64_t first, int count) {
  (void)first;
  for (int i = 0; i < count; i++) {
    KL_TRY(SPMV_DOT_FN(a, g));
    KL_TRY(finish(a, g, FINISH_PAP));
    KL_TRY(launch_update<true>(a, g, 0));
    KL_TRY(finish(a, g, FINISH_RR));
    KL_TRY(launch_direction<true>(a, g, 0));
  }
  return KL_OK;
}

static kl_status scalar_iterations(const kl_args *a, const geometry *g,
                                   int64_t first, int count) {
  return fused_iterations<launch_spmv_dot<true>>(a, g, first, count);
}

static const device_rung scalar_rung = {scalar_start, scalar_iterations,
                                        NULL, NULL};

static kl_status device_scalars_solve(const kl_args *a, const geometry *g,
                                      int64_t *k) {
  return device_solve(a, g, &scalar_rung, k);
}

extern "C" kl_status kl__cg_gpu_device_scalars(const kl_args *a,
                                               kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  vector_geometry(&g);
  KL_TRY(lanes_geometry(a, &g));
  return repeat(a, reps, &g, NULL, device_scalars_solve);
}

extern "C" kl_status kl__cg_gpu_graph(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  vector_geometry(&g);
  KL_TRY(lanes_geometry(a, &g));
  KL_TRY(ensure_graph(a, &g, scalar_iterations));
  return repeat(a, reps, &g, NULL, device_scalars_solve);
}

/* ---- 10. sell: cuda-graph with the matrix in sliced ELLPACK ------------- */

/* The CSR stream reads the matrix in chunks through shared memory, two
 * barriers a chunk. Sliced ELLPACK (cg.h) needs neither: a thread takes a
 * row, and the threads of a slice read entry e of their rows from one run
 * of CG_SELL_HEIGHT values and columns, coalesced as a copy's loads are.
 * The price is the padding (0.36% of the 27-point matrix at 201^3) and
 * the conversion, made once in setup. */

/* The sliced matrix as the kernels take it. */
typedef struct sliced {
  const int64_t *offsets;
  const int32_t *columns;
  const double *values;
  int64_t rows;
} sliced;

static sliced sliced_of(const kl_args *a) {
  sliced m;
  m.offsets = (const int64_t *)a->buffers[CG_SELL_OFFSETS];
  m.columns = (const int32_t *)a->buffers[CG_SELL_COLUMNS];
  m.values = (const double *)a->buffers[CG_SELL_VALUES];
  m.rows = CG_ROWS(a->plan);
  return m;
}

/* Entries of its row a thread has in flight: a 27-point row in three
 * turns, a 7-point one in one. */
#define SELL_UNROLL 9

/* spmv_stream_kernel's products (OUT: SPMV_DOT or SPMV_START) on the
 * sliced matrix. A block takes consecutive tiles of BLOCK rows, as many
 * as spread the rows over the grid, so that the blocks sweep the matrix
 * in address order; a thread a row of each tile, its entries SELL_UNROLL
 * at a time in two chains of additions. */
template <int OUT, bool DEV>
static __global__ void __launch_bounds__(BLOCK)
spmv_sell_kernel(sliced m, const double *__restrict__ v,
                 double *__restrict__ out, const double *__restrict__ b,
                 double *__restrict__ p, const double *scalars,
                 double *partials) {
  if (DEV && stopped(scalars)) return;
  const int64_t tiles = (m.rows + BLOCK - 1) / BLOCK;
  const int64_t per_block = (tiles + gridDim.x - 1) / gridDim.x;
  const int64_t first = (int64_t)blockIdx.x * per_block * BLOCK;
  const int64_t last = first + per_block * BLOCK < m.rows
                           ? first + per_block * BLOCK
                           : m.rows;
  double dot = 0, bb = 0;
  for (int64_t row = first + threadIdx.x; row < last; row += BLOCK) {
    const int64_t slice = row / CG_SELL_HEIGHT;
    const int64_t end = m.offsets[slice + 1];
    double even = 0, odd = 0;
    for (int64_t j = m.offsets[slice] + row % CG_SELL_HEIGHT; j < end;
         j += SELL_UNROLL * CG_SELL_HEIGHT) {
      double value[SELL_UNROLL];
      int32_t column[SELL_UNROLL];
#pragma unroll
      for (int u = 0; u < SELL_UNROLL; u++) {
        const int64_t e = j + u * CG_SELL_HEIGHT;
        value[u] = e < end ? kl_load_streaming(&m.values[e]) : 0;
        column[u] = e < end ? kl_load_streaming(&m.columns[e]) : 0;
      }
#pragma unroll
      for (int u = 0; u < SELL_UNROLL; u++)
        if (j + u * CG_SELL_HEIGHT < end) {
          if (u % 2) odd += value[u] * v[column[u]];
          else even += value[u] * v[column[u]];
        }
    }
    row_result<OUT>(row, even + odd, v, out, b, p, &dot, &bb);
  }
  store_partial(dot, PARTIAL(partials, 0));
  if (OUT == SPMV_START) store_partial(bb, PARTIAL(partials, 1));
}

/* The tiles of BLOCK rows spread over at most CG_TILE_BLOCKS blocks,
 * address-ordered, where cuda-graph keeps a resident grid: one-shot
 * blocks sweep memory as a copy does (laplacian's LESSONS.md), and no
 * block waits at a barrier for another's loads (cg_sell_blocks has the
 * rule). */
static geometry sell_geometry(const kl_args *a) {
  geometry g = geometry_of(a);
  g.blocks = (unsigned)cg_sell_blocks(g.rows, g.nnz, BLOCK);
  return g;
}

static kl_status sell_start(const kl_args *a, const geometry *g) {
  spmv_sell_kernel<SPMV_START, false><<<g->blocks, BLOCK, 0, g->s>>>(
      sliced_of(a), VEC(a, CG_X), VEC(a, CG_R), VEC(a, CG_B), VEC(a, CG_P),
      SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(spmv_sell_kernel);
  return finish(a, g, FINISH_START);
}

static kl_status launch_sell_dot(const kl_args *a, const geometry *g) {
  spmv_sell_kernel<SPMV_DOT, true><<<g->blocks, BLOCK, 0, g->s>>>(
      sliced_of(a), VEC(a, CG_P), VEC(a, CG_AP), NULL, NULL, SCALARS(a),
      PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(spmv_sell_kernel);
  return KL_OK;
}

static kl_status sell_iterations(const kl_args *a, const geometry *g,
                                 int64_t first, int count) {
  return fused_iterations<launch_sell_dot>(a, g, first, count);
}

static const device_rung sell_rung = {sell_start, sell_iterations, NULL,
                                      NULL};

static kl_status sell_solve(const kl_args *a, const geometry *g, int64_t *k) {
  return device_solve(a, g, &sell_rung, k);
}

extern "C" kl_status kl__cg_gpu_sell(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = sell_geometry(a);
  KL_TRY(ensure_graph(a, &g, sell_iterations));
  return repeat(a, reps, &g, NULL, sell_solve);
}

/* Row `row` of the CSR matrix into its slice's columns (cg.h), the rest of
 * the slice's width padded with 0 at the row's own column (a load of v
 * already made, times 0). The slices were sized from these rows. */
static __global__ void sell_fill_kernel(csr m, sliced s, int32_t *columns,
                                        double *values) {
  for (int64_t row = thread_index(); row < m.rows; row += grid_threads()) {
    const int64_t slice = row / CG_SELL_HEIGHT;
    const int64_t end = s.offsets[slice + 1];
    int64_t j = s.offsets[slice] + row % CG_SELL_HEIGHT;
    for (int64_t e = m.offsets[row]; e < m.offsets[row + 1];
         e++, j += CG_SELL_HEIGHT) {
      columns[j] = m.columns[e];
      values[j] = m.values[e];
    }
    for (; j < end; j += CG_SELL_HEIGHT) {
      columns[j] = (int32_t)row;
      values[j] = 0;
    }
  }
}

/* Slice s's entries, its longest row's length times CG_SELL_HEIGHT, into
 * offsets[s + 1], and offsets[0] = 0: a thread a slice. */
static __global__ void sell_width_kernel(csr m, int64_t *offsets) {
  const int64_t slices = CG_SELL_SLICES(m.rows);
  if (thread_index() == 0) offsets[0] = 0;
  for (int64_t s = thread_index(); s < slices; s += grid_threads()) {
    const int64_t first = s * CG_SELL_HEIGHT;
    const int64_t end =
        first + CG_SELL_HEIGHT < m.rows ? first + CG_SELL_HEIGHT : m.rows;
    int64_t width = 0, at = m.offsets[first];
    for (int64_t row = first; row < end; row++) {
      const int64_t next = m.offsets[row + 1];
      if (next - at > width) width = next - at;
      at = next;
    }
    offsets[s + 1] = width * CG_SELL_HEIGHT;
  }
}

/* v[0 .. count - 1] replaced by its running totals (an inclusive scan),
 * by one block: each thread sums a run of consecutive elements, the runs'
 * totals are scanned in shared memory, and each thread writes its run's
 * totals from the runs' before it. Setup's, once: 2 MB at 201^3. Not
 * CUB's scan: code on CUB lives in files of its own (-cub.cu), built only
 * where CUB (or hipCUB) is found, and this rung is built without it. */
#define SCAN_BLOCK 1024
static __global__ void __launch_bounds__(SCAN_BLOCK)
sell_scan_kernel(int64_t *v, int64_t count) {
  __shared__ int64_t totals[SCAN_BLOCK];
  const int64_t per = (count + SCAN_BLOCK - 1) / SCAN_BLOCK;
  const int64_t first = threadIdx.x * per;
  const int64_t end = first + per < count ? first + per : count;
  int64_t sum = 0;
  for (int64_t i = first; i < end; i++) sum += v[i];
  totals[threadIdx.x] = sum;
  __syncthreads();
  for (int step = 1; step < SCAN_BLOCK; step *= 2) {
    const int64_t add = (int)threadIdx.x >= step ? totals[threadIdx.x - step] : 0;
    __syncthreads();
    totals[threadIdx.x] += add;
    __syncthreads();
  }
  int64_t run = threadIdx.x > 0 ? totals[threadIdx.x - 1] : 0;
  for (int64_t i = first; i < end; i++) {
    run += v[i];
    v[i] = run;
  }
}

/* The sliced matrix made from the plan's CSR, once, untimed, on the
 * device: each slice's width from the CSR's row offsets, the slice
 * offsets their running totals, then every row's entries. A matrix whose
 * slices need more room than the scratch has (kl__cg_sell_room: too much
 * padding) is not this rung's (KL_UNAVAILABLE). The graph, as
 * cuda-graph's, comes at the first call (the family's teardown destroys
 * it). */
extern "C" kl_status kl__cg_gpu_sell_setup(kl_args *a) {
  a->state.pointer[0] = NULL;
  const kl_plan *p = a->plan;
  const int64_t rows = CG_ROWS(p), slices = CG_SELL_SLICES(rows);
  KL_TRY(require_scratch(a));
  KL_TRY(require(a, CG_SELL_OFFSETS, slices + 1, "the slice offsets"));
  const int64_t room = p->buffers[CG_SELL_VALUES].count;
  KL_TRY(require(a, CG_SELL_COLUMNS, room, "the sliced columns"));
  const geometry g = geometry_of(a);
  int64_t *offsets = (int64_t *)a->buffers[CG_SELL_OFFSETS];
  sell_width_kernel<<<kl__gpu_blocks(slices, BLOCK), BLOCK, 0, g.s>>>(
      g.m, offsets);
  KL_GPU_CHECK_LAUNCH(sell_width_kernel);
  sell_scan_kernel<<<1, SCAN_BLOCK, 0, g.s>>>(offsets + 1, slices);
  KL_GPU_CHECK_LAUNCH(sell_scan_kernel);
  int64_t entries = 0;
  KL_GPU_CHECK(cudaMemcpyAsync(&entries, offsets + slices, sizeof entries,
                               cudaMemcpyDeviceToHost, g.s));
  KL_GPU_CHECK(cudaStreamSynchronize(g.s));
  if (entries > room)
    return kl__usage(KL_UNAVAILABLE, "cg: cuda-sell: the matrix's slices "
                     "of %d rows hold %lld entries with their padding, "
                     "more than the %lld that keep them within 1/%d of its "
                     "CSR's bytes", CG_SELL_HEIGHT, (long long)entries,
                     (long long)room, CG_SELL_SLACK);
  sell_fill_kernel<<<kl__gpu_blocks(rows, BLOCK), BLOCK, 0, g.s>>>(
      g.m, sliced_of(a), (int32_t *)a->buffers[CG_SELL_COLUMNS],
      (double *)a->buffers[CG_SELL_VALUES]);
  KL_GPU_CHECK_LAUNCH(sell_fill_kernel);
  return KL_OK;
}
