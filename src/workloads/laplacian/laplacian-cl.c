/* laplacian's OpenCL rungs (laplacian.cl): the seed's kernel 1 (a point a
 * work-item over a 3D range) and a z-march (a column a work-item, the
 * three planes of its point in registers; on a CPU a row a work-item, its
 * i loop contiguous). Groups of 32 x 4 (x 1) on a GPU, the runtime's
 * choice on a CPU. Then the tiled z-march (2.5D blocking): a group a tile
 * of (i, j), plane k's tile and halo in local memory; on a CPU the
 * z-march's row a work-item. Last the vector z-march: 16 bytes an item
 * along x, short chunks of planes. */
#include <stdio.h>

#include "../../backends/opencl.h"
#include "cl-sources.h"
#include "laplacian.h"

static kl_status setup(kl_args *a, const char *name) {
  return kl__cl_rung_kernel(a, kl__cl_source_laplacian, 1,
                            kl__cl_stride_option(a), name, 0);
}

kl_status kl__laplacian_cl_point_setup(kl_args *a) {
  return setup(a, "laplacian_point");
}

kl_status kl__laplacian_cl_zmarch_setup(kl_args *a) {
  return setup(a, "laplacian_zmarch");
}

/* Every laplacian kernel's arguments: u, f, the extents n, and the
 * coefficients cx, cy, cz in the plan's type. */
static kl_status set_args(const kl_args *a, cl_kernel k,
                          const cl_ulong n[3]) {
  const kl_plan *p = a->plan;
  cl_mem u = a->buffers[LAP_U], f = a->buffers[LAP_F];
  KL_CL_ARG(k, 0, u);
  KL_CL_ARG(k, 1, f);
  for (cl_uint d = 0; d < 3; d++) KL_CL_ARG(k, 2 + d, n[d]);
  for (int c = 0; c < 3; c++) {
    if (p->type == KL_F32) {
      const cl_float v = (cl_float)LAP_C(p, c);
      KL_CL_ARG(k, 5 + (cl_uint)c, v);
    } else {
      const cl_double v = LAP_C(p, c);
      KL_CL_ARG(k, 5 + (cl_uint)c, v);
    }
  }
  return KL_OK;
}

static kl_status run(const kl_args *a, cl_uint dims) {
  const kl_plan *p = a->plan;
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  cl_kernel k = a->state.pointer[0];
  const cl_ulong n[3] = {(cl_ulong)LAP_NX(p), (cl_ulong)LAP_NY(p),
                         (cl_ulong)LAP_NZ(p)};
  const kl_status st = set_args(a, k, n);
  if (st != KL_OK) return st;
  const size_t group[3] = {32, 4, 1};
  /* The z-march on a CPU: a row an item, over (j, k). */
  const int rows = dims == 2 && kl__cl_on_cpu(a);
  size_t global[3];
  for (cl_uint d = 0; d < 3; d++) {
    global[d] = (size_t)n[rows ? d + 1 : d] - 2;
    if (!kl__cl_on_cpu(a))
      global[d] = (global[d] + group[d] - 1) / group[d] * group[d];
    if (rows && d == 1) break;
  }
  KL_CL_CHECK(kl__cl.EnqueueNDRangeKernel(
      kl__cl_queue(a), k, dims, NULL, global,
      kl__cl_on_cpu(a) ? NULL : group, 0, NULL, NULL));
  return KL_OK;
}

kl_status kl__laplacian_cl_point(const kl_args *a) { return run(a, 3); }
kl_status kl__laplacian_cl_zmarch(const kl_args *a) { return run(a, 2); }

/* ---- opencl-tiled ------------------------------------------------------- */

/* The tile and the planes a group marches over: cuda-zmarch-shared's
 * 32 x 8 and short chunks (4 to 8 planes, LESSONS.md) on a GPU. On a CPU
 * the rung is opencl-zmarch's row a work-item: PoCL runs the tiled
 * kernel's items as loops cut at each barrier, 12-19x slower than that
 * at 192^3 whatever the tile and chunk (LESSONS.md). */
#define TILE_X 32
#define TILE_Y 8
#define TILE_PLANES 8

kl_status kl__laplacian_cl_tiled_setup(kl_args *a) {
  if (kl__cl_on_cpu(a)) return setup(a, "laplacian_zmarch");
  char options[96];
  snprintf(options, sizeof options, "-DBX=%d -DBY=%d -DPLANES=%d", TILE_X,
           TILE_Y, TILE_PLANES);
  return kl__cl_rung_kernel(a, kl__cl_source_laplacian, 1, options,
                            "laplacian_tiled", 0);
}

/* A marching kernel's launch on a GPU (laplacian_tiled,
 * laplacian_zvector): groups of bx x by items over `units` items along x
 * (a point or a vector each) and the whole y, and over the interior's z a
 * chunk of `planes` planes a group. */
static kl_status launch_chunks(const kl_args *a, size_t units, size_t bx,
                               size_t by, size_t planes) {
  const kl_plan *p = a->plan;
  cl_kernel k = a->state.pointer[0];
  const cl_ulong n[3] = {(cl_ulong)LAP_NX(p), (cl_ulong)LAP_NY(p),
                         (cl_ulong)LAP_NZ(p)};
  const kl_status st = set_args(a, k, n);
  if (st != KL_OK) return st;
  const size_t group[3] = {bx, by, 1};
  const size_t global[3] = {(units + bx - 1) / bx * bx,
                            ((size_t)n[1] + by - 1) / by * by,
                            ((size_t)n[2] - 2 + planes - 1) / planes};
  KL_CL_CHECK(kl__cl.EnqueueNDRangeKernel(kl__cl_queue(a), k, 3, NULL,
                                          global, group, 0, NULL, NULL));
  return KL_OK;
}

kl_status kl__laplacian_cl_tiled(const kl_args *a) {
  const kl_plan *p = a->plan;
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  if (kl__cl_on_cpu(a)) return run(a, 2);
  /* Tiles over the whole x and y (boundary points load their tile's
   * halo), chunks of planes over the interior's z. */
  return launch_chunks(a, (size_t)LAP_NX(p), TILE_X, TILE_Y, TILE_PLANES);
}

/* ---- opencl-zmarch-vector ------------------------------------------------ */

/* cuda-zmarch-vector's shape: 16 bytes an item along x, 32 x 8 items a
 * group, chunks of 4 planes (laplacian_zvector). Where a row does not hold
 * whole vectors, opencl-zmarch's column; on a CPU its row. */
#define ZVEC_X 32
#define ZVEC_Y 8
#define ZVEC_PLANES 4

/* The elements of the plan's type in 16 bytes (laplacian_zvector's VEC). */
static int64_t vector_width(const kl_plan *p) {
  return p->type == KL_F32 ? 4 : 2;
}

static int zvector_fits(const kl_args *a) {
  return !kl__cl_on_cpu(a) && LAP_NX(a->plan) % vector_width(a->plan) == 0;
}

kl_status kl__laplacian_cl_zvector_setup(kl_args *a) {
  if (!zvector_fits(a)) return setup(a, "laplacian_zmarch");
  char options[64];
  snprintf(options, sizeof options, "-DZPLANES=%d", ZVEC_PLANES);
  return kl__cl_rung_kernel(a, kl__cl_source_laplacian, 1, options,
                            "laplacian_zvector", 0);
}

kl_status kl__laplacian_cl_zvector(const kl_args *a) {
  const kl_plan *p = a->plan;
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  if (!zvector_fits(a)) return run(a, 2);
  return launch_chunks(a, (size_t)(LAP_NX(p) / vector_width(p)), ZVEC_X,
                       ZVEC_Y, ZVEC_PLANES);
}
