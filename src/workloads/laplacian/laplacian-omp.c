#include <stdint.h>

#include "../../backends/host-store.h"
#include "laplacian.h"

/* Parallel over the (k, j) rows of the interior, collapsed so that thin
 * grids (few planes) still spread over every thread; each row's i loop a
 * simd loop of unit-stride loads and stores. The seed's form, as the
 * serial rung. */
kl_status kl__laplacian_omp(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  KL_FOR_FLOAT_TYPE(p->type, T, return KL_USAGE,
    LAP_HOST_BEGIN(T);
    _Pragma("omp parallel for collapse(2) schedule(static)")
    for (int64_t k = 1; k < nz - 1; k++)
      for (int64_t j = 1; j < ny - 1; j++) {
        const int64_t row = sy * j + sz * k;
        _Pragma("omp simd")
        for (int64_t i = 1; i < nx - 1; i++) LAP_HOST_POINT(row + i);
      });
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
typedef struct blocking {
  int64_t height, blocks; /* rows a block, blocks of rows */
  int64_t run, runs;      /* planes a run, runs of planes */
} blocking;

static blocking blocking_of(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), rows = LAP_NY(p) - 2, planes = LAP_NZ(p) - 2;
  const int64_t fit = a->ctx->device.l2_bytes / 2 /
                      (3 * nx * (int64_t)kl_type_size(p->type));
  blocking w;
  w.height = fit < 1 ? 1 : fit < rows ? fit : rows;
  w.blocks = (rows + w.height - 1) / w.height;
  const int64_t threads = kl__omp_threads();
  w.run = (planes + threads - 1) / threads;
  w.runs = (planes + w.run - 1) / w.run;
  return w;
}

/* One thread's share of the tasks, inside the rung's parallel region (an
 * orphaned omp for). Each row of f, points 1 .. nx-2: plainly, a simd
 * loop; or streaming, whole lines through a line of registers (or the
 * stack) and a streaming store, the partial lines at either end stored
 * plainly. `streaming` is a constant at each call, inlined into each
 * rung's region: GCC keeps only its branch. The workload's types are f32
 * and f64 alone. */
static inline void row_blocks(const kl_args *a, const blocking *w,
                              const int streaming) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  const int64_t height = w->height, run = w->run;
  KL_FOR_FLOAT_TYPE(p->type, T, (void)0,
    LAP_HOST_BEGIN(T);
    /* Points of T in a line. */
    const int64_t line_points = KL_LINE_BYTES / (int64_t)sizeof(T);
    _Pragma("omp for collapse(2) schedule(static) nowait")
    for (int64_t r = 0; r < w->runs; r++)
      for (int64_t b = 0; b < w->blocks; b++) {
        const int64_t k1 = 1 + r * run, j1 = 1 + b * height;
        const int64_t k2 = k1 + run < nz - 1 ? k1 + run : nz - 1;
        const int64_t j2 = j1 + height < ny - 1 ? j1 + height : ny - 1;
        for (int64_t k = k1; k < k2; k++)
          for (int64_t j = j1; j < j2; j++) {
            const int64_t row = sy * j + sz * k;
            if (!streaming) {
              _Pragma("omp simd")
              for (int64_t i = 1; i < nx - 1; i++) LAP_HOST_POINT(row + i);
              continue;
            }
            /* The first whole line starts at point lo >= 1: point 0 is
             * boundary. */
            const int64_t skew =
                (int64_t)((uintptr_t)(f + row) % KL_LINE_BYTES) /
                (int64_t)sizeof(T);
            const int64_t lo =
                line_points - skew < nx - 1 ? line_points - skew : nx - 1;
            const int64_t hi = lo + (nx - 1 - lo) / line_points * line_points;
            for (int64_t i = 1; i < lo; i++) LAP_HOST_POINT(row + i);
            for (int64_t i = lo; i < hi; i += line_points) {
              _Alignas(KL_LINE_BYTES) T line[KL_LINE_BYTES / sizeof(T)];
              _Pragma("omp simd")
              for (int64_t l = 0; l < line_points; l++)
                line[l] = LAP_HOST_VALUE(row + i + l);
              kl_store_line_streaming(f + row + i, line);
            }
            for (int64_t i = hi; i < nx - 1; i++) LAP_HOST_POINT(row + i);
          }
      }
    if (streaming) kl_store_streaming_fence());
}

kl_status kl__laplacian_omp_blocked(const kl_args *a) {
  if (!LAP_HAS_INTERIOR(a->plan)) return KL_OK;
  const blocking w = blocking_of(a);
  _Pragma("omp parallel")
  row_blocks(a, &w, 0);
  return KL_OK;
}

kl_status kl__laplacian_omp_streaming(const kl_args *a) {
  if (!LAP_HAS_INTERIOR(a->plan)) return KL_OK;
  const blocking w = blocking_of(a);
  _Pragma("omp parallel")
  row_blocks(a, &w, 1);
  return KL_OK;
}
