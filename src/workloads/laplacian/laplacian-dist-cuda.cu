/* laplacian-dist's GPU rungs (laplacian-dist.c has the split, the layout
 * and the check): the box's faces packed on the device, exchanged, and
 * unpacked into u's layer there; then laplacian's cuda-zmarch-vector on
 * the box (a plan of its extents). cuda-staged copies each face through
 * pinned host memory on both sides of the message: what a rank must do
 * with an MPI that takes only host memory (Debian's Open MPI, for one);
 * cuda-mapped packs them straight into pinned host memory
 * (mapped into the device's address space) and unpacks them from there,
 * the SMs driving the bus where cuda-staged's copy engine does, for the
 * same MPI; cuda-aware hands MPI the device's faces and stands aside
 * where MPI does not take them (kl_ranks.device_memory).
 * Every rank makes its exchange even after a failure of its own (its
 * faces then whatever they hold), so that no neighbour waits forever;
 * the failure is returned after, and the harness stops the rung on all.
 * The packing kernel and the stencil after the exchange are shared with
 * the NCCL rung (laplacian-dist-gpu.h). */
#include <unistd.h> /* sysconf */

#include "laplacian-dist-gpu.h"

/* The context's events that bound the exchange's device phases (the
 * harness's are 0 and 1), all on the rung's stream: before the pack,
 * after it (before the first copy to the host), after the last copy to
 * the host, before the first copy back, after the last (before the
 * unpack), after the unpack. cuda-aware records no copies' events.
 * E_BACK is recorded on an idle stream (the host has just waited for the
 * messages), so h2d holds the host's issue of the first copy back too (a
 * few us): the rate the rung gets, a little under the copy engine's. */
enum { E_PACK = 2, E_PACKED, E_STAGED, E_BACK, E_UNSTAGED, E_UNPACKED };

/* Where a rung's faces go between the device and the messages: from
 * device memory (cuda-aware), copied through pinned host memory
 * (cuda-staged), packed into and unpacked from pinned host memory by the
 * kernels themselves (cuda-mapped: the faces buffer is there), or copied
 * straight into the neighbour's part of the memory the ranks share and
 * from this rank's (cuda-shared: the messages only notes). */
enum { PATH_DEVICE, PATH_STAGED, PATH_MAPPED, PATH_SHARED };

/* The exchange: pack, (stage,) send and receive, (stage,) unpack; its
 * phases DIST_PH_PACK to DIST_PH_H2D (laplacian-dist.h). The device's
 * phases are read after the stream's last wait, which every event
 * precedes, so that no host wait is added; the messages are the host's
 * wall time, as the whole exchange was. cuda-mapped's packing kernels
 * move the faces over the bus: its d2h and h2d phases are their times,
 * its pack phase 0. */
template <typename T>
static kl_status exchange(const kl_args *a, int path) {
  const int staged = path == PATH_STAGED;
  /* cuda-shared's faces in the memory the ranks share (NULL at one rank,
   * which has no neighbour). */
  lapdist_shared *sh = path == PATH_SHARED
                           ? (lapdist_shared *)a->state.pointer[DIST_SHARED]
                           : NULL;
  const int copies = staged || path == PATH_SHARED;
  const kl_plan *p = a->plan;
  const kl_backend *be = a->ctx->backend;
  const box b = box_of(p);
  cudaStream_t s = (cudaStream_t)a->stream;
  int nbs[3][2];
  kl_status st = kl__lapdist_neighbours(p, nbs);
  if (st != KL_OK) return st; /* the plan's: the same on every rank */
  const int64_t face = p->buffers[DIST_FACES].count / 12;
  /* The faces: in device memory, or cuda-mapped's in pinned host memory
   * that the kernels reach through its mapping. */
  T *dev = (T *)a->buffers[DIST_FACES];
  T *host = staged ? (T *)a->buffers[DIST_STAGE] : NULL;
  kl_message m[6];
  int count = 0;
  KL_KEEP(st, be->record(a->ctx, E_PACK, 0));
  KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 1, 0));
  KL_KEEP(st, be->record(a->ctx, E_PACKED, 0));
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0) continue;
      const int q = 2 * axis + side;
      const size_t bytes =
          sizeof(T) * (size_t)kl__lapdist_face_points(&b, axis);
      T *send = (staged ? host : dev) + q * face;
      T *recv = (staged ? host : dev) + (6 + q) * face;
      /* cuda-shared's lands in the neighbour's set, as its face from the
       * other side. */
      if (sh) send = (T *)lapdist_slot(sh, sh->theirs[axis][side], axis, !side);
      if (copies)
        KL_KEEP(st, kl__gpu_status(cudaMemcpyAsync(send, dev + q * face,
                                                   bytes,
                                                   cudaMemcpyDeviceToHost, s),
                                   "cudaMemcpyAsync (face to host)"));
      const kl_message msg = {nbs[axis][side], axis, send, recv, bytes};
      m[count++] = msg;
    }
  if (copies) KL_KEEP(st, be->record(a->ctx, E_STAGED, 0));
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                             "cudaStreamSynchronize"));
  /* Made whatever happened above: the neighbours wait for these. */
  const double t0 = kl__now();
  if (sh) KL_KEEP(st, kl__lapdist_notes(a, nbs));
  else kl__exchange_wait(p, kl__exchange_start(p, m, count));
  const double messages = kl__now() - t0;
  if (copies) KL_KEEP(st, be->record(a->ctx, E_BACK, 0));
  for (int axis = 0; copies && axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0) continue;
      const int q = 2 * axis + side;
      const size_t bytes =
          sizeof(T) * (size_t)kl__lapdist_face_points(&b, axis);
      const T *from = sh ? (const T *)lapdist_slot(sh, sh->mine, axis, side)
                         : host + (6 + q) * face;
      KL_KEEP(st, kl__gpu_status(cudaMemcpyAsync(dev + (6 + q) * face, from,
                                                 bytes,
                                                 cudaMemcpyHostToDevice, s),
                                 "cudaMemcpyAsync (face to the device)"));
    }
  if (sh) sh->parity ^= 1;
  KL_KEEP(st, be->record(a->ctx, E_UNSTAGED, 0));
  KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 0, 0));
  KL_KEEP(st, be->record(a->ctx, E_UNPACKED, 0));
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                             "cudaStreamSynchronize"));
  kl__phase(a, DIST_PH_MESSAGES, messages);
  /* A rank that failed may have left an event unrecorded (or one of an
   * earlier run in it); its run is stopped, its phases not read. */
  if (st != KL_OK) return st;
  double pack = 0, unpack = 0, d2h = 0, h2d = 0;
  KL_KEEP(st, be->elapsed(a->ctx, E_PACK, E_PACKED, &pack));
  KL_KEEP(st, be->elapsed(a->ctx, E_UNSTAGED, E_UNPACKED, &unpack));
  if (copies) {
    KL_KEEP(st, be->elapsed(a->ctx, E_PACKED, E_STAGED, &d2h));
    KL_KEEP(st, be->elapsed(a->ctx, E_BACK, E_UNSTAGED, &h2d));
  }
  if (path == PATH_MAPPED) {
    d2h = pack;
    h2d = unpack;
    pack = unpack = 0;
  }
  kl__phase(a, DIST_PH_PACK, pack + unpack);
  kl__phase(a, DIST_PH_D2H, d2h);
  kl__phase(a, DIST_PH_H2D, h2d);
  return st;
}

template <typename T> static kl_status run(const kl_args *a, int path) {
  const kl_status st = exchange<T>(a, path);
  return st != KL_OK ? st : kl__lapdist_gpu_stencil(a, DIST_PH_STENCIL);
}

extern "C" kl_status kl__lapdist_gpu_staged(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return run<T>(a, PATH_STAGED));
}

extern "C" kl_status kl__lapdist_gpu_mapped(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return run<T>(a, PATH_MAPPED));
}

extern "C" kl_status kl__lapdist_gpu_shared(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return run<T>(a, PATH_SHARED));
}

extern "C" kl_status kl__lapdist_gpu_aware(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return run<T>(a, PATH_DEVICE));
}

/* The faces in device memory; the staged rung's pinned copies of them
 * besides. */
extern "C" kl_status kl__lapdist_gpu_scratch(kl_plan *p) {
  p->buffers[DIST_FACES].placement = KL_MEM_DEVICE;
  return KL_OK;
}

/* cuda-mapped's faces in pinned host memory, which the device's kernels
 * read and write through its mapping (every pinned allocation of a
 * unified address space has one). */
extern "C" kl_status kl__lapdist_gpu_mapped_scratch(kl_plan *p) {
  p->buffers[DIST_FACES].placement = KL_MEM_PINNED;
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

/* cuda-shared's parts of the shared memory: this rank's and each
 * neighbour's, those the copies reach. */
static void shared_parts(const lapdist_shared *s, char *parts[7]) {
  parts[0] = s->mine;
  for (int q = 0; q < 6; q++) parts[1 + q] = s->theirs[q / 2][q % 2];
}

/* cuda-shared: laplacian's setup, the shared faces (kl__lapdist_share,
 * each part on a page of its own), and each part this rank's copies
 * reach registered with the device (pinned for its copy engine), agreed
 * over the ranks. */
extern "C" kl_status kl__lapdist_gpu_shared_setup(kl_args *a) {
  const long page = sysconf(_SC_PAGESIZE);
  kl_status st = kl__lapdist_share(a, kl__lapdist_gpu_setup(a),
                                   page > 0 ? (size_t)page : 4096);
  lapdist_shared *s = (lapdist_shared *)a->state.pointer[DIST_SHARED];
  if (st != KL_OK || !s) return st; /* agreed; or one rank */
  char *parts[7];
  shared_parts(s, parts);
  for (int i = 0; i < 7 && st == KL_OK; i++) {
    if (!parts[i]) continue;
    st = kl__gpu_status(cudaHostRegister(parts[i], s->bytes,
                                         cudaHostRegisterDefault),
                        "cudaHostRegister (the faces the ranks share)");
    if (st == KL_OK) s->pinned |= 1u << i;
  }
  st = kl__ranks_agreed(a->plan, st);
  if (st != KL_OK) kl__lapdist_gpu_shared_teardown(a);
  return st;
}

extern "C" void kl__lapdist_gpu_shared_teardown(kl_args *a) {
  lapdist_shared *s = (lapdist_shared *)a->state.pointer[DIST_SHARED];
  if (!s) return;
  char *parts[7];
  shared_parts(s, parts);
  for (int i = 0; i < 7; i++)
    if (s->pinned >> i & 1)
      (void)kl__gpu_status(cudaHostUnregister(parts[i]),
                           "cudaHostUnregister (the faces the ranks share)");
  s->pinned = 0;
  kl__lapdist_unshare(a); /* collective: every rank tears down */
}
