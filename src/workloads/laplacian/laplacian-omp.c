#include <omp.h>
#include <stdint.h>

#include "../../backends/host-store.h"
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
 * L2 (the context's device.l2_bytes): only plane k+1's rows come from
 * memory. openmp-streaming writes f's whole lines with streaming stores
 * besides: no write-allocate read of f, a third less traffic than a
 * copy's; on a grid that fits in the last-level cache it sends to memory
 * what could have stayed there. */
#define LINE(T) (KL_LINE_BYTES / (int64_t)sizeof(T))

/* Row `row` of f, points 1 .. nx-2: whole lines through a line of
 * registers (or the stack) and a streaming store, the partial lines at
 * either end stored plainly. */
#define OMP_ROW_STREAMING(T, row)                                             \
  do {                                                                        \
    /* The first whole line starts at point lo >= 1: point 0 is boundary. */ \
    const int64_t skew = (int64_t)((uintptr_t)(f + (row)) % KL_LINE_BYTES) /  \
                         (int64_t)sizeof(T);                                  \
    const int64_t lo = LINE(T) - skew < nx - 1 ? LINE(T) - skew : nx - 1;     \
    const int64_t hi = lo + (nx - 1 - lo) / LINE(T) * LINE(T);                \
    for (int64_t i = 1; i < lo; i++) LAP_HOST_POINT((row) + i);               \
    for (int64_t i = lo; i < hi; i += LINE(T)) {                              \
      _Alignas(KL_LINE_BYTES) T line[LINE(T)];                                \
      _Pragma("omp simd")                                                     \
      for (int64_t l = 0; l < LINE(T); l++)                                   \
        line[l] = LAP_HOST_VALUE((row) + i + l);                              \
      kl_store_line_streaming(f + (row) + i, line);                           \
    }                                                                         \
    for (int64_t i = hi; i < nx - 1; i++) LAP_HOST_POINT((row) + i);          \
  } while (0)

#define OMP_BLOCKS(T, STREAMING)                                              \
  do {                                                                        \
    LAP_HOST_BEGIN(T);                                                        \
    const int64_t rows = ny - 2, planes = nz - 2;                             \
    const int64_t fit =                                                       \
        a->ctx->device.l2_bytes / 2 / (3 * nx * (int64_t)sizeof(T));          \
    const int64_t height = fit < 1 ? 1 : fit < rows ? fit : rows;             \
    const int64_t blocks = (rows + height - 1) / height;                      \
    const int64_t threads = omp_get_max_threads();                            \
    const int64_t run = (planes + threads - 1) / threads;                     \
    const int64_t runs = (planes + run - 1) / run;                            \
    _Pragma("omp parallel")                                                   \
    {                                                                         \
      _Pragma("omp for collapse(2) schedule(static) nowait")                  \
      for (int64_t r = 0; r < runs; r++)                                      \
        for (int64_t b = 0; b < blocks; b++) {                                \
          const int64_t k1 = 1 + r * run, j1 = 1 + b * height;                \
          const int64_t k2 = k1 + run < nz - 1 ? k1 + run : nz - 1;           \
          const int64_t j2 = j1 + height < ny - 1 ? j1 + height : ny - 1;     \
          for (int64_t k = k1; k < k2; k++)                                   \
            for (int64_t j = j1; j < j2; j++) {                               \
              const int64_t row = sy * j + sz * k;                            \
              if (STREAMING) {                                                \
                OMP_ROW_STREAMING(T, row);                                    \
              } else {                                                        \
                _Pragma("omp simd")                                           \
                for (int64_t i = 1; i < nx - 1; i++) LAP_HOST_POINT(row + i); \
              }                                                               \
            }                                                                 \
        }                                                                     \
      if (STREAMING) kl_store_streaming_fence();                              \
    }                                                                         \
  } while (0)

#define OMP_BLOCKED_RUNG(name, STREAMING)                                     \
  kl_status name(const kl_args *a) {                                          \
    const kl_plan *p = a->plan;                                               \
    const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);             \
    if (!LAP_HAS_INTERIOR(p)) return KL_OK;                                   \
    if (p->type == KL_F32) OMP_BLOCKS(float, STREAMING);                      \
    else OMP_BLOCKS(double, STREAMING);                                       \
    return KL_OK;                                                             \
  }
OMP_BLOCKED_RUNG(kl__laplacian_omp_blocked, 0)
OMP_BLOCKED_RUNG(kl__laplacian_omp_streaming, 1)
