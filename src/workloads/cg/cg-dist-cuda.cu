/* cg-dist's GPU rungs (cg-dist.c has the split, the host solve and the
 * check): cg's cuda-matrix-free sweeps (cg-matrix-free.h) on the rank's
 * box, the same CG as the host rungs'.
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
 * Open MPI, the H100 machine's), a copy per run of adjacent regions;
 * cuda-aware hands MPI the device's regions and stands aside where MPI
 * does not take them (kl_ranks.device_memory).
 * Every rank makes its messages and sums even after a failure of its own
 * (its values then zeros or whatever they hold), so that no rank waits
 * forever and every rank takes the same steps; the failure is returned
 * after, and the harness stops the rung on all. */
#include "cg-dist.h"
#include "cg-matrix-free.h"

#define PACK_BLOCK 256
/* Blocks per region in the pack kernel, at most: it strides over the
 * largest face, the corners' blocks return at once. */
#define PACK_BLOCKS 1024

/* A box's extents as a kernel takes them. */
typedef struct extents {
  int64_t n[3];
} extents;

/* ---- the halo, packed on the device ---------------------------------------
 * Region blockIdx.y (a direction, cg-dist.h's order) of what the rank
 * sends: the box's points next to that neighbour, x fastest, each the
 * value the neighbour's next sweep reads there (mf_source: x for the
 * start; r + beta p_old, the new p, for sweep A, formed exactly as sweep
 * A forms it). Every region is packed, those no neighbour reads too:
 * their points are the box's, and a corner or an edge costs little. */
template <int MODE>
static __global__ void pack_kernel(mf_vectors v, double beta, extents box,
                                   double *__restrict__ send) {
  const int64_t l[3] = {box.n[0], box.n[1], box.n[2]};
  int d[3];
  halo_direction((int)blockIdx.y, d);
  const int64_t size = halo_region_size(l, d);
  double *out = send + halo_region_start(l, d);
  const int64_t wx = d[0] ? 1 : l[0], wy = d[1] ? 1 : l[1];
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < size;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t c[3] = {t % wx, t / wx % wy, t / wx / wy};
    for (int a = 0; a < 3; a++)
      if (d[a]) c[a] = d[a] < 0 ? 0 : l[a] - 1;
    out[t] = mf_source<MODE>(v, c[0] + l[0] * (c[1] + l[1] * c[2]), beta);
  }
}

/* The regions received (bit q of `received`: a message came from
 * direction q) put beside the box in the layer of the layered box, where
 * the layered sweeps read them (mf_layer); the layer's other points keep
 * the 0 they started at (KL_BUFFER_ZEROED), as outside the grid. */
static __global__ void unpack_kernel(const double *__restrict__ recv,
                                     unsigned received, extents box,
                                     double *__restrict__ layered) {
  if (!(received >> blockIdx.y & 1)) return;
  const int64_t l[3] = {box.n[0], box.n[1], box.n[2]};
  int d[3];
  halo_direction((int)blockIdx.y, d);
  const int64_t size = halo_region_size(l, d);
  const double *in = recv + halo_region_start(l, d);
  const int64_t wx = d[0] ? 1 : l[0], wy = d[1] ? 1 : l[1];
  const int64_t ex = l[0] + 2, ey = l[1] + 2;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < size;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t c[3] = {t % wx, t / wx % wy, t / wx / wy};
    for (int a = 0; a < 3; a++)
      c[a] = d[a] < 0 ? 0 : d[a] > 0 ? l[a] + 1 : c[a] + 1;
    layered[c[0] + ex * (c[1] + ey * c[2])] = in[t];
  }
}

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

/* A rank's solve over several: its box, its halo (the send and receive
 * regions on the device; staged, their pinned copies), its messages (the
 * same every exchange: one per neighbour whose layer the stencil reads,
 * tag 0 since two ranks share one direction), the bit of each direction
 * received, the runs of adjacent regions sent (what the staged rung
 * copies), the layered box the regions received are put in, the first
 * failure, and the seconds of its exchanges and sums. */
typedef struct dist {
  const kl_plan *p;
  cgdist_box b;
  extents box;
  int staged;
  int64_t layer; /* points in the layer: each half of the halo */
  double *send, *recv, *host_send, *host_recv, *layered;
  kl_message m[26];
  int count, runs;
  unsigned received;
  int64_t run_at[26], run_points[26];
  unsigned region_blocks; /* the pack's and unpack's, per region */
  kl_status st;
  double exchange_seconds, allreduce_seconds;
} dist;

/* The messages, from the device's regions or their pinned copies. */
static void messages_of(dist *s, const int dims[3], const int coord[3],
                        int stencil) {
  double *send = s->staged ? s->host_send : s->send;
  double *recv = s->staged ? s->host_recv : s->recv;
  for (int q = 0; q < 26; q++) {
    int d[3];
    halo_direction(q, d);
    const int c[3] = {coord[0] + d[0], coord[1] + d[1], coord[2] + d[2]};
    const int nb = kl__rank_at(dims, c);
    if (nb < 0 || !halo_used(stencil, d)) continue;
    const int64_t at = halo_region_start(s->b.l, d);
    const int64_t points = halo_region_size(s->b.l, d);
    const kl_message msg = {nb, 0, send + at, recv + at,
                            sizeof(double) * (size_t)points};
    s->m[s->count++] = msg;
    s->received |= 1u << q;
    if (s->runs > 0 &&
        s->run_at[s->runs - 1] + s->run_points[s->runs - 1] == at) {
      s->run_points[s->runs - 1] += points;
    } else {
      s->run_at[s->runs] = at;
      s->run_points[s->runs++] = points;
    }
  }
}

static kl_status dist_of(const kl_args *a, int staged, dist *s) {
  const kl_plan *p = a->plan;
  memset(s, 0, sizeof *s);
  s->p = p;
  s->b = cgdist_box_of(p);
  s->staged = staged;
  int dims[3], coord[3];
  KL_TRY(dist_grid(p, dims));
  kl__rank_coords(kl__rank(p), dims, coord);
  const cgdist_box *b = &s->b;
  const int64_t layered = b->e[0] * b->e[1] * b->e[2];
  s->layer = layered - b->l[0] * b->l[1] * b->l[2];
  int64_t most = 0;
  for (int q = 0; q < 26; q++) {
    int d[3];
    halo_direction(q, d);
    const int64_t size = halo_region_size(b->l, d);
    if (size > most) most = size;
  }
  s->region_blocks = kl__gpu_blocks(most, PACK_BLOCK);
  if (s->region_blocks > PACK_BLOCKS) s->region_blocks = PACK_BLOCKS;
  for (int i = 0; i < 3; i++) s->box.n[i] = b->l[i];
  KL_TRY(require(a, D_GPU_HALO, 2 * s->layer, "the halo (device)"));
  KL_TRY(require(a, D_GPU_LAYER, layered, "the layered box"));
  s->send = VEC(a, D_GPU_HALO);
  s->recv = s->send + s->layer;
  s->layered = VEC(a, D_GPU_LAYER);
  if (staged) {
    KL_TRY(require(a, D_GPU_STAGE, 2 * s->layer, "the halo (pinned)"));
    s->host_send = VEC(a, D_GPU_STAGE);
    s->host_recv = s->host_send + s->layer;
  }
  messages_of(s, dims, coord, D_STENCIL(p));
  return KL_OK;
}

template <int MODE>
static kl_status pack(const geometry *g, const dist *s, mf_vectors v,
                      double beta) {
  pack_kernel<MODE><<<dim3(s->region_blocks, 26), PACK_BLOCK, 0, g->s>>>(
      v, beta, s->box, s->send);
  KL_GPU_CHECK_LAUNCH(pack_kernel<MODE>);
  return KL_OK;
}

static kl_status unpack(const geometry *g, const dist *s) {
  unpack_kernel<<<dim3(s->region_blocks, 26), PACK_BLOCK, 0, g->s>>>(
      s->recv, s->received, s->box, s->layered);
  KL_GPU_CHECK_LAUNCH(unpack_kernel);
  return KL_OK;
}

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

/* The halo of what the next sweep reads (v, beta: pack_kernel's): packed,
 * (staged: copied to the host,) sent to each neighbour that reads it
 * while its own arrives, (staged: copied back,) put in the layered box,
 * waited for. Its seconds to the exchange phase. */
template <int MODE>
static void exchange(const geometry *g, dist *s, mf_vectors v, double beta) {
  const double t0 = kl__now();
  KL_KEEP(s->st, pack<MODE>(g, s, v, beta));
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
  exchange<MF_START>(g, s, start, 0);
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
    exchange<MF_DIRECTION>(g, s, direction, beta);
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

/* The solve of the plan's box by cg-dist's rule; cg's scratch indices. */
static kl_status run(const kl_args *a, int staged) {
  const kl_plan *p = a->plan;
  KL_TRY(ready(a));
  const cgdist_box b = cgdist_box_of(p);
  stop_rule stop;
  stop.maxit = D_MAXIT(p);
  stop.fixed = D_FIXED(p);
  stop.tol2 = D_TOL(p) * D_TOL(p);
  geometry g = geometry_with(a, (int64_t)p->constants[D_NNZ], stop);
  for (int i = 0; i < 3; i++) {
    g.extent[i] = b.l[i];
    g.start[i] = b.start[i];
    g.grid[i] = b.grid[i];
  }
  g.stencil = D_STENCIL(p);
  int64_t k = 0;
  double exchange = 0, allreduce = 0;
  kl_status st = KL_OK;
  const double t0 = kl__now();
  if (kl__rank_count(p) == 1) {
    st = kl__cg_gpu_matrix_free_solve(a, &g, &k);
  } else {
    dist s;
    KL_TRY(dist_of(a, staged, &s)); /* the plan's: the same on every rank */
    st = solve_ranks(a, &g, &s, &k);
    exchange = s.exchange_seconds;
    allreduce = s.allreduce_seconds;
  }
  const double wall = kl__now() - t0;
  kl__phase(a, D_PHASE_COMPUTE, wall - exchange - allreduce);
  kl__phase(a, D_PHASE_EXCHANGE, exchange);
  kl__phase(a, D_PHASE_ALLREDUCE, allreduce);
  if (st != KL_OK) return st;
  if (a->counts) a->counts[CG_COUNT_ITERATIONS] = (double)k;
  return KL_OK;
}

extern "C" kl_status kl__cgdist_gpu_staged(const kl_args *a) {
  return run(a, 1);
}

extern "C" kl_status kl__cgdist_gpu_aware(const kl_args *a) {
  return run(a, 0);
}

/* cg's cuda-matrix-free scratch over the box's rows (r, p and Ap, the
 * device scalars, the partial sums), then the halo's send and receive
 * regions in device memory, the layered box (its layer at 0 until the
 * neighbours' regions arrive) and, staged, the regions in pinned host
 * memory: none at one rank, where nothing moves. */
static kl_status scratch(kl_plan *p, int staged) {
  KL_TRY(kl__cg_gpu_matrix_free_scratch(p));
  const cgdist_box b = cgdist_box_of(p);
  const int several = kl__rank_count(p) > 1;
  const int64_t layered = several ? b.e[0] * b.e[1] * b.e[2] : 0;
  const int64_t layer =
      several ? layered - b.l[0] * b.l[1] * b.l[2] : 0;
  KL_TRY(kl__plan_scratch(p, D_GPU_HALO, "halo", KL_F64, 2 * layer,
                          KL_MEM_DEVICE, 0));
  KL_TRY(kl__plan_scratch(p, D_GPU_LAYER, "layered p", KL_F64, layered,
                          KL_MEM_DEVICE, KL_BUFFER_ZEROED));
  if (!staged) return KL_OK;
  return kl__plan_scratch(p, D_GPU_STAGE, "halo (pinned)", KL_F64,
                          2 * layer, KL_MEM_PINNED, 0);
}

extern "C" kl_status kl__cgdist_gpu_staged_scratch(kl_plan *p) {
  return scratch(p, 1);
}

extern "C" kl_status kl__cgdist_gpu_aware_scratch(kl_plan *p) {
  return scratch(p, 0);
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
