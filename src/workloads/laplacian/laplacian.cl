/* laplacian's OpenCL rungs (laplacian-cl.c): f = del^2 u at the interior
 * points of an nx x ny x nz grid, x fastest, T float or double; the
 * coefficients come in T and cc = -2 (cx + cy + cz) is derived in T, the
 * seed's order of the terms, as every rung computes it (laplacian.h). */
#define POINT(g)                                                              \
  (cc * u[g] + cx * (u[(g) - 1] + u[(g) + 1]) +                               \
   cy * (u[(g) - sy] + u[(g) + sy]) + cz * (u[(g) - sz] + u[(g) + sz]))

/* The seed's kernel 1: one interior point a work-item, a 3D range over
 * the interior. */
__kernel void laplacian_point(__global const T *restrict u,
                              __global T *restrict f, const ulong nx,
                              const ulong ny, const ulong nz, const T cx,
                              const T cy, const T cz) {
  const size_t i = get_global_id(0) + 1, j = get_global_id(1) + 1,
               k = get_global_id(2) + 1;
  if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  const size_t sy = nx, sz = nx * ny;
  const T cc = -2 * (cx + cy + cz);
  const size_t g = i + sy * j + sz * k;
  f[g] = POINT(g);
}

/* A column a work-item: a 2D range over the interior's (i, j), each item
 * marching along z with the planes k-1, k and k+1 of its point in
 * registers; x and y neighbours from memory (the caches). On a CPU
 * (KL_CONTIGUOUS) a row a work-item instead, over the interior's (j, k),
 * its i loop contiguous: a column an item there reads one element of each
 * cache line (0.09x OpenMP at 192^3 on PoCL). */
#ifdef KL_CONTIGUOUS
__kernel void laplacian_zmarch(__global const T *restrict u,
                               __global T *restrict f, const ulong nx,
                               const ulong ny, const ulong nz, const T cx,
                               const T cy, const T cz) {
  const size_t j = get_global_id(0) + 1, k = get_global_id(1) + 1;
  if (j >= ny - 1 || k >= nz - 1) return;
  const size_t sy = nx, sz = nx * ny;
  const T cc = -2 * (cx + cy + cz);
  const size_t row = sy * j + sz * k;
  for (size_t i = 1; i < nx - 1; i++) f[row + i] = POINT(row + i);
}
#else
__kernel void laplacian_zmarch(__global const T *restrict u,
                               __global T *restrict f, const ulong nx,
                               const ulong ny, const ulong nz, const T cx,
                               const T cy, const T cz) {
  const size_t i = get_global_id(0) + 1, j = get_global_id(1) + 1;
  if (i >= nx - 1 || j >= ny - 1) return;
  const size_t sy = nx, sz = nx * ny;
  const T cc = -2 * (cx + cy + cz);
  size_t g = i + sy * j + sz;
  T below = u[g - sz], centre = u[g];
  for (size_t k = 1; k < nz - 1; k++, g += sz) {
    const T above = u[g + sz];
    f[g] = cc * centre + cx * (u[g - 1] + u[g + 1]) +
           cy * (u[g - sy] + u[g + sy]) + cz * (below + above);
    below = centre;
    centre = above;
  }
}
#endif

/* opencl-tiled (cuda-zmarch-shared's 2.5D blocking): a group a BX x BY
 * tile of (i, j), over the whole grid's x and y so that every point of
 * the tile, boundary ones too, is some item's own; the group marches along
 * z over a chunk of at most PLANES interior planes (the range's third
 * dimension), each item keeping its column's planes k-1, k and k+1 in
 * registers. Plane k's tile and its one-point halo go to local memory
 * (an item on the tile's edge also loads the point beyond it, a plane
 * ahead like its own column), and the x and y neighbours come from there:
 * two barriers a plane, every item of the group at each (items past the
 * grid load and store nothing). BX, BY and PLANES are program options,
 * given only to this rung's build; an edge item loads one side's halo, so
 * the tile is at least 2 x 2. */
#ifdef BX
#if BX < 2 || BY < 2
#error "laplacian_tiled: the tile must be at least 2 x 2"
#endif
__kernel __attribute__((reqd_work_group_size(BX, BY, 1))) void
laplacian_tiled(__global const T *restrict u, __global T *restrict f,
                const ulong nx, const ulong ny, const ulong nz, const T cx,
                const T cy, const T cz) {
  __local T plane[BY + 2][BX + 2];
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const size_t i = get_global_id(0), j = get_global_id(1);
  const size_t sy = nx, sz = nx * ny;
  const T cc = -2 * (cx + cy + cz);
  const size_t k0 = 1 + get_group_id(2) * PLANES;
  const size_t k1 = min(k0 + PLANES, (size_t)nz - 1);
  /* The halo point this item loads along x and along y, as an offset
   * from its own (0: none). */
  const int hx = tx == 0 ? -1 : tx == BX - 1 ? 1 : 0;
  const int hy = ty == 0 ? -1 : ty == BY - 1 ? 1 : 0;
  const int in_grid = i < nx && j < ny;
  const int interior = in_grid && i > 0 && i < nx - 1 && j > 0 && j < ny - 1;
  const int load_x = in_grid && hx != 0 && (hx < 0 ? i > 0 : i + 1 < nx);
  const int load_y = in_grid && hy != 0 && (hy < 0 ? j > 0 : j + 1 < ny);
  const long ox = hx, oy = (long)hy * (long)sy;
  size_t g = i + sy * j + sz * k0;
  T below = 0, centre = 0, side_x = 0, side_y = 0;
  if (interior) below = u[g - sz];
  if (in_grid) centre = u[g];
  if (load_x) side_x = u[g + ox];
  if (load_y) side_y = u[g + oy];
  for (size_t k = k0; k < k1; k++, g += sz) {
    T above = 0, next_x = 0, next_y = 0;
    if (in_grid) above = u[g + sz];
    if (load_x && k + 1 < k1) next_x = u[g + sz + ox];
    if (load_y && k + 1 < k1) next_y = u[g + sz + oy];
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous plane's reads are done */
    plane[ty + 1][tx + 1] = centre;
    if (load_x) plane[ty + 1][tx + 1 + hx] = side_x;
    if (load_y) plane[ty + 1 + hy][tx + 1] = side_y;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (interior)
      f[g] = cc * centre +
             cx * (plane[ty + 1][tx] + plane[ty + 1][tx + 2]) +
             cy * (plane[ty][tx + 1] + plane[ty + 2][tx + 1]) +
             cz * (below + above);
    below = centre;
    centre = above;
    side_x = next_x;
    side_y = next_y;
  }
}
#endif

/* opencl-zmarch-vector (cuda-zmarch-vector): VEC points an item along x,
 * 16 bytes (a double2 or a float4) loaded and stored as one vector; a
 * group a 32 x 8 tile of vectors marching along z over a chunk of at most
 * ZPLANES interior planes (the range's third dimension: groups start in
 * address order and live briefly, as a copy's do), planes k-1, k and k+1
 * of its vector in registers, the load of k+2 issued before plane k is
 * computed. The y neighbours come as vectors, the x neighbours at the
 * vector's two ends as single elements, through the caches. Built only
 * where a row holds whole vectors (nx a multiple of VEC, the launcher's
 * test), so that every vector is aligned (a cl_mem's base is at least 128
 * bytes). ZPLANES is this rung's program option. */
#ifdef ZPLANES
#ifdef KL_FP64
typedef double2 TV;
#define VEC 2
#define VSTORE vstore2
#define WEST(left, c) ((TV)((left), (c).s0))
#define EAST(c, right) ((TV)((c).s1, (right)))
#else
typedef float4 TV;
#define VEC 4
#define VSTORE vstore4
#define WEST(left, c) ((TV)((left), (c).s012))
#define EAST(c, right) ((TV)((c).s123, (right)))
#endif
__kernel void laplacian_zvector(__global const T *restrict u,
                                __global T *restrict f, const ulong nx,
                                const ulong ny, const ulong nz, const T cx,
                                const T cy, const T cz) {
  const size_t v = get_global_id(0), j = get_global_id(1);
  const size_t i0 = v * VEC;
  if (i0 >= nx || j == 0 || j >= ny - 1) return;
  const T cc = -2 * (cx + cy + cz);
  const size_t k0 = 1 + get_global_id(2) * ZPLANES;
  const size_t k1 = min(k0 + ZPLANES, (size_t)nz - 1);
  /* Strides in vectors, and the element index of the vector's first. */
  const size_t row = nx / VEC, slice = nx / VEC * ny;
  __global const TV *uv = (__global const TV *)u;
  __global TV *fv = (__global TV *)f;
  size_t gv = v + row * j + slice * k0, g = gv * VEC;
  TV below = uv[gv - slice], centre = uv[gv], above = uv[gv + slice];
  for (size_t k = k0; k < k1; k++, gv += slice, g += slice * VEC) {
    TV ahead = above;
    if (k + 1 < k1) ahead = uv[gv + 2 * slice];
    const TV south = uv[gv - row], north = uv[gv + row];
    const T left = i0 > 0 ? u[g - 1] : 0;
    const T right = i0 + VEC < nx ? u[g + VEC] : 0;
    const TV o = cc * centre + cx * (WEST(left, centre) + EAST(centre, right)) +
                 cy * (south + north) + cz * (below + above);
    if (i0 > 0 && i0 + VEC < nx) {
      fv[gv] = o;
    } else { /* the row's first or last vector: its interior points */
      T out[VEC];
      VSTORE(o, 0, out);
      for (int e = 0; e < VEC; e++)
        if (i0 + e > 0 && i0 + e < nx - 1) f[g + e] = out[e];
    }
    below = centre;
    centre = above;
    above = ahead;
  }
}
#endif
