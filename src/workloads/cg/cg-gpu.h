/* What cg's CUDA rungs share: the device scalars and partial sums, the
 * launch geometry, the kernels of more than one rung family, and the
 * repetition loop.
 *
 * The ladder (seed 003 on the GPU): from the seed's first OpenACC step,
 * every array crossing PCIe around every kernel, to a matrix-free solve
 * whose iteration moves 7 vectors on average and no matrix. Every rung owns its
 * repetition loop and runs the whole solve on a->stream; each rung's bytes
 * per iteration are cg.c's cost model (docs/workloads/cg.md).
 *
 *   copied          the seed's kernels (a thread per row, waxpby, dot), the
 *                   data in a host mirror between calls, as OpenACC's copy
 *                   clauses leave it                          (cg-cuda.cu)
 *   resident        the same kernels on resident data; each dot to the host
 *   vector          a group of lanes per CSR row; two-stage dots
 *   stream          vector's solve, rows by blocks through shared memory
 *   lanes           stream's solve, a few lanes a row, a run of the row a
 *                   lane: the SpMV of fused to graph
 *   fused           SpMV with p.Ap; x, r and r.r; p: two syncs an iteration
 *                                                       (cg-fused-cuda.cu)
 *   device_scalars  fused's kernels with alpha and beta on the device: one
 *                   sync per batch of iterations (-p batch=)
 *   graph           device_scalars' batch captured once as a CUDA graph
 *   pipelined       Ghysels and Vanroose: one reduction an iteration; the
 *                   true vectors replace the recurrences' (Cools et al.)
 *                                                   (cg-pipelined-cuda.cu)
 *   sell            graph's solve, the matrix in sliced ELLPACK made once
 *                   in setup: a thread a row, no shared memory or barrier
 *                                                       (cg-fused-cuda.cu)
 *   matrix_free     the Poisson stencil from the grid, p's update inside it
 *                   (its kernels in cg-matrix-free.h, which cg-dist's GPU
 *                   rungs share)                 (cg-matrix-free-cuda.cu)
 *
 * The device-scalar rungs keep the solve's state in CG_SCALARS (S_*): a
 * kernel launched after the solve stopped (converged, maxit, or a
 * breakdown) returns at once, so the host may launch a whole batch blind
 * and read the flag after it.
 *
 * Static kernels here are marked unused: not every includer launches each
 * (clang warns of those it does not). */
#ifndef KL_CG_GPU_H
#define KL_CG_GPU_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../backends/gpu-reduce.h"
#include "cg.h"

#define BLOCK 256       /* threads of every kernel but the final sums */
#define FINAL_BLOCK 1024 /* the one block that sums a reduction's partials */

/* Iterations the device-scalar rungs launch between two reads of the done
 * flag: cg's tuning `batch` (geometry_of), BATCH where the plan has none
 * (cg-dist's ranks). Each read costs a copy and a sync (~10-20 us with the
 * GPU idle while the host launches again); after convergence at most
 * batch - 1 iterations of empty kernels follow (each kernel ~2-3 us). At
 * 201^3 an iteration takes 0.2-1.2 ms, so either cost is under 1%; on
 * test-sized problems (~15 us an iteration) 16 keeps the syncs near 8% and
 * the wasted tail under a dozen iterations' time. Even (cg's plan refuses
 * an odd one), so that the matrix-free rung's ping-pong of p starts every
 * batch on the same buffer, in a graph too. */
#define BATCH CG_BATCH_DEFAULT
static_assert(BATCH % 2 == 0, "batches start on the same p buffer");

/* The device scalars, in CG_SCALARS. The first three are what the host
 * reads after a batch, in one copy. */
enum {
  S_DONE,  /* RUNNING, STOPPED or BROKE_DOWN */
  S_K,     /* iterations done */
  S_BAD,   /* the denominator that broke down */
  S_RR,    /* r.r (pipelined: gamma, its recurrence's r.r) */
  S_BB,    /* b.b */
  S_ALPHA, /* this iteration's (pipelined: also the last one's) */
  S_ALPHA_PREV, /* the iteration before's (matrix-free's x update) */
  S_BETA,
  S_REPLACED, /* pipelined: 1 where r, w, s and z are the true vectors */
  S_DOT,  /* the host-read rungs' sums: a dot, or r.r and b.b */
  S_DOT_NEXT,
  S_SCALARS
};
static_assert(S_SCALARS <= CG_SCALAR_COUNT, "cg.h's CG_SCALAR_COUNT");
/* REPLACE: pipelined asks the host to put the true vectors in place of
 * its recurrences' (cg-pipelined-cuda.cu), and goes on from them. */
enum { RUNNING = 0, STOPPED = 1, BROKE_DOWN = 2, REPLACE = 3 };

/* Partial sum `which` (up to 8 of them, cg.h's CG_PARTIAL_COUNT) of every
 * block of a reducing kernel. */
#define PARTIAL(partials, which) ((partials) + (int64_t)(which) * CG_MAX_BLOCKS)

#define VEC(a, index) ((double *)(a)->buffers[index])
#define SCALARS(a) VEC(a, CG_SCALARS)
#define PARTIALS(a) VEC(a, CG_PARTIALS)

/* cg.h's stopping rule as the kernels take it. */
typedef struct stop_rule {
  int64_t maxit;
  int fixed;
  double tol2;
} stop_rule;

static inline __host__ __device__ int go_on(stop_rule s, int64_t k, double rr,
                                            double bb) {
  return cg_go_on(k, s.maxit, s.fixed, s.tol2, rr, bb);
}

/* p.Ap, or pipelined's denominator, as a positive definite A makes it. */
static inline __host__ __device__ int positive_finite(double v) {
  return v > 0 && isfinite(v);
}

/* The matrix as the kernels take it. */
typedef struct csr {
  const int64_t *offsets;
  const int32_t *columns;
  const double *values;
  int64_t rows;
} csr;

/* What every solve of a repetition shares: the launch geometry and the
 * stopping rule, worked out on the host once per call of the rung. */
typedef struct geometry {
  cudaStream_t s;
  int64_t rows, nnz;
  unsigned blocks;     /* every reducing kernel's grid: its partial count */
  /* The CSR lanes' SpMV (lanes_geometry): lanes a row (0: the stream
   * kernel), tiles a block, and its grid, the partial count of the sums
   * after it where not 0 (spmv_partials). */
  int lanes;
  int lane_tiles;
  unsigned spmv_blocks;
  /* The fused rungs' vector kernels (vector_grid): a one-shot grid,
   * where not 0, else the resident one. */
  unsigned vector_blocks;
  unsigned row_blocks; /* the seed's kernels: a thread per row */
  int group;           /* lanes per CSR row (vector rungs) */
  stop_rule stop;
  csr m;
  cudaGraphExec_t graph; /* one batch, for the rungs launched as graphs */
  int early; /* the iterations' kernels launched early (gpu.h) */
  int batch; /* iterations between two reads of the done flag (BATCH) */
  int planes; /* the plain matrix-free sweeps' planes a tile (MF_PLANES) */
  /* cuda-copied: its host mirror and where each array lies in it. */
  unsigned char *mirror;
  int64_t mirror_at[8];
  /* The matrix-free sweeps (cg-matrix-free.h): the box of grid points
   * they cover, x fastest (cg's whole grid, or a rank's box of
   * cg-dist's), its first point in the grid, the grid's extents and the
   * stencil; and the box with a layer around it, of the neighbours'
   * points (mf_layer), NULL where the sweeps read none. */
  int64_t extent[3], start[3], grid[3];
  int stencil;
  const double *layer;
} geometry;

static __device__ __forceinline__ int64_t thread_index(void) {
  return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ __forceinline__ int64_t grid_threads(void) {
  return (int64_t)gridDim.x * blockDim.x;
}

static __device__ __forceinline__ bool stopped(const double *scalars) {
  return scalars[S_DONE] != RUNNING;
}

/* The block's sum into its partial; every thread must call it. */
static __device__ __forceinline__ void store_partial(double v,
                                                     double *partial) {
  v = kl_block_reduce<KL_OP_SUM>(v);
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

/* Partial sum `which` over `count` blocks, in thread 0 of the one block
 * that sums; every thread must call it. The same order every run. */
static __device__ double total(const double *partials, int which,
                               unsigned count) {
  const double *partial = PARTIAL(partials, which);
  double v = 0;
  /* Sixteen loads of a thread in flight at once, 16384 partials a pass on
   * FINAL_BLOCK threads (the matrix-free sweeps leave 6097 at 201^3, the
   * stream kernel a block per resident slot, the lanes kernel 63 443 on
   * the 27-point matrix); a loop that waited for each load in turn took
   * 6.5 us a sum on the H100 (LESSONS.md). */
  for (unsigned base = 0; base < count; base += 16 * blockDim.x) {
#pragma unroll
    for (unsigned u = 0; u < 16; u++) {
      const unsigned b = base + threadIdx.x + u * blockDim.x;
      if (b < count) v += partial[b];
    }
  }
  return kl_block_reduce<KL_OP_SUM>(v);
}

/* ---- a group of lanes per CSR row (vector, pipelined) ------------------- */

/* Row `row` of A times v, summed over the group's `group` lanes, complete
 * in the group's first lane. Every lane of the warp calls it as often (the
 * shuffles need the whole warp), a lane past the last row with row >=
 * m.rows. A shuffle reaching into the next group only spoils lanes other
 * than the first, which nothing reads. */
static __device__ __forceinline__ double row_product(
    csr m, const double *__restrict__ v, int64_t row, int lane, int group) {
  double sum = 0;
  if (row < m.rows) {
    const int64_t end = m.offsets[row + 1];
    for (int64_t j = m.offsets[row] + lane; j < end; j += group)
      sum += m.values[j] * v[m.columns[j]];
  }
  for (int offset = group / 2; offset > 0; offset /= 2)
    sum += __shfl_down_sync(KL_FULL_MASK, sum, offset);
  return sum;
}

/* The rows of a grid of groups: this thread's group starts at row
 * group_row() and moves on by groups() rows a turn. A warp's lanes turn
 * while the warp's first row is in the matrix, so that all take as many
 * turns (the shuffles need the whole warp); behind() is how far this
 * group's row lies past that first one. */
static __device__ __forceinline__ int64_t group_row(int group) {
  return thread_index() / group;
}
static __device__ __forceinline__ int64_t groups(int group) {
  return grid_threads() / group;
}
static __device__ __forceinline__ int64_t behind(int group) {
  return (int64_t)(threadIdx.x % warpSize) / group;
}
static __device__ __forceinline__ int group_lane(int group) {
  return (int)(threadIdx.x % group);
}

/* ---- rows by blocks through shared memory (stream to pipelined) --------- */

/* Stream: a block takes BLOCK consecutive rows and streams their
 * nonzeros in chunks of STREAM_CHUNK: every thread multiplies values
 * and gathered v at consecutive nonzeros (each load of the values and
 * columns coalesced over the block, whatever the row lengths) into shared
 * memory, then each thread sums its own row's products from there. The
 * matrix is read once and marked evict-first, so that v's lines, which
 * neighbouring rows share, stay in L2. OUT: what the kernel makes of the
 * products (below); DEV: does nothing once the device scalars say the
 * solve stopped. */
/* 2048 (16 KB a block): eight blocks an SM fit, and a 27-point block's
 * 6912 nonzeros stream in four chunks; at 201^3 on the H100 this ran at
 * 89% of the byte bound against 67% with 4096 (seven blocks, two chunks)
 * and 80% with 512 (LESSONS.md). */
#ifndef STREAM_CHUNK /* -D for tuning */
#define STREAM_CHUNK 2048
#endif
/* Nonzeros a thread has in flight in the streaming loop (tuning: -D). */
#ifndef STREAM_UNROLL
#define STREAM_UNROLL 4
#endif
static constexpr int stream_unroll = STREAM_UNROLL;
/* out = A v; SPMV_DOT: v.out too (p.Ap); SPMV_START: the start of a
 * solve, v = x: out = r = b - A x, p = r, r.r and b.b (partials 0, 1). */
enum { SPMV_OUT, SPMV_DOT, SPMV_START };

/* What OUT makes of row `row`'s product `sum`, the end of a row of every
 * SpMV above: out = sum, and dot += v.sum for SPMV_DOT; at a solve's
 * start out = p = r = b - sum, dot += r.r and bb += b.b. */
template <int OUT>
static __device__ __forceinline__ void row_result(
    int64_t row, double sum, const double *__restrict__ v,
    double *__restrict__ out, const double *__restrict__ b,
    double *__restrict__ p, double *dot, double *bb) {
  if (OUT == SPMV_START) {
    const double bi = b[row], ri = bi - sum;
    out[row] = ri;
    p[row] = ri;
    *dot += ri * ri;
    *bb += bi * bi;
  } else {
    out[row] = sum;
    if (OUT == SPMV_DOT) *dot += v[row] * sum;
  }
}

template <int OUT, bool DEV>
static __global__ void __launch_bounds__(BLOCK)
spmv_stream_kernel(csr m, const double *__restrict__ v,
                   double *__restrict__ out, const double *__restrict__ b,
                   double *__restrict__ p, const double *scalars,
                   double *partials) {
  if (DEV && stopped(scalars)) return;
  __shared__ double products[STREAM_CHUNK];
  double dot = 0, bb = 0;
  for (int64_t first = (int64_t)blockIdx.x * BLOCK; first < m.rows;
       first += (int64_t)gridDim.x * BLOCK) {
    const int64_t last = first + BLOCK < m.rows ? first + BLOCK : m.rows;
    const int64_t begin = m.offsets[first], end = m.offsets[last];
    const int64_t row = first + threadIdx.x;
    int64_t row_begin = 0, row_end = 0;
    if (row < last) {
      row_begin = m.offsets[row];
      row_end = m.offsets[row + 1];
    }
    double sum = 0;
    for (int64_t chunk = begin; chunk < end; chunk += STREAM_CHUNK) {
      const int64_t chunk_end =
          chunk + STREAM_CHUNK < end ? chunk + STREAM_CHUNK : end;
#pragma unroll stream_unroll
      for (int64_t j = chunk + threadIdx.x; j < chunk_end; j += BLOCK)
        products[j - chunk] = kl_load_streaming(&m.values[j]) *
                              v[kl_load_streaming(&m.columns[j])];
      __syncthreads();
      const int64_t lo = row_begin > chunk ? row_begin : chunk;
      const int64_t hi = row_end < chunk_end ? row_end : chunk_end;
      /* Two chains of additions, not one: half the latency a row waits. */
      double even = 0, odd = 0;
      int64_t j = lo;
      for (; j + 1 < hi; j += 2) {
        even += products[j - chunk];
        odd += products[j + 1 - chunk];
      }
      if (j < hi) even += products[j - chunk];
      sum += even + odd;
      __syncthreads();
    }
    if (row < last) row_result<OUT>(row, sum, v, out, b, p, &dot, &bb);
  }
  if (OUT != SPMV_OUT) store_partial(dot, PARTIAL(partials, 0));
  if (OUT == SPMV_START) store_partial(bb, PARTIAL(partials, 1));
}

/* ---- rows by groups of lanes, a run of a row a lane (lanes to graph) --- */

/* Lanes: a group of LANES lanes takes a row, each lane a run of up to
 * CG_LANE_RUN consecutive entries (cg.h), all its values and columns
 * loaded before its first product; a row takes rounds of LANES *
 * CG_LANE_RUN entries, then a sum by shuffles within the group. A block
 * takes `tiles` consecutive tiles of BLOCK / LANES rows, the blocks the
 * tiles in address order, each block once. No shared memory and no
 * barrier: a warp's load asks for runs side by side, and the lines its
 * first load brings into L1 serve the run's later loads (the matrix is
 * read through the read-only path, cached, not marked evict-first). The
 * same OUT and DEV as the stream kernel's. */
template <int OUT, bool DEV, int LANES>
static __global__ void __launch_bounds__(BLOCK)
spmv_lanes_kernel(csr m, const double *__restrict__ v,
                  double *__restrict__ out, const double *__restrict__ b,
                  double *__restrict__ p, const double *scalars,
                  double *partials, int tiles) {
  if (DEV && stopped(scalars)) return;
  const int lane = (int)(threadIdx.x % LANES);
  const int64_t tile_rows = BLOCK / LANES;
  const int64_t first = (int64_t)blockIdx.x * tiles * tile_rows;
  double dot = 0, bb = 0;
  for (int t = 0; t < tiles; t++) {
    const int64_t row = first + t * tile_rows + threadIdx.x / LANES;
    int64_t begin = 0, end = 0;
    if (row < m.rows) {
      begin = m.offsets[row];
      end = m.offsets[row + 1];
    }
    double sum = 0;
    for (int64_t j = begin + lane * CG_LANE_RUN; j < end;
         j += LANES * CG_LANE_RUN) {
      double value[CG_LANE_RUN];
      int32_t column[CG_LANE_RUN];
#pragma unroll
      for (int u = 0; u < CG_LANE_RUN; u++) {
        value[u] = j + u < end ? __ldg(&m.values[j + u]) : 0;
        column[u] = j + u < end ? __ldg(&m.columns[j + u]) : 0;
      }
      /* A gather past the row's end is not made, rather than made at a
       * harmless column: 0 times an infinite v would be NaN. */
#pragma unroll
      for (int u = 0; u < CG_LANE_RUN; u++)
        sum += value[u] * (j + u < end ? v[column[u]] : 0.0);
    }
    for (int offset = LANES / 2; offset > 0; offset /= 2)
      sum += __shfl_xor_sync(KL_FULL_MASK, sum, offset);
    if (lane == 0 && row < m.rows)
      row_result<OUT>(row, sum, v, out, b, p, &dot, &bb);
  }
  if (OUT != SPMV_OUT) store_partial(dot, PARTIAL(partials, 0));
  if (OUT == SPMV_START) store_partial(bb, PARTIAL(partials, 1));
}

/* The longest row of a CSR matrix, atomically into *longest (0 before). */
static __global__ void longest_row_kernel(csr m,
                                          unsigned long long *longest) {
  long long most = 0;
  for (int64_t row = thread_index(); row < m.rows; row += grid_threads()) {
    const long long length = m.offsets[row + 1] - m.offsets[row];
    if (length > most) most = length;
  }
  most = kl_block_reduce<KL_OP_MAX>(most);
  if (threadIdx.x == 0) atomicMax(longest, (unsigned long long)most);
}

/* ---- the host-read rungs' sums (vector, stream, fused) ------------------ */

/* The host-read rungs' final step: `sums` partial sums into out. */
__attribute__((unused)) static __global__ void
totals_kernel(const double *partials, unsigned count, int sums, double *out) {
  for (int which = 0; which < sums; which++) {
    const double v = total(partials, which, count);
    if (threadIdx.x == 0) out[which] = v;
  }
}

/* ---- the device scalars' final steps (one block each) ------------------- */

/* The start's scalars from r.r and b.b: no iteration, no alpha yet, beta
 * 0 (the matrix-free rungs' first p is r); whether to go on. */
static __device__ __forceinline__ void set_start(double *scalars, double rr,
                                                 double bb, stop_rule stop) {
  scalars[S_RR] = rr;
  scalars[S_BB] = bb;
  scalars[S_K] = 0;
  scalars[S_BAD] = 0;
  scalars[S_ALPHA] = 0;
  scalars[S_ALPHA_PREV] = 0;
  scalars[S_BETA] = 0;
  scalars[S_DONE] = go_on(stop, 0, rr, bb) ? RUNNING : STOPPED;
}

/* After the start: r.r (partial 0), b.b (partial 1), then set_start. */
__attribute__((unused)) static __global__ void
finish_start_kernel(const double *partials, unsigned count, double *scalars,
                    stop_rule stop) {
  kl_gpu_wait_prior();
  kl_gpu_start_next();
  const double rr = total(partials, 0, count);
  const double bb = total(partials, 1, count);
  if (threadIdx.x != 0) return;
  set_start(scalars, rr, bb, stop);
}

/* alpha = r.r / p.Ap into the scalars, the one before kept for the x
 * update; or a breakdown where p.Ap is not positive and finite. */
static __device__ __forceinline__ void set_alpha(double *scalars,
                                                 double pap) {
  if (!positive_finite(pap)) {
    scalars[S_BAD] = pap;
    scalars[S_DONE] = BROKE_DOWN;
    return;
  }
  scalars[S_ALPHA_PREV] = scalars[S_ALPHA];
  scalars[S_ALPHA] = scalars[S_RR] / pap;
}

/* After the SpMV: alpha = r.r / p.Ap, or a breakdown. */
__attribute__((unused)) static __global__ void
finish_pap_kernel(const double *partials, unsigned count, double *scalars) {
  kl_gpu_wait_prior();
  kl_gpu_start_next();
  if (stopped(scalars)) return;
  const double pap = total(partials, 0, count);
  if (threadIdx.x == 0) set_alpha(scalars, pap);
}

/* The new r.r after the update: beta, the count, and whether to go on
 * (the device's stop). */
static __device__ __forceinline__ void set_rr(double *scalars, double rr,
                                              stop_rule stop) {
  const int64_t k = (int64_t)scalars[S_K] + 1;
  scalars[S_BETA] = rr / scalars[S_RR];
  scalars[S_RR] = rr;
  scalars[S_K] = (double)k;
  if (!go_on(stop, k, rr, scalars[S_BB])) scalars[S_DONE] = STOPPED;
}

/* After the update: r.r from the sweep's partials, then set_rr. */
__attribute__((unused)) static __global__ void
finish_rr_kernel(const double *partials, unsigned count, double *scalars,
                 stop_rule stop) {
  kl_gpu_wait_prior();
  kl_gpu_start_next();
  if (stopped(scalars)) return;
  const double rr = total(partials, 0, count);
  if (threadIdx.x != 0) return;
  set_rr(scalars, rr, stop);
}

/* info = {k, |r| / |b|} from the device scalars. */
__attribute__((unused)) static __global__ void
info_kernel(double *info, const double *scalars) {
  const double bb = scalars[S_BB];
  info[CG_INFO_ITERATIONS] = scalars[S_K];
  info[CG_INFO_RESIDUAL] = bb > 0 ? sqrt(scalars[S_RR] / bb) : 0;
}

/* The same from the host's scalars. */
__attribute__((unused)) static __global__ void
info_values_kernel(double *info, double k, double residual) {
  info[CG_INFO_ITERATIONS] = k;
  info[CG_INFO_RESIDUAL] = residual;
}

/* ---- host side: geometry, reads, the repetition loop -------------------- */

static inline kl_status require(const kl_args *a, int index, int64_t count,
                                const char *what) {
  const kl_plan *p = a->plan;
  if (index >= p->buffer_count || p->buffers[index].count < count ||
      !a->buffers[index])
    return KL_FAIL(KL_USAGE, "cg: the plan lacks %s (buffer %d of %lld "
                   "elements or more)", what, index, (long long)count);
  return KL_OK;
}

/* The scratch every GPU rung reads (kl__cg_gpu_scratch). */
static inline kl_status require_scratch(const kl_args *a) {
  const int64_t rows = CG_ROWS(a->plan);
  KL_TRY(require(a, CG_R, rows, "r"));
  KL_TRY(require(a, CG_P, rows, "p"));
  KL_TRY(require(a, CG_AP, rows, "Ap"));
  KL_TRY(require(a, CG_SCALARS, CG_SCALAR_COUNT, "the device scalars"));
  return require(a, CG_PARTIALS, CG_PARTIAL_COUNT, "the partial sums");
}

/* A solve's geometry over the plan's rows: nnz nonzeros (the CSR rungs'
 * lanes a row) and the stopping rule, cg's (geometry_of) or cg-dist's. */
static inline geometry geometry_with(const kl_args *a, int64_t nnz,
                                     stop_rule stop) {
  const kl_plan *p = a->plan;
  const kl_device *d = &a->ctx->device;
  geometry g;
  memset(&g, 0, sizeof g);
  g.s = (cudaStream_t)a->stream;
  g.rows = CG_ROWS(p);
  g.nnz = nnz;
  g.batch = BATCH;
  g.planes = 0; /* the sweeps' own */
  /* The smallest power of two at or above the mean row length, up to a
   * warp: 32 lanes for the 27-point matrix (26.6 a row at 201^3), 8 for
   * the 7-point one. */
  const int warp = d->lanes;
  const double mean = g.rows > 0 ? (double)g.nnz / (double)g.rows : 0;
  g.group = 1;
  while (g.group < warp && g.group < mean) g.group *= 2;
  /* As many blocks as the GPU holds at once, striding over the rows: no
   * more partials than that to sum. */
  int64_t resident =
      (int64_t)d->compute_units * (d->max_threads_per_unit / BLOCK);
  if (resident < 1) resident = 1;
  int64_t blocks = kl__gpu_blocks(g.rows * g.group, BLOCK);
  if (blocks > resident) blocks = resident;
  if (blocks > CG_MAX_BLOCKS) blocks = CG_MAX_BLOCKS;
  g.blocks = (unsigned)blocks;
  g.row_blocks = kl__gpu_blocks(g.rows, BLOCK);
  g.stop = stop;
  g.m.offsets = (const int64_t *)a->buffers[CG_OFFSETS];
  g.m.columns = (const int32_t *)a->buffers[CG_COLUMNS];
  g.m.values = (const double *)a->buffers[CG_VALUES];
  g.m.rows = g.rows;
  return g;
}

/* cg's: its stopping rule, and its grid of n^3 points (where its matrix
 * is a stencil) for the matrix-free sweeps. */
static inline geometry geometry_of(const kl_args *a) {
  const kl_plan *p = a->plan;
  stop_rule stop;
  stop.maxit = CG_MAXIT(p);
  stop.fixed = CG_MODE(p) == CG_FIXED;
  stop.tol2 = CG_TOL(p) * CG_TOL(p);
  geometry g = geometry_with(a, CG_NNZ(p), stop);
  for (int i = 0; i < 3; i++) g.extent[i] = g.grid[i] = CG_N(p);
  g.stencil = CG_STENCIL(p);
  g.batch = CG_BATCH(p);
  g.planes = CG_PLANES(p);
  return g;
}

/* count doubles from the device, waited for: the host's scalars. */
static inline kl_status read_back(double *host, const double *device, int count,
                                  cudaStream_t s) {
  KL_GPU_CHECK(cudaMemcpyAsync(host, device, sizeof(double) * count,
                               cudaMemcpyDeviceToHost, s));
  KL_GPU_CHECK(cudaStreamSynchronize(s));
  return KL_OK;
}

static inline kl_status put_info(const kl_args *a, const geometry *g, int64_t k,
                                 double rr, double bb) {
  info_values_kernel<<<1, 1, 0, g->s>>>(VEC(a, CG_INFO), (double)k,
                                        bb > 0 ? sqrt(rr / bb) : 0);
  KL_GPU_CHECK_LAUNCH(info_values_kernel);
  return KL_OK;
}

typedef kl_status (*solve_fn)(const kl_args *a, const geometry *g,
                              int64_t *iterations);

/* reps->count solves, each after a reset (x back to x0) and `untimed`
 * (where the rung has one), timed between the context's events on
 * stream 0, a->stream. */
static inline kl_status repeat(const kl_args *a, kl_reps *reps,
                               const geometry *g, solve_fn untimed,
                               solve_fn solve) {
  const kl_backend *b = a->ctx->backend;
  for (int i = 0; i < reps->count; i++) {
    int64_t k = 0;
    if (a->reset) KL_TRY(a->reset(a));
    if (untimed) KL_TRY(untimed(a, g, &k));
    KL_TRY(b->record(a->ctx, 0, 0));
    KL_TRY(solve(a, g, &k));
    KL_TRY(b->record(a->ctx, 1, 0));
    KL_TRY(b->elapsed(a->ctx, 0, 1, &reps->seconds[i]));
    if (a->counts) a->counts[CG_COUNT_ITERATIONS] = (double)k;
  }
  return KL_OK;
}

/* The partials of the last SpMV: its own grid's where it has one. */
static inline unsigned spmv_partials(const geometry *g) {
  return g->spmv_blocks ? g->spmv_blocks : g->blocks;
}

/* The grid of the vector kernels after the SpMV, the partial count of
 * their r.r: their own where the rung gave them one. */
static inline unsigned vector_grid(const geometry *g) {
  return g->vector_blocks ? g->vector_blocks : g->blocks;
}

/* The first `sums` totals of the last reduction, over `count` blocks'
 * partials, read by the host. */
static inline kl_status totals_of(const kl_args *a, const geometry *g,
                                  unsigned count, int sums, double *host) {
  totals_kernel<<<1, FINAL_BLOCK, 0, g->s>>>(PARTIALS(a), count, sums,
                                             SCALARS(a) + S_DOT);
  KL_GPU_CHECK_LAUNCH(totals_kernel);
  return read_back(host, SCALARS(a) + S_DOT, sums, g->s);
}

/* The same over the geometry's grid, the reducing kernels' but an SpMV. */
static inline kl_status totals(const kl_args *a, const geometry *g, int sums,
                               double *host) {
  return totals_of(a, g, g->blocks, sums, host);
}

/* The CSR lanes' SpMV for the rungs that take it (lanes to graph):
 * the lanes a row (cg_lanes, from the matrix's mean and longest row,
 * found here on the device), the tiles a block and the grid. Untimed,
 * once a call of the rung. */
static inline kl_status lanes_geometry(const kl_args *a, geometry *g) {
  g->lanes = 0;
  g->spmv_blocks = 0;
  if (g->rows <= 0) return KL_OK;
  unsigned long long *longest = (unsigned long long *)PARTIALS(a);
  unsigned long long host = 0;
  KL_GPU_CHECK(cudaMemsetAsync(longest, 0, sizeof *longest, g->s));
  longest_row_kernel<<<g->blocks, BLOCK, 0, g->s>>>(g->m, longest);
  KL_GPU_CHECK_LAUNCH(longest_row_kernel);
  KL_GPU_CHECK(cudaMemcpyAsync(&host, longest, sizeof host,
                               cudaMemcpyDeviceToHost, g->s));
  KL_GPU_CHECK(cudaStreamSynchronize(g->s));
  g->lanes = cg_lanes(g->rows, g->nnz, (int64_t)host);
  if (g->lanes == 0) return KL_OK;
  const int64_t tiles = cg_lane_tiles_per_block(g->rows, g->nnz, g->lanes,
                                                BLOCK);
  const int64_t tile_rows = BLOCK / g->lanes;
  const int64_t all = (g->rows + tile_rows - 1) / tile_rows;
  g->lane_tiles = (int)tiles;
  g->spmv_blocks = (unsigned)((all + tiles - 1) / tiles);
  return KL_OK;
}

/* The CSR SpMV of the rungs from lanes to graph: the lanes kernel of
 * the geometry's lanes, or the stream kernel where it has none. */
template <int OUT, bool DEV, int LANES>
static inline kl_status launch_lanes(const geometry *g, const double *v,
                                     double *out, const double *b, double *p,
                                     const double *scalars,
                                     double *partials) {
  spmv_lanes_kernel<OUT, DEV, LANES><<<g->spmv_blocks, BLOCK, 0, g->s>>>(
      g->m, v, out, b, p, scalars, partials, g->lane_tiles);
  KL_GPU_CHECK_LAUNCH(spmv_lanes_kernel);
  return KL_OK;
}

template <int OUT, bool DEV>
static inline kl_status launch_csr_spmv(const geometry *g, const double *v,
                                        double *out, const double *b,
                                        double *p, const double *scalars,
                                        double *partials) {
  switch (g->lanes) {
  case 1: return launch_lanes<OUT, DEV, 1>(g, v, out, b, p, scalars, partials);
  case 2: return launch_lanes<OUT, DEV, 2>(g, v, out, b, p, scalars, partials);
  case 4: return launch_lanes<OUT, DEV, 4>(g, v, out, b, p, scalars, partials);
  case 8: return launch_lanes<OUT, DEV, 8>(g, v, out, b, p, scalars, partials);
  case 16:
    return launch_lanes<OUT, DEV, 16>(g, v, out, b, p, scalars, partials);
  case 32:
    return launch_lanes<OUT, DEV, 32>(g, v, out, b, p, scalars, partials);
  default:
    break;
  }
  spmv_stream_kernel<OUT, DEV><<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, v, out, b, p, scalars, partials);
  KL_GPU_CHECK_LAUNCH(spmv_stream_kernel);
  return KL_OK;
}

/* What every rung checks first: the scratch it reads, and the context's
 * device (the row groups and the matrix-free tiles are sized by its warp). */
static inline kl_status ready(const kl_args *a) {
  if (a->ctx->device.lanes < 4)
    return KL_FAIL(KL_DEVICE, "cg: the GPU's warp size is not known (%d)",
                   a->ctx->device.lanes);
  return require_scratch(a);
}

/* ---- 7 to 11: the scalars on the device, batches of iterations ---------- */

/* A rung's start (the device scalars set, S_DONE among them); its
 * iterations first .. first + count - 1, launched without a wait; and,
 * for pipelined, the residual replacement the device asks for. */
typedef kl_status (*start_fn)(const kl_args *a, const geometry *g);
typedef kl_status (*iterations_fn)(const kl_args *a, const geometry *g,
                                   int64_t first, int count);

typedef kl_status (*settle_fn)(const kl_args *a, const geometry *g,
                               int64_t k);

typedef struct device_rung {
  start_fn start;
  iterations_fn iterations;
  start_fn replace;
  settle_fn settle; /* after a solve of k iterations that stopped */
} device_rung;

enum { FINISH_START, FINISH_PAP, FINISH_RR };

/* One of the device scalars' final steps, over the partials of the
 * kernel before it: the SpMV's grid (the start and p.Ap), or the vector
 * kernels' (r.r). */
static inline kl_status finish(const kl_args *a, const geometry *g, int which) {
  double *scalars = SCALARS(a);
  const double *partials = PARTIALS(a);
  if (which == FINISH_START)
    KL_GPU_LAUNCH(g->early, finish_start_kernel, 1, FINAL_BLOCK, g->s,
                  partials, spmv_partials(g), scalars, g->stop);
  else if (which == FINISH_PAP)
    KL_GPU_LAUNCH(g->early, finish_pap_kernel, 1, FINAL_BLOCK, g->s,
                  partials, spmv_partials(g), scalars);
  else
    KL_GPU_LAUNCH(g->early, finish_rr_kernel, 1, FINAL_BLOCK, g->s,
                  partials, vector_grid(g), scalars, g->stop);
  return KL_OK;
}

/* The start, then batches until the device says it stopped: g->batch
 * iterations at a time (a graph's batch, or as many launched one by one,
 * to maxit at most), each followed by one read of {done, k, bad}. A batch
 * either moves k on or ends the solve, so the loop ends; the checks
 * below only guard against a device that would not stop. */
static inline kl_status device_solve(const kl_args *a, const geometry *g,
                                     const device_rung *d, int64_t *k) {
  double flag[3] = {RUNNING, 0, 0};
  const int64_t maxit = g->stop.maxit;
  KL_TRY(d->start(a, g));
  /* launched: iterations launched (the matrix-free rung's parity of p);
   * seen: the device's count at the last read. */
  for (int64_t launched = 0, seen = 0;;) {
    int count = g->batch;
    if (g->graph) {
      /* Iterations past maxit do nothing: the device stops at maxit. */
      KL_GPU_CHECK(cudaGraphLaunch(g->graph, g->s));
    } else {
      if (maxit - seen < count) count = (int)(maxit - seen);
      KL_TRY(d->iterations(a, g, launched, count));
    }
    launched += count;
    KL_TRY(read_back(flag, SCALARS(a) + S_DONE, 3, g->s));
    const int64_t now = (int64_t)flag[1];
    if (flag[0] == REPLACE && d->replace) {
      KL_TRY(d->replace(a, g));
    } else if (flag[0] != RUNNING) {
      break;
    } else if (now >= maxit || now == seen) {
      return KL_FAIL(KL_DEVICE, "cg: the device's solve did not stop at "
                     "%lld of maxit = %lld iterations", (long long)now,
                     (long long)maxit);
    }
    seen = now;
  }
  *k = (int64_t)flag[1];
  if (flag[0] == BROKE_DOWN) return kl__cg_not_spd(flag[2], *k);
  if (flag[0] != STOPPED)
    return KL_FAIL(KL_DEVICE, "cg: the device's solve ended in state %g",
                   flag[0]);
  if (d->settle) KL_TRY(d->settle(a, g, *k));
  info_kernel<<<1, 1, 0, g->s>>>(VEC(a, CG_INFO), SCALARS(a));
  KL_GPU_CHECK_LAUNCH(info_kernel);
  return KL_OK;
}

/* One batch captured as a graph at the rung's first call (untimed) and
 * kept for the problem; teardown destroys it. g->graph is then set.
 * run_reps receives its args const, but they are the caller's own object,
 * whose state is the rung's to keep. The capture is made on a stream of
 * its own: the context's may be one a caller handed over
 * (kl_context_adopt_stream), and the legacy default stream cannot be
 * captured; capturing runs nothing, and the graph is launched on the
 * context's stream, in its order. */
static inline kl_status ensure_graph(const kl_args *a, geometry *g,
                                     iterations_fn iterations) {
  if (!a->state.pointer[0]) {
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaStream_t capture = NULL;
    g->graph = NULL;
    KL_GPU_CHECK(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
    const cudaStream_t kept = g->s;
    g->s = capture;
    const cudaError_t began =
        cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal);
    const kl_status st =
        began == cudaSuccess ? iterations(a, g, 0, g->batch) : KL_OK;
    const cudaError_t ended =
        began == cudaSuccess ? cudaStreamEndCapture(capture, &graph) : began;
    g->s = kept;
    (void)cudaStreamDestroy(capture);
    if (began != cudaSuccess) {
      (void)cudaGetLastError();
      return KL_FAIL(KL_DEVICE, "cudaStreamBeginCapture failed: %s",
                     cudaGetErrorString(began));
    }
    if (st != KL_OK || ended != cudaSuccess) {
      if (graph) (void)cudaGraphDestroy(graph);
      (void)cudaGetLastError();
      if (st != KL_OK) return st;
      return KL_FAIL(KL_DEVICE, "cudaStreamEndCapture failed: %s",
                     cudaGetErrorString(ended));
    }
    const cudaError_t made = cudaGraphInstantiateWithFlags(&exec, graph, 0);
    (void)cudaGraphDestroy(graph);
    if (made != cudaSuccess)
      return KL_FAIL(KL_DEVICE, "cudaGraphInstantiateWithFlags failed: %s",
                     cudaGetErrorString(made));
    ((kl_args *)a)->state.pointer[0] = (void *)exec;
  }
  g->graph = (cudaGraphExec_t)a->state.pointer[0];
  return KL_OK;
}

#endif
