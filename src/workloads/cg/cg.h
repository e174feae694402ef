/* cg: the conjugate gradient solve of A x = b (seed 003), double
 * precision, A symmetric positive definite in CSR: the 3D Poisson matrix
 * of the seed on an n x n x n grid (27-point: 27 on the diagonal, -1 for
 * each neighbour inside the grid; 7-point: 6 and -1), a Matrix Market file
 * (--matrix FILE), or kl_cg's caller's matrix.
 *
 * Layout. Rows are grid points, x fastest: row i + n (j + n k). Row
 * offsets are int64 (the 27-point matrix passes 2^31 nonzeros from
 * n = 431 on), column indices int32 (rows < 2^31), sorted within a row.
 *
 * The solve, as every rung makes it (the seed's algorithm):
 *   r = b - A x0, p = r, rr = r.r, bb = b.b, k = 0
 *   while cg_go_on(k, rr, bb):
 *     Ap = A p; pAp = p.Ap             (pAp <= 0 or not finite: stop,
 *                                        the matrix is not SPD: KL_USAGE)
 *     alpha = rr / pAp
 *     x += alpha p; r -= alpha Ap
 *     rr' = r.r; beta = rr' / rr; p = r + beta p; rr = rr'; k++
 * A rung may reorder, fuse or pipeline these steps (cuda-pipelined is
 * Ghysels and Vanroose's), but stops by the same rule: tolerance mode
 * stops at the first k with |r| <= tol |b| (rr <= tol^2 bb) or at maxit,
 * fixed mode after maxit iterations; both stop where rr = 0 (an exact
 * solution, and nothing left to divide by). x0 is the plan's x as
 * restored before every repetition (zero). The rung writes info:
 * [0] the iterations k, [1] its own |r| / |b| at the end (0 where b = 0);
 * and counts[CG_COUNT_ITERATIONS] = k for the cost model.
 *
 * The check: the true residual |b - A x| / |b| recomputed on the host in
 * long double (cg.c says the bound), and k against a reference solve's. */
#ifndef KL_CG_H
#define KL_CG_H

#include "../../core/internal.h"

/* The plan's buffers: the matrix in CSR (in), b (in), x (inout, restored
 * to x0 = 0 before every repetition), info (out, 2 doubles). Then the
 * rungs' scratch: r, p and Ap (every rung); w, z, s (cuda-pipelined);
 * device scalars and reduction partials (the GPU rungs); the host mirror
 * of cuda-copied. A rung without a matrix (cuda-matrix-free) plans the
 * CSR buffers with no elements. */
enum {
  CG_OFFSETS, /* int64, rows + 1 */
  CG_COLUMNS, /* int32, nnz */
  CG_VALUES,  /* f64, nnz */
  CG_B,       /* f64, rows */
  CG_X,       /* f64, rows */
  CG_INFO,    /* f64, CG_INFO_COUNT */
  CG_R,
  CG_P,
  CG_AP,
  CG_SCALARS,  /* f64, CG_SCALAR_COUNT: device-resident scalars */
  CG_PARTIALS, /* f64, CG_PARTIAL_COUNT: per-block partial sums */
  CG_W,        /* cuda-pipelined: w = A r, z = A s, s = A p */
  CG_Z,
  CG_S,
  CG_MIRROR = CG_W, /* cuda-copied: its host copy of every array (u8) */
  /* cuda-sell: the matrix in sliced ELLPACK (below) */
  CG_SELL_VALUES = CG_W,  /* f64, kl__cg_sell_slices' entries */
  CG_SELL_COLUMNS = CG_Z, /* int32, as many */
  CG_SELL_OFFSETS = CG_S, /* int64, slices + 1 */
  /* opencl-sell: its SpMV's group partials as the host reads them (f64,
   * CG_TILE_BLOCKS, pageable); the OpenCL rungs keep no device scalars */
  CG_READ_BACK = CG_SCALARS,
};
enum { CG_INFO_ITERATIONS, CG_INFO_RESIDUAL, CG_INFO_COUNT };
#define CG_SCALAR_COUNT 32
/* Room for two reductions of up to CG_MAX_BLOCKS block partials each, at
 * up to four sums per block. The grids over tiles (cuda-sell's, the
 * matrix-free sweeps') stop at CG_TILE_BLOCKS, as they were tuned; the
 * CSR lanes' SpMV takes its blocks of a few thousand entries up to the
 * room (cg-gpu.h). */
#define CG_MAX_BLOCKS 65536
#define CG_TILE_BLOCKS 16384
#define CG_PARTIAL_COUNT (2 * 4 * CG_MAX_BLOCKS)

/* The parameters, in the workload's order. */
enum {
  CG_P_N,
  CG_P_STENCIL,
  CG_P_NNZ,
  CG_P_MODE,
  CG_P_TOL,
  CG_P_MAXIT,
  CG_P_BATCH,
  CG_P_PLANES
};
enum { CG_STENCIL_27, CG_STENCIL_7, CG_STENCIL_NONE };
enum { CG_TOLERANCE, CG_FIXED };
#define CG_N(p) ((int64_t)(p)->value[CG_P_N])
#define CG_STENCIL(p) ((int)(p)->value[CG_P_STENCIL])
#define CG_MODE(p) ((int)(p)->value[CG_P_MODE])
#define CG_TOL(p) ((p)->value[CG_P_TOL])
#define CG_MAXIT(p) ((int64_t)(p)->value[CG_P_MAXIT])
/* The device-scalar GPU rungs' iterations between two reads of the stop
 * flag (a tuning: cg-gpu.h). */
#define CG_BATCH(p) ((int)(p)->value[CG_P_BATCH])
#define CG_BATCH_DEFAULT 16
/* The planes a tile of cuda-matrix-free's sweeps (a tuning: one instance
 * of each sweep for each count from CG_PLANES_MIN to CG_PLANES_MAX,
 * cg-matrix-free.h). */
#define CG_PLANES(p) ((int)(p)->value[CG_P_PLANES])
#define CG_PLANES_MIN 3
#define CG_PLANES_MAX 4
#define CG_PLANES_DEFAULT 3
/* Rows and nonzeros as planned (for a rung without a matrix too). */
#define CG_ROWS(p) ((p)->buffers[CG_B].count)
#define CG_NNZ(p) ((int64_t)(p)->value[CG_P_NNZ])
/* The grid's edge where the matrix is a stencil (n^3 rows). */
#define CG_IS_GRID(p) (CG_STENCIL(p) != CG_STENCIL_NONE)

/* What the cost model counts per iteration, by the rung's variant: the
 * matrix once (offsets, columns, values) plus these passes over f64
 * vectors of `rows` elements (cg.c, cost()). */
enum {
  CG_UNFUSED,     /* the seed's kernels: 14 passes */
  CG_FUSED,       /* SpMV + p.Ap; x, r and r.r; p: 11 passes */
  CG_PIPELINED,   /* SpMV, then one update with both dots: 15 passes */
  CG_MATRIX_FREE, /* no matrix; p in the stencil, x every other: 7 passes */
  CG_SELL,        /* fused's passes, the matrix in sliced ELLPACK: 11 */
};

/* Sliced ELLPACK (SELL-C, Kreutzer et al.), cuda-sell's form of the
 * matrix: rows in slices of CG_SELL_HEIGHT; slice s holds its rows'
 * entries column by column, as many columns as its longest row, so that
 * entry e of the slice's row r lies at offsets[s] + e * CG_SELL_HEIGHT +
 * r. A shorter row is padded with value 0 at its own column. The height
 * is the format's, not a warp's: any lane count reads a slice's column
 * in runs of CG_SELL_HEIGHT elements. */
#define CG_SELL_HEIGHT 32
/* The slices of `rows` rows. */
#define CG_SELL_SLICES(rows) (((rows) + CG_SELL_HEIGHT - 1) / CG_SELL_HEIGHT)

/* The blocks (OpenCL groups) of `threads` threads the sliced SpMV takes
 * over `rows` rows, each a run of whole tiles of `threads` rows in address
 * order, each block once (cuda-sell, opencl-sell): a block enough tiles
 * for CG_SELL_BLOCK_ENTRIES entries at the mean row length, more where
 * the tiles would outnumber CG_TILE_BLOCKS blocks. A block of short rows
 * (5 a row, one tile) spent more on its start, its sum and its partial
 * than on its loads; a grid of long-lived blocks striding over the rows
 * lost two points (LESSONS.md, cuda-sell and opencl-sell). The kernels
 * find a block's tiles from the count. */
#define CG_SELL_BLOCK_ENTRIES 4096
static inline int64_t cg_sell_blocks(int64_t rows, int64_t nnz, int threads) {
  const int64_t tiles = (rows + threads - 1) / threads;
  const int64_t mean = rows > 0 && nnz / rows > 1 ? nnz / rows : 1;
  const int64_t least =
      (CG_SELL_BLOCK_ENTRIES + threads * mean - 1) / (threads * mean);
  int64_t per = (tiles + CG_TILE_BLOCKS - 1) / CG_TILE_BLOCKS;
  if (per < least) per = least;
  return (tiles + per - 1) / per;
}

/* The CSR lanes' SpMV (cg-gpu.h, cuda-csr-lanes to cuda-graph): a group of
 * lanes takes a row, each lane a run of up to CG_LANE_RUN consecutive
 * entries, loaded before the first product; a row takes rounds of lanes *
 * CG_LANE_RUN entries. The lanes: the fewest, a power of two up to 32,
 * whose round holds the mean row (4 for the 27-point matrix, 26.7 a row
 * at 201^3; 1 for the 7-point one). A matrix with a row longer than
 * CG_LANE_ROUNDS rounds gets 0, the stream kernel, whose block shares a
 * long row among its threads: a group alone on it would hold its block
 * for as many rounds. */
#define CG_LANE_RUN 7
#define CG_LANE_ROUNDS 8
static inline int cg_lanes(int64_t rows, int64_t nnz, int64_t longest) {
  int lanes = 1;
  while (lanes < 32 && (double)lanes * CG_LANE_RUN * (double)rows <
                           (double)nnz)
    lanes *= 2;
  return longest <= (int64_t)CG_LANE_ROUNDS * lanes * CG_LANE_RUN ? lanes
                                                                   : 0;
}
/* The tiles of threads / lanes rows each block of the lanes' SpMV takes:
 * about CG_LANE_BLOCK_ENTRIES entries at the mean row length, more where
 * the tiles would outnumber CG_MAX_BLOCKS blocks. At 201^3 on the H200,
 * blocks of 2048 to 5120 entries ran within two points of each other,
 * 14 000 four to five points slower (LESSONS.md, cuda-csr-lanes). */
#define CG_LANE_BLOCK_ENTRIES 4096
static inline int64_t cg_lane_tiles_per_block(int64_t rows, int64_t nnz,
                                              int lanes, int threads) {
  const int64_t tile_rows = threads / lanes;
  const int64_t tiles = (rows + tile_rows - 1) / tile_rows;
  const double tile_entries =
      rows > 0 ? (double)tile_rows * (double)nnz / (double)rows : 0;
  int64_t per = tile_entries > 0
                    ? (int64_t)(CG_LANE_BLOCK_ENTRIES / tile_entries + 0.5)
                    : 1;
  if (per < 1) per = 1;
  const int64_t least = (tiles + CG_MAX_BLOCKS - 1) / CG_MAX_BLOCKS;
  return per > least ? per : least;
}

/* The parameters cg-dist shares with cg, as designated initializers:
 * the mode, the tolerance and the iterations (their choices,
 * kl__cg_modes, in cg.c). */
extern const char *const kl__cg_modes[];
#define CG_PARAM_MODE                                                         \
  {.name = "mode", .kind = KL_PARAM_CHOICE,                                   \
   .help = "tolerance: to |r| <= tol |b| or maxit; fixed: maxit iterations",  \
   .default_value = CG_TOLERANCE, .choices = kl__cg_modes}
#define CG_PARAM_TOL                                                          \
  {.name = "tol", .kind = KL_PARAM_REAL,                                      \
   .help = "the relative residual tolerance mode stops at",                   \
   .default_value = 1e-10, .min = 1e-15, .max = 0.5}
#define CG_PARAM_MAXIT                                                        \
  {.name = "maxit", .kind = KL_PARAM_SIZE,                                    \
   .help = "iterations in fixed mode; the cap in tolerance mode",             \
   .default_text = "100 fixed, 10000 tolerance (a matrix file: 20 a row, "   \
                   "at least 10000)", .min = 1, .max = 1e9}

/* Counts the rungs report. */
enum { CG_COUNT_ITERATIONS };

#if defined(__CUDACC__) || defined(__HIPCC__)
#define CG_HD __host__ __device__
#else
#define CG_HD
#endif

/* Whether the solve goes on after k iterations with r.r = rr, b.b = bb:
 * the one stopping rule of every rung. tol2 = tol^2; fixed: the mode is
 * CG_FIXED. */
static inline CG_HD int cg_go_on(int64_t k, int64_t maxit, int fixed,
                                 double tol2, double rr, double bb) {
  if (k >= maxit || !(rr > 0)) return 0;
  return fixed || rr > tol2 * bb;
}
#define CG_GO_ON(p, k, rr, bb)                                                \
  cg_go_on((k), CG_MAXIT(p), CG_MODE(p) == CG_FIXED, CG_TOL(p) * CG_TOL(p),   \
           (rr), (bb))

#ifdef __cplusplus
extern "C" {
#endif
/* The plan's own buffers (cg-problem.c), cg's and cg-dist's: the CSR of
 * `rows` rows and `nnz` nonzeros, b, x (restored to x0 before every
 * repetition) and info. */
void kl__cg_plan_buffers(kl_plan *p, int64_t rows, int64_t nnz);
/* The error of a breakdown: p.Ap <= 0 (or not finite) at iteration k
 * (cg-problem.c). */
kl_status kl__cg_not_spd(double pAp, int64_t k);

/* Scratch hooks (cg-problem.c): r, p, Ap; and the GPU rungs' scalars and
 * partials; pipelined's w, z, s; cuda-copied's host mirror; the
 * matrix-free rung's empty matrix. */
kl_status kl__cg_host_scratch(kl_plan *p);
kl_status kl__cg_gpu_scratch(kl_plan *p);
kl_status kl__cg_gpu_pipelined_scratch(kl_plan *p);
kl_status kl__cg_gpu_copied_scratch(kl_plan *p);
kl_status kl__cg_gpu_matrix_free_scratch(kl_plan *p);
/* cuda-copied's host mirror: the bytes of every array, each at a 256-byte
 * boundary, in the order offsets, columns, values, b, x, r, p, Ap. */
int64_t kl__cg_mirror_bytes(const kl_plan *p, int64_t offset_of[8]);

/* The host rungs (cg-omp.c): the serial solve and the OpenMP one, both
 * cg-host.c's solve, which also makes the check's reference solve
 * (OpenMP where built with it). */
kl_status kl__cg_serial(const kl_args *a, kl_reps *reps);
kl_status kl__cg_omp(const kl_args *a, kl_reps *reps);

/* The OpenACC rungs (cg-acc.c), and the copying rungs' scratch: every
 * buffer in pageable host memory. */
kl_status kl__cg_acc_host_scratch(kl_plan *p);
kl_status kl__cg_acc_waxpby(const kl_args *a, kl_reps *reps);
kl_status kl__cg_acc_waxpby_dot(const kl_args *a, kl_reps *reps);
kl_status kl__cg_acc_copied(const kl_args *a, kl_reps *reps);
kl_status kl__cg_acc_data(const kl_args *a, kl_reps *reps);
kl_status kl__cg_acc_tuned(const kl_args *a, kl_reps *reps);

/* The OpenCL rungs (cg-cl.c, cg.cl): the seed's three kernels in the host
 * solve's loop, opencl-fused's SpMV with p.Ap and update with r.r,
 * opencl-stream's SpMV streamed through local memory, and opencl-sell's
 * on the sliced matrix (its scratch room for more partials, their host
 * copy, and the slices). */
kl_status kl__cg_cl(const kl_args *a, kl_reps *reps);
kl_status kl__cg_cl_setup(kl_args *a);
kl_status kl__cg_cl_scratch(kl_plan *p);
kl_status kl__cg_cl_fused(const kl_args *a, kl_reps *reps);
kl_status kl__cg_cl_fused_setup(kl_args *a);
kl_status kl__cg_cl_stream(const kl_args *a, kl_reps *reps);
kl_status kl__cg_cl_stream_setup(kl_args *a);
kl_status kl__cg_cl_sell(const kl_args *a, kl_reps *reps);
kl_status kl__cg_cl_sell_setup(kl_args *a);
kl_status kl__cg_cl_sell_scratch(kl_plan *p);

/* The CUDA ladder, in order (cg-gpu.h has what its files share), and the
 * vendor rung. Every one owns its loop (run_reps). */
/* cg-cuda.cu: the seed's solve, each dot read by the host; and every CUDA
 * rung's setup and teardown. */
kl_status kl__cg_gpu_copied(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_resident(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_vector(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_stream(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_lanes(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_setup(kl_args *a);
void kl__cg_gpu_teardown(kl_args *a);
/* cg-fused-cuda.cu: the fused kernels, the scalars on the host or the
 * device, and the device's batch as a graph. */
kl_status kl__cg_gpu_fused(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_device_scalars(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_graph(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_sell(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_sell_setup(kl_args *a);
/* cg-pipelined-cuda.cu and cg-matrix-free-cuda.cu. */
kl_status kl__cg_gpu_pipelined(const kl_args *a, kl_reps *reps);
kl_status kl__cg_gpu_matrix_free(const kl_args *a, kl_reps *reps);
/* The vendor rung (cg-cusparse.cu). */
kl_status kl__cg_cusparse(const kl_args *a, kl_reps *reps);
kl_status kl__cg_cusparse_setup(kl_args *a);
void kl__cg_cusparse_teardown(kl_args *a);
/* The built-in stencil's matrix on an n^3 grid in sliced ELLPACK: the
 * entries its slices hold, padding included, and where offsets is not
 * NULL each slice's first entry (offsets[0 .. CG_SELL_SLICES(n^3)])
 * (cg-problem.c). */
int64_t kl__cg_sell_slices(int64_t n, int stencil, int64_t *offsets);
/* The entries cuda-sell's scratch holds for plan p's matrix: the built-in
 * stencil's slices exactly; for a matrix of its own, the sliced matrix
 * at most 1/CG_SELL_SLACK larger than its CSR (12 bytes an entry, 8 a row
 * offset). Set where the CSR stream read its matrix at 0.84 of the copy
 * and the slices theirs at 0.98 (LESSONS.md, cuda-sell): up to that much
 * padding the slices moved the matrix sooner; past it the rung stands
 * aside in its setup. The CSR lanes read at about 0.915 (cuda-csr-lanes),
 * which moves the even point to about 1/14 on the matrix alone; not yet
 * measured on matrices padded between the two. */
#define CG_SELL_SLACK 8
int64_t kl__cg_sell_room(const kl_plan *p);
/* The room for a matrix of its own of `rows` rows and nnz entries. */
int64_t kl__cg_sell_room_csr(int64_t rows, int64_t nnz);
/* The sliced matrix's scratch (CG_SELL_*), kl__cg_sell_room's entries;
 * cuda-sell's: kl__cg_gpu_scratch's and the sliced matrix. */
kl_status kl__cg_sell_scratch(kl_plan *p);
kl_status kl__cg_gpu_sell_scratch(kl_plan *p);
/* cusparse's scratch: kl__cg_gpu_scratch's, the SpMV buffer (CG_W, u8)
 * and 32-bit row offsets (CG_Z, i32; one element above 2^31 nonzeros). */
kl_status kl__cg_cusparse_scratch(kl_plan *p);
#ifdef __cplusplus
}
#endif

#endif
