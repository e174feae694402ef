/* What laplacian-dist's GPU rungs share (laplacian-dist-cuda.cu: staged
 * and aware, through kl_ranks; laplacian-dist-nccl.cu: NCCL): the face
 * packing kernel and its launcher, and the stencil on the box after the
 * exchange. */
#ifndef KL_LAPLACIAN_DIST_GPU_H
#define KL_LAPLACIAN_DIST_GPU_H

#include <stdint.h>

#include "../../backends/gpu.h"
#include "laplacian-dist.h"

#define PACK_BLOCK 256

/* Between plane `at` across `axis` of the box (its interior points) and
 * a packed face, x fastest, as the host rungs' plane_copy lays it out:
 * thread x of the grid a point along the face's first axis (x, or y for
 * a face across x), block row y a line of the second, strided by the
 * grid's rows; no division a point. */
template <typename T>
static __global__ void plane_kernel(T *grid, T *face, int64_t nx, int64_t ny,
                                    int64_t nz, int axis, int64_t at,
                                    int to_face) {
  const int64_t rows = axis == 0 ? ny - 2 : nx - 2;
  const int64_t cols = axis == 2 ? ny - 2 : nz - 2;
  const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int64_t c = blockIdx.y; c < cols; c += gridDim.y) {
    int64_t i, j, k;
    if (axis == 0) i = at, j = r + 1, k = c + 1;
    else if (axis == 1) i = r + 1, j = at, k = c + 1;
    else i = r + 1, j = c + 1, k = at;
    const int64_t g = i + nx * (j + ny * k);
    if (to_face) face[r + rows * c] = grid[g];
    else grid[g] = face[r + rows * c];
  }
}

/* The face across `axis` at plane `at` of u packed into `face`
 * (to_face), or unpacked from it, on the rung's stream. */
template <typename T>
static kl_status plane(const kl_args *a, const box *b, T *face, int axis,
                       int64_t at, int to_face) {
  if (kl__lapdist_face_points(b, axis) < 1) return KL_OK;
  const int64_t rows = axis == 0 ? b->ext[1] - 2 : b->ext[0] - 2;
  const int64_t cols = axis == 2 ? b->ext[1] - 2 : b->ext[2] - 2;
  const dim3 grid((unsigned)((rows + PACK_BLOCK - 1) / PACK_BLOCK),
                  (unsigned)(cols < 65535 ? cols : 65535));
  plane_kernel<T><<<grid, PACK_BLOCK, 0, (cudaStream_t)a->stream>>>(
      (T *)a->buffers[LAP_U], face, b->ext[0], b->ext[1], b->ext[2], axis,
      at, to_face);
  KL_GPU_CHECK_LAUNCH(plane_kernel<T>);
  return KL_OK;
}

/* Every face that has a neighbour, on the rung's stream: packed
 * (to_face) from u's planes next to the layer into faces[q], q = 2 axis +
 * side, each `face` elements apart; or unpacked from faces[6 + q] into
 * u's layer. Where z_in_place, the faces across z are left alone. */
template <typename T>
static kl_status faces(const kl_args *a, const box *b, const int nbs[3][2],
                       T *dev, int64_t face, int to_face, int z_in_place) {
  kl_status st = KL_OK;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0 || (axis == 2 && z_in_place)) continue;
      const int q = 2 * axis + side;
      const int64_t at = to_face ? (side ? b->ext[axis] - 2 : 1)
                                 : (side ? b->ext[axis] - 1 : 0);
      KL_KEEP(st, plane<T>(a, b, dev + (to_face ? q : 6 + q) * face, axis,
                           at, to_face));
    }
  return st;
}

/* After the exchange: laplacian's cuda-zmarch-vector on the box (a plan
 * of its extents), waited for; its seconds to phase `phase`. */
static inline kl_status kl__lapdist_gpu_stencil(const kl_args *a,
                                                int phase) {
  const double t0 = kl__now();
  kl_plan local;
  kl_args la;
  kl__lapdist_local_args(a, &local, &la);
  kl_status st = kl__laplacian_gpu_zmarch_vector(&la);
  KL_KEEP(st, KL_GPU_STATUS(cudaStreamSynchronize((cudaStream_t)a->stream)));
  kl__phase(a, phase, kl__now() - t0);
  return st;
}

#endif
