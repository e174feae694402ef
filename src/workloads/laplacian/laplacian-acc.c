#include "laplacian.h"

/* Every interior point an iteration of one collapsed loop, partitioned by
 * the runtime. */
#define ACC_POINTS(T)                                                         \
  do {                                                                        \
    LAP_HOST_BEGIN(T);                                                        \
    _Pragma("acc parallel loop collapse(3) deviceptr(u, f)")                 \
    for (int64_t k = 1; k < nz - 1; k++)                                      \
      for (int64_t j = 1; j < ny - 1; j++)                                    \
        for (int64_t i = 1; i < nx - 1; i++)                                  \
          LAP_HOST_POINT(sy * j + sz * k + i);                                \
  } while (0)

kl_status kl__laplacian_acc(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  if (p->type == KL_F32) ACC_POINTS(float);
  else ACC_POINTS(double);
  return KL_OK;
}

/* The tile clause: blocks of 64 points along x, 4 rows along y and 2
 * planes along z, a block per gang, its points over the vector lanes, so
 * that neighbouring rows and planes are read by one gang while they are
 * in its SM's cache. */
#define ACC_TILED(T)                                                          \
  do {                                                                        \
    LAP_HOST_BEGIN(T);                                                        \
    _Pragma("acc parallel loop tile(64, 4, 2) deviceptr(u, f)")              \
    for (int64_t k = 1; k < nz - 1; k++)                                      \
      for (int64_t j = 1; j < ny - 1; j++)                                    \
        for (int64_t i = 1; i < nx - 1; i++)                                  \
          LAP_HOST_POINT(sy * j + sz * k + i);                                \
  } while (0)

kl_status kl__laplacian_acc_tiled(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  if (p->type == KL_F32) ACC_TILED(float);
  else ACC_TILED(double);
  return KL_OK;
}
