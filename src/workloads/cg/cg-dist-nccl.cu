/* cg-dist's NCCL rung (cg-dist.c has the split, the host solve and the
 * check): cuda-staged's CG on the rank's box (cg-dist-cuda.cu), its
 * halo and its sums kept on the device. One rank: cuda-matrix-free's own
 * solve, no NCCL call (cg-dist-gpu.h's run). Several, each iteration
 * queued on the rung's stream with one host wait:
 *   p's halo packed by cuda-staged's kernel, sent and received by
 *     ncclSend and ncclRecv in one group (one send and one receive per
 *     neighbour whose layer the stencil reads: NCCL has no tags, and a
 *     pair of ranks shares one direction, the grid of ranks not being
 *     periodic), and put in the layered box by cuda-staged's kernel, with
 *     no host staging and no wait;
 *   sweep A: the new p and its p.Ap partials, totalled on the device and
 *     summed over the ranks by ncclAllReduce (double, in place in the
 *     device scalars); alpha = r.r / p.Ap by a one-thread kernel into the
 *     scalars sweep B reads, or a breakdown, which stops sweep B;
 *   sweep B: r (and every other iteration x) and the r.r partials, the
 *     same; beta and r.r by a one-thread kernel;
 *   the two sums read (the one wait): the host stops by cg's rule on r.r
 *     after every iteration, and on a breakdown, as cuda-staged does, so
 *     that the iterations are the same.
 * The communicator is the context's (backends/ranks-nccl.cu), made by
 * the setup, which stands aside where two ranks share a GPU. The phases:
 * the exchange (pack to unpack) and the allreduces timed by events on
 * the stream, read after each iteration's wait; compute the rest.
 * Every rank makes its group and its allreduces even after a failure of
 * its own (its sums then zeros, as cuda-staged's, or whatever its
 * regions hold), so that the summed values, and so the stops, are every
 * rank's; the failure is returned after, and the harness stops the rung
 * on all. A rank whose device fails under NCCL itself leaves its
 * neighbours to NCCL, as in the other NCCL rungs. */
#include "../../backends/gpu-nccl.h"
#include "cg-dist-gpu.h"

/* The events' pairs: the exchange, and the allreduces of p.Ap (or the
 * start's r.r and b.b) and of r.r. */
enum { T_EXCHANGE, T_PAP = 2, T_RR = 4, T_EVENTS = 6 };

/* ---- the device's scalars ----------------------------------------------- */

/* After the start: r.r and b.b over the ranks (S_DOT, S_DOT_NEXT) as the
 * scalars the first iteration reads (set_start). Its stop is the batched
 * rungs'; cuda-nccl decides on the host, by the same rule on the same
 * sums. */
static __global__ void start_scalars_kernel(double *scalars, stop_rule stop) {
  set_start(scalars, scalars[S_DOT], scalars[S_DOT_NEXT], stop);
}

/* After sweep A: p.Ap over the ranks (S_DOT); alpha = r.r / p.Ap, the
 * one before kept for the x update, as cuda-staged's host computes them;
 * or a breakdown, which sweep B and this iteration's beta skip. */
static __global__ void alpha_kernel(double *scalars) {
  if (stopped(scalars)) return;
  set_alpha(scalars, scalars[S_DOT]);
}

/* After sweep B: the new r.r over the ranks (S_DOT_NEXT); beta = new r.r
 * / old, which the next halo and sweep A read. */
static __global__ void beta_kernel(double *scalars) {
  if (stopped(scalars)) return;
  const double next = scalars[S_DOT_NEXT];
  scalars[S_BETA] = next / scalars[S_RR];
  scalars[S_RR] = next;
}

/* cuda-nccl-batched's: beta, the iteration counted, and the stop by cg's
 * rule on the new r.r (every rank's the same: NCCL's sum), as
 * cuda-matrix-free's finish_rr_kernel sets them (set_rr); every later
 * launch of the batch reads the stop and skips its work by it. */
static __global__ void rr_kernel(double *scalars, stop_rule stop) {
  if (stopped(scalars)) return;
  set_rr(scalars, scalars[S_DOT_NEXT], stop);
}

/* ---- launches ------------------------------------------------------------ */

/* A one-thread kernel's launch, for a rung that goes on after a
 * failure. */
#define LAUNCHED(kernel)                                                      \
  kl__gpu_status_at(cudaGetLastError(), "launch of " #kernel, __FILE__,      \
                    __LINE__)

/* The events of the phases (none where making them failed: the failure
 * is the rank's, and the solve goes on untimed). */
typedef struct timing {
  cudaEvent_t e[T_EVENTS];
  int made;
} timing;

static void timing_make(dist *s, timing *t) {
  t->made = 0;
  for (int i = 0; i < T_EVENTS; i++) {
    const kl_status st = KL_GPU_STATUS(cudaEventCreate(&t->e[i]));
    KL_KEEP(s->st, st);
    if (st != KL_OK) return;
    t->made = i + 1;
  }
}

static void timing_free(dist *s, timing *t) {
  for (int i = 0; i < t->made; i++)
    KL_KEEP(s->st, KL_GPU_STATUS(cudaEventDestroy(t->e[i])));
  t->made = 0;
}

static void mark(const geometry *g, dist *s, const timing *t, int event) {
  if (t->made == T_EVENTS)
    KL_KEEP(s->st, KL_GPU_STATUS(cudaEventRecord(t->e[event], g->s)));
}

/* The seconds between pair `first`'s events (both past: the stream was
 * waited for). */
static double between(dist *s, const timing *t, int first) {
  float ms = 0;
  if (t->made != T_EVENTS || s->st != KL_OK) return 0;
  KL_KEEP(s->st, KL_GPU_STATUS(cudaEventElapsedTime(&ms, t->e[first],
                                                    t->e[first + 1])));
  return s->st == KL_OK ? 1e-3 * (double)ms : 0;
}

/* The halo of what the next sweep reads (v: pack_kernel's; beta the
 * device scalars'): packed, sent to each neighbour that reads it while
 * its own arrives, all in one group, and put in the layered box, all on
 * the stream. */
template <int MODE>
static void exchange(const kl_args *a, const geometry *g, dist *s,
                     ncclComm_t comm, mf_vectors v, const timing *t) {
  mark(g, s, t, T_EXCHANGE);
  KL_KEEP(s->st, pack<MODE>(a, g, s, v));
  /* Made whatever happened above: the neighbours wait for these. A group
   * once started is ended, whatever failed inside it. */
  const kl_status started = KL_NCCL_STATUS(ncclGroupStart());
  kl_status sent = started;
  for (int i = 0; i < s->count; i++) {
    const kl_message *m = &s->m[i];
    /* A neighbour's region is as large as this rank's: they share the
     * box's extents along the axes where the direction is 0. */
    const size_t points = m->bytes / sizeof(double);
    const kl_status out = KL_NCCL_STATUS(
        ncclSend(m->send, points, ncclFloat64, m->peer, comm, g->s));
    KL_KEEP(sent, out);
    const kl_status in = KL_NCCL_STATUS(
        ncclRecv(m->recv, points, ncclFloat64, m->peer, comm, g->s));
    KL_KEEP(sent, in);
  }
  if (started == KL_OK) {
    const kl_status ended = KL_NCCL_STATUS(ncclGroupEnd());
    KL_KEEP(sent, ended);
  }
  KL_KEEP(s->st, sent);
  KL_KEEP(s->st, unpack(g, s));
  mark(g, s, t, T_EXCHANGE + 1);
}

/* The last sweep's `count` sums: its partials totalled on the device
 * into the scalars from `slot` (zeros on a rank that failed, as
 * cuda-staged gives), then summed over the ranks in place; the
 * allreduce between events `pair`'s. */
static void sum_all(const kl_args *a, const geometry *g, dist *s,
                    ncclComm_t comm, int count, int slot, const timing *t,
                    int pair) {
  double *v = SCALARS(a) + slot;
  if (s->st == KL_OK) {
    totals_kernel<<<1, FINAL_BLOCK, 0, g->s>>>(PARTIALS(a), g->blocks,
                                               count, v);
    s->st = LAUNCHED(totals_kernel);
  }
  if (s->st != KL_OK) {
    /* The rank's failure stands: one to zero is not put over it. */
    const kl_status zeroed = KL_GPU_STATUS(
        cudaMemsetAsync(v, 0, sizeof(double) * (size_t)count, g->s));
    (void)zeroed;
  }
  mark(g, s, t, pair);
  /* Made whatever happened above: the other ranks wait for it. */
  const kl_status summed = KL_NCCL_STATUS(
      ncclAllReduce(v, v, (size_t)count, ncclFloat64, ncclSum, comm, g->s));
  KL_KEEP(s->st, summed);
  mark(g, s, t, pair + 1);
}

/* The two sums (S_DOT, S_DOT_NEXT) read, the stream waited for: the
 * iteration's one wait; then its phases' seconds. Read after a failure
 * of the rank's own too: the sums are every rank's, and so the stop. */
static void read_sums(const kl_args *a, const geometry *g, dist *s,
                      const timing *t, double *both) {
  const kl_status read = read_back(both, SCALARS(a) + S_DOT, 2, g->s);
  KL_KEEP(s->st, read);
  s->exchange_seconds += between(s, t, T_EXCHANGE);
  s->allreduce_seconds += between(s, t, T_PAP);
}

/* The start, queued: x0's halo, the start sweep, r.r and b.b summed over
 * the ranks, the device scalars set. */
static void start(const kl_args *a, geometry *g, dist *s, ncclComm_t comm,
                  const timing *t) {
  g->layer = s->layered;
  mf_grid_of(a, g, &g->blocks); /* the partials the sweeps write */
  mf_vectors v = {VEC(a, CG_X), NULL,         VEC(a, CG_B),
                  NULL,         VEC(a, CG_R), VEC(a, CG_P)};
  exchange<MF_START>(a, g, s, comm, v, t);
  KL_KEEP(s->st, launch_layered<MF_START>(a, g, v));
  sum_all(a, g, s, comm, 2, S_DOT, t, T_PAP);
  if (s->st == KL_OK) {
    start_scalars_kernel<<<1, 1, 0, g->s>>>(SCALARS(a), g->stop);
    s->st = LAUNCHED(start_scalars_kernel);
  }
}

/* cuda-nccl-overlap's: the context's urgent stream, which the exchange
 * and then sweep A's edge tiles run on, and its events: ready (the rung's
 * stream's work so far, which the exchange waits for), halo (the exchange
 * done; where the box has tiles of one kind only, the rung's stream waits
 * for it) and edge (the edge tiles done, which the rung's stream waits
 * for). */
typedef struct overlap {
  cudaStream_t urgent;
  cudaEvent_t ready, halo, edge;
} overlap;

/* Iteration j, queued: it reads p_old from one of CG_P and CG_AP and
 * writes the new p into the other, and adds to x every other iteration;
 * after sweep B's sum, beta (cuda-nccl, whose host then stops) or beta
 * and the stop (rr_kernel: cuda-nccl-batched, whose device stops). With
 * `o` (cuda-nccl-overlap), p's halo travels on the urgent stream while
 * sweep A's inner tiles run, and its edge tiles follow it there, beside
 * the inner ones; the exchange phase is then the time the rung's stream
 * waited after its inner launch (for the halo and the edge tiles), not
 * the exchange's own span. */
static void iteration(const kl_args *a, const geometry *g, dist *s,
                      ncclComm_t comm, int64_t j, int device_stop,
                      const timing *t, const overlap *o) {
  const int odd = (int)(j % 2);
  double *p_old = VEC(a, odd ? CG_AP : CG_P);
  double *p_new = VEC(a, odd ? CG_P : CG_AP);
  mf_vectors direction = {VEC(a, CG_R), p_old, NULL, NULL, NULL, p_new};
  if (o) {
    /* The pack reads r, p_old and beta, and the unpack rewrites the layer
     * the last sweep B read: after all the rung's stream has queued. */
    KL_KEEP(s->st, KL_GPU_STATUS(cudaEventRecord(o->ready, g->s)));
    KL_KEEP(s->st, KL_GPU_STATUS(cudaStreamWaitEvent(o->urgent, o->ready, 0)));
    geometry on_urgent = *g;
    on_urgent.s = o->urgent;
    const timing untimed = {{0}, 0};
    exchange<MF_DIRECTION>(a, &on_urgent, s, comm, direction, &untimed);
    KL_KEEP(s->st, KL_GPU_STATUS(cudaEventRecord(o->halo, o->urgent)));
    const int timed = t->made == T_EVENTS;
    const mf_after after = {o->halo, timed ? t->e[T_EXCHANGE] : NULL,
                            timed ? t->e[T_EXCHANGE + 1] : NULL, o->urgent,
                            o->edge};
    KL_KEEP(s->st, launch_layered_after<MF_DIRECTION>(a, g, direction,
                                                      &after));
  } else {
    exchange<MF_DIRECTION>(a, g, s, comm, direction, t);
    KL_KEEP(s->st, launch_layered<MF_DIRECTION>(a, g, direction));
  }
  sum_all(a, g, s, comm, 1, S_DOT, t, T_PAP);
  if (s->st == KL_OK) {
    alpha_kernel<<<1, 1, 0, g->s>>>(SCALARS(a));
    s->st = LAUNCHED(alpha_kernel);
  }
  mf_vectors update = {p_new,        p_old,        NULL,
                       VEC(a, CG_X), VEC(a, CG_R), NULL};
  if (odd) KL_KEEP(s->st, launch_layered<MF_UPDATE>(a, g, update));
  else KL_KEEP(s->st, launch_layered<MF_RESIDUAL>(a, g, update));
  sum_all(a, g, s, comm, 1, S_DOT_NEXT, t, T_RR);
  if (s->st != KL_OK) return;
  if (device_stop) {
    rr_kernel<<<1, 1, 0, g->s>>>(SCALARS(a), g->stop);
    s->st = LAUNCHED(rr_kernel);
  } else {
    beta_kernel<<<1, 1, 0, g->s>>>(SCALARS(a));
    s->st = LAUNCHED(beta_kernel);
  }
}

/* cuda-staged's iterations (cg-dist-cuda.cu's solve_ranks), the sums and
 * scalars on the device, one host wait an iteration for the two sums,
 * by which the host stops. Every rank reads the same sums (NCCL's), so
 * all stop together. */
static kl_status solve_nccl(const kl_args *a, geometry *g, dist *s,
                            int64_t *iterations) {
  ncclComm_t comm = kl__nccl_comm(a); /* the entry found one */
  timing t;
  timing_make(s, &t);
  start(a, g, s, comm, &t);
  double both[2] = {0, 0};
  read_sums(a, g, s, &t, both);
  double rr = both[0];
  const double bb = both[1];
  int64_t k = 0;
  while (go_on(g->stop, k, rr, bb)) {
    iteration(a, g, s, comm, k, 0, &t, NULL);
    double sums[2] = {0, 0};
    read_sums(a, g, s, &t, sums);
    s->allreduce_seconds += between(s, &t, T_RR);
    /* Every rank has the same p.Ap: all stop here together. */
    if (!positive_finite(sums[0])) {
      KL_KEEP(s->st, kl__cg_not_spd(sums[0], k));
      break;
    }
    rr = sums[1];
    k++;
  }
  /* x's last step where the last iteration was even (its p in CG_AP,
   * its alpha in the device scalars). */
  KL_KEEP(s->st, mf_settle(a, g, k));
  KL_KEEP(s->st, put_info(a, g, k, rr, bb));
  timing_free(s, &t);
  *iterations = k;
  return s->st;
}

/* cuda-nccl-batched: the same iterations, BATCH of them queued at a time
 * (fewer where maxit is near) with no host wait between; the device
 * decides the stop by cg's rule on NCCL's sums (rr_kernel, alpha_kernel's
 * breakdown) and every launch after it skips its work, as
 * cuda-matrix-free's batches do (cg-gpu.h's device_solve). The host reads
 * {done, k, bad} after each batch, its one wait, and every rank reads the
 * same values, so all make the same batches and the same NCCL calls (the
 * exchanges and allreduces of the iterations after the stop run on, on
 * unchanged vectors). Each iteration of a batch has its events, read
 * after the wait; made at each solve (some 100 events: ~0.1 ms of a
 * solve of tens of ms). With `o`, cuda-nccl-overlap's iterations. */
static kl_status solve_batches(const kl_args *a, geometry *g, dist *s,
                               int64_t *iterations, const overlap *o,
                               const char *rung) {
  ncclComm_t comm = kl__nccl_comm(a); /* the entry found one */
  timing t[BATCH + 1]; /* the start's, then a batch's iterations' */
  for (int i = 0; i <= BATCH; i++) t[i].made = 0;
  for (int i = 0; i <= BATCH && s->st == KL_OK; i++) timing_make(s, &t[i]);
  start(a, g, s, comm, &t[0]);
  double flag[3] = {RUNNING, 0, 0};
  const int64_t maxit = g->stop.maxit;
  for (int64_t launched = 0, seen = 0;;) {
    const int count = maxit - seen < BATCH ? (int)(maxit - seen) : BATCH;
    for (int j = 0; j < count; j++)
      iteration(a, g, s, comm, launched + j, 1, &t[1 + j], o);
    /* The wait: read whatever failed, the values being every rank's. */
    KL_KEEP(s->st, read_back(flag, SCALARS(a) + S_DONE, 3, g->s));
    if (launched == 0) {
      s->exchange_seconds += between(s, &t[0], T_EXCHANGE);
      s->allreduce_seconds += between(s, &t[0], T_PAP);
    }
    for (int j = 0; j < count; j++) {
      s->exchange_seconds += between(s, &t[1 + j], T_EXCHANGE);
      s->allreduce_seconds += between(s, &t[1 + j], T_PAP) +
                              between(s, &t[1 + j], T_RR);
    }
    launched += count;
    const int64_t now = (int64_t)flag[1];
    if (flag[0] != RUNNING) break;
    /* A batch moves k on or ends the solve; this guards against a device
     * that would not stop. */
    if (now >= maxit || now == seen) {
      KL_KEEP(s->st, KL_FAIL(KL_DEVICE, "cg-dist %s: the device's solve "
                             "did not stop at %lld of maxit = %lld "
                             "iterations", rung, (long long)now,
                             (long long)maxit));
      break;
    }
    seen = now;
  }
  const int64_t k = (int64_t)flag[1];
  if (flag[0] == BROKE_DOWN) KL_KEEP(s->st, kl__cg_not_spd(flag[2], k));
  KL_KEEP(s->st, mf_settle(a, g, k));
  if (s->st == KL_OK) {
    info_kernel<<<1, 1, 0, g->s>>>(VEC(a, CG_INFO), SCALARS(a));
    s->st = LAUNCHED(info_kernel);
  }
  for (int i = 0; i <= BATCH; i++) timing_free(s, &t[i]);
  *iterations = k;
  return s->st;
}

static kl_status solve_batched(const kl_args *a, geometry *g, dist *s,
                               int64_t *iterations) {
  return solve_batches(a, g, s, iterations, NULL, "cuda-nccl-batched");
}

/* cuda-nccl-overlap: cuda-nccl-batched's iterations with p's halo on the
 * context's urgent stream while sweep A's inner tiles run (iteration's
 * `o`). Where its events cannot be made, the rank's failure stands and it
 * runs the iterations unoverlapped: the same NCCL calls as its
 * neighbours'. */
static kl_status solve_overlapped(const kl_args *a, geometry *g, dist *s,
                                  int64_t *iterations) {
  overlap o = {kl__gpu_urgent(a->ctx), NULL, NULL, NULL};
  kl_status made = KL_GPU_STATUS(
      cudaEventCreateWithFlags(&o.ready, cudaEventDisableTiming));
  if (made == KL_OK)
    made = KL_GPU_STATUS(
        cudaEventCreateWithFlags(&o.halo, cudaEventDisableTiming));
  if (made == KL_OK)
    made = KL_GPU_STATUS(
        cudaEventCreateWithFlags(&o.edge, cudaEventDisableTiming));
  KL_KEEP(s->st, made);
  const kl_status st = solve_batches(a, g, s, iterations,
                                     made == KL_OK ? &o : NULL,
                                     "cuda-nccl-overlap");
  if (o.ready) KL_KEEP(s->st, KL_GPU_STATUS(cudaEventDestroy(o.ready)));
  if (o.halo) KL_KEEP(s->st, KL_GPU_STATUS(cudaEventDestroy(o.halo)));
  if (o.edge) KL_KEEP(s->st, KL_GPU_STATUS(cudaEventDestroy(o.edge)));
  return st != KL_OK ? st : s->st;
}

/* ---- the rung ------------------------------------------------------------ */

/* An NCCL rung's run: the setup made a communicator on every rank or on
 * none, and none stops the rung on every rank before it runs. */
static kl_status nccl_run(const kl_args *a, const char *rung,
                          dist_solve_fn solve) {
  if (kl__rank_count(a->plan) > 1 && !kl__nccl_comm(a))
    return KL_FAIL(KL_DEVICE, "cg-dist %s: no NCCL communicator", rung);
  return dist_run(a, 0, solve);
}

extern "C" kl_status kl__cgdist_gpu_nccl(const kl_args *a) {
  return nccl_run(a, "cuda-nccl", solve_nccl);
}

extern "C" kl_status kl__cgdist_gpu_nccl_overlap(const kl_args *a) {
  return nccl_run(a, "cuda-nccl-overlap", solve_overlapped);
}

extern "C" kl_status kl__cgdist_gpu_nccl_batched(const kl_args *a) {
  return nccl_run(a, "cuda-nccl-batched", solve_batched);
}

/* cuda-aware's scratch: the halo in device memory, none pinned. */
extern "C" kl_status kl__cgdist_gpu_nccl_scratch(kl_plan *p) {
  return dist_scratch(p, 0);
}

/* cg's CUDA rungs' setup (a graph's state, for the one-rank solve), then
 * the ranks' communicator (made on every rank, whatever that setup
 * found). */
extern "C" kl_status kl__cgdist_gpu_nccl_setup(kl_args *a) {
  return kl__nccl_setup(a, kl__cg_gpu_setup(a), "cg-dist cuda-nccl");
}
