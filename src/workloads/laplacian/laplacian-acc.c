#include "laplacian.h"

/* A pragma of text that may span lines. */
#define PRAGMA(text) _Pragma(#text)

/* The rows (k, j) over the gangs, collapsed, and each row's points over
 * a gang's vector lanes: consecutive lanes read consecutive points.
 * (Collapsing all three loops costs two 64-bit divisions per point to
 * recover i, j, k from one index: 736 GB/s on the H100 against 2481 for
 * CUDA's one thread per point; LESSONS.md.) */
kl_status kl__laplacian_acc(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  KL_FOR_FLOAT_TYPE(p->type, T, return KL_USAGE,
    LAP_HOST_BEGIN(T);
    PRAGMA(acc parallel loop gang collapse(2) vector_length(128)
               deviceptr(u, f))
    for (int64_t k = 1; k < nz - 1; k++)
      for (int64_t j = 1; j < ny - 1; j++) {
        const int64_t row = sy * j + sz * k;
        _Pragma("acc loop vector")
        for (int64_t i = 1; i < nx - 1; i++) LAP_HOST_POINT(row + i);
      });
  return KL_OK;
}

/* Tiles by hand: blocks of TX x TY x TZ points, a gang each (the three
 * tile loops collapsed), the block's rows one after the other, each row's
 * points over the gang's 128 vector lanes, so that the rows and planes a
 * gang reads again are still in its SM's cache.
 * GCC 12's tile clause, which says the same, wrote boundary points on the
 * H100 where a tile ran past the grid's end (LESSONS.md). */
#define TX 128
#define TY 4
#define TZ 2

kl_status kl__laplacian_acc_tiled(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  KL_FOR_FLOAT_TYPE(p->type, T, return KL_USAGE,
    LAP_HOST_BEGIN(T);
    const int64_t tx = (nx - 2 + TX - 1) / TX, ty = (ny - 2 + TY - 1) / TY,
                  tz = (nz - 2 + TZ - 1) / TZ;
    PRAGMA(acc parallel loop gang collapse(3) vector_length(128)
               deviceptr(u, f))
    for (int64_t bk = 0; bk < tz; bk++)
      for (int64_t bj = 0; bj < ty; bj++)
        for (int64_t bi = 0; bi < tx; bi++) {
          const int64_t k0 = 1 + TZ * bk, j0 = 1 + TY * bj, i0 = 1 + TX * bi;
          const int64_t k1 = k0 + TZ < nz - 1 ? k0 + TZ : nz - 1;
          const int64_t j1 = j0 + TY < ny - 1 ? j0 + TY : ny - 1;
          const int64_t i1 = i0 + TX < nx - 1 ? i0 + TX : nx - 1;
          _Pragma("acc loop seq")
          for (int64_t k = k0; k < k1; k++)
            _Pragma("acc loop seq")
            for (int64_t j = j0; j < j1; j++) {
              const int64_t row = sy * j + sz * k;
              _Pragma("acc loop vector")
              for (int64_t i = i0; i < i1; i++) LAP_HOST_POINT(row + i);
            }
        });
  return KL_OK;
}
