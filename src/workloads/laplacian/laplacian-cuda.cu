/* The laplacian ladder on the GPU, seed 002's kernels for any grid:
 * kernel 1, one thread per point; kernel 2, each thread m points along y,
 * reusing the centre of one as the y neighbour of the next (loop tiling);
 * kernel 3, the same with every thread's loads in ascending addresses.
 * The seed's kernels 2 and 3 need ny to be a multiple of m; here a tile
 * cut by the grid's edge reads and writes only the rows that exist. Blocks
 * are the seed's 256 x 1 x 1; a grid larger than the launch limits in y
 * and z is walked by grid-stride loops. */
#include <stdint.h>

#include "../../backends/gpu.h"
#include "laplacian.h"

#define BLOCK_X 256
#define GRID_YZ_MAX 65535 /* CUDA's limit on gridDim.y and gridDim.z */

/* The coefficients in the rung's type, cc derived in it (laplacian.h). */
template <typename T>
struct coefficients {
  T cx, cy, cz, cc;
};

template <typename T>
static coefficients<T> coefficients_of(const kl_plan *p) {
  coefficients<T> c;
  c.cx = (T)LAP_C(p, LAP_CX);
  c.cy = (T)LAP_C(p, LAP_CY);
  c.cz = (T)LAP_C(p, LAP_CZ);
  c.cc = (T)-2 * (c.cx + c.cy + c.cz);
  return c;
}

/* The extents, as every kernel takes them. */
typedef struct grid3 {
  int64_t nx, ny, nz;
} grid3;

/* ---- kernel 1: one thread per point ------------------------------------- */

template <typename T>
__global__ __launch_bounds__(BLOCK_X) void point_kernel(
    T *__restrict__ f, const T *__restrict__ u, grid3 g, coefficients<T> c) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0 || i >= g.nx - 1) return;
  const int64_t slice = g.nx * g.ny;
  for (int64_t k = blockIdx.z; k < g.nz; k += gridDim.z) {
    if (k == 0 || k >= g.nz - 1) continue;
    for (int64_t j = blockIdx.y; j < g.ny; j += gridDim.y) {
      if (j == 0 || j >= g.ny - 1) continue;
      const int64_t pos = i + g.nx * j + slice * k;
      f[pos] = u[pos] * c.cc + (u[pos - 1] + u[pos + 1]) * c.cx +
               (u[pos - g.nx] + u[pos + g.nx]) * c.cy +
               (u[pos - slice] + u[pos + slice]) * c.cz;
    }
  }
}

/* ---- kernels 2 and 3: M points per thread along y ----------------------- */

/* Thread (i, tile, k) computes rows j0 .. j0 + M - 1 of column i in plane
 * k, j0 = M * tile, the rows past the grid left out. REORDERED (kernel 3)
 * loads every z - 1 row first, then the y - 1 row, the x rows, the y + 1
 * row and the z + 1 rows: ascending addresses. Kernel 2 loads row by row:
 * x neighbours, centre and z neighbours of one row before the next. */
template <typename T, int M, bool REORDERED>
__global__ __launch_bounds__(BLOCK_X) void tiled_kernel(
    T *__restrict__ f, const T *__restrict__ u, grid3 g, coefficients<T> c) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0 || i >= g.nx - 1) return;
  const int64_t slice = g.nx * g.ny, nx = g.nx;
  for (int64_t k = blockIdx.z; k < g.nz; k += gridDim.z) {
    if (k == 0 || k >= g.nz - 1) continue;
    for (int64_t j0 = (int64_t)blockIdx.y * M; j0 < g.ny;
         j0 += (int64_t)gridDim.y * M) {
      /* Rows of this tile inside the grid. */
      const int rows = g.ny - j0 < M ? (int)(g.ny - j0) : M;
      const int64_t pos = i + nx * j0 + slice * k;
      T lu[M];
#pragma unroll
      for (int n = 0; n < M; n++) lu[n] = 0;
      if (REORDERED) {
#pragma unroll
        for (int n = 0; n < M; n++)
          if (n < rows) lu[n] += u[pos - slice + n * nx] * c.cz;
        if (j0 > 0) lu[0] += u[pos - nx] * c.cy;
#pragma unroll
        for (int n = 0; n < M; n++) {
          /* A guard, not a break: clang (hipcc) unrolls no loop with a
           * break. */
          if (n < rows) {
            lu[n] += u[pos - 1 + n * nx] * c.cx;
            const T centre = u[pos + n * nx];
            lu[n] += centre * c.cc;
            lu[n] += u[pos + 1 + n * nx] * c.cx;
            if (n > 0) lu[n - 1] += centre * c.cy;
            if (n < M - 1) lu[n + 1] += centre * c.cy;
          }
        }
        if (j0 + M < g.ny) lu[M - 1] += u[pos + M * nx] * c.cy;
#pragma unroll
        for (int n = 0; n < M; n++)
          if (n < rows) lu[n] += u[pos + slice + n * nx] * c.cz;
      } else {
#pragma unroll
        for (int n = 0; n < M; n++) {
          if (n < rows) {
            const T centre = u[pos + n * nx];
            lu[n] += centre * c.cc + (u[pos - 1 + n * nx] + u[pos + 1 + n * nx]) * c.cx;
            if (n == 0 && j0 > 0) lu[n] += u[pos - nx] * c.cy;
            if (n > 0) lu[n - 1] += centre * c.cy;
            if (n < M - 1) lu[n + 1] += centre * c.cy;
            if (n == M - 1 && j0 + M < g.ny) lu[n] += u[pos + (n + 1) * nx] * c.cy;
            lu[n] += (u[pos - slice + n * nx] + u[pos + slice + n * nx]) * c.cz;
          }
        }
      }
      /* Only interior rows are stored; a tile cut by the grid's edge ends
       * on row ny - 1, a boundary row, whose centre served as the y + 1
       * neighbour of row ny - 2. */
#pragma unroll
      for (int n = 0; n < M; n++)
        if (n < rows && j0 + n > 0 && j0 + n < g.ny - 1) f[pos + n * nx] = lu[n];
    }
  }
}

/* ---- launchers ------------------------------------------------------------ */

static unsigned grid_dim(int64_t count) {
  return (unsigned)(count < 1 ? 1 : count > GRID_YZ_MAX ? GRID_YZ_MAX : count);
}

static grid3 extents(const kl_args *a) {
  grid3 g = {LAP_NX(a->plan), LAP_NY(a->plan), LAP_NZ(a->plan)};
  return g;
}

template <typename T>
static kl_status point(const kl_args *a) {
  const kl_plan *p = a->plan;
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  const grid3 g = extents(a);
  dim3 grid((unsigned)((g.nx + BLOCK_X - 1) / BLOCK_X), grid_dim(g.ny),
            grid_dim(g.nz));
  point_kernel<T><<<grid, BLOCK_X, 0, (cudaStream_t)a->stream>>>(
      (T *)a->buffers[LAP_F], (const T *)a->buffers[LAP_U], g,
      coefficients_of<T>(p));
  KL_GPU_CHECK_LAUNCH(point_kernel);
  return KL_OK;
}

template <typename T, int M, bool REORDERED>
static kl_status tiled(const kl_args *a) {
  const kl_plan *p = a->plan;
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  const grid3 g = extents(a);
  dim3 grid((unsigned)((g.nx + BLOCK_X - 1) / BLOCK_X),
            grid_dim((g.ny + M - 1) / M), grid_dim(g.nz));
  tiled_kernel<T, M, REORDERED><<<grid, BLOCK_X, 0, (cudaStream_t)a->stream>>>(
      (T *)a->buffers[LAP_F], (const T *)a->buffers[LAP_U], g,
      coefficients_of<T>(p));
  KL_GPU_CHECK_LAUNCH(tiled_kernel);
  return KL_OK;
}

extern "C" kl_status kl__laplacian_gpu_point(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE, return point<T>(a));
}

#define LAP_EXPORT_TILED(m)                                                   \
  extern "C" kl_status kl__laplacian_gpu_tiled_m##m(const kl_args *a) {       \
    KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,                      \
                      return tiled<T, m, false>(a));                          \
  }                                                                           \
  extern "C" kl_status kl__laplacian_gpu_reordered_m##m(const kl_args *a) {   \
    KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,                      \
                      return tiled<T, m, true>(a));                           \
  }
LAP_TILES(LAP_EXPORT_TILED)
#undef LAP_EXPORT_TILED
