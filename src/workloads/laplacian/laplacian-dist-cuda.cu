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

/* The context's events that bound the exchange's device phases (the
 * harness's are 0 and 1), all on the rung's stream: before the pack,
 * after it (before the first copy to the host), after the last copy to
 * the host, before the first copy back, after the last (before the
 * unpack), after the unpack. cuda-aware records no copies' events.
 * Ungated (below), E_BACK is recorded on an idle stream after the host
 * has waited for the messages, so h2d holds the host's issue of the
 * first copy back too. */
enum { E_PACK = 2, E_PACKED, E_STAGED, E_BACK, E_UNSTAGED, E_UNPACKED };

/* cuda-staged's gates. Issued one call at a time, the host's copies
 * reach the GPU when the host gets to them: at two H100s, a rank each,
 * a 2 MiB face's copy to the host took 45 to 80 us (median 60) behind a
 * 10 us pack where the pinned copy alone takes 45, and the copy back,
 * issued after the host's wait for the messages, 56 to 100 (NOTES.md).
 * So the stream is held at a gate, a one-thread kernel that waits for the
 * host to write a number into pinned memory, while the host queues the
 * pack, the copies and their events behind it; then the host opens it and
 * they run back to back. The copies back, their unpack and events are
 * queued behind a second gate before the messages are sent, and the host
 * opens it as soon as they have arrived. The gates' words follow the
 * faces in the staged buffer (DIST_GATE_WORDS): the two gates' numbers,
 * then the number of a gate that gave up. A gate waits at most about a
 * minute of the GPU's clock and then gives up (the host finds its number
 * in the third word: an error, never a hang). Where this host's ranks
 * outnumber its GPUs the ranks share one, whose time a waiting kernel
 * would take from the other rank: the exchange is ungated there. */
enum { GATE_OUT, GATE_BACK, GATE_GAVE_UP };
#define GATE_CYCLES 100000000000ll

static __global__ void gate_kernel(const volatile unsigned *gates, int which,
                                   unsigned open, unsigned *gave_up) {
  const long long t0 = clock64();
  while (gates[which] != open)
    if (clock64() - t0 > GATE_CYCLES) {
      *gave_up = open;
      return;
    }
}

/* The gates' words: after the faces in the staged buffer. */
static unsigned *gate_words(const kl_args *a) {
  const kl_plan *p = a->plan;
  char *stage = (char *)a->buffers[DIST_STAGE];
  return (unsigned *)(stage + kl_type_size(p->type) *
                                  (size_t)p->buffers[DIST_FACES].count);
}

/* Hold the stream at gate `which`: its number for this exchange (the
 * host is the only writer of the gates' words) in *open. */
static kl_status gate_close(const kl_args *a, int which, unsigned *open) {
  unsigned *w = gate_words(a);
  *open = __atomic_load_n(&w[which], __ATOMIC_RELAXED) + 1u;
  gate_kernel<<<1, 1, 0, (cudaStream_t)a->stream>>>(w, which, *open,
                                                    &w[GATE_GAVE_UP]);
  return KL_GPU_STATUS(cudaGetLastError());
}

/* Open it: everything the host wrote before (the faces received) is
 * seen first. */
static void gate_open(const kl_args *a, int which, unsigned open) {
  __atomic_store_n(&gate_words(a)[which], open, __ATOMIC_RELEASE);
}

/* Whether cuda-staged gates its exchange: this host's ranks have a GPU
 * each (kl__ranks_local_count against the devices). */
static int gated(const kl_args *a) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) return 0;
  return kl__ranks_local_count(a->plan) <= devices;
}

/* The staged copies each way, to the host or back, of the faces that
 * have a neighbour. */
template <typename T>
static kl_status copies(const kl_args *a, const box *b, const int nbs[3][2],
                        T *dev, T *host, int64_t face, int back) {
  kl_status st = KL_OK;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0) continue;
      const int64_t q = (back ? 6 : 0) + 2 * axis + side;
      const size_t bytes =
          sizeof(T) * (size_t)kl__lapdist_face_points(b, axis);
      KL_KEEP(st,
              back ? kl__gpu_status(cudaMemcpyAsync(dev + q * face,
                                                    host + q * face, bytes,
                                                    cudaMemcpyHostToDevice,
                                                    (cudaStream_t)a->stream),
                                    "cudaMemcpyAsync (face to the device)")
                   : kl__gpu_status(cudaMemcpyAsync(host + q * face,
                                                    dev + q * face, bytes,
                                                    cudaMemcpyDeviceToHost,
                                                    (cudaStream_t)a->stream),
                                    "cudaMemcpyAsync (face to host)"));
    }
  return st;
}

/* The exchange: pack, (stage,) send and receive, (stage,) unpack; its
 * phases DIST_PH_PACK to DIST_PH_H2D (laplacian-dist.h). The device's
 * phases are read after the stream's last wait, which every event
 * precedes, so that no host wait is added; the messages are the host's
 * wall time, as the whole exchange was. */
template <typename T>
static kl_status exchange(const kl_args *a, int staged) {
  const kl_plan *p = a->plan;
  const kl_backend *be = a->ctx->backend;
  const box b = box_of(p);
  cudaStream_t s = (cudaStream_t)a->stream;
  int nbs[3][2];
  kl_status st = kl__lapdist_neighbours(p, nbs);
  if (st != KL_OK) return st; /* the plan's: the same on every rank */
  const int64_t face = p->buffers[DIST_FACES].count / 12;
  T *dev = (T *)a->buffers[DIST_FACES];
  T *host = staged ? (T *)a->buffers[DIST_STAGE] : NULL;
  kl_message m[6];
  int count = 0;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      if (nbs[axis][side] < 0) continue;
      const int q = 2 * axis + side;
      const size_t bytes =
          sizeof(T) * (size_t)kl__lapdist_face_points(&b, axis);
      const kl_message msg = {nbs[axis][side], axis,
                              (staged ? host : dev) + q * face,
                              (staged ? host : dev) + (6 + q) * face, bytes};
      m[count++] = msg;
    }
  const int gate = staged && count > 0 && gated(a);
  unsigned open[2] = {0, 0};
  if (gate) KL_KEEP(st, gate_close(a, GATE_OUT, &open[GATE_OUT]));
  KL_KEEP(st, be->record(a->ctx, E_PACK, 0));
  KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 1));
  KL_KEEP(st, be->record(a->ctx, E_PACKED, 0));
  if (staged) {
    KL_KEEP(st, copies<T>(a, &b, nbs, dev, host, face, 0));
    KL_KEEP(st, be->record(a->ctx, E_STAGED, 0));
  }
  if (gate) {
    gate_open(a, GATE_OUT, open[GATE_OUT]);
    /* The way back queued now, behind the second gate. */
    KL_KEEP(st, gate_close(a, GATE_BACK, &open[GATE_BACK]));
    KL_KEEP(st, be->record(a->ctx, E_BACK, 0));
    KL_KEEP(st, copies<T>(a, &b, nbs, dev, host, face, 1));
    KL_KEEP(st, be->record(a->ctx, E_UNSTAGED, 0));
    KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 0));
    KL_KEEP(st, be->record(a->ctx, E_UNPACKED, 0));
    KL_KEEP(st, kl__gpu_status(
                    cudaEventSynchronize(kl__gpu_event(a->ctx, E_STAGED)),
                    "cudaEventSynchronize"));
  } else {
    KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                               "cudaStreamSynchronize"));
  }
  /* Made whatever happened above: the neighbours wait for these. */
  const double t0 = kl__now();
  kl__exchange_wait(p, kl__exchange_start(p, m, count));
  const double messages = kl__now() - t0;
  if (gate) {
    gate_open(a, GATE_BACK, open[GATE_BACK]);
  } else {
    if (staged) {
      KL_KEEP(st, be->record(a->ctx, E_BACK, 0));
      KL_KEEP(st, copies<T>(a, &b, nbs, dev, host, face, 1));
    }
    KL_KEEP(st, be->record(a->ctx, E_UNSTAGED, 0));
    KL_KEEP(st, faces<T>(a, &b, nbs, dev, face, 0));
    KL_KEEP(st, be->record(a->ctx, E_UNPACKED, 0));
  }
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                             "cudaStreamSynchronize"));
  const unsigned gave_up = gate ? gate_words(a)[GATE_GAVE_UP] : 0;
  if (gate && (gave_up == open[GATE_OUT] || gave_up == open[GATE_BACK]))
    KL_KEEP(st, KL_FAIL(KL_DEVICE, "laplacian-dist cuda-staged: a gate "
                        "waited %lld GPU cycles for the host and gave up",
                        (long long)GATE_CYCLES));
  kl__phase(a, DIST_PH_MESSAGES, messages);
  /* A rank that failed may have left an event unrecorded (or one of an
   * earlier run in it); its run is stopped, its phases not read. */
  if (st != KL_OK) return st;
  double pack = 0, unpack = 0, d2h = 0, h2d = 0;
  KL_KEEP(st, be->elapsed(a->ctx, E_PACK, E_PACKED, &pack));
  KL_KEEP(st, be->elapsed(a->ctx, E_UNSTAGED, E_UNPACKED, &unpack));
  if (staged) {
    KL_KEEP(st, be->elapsed(a->ctx, E_PACKED, E_STAGED, &d2h));
    KL_KEEP(st, be->elapsed(a->ctx, E_BACK, E_UNSTAGED, &h2d));
  }
  kl__phase(a, DIST_PH_PACK, pack + unpack);
  kl__phase(a, DIST_PH_D2H, d2h);
  kl__phase(a, DIST_PH_H2D, h2d);
  return st;
}

template <typename T> static kl_status run(const kl_args *a, int staged) {
  const kl_status st = exchange<T>(a, staged);
  return st != KL_OK ? st : kl__lapdist_gpu_stencil(a, DIST_PH_STENCIL);
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
  return kl__plan_scratch(p, DIST_STAGE, "faces (pinned) and gates",
                          p->type,
                          p->buffers[DIST_FACES].count + DIST_GATE_ELEMENTS,
                          KL_MEM_PINNED, 0);
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
