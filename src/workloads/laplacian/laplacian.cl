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
