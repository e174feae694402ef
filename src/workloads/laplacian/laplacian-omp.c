#define _DEFAULT_SOURCE /* sysconf's _SC_LEVEL2_CACHE_SIZE */
#include <omp.h>
#include <unistd.h>

#include "laplacian.h"

/* Parallel over the (k, j) rows of the interior, collapsed so that thin
 * grids (few planes) still spread over every thread; each row's i loop a
 * simd loop of unit-stride loads and stores. The seed's form, as the
 * serial rung. */
#define OMP_ROWS(T)                                                           \
  do {                                                                        \
    LAP_HOST_BEGIN(T);                                                        \
    _Pragma("omp parallel for collapse(2) schedule(static)")                  \
    for (int64_t k = 1; k < nz - 1; k++)                                      \
      for (int64_t j = 1; j < ny - 1; j++) {                                  \
        const int64_t row = sy * j + sz * k;                                  \
        _Pragma("omp simd")                                                   \
        for (int64_t i = 1; i < nx - 1; i++) LAP_HOST_POINT(row + i);         \
      }                                                                       \
  } while (0)

kl_status kl__laplacian_omp(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  if (p->type == KL_F32) OMP_ROWS(float);
  else OMP_ROWS(double);
  return KL_OK;
}

/* The plain rung reads planes k-1 and k back from the L3 (a 512^2 f64
 * plane is 2 MiB, the L2 of a core here). Here each thread takes tasks of
 * (a run of planes, a block of rows) and marches its block along z, with
 * the block sized so that its rows in three planes fit in half a core's
 * L2: only plane k+1's rows come from memory. */
static int64_t l2_bytes(void) {
  long bytes = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
  bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  return bytes > 0 ? bytes : 1 << 20; /* the smallest L2 of a current core */
}

#define OMP_BLOCKS(T)                                                         \
  do {                                                                        \
    LAP_HOST_BEGIN(T);                                                        \
    const int64_t rows = ny - 2, planes = nz - 2;                             \
    const int64_t fit = l2_bytes() / 2 / (3 * nx * (int64_t)sizeof(T));       \
    const int64_t height = fit < 1 ? 1 : fit < rows ? fit : rows;             \
    const int64_t blocks = (rows + height - 1) / height;                      \
    const int64_t threads = omp_get_max_threads();                            \
    const int64_t run = (planes + threads - 1) / threads;                     \
    const int64_t runs = (planes + run - 1) / run;                            \
    _Pragma("omp parallel for collapse(2) schedule(static)")                  \
    for (int64_t r = 0; r < runs; r++)                                        \
      for (int64_t b = 0; b < blocks; b++) {                                  \
        const int64_t k1 = 1 + r * run, j1 = 1 + b * height;                  \
        const int64_t k2 = k1 + run < nz - 1 ? k1 + run : nz - 1;             \
        const int64_t j2 = j1 + height < ny - 1 ? j1 + height : ny - 1;       \
        for (int64_t k = k1; k < k2; k++)                                     \
          for (int64_t j = j1; j < j2; j++) {                                 \
            const int64_t row = sy * j + sz * k;                              \
            _Pragma("omp simd")                                               \
            for (int64_t i = 1; i < nx - 1; i++) LAP_HOST_POINT(row + i);     \
          }                                                                   \
      }                                                                       \
  } while (0)

kl_status kl__laplacian_omp_blocked(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  if (!LAP_HAS_INTERIOR(p)) return KL_OK;
  if (p->type == KL_F32) OMP_BLOCKS(float);
  else OMP_BLOCKS(double);
  return KL_OK;
}
