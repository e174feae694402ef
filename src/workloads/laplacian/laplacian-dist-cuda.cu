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
 * the failure is returned after, and the harness stops the rung on all.
 * The packing kernel and the stencil after the exchange are shared with
 * the NCCL rung (laplacian-dist-gpu.h). */
#include "laplacian-dist-gpu.h"

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
  KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 1));
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0) continue;
      const int q = 2 * axis + side;
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
  for (int axis = 0; staged && axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0) continue;
      const int q = 2 * axis + side;
      const size_t bytes =
          sizeof(T) * (size_t)kl__lapdist_face_points(&b, axis);
      KL_KEEP(st, kl__gpu_status(cudaMemcpyAsync(dev + (6 + q) * face,
                                                 host + (6 + q) * face, bytes,
                                                 cudaMemcpyHostToDevice, s),
                                 "cudaMemcpyAsync (face to the device)"));
    }
  KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 0));
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                             "cudaStreamSynchronize"));
  kl__phase(a, 0, kl__now() - t0);
  return st;
}

template <typename T> static kl_status run(const kl_args *a, int staged) {
  const kl_status st = exchange<T>(a, staged);
  return st != KL_OK ? st : kl__lapdist_gpu_stencil(a);
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
