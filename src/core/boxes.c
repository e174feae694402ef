/* A box of points with a layer around it, x fastest (the distributed
 * workloads' layout): a sub-box copied to or from a packed buffer, and
 * the shell of a range (what an overlapped rung computes once its layer
 * has arrived). */
#include <string.h>

#include "internal.h"

void kl__box_copy(const int64_t ext[3], size_t es, char *grid, char *packed,
                  const int64_t lo[3], const int64_t hi[3], int to_packed,
                  int parallel) {
  const int64_t width = hi[0] - lo[0], height = hi[1] - lo[1];
  if (width < 1 || height < 1 || hi[2] <= lo[2]) return;
#pragma omp parallel for collapse(2) schedule(static) if (parallel)
  for (int64_t k = lo[2]; k < hi[2]; k++)
    for (int64_t j = lo[1]; j < hi[1]; j++) {
      char *g = grid + (size_t)(lo[0] + ext[0] * (j + ext[1] * k)) * es;
      char *f = packed +
                (size_t)(width * ((j - lo[1]) + height * (k - lo[2]))) * es;
      if (to_packed) memcpy(f, g, (size_t)width * es);
      else memcpy(g, f, (size_t)width * es);
    }
}

void kl__box_around(const int64_t lo[3], const int64_t hi[3],
                    const int64_t in_lo[3], const int64_t in_hi[3],
                    void (*fn)(void *ctx, const int64_t lo[3],
                               const int64_t hi[3]),
                    void *ctx) {
  /* The inner range inside the outer one, empty at its low end where it
   * has no point: then the low slab takes what is there. */
  int64_t ilo[3], ihi[3];
  for (int o = 0; o < 3; o++) {
    ilo[o] = in_lo[o] < lo[o] ? lo[o] : in_lo[o] > hi[o] ? hi[o] : in_lo[o];
    ihi[o] = in_hi[o] > hi[o] ? hi[o] : in_hi[o] < ilo[o] ? ilo[o] : in_hi[o];
  }
  for (int axis = 2; axis >= 0; axis--) {
    int64_t slo[3], shi[3];
    int empty = 0;
    for (int o = 0; o < 3; o++) {
      /* Axes after this one: their inner range; before: the whole. */
      slo[o] = o > axis ? ilo[o] : lo[o];
      shi[o] = o > axis ? ihi[o] : hi[o];
      empty |= o != axis && shi[o] <= slo[o];
    }
    if (empty) continue;
    if (ilo[axis] > lo[axis]) {
      slo[axis] = lo[axis];
      shi[axis] = ilo[axis];
      fn(ctx, slo, shi);
    }
    if (hi[axis] > ihi[axis]) {
      slo[axis] = ihi[axis];
      shi[axis] = hi[axis];
      fn(ctx, slo, shi);
    }
  }
}

void kl__box_shell(const int64_t lo[3], const int64_t hi[3],
                   void (*fn)(void *ctx, const int64_t lo[3],
                              const int64_t hi[3]),
                   void *ctx) {
  int64_t in_lo[3], in_hi[3];
  for (int o = 0; o < 3; o++) {
    in_lo[o] = lo[o] + 1;
    in_hi[o] = hi[o] - 1;
  }
  kl__box_around(lo, hi, in_lo, in_hi, fn, ctx);
}
