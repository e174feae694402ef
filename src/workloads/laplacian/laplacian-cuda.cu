/* The laplacian ladder on the GPU, seed 002's kernels for any grid:
 * kernel 1, one thread per point; kernel 2, each thread m points along y,
 * reusing the centre of one as the y neighbour of the next (loop tiling);
 * kernel 3, the same with every thread's loads in ascending addresses.
 * m is the plan's tuning (-p m=, LAP_M): a compile-time constant of the
 * tiled kernels, whose registers hold a thread's m rows, so each value the
 * plan accepts has its instantiation, and the launcher picks it.
 * The seed's kernels 2 and 3 need ny to be a multiple of m; here a tile
 * cut by the grid's edge reads and writes only the rows that exist. Blocks
 * are the seed's 256 x 1 x 1; a grid larger than the launch limits in y
 * and z is walked by grid-stride loops. Each rung reads top to bottom:
 * its kernel, its launcher, its entry point. */
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

/* The extents, as every kernel takes them, and the distance between
 * rows (sy) and between planes (sz) in elements: nx and nx * ny on a grid
 * of its own, the whole grid's on a box inside it (the z-marching
 * kernels alone read them: zmarch_box). */
typedef struct grid3 {
  int64_t nx, ny, nz, sy, sz;
} grid3;

/* f's stores: plain, or streaming (kl_store_streaming, gpu.h). */
template <bool STREAM, typename V>
static __device__ __forceinline__ void put(V *p, V v) {
  if (STREAM) kl_store_streaming(p, v);
  else *p = v;
}

/* The launch geometry: a grid's extent within the launch limits, and the
 * plan's extents as the kernels take them. */
static unsigned grid_dim(int64_t count) {
  return (unsigned)(count < 1 ? 1 : count > GRID_YZ_MAX ? GRID_YZ_MAX : count);
}

static grid3 extents(const kl_args *a) {
  const int64_t nx = LAP_NX(a->plan), ny = LAP_NY(a->plan);
  grid3 g = {nx, ny, LAP_NZ(a->plan), nx, nx * ny};
  return g;
}

/* ---- kernel 1: one thread per point ------------------------------------- */

/* As the seed's, without launch bounds: ptxas then budgets registers for
 * blocks of up to 1024 threads, at most 64 a thread. */
template <typename T, bool STREAM>
__global__ void point_kernel(
    T *__restrict__ f, const T *__restrict__ u, grid3 g, coefficients<T> c) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0 || i >= g.nx - 1) return;
  const int64_t slice = g.nx * g.ny;
  for (int64_t k = blockIdx.z; k < g.nz; k += gridDim.z) {
    if (k == 0 || k >= g.nz - 1) continue;
    for (int64_t j = blockIdx.y; j < g.ny; j += gridDim.y) {
      if (j == 0 || j >= g.ny - 1) continue;
      const int64_t pos = i + g.nx * j + slice * k;
      put<STREAM>(f + pos, u[pos] * c.cc + (u[pos - 1] + u[pos + 1]) * c.cx +
                               (u[pos - g.nx] + u[pos + g.nx]) * c.cy +
                               (u[pos - slice] + u[pos + slice]) * c.cz);
    }
  }
}

template <typename T, bool STREAM>
static kl_status point(const kl_args *a) {
  const kl_plan *p = a->plan;
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  const grid3 g = extents(a);
  dim3 grid((unsigned)((g.nx + BLOCK_X - 1) / BLOCK_X), grid_dim(g.ny),
            grid_dim(g.nz));
  point_kernel<T, STREAM><<<grid, BLOCK_X, 0, (cudaStream_t)a->stream>>>(
      (T *)a->buffers[LAP_F], (const T *)a->buffers[LAP_U], g,
      coefficients_of<T>(p));
  KL_GPU_CHECK_LAUNCH(point_kernel);
  return KL_OK;
}

/* The seed's kernel 1. */
extern "C" kl_status kl__laplacian_gpu_point(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return point<T, false>(a));
}

/* The seed's part 3: kernel 1 with streaming stores. */
extern "C" kl_status kl__laplacian_gpu_point_streaming(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return point<T, true>(a));
}

/* ---- kernels 2 and 3: M points per thread along y ----------------------- */

/* Thread (i, tile, k) computes rows j0 .. j0 + M - 1 of column i in plane
 * k, j0 = M * tile, the rows past the grid left out. REORDERED (kernel 3)
 * loads every z - 1 row first, then the y - 1 row, the x rows, the y + 1
 * row and the z + 1 rows: ascending addresses. Kernel 2 loads row by row:
 * x neighbours, centre and z neighbours of one row before the next. */
template <typename T, int M, bool REORDERED, bool STREAM>
static __device__ __forceinline__ void tile_columns(
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
        if (n < rows && j0 + n > 0 && j0 + n < g.ny - 1)
          put<STREAM>(f + pos + n * nx, lu[n]);
    }
  }
}

/* The seed's kernels 2 and 3 carry no launch bounds; its part 3 adds
 * __launch_bounds__(256), and then streaming stores. */
template <typename T, int M, bool REORDERED>
__global__ void tiled_kernel(T *__restrict__ f, const T *__restrict__ u,
                             grid3 g, coefficients<T> c) {
  tile_columns<T, M, REORDERED, false>(f, u, g, c);
}

template <typename T, int M, bool STREAM>
__global__ __launch_bounds__(BLOCK_X) void bounded_kernel(
    T *__restrict__ f, const T *__restrict__ u, grid3 g, coefficients<T> c) {
  tile_columns<T, M, true, STREAM>(f, u, g, c);
}

/* The tiled rungs: the seed's kernels 2 and 3, then kernel 3 bounded, with
 * plain or streaming stores; each over tiles of M rows. The kernel is
 * picked here, in a template: hipcc emits no kernel template whose
 * address is taken only in a non-template function. */
enum { TILE_KERNEL2, TILE_KERNEL3, TILE_BOUNDED, TILE_STREAMING };

template <typename T, int M, int RUNG>
static kl_status tiled_at(const kl_args *a) {
  const kl_plan *p = a->plan;
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  void (*const kernel)(T *, const T *, grid3, coefficients<T>) =
      RUNG == TILE_KERNEL2   ? tiled_kernel<T, M, false>
      : RUNG == TILE_KERNEL3 ? tiled_kernel<T, M, true>
      : RUNG == TILE_BOUNDED ? bounded_kernel<T, M, false>
                             : bounded_kernel<T, M, true>;
  const grid3 g = extents(a);
  dim3 grid((unsigned)((g.nx + BLOCK_X - 1) / BLOCK_X),
            grid_dim((g.ny + M - 1) / M), grid_dim(g.nz));
  kernel<<<grid, BLOCK_X, 0, (cudaStream_t)a->stream>>>(
      (T *)a->buffers[LAP_F], (const T *)a->buffers[LAP_U], g,
      coefficients_of<T>(p));
  KL_GPU_CHECK_LAUNCH(kernel);
  return KL_OK;
}

/* The plan's m to its instantiation: a switch, m being a compile-time
 * constant of the kernel. The plan admits no other value. */
template <typename T, int RUNG>
static kl_status tiled(const kl_args *a) {
  switch (LAP_M(a->plan)) {
  case 1: return tiled_at<T, 1, RUNG>(a);
  case 2: return tiled_at<T, 2, RUNG>(a);
  case 4: return tiled_at<T, 4, RUNG>(a);
  case 8: return tiled_at<T, 8, RUNG>(a);
  case 16: return tiled_at<T, 16, RUNG>(a);
  default:
    return kl__usage(KL_USAGE, "laplacian: m = %d is not 1, 2, 4, 8 or 16",
                     LAP_M(a->plan));
  }
}

/* The seed's kernel 2. */
extern "C" kl_status kl__laplacian_gpu_tiled(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return tiled<T, TILE_KERNEL2>(a));
}

/* The seed's kernel 3. */
extern "C" kl_status kl__laplacian_gpu_reordered(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return tiled<T, TILE_KERNEL3>(a));
}

/* The seed's part 3: kernel 3 with __launch_bounds__(256). */
extern "C" kl_status kl__laplacian_gpu_bounded(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return tiled<T, TILE_BOUNDED>(a));
}

/* The seed's part 3: the bounded kernel with streaming stores. */
extern "C" kl_status kl__laplacian_gpu_streaming(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return tiled<T, TILE_STREAMING>(a));
}

/* ---- beyond the seed: marching along z (2.5D blocking) ------------------- */

/* A block covers a tile of ZMARCH_BX x ZMARCH_BY columns of the grid
 * (ZMARCH_BX * V points wide along x) and marches along z over a few
 * planes. Each thread keeps its column's planes k - 1, k and k + 1 in
 * registers, so that a step loads one new plane from memory, and issues
 * the load of plane k + 2 before it computes plane k. The x and y
 * neighbours come from plane k as the block holds it: through L1
 * (zmarch_kernel, zmarch_vector_kernel) or staged in shared memory
 * (zmarch_shared_kernel). The chunks are short (4 to 8 planes, LESSONS.md):
 * blocks start in address order (x, then y, then the chunk) and live
 * briefly, so that the GPU as a whole reads u and writes f nearly in
 * address order, as a copy does; long marches scatter the resident blocks
 * over the whole grid. */
#define ZMARCH_BX 32
#define ZMARCH_BY 8

/* How the grid's blocks share the work. The tile rows are cut into
 * subdomains of sub_tiles rows, and blockIdx.z counts the chunks of planes
 * within a subdomain, then the subdomains: the blocks that start together
 * cover one subdomain's tiles of a chunk, and the next chunk of the same
 * tiles follows about one resident grid later, while the planes they share
 * (the chunks' ends, the tiles' y halos) are still in L2 (LESSONS.md). */
typedef struct zsplit {
  int64_t planes, chunks, sub_tiles, tiles_y;
} zsplit;

/* This block's interior planes [k0, k1) and its first tile row and the end
 * of its subdomain's; the block takes every gridDim.y-th row from the
 * first. */
static __device__ __forceinline__ void block_work(grid3 g, zsplit z,
                                                  int64_t *k0, int64_t *k1,
                                                  int64_t *row0,
                                                  int64_t *row_end) {
  const int64_t sub = blockIdx.z / z.chunks, chunk = blockIdx.z % z.chunks;
  *k0 = 1 + chunk * z.planes;
  *k1 = *k0 + z.planes < g.nz - 1 ? *k0 + z.planes : g.nz - 1;
  *row0 = sub * z.sub_tiles + blockIdx.y;
  *row_end = (sub + 1) * z.sub_tiles < z.tiles_y ? (sub + 1) * z.sub_tiles
                                                 : z.tiles_y;
}

/* One point per thread, the x and y neighbours through L1. */
template <typename T>
__global__ __launch_bounds__(ZMARCH_BX * ZMARCH_BY) void zmarch_kernel(
    T *__restrict__ f, const T *__restrict__ u, grid3 g, coefficients<T> c,
    zsplit z) {
  const int64_t i = (int64_t)blockIdx.x * ZMARCH_BX + threadIdx.x;
  if (i == 0 || i >= g.nx - 1) return;
  const int64_t slice = g.sz, nx = g.sy; /* nx: the row's stride */
  int64_t k0, k1, row0, row_end;
  block_work(g, z, &k0, &k1, &row0, &row_end);
  for (int64_t row = row0; row < row_end; row += gridDim.y) {
    const int64_t j = row * ZMARCH_BY + threadIdx.y;
    if (j == 0 || j >= g.ny - 1) continue;
    int64_t pos = i + nx * j + slice * k0;
    T below = u[pos - slice], centre = u[pos], above = u[pos + slice];
    for (int64_t k = k0; k < k1; k++, pos += slice) {
      const T ahead = k + 1 < k1 ? u[pos + 2 * slice] : (T)0;
      f[pos] = centre * c.cc + (u[pos - 1] + u[pos + 1]) * c.cx +
               (u[pos - nx] + u[pos + nx]) * c.cy + (below + above) * c.cz;
      below = centre;
      centre = above;
      above = ahead;
    }
  }
}

/* The 16-byte vector of T: V = 2 doubles or 4 floats per load. */
template <typename T> struct vec16;
template <> struct vec16<double> { typedef double2 type; };
template <> struct vec16<float> { typedef float4 type; };

/* A vector from its elements. */
static __device__ __forceinline__ double2 pack(const double *o) {
  return make_double2(o[0], o[1]);
}
static __device__ __forceinline__ float4 pack(const float *o) {
  return make_float4(o[0], o[1], o[2], o[3]);
}

/* The vector kernel asks for 5 blocks (1280 threads) an SM: ptxas then
 * fits it in 48 registers without spilling; unbounded it takes 56 (f64)
 * and 62 (f32), room for 4. */
#define VECTOR_MIN_BLOCKS 5

/* How many planes ahead of the one it loads a step the prefetching form
 * asks L2 for (AHEAD below): 2, so plane k + 3 while it loads k + 2.
 * Measured on the H200 at 512^3 f64 over 8-plane chunks (LESSONS.md): 1
 * plane gained little (85% of the copy), 2 and 3 gave 90-91%, 4 no
 * more. */
#define PREFETCH_DISTANCE 2

/* V points per thread along x, loaded and stored as one 16-byte vector.
 * The x neighbours at either end of the vector are the next lanes' end
 * elements, passed by shuffles; a lane at the tile's or the warp's edge
 * loads its own through L1. Every lane of a warp takes the same path to
 * the shuffles (lanes off the grid load and store nothing, `live`), since
 * a warp of 64 lanes holds two rows whose j may differ. The launcher runs
 * it only where every row starts on a 16-byte boundary (nx a multiple of
 * V, u and f aligned). AHEAD: each step also asks L2 for the plane
 * PREFETCH_DISTANCE beyond the one it loads (cuda-zmarch-prefetch), so that
 * more of u is on its way from memory than the registers hold. */
template <typename T, bool AHEAD>
__global__ __launch_bounds__(ZMARCH_BX * ZMARCH_BY, VECTOR_MIN_BLOCKS) void zmarch_vector_kernel(
    T *__restrict__ f, const T *__restrict__ u, grid3 g, coefficients<T> c,
    zsplit z) {
  typedef typename vec16<T>::type W;
  const int V = (int)(sizeof(W) / sizeof(T));
  const int64_t i0 = ((int64_t)blockIdx.x * ZMARCH_BX + threadIdx.x) * V;
  const int64_t slice = g.sz, sy = g.sy, nx = g.nx;
  const int lane = (int)((threadIdx.y * ZMARCH_BX + threadIdx.x) % warpSize);
  /* Whether lane - 1 and lane + 1 hold this row's x neighbours. */
  const bool from_left = threadIdx.x > 0 && lane > 0;
  const bool from_right = threadIdx.x < ZMARCH_BX - 1 && lane < warpSize - 1;
  /* Whether all V points are interior in x: one vector store. */
  const bool whole = i0 > 0 && i0 + V < nx;
  int64_t k0, k1, row0, row_end;
  block_work(g, z, &k0, &k1, &row0, &row_end);
  for (int64_t row = row0; row < row_end; row += gridDim.y) {
    const int64_t j = row * ZMARCH_BY + threadIdx.y;
    const bool live = i0 < nx && j > 0 && j < g.ny - 1;
    int64_t pos = i0 + sy * j + slice * k0;
    W below = {}, centre = {}, above = {};
    if (live) {
      below = *(const W *)(u + pos - slice);
      centre = *(const W *)(u + pos);
      above = *(const W *)(u + pos + slice);
    }
    for (int64_t k = k0; k < k1; k++, pos += slice) {
      W ahead = above, south = {}, north = {};
      if (live) {
        if (AHEAD && k + 1 + PREFETCH_DISTANCE <= k1)
          kl_prefetch_l2(u + pos + (1 + PREFETCH_DISTANCE) * slice);
        if (k + 1 < k1) ahead = *(const W *)(u + pos + 2 * slice);
        south = *(const W *)(u + pos - sy);
        north = *(const W *)(u + pos + sy);
      }
      const T *b = (const T *)&below, *m = (const T *)&centre,
              *a = (const T *)&above, *s = (const T *)&south,
              *n = (const T *)&north;
      const T passed_left = __shfl_up_sync(KL_FULL_MASK, m[V - 1], 1);
      const T passed_right = __shfl_down_sync(KL_FULL_MASK, m[0], 1);
      if (!live) continue;
      const T left = from_left ? passed_left : i0 > 0 ? u[pos - 1] : (T)0;
      const T right = from_right ? passed_right
                      : i0 + V < nx ? u[pos + V] : (T)0;
      T o[V];
#pragma unroll
      for (int e = 0; e < V; e++)
        o[e] = m[e] * c.cc +
               ((e > 0 ? m[e - 1] : left) + (e < V - 1 ? m[e + 1] : right)) * c.cx +
               (s[e] + n[e]) * c.cy + (b[e] + a[e]) * c.cz;
      if (whole) {
        kl_store_vector((W *)(f + pos), pack(o));
      } else {
#pragma unroll
        for (int e = 0; e < V; e++)
          if (i0 + e > 0 && i0 + e < nx - 1) f[pos + e] = o[e];
      }
      below = centre;
      centre = above;
      above = ahead;
    }
  }
}

/* One point per thread, plane k's tile and its one-point halo staged in
 * shared memory. Every thread of the block takes part in the barriers:
 * threads past the grid load nothing and store nothing. A thread on the
 * tile's edge also loads the halo point beyond it, one plane ahead like
 * its own column. */
template <typename T>
__global__ __launch_bounds__(ZMARCH_BX * ZMARCH_BY) void zmarch_shared_kernel(
    T *__restrict__ f, const T *__restrict__ u, grid3 g, coefficients<T> c,
    zsplit z) {
  __shared__ T plane[ZMARCH_BY + 2][ZMARCH_BX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t i = (int64_t)blockIdx.x * ZMARCH_BX + tx;
  const int64_t slice = g.sz, nx = g.sy; /* nx: the row's stride */
  /* The halo point this thread loads along x and along y, as an offset
   * from its own position (0: none). */
  const int hx = tx == 0 ? -1 : tx == ZMARCH_BX - 1 ? 1 : 0;
  const int hy = ty == 0 ? -1 : ty == ZMARCH_BY - 1 ? 1 : 0;
  int64_t k0, k1, row0, row_end;
  block_work(g, z, &k0, &k1, &row0, &row_end);
  for (int64_t row = row0; row < row_end; row += gridDim.y) {
    const int64_t j = row * ZMARCH_BY + ty;
    const bool in_grid = i < g.nx && j < g.ny;
    const bool interior =
        in_grid && i > 0 && i < g.nx - 1 && j > 0 && j < g.ny - 1;
    const bool load_x = in_grid && hx != 0 && i + hx >= 0 && i + hx < g.nx;
    const bool load_y = in_grid && hy != 0 && j + hy >= 0 && j + hy < g.ny;
    int64_t pos = i + nx * j + slice * k0;
    T below = 0, centre = 0, side_x = 0, side_y = 0;
    if (interior) below = u[pos - slice];
    if (in_grid) centre = u[pos];
    if (load_x) side_x = u[pos + hx];
    if (load_y) side_y = u[pos + hy * nx];
    for (int64_t k = k0; k < k1; k++, pos += slice) {
      T above = 0, next_x = 0, next_y = 0;
      if (in_grid) above = u[pos + slice];
      if (load_x && k + 1 < k1) next_x = u[pos + slice + hx];
      if (load_y && k + 1 < k1) next_y = u[pos + slice + hy * nx];
      __syncthreads(); /* the previous plane's reads are done */
      plane[ty + 1][tx + 1] = centre;
      if (load_x) plane[ty + 1][tx + 1 + hx] = side_x;
      if (load_y) plane[ty + 1 + hy][tx + 1] = side_y;
      __syncthreads();
      if (interior)
        f[pos] = centre * c.cc +
                 (plane[ty + 1][tx] + plane[ty + 1][tx + 2]) * c.cx +
                 (plane[ty][tx + 1] + plane[ty + 2][tx + 1]) * c.cy +
                 (below + above) * c.cz;
      below = centre;
      centre = above;
      side_x = next_x;
      side_y = next_y;
    }
    /* The next tile's first writes to `plane` wait for these reads. */
    __syncthreads();
  }
}

/* The z-marching kernels: one block per tile and chunk, in address order;
 * the planes per chunk as measured best for each kernel (LESSONS.md), where
 * -p planes= does not give them. */
typedef enum {
  ZMARCH_L1,
  ZMARCH_VECTOR,
  ZMARCH_SHARED,
  ZMARCH_PREFETCH,
  ZMARCH_KINDS
} zmarch_kind;
/* Each kind's chunk where -p planes= is 0: as measured best, on the H100
 * for the first three and on the H200 for the prefetching one (LESSONS.md:
 * 10 planes there, within a point of the best of 6 to 16 at 512^3 and
 * 1024^3 in f64 and f32). */
static const int zmarch_planes[ZMARCH_KINDS] = {8, 4, 16, 10};

template <typename T>
struct zmarch_kernels {
  typedef void (*kernel)(T *, const T *, grid3, coefficients<T>, zsplit);
  kernel of[ZMARCH_KINDS];
};

template <typename T>
static zmarch_kernels<T> zmarch_kernels_of(void) {
  zmarch_kernels<T> k = {
      {zmarch_kernel<T>, zmarch_vector_kernel<T, false>,
       zmarch_shared_kernel<T>, zmarch_vector_kernel<T, true>}};
  return k;
}

/* The setup of every z-marching rung (untimed): the blocks of each kernel
 * the whole GPU holds at once, in the rung's state by kind: the blocks an
 * SM holds times the SMs of the context's device. */
template <typename T>
static kl_status zmarch_resident(kl_args *a) {
  const zmarch_kernels<T> k = zmarch_kernels_of<T>();
  for (int kind = 0; kind < ZMARCH_KINDS; kind++) {
    int per_sm = 0;
    KL_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, k.of[kind], ZMARCH_BX * ZMARCH_BY, 0));
    a->state.integer[kind] =
        (int64_t)a->ctx->device.compute_units * (per_sm > 0 ? per_sm : 1);
  }
  return KL_OK;
}

/* The interior of grid g, whose first point is f[0] and u[0], on stream
 * s; nothing where g has none. */
template <typename T>
static kl_status zmarch_on(const kl_args *a, zmarch_kind kind, grid3 g, T *f,
                           const T *u, cudaStream_t s) {
  const kl_plan *p = a->plan;
  if (g.nx < 3 || g.ny < 3 || g.nz < 3) return KL_OK;
  const int vector = (int)(sizeof(typename vec16<T>::type) / sizeof(T));
  /* The vector loads need every row on a 16-byte boundary, and a row's
   * last vector inside it. */
  bool vectors = kind == ZMARCH_VECTOR || kind == ZMARCH_PREFETCH;
  if (vectors &&
      (g.nx % vector != 0 || g.sy % vector != 0 || (uintptr_t)u % 16 != 0 ||
       (uintptr_t)f % 16 != 0)) {
    kind = ZMARCH_L1;
    vectors = false;
  }
  const int64_t width = ZMARCH_BX * (vectors ? vector : 1);
  const int64_t tiles_x = (g.nx + width - 1) / width;
  const int64_t resident = a->state.integer[kind];
  /* A subdomain: as many tile rows as the GPU holds blocks, at most 65535
   * subdomains; then chunks, at most 65535 of them over all subdomains. */
  zsplit z;
  z.tiles_y = (g.ny + ZMARCH_BY - 1) / ZMARCH_BY;
  z.sub_tiles = resident / tiles_x > 0 ? resident / tiles_x : 1;
  /* No more rows than the grid has: past them a block has no work, and a
   * box three rows high (a shell's slab) would launch mostly such
   * blocks. */
  if (z.sub_tiles > z.tiles_y) z.sub_tiles = z.tiles_y;
  if (z.sub_tiles < (z.tiles_y + GRID_YZ_MAX - 1) / GRID_YZ_MAX)
    z.sub_tiles = (z.tiles_y + GRID_YZ_MAX - 1) / GRID_YZ_MAX;
  const int64_t subs = (z.tiles_y + z.sub_tiles - 1) / z.sub_tiles;
  const int64_t interior = g.nz - 2, most_chunks = GRID_YZ_MAX / subs;
  z.planes = LAP_PLANES(p) > 0 ? LAP_PLANES(p) : zmarch_planes[kind];
  if ((interior + z.planes - 1) / z.planes > most_chunks)
    z.planes = (interior + most_chunks - 1) / most_chunks;
  z.chunks = (interior + z.planes - 1) / z.planes;
  dim3 grid((unsigned)tiles_x, grid_dim(z.sub_tiles), (unsigned)(subs * z.chunks));
  dim3 block(ZMARCH_BX, ZMARCH_BY);
  const typename zmarch_kernels<T>::kernel zmarch_launch =
      zmarch_kernels_of<T>().of[kind];
  zmarch_launch<<<grid, block, 0, s>>>(f, u, g, coefficients_of<T>(p), z);
  KL_GPU_CHECK_LAUNCH(zmarch_launch);
  return KL_OK;
}

template <typename T>
static kl_status zmarch(const kl_args *a, zmarch_kind kind) {
  return zmarch_on<T>(a, kind, extents(a), (T *)a->buffers[LAP_F],
                      (const T *)a->buffers[LAP_U], (cudaStream_t)a->stream);
}

/* A box of the grid's interior as a grid of its own: its points and the
 * layer around them, the whole grid's strides, f and u from the layer's
 * first point. */
template <typename T>
static kl_status zmarch_box(const kl_args *a, const int64_t lo[3],
                            const int64_t hi[3], cudaStream_t s) {
  const grid3 whole = extents(a);
  const int64_t n[3] = {whole.nx, whole.ny, whole.nz};
  for (int d = 0; d < 3; d++) {
    if (hi[d] <= lo[d]) return KL_OK; /* an empty box */
    if (lo[d] < 1 || hi[d] > n[d] - 1)
      return KL_FAIL(KL_USAGE, "laplacian: box %lld..%lld along axis %d "
                     "leaves the interior 1..%lld", (long long)lo[d],
                     (long long)hi[d] - 1, d, (long long)n[d] - 2);
  }
  const grid3 g = {hi[0] - lo[0] + 2, hi[1] - lo[1] + 2, hi[2] - lo[2] + 2,
                   whole.sy, whole.sz};
  const int64_t at =
      lo[0] - 1 + whole.sy * (lo[1] - 1) + whole.sz * (lo[2] - 1);
  return zmarch_on<T>(a, ZMARCH_VECTOR, g, (T *)a->buffers[LAP_F] + at,
                      (const T *)a->buffers[LAP_U] + at, s);
}

extern "C" kl_status kl__laplacian_gpu_zmarch_setup(kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return zmarch_resident<T>(a));
}

/* Beyond the seed: the x and y neighbours through L1. */
extern "C" kl_status kl__laplacian_gpu_zmarch(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return zmarch<T>(a, ZMARCH_L1));
}

/* 16-byte vectors along x, where every row is aligned to them. */
extern "C" kl_status kl__laplacian_gpu_zmarch_vector(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return zmarch<T>(a, ZMARCH_VECTOR));
}

/* cuda-zmarch-vector with each step's plane prefetch into L2. */
extern "C" kl_status kl__laplacian_gpu_zmarch_prefetch(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return zmarch<T>(a, ZMARCH_PREFETCH));
}

/* The points lo .. hi - 1 alone (laplacian-dist's overlapped rung: the
 * interior while the faces travel, then the shell), on `stream`. */
extern "C" kl_status kl__laplacian_gpu_zmarch_box(const kl_args *a,
                                                  const int64_t lo[3],
                                                  const int64_t hi[3],
                                                  void *stream) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return zmarch_box<T>(a, lo, hi, (cudaStream_t)stream));
}

/* Plane k's tile and halo in shared memory. */
extern "C" kl_status kl__laplacian_gpu_zmarch_shared(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return zmarch<T>(a, ZMARCH_SHARED));
}
