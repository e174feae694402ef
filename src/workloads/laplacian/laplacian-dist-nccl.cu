/* laplacian-dist's NCCL rung (laplacian-dist.c has the split, the layout
 * and the check): the box's faces packed on the device as cuda-staged
 * packs them (laplacian-dist-gpu.h), but for the faces across z where
 * the box has no neighbour along x, sent from u's plane and received
 * into its layer as they lie (kl__lapdist_z_in_place: no kernel, no
 * extra pass over memory); sent and received by ncclSend and ncclRecv in
 * one group on the rung's stream, device to device with no
 * host staging and no wait between the packing and the messages, and
 * unpacked into u's layer on the same stream; then laplacian's
 * cuda-zmarch-vector on the box, queued behind them: no host wait
 * between the exchange and the stencil (waiting cost ~10-20 us of idle
 * GPU a run, 2% of 512^3 f64 on two H100s). The phases are timed by the
 * context's events 2 to 4 on the stream (the harness's are 0 and 1).
 * The communicator is the context's
 * (backends/ranks-nccl.cu), made by the setup, which stands aside where
 * two ranks share a GPU. NCCL's messages have no tags: a pair of ranks
 * shares at most one face (the grid of ranks is not periodic), so each
 * pair's one send and one receive each way match in order.
 * Every rank makes its group even after a failure of its own (its faces
 * then whatever they hold), so that no neighbour waits forever; the
 * failure is returned after, and the harness stops the rung on all.
 * cuda-nccl-overlap (below) hides the exchange: it runs on the context's
 * urgent stream, then the shell of points next to the faces, while the
 * rung's stream computes the interior. */
#include "../../backends/gpu-nccl.h"
#include "laplacian-dist-gpu.h"

/* The context's events that bound the phases: before the pack, after the
 * unpack, after the stencil (the overlapped rung: after the shell, on
 * the urgent stream, and after the interior). */
enum { E_START = 2, E_EXCHANGED, E_DONE, E_SHELL = E_DONE, E_INTERIOR };

/* Event e of the context recorded on stream s. */
static kl_status mark(const kl_args *a, int e, cudaStream_t s) {
  return KL_GPU_STATUS(cudaEventRecord(kl__gpu_event(a->ctx, e), s));
}

/* Pack, exchange and unpack, all on a's stream, then event E_EXCHANGED;
 * nothing waited for. */
template <typename T>
static kl_status exchange(const kl_args *a, ncclComm_t comm) {
  const kl_plan *p = a->plan;
  const box b = box_of(p);
  cudaStream_t s = (cudaStream_t)a->stream;
  int nbs[3][2];
  kl_status st = kl__lapdist_neighbours(p, nbs);
  if (st != KL_OK) return st; /* the plan's: the same on every rank */
  const int64_t face = p->buffers[DIST_FACES].count / 12;
  T *dev = (T *)a->buffers[DIST_FACES];
  const ncclDataType_t type = kl__nccl_type(p->type);
  const int z_in_place = kl__lapdist_z_in_place(nbs);
  T *u = (T *)a->buffers[LAP_U];
  KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 1, z_in_place));
  if (comm) {
    /* Made whatever happened above: the neighbours wait for these. A
     * group once started is ended, whatever failed inside it. */
    const kl_status started = KL_NCCL_STATUS(ncclGroupStart());
    kl_status sent = started;
    for (int axis = 0; axis < 3; axis++)
      for (int side = 0; side < 2; side++) {
        const int nb = nbs[axis][side];
        /* A neighbour's face is as large as this rank's: the box shares
         * its extents across the axis. */
        size_t points = (size_t)kl__lapdist_face_points(&b, axis);
        if (nb < 0 || points < 1) continue;
        const int q = 2 * axis + side;
        T *send = dev + q * face, *recv = dev + (6 + q) * face;
        if (axis == 2 && z_in_place) {
          points = (size_t)kl__lapdist_z_run(&b);
          send = u + kl__lapdist_z_start(&b, side, 1);
          recv = u + kl__lapdist_z_start(&b, side, 0);
        }
        KL_KEEP(sent, KL_NCCL_STATUS(ncclSend(send, points, type, nb, comm,
                                              s)));
        KL_KEEP(sent, KL_NCCL_STATUS(ncclRecv(recv, points, type, nb, comm,
                                              s)));
      }
    if (started == KL_OK) {
      const kl_status ended = KL_NCCL_STATUS(ncclGroupEnd());
      KL_KEEP(sent, ended);
    }
    KL_KEEP(st, sent);
  }
  KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 0, z_in_place));
  KL_KEEP(st, mark(a, E_EXCHANGED, s));
  return st;
}

/* The communicator; none where the setup made none, which stops the rung
 * on every rank before it runs (more than one rank). */
static kl_status comm_of(const kl_args *a, ncclComm_t *comm) {
  *comm = kl__nccl_comm(a);
  if (kl__rank_count(a->plan) > 1 && !*comm)
    return KL_FAIL(KL_DEVICE, "laplacian-dist: no NCCL communicator");
  return KL_OK;
}

template <typename T> static kl_status run(const kl_args *a) {
  ncclComm_t comm;
  kl_status st = comm_of(a, &comm);
  if (st != KL_OK) return st;
  st = mark(a, E_START, (cudaStream_t)a->stream);
  KL_KEEP(st, exchange<T>(a, comm));
  if (st != KL_OK) return st;
  kl_plan local;
  kl_args la;
  kl__lapdist_local_args(a, &local, &la);
  st = kl__laplacian_gpu_zmarch_vector(&la);
  const kl_backend *be = a->ctx->backend;
  KL_KEEP(st, be->record(a->ctx, E_DONE, 0));
  /* elapsed waits for the later event: the stream's work is done. */
  double exchanged = 0, stencil = 0;
  KL_KEEP(st, be->elapsed(a->ctx, E_START, E_EXCHANGED, &exchanged));
  KL_KEEP(st, be->elapsed(a->ctx, E_EXCHANGED, E_DONE, &stencil));
  kl__phase(a, 0, exchanged);
  kl__phase(a, 1, stencil);
  return st;
}

extern "C" kl_status kl__lapdist_gpu_nccl(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE, return run<T>(a));
}

/* ---- cuda-nccl-overlap: the interior while the faces travel ------------ */

/* A slab of the shell (kl__box_around), on the urgent stream. */
typedef struct shell_job {
  const kl_args *la; /* the box's plan */
  void *stream;
  kl_status st;
} shell_job;

static void shell_slab(void *ctx, const int64_t lo[3], const int64_t hi[3]) {
  shell_job *j = (shell_job *)ctx;
  KL_KEEP(j->st, kl__laplacian_gpu_zmarch_box(j->la, lo, hi, j->stream));
}

/* The exchange of cuda-nccl on the context's urgent stream (its kernels'
 * blocks dispatched before the interior's waiting ones), then the shell
 * there: the box's points next to a face that arrives. On the rung's
 * stream meanwhile, the interior: every point whose stencil reads no
 * point of the layer that a neighbour fills (one point in from each side
 * with a neighbour). The rung's stream then waits for the shell. */
template <typename T> static kl_status run_overlap(const kl_args *a) {
  ncclComm_t comm;
  kl_status st = comm_of(a, &comm);
  if (st != KL_OK) return st;
  const box b = box_of(a->plan);
  int nbs[3][2];
  st = kl__lapdist_neighbours(a->plan, nbs);
  if (st != KL_OK) return st;
  cudaStream_t main_s = (cudaStream_t)a->stream;
  cudaStream_t urgent = kl__gpu_urgent(a->ctx);
  kl_args xa = *a;
  xa.stream = urgent;
  kl_plan local;
  kl_args la;
  kl__lapdist_local_args(a, &local, &la);
  int64_t lo[3], hi[3], in_lo[3], in_hi[3];
  for (int axis = 0; axis < 3; axis++) {
    lo[axis] = 1;
    hi[axis] = b.ext[axis] - 1;
    in_lo[axis] = lo[axis] + (nbs[axis][0] >= 0);
    in_hi[axis] = hi[axis] - (nbs[axis][1] >= 0);
  }
  /* The interior's x range on the vector kernel's terms (zmarch_on: the
   * point before it and its width with the halo whole 16-byte vectors,
   * rows of whole vectors): a neighbour along x would start it at x = 2
   * and the kernel fall back to L1 loads (79% of the copy against 94% at
   * 512^3 f32). The points left over join the shell's x slabs. */
  const int64_t v = 16 / (int64_t)sizeof(T);
  const int64_t x0 = 1 + (in_lo[0] - 1 + v - 1) / v * v;
  const int64_t x1 = x0 + (in_hi[0] - x0 + 2) / v * v - 2;
  if (b.ext[0] % v == 0 && x1 > x0) {
    in_lo[0] = x0;
    in_hi[0] = x1;
  }
  st = mark(a, E_START, main_s);
  if (st == KL_OK)
    st = KL_GPU_STATUS(
        cudaStreamWaitEvent(urgent, kl__gpu_event(a->ctx, E_START), 0));
  /* Made whatever happened above: the neighbours wait for the faces. */
  KL_KEEP(st, exchange<T>(&xa, comm));
  shell_job job = {&la, (void *)urgent, KL_OK};
  kl__box_around(lo, hi, in_lo, in_hi, shell_slab, &job);
  KL_KEEP(st, job.st);
  KL_KEEP(st, mark(a, E_SHELL, urgent));
  KL_KEEP(st, kl__laplacian_gpu_zmarch_box(&la, in_lo, in_hi, main_s));
  KL_KEEP(st, mark(a, E_INTERIOR, main_s));
  /* The harness's closing event, recorded on the rung's stream, comes
   * after the shell too. */
  KL_KEEP(st, KL_GPU_STATUS(
      cudaStreamWaitEvent(main_s, kl__gpu_event(a->ctx, E_SHELL), 0)));
  if (st != KL_OK) return st;
  /* elapsed waits for the later event: both streams' work is done. */
  const kl_backend *be = a->ctx->backend;
  double exchanged = 0, interior = 0, shell = 0;
  KL_KEEP(st, be->elapsed(a->ctx, E_START, E_EXCHANGED, &exchanged));
  KL_KEEP(st, be->elapsed(a->ctx, E_START, E_INTERIOR, &interior));
  KL_KEEP(st, be->elapsed(a->ctx, E_EXCHANGED, E_SHELL, &shell));
  /* Each phase's span, the exchange's hidden behind the interior as far
   * as it goes: together they add up to more than the run. */
  kl__phase(a, 0, exchanged);
  kl__phase(a, 1, interior + shell);
  return st;
}

extern "C" kl_status kl__lapdist_gpu_nccl_overlap(const kl_args *a) {
  KL_FOR_FLOAT_TYPE(a->plan->type, T, return KL_USAGE,
                    return run_overlap<T>(a));
}

/* laplacian's z-marching setup on the box's plan, then the ranks'
 * communicator (made on every rank, whatever that setup found). The
 * faces are cuda-aware's, in device memory (kl__lapdist_gpu_scratch). */
extern "C" kl_status kl__lapdist_gpu_nccl_setup(kl_args *a) {
  return kl__nccl_setup(a, kl__lapdist_gpu_setup(a),
                        "laplacian-dist cuda-nccl");
}
