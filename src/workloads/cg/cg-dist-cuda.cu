/* cg-dist's GPU rungs (cg-dist.c has the split, the host solve and the
 * check): cg's cuda-matrix-free sweeps (cg-matrix-free.h) on the rank's
 * box, the same CG as the host rungs'. The halo's kernels and the run
 * around the solve are cg-dist-gpu.h's, shared with the NCCL rung
 * (cg-dist-nccl.cu).
 *
 * One rank (nothing to send or sum): cuda-matrix-free's own solve of the
 * same grid, its launches and its graph, nothing added.
 * Several: the host drives each iteration, as the host rungs do, since
 * every dot is summed over the ranks by the host's MPI:
 *   p's halo: the box's points next to each neighbour packed on the
 *     device (one kernel for the 26 regions, each the new p = r + beta
 *     p_old that sweep A forms there; cg-dist.h's layout), sent, and the
 *     regions received put in the layer of a layered box (one kernel),
 *     which the layered sweeps read past the box;
 *   sweep A: the new p and its p.Ap partials; their total read, then
 *     summed over the ranks; alpha on the host, into the device scalars;
 *   sweep B: r (and every other iteration x) and the r.r partials; the
 *     same; beta, and the stop by cg's rule on the summed r.r.
 * Four host waits an iteration (the packed halo's, the unpacked one's,
 * p.Ap's and r.r's), where one rank's solve waits once a batch of 16.
 * cuda-staged copies the regions it sends and receives through pinned
 * host memory of its plan (an MPI that takes only host memory: Debian's
 * Open MPI, for one), a copy per run of adjacent regions;
 * cuda-aware hands MPI the device's regions and stands aside where MPI
 * does not take them (kl_ranks.device_memory).
 * Every rank makes its messages and sums even after a failure of its own
 * (its values then zeros or whatever they hold), so that no rank waits
 * forever and every rank takes the same steps; the failure is returned
 * after, and the harness stops the rung on all. */
#include "cg-dist-gpu.h"

/* The device scalars the sweeps read, from the host's: running, this
 * iteration's alpha and the one before, beta. */
static __global__ void dist_scalars_kernel(double *scalars, double alpha,
                                           double before, double beta) {
  scalars[S_DONE] = RUNNING;
  scalars[S_ALPHA] = alpha;
  scalars[S_ALPHA_PREV] = before;
  scalars[S_BETA] = beta;
}

/* ---- launches ---------------------------------------------------------- */

/* cuda-staged: the regions sent to the host, or those received to the
 * device, a copy per run of adjacent regions (one for all 26, one for a
 * lone face): the bytes of the messages and no more. */
static kl_status stage(const geometry *g, const dist *s, int to_host) {
  for (int i = 0; i < s->runs; i++) {
    const int64_t at = s->run_at[i];
    const size_t bytes = sizeof(double) * (size_t)s->run_points[i];
    if (to_host)
      KL_GPU_CHECK(cudaMemcpyAsync(s->host_send + at, s->send + at, bytes,
                                   cudaMemcpyDeviceToHost, g->s));
    else
      KL_GPU_CHECK(cudaMemcpyAsync(s->recv + at, s->host_recv + at, bytes,
                                   cudaMemcpyHostToDevice, g->s));
  }
  return KL_OK;
}

/* The halo of what the next sweep reads (v: pack_kernel's; beta the
 * device scalars', set before): packed, (staged: copied to the host,)
 * sent to each neighbour that reads it while its own arrives, (staged:
 * copied back,) put in the layered box, waited for. Its seconds to the
 * exchange phase. */
template <int MODE>
static void exchange(const kl_args *a, const geometry *g, dist *s,
                     mf_vectors v) {
  const double t0 = kl__now();
  KL_KEEP(s->st, pack<MODE>(a, g, s, v));
  if (s->staged) KL_KEEP(s->st, stage(g, s, 1));
  KL_KEEP(s->st, kl__gpu_status(cudaStreamSynchronize(g->s),
                                "cudaStreamSynchronize"));
  /* Made whatever happened above: the neighbours wait for these. */
  kl__exchange_wait(s->p, kl__exchange_start(s->p, s->m, s->count));
  if (s->staged) KL_KEEP(s->st, stage(g, s, 0));
  KL_KEEP(s->st, unpack(g, s));
  KL_KEEP(s->st, kl__gpu_status(cudaStreamSynchronize(g->s),
                                "cudaStreamSynchronize"));
  s->exchange_seconds += kl__now() - t0;
}

/* The last sweep's `count` sums (its partials totalled on the device and
 * read: compute), then summed over the ranks (the allreduce phase). A
 * rank that failed gives zeros, and takes the same sums as the others. */
static void sum_all(const kl_args *a, const geometry *g, dist *s, int count,
                    double *v) {
  KL_KEEP(s->st, totals(a, g, count, v));
  for (int i = 0; i < count; i++)
    if (s->st != KL_OK) v[i] = 0;
  const double t0 = kl__now();
  kl__allreduce(s->p, v, count, KL_F64, KL_RANKS_SUM);
  s->allreduce_seconds += kl__now() - t0;
}

static kl_status set_scalars(const kl_args *a, const geometry *g,
                             double alpha, double before, double beta) {
  dist_scalars_kernel<<<1, 1, 0, g->s>>>(SCALARS(a), alpha, before, beta);
  KL_GPU_CHECK_LAUNCH(dist_scalars_kernel);
  return KL_OK;
}

/* cg-matrix-free's iterations with the ranks' sums: x0's halo and the
 * start; then iteration j reads p_old from one of CG_P and CG_AP and
 * writes the new p into the other, and adds to x every other iteration,
 * as cuda-matrix-free does (cg-matrix-free-cuda.cu says why). Every rank
 * sees the same sums, so all stop together. */
static kl_status solve_ranks(const kl_args *a, geometry *g, dist *s,
                             int64_t *iterations) {
  g->layer = s->layered;
  mf_grid_of(a, g, &g->blocks); /* the partials the sweeps write */
  mf_vectors start = {VEC(a, CG_X), NULL,         VEC(a, CG_B),
                      NULL,         VEC(a, CG_R), VEC(a, CG_P)};
  exchange<MF_START>(a, g, s, start);
  KL_KEEP(s->st, launch_layered<MF_START>(a, g, start));
  double both[2] = {0, 0};
  sum_all(a, g, s, 2, both);
  double rr = both[0], alpha = 0, before = 0, beta = 0;
  const double bb = both[1];
  int64_t k = 0;
  while (go_on(g->stop, k, rr, bb)) {
    const int odd = (int)(k % 2);
    double *p_old = VEC(a, odd ? CG_AP : CG_P);
    double *p_new = VEC(a, odd ? CG_P : CG_AP);
    mf_vectors direction = {VEC(a, CG_R), p_old, NULL, NULL, NULL, p_new};
    KL_KEEP(s->st, set_scalars(a, g, alpha, before, beta));
    exchange<MF_DIRECTION>(a, g, s, direction);
    KL_KEEP(s->st, launch_layered<MF_DIRECTION>(a, g, direction));
    double pap = 0;
    sum_all(a, g, s, 1, &pap);
    /* Every rank has the same p.Ap: all stop here together. */
    if (!positive_finite(pap)) {
      KL_KEEP(s->st, kl__cg_not_spd(pap, k));
      break;
    }
    before = alpha;
    alpha = rr / pap;
    KL_KEEP(s->st, set_scalars(a, g, alpha, before, beta));
    mf_vectors update = {p_new,        p_old,        NULL,
                         VEC(a, CG_X), VEC(a, CG_R), NULL};
    if (odd) KL_KEEP(s->st, launch_layered<MF_UPDATE>(a, g, update));
    else KL_KEEP(s->st, launch_layered<MF_RESIDUAL>(a, g, update));
    double next = 0;
    sum_all(a, g, s, 1, &next);
    beta = next / rr;
    rr = next;
    k++;
  }
  /* x's last step where the last iteration was even (its p in CG_AP,
   * its alpha in the device scalars). */
  KL_KEEP(s->st, mf_settle(a, g, k));
  KL_KEEP(s->st, put_info(a, g, k, rr, bb));
  *iterations = k;
  return s->st;
}

/* ---- the rungs ---------------------------------------------------------- */

extern "C" kl_status kl__cgdist_gpu_staged(const kl_args *a) {
  return dist_run(a, 1, solve_ranks);
}

extern "C" kl_status kl__cgdist_gpu_aware(const kl_args *a) {
  return dist_run(a, 0, solve_ranks);
}

extern "C" kl_status kl__cgdist_gpu_staged_scratch(kl_plan *p) {
  return dist_scratch(p, 1);
}

extern "C" kl_status kl__cgdist_gpu_aware_scratch(kl_plan *p) {
  return dist_scratch(p, 0);
}

/* cuda-aware: only where MPI takes device memory, or one rank (nothing
 * sent). */
extern "C" kl_status kl__cgdist_gpu_aware_setup(kl_args *a) {
  if (kl__rank_count(a->plan) > 1 && !kl__ranks_device_memory(a->plan))
    return kl__usage(KL_UNAVAILABLE, "cg-dist cuda-aware: this MPI takes "
                     "no device memory (not CUDA-aware); cuda-staged sends "
                     "through pinned host memory");
  return kl__cg_gpu_setup(a);
}
