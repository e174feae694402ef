#include "laplacian.h"

/* Parallel over the (k, j) rows of the interior, collapsed so that thin
 * grids (few planes) still spread over every thread; each row's i loop a
 * simd loop of unit-stride loads and stores. The seed's form, as the
 * serial rung. */
#define OMP_ROWS(T)                                                           \
  do {                                                                        \
    const T *restrict u = a->buffers[LAP_U];                                  \
    T *restrict f = a->buffers[LAP_F];                                        \
    const T cx = (T)LAP_C(p, LAP_CX), cy = (T)LAP_C(p, LAP_CY),               \
            cz = (T)LAP_C(p, LAP_CZ), cc = -2 * (cx + cy + cz);               \
    const int64_t sy = nx, sz = nx * ny;                                      \
    _Pragma("omp parallel for collapse(2) schedule(static)")                  \
    for (int64_t k = 1; k < nz - 1; k++)                                      \
      for (int64_t j = 1; j < ny - 1; j++) {                                  \
        const int64_t row = sy * j + sz * k;                                  \
        _Pragma("omp simd")                                                   \
        for (int64_t i = 1; i < nx - 1; i++) {                                \
          const int64_t g = row + i;                                          \
          f[g] = cc * u[g] + cx * (u[g - 1] + u[g + 1]) +                     \
                 cy * (u[g - sy] + u[g + sy]) +                               \
                 cz * (u[g - sz] + u[g + sz]);                                \
        }                                                                     \
      }                                                                       \
  } while (0)

kl_status kl__laplacian_omp(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  if (p->type == KL_F32) OMP_ROWS(float);
  else OMP_ROWS(double);
  return KL_OK;
}
