/* cg's CUDA ladder (seed 003 on the GPU): from the seed's first OpenACC
 * step, every array crossing PCIe around every kernel, to a matrix-free
 * solve whose iteration moves 8 vectors and no matrix. Every rung owns its
 * repetition loop and runs the whole solve on a->stream; NOTES.md ("CUDA
 * rungs") has each rung's bytes per iteration and its prediction.
 *
 *   copied          the seed's kernels (a thread per row, waxpby, dot), the
 *                   data in a host mirror between calls, as OpenACC's copy
 *                   clauses leave it
 *   resident        the same kernels on resident data; each dot to the host
 *   vector          a group of lanes per CSR row; two-stage dots
 *   fused           SpMV with p.Ap; x, r and r.r; p: two syncs an iteration
 *   device_scalars  fused's kernels with alpha and beta on the device: one
 *                   sync per batch of BATCH iterations
 *   graph           device_scalars' batch captured once as a CUDA graph
 *   pipelined       Ghysels and Vanroose: one reduction an iteration; the
 *                   true residual replaces the recurrences' at convergence
 *   matrix_free     the Poisson stencil from the grid, p's update inside it
 *
 * The device-scalar rungs keep the solve's state in CG_SCALARS (S_*): a
 * kernel launched after the solve stopped (converged, maxit, or a
 * breakdown) returns at once, so the host may launch a whole batch blind
 * and read the flag after it. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../backends/gpu-reduce.h"
#include "cg.h"

#define BLOCK 256       /* threads of every kernel but the final sums */
#define FINAL_BLOCK 1024 /* the one block that sums a reduction's partials */
static_assert(CG_MAX_BLOCKS <= 16 * FINAL_BLOCK, "total() in one pass");

/* Iterations the device-scalar rungs launch between two reads of the done
 * flag. Each read costs a copy and a sync (~10-20 us with the GPU idle
 * while the host launches again); after convergence at most BATCH - 1
 * iterations of empty kernels follow (each kernel ~2-3 us). At 201^3 an
 * iteration takes 0.2-1.2 ms, so either cost is under 1%; on test-sized
 * problems (~15 us an iteration) 16 keeps the syncs near 8% and the
 * wasted tail under a dozen iterations' time. Even, so that the
 * matrix-free rung's ping-pong of p starts every batch on the same
 * buffer, in a graph too. */
#define BATCH 16
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
  S_REPLACED, /* pipelined: 1 where r and w are fresh, z, s, p zero */
  S_DOT,  /* the host-read rungs' sums: a dot, or r.r and b.b */
  S_DOT_NEXT,
  S_SCALARS
};
static_assert(S_SCALARS <= CG_SCALAR_COUNT, "cg.h's CG_SCALAR_COUNT");
/* REPLACE: pipelined's recurrences say it converged; the host puts the
 * true residual in their place, and the solve stops or goes on from it. */
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

static __host__ __device__ int go_on(stop_rule s, int64_t k, double rr,
                                     double bb) {
  return cg_go_on(k, s.maxit, s.fixed, s.tol2, rr, bb);
}

/* p.Ap, or pipelined's denominator, as a positive definite A makes it. */
static __host__ __device__ int positive_finite(double v) {
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
  unsigned row_blocks; /* the seed's kernels: a thread per row */
  int group;           /* lanes per CSR row (vector rungs) */
  stop_rule stop;
  csr m;
  cudaGraphExec_t graph; /* one batch, for the rungs launched as graphs */
  int early; /* the iterations' kernels launched early (gpu.h) */
  /* cuda-copied: its host mirror and where each array lies in it. */
  unsigned char *mirror;
  int64_t mirror_at[8];
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
  /* Sixteen loads of a thread in flight at once, enough for CG_MAX_BLOCKS
   * partials on FINAL_BLOCK threads (the matrix-free sweeps leave 6097
   * at 201^3, the CSR kernels a block per resident slot); a loop that
   * waited for each load in turn took 6.5 us a sum (NOTES.md, matrix-free
   * attempt 9). */
  for (unsigned base = 0; base < count; base += 16 * blockDim.x) {
#pragma unroll
    for (unsigned u = 0; u < 16; u++) {
      const unsigned b = base + threadIdx.x + u * blockDim.x;
      if (b < count) v += partial[b];
    }
  }
  return kl_block_reduce<KL_OP_SUM>(v);
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

/* ---- 3 to 7. a group of lanes per CSR row ------------------------------- */

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
 * and 80% with 512 (NOTES.md). */
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
    if (row < last && OUT == SPMV_START) {
      const double bi = b[row], ri = bi - sum;
      out[row] = ri;
      p[row] = ri;
      dot += ri * ri;
      bb += bi * bi;
    } else if (row < last) {
      out[row] = sum;
      if (OUT == SPMV_DOT) dot += v[row] * sum;
    }
  }
  if (OUT != SPMV_OUT) store_partial(dot, PARTIAL(partials, 0));
  if (OUT == SPMV_START) store_partial(bb, PARTIAL(partials, 1));
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

/* The host-read rungs' final step: `sums` partial sums into out. */
static __global__ void totals_kernel(const double *partials, unsigned count,
                                     int sums, double *out) {
  for (int which = 0; which < sums; which++) {
    const double v = total(partials, which, count);
    if (threadIdx.x == 0) out[which] = v;
  }
}

/* x += alpha p, r -= alpha Ap, and the new r.r. */
template <bool DEV>
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
  for (int64_t i = thread_index(); i < n; i += grid_threads()) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * ap[i];
    r[i] = ri;
    rr += ri * ri;
  }
  store_partial(rr, partials);
}

/* p = r + beta p. */
template <bool DEV>
static __global__ void direction_kernel(double *__restrict__ p,
                                        const double *__restrict__ r, int64_t n,
                                        double beta, const double *scalars) {
  if (DEV) {
    if (stopped(scalars)) return;
    beta = scalars[S_BETA];
  }
  for (int64_t i = thread_index(); i < n; i += grid_threads())
    p[i] = r[i] + beta * p[i];
}

/* ---- the device scalars' final steps (one block each) ------------------- */

/* After the start: r.r (partial 0), b.b (partial 1); whether to go on. */
static __global__ void finish_start_kernel(const double *partials,
                                           unsigned count, double *scalars,
                                           stop_rule stop) {
  kl_gpu_wait_prior();
  kl_gpu_start_next();
  const double rr = total(partials, 0, count);
  const double bb = total(partials, 1, count);
  if (threadIdx.x != 0) return;
  scalars[S_RR] = rr;
  scalars[S_BB] = bb;
  scalars[S_K] = 0;
  scalars[S_BAD] = 0;
  scalars[S_ALPHA] = 0;
  scalars[S_ALPHA_PREV] = 0;
  scalars[S_BETA] = 0; /* the matrix-free rung's first p is r */
  scalars[S_DONE] = go_on(stop, 0, rr, bb) ? RUNNING : STOPPED;
}

/* After the SpMV: alpha = r.r / p.Ap, or a breakdown. */
static __global__ void finish_pap_kernel(const double *partials, unsigned count,
                                         double *scalars) {
  kl_gpu_wait_prior();
  kl_gpu_start_next();
  if (stopped(scalars)) return;
  const double pap = total(partials, 0, count);
  if (threadIdx.x != 0) return;
  if (!positive_finite(pap)) {
    scalars[S_BAD] = pap;
    scalars[S_DONE] = BROKE_DOWN;
    return;
  }
  scalars[S_ALPHA_PREV] = scalars[S_ALPHA];
  scalars[S_ALPHA] = scalars[S_RR] / pap;
}

/* After the update: beta, the count, and whether to go on. */
static __global__ void finish_rr_kernel(const double *partials, unsigned count,
                                        double *scalars, stop_rule stop) {
  kl_gpu_wait_prior();
  kl_gpu_start_next();
  if (stopped(scalars)) return;
  const double rr = total(partials, 0, count);
  if (threadIdx.x != 0) return;
  const int64_t k = (int64_t)scalars[S_K] + 1;
  scalars[S_BETA] = rr / scalars[S_RR];
  scalars[S_RR] = rr;
  scalars[S_K] = (double)k;
  if (!go_on(stop, k, rr, scalars[S_BB])) scalars[S_DONE] = STOPPED;
}

/* info = {k, |r| / |b|} from the device scalars. */
static __global__ void info_kernel(double *info, const double *scalars) {
  const double bb = scalars[S_BB];
  info[CG_INFO_ITERATIONS] = scalars[S_K];
  info[CG_INFO_RESIDUAL] = bb > 0 ? sqrt(scalars[S_RR] / bb) : 0;
}

/* The same from the host's scalars. */
static __global__ void info_values_kernel(double *info, double k,
                                          double residual) {
  info[CG_INFO_ITERATIONS] = k;
  info[CG_INFO_RESIDUAL] = residual;
}

/* ---- 7. pipelined CG (Ghysels and Vanroose) ----------------------------- */

/* Start, part 1: r = b - A x; b.b into partial 2 (0 and 1 are the next
 * kernel's). */
static __global__ void pipe_start_r_kernel(csr m, const double *__restrict__ x,
                                           const double *__restrict__ b,
                                           double *__restrict__ r,
                                           double *partials, int group) {
  double bb = 0;
  const int lane = group_lane(group);
  for (int64_t row = group_row(group); row - behind(group) < m.rows;
       row += groups(group)) {
    const double s = row_product(m, x, row, lane, group);
    if (lane == 0 && row < m.rows) {
      const double bi = b[row];
      r[row] = bi - s;
      bb += bi * bi;
    }
  }
  store_partial(bb, PARTIAL(partials, 2));
}

/* Start, part 2: w = A r; z, s and p start at zero (beta = 0 then
 * multiplies them: poison would make NaN); gamma = r.r and delta = w.r
 * for the first iteration. */
static __global__ void
pipe_start_w_kernel(csr m, const double *__restrict__ r, double *__restrict__ w,
                    double *__restrict__ z, double *__restrict__ s,
                    double *__restrict__ p, double *partials, int group) {
  double gamma = 0, delta = 0;
  const int lane = group_lane(group);
  for (int64_t row = group_row(group); row - behind(group) < m.rows;
       row += groups(group)) {
    const double sum = row_product(m, r, row, lane, group);
    if (lane == 0 && row < m.rows) {
      const double ri = r[row];
      w[row] = sum;
      z[row] = 0;
      s[row] = 0;
      p[row] = 0;
      gamma += ri * ri;
      delta += sum * ri;
    }
  }
  store_partial(gamma, PARTIAL(partials, 0));
  store_partial(delta, PARTIAL(partials, 1));
}

static __global__ void pipe_finish_start_kernel(const double *partials,
                                                unsigned count, double *scalars,
                                                stop_rule stop) {
  const double gamma = total(partials, 0, count);
  const double bb = total(partials, 2, count);
  if (threadIdx.x != 0) return;
  scalars[S_RR] = gamma;
  scalars[S_BB] = bb;
  scalars[S_K] = 0;
  scalars[S_BAD] = 0;
  scalars[S_ALPHA] = 0; /* every scalar a kernel might load is set */
  scalars[S_BETA] = 0;
  scalars[S_REPLACED] = 1;
  scalars[S_DONE] = go_on(stop, 0, gamma, bb) ? RUNNING : STOPPED;
}

/* The iteration's one reduction, finished: gamma = r.r, delta = w.r from
 * the last update; stop, or alpha and beta. The denominator is p.Ap in
 * exact arithmetic, and breaks down as it does.
 *
 * The recurrences' r drifts from b - A x further than plain CG's (Cools
 * et al., "Analyzing the effect of local rounding error propagation on
 * the maximal attainable accuracy of the pipelined Conjugate Gradient
 * method", SIMAX 2018). Converged by it in tolerance mode, the solve asks
 * for the true residual (REPLACE): the host computes r = b - A x and w =
 * A r in place of the recurrences' and zeroes z, s and p, and the next
 * decide stops on that r or starts the recurrences afresh from it (beta
 * = 0, as at k = 0: the old p belongs to the drifted r, and the usual
 * denominator with it can come out negative, which a CPU emulation of
 * the 7-point 33^3 solve at tol = 1e-13 showed). Restarted, the solve
 * needed 2 to 7 iterations more than plain CG to 1e-13 and 1e-14, where
 * without it the true residual stalled 3 to 16 times above tol. */
static __global__ void pipe_decide_kernel(const double *partials,
                                          unsigned count, double *scalars,
                                          stop_rule stop) {
  if (stopped(scalars)) return;
  const double gamma = total(partials, 0, count);
  const double delta = total(partials, 1, count);
  if (threadIdx.x != 0) return;
  const int64_t k = (int64_t)scalars[S_K];
  if (!go_on(stop, k, gamma, scalars[S_BB])) {
    if (!stop.fixed && k < stop.maxit && gamma > 0 &&
        scalars[S_REPLACED] == 0) {
      scalars[S_DONE] = REPLACE;
      return;
    }
    scalars[S_RR] = gamma;
    scalars[S_DONE] = STOPPED;
    return;
  }
  const bool fresh = k == 0 || scalars[S_REPLACED] != 0;
  const double beta = fresh ? 0 : gamma / scalars[S_RR];
  const double denominator =
      fresh ? delta : delta - beta * gamma / scalars[S_ALPHA];
  /* Past convergence (the seed's fixed 100 iterations of the 27-point
   * matrix) the recurrences' denominator is a difference of rounding
   * noise and can come out negative (-3e-24 at k = 64 on 20^3): start
   * afresh from the true residual, whose denominator is r.Ar itself.
   * Only a fresh start's that is not positive is a breakdown. */
  if (!positive_finite(denominator) && !fresh) {
    scalars[S_DONE] = REPLACE;
    return;
  }
  if (!positive_finite(denominator)) {
    scalars[S_BAD] = denominator;
    scalars[S_DONE] = BROKE_DOWN;
    return;
  }
  scalars[S_ALPHA] = gamma / denominator;
  scalars[S_BETA] = beta;
  scalars[S_RR] = gamma;
  scalars[S_K] = (double)(k + 1);
  scalars[S_REPLACED] = 0;
}

/* Every recurrence at once, and the next iteration's r.r and w.r. */
static __global__ void
pipe_update_kernel(double *__restrict__ x, double *__restrict__ r,
                   double *__restrict__ p, double *__restrict__ w,
                   double *__restrict__ z, double *__restrict__ s,
                   const double *__restrict__ q, int64_t n,
                   const double *scalars, double *partials) {
  if (stopped(scalars)) return;
  const double alpha = scalars[S_ALPHA], beta = scalars[S_BETA];
  double gamma = 0, delta = 0;
  for (int64_t i = thread_index(); i < n; i += grid_threads()) {
    const double zi = q[i] + beta * z[i];
    const double wi = w[i], ri = r[i];
    const double si = wi + beta * s[i];
    const double pi = ri + beta * p[i];
    const double r_next = ri - alpha * si, w_next = wi - alpha * zi;
    z[i] = zi;
    s[i] = si;
    p[i] = pi;
    x[i] += alpha * pi;
    r[i] = r_next;
    w[i] = w_next;
    gamma += r_next * r_next;
    delta += w_next * r_next;
  }
  store_partial(gamma, PARTIAL(partials, 0));
  store_partial(delta, PARTIAL(partials, 1));
}

/* After a replacement: the next decide starts afresh. */
static __global__ void pipe_resume_kernel(double *scalars) {
  scalars[S_REPLACED] = 1;
  scalars[S_DONE] = RUNNING;
}

/* ---- 8. matrix-free: the stencil from the grid -------------------------- */

/* A block takes a tile of the grid: warpSize - 2 columns (each warp's
 * lanes hold one column more on either side, the x neighbours reached by
 * shuffles), MF_ROWS rows a warp with the block's warps stacked in y (each
 * lane loads MF_ROWS + 2 rows, so a warp's halo rows are its neighbour
 * warps' own rows, found in L1), and MF_PLANES planes, which the lanes
 * march along z: each plane loaded serves as the z neighbour of the planes
 * before and after. No shared memory and no barrier.
 *
 * The blocks take the tiles in address order, one tile a block (a stride
 * only where the tiles outnumber CG_MAX_BLOCKS), so that the GPU sweeps
 * memory in order as a copy does (laplacian NOTES, attempt 6). Before
 * any store a lane loads its own points' other inputs (x and r, or b) for
 * the whole tile: loads after a store to a vector that might alias them
 * would wait for each plane in turn.
 *
 * The 27-point sum is a 3x3x3 box: 27 q_i - (the 26 neighbours) = 28 q_i -
 * box(q), and a box is a sum of three planes' 3x3 sums, each the sum of
 * three rows' x-sums. The 7-point: 6 q_i - the four in the plane - the
 * centres of the planes above and below. Points outside the grid count as
 * zero: exactly the truncated rows of the CSR matrix. The shape was tuned
 * on the H100 (NOTES.md, matrix-free attempts).
 *
 * The sweeps and the final sums are launched early (KL_GPU_LAUNCH): a
 * sum's one block is scheduled during its sweep's last wave and waits
 * there, and the next sweep's blocks are scheduled while the sum runs. */
#ifndef CG_EARLY /* -D for tuning: 0 launches every kernel the usual way */
#define CG_EARLY 1
#endif
#ifndef MF_BLOCK /* -D for tuning */
#define MF_BLOCK 128
#endif
#ifndef MF_ROWS
#define MF_ROWS 4
#endif
#ifndef MF_PLANES
#define MF_PLANES 3
#endif

/* The sweeps: the start; A, the new p; B, an even iteration's (r only)
 * or an odd one's (x for both iterations, and r). */
enum { MF_START, MF_DIRECTION, MF_RESIDUAL, MF_UPDATE };

/* An odd iteration j recovers p_(j-1) = (p_j - r_j) / beta_j from the
 * values it has, where beta_j is at least this; below it, it reads p_(j-1)
 * from its buffer. The recovered p_(j-1) carries an error of about
 * u |r_j| / beta_j, at most 1 / sqrt(beta_j) = 4 times that of a stored
 * p (|p_(j-1)| >= |r_(j-1)| = |r_j| / sqrt(beta_j)); NOTES.md. */
#define MF_RECOVER_BETA 0.0625

typedef struct mf_grid {
  int64_t n, tiles_x, tiles_y, tiles;
} mf_grid;

/* The vectors of one sweep: the stencil applies to q = src (+ beta src2,
 * MF_DIRECTION); the rest are the sweep's outputs and own-point inputs
 * (src2 in MF_UPDATE: p_(j-1)). */
typedef struct mf_vectors {
  const double *src, *src2, *b;
  double *x, *r, *p_out;
} mf_vectors;

template <int MODE>
static __device__ __forceinline__ double mf_source(mf_vectors v, int64_t i,
                                                   double beta) {
  if (MODE == MF_DIRECTION) return __ldg(v.src + i) + beta * __ldg(v.src2 + i);
  return __ldg(v.src + i);
}

/* What plane k gives the points of its own rows (`own`: their 3x3 sums,
 * or the four in-plane neighbours) and the points above and below them
 * (`beside`: the same 3x3 sums, or the centres). */
template <int STENCIL>
static __device__ __forceinline__ void mf_plane(const double *rows, double *own,
                                                double *beside) {
  if (STENCIL == CG_STENCIL_27) {
#pragma unroll
    for (int m = 0; m < MF_ROWS; m++) {
      const double column = rows[m] + rows[m + 1] + rows[m + 2];
      own[m] = __shfl_up_sync(KL_FULL_MASK, column, 1) + column +
               __shfl_down_sync(KL_FULL_MASK, column, 1);
      beside[m] = own[m];
    }
  } else {
#pragma unroll
    for (int m = 0; m < MF_ROWS; m++) {
      own[m] = __shfl_up_sync(KL_FULL_MASK, rows[m + 1], 1) +
               __shfl_down_sync(KL_FULL_MASK, rows[m + 1], 1) + rows[m] +
               rows[m + 2];
      beside[m] = rows[m + 1];
    }
  }
}

/* A point's inputs other than q: b (MF_START), r (MF_RESIDUAL), or x, r
 * and, where it is not recovered, p_(j-1) (MF_UPDATE). */
template <int MODE>
static __device__ __forceinline__ void
mf_inputs(mf_vectors v, int64_t i, bool read_previous, double *in) {
  if (MODE == MF_START) in[0] = v.b[i];
  if (MODE == MF_RESIDUAL) in[0] = v.r[i];
  if (MODE == MF_UPDATE) {
    in[0] = v.x[i];
    in[1] = v.r[i];
    in[2] = read_previous ? v.src2[i] : 0;
  }
}

/* The coefficients of an odd iteration's x update: x += c[0] p_j +
 * c[1] r_j + c[2] p_(j-1), which is x + alpha_(j-1) p_(j-1) + alpha_j p_j
 * with p_(j-1) recovered or read. */
static __device__ __forceinline__ bool mf_x_update(const double *scalars,
                                                   double *c) {
  const double alpha = scalars[S_ALPHA], before = scalars[S_ALPHA_PREV];
  const double beta = scalars[S_BETA];
  if (beta >= MF_RECOVER_BETA) { /* false for NaN too */
    c[0] = alpha + before / beta;
    c[1] = -before / beta;
    c[2] = 0;
    return false;
  }
  c[0] = alpha;
  c[1] = 0;
  c[2] = before;
  return true;
}

/* The sweep's work at point i, whose q is `q`, A q `aq` and other inputs
 * `in`; c: MF_UPDATE's coefficients. */
template <int MODE>
static __device__ __forceinline__ void
mf_point(mf_vectors v, int64_t i, double q, double aq, const double *in,
         double alpha, const double *c, double *sum0, double *sum1) {
  if (MODE == MF_START) { /* q = x */
    const double ri = in[0] - aq;
    v.r[i] = ri;
    v.p_out[i] = 0;
    *sum0 += ri * ri;
    *sum1 += in[0] * in[0];
  } else if (MODE == MF_DIRECTION) { /* q = r + beta p: the new p */
    v.p_out[i] = q;
    *sum0 += q * aq;
  } else if (MODE == MF_RESIDUAL) { /* q = p */
    const double ri = in[0] - alpha * aq;
    v.r[i] = ri;
    *sum0 += ri * ri;
  } else { /* q = p */
    v.x[i] = in[0] + c[0] * q + c[1] * in[1] + c[2] * in[2];
    const double ri = in[1] - alpha * aq;
    v.r[i] = ri;
    *sum0 += ri * ri;
  }
}

template <int MODE, int STENCIL>
static __global__ __launch_bounds__(MF_BLOCK) void stencil_kernel(
    mf_grid g, mf_vectors v, const double *scalars, double *partials) {
  /* The final sum after this sweep may be scheduled now: it waits. */
  kl_gpu_start_next();
  /* Reading the own-point inputs before the wait, behind the final sum
   * before this sweep, was slower (NOTES.md, attempt 16). */
  kl_gpu_wait_prior();
  if (MODE != MF_START && stopped(scalars)) return;
  const double beta = MODE == MF_DIRECTION ? scalars[S_BETA] : 0;
  const double alpha =
      MODE == MF_UPDATE || MODE == MF_RESIDUAL ? scalars[S_ALPHA] : 0;
  double c[3] = {0, 0, 0};
  const bool read_previous = MODE == MF_UPDATE && mf_x_update(scalars, c);
  const double diagonal = STENCIL == CG_STENCIL_27 ? 28 : 6;
  const int lane = threadIdx.x % warpSize, width = warpSize - 2;
  const int warp = threadIdx.x / warpSize, warps = blockDim.x / warpSize;
  /* Coordinates in int (n^3 elements fit in memory, so n < 2^21); the
   * indices in int64. */
  const int n = (int)g.n;
  const int64_t row = n, plane = (int64_t)n * n;
  enum { INPUTS = MODE == MF_UPDATE ? 3 : MODE == MF_DIRECTION ? 0 : 1 };
  double sum0 = 0, sum1 = 0;
  for (int64_t b = blockIdx.x; b < g.tiles; b += gridDim.x) {
    /* Sweep B goes backwards: its first tiles are the ones A touched
     * last, still in L2. */
    const int64_t tile =
        MODE == MF_UPDATE || MODE == MF_RESIDUAL ? g.tiles - 1 - b : b;
    const int x = (int)(tile % g.tiles_x) * width - 1 + lane;
    const int y0 = ((int)(tile / g.tiles_x % g.tiles_y) * warps + warp) * MF_ROWS;
    const int k0 = (int)(tile / (g.tiles_x * g.tiles_y)) * MF_PLANES;
    const bool in_x = x >= 0 && x < n;
    const bool owns = in_x && lane > 0 && lane <= width;
    /* Point (x, y0, k0): the tile's first own point. */
    const int64_t first = x + row * y0 + plane * k0;
    double in[MF_PLANES][MF_ROWS][INPUTS > 0 ? INPUTS : 1];
    if (INPUTS > 0) {
#pragma unroll
      for (int z = 0; z < MF_PLANES; z++)
#pragma unroll
        for (int m = 0; m < MF_ROWS; m++)
          if (owns && y0 + m < n && k0 + z < n)
            mf_inputs<MODE>(v, first + row * m + plane * z, read_previous,
                            in[z][m]);
    }
    /* For the plane before: D q - own - what the plane before it gave,
     * waiting for what this plane gives; its q; what it gives the next. */
    double pending[MF_ROWS], centre[MF_ROWS], below[MF_ROWS];
#pragma unroll
    for (int m = 0; m < MF_ROWS; m++) pending[m] = centre[m] = below[m] = 0;
#pragma unroll
    for (int j = 0; j < MF_PLANES + 2; j++) {
      const int k = k0 - 1 + j;
      const bool in_z = k >= 0 && k < n;
      double rows[MF_ROWS + 2];
#pragma unroll
      for (int d = 0; d < MF_ROWS + 2; d++) {
        const int y = y0 - 1 + d;
        rows[d] = 0;
        if (in_z && in_x && y >= 0 && y < n)
          rows[d] = mf_source<MODE>(
              v, first + row * (d - 1) + plane * (j - 1), beta);
      }
      double own[MF_ROWS], beside[MF_ROWS];
      mf_plane<STENCIL>(rows, own, beside);
      if (j >= 2) {
#pragma unroll
        for (int m = 0; m < MF_ROWS; m++)
          if (owns && y0 + m < n && k - 1 < n)
            mf_point<MODE>(v, first + row * m + plane * (j - 2), centre[m],
                           pending[m] - beside[m], in[j - 2][m], alpha, c,
                           &sum0, &sum1);
      }
#pragma unroll
      for (int m = 0; m < MF_ROWS; m++) {
        pending[m] = diagonal * rows[m + 1] - own[m] - below[m];
        centre[m] = rows[m + 1];
        below[m] = beside[m];
      }
    }
  }
  store_partial(sum0, PARTIAL(partials, 0));
  if (MODE == MF_START) store_partial(sum1, PARTIAL(partials, 1));
}

/* ---- host side: geometry, reads, the repetition loop -------------------- */

static kl_status require(const kl_args *a, int index, int64_t count,
                         const char *what) {
  const kl_plan *p = a->plan;
  if (index >= p->buffer_count || p->buffers[index].count < count ||
      !a->buffers[index])
    return KL_FAIL(KL_USAGE, "cg: the plan lacks %s (buffer %d of %lld "
                   "elements or more)", what, index, (long long)count);
  return KL_OK;
}

/* The scratch every GPU rung reads (kl__cg_gpu_scratch). */
static kl_status require_scratch(const kl_args *a) {
  const int64_t rows = CG_ROWS(a->plan);
  KL_TRY(require(a, CG_R, rows, "r"));
  KL_TRY(require(a, CG_P, rows, "p"));
  KL_TRY(require(a, CG_AP, rows, "Ap"));
  KL_TRY(require(a, CG_SCALARS, CG_SCALAR_COUNT, "the device scalars"));
  return require(a, CG_PARTIALS, CG_PARTIAL_COUNT, "the partial sums");
}

static geometry geometry_of(const kl_args *a) {
  const kl_plan *p = a->plan;
  geometry g;
  memset(&g, 0, sizeof g);
  g.s = (cudaStream_t)a->stream;
  g.rows = CG_ROWS(p);
  g.nnz = CG_NNZ(p);
  /* The smallest power of two at or above the mean row length, up to a
   * warp: 32 lanes for the 27-point matrix (26.6 a row at 201^3), 8 for
   * the 7-point one. */
  const int warp = kl__gpu_warp_size();
  const double mean = g.rows > 0 ? (double)g.nnz / (double)g.rows : 0;
  g.group = 1;
  while (g.group < warp && g.group < mean) g.group *= 2;
  /* As many blocks as the GPU holds at once, striding over the rows: no
   * more partials than that to sum. */
  int64_t resident = (int64_t)kl__gpu_sm_count() *
                     (kl__gpu_max_threads_per_sm() / BLOCK);
  if (resident < 1) resident = 1;
  int64_t blocks = kl__gpu_blocks(g.rows * g.group, BLOCK);
  if (blocks > resident) blocks = resident;
  if (blocks > CG_MAX_BLOCKS) blocks = CG_MAX_BLOCKS;
  g.blocks = (unsigned)blocks;
  g.row_blocks = kl__gpu_blocks(g.rows, BLOCK);
  g.stop.maxit = CG_MAXIT(p);
  g.stop.fixed = CG_MODE(p) == CG_FIXED;
  g.stop.tol2 = CG_TOL(p) * CG_TOL(p);
  g.m.offsets = (const int64_t *)a->buffers[CG_OFFSETS];
  g.m.columns = (const int32_t *)a->buffers[CG_COLUMNS];
  g.m.values = (const double *)a->buffers[CG_VALUES];
  g.m.rows = g.rows;
  return g;
}

/* count doubles from the device, waited for: the host's scalars. */
static kl_status read_back(double *host, const double *device, int count,
                           cudaStream_t s) {
  KL_GPU_CHECK(cudaMemcpyAsync(host, device, sizeof(double) * count,
                               cudaMemcpyDeviceToHost, s));
  KL_GPU_CHECK(cudaStreamSynchronize(s));
  return KL_OK;
}

static kl_status put_info(const kl_args *a, const geometry *g, int64_t k,
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
static kl_status repeat(const kl_args *a, kl_reps *reps, const geometry *g,
                        solve_fn untimed, solve_fn solve) {
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

/* ---- 1 to 3: the seed's solve, its three operations per rung ------------ */

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

static const seed_ops resident_ops = {resident_matvec, resident_waxpby,
                                      resident_dot};

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

static kl_status resident_solve(const kl_args *a, const geometry *g,
                                int64_t *iterations) {
  return seed_solve(a, g, &resident_ops, iterations);
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

static kl_status totals(const kl_args *a, const geometry *g, int sums,
                        double *host) {
  totals_kernel<<<1, FINAL_BLOCK, 0, g->s>>>(PARTIALS(a), g->blocks, sums,
                                             SCALARS(a) + S_DOT);
  KL_GPU_CHECK_LAUNCH(totals_kernel);
  return read_back(host, SCALARS(a) + S_DOT, sums, g->s);
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

/* ---- 4. fused: three kernels an iteration, the scalars on the host ------ */

/* The fused and device-scalar start: r = b - A x, p = r; r.r and b.b. */
static kl_status launch_start(const kl_args *a, const geometry *g) {
  spmv_stream_kernel<SPMV_START, false><<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_X), VEC(a, CG_R), VEC(a, CG_B), VEC(a, CG_P),
      SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(spmv_stream_kernel);
  return KL_OK;
}

template <bool DEV>
static kl_status launch_spmv_dot(const kl_args *a, const geometry *g) {
  spmv_stream_kernel<SPMV_DOT, DEV><<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_P), VEC(a, CG_AP), NULL, NULL, SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(spmv_stream_kernel);
  return KL_OK;
}

template <bool DEV>
static kl_status launch_update(const kl_args *a, const geometry *g,
                               double alpha) {
  update_kernel<DEV><<<g->blocks, BLOCK, 0, g->s>>>(
      VEC(a, CG_X), VEC(a, CG_R), VEC(a, CG_P), VEC(a, CG_AP), g->rows, alpha,
      SCALARS(a), PARTIALS(a));
  KL_GPU_CHECK_LAUNCH(update_kernel);
  return KL_OK;
}

template <bool DEV>
static kl_status launch_direction(const kl_args *a, const geometry *g,
                                  double beta) {
  direction_kernel<DEV><<<g->blocks, BLOCK, 0, g->s>>>(
      VEC(a, CG_P), VEC(a, CG_R), g->rows, beta, SCALARS(a));
  KL_GPU_CHECK_LAUNCH(direction_kernel);
  return KL_OK;
}

static kl_status fused_solve(const kl_args *a, const geometry *g,
                             int64_t *iterations) {
  double start[2] = {0, 0}, pap = 0, rr_next = 0;
  KL_TRY(launch_start(a, g));
  KL_TRY(totals(a, g, 2, start));
  double rr = start[0], beta = 0;
  const double bb = start[1];
  int64_t k = 0;
  while (go_on(g->stop, k, rr, bb)) {
    if (k > 0) KL_TRY(launch_direction<false>(a, g, beta));
    KL_TRY(launch_spmv_dot<false>(a, g));
    KL_TRY(totals(a, g, 1, &pap));
    if (!positive_finite(pap)) return kl__cg_not_spd(pap, k);
    KL_TRY(launch_update<false>(a, g, rr / pap));
    KL_TRY(totals(a, g, 1, &rr_next));
    beta = rr_next / rr;
    rr = rr_next;
    k++;
  }
  *iterations = k;
  return put_info(a, g, k, rr, bb);
}

/* ---- 5 to 8: the scalars on the device, batches of iterations ----------- */

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
 * geometry's grid. */
static kl_status finish(const kl_args *a, const geometry *g, int which) {
  double *scalars = SCALARS(a);
  const double *partials = PARTIALS(a);
  if (which == FINISH_START)
    KL_GPU_LAUNCH(g->early, finish_start_kernel, 1, FINAL_BLOCK, g->s,
                  partials, g->blocks, scalars, g->stop);
  else if (which == FINISH_PAP)
    KL_GPU_LAUNCH(g->early, finish_pap_kernel, 1, FINAL_BLOCK, g->s,
                  partials, g->blocks, scalars);
  else
    KL_GPU_LAUNCH(g->early, finish_rr_kernel, 1, FINAL_BLOCK, g->s,
                  partials, g->blocks, scalars, g->stop);
  return KL_OK;
}

static kl_status scalar_start(const kl_args *a, const geometry *g) {
  KL_TRY(launch_start(a, g));
  return finish(a, g, FINISH_START);
}

static kl_status scalar_iterations(const kl_args *a, const geometry *g,
                                   int64_t first, int count) {
  (void)first;
  for (int i = 0; i < count; i++) {
    KL_TRY(launch_spmv_dot<true>(a, g));
    KL_TRY(finish(a, g, FINISH_PAP));
    KL_TRY(launch_update<true>(a, g, 0));
    KL_TRY(finish(a, g, FINISH_RR));
    KL_TRY(launch_direction<true>(a, g, 0));
  }
  return KL_OK;
}

/* The start, then batches until the device says it stopped: BATCH
 * iterations at a time (a graph's batch, or as many launched one by one,
 * to maxit at most), each followed by one read of {done, k, bad}. A batch
 * either moves k on or ends the solve, so the loop ends; the checks
 * below only guard against a device that would not stop. */
static kl_status device_solve(const kl_args *a, const geometry *g,
                              const device_rung *d, int64_t *k) {
  double flag[3] = {RUNNING, 0, 0};
  const int64_t maxit = g->stop.maxit;
  KL_TRY(d->start(a, g));
  /* launched: iterations launched (the matrix-free rung's parity of p);
   * seen: the device's count at the last read. */
  for (int64_t launched = 0, seen = 0;;) {
    int count = BATCH;
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
 * whose state is the rung's to keep. */
static kl_status ensure_graph(const kl_args *a, geometry *g,
                              iterations_fn iterations) {
  if (!a->state.pointer[0]) {
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    g->graph = NULL;
    KL_GPU_CHECK(
        cudaStreamBeginCapture(g->s, cudaStreamCaptureModeThreadLocal));
    const kl_status st = iterations(a, g, 0, BATCH);
    const cudaError_t ended = cudaStreamEndCapture(g->s, &graph);
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

static const device_rung scalar_rung = {scalar_start, scalar_iterations,
                                        NULL, NULL};

static kl_status device_scalars_solve(const kl_args *a, const geometry *g,
                                      int64_t *k) {
  return device_solve(a, g, &scalar_rung, k);
}

/* ---- 7. pipelined: launches --------------------------------------------- */

/* r = b - A x, w = A r, z = s = p = 0, and gamma and delta: the start,
 * and the true residual in place of the recurrences' (REPLACE,
 * pipe_decide_kernel), from the current x. */
static kl_status pipe_products(const kl_args *a, const geometry *g) {
  pipe_start_r_kernel<<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_X), VEC(a, CG_B), VEC(a, CG_R), PARTIALS(a), g->group);
  KL_GPU_CHECK_LAUNCH(pipe_start_r_kernel);
  pipe_start_w_kernel<<<g->blocks, BLOCK, 0, g->s>>>(
      g->m, VEC(a, CG_R), VEC(a, CG_W), VEC(a, CG_Z), VEC(a, CG_S),
      VEC(a, CG_P), PARTIALS(a), g->group);
  KL_GPU_CHECK_LAUNCH(pipe_start_w_kernel);
  return KL_OK;
}

static kl_status pipe_start(const kl_args *a, const geometry *g) {
  KL_TRY(pipe_products(a, g));
  pipe_finish_start_kernel<<<1, FINAL_BLOCK, 0, g->s>>>(
      PARTIALS(a), g->blocks, SCALARS(a), g->stop);
  KL_GPU_CHECK_LAUNCH(pipe_finish_start_kernel);
  return KL_OK;
}

/* decide (gamma, delta -> alpha, beta), q = A w, the update with both
 * dots: three launches, one reduction. The SpMV does not wait for the
 * reduction's result; on one stream it runs after the one-block decide. */
static kl_status pipe_iterations(const kl_args *a, const geometry *g,
                                 int64_t first, int count) {
  (void)first;
  for (int i = 0; i < count; i++) {
    pipe_decide_kernel<<<1, FINAL_BLOCK, 0, g->s>>>(PARTIALS(a), g->blocks,
                                                    SCALARS(a), g->stop);
    KL_GPU_CHECK_LAUNCH(pipe_decide_kernel);
    spmv_stream_kernel<SPMV_OUT, true><<<g->blocks, BLOCK, 0, g->s>>>(
        g->m, VEC(a, CG_W), VEC(a, CG_AP), NULL, NULL, SCALARS(a),
        PARTIALS(a));
    KL_GPU_CHECK_LAUNCH(spmv_stream_kernel);
    pipe_update_kernel<<<g->blocks, BLOCK, 0, g->s>>>(
        VEC(a, CG_X), VEC(a, CG_R), VEC(a, CG_P), VEC(a, CG_W), VEC(a, CG_Z),
        VEC(a, CG_S), VEC(a, CG_AP), g->rows, SCALARS(a), PARTIALS(a));
    KL_GPU_CHECK_LAUNCH(pipe_update_kernel);
  }
  return KL_OK;
}

static kl_status pipe_replace(const kl_args *a, const geometry *g) {
  KL_TRY(pipe_products(a, g));
  pipe_resume_kernel<<<1, 1, 0, g->s>>>(SCALARS(a));
  KL_GPU_CHECK_LAUNCH(pipe_resume_kernel);
  return KL_OK;
}

static const device_rung pipe_rung = {pipe_start, pipe_iterations,
                                      pipe_replace, NULL};

static kl_status pipelined_solve(const kl_args *a, const geometry *g,
                                 int64_t *k) {
  return device_solve(a, g, &pipe_rung, k);
}

/* ---- 8. matrix-free: launches ------------------------------------------- */

static mf_grid mf_grid_of(const kl_plan *p, unsigned *blocks) {
  mf_grid g;
  const int warp = kl__gpu_warp_size();
  const int64_t rows = MF_BLOCK / warp * MF_ROWS; /* a tile's */
  g.n = CG_N(p);
  g.tiles_x = (g.n + warp - 3) / (warp - 2);
  g.tiles_y = (g.n + rows - 1) / rows;
  g.tiles = g.tiles_x * g.tiles_y * ((g.n + MF_PLANES - 1) / MF_PLANES);
  /* A block a tile, as long as the partials allow; then the blocks stride
   * over the tiles. */
  *blocks = (unsigned)(g.tiles < 1               ? 1
                       : g.tiles > CG_MAX_BLOCKS ? CG_MAX_BLOCKS
                                                 : g.tiles);
  return g;
}

/* The stencil kernel of a mode for the plan's stencil, picked in a
 * template: hipcc emits a kernel template's instance only where a template
 * takes its address (laplacian-cuda.cu). */
template <int MODE>
static kl_status launch_stencil(const kl_args *a, const geometry *g,
                                mf_vectors v) {
  unsigned blocks = 0;
  const mf_grid grid = mf_grid_of(a->plan, &blocks);
  void (*stencil_sweep)(mf_grid, mf_vectors, const double *, double *) =
      CG_STENCIL(a->plan) == CG_STENCIL_27 ? stencil_kernel<MODE, CG_STENCIL_27>
                                           : stencil_kernel<MODE, CG_STENCIL_7>;
  /* The start follows the reset's copies, not a kernel. */
  KL_GPU_LAUNCH(g->early && MODE != MF_START, stencil_sweep, blocks,
                MF_BLOCK, g->s, grid, v, SCALARS(a), PARTIALS(a));
  return KL_OK;
}

/* The finishing kernels sum as many partials as the stencil kernels
 * wrote: the matrix-free geometry's blocks in place of the CSR ones. */
static geometry mf_geometry_of(const kl_args *a) {
  geometry g = geometry_of(a);
  mf_grid_of(a->plan, &g.blocks);
  g.early = CG_EARLY;
  return g;
}

/* r = b - A x0 and p = 0 (the first p is r + 0 p); r.r and b.b. */
static kl_status mf_start(const kl_args *a, const geometry *g) {
  mf_vectors v = {VEC(a, CG_X), NULL, VEC(a, CG_B),
                  NULL,         VEC(a, CG_R), VEC(a, CG_P)};
  KL_TRY(launch_stencil<MF_START>(a, g, v));
  return finish(a, g, FINISH_START);
}

/* Iteration j reads p from one of CG_P and CG_AP (no Ap is stored) and
 * writes the new p into the other: kernel A's neighbours of the old p must
 * not change under it. An even iteration leaves x alone; the odd one after
 * it adds both iterations' steps, while p_(j-1) is still in its buffer.
 * x is then read and written every other iteration: 7 passes an iteration,
 * not 8. */
static kl_status mf_iterations(const kl_args *a, const geometry *g,
                               int64_t first, int count) {
  for (int i = 0; i < count; i++) {
    const int odd = (int)((first + i) % 2);
    double *p_old = VEC(a, odd ? CG_AP : CG_P);
    double *p_new = VEC(a, odd ? CG_P : CG_AP);
    mf_vectors direction = {VEC(a, CG_R), p_old, NULL, NULL, NULL, p_new};
    KL_TRY(launch_stencil<MF_DIRECTION>(a, g, direction));
    KL_TRY(finish(a, g, FINISH_PAP));
    mf_vectors update = {p_new,        p_old,        NULL,
                         VEC(a, CG_X), VEC(a, CG_R), NULL};
    if (odd)
      KL_TRY(launch_stencil<MF_UPDATE>(a, g, update));
    else
      KL_TRY(launch_stencil<MF_RESIDUAL>(a, g, update));
    KL_TRY(finish(a, g, FINISH_RR));
  }
  return KL_OK;
}

/* x += alpha p: the last iteration's step, where it was even. */
static __global__ void mf_settle_kernel(double *__restrict__ x,
                                        const double *__restrict__ p,
                                        const double *scalars, int64_t rows) {
  const double alpha = scalars[S_ALPHA];
  for (int64_t i = thread_index(); i < rows; i += grid_threads())
    x[i] += alpha * p[i];
}

/* After k iterations: iteration k - 1, if even, left its step to x
 * undone; its p is in CG_AP. */
static kl_status mf_settle(const kl_args *a, const geometry *g, int64_t k) {
  if (k % 2 == 0) return KL_OK;
  mf_settle_kernel<<<g->row_blocks, BLOCK, 0, g->s>>>(
      VEC(a, CG_X), VEC(a, CG_AP), SCALARS(a), g->rows);
  KL_GPU_CHECK_LAUNCH(mf_settle_kernel);
  return KL_OK;
}

static const device_rung mf_rung = {mf_start, mf_iterations, NULL,
                                     mf_settle};

static kl_status matrix_free_solve(const kl_args *a, const geometry *g,
                                   int64_t *k) {
  return device_solve(a, g, &mf_rung, k);
}

/* ---- the rungs ---------------------------------------------------------- */

/* What every rung checks first: the scratch it reads, and a probed GPU
 * (the row groups and the matrix-free tiles are sized by its warp). */
static kl_status ready(const kl_args *a) {
  if (kl__gpu_warp_size() < 4)
    return KL_FAIL(KL_DEVICE, "cg: the GPU's warp size is not known (%d)",
                   kl__gpu_warp_size());
  return require_scratch(a);
}

extern "C" kl_status kl__cg_gpu_copied(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  KL_TRY(mirror_of(a, &g));
  return repeat(a, reps, &g, copied_x0, copied_solve);
}

extern "C" kl_status kl__cg_gpu_resident(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, resident_solve);
}

extern "C" kl_status kl__cg_gpu_vector(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, vector_solve);
}

extern "C" kl_status kl__cg_gpu_stream(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, stream_solve);
}

extern "C" kl_status kl__cg_gpu_fused(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, fused_solve);
}

extern "C" kl_status kl__cg_gpu_device_scalars(const kl_args *a,
                                               kl_reps *reps) {
  KL_TRY(ready(a));
  const geometry g = geometry_of(a);
  return repeat(a, reps, &g, NULL, device_scalars_solve);
}

extern "C" kl_status kl__cg_gpu_graph(const kl_args *a, kl_reps *reps) {
  KL_TRY(ready(a));
  geometry g = geometry_of(a);
  KL_TRY(ensure_graph(a, &g, scalar_iterations));
  return repeat(a, reps, &g, NULL, device_scalars_solve);
}

extern "C" kl_status kl__cg_gpu_pipelined(const kl_args *a, kl_reps *reps) {
  const int64_t rows = CG_ROWS(a->plan);
  KL_TRY(ready(a));
  KL_TRY(require(a, CG_W, rows, "w (kl__cg_gpu_pipelined_scratch)"));
  KL_TRY(require(a, CG_Z, rows, "z (kl__cg_gpu_pipelined_scratch)"));
  KL_TRY(require(a, CG_S, rows, "s (kl__cg_gpu_pipelined_scratch)"));
  geometry g = geometry_of(a);
  KL_TRY(ensure_graph(a, &g, pipe_iterations));
  return repeat(a, reps, &g, NULL, pipelined_solve);
}

extern "C" kl_status kl__cg_gpu_matrix_free(const kl_args *a,
                                            kl_reps *reps) {
  const kl_plan *p = a->plan;
  if (!CG_IS_GRID(p) || CG_ROWS(p) != CG_N(p) * CG_N(p) * CG_N(p))
    return kl__usage(KL_UNAVAILABLE, "cg: cuda-matrix-free needs a grid "
                     "(a stencil), not a matrix");
  KL_TRY(ready(a));
  geometry g = mf_geometry_of(a);
  KL_TRY(ensure_graph(a, &g, mf_iterations));
  return repeat(a, reps, &g, NULL, matrix_free_solve);
}

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
