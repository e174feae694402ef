/* laplacian: f = del^2 u by the 7-point finite-difference stencil on an
 * nx x ny x nz grid (seed 002), f64 and f32. x is fastest: point (i, j, k)
 * is element i + nx * (j + ny * k) of u and of f. Only interior points
 * (1 .. n-2 on every axis) are written; f's boundary comes back exactly as
 * it was, and u is never written. A grid with an extent below 3 has no
 * interior point: a rung writes nothing.
 * The stencil, as the rungs compute it (the seed's form), in the type T:
 *   cx = 1/hx^2, cy = 1/hy^2, cz = 1/hz^2, cc = -2 (cx + cy + cz)
 *   f = cc u + cx (u[i-1] + u[i+1]) + cy (u[j-1] + u[j+1])
 *            + cz (u[k-1] + u[k+1])
 * Cost model: the seed's effective bandwidth, every u element read once
 * and every interior f element written once; 10 flops per interior point
 * (3 pair additions, 4 multiplications, 3 additions); items: the interior
 * points. */
#ifndef KL_LAPLACIAN_H
#define KL_LAPLACIAN_H

#include <math.h>

#include "../../core/internal.h"

/* The plan's buffers: u (in) and f (inout: interior written, boundary
 * kept). */
enum { LAP_U, LAP_F };
/* The parameters, in the workload's order: nx is the main size (-n), and
 * -s NXxNYxNZ fills the extents; m is a tuning of the tiled GPU rungs,
 * planes one of the z-marching ones. */
enum {
  LAP_P_NX,
  LAP_P_NY,
  LAP_P_NZ,
  LAP_P_HX,
  LAP_P_HY,
  LAP_P_HZ,
  LAP_P_M,
  LAP_P_PLANES,
  LAP_PARAMS
};
#define LAP_NX(p) ((int64_t)(p)->value[LAP_P_NX])
#define LAP_NY(p) ((int64_t)(p)->value[LAP_P_NY])
#define LAP_NZ(p) ((int64_t)(p)->value[LAP_P_NZ])
/* The spacings (finite, nonzero: the plan says so) and the plan's
 * constants, the coefficients 1/h^2 in double: a rung rounds them to its
 * type, and derives cc = -2 (cx + cy + cz) in its type. */
#define LAP_HX(p) ((p)->value[LAP_P_HX])
#define LAP_HY(p) ((p)->value[LAP_P_HY])
#define LAP_HZ(p) ((p)->value[LAP_P_HZ])
/* The tiled rungs' points per thread along y: 1, 2, 4, 8 or 16 (the plan
 * refuses any other). */
#define LAP_M(p) ((int)(p)->value[LAP_P_M])
/* The z-marching rungs' planes per chunk; 0: each kernel's measured
 * best. */
#define LAP_PLANES(p) ((int64_t)(p)->value[LAP_P_PLANES])
enum { LAP_CX, LAP_CY, LAP_CZ };
#define LAP_C(p, axis) ((p)->constants[axis])
/* The grid's points, and whether it has an interior. */
#define LAP_POINTS(p) (LAP_NX(p) * LAP_NY(p) * LAP_NZ(p))
#define LAP_HAS_INTERIOR(p) (LAP_NX(p) > 2 && LAP_NY(p) > 2 && LAP_NZ(p) > 2)

/* The host rungs' common start, in a function with the plan p, the args a
 * and the extents nx, ny: u, f, the coefficients in T and the strides. */
#define LAP_HOST_BEGIN(T)                                                     \
  const T *restrict u = a->buffers[LAP_U];                                    \
  T *restrict f = a->buffers[LAP_F];                                          \
  const T cx = (T)LAP_C(p, LAP_CX), cy = (T)LAP_C(p, LAP_CY),                 \
          cz = (T)LAP_C(p, LAP_CZ), cc = -2 * (cx + cy + cz);                 \
  const int64_t sy = nx, sz = nx * ny
/* The value of point g of f, in the seed's order of the terms. */
#define LAP_HOST_VALUE(g)                                                     \
  (cc * u[g] + cx * (u[(g) - 1] + u[(g) + 1]) +                               \
   cy * (u[(g) - sy] + u[(g) + sy]) + cz * (u[(g) - sz] + u[(g) + sz]))
#define LAP_HOST_POINT(g) f[g] = LAP_HOST_VALUE(g)

#ifdef __cplusplus
extern "C" {
#endif
/* The check's rule (laplacian.c): the coefficients in long double, and
 * an interior point's reference and tolerance from its seven u values
 * (the centre, then x-, x+, y-, y+, z-, z+). */
typedef struct kl__lap_rule {
  long double cx, cy, cz, cc;
  double gamma, tiny;
} kl__lap_rule;
void kl__laplacian_rule(const kl_plan *p, kl__lap_rule *k);
/* A point's reference from its 7 values (centre, then the x, y and z
 * neighbours), and its tolerance: inline, in the checkers' loops. */
static inline void kl__laplacian_reference(const kl__lap_rule *k,
                                           const long double u[7],
                                           long double *want, double *tol) {
  *want = k->cc * u[0] + k->cx * (u[1] + u[2]) + k->cy * (u[3] + u[4]) +
          k->cz * (u[5] + u[6]);
  const long double m = fabsl(k->cc * u[0]) +
                        k->cx * (fabsl(u[1]) + fabsl(u[2])) +
                        k->cy * (fabsl(u[3]) + fabsl(u[4])) +
                        k->cz * (fabsl(u[5]) + fabsl(u[6]));
  *tol = (double)(m * (k->gamma + 0x1p-58L)) + k->tiny;
}
/* What laplacian-dist shares besides: the parameters (it takes those
 * before m), the spacings' checks and the coefficients into the plan's
 * constants (KL_USAGE saying why for a spacing that gives none), the
 * serial rung. */
extern const kl_param kl__laplacian_params[LAP_PARAMS];
kl_status kl__laplacian_coefficients(kl_plan *p);
kl_status kl__laplacian_serial(const kl_args *a);
kl_status kl__laplacian_omp(const kl_args *a);
kl_status kl__laplacian_acc(const kl_args *a);
kl_status kl__laplacian_acc_tiled(const kl_args *a);
kl_status kl__laplacian_omp_blocked(const kl_args *a);
kl_status kl__laplacian_omp_streaming(const kl_args *a);

/* The OpenCL rungs (laplacian-cl.c, laplacian.cl). */
kl_status kl__laplacian_cl_point(const kl_args *a);
kl_status kl__laplacian_cl_zmarch(const kl_args *a);
kl_status kl__laplacian_cl_point_setup(kl_args *a);
kl_status kl__laplacian_cl_zmarch_setup(kl_args *a);
kl_status kl__laplacian_cl_tiled(const kl_args *a);
kl_status kl__laplacian_cl_tiled_setup(kl_args *a);
kl_status kl__laplacian_cl_zvector(const kl_args *a);
kl_status kl__laplacian_cl_zvector_setup(kl_args *a);

/* The CUDA ladder (laplacian-cuda.cu): the seed's kernel 1, then kernels
 * 2 (loop tiling in y) and 3 (the same, loads in ascending addresses),
 * kernel 3 with launch bounds, and with streaming stores besides, each at
 * the plan's m (LAP_M). */
kl_status kl__laplacian_gpu_point(const kl_args *a);
kl_status kl__laplacian_gpu_point_streaming(const kl_args *a);
kl_status kl__laplacian_gpu_tiled(const kl_args *a);
kl_status kl__laplacian_gpu_reordered(const kl_args *a);
kl_status kl__laplacian_gpu_bounded(const kl_args *a);
kl_status kl__laplacian_gpu_streaming(const kl_args *a);
/* Beyond the seed, marching along z: x and y neighbours through L1, as
 * 16-byte vectors, or from shared memory; their setup counts the resident
 * blocks of each z-marching kernel. */
kl_status kl__laplacian_gpu_zmarch(const kl_args *a);
kl_status kl__laplacian_gpu_zmarch_vector(const kl_args *a);
kl_status kl__laplacian_gpu_zmarch_prefetch(const kl_args *a);
kl_status kl__laplacian_gpu_zmarch_shared(const kl_args *a);
kl_status kl__laplacian_gpu_zmarch_setup(kl_args *a);
/* cuda-zmarch-vector over the points lo .. hi - 1 of the plan's grid
 * alone (each inside its interior, 1 .. n - 2), on a stream of the
 * rung's context (laplacian-dist's cuda-nccl-overlap). */
kl_status kl__laplacian_gpu_zmarch_box(const kl_args *a, const int64_t lo[3],
                                       const int64_t hi[3], void *stream);
#ifdef __cplusplus
}
#endif

#endif
