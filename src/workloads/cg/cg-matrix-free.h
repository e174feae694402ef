/* The matrix-free sweeps of cg's Poisson stencil (cg-gpu.h has the whole
 * ladder): cg's cuda-matrix-free (cg-matrix-free-cuda.cu) runs them on
 * its grid; cg-dist's GPU rungs (cg-dist-cuda.cu) on a rank's box, the
 * layered sweeps reading the neighbours' points from a layer around it.
 * The kernels and their launches. */
#ifndef KL_CG_MATRIX_FREE_H
#define KL_CG_MATRIX_FREE_H

#include "cg-gpu.h"
#include "cg-tiles.h"

#include <limits.h>

/* ---- the sweeps ------------------------------------------------------- */

/* A block takes a tile of the grid: warpSize - 2 columns (each warp's
 * lanes hold one column more on either side, the x neighbours reached by
 * shuffles), MF_ROWS rows a warp with the block's warps stacked in y (each
 * lane loads MF_ROWS + 2 rows, so a warp's halo rows are its neighbour
 * warps' own rows, found in L1), and PLANES planes, which the lanes march
 * along z: each plane loaded serves as the z neighbour of the planes
 * before and after. No shared memory and no barrier. The plain sweeps
 * take cg's tuning `planes` (an instance for each count), the layered
 * ones MF_PLANES.
 *
 * The blocks take the tiles in address order, one tile a block (a stride
 * only where the tiles outnumber CG_TILE_BLOCKS), so that the GPU sweeps
 * memory in order as a copy does (laplacian's LESSONS.md). Before
 * any store a lane loads its own points' other inputs (x and r, or b) for
 * the whole tile: loads after a store to a vector that might alias them
 * would wait for each plane in turn.
 *
 * The 27-point sum is a 3x3x3 box: 27 q_i - (the 26 neighbours) = 28 q_i -
 * box(q), and a box is a sum of three planes' 3x3 sums, each the sum of
 * three rows' x-sums. The 7-point: 6 q_i - the four in the plane - the
 * centres of the planes above and below. Points outside the grid count as
 * zero: exactly the truncated rows of the CSR matrix. The shape was tuned
 * on the H100 (LESSONS.md, "what did not work").
 *
 * The sweeps and the final sums are launched early (KL_GPU_LAUNCH): a
 * sum's one block is scheduled during its sweep's last wave and waits
 * there, and the next sweep's blocks are scheduled while the sum runs.
 *
 * Two instances of each sweep. The plain one covers a cube of n^3 points
 * that is the whole grid (cg's), exactly as tuned. The layered one
 * (cg-dist's ranks) covers a box of nx x ny x nz points of a larger grid,
 * and reads a point outside the box from a layer around it
 * (mf_layer_value), where the plain sweep reads 0. */
#ifndef CG_EARLY /* -D for tuning: 0 launches every kernel the usual way */
#define CG_EARLY 1
#endif
#ifndef MF_BLOCK /* -D for tuning */
#define MF_BLOCK 128
#endif
#ifndef MF_ROWS
#define MF_ROWS 4
#endif
#ifndef MF_PLANES /* the plain sweeps' default, the layered ones' count */
#define MF_PLANES CG_PLANES_DEFAULT
#endif
static_assert(MF_PLANES >= CG_PLANES_MIN && MF_PLANES <= CG_PLANES_MAX,
              "the default count is one of the plain sweeps' instances");

/* The sweeps: the start; A, the new p; B, an even iteration's (r only)
 * or an odd one's (x for both iterations, and r). */
enum { MF_START, MF_DIRECTION, MF_RESIDUAL, MF_UPDATE };

/* An odd iteration j recovers p_(j-1) = (p_j - r_j) / beta_j from the
 * values it has, where beta_j is at least this; below it, it reads p_(j-1)
 * from its buffer. The recovered p_(j-1) carries an error of about
 * u |r_j| / beta_j, at most 1 / sqrt(beta_j) = 4 times that of a stored
 * p (|p_(j-1)| >= |r_(j-1)| = |r_j| / sqrt(beta_j)). */
#define MF_RECOVER_BETA 0.0625

/* The box's tiles; n its extent along x (the plain sweeps': along every
 * axis). */
typedef struct mf_grid {
  int64_t n, tiles_x, tiles_y, tiles;
} mf_grid;

/* The layered sweeps' box (its extents) and the layer around it: the box
 * with one point more on every side, (nx + 2)(ny + 2)(nz + 2) points, x
 * fastest, whose layer holds the neighbours' points and 0 outside the
 * grid (its points inside the box are not read). A parameter after the
 * others, so that the plain sweeps' are where they were. */
typedef struct mf_layer {
  int64_t n[3];
  const double *values;
  /* The sides with a neighbour, whose layer holds its points: bit 2i for
   * the low side along axis i, 2i + 1 the high one. Past any other side
   * the layer is 0, as the plain sweep reads there. */
  int open;
  /* The inner tiles (mf_tile_on_edge false): tiles lo[i] .. hi[i] - 1
   * along axis i, a box of tiles; the edge tiles the shell around it
   * (cg-tiles.h). Edge launches that scanned every tile for theirs took
   * 55 us for 144 tiles (LESSONS.md, cg-dist cuda-nccl-overlap). */
  int lo[3], hi[3];
  /* The inner box's tiles and the shell's; in a launch of both kinds
   * (MF_TILES_BOTH), the blocks that take the shell's, the first ones. */
  int64_t inner_tiles, edge_tiles;
  int edge_blocks;
} mf_layer;

/* The tiles a launch of a sweep covers: every one (the plain sweep's); a
 * layered box's inner ones, which read no point past a side with a
 * neighbour and so load as the plain sweep does, with its code alone; its
 * edge ones, which read the layer (mf_tile_on_edge); or both, each block
 * running one kind's code. One code for every tile had the layer's loads
 * in every tile's code: the layered sweep A took 1.75x the plain one's
 * time for the same bytes (LESSONS.md, "what did not work"). */
enum { MF_TILES_ALL, MF_TILES_INNER, MF_TILES_EDGE, MF_TILES_BOTH };

/* Whether a tile of a layered box of nx x ny x nz points reads a point
 * past a side with a neighbour (`open`, mf_layer's): its lanes read x0 ..
 * x0 + warp - 1 (x0 = tx (warp - 2) - 1), its rows y0 - 1 .. y0 + rows
 * (y0 = ty rows, rows = the block's warps times MF_ROWS), its planes k0 -
 * 1 .. k0 + MF_PLANES (k0 = tz MF_PLANES). Along each axis such tiles are
 * the first and the last ones: the host finds the inner box of tiles
 * (mf_layer_of). */
static inline bool
mf_tile_on_edge(int open, int x0, int y0, int k0, int nx, int ny, int nz,
                int warp, int rows) {
  return ((open & 1) && x0 < 0) || ((open & 2) && x0 + warp > nx) ||
         ((open & 4) && y0 < 1) || ((open & 8) && y0 + rows + 1 > ny) ||
         ((open & 16) && k0 < 1) ||
         ((open & 32) && k0 + MF_PLANES + 1 > nz);
}

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

/* The layered sweeps: point (x, y, z) of the box's coordinates, outside
 * the box, from the layer; 0 beyond the layer. Cheap to index: read from
 * the neighbours' regions where they arrived (cg-dist.h's layout), the
 * sweeps took 94-96 registers (A) and 177-178 (B odd); from the layered
 * box 63-70 and 148-168, the plain sweeps 56-64 and 128-153 (ptxas,
 * CUDA 13, sm_90, 7 and 27 points). */
static __device__ __forceinline__ double
mf_layer_value(const mf_layer &layer, int x, int y, int z) {
  if (x < -1 || x > layer.n[0] || y < -1 || y > layer.n[1] || z < -1 ||
      z > layer.n[2])
    return 0;
  return layer.values[(x + 1) + (layer.n[0] + 2) *
                                    ((y + 1) + (layer.n[1] + 2) *
                                                   (int64_t)(z + 1))];
}

/* A block's tiles of one kind (TILES: every tile, the inner ones or the
 * edge ones): from the block's place among the launch's blocks of that
 * kind, striding by their count, its sums into *sum0 and *sum1. */
template <int MODE, int STENCIL, bool LAYERED, int TILES, int PLANES>
static __device__ __forceinline__ void
mf_tiles(const mf_grid &g, const mf_vectors &v, const double *scalars,
         const mf_layer &layer, int64_t block, int64_t blocks,
         int64_t tiles, double *sum0_, double *sum1_) {
  const double beta = MODE == MF_DIRECTION ? scalars[S_BETA] : 0;
  const double alpha =
      MODE == MF_UPDATE || MODE == MF_RESIDUAL ? scalars[S_ALPHA] : 0;
  double c[3] = {0, 0, 0};
  const bool read_previous = MODE == MF_UPDATE && mf_x_update(scalars, c);
  const double diagonal = STENCIL == CG_STENCIL_27 ? 28 : 6;
  const int lane = threadIdx.x % warpSize, width = warpSize - 2;
  const int warp = threadIdx.x / warpSize, warps = blockDim.x / warpSize;
  /* Coordinates in int (a box's points fit in memory, so each extent is
   * below 2^31); the indices in int64. */
  const int n = (int)g.n;
  const int ny = LAYERED ? (int)layer.n[1] : n;
  const int nz = LAYERED ? (int)layer.n[2] : n;
  const int64_t row = n, plane = (int64_t)n * ny;
  enum { INPUTS = MODE == MF_UPDATE ? 3 : MODE == MF_DIRECTION ? 0 : 1 };
  double sum0 = 0, sum1 = 0;
  for (int64_t b = block; b < tiles; b += blocks) {
    /* Sweep B goes backwards: its first tiles are the ones A touched
     * last, still in L2. */
    const int64_t j =
        MODE == MF_UPDATE || MODE == MF_RESIDUAL ? tiles - 1 - b : b;
    int at[3]; /* the tile's coordinates in tiles */
    if (TILES == MF_TILES_ALL) {
      at[0] = (int)(j % g.tiles_x);
      at[1] = (int)(j / g.tiles_x % g.tiles_y);
      at[2] = (int)(j / (g.tiles_x * g.tiles_y));
    } else if (TILES == MF_TILES_INNER) {
      cg_inner_tile(layer.lo, layer.hi, (int)j, at);
    } else {
      cg_shell_tile(layer.lo, layer.hi, (int)g.tiles_x, (int)g.tiles_y,
                    (int)j, at);
    }
    const int x = at[0] * width - 1 + lane;
    const int y0 = (at[1] * warps + warp) * MF_ROWS;
    const int k0 = at[2] * PLANES;
    const bool in_x = x >= 0 && x < n;
    const bool owns = in_x && lane > 0 && lane <= width;
    /* Point (x, y0, k0): the tile's first own point. */
    const int64_t first = x + row * y0 + plane * k0;
    double in[PLANES][MF_ROWS][INPUTS > 0 ? INPUTS : 1];
    if (INPUTS > 0) {
#pragma unroll
      for (int z = 0; z < PLANES; z++)
#pragma unroll
        for (int m = 0; m < MF_ROWS; m++)
          if (owns && y0 + m < ny && k0 + z < nz)
            mf_inputs<MODE>(v, first + row * m + plane * z, read_previous,
                            in[z][m]);
    }
    /* For the plane before: D q - own - what the plane before it gave,
     * waiting for what this plane gives; its q; what it gives the next. */
    double pending[MF_ROWS], centre[MF_ROWS], below[MF_ROWS];
#pragma unroll
    for (int m = 0; m < MF_ROWS; m++) pending[m] = centre[m] = below[m] = 0;
#pragma unroll
    for (int j = 0; j < PLANES + 2; j++) {
      const int k = k0 - 1 + j;
      const bool in_z = k >= 0 && k < nz;
      double rows[MF_ROWS + 2];
#pragma unroll
      for (int d = 0; d < MF_ROWS + 2; d++) {
        const int y = y0 - 1 + d;
        rows[d] = 0;
        if (in_z && in_x && y >= 0 && y < ny)
          rows[d] = mf_source<MODE>(
              v, first + row * (d - 1) + plane * (j - 1), beta);
        else if (LAYERED && TILES != MF_TILES_INNER)
          rows[d] = mf_layer_value(layer, x, y, k);
      }
      double own[MF_ROWS], beside[MF_ROWS];
      mf_plane<STENCIL>(rows, own, beside);
      if (j >= 2) {
#pragma unroll
        for (int m = 0; m < MF_ROWS; m++)
          if (owns && y0 + m < ny && k - 1 < nz)
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
  *sum0_ = sum0;
  *sum1_ = sum1;
}

/* A sweep's launch: its tiles of one kind (TILES), or of both
 * (MF_TILES_BOTH: the first layer.edge_blocks blocks the edge tiles, so
 * that they run beside the inner ones rather than after them). Sweep A
 * of both kinds takes 80 registers (6 blocks an SM); held to 7 blocks
 * (72, 36 bytes spilled) it ran no faster (LESSONS.md). */
template <int MODE, int STENCIL, bool LAYERED, int TILES, int PLANES>
static __global__ __launch_bounds__(MF_BLOCK) void stencil_kernel(
    mf_grid g, mf_vectors v, const double *scalars, double *partials,
    mf_layer layer) {
  /* The final sum after this sweep may be scheduled now: it waits. */
  kl_gpu_start_next();
  /* Reading the own-point inputs before the wait, behind the final sum
   * before this sweep, was slower (LESSONS.md, early launches). */
  kl_gpu_wait_prior();
  if (MODE != MF_START && stopped(scalars)) return;
  double sum0 = 0, sum1 = 0;
  if (TILES == MF_TILES_BOTH) {
    if ((int)blockIdx.x < layer.edge_blocks)
      mf_tiles<MODE, STENCIL, true, MF_TILES_EDGE, PLANES>(
          g, v, scalars, layer, blockIdx.x, layer.edge_blocks,
          layer.edge_tiles, &sum0, &sum1);
    else
      mf_tiles<MODE, STENCIL, true, MF_TILES_INNER, PLANES>(
          g, v, scalars, layer, blockIdx.x - layer.edge_blocks,
          gridDim.x - layer.edge_blocks, layer.inner_tiles, &sum0, &sum1);
  } else {
    mf_tiles<MODE, STENCIL, LAYERED, TILES, PLANES>(
        g, v, scalars, layer, blockIdx.x, gridDim.x,
        TILES == MF_TILES_ALL     ? g.tiles
        : TILES == MF_TILES_INNER ? layer.inner_tiles
                                  : layer.edge_tiles,
        &sum0, &sum1);
  }
  store_partial(sum0, PARTIAL(partials, 0));
  if (MODE == MF_START) store_partial(sum1, PARTIAL(partials, 1));
}

/* x += alpha p: the last iteration's step, where it was even. Used by
 * each includer. */
__attribute__((unused)) static __global__ void
mf_settle_kernel(double *__restrict__ x, const double *__restrict__ p,
                 const double *scalars, int64_t rows) {
  const double alpha = scalars[S_ALPHA];
  for (int64_t i = thread_index(); i < rows; i += grid_threads())
    x[i] += alpha * p[i];
}

/* ---- the launches ------------------------------------------------------ */

/* The geometry's planes a tile: cg's tuning where its plan gave one
 * (geometry_of), else MF_PLANES (cg-dist's boxes). */
static inline int mf_planes(const geometry *g) {
  return g->planes ? g->planes : MF_PLANES;
}

/* The tiles of the geometry's box for the context's device's warp. */
static inline mf_grid mf_grid_of(const kl_args *a, const geometry *g,
                                 unsigned *blocks) {
  const int planes = mf_planes(g);
  mf_grid t;
  const int warp = a->ctx->device.lanes;
  const int64_t rows = MF_BLOCK / warp * MF_ROWS; /* a tile's */
  t.n = g->extent[0];
  t.tiles_x = (t.n + warp - 3) / (warp - 2);
  t.tiles_y = (g->extent[1] + rows - 1) / rows;
  t.tiles = t.tiles_x * t.tiles_y *
            ((g->extent[2] + planes - 1) / planes);
  /* A block a tile, up to CG_TILE_BLOCKS blocks; then the blocks stride
   * over the tiles. */
  *blocks = (unsigned)(t.tiles < 1                ? 1
                       : t.tiles > CG_TILE_BLOCKS ? CG_TILE_BLOCKS
                                                  : t.tiles);
  return t;
}

/* The layered box's layer, its open sides and its inner box of tiles
 * (lo = hi = 0 along every axis where it has none) for the context's
 * device's warp. */
static inline mf_layer mf_layer_of(const kl_args *a, const geometry *g,
                                   const mf_grid &t) {
  mf_layer l;
  for (int i = 0; i < 3; i++) l.n[i] = g->extent[i];
  l.values = g->layer;
  l.open = 0;
  for (int i = 0; i < 3; i++) {
    if (g->start[i] > 0) l.open |= 1 << (2 * i);
    if (g->start[i] + g->extent[i] < g->grid[i]) l.open |= 2 << (2 * i);
  }
  const int warp = a->ctx->device.lanes, rows = MF_BLOCK / warp * MF_ROWS;
  const int nx = (int)l.n[0], ny = (int)l.n[1], nz = (int)l.n[2];
  const int count[3] = {(int)t.tiles_x, (int)t.tiles_y,
                        (int)(t.tiles / (t.tiles_x * t.tiles_y))};
  bool none = false;
  for (int i = 0; i < 3; i++) {
    int first = -1, last = -1; /* the inner tiles along axis i */
    for (int k = 0; k < count[i]; k++) {
      const int at[3] = {i == 0 ? k * (warp - 2) - 1 : 0,
                         i == 1 ? k * rows : 0, i == 2 ? k * MF_PLANES : 0};
      if (mf_tile_on_edge(l.open & (3 << (2 * i)), at[0], at[1], at[2], nx,
                          ny, nz, warp, rows))
        continue;
      if (first < 0) first = k;
      last = k;
    }
    l.lo[i] = first < 0 ? 0 : first;
    l.hi[i] = first < 0 ? 0 : last + 1;
    none = none || first < 0;
  }
  if (none)
    for (int i = 0; i < 3; i++) l.lo[i] = l.hi[i] = 0;
  l.inner_tiles = (int64_t)(l.hi[0] - l.lo[0]) * (l.hi[1] - l.lo[1]) *
                  (l.hi[2] - l.lo[2]);
  l.edge_tiles = t.tiles - l.inner_tiles;
  l.edge_blocks = 0; /* a launch's own (launch_sweep) */
  return l;
}

/* Whether the plain sweeps cover the geometry's box: a cube that is the
 * whole grid. Any other box takes the layered ones. */
static inline bool mf_plain(const geometry *g) {
  for (int i = 0; i < 3; i++)
    if (g->extent[i] != g->extent[0] || g->start[i] != 0 ||
        g->grid[i] != g->extent[i])
      return false;
  return true;
}

/* The stencil kernel of a mode for the geometry's stencil and the tiles
 * it takes, plain or layered, picked in a template: hipcc emits a kernel
 * template's instance only where a template takes its address
 * (laplacian-cuda.cu); each includer instantiates the sweeps it launches.
 * Its partials from `partials` on (one a block). */
template <int MODE, bool LAYERED, int TILES, int PLANES = MF_PLANES>
static kl_status launch_tiles(const kl_args *a, const geometry *g,
                              const mf_grid &grid, const mf_layer &layer,
                              unsigned blocks, double *partials,
                              mf_vectors v, int early) {
  void (*stencil_sweep)(mf_grid, mf_vectors, const double *, double *,
                        mf_layer) =
      g->stencil == CG_STENCIL_27
          ? stencil_kernel<MODE, CG_STENCIL_27, LAYERED, TILES, PLANES>
          : stencil_kernel<MODE, CG_STENCIL_7, LAYERED, TILES, PLANES>;
  /* The start follows the reset's copies, not a kernel. */
  KL_GPU_LAUNCH(early && MODE != MF_START, stencil_sweep, blocks,
                MF_BLOCK, g->s, grid, v, SCALARS(a), partials, layer);
  return KL_OK;
}

/* Where a layered sweep's edge tiles wait for the layer (cg-dist's
 * overlapped rung: the halo travels on another stream while the inner
 * tiles run): `halo`, the event after which the layer is whole; around
 * the wait, where given, `inner_done` and `waited` are recorded on the
 * sweep's stream (their span: the exchange's time not hidden). With
 * `edge_stream` (the stream the halo is on) and `edge_done`, the edge
 * tiles' launch goes there, after the halo in that stream's order and
 * beside the inner tiles' launch (the blocks it lacks), and the sweep's
 * stream waits for `edge_done` instead: the span then holds the edge
 * tiles' time not hidden as well. */
typedef struct mf_after {
  cudaEvent_t halo, inner_done, waited;
  cudaStream_t edge_stream;
  cudaEvent_t edge_done;
} mf_after;

/* The rung's stream waits for `done` (after: NULL, nothing to wait for),
 * the events around the wait recorded. */
static inline kl_status mf_wait_for(const geometry *g, const mf_after *after,
                                    cudaEvent_t done) {
  if (!after) return KL_OK;
  if (after->inner_done)
    KL_TRY(KL_GPU_STATUS(cudaEventRecord(after->inner_done, g->s)));
  KL_TRY(KL_GPU_STATUS(cudaStreamWaitEvent(g->s, done, 0)));
  if (after->waited) KL_TRY(KL_GPU_STATUS(cudaEventRecord(after->waited, g->s)));
  return KL_OK;
}

static inline kl_status mf_wait_halo(const geometry *g, const mf_after *after) {
  return mf_wait_for(g, after, after ? after->halo : NULL);
}

/* A sweep: the plain one over every tile; a layered one as one launch of
 * both kinds of tile, the edge tiles' blocks (in proportion to their
 * tiles, one at least) first, g->blocks in all; one launch of the one
 * kind where the box has tiles of one kind only. Where the edge tiles
 * wait for a halo (`after`), two launches: the inner tiles', then the
 * edge tiles', whose partials follow the inner launch's, after the halo
 * on the rung's stream or on `after`'s edge stream, launched the usual
 * way (the early launch is for a kernel after a kernel). */
template <int MODE, bool LAYERED>
static kl_status launch_sweep(const kl_args *a, const geometry *g,
                              mf_vectors v, const mf_after *after) {
  if (!LAYERED && !mf_plain(g))
    return KL_FAIL(KL_USAGE, "cg: the plain matrix-free sweeps cover a "
                   "whole cubic grid, not a box of %lld x %lld x %lld",
                   (long long)g->extent[0], (long long)g->extent[1],
                   (long long)g->extent[2]);
  /* The plain sweeps: an instance for each count of planes; the layered
   * ones: MF_PLANES. */
  static_assert(CG_PLANES_MIN == 3 && CG_PLANES_MAX == 4,
                "a plain sweep for each count of planes");
  const int planes = mf_planes(g);
  if (LAYERED ? planes != MF_PLANES
              : planes < CG_PLANES_MIN || planes > CG_PLANES_MAX)
    return KL_FAIL(KL_USAGE, "cg: the %s matrix-free sweeps do not take "
                   "%d planes a tile", LAYERED ? "layered" : "plain",
                   planes);
  unsigned blocks = 0;
  const mf_grid grid = mf_grid_of(a, g, &blocks);
  double *partials = PARTIALS(a);
  if (!LAYERED) {
    const mf_layer none = {};
    if (planes == 4)
      return launch_tiles<MODE, false, MF_TILES_ALL, 4>(
          a, g, grid, none, blocks, partials, v, g->early);
    return launch_tiles<MODE, false, MF_TILES_ALL, 3>(
        a, g, grid, none, blocks, partials, v, g->early);
  }
  /* The split launches count tiles in int (2^31 tiles: 3 10^12 points). */
  if (grid.tiles > INT_MAX)
    return KL_FAIL(KL_USAGE, "cg: a box of %lld x %lld x %lld points has "
                   "more tiles than the sweeps count",
                   (long long)g->extent[0], (long long)g->extent[1],
                   (long long)g->extent[2]);
  mf_layer layer = mf_layer_of(a, g, grid);
  const int64_t edge = layer.edge_tiles;
  if (edge == 0) {
    KL_TRY((launch_tiles<MODE, true, MF_TILES_INNER>(
        a, g, grid, layer, blocks, partials, v, g->early)));
    return mf_wait_halo(g, after);
  }
  if (edge == grid.tiles) {
    KL_TRY(mf_wait_halo(g, after));
    return launch_tiles<MODE, true, MF_TILES_EDGE>(
        a, g, grid, layer, blocks, partials, v, g->early && !after);
  }
  /* Both kinds: two tiles or more, so two blocks or more. Nothing to
   * wait for: one launch, the edge tiles' blocks first. */
  int64_t edge_blocks = (blocks * edge + grid.tiles - 1) / grid.tiles;
  if (edge_blocks >= blocks) edge_blocks = blocks - 1;
  const unsigned inner_blocks = blocks - (unsigned)edge_blocks;
  if (!after) {
    layer.edge_blocks = (int)edge_blocks;
    return launch_tiles<MODE, true, MF_TILES_BOTH>(a, g, grid, layer, blocks,
                                                   partials, v, g->early);
  }
  KL_TRY((launch_tiles<MODE, true, MF_TILES_INNER>(
      a, g, grid, layer, inner_blocks, partials, v, g->early)));
  if (after->edge_stream) {
    geometry on_edge = *g;
    on_edge.s = after->edge_stream;
    KL_TRY((launch_tiles<MODE, true, MF_TILES_EDGE>(
        a, &on_edge, grid, layer, (unsigned)edge_blocks,
        partials + inner_blocks, v, 0)));
    KL_TRY(KL_GPU_STATUS(cudaEventRecord(after->edge_done, on_edge.s)));
    return mf_wait_for(g, after, after->edge_done);
  }
  KL_TRY(mf_wait_halo(g, after));
  return launch_tiles<MODE, true, MF_TILES_EDGE>(
      a, g, grid, layer, (unsigned)edge_blocks, partials + inner_blocks, v,
      0);
}

/* A plain sweep (cg's grid), and a layered one (a rank's box). */
template <int MODE>
static kl_status launch_stencil(const kl_args *a, const geometry *g,
                                mf_vectors v) {
  return launch_sweep<MODE, false>(a, g, v, NULL);
}

template <int MODE>
static kl_status launch_layered(const kl_args *a, const geometry *g,
                                mf_vectors v) {
  return launch_sweep<MODE, true>(a, g, v, NULL);
}

/* A layered sweep whose edge tiles wait for the halo (mf_after). */
template <int MODE>
static kl_status launch_layered_after(const kl_args *a, const geometry *g,
                                      mf_vectors v, const mf_after *after) {
  return launch_sweep<MODE, true>(a, g, v, after);
}

/* After k iterations: iteration k - 1, if even, left its step to x
 * undone; its p is in CG_AP. */
static inline kl_status mf_settle(const kl_args *a, const geometry *g,
                                  int64_t k) {
  if (k % 2 == 0) return KL_OK;
  mf_settle_kernel<<<g->row_blocks, BLOCK, 0, g->s>>>(
      VEC(a, CG_X), VEC(a, CG_AP), SCALARS(a), g->rows);
  KL_GPU_CHECK_LAUNCH(mf_settle_kernel);
  return KL_OK;
}

/* cuda-matrix-free's solve (cg-matrix-free-cuda.cu) of the geometry's
 * box, a whole cubic grid, by its stopping rule: the start, batches of
 * iterations as a graph made at the first call (kept in a->state, freed
 * by kl__cg_gpu_teardown), x and info. cg-dist's GPU rungs at one rank
 * call it: the same launches as cg's. */
extern "C" kl_status kl__cg_gpu_matrix_free_solve(const kl_args *a,
                                                  geometry *g,
                                                  int64_t *iterations);

#endif
