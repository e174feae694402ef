/* laplacian-dist's GPU rungs (laplacian-dist.c has the split, the layout
 * and the check): the box's faces packed on the device, exchanged, and
 * unpacked into u's layer there; then laplacian's cuda-zmarch-vector on
 * the box (a plan of its extents). cuda-staged copies each face through
 * pinned host memory on both sides of the message: what a rank must do
 * with an MPI that takes only host memory (Debian's Open MPI, the H100
 * machine's); cuda-aware hands MPI the device's faces and stands aside
 * where MPI does not take them (kl_ranks.device_memory).
 * Every rank makes its exchange even after a failure of its own (its
 * faces then whatever they hold), so that no neighbour waits forever;
 * the failure is returned after, and the harness stops the rung on all. */
#include <stdint.h>

#include "../../backends/gpu.h"
#include "laplacian-dist.h"

#define PACK_BLOCK 256

/* Between plane `at` across `axis` of the box (its interior points) and
 * a packed face, x fastest, as the host rungs' plane_copy lays it out. */
template <typename T>
static __global__ void plane_kernel(T *grid, T *face, int64_t nx, int64_t ny,
                                    int64_t nz, int axis, int64_t at,
                                    int to_face) {
  const int64_t rows = axis == 0 ? ny - 2 : nx - 2;
  const int64_t cols = axis == 2 ? ny - 2 : nz - 2;
  const int64_t total = rows * cols;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = t % rows, c = t / rows;
    int64_t i, j, k;
    if (axis == 0) i = at, j = r + 1, k = c + 1;
    else if (axis == 1) i = r + 1, j = at, k = c + 1;
    else i = r + 1, j = c + 1, k = at;
    const int64_t g = i + nx * (j + ny * k);
    if (to_face) face[t] = grid[g];
    else grid[g] = face[t];
  }
}

template <typename T>
static kl_status plane(const kl_args *a, const box *b, T *face, int axis,
                       int64_t at, int to_face) {
  const int64_t points = kl__lapdist_face_points(b, axis);
  if (points < 1) return KL_OK;
  int64_t blocks = (points + PACK_BLOCK - 1) / PACK_BLOCK;
  if (blocks > KL_GPU_MAX_BLOCKS) blocks = KL_GPU_MAX_BLOCKS;
  plane_kernel<T><<<(unsigned)blocks, PACK_BLOCK, 0,
                    (cudaStream_t)a->stream>>>(
      (T *)a->buffers[LAP_U], face, b->ext[0], b->ext[1], b->ext[2], axis,
      at, to_face);
  KL_GPU_CHECK_LAUNCH(plane_kernel<T>);
  return KL_OK;
}

/* The exchange: pack, (stage,) send and receive, (stage,) unpack; its
 * seconds to phase 0. */
template <typename T>
static kl_status exchange(const kl_args *a, int staged) {
  const kl_plan *p = a->plan;
  const box b = box_of(p);
  cudaStream_t s = (cudaStream_t)a->stream;
  int nbs[3][2];
  kl_status st = kl__lapdist_neighbours(p, nbs);
  if (st != KL_OK) return st; /* the plan's: the same on every rank */
  const double t0 = kl__now();
  const int64_t face = p->buffers[DIST_FACES].count / 12;
  T *dev = (T *)a->buffers[DIST_FACES];
  T *host = staged ? (T *)a->buffers[DIST_STAGE] : NULL;
  kl_message m[6];
  int count = 0;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0) continue;
      const int q = 2 * axis + side;
      KL_KEEP(st, plane<T>(a, &b, dev + q * face, axis,
                           side ? b.ext[axis] - 2 : 1, 1));
      const size_t bytes =
          sizeof(T) * (size_t)kl__lapdist_face_points(&b, axis);
      T *send = (staged ? host : dev) + q * face;
      T *recv = (staged ? host : dev) + (6 + q) * face;
      if (staged)
        KL_KEEP(st, kl__gpu_status(cudaMemcpyAsync(send, dev + q * face,
                                                   bytes,
                                                   cudaMemcpyDeviceToHost, s),
                                   "cudaMemcpyAsync (face to host)"));
      const kl_message msg = {nbs[axis][side], axis, send, recv, bytes};
      m[count++] = msg;
    }
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                             "cudaStreamSynchronize"));
  /* Made whatever happened above: the neighbours wait for these. */
  kl__exchange_wait(p, kl__exchange_start(p, m, count));
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0) continue;
      const int q = 2 * axis + side;
      const size_t bytes =
          sizeof(T) * (size_t)kl__lapdist_face_points(&b, axis);
      if (staged)
        KL_KEEP(st, kl__gpu_status(
                        cudaMemcpyAsync(dev + (6 + q) * face,
                                        host + (6 + q) * face, bytes,
                                        cudaMemcpyHostToDevice, s),
                        "cudaMemcpyAsync (face to the device)"));
      KL_KEEP(st, plane<T>(a, &b, dev + (6 + q) * face, axis,
                           side ? b.ext[axis] - 1 : 0, 0));
    }
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                             "cudaStreamSynchronize"));
  kl__phase(a, 0, kl__now() - t0);
  return st;
}

template <typename T> static kl_status run(const kl_args *a, int staged) {
  kl_status st = exchange<T>(a, staged);
  if (st != KL_OK) return st;
  const double t0 = kl__now();
  kl_plan local;
  kl_args la;
  kl__lapdist_local_args(a, &local, &la);
  st = kl__laplacian_gpu_zmarch_vector(&la);
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize((cudaStream_t)a->stream),
                             "cudaStreamSynchronize"));
  kl__phase(a, 1, kl__now() - t0);
  return st;
}

extern "C" kl_status kl__lapdist_gpu_staged(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE, return run<T>(a, 1));
}

extern "C" kl_status kl__lapdist_gpu_aware(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE, return run<T>(a, 0));
}

/* The faces in device memory; the staged rung's pinned copies of them
 * besides. */
extern "C" kl_status kl__lapdist_gpu_scratch(kl_plan *p) {
  p->buffers[DIST_FACES].placement = KL_MEM_DEVICE;
  return KL_OK;
}

extern "C" kl_status kl__lapdist_gpu_staged_scratch(kl_plan *p) {
  p->buffers[DIST_FACES].placement = KL_MEM_DEVICE;
  return kl__plan_scratch(p, DIST_STAGE, "faces (pinned)", p->type,
                          p->buffers[DIST_FACES].count, KL_MEM_PINNED, 0);
}

/* laplacian's z-marching setup on the box's plan (its state: the blocks
 * each kernel keeps resident). */
extern "C" kl_status kl__lapdist_gpu_setup(kl_args *a) {
  kl_plan local;
  kl_args la;
  kl__lapdist_local_args(a, &local, &la);
  const kl_status st = kl__laplacian_gpu_zmarch_setup(&la);
  a->state = la.state;
  return st;
}

/* cuda-aware: only where MPI takes device memory, or one rank (nothing
 * sent). */
extern "C" kl_status kl__lapdist_gpu_aware_setup(kl_args *a) {
  if (kl__rank_count(a->plan) > 1 && !kl__ranks_device_memory(a->plan))
    return kl__usage(KL_UNAVAILABLE, "laplacian-dist cuda-aware: this MPI "
                     "takes no device memory (not CUDA-aware); "
                     "cuda-staged sends through pinned host memory");
  return kl__lapdist_gpu_setup(a);
}
