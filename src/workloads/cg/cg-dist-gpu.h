/* What cg-dist's GPU rungs share (cg-dist-cuda.cu: staged and aware,
 * through kl_ranks; cg-dist-nccl.cu: NCCL): p's halo packed on the device
 * and put in the layered box after the exchange (the kernels and their
 * launches), a rank's halo and messages, the scratch, and the run around
 * a rung's solve over several ranks (its geometry, the one-rank solve,
 * the phases). Each rung has its own iterations: staged and aware sum
 * the dots on the host, NCCL on the device. */
#ifndef KL_CG_DIST_GPU_H
#define KL_CG_DIST_GPU_H

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
 * A forms it, beta read from the device scalars as sweep A reads it).
 * Only the regions sent (bit q of `sent`: a neighbour in direction q reads
 * it): under slabs along z two of the 26, where forming all of them made
 * the four x and y faces too, two thirds of the pack's work. */
template <int MODE>
static __global__ void pack_kernel(mf_vectors v, const double *scalars,
                                   unsigned sent, extents box,
                                   double *__restrict__ send) {
  if (!(sent >> blockIdx.y & 1)) return;
  const double beta = MODE == MF_DIRECTION ? scalars[S_BETA] : 0;
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

/* ---- a rank's halo ------------------------------------------------------ */

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
static inline void messages_of(dist *s, const int dims[3],
                               const int coord[3], int stencil) {
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

static inline kl_status dist_of(const kl_args *a, int staged, dist *s) {
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

/* The halo of what the next sweep reads (v: pack_kernel's; its beta the
 * device scalars'), packed into the send regions: those of the directions
 * a message goes to, which are the directions one comes from (`received`:
 * a neighbour is one both ways). */
template <int MODE>
static kl_status pack(const kl_args *a, const geometry *g, const dist *s,
                      mf_vectors v) {
  pack_kernel<MODE><<<dim3(s->region_blocks, 26), PACK_BLOCK, 0, g->s>>>(
      v, SCALARS(a), s->received, s->box, s->send);
  KL_GPU_CHECK_LAUNCH(pack_kernel<MODE>);
  return KL_OK;
}

/* The receive regions put in the layered box. */
static inline kl_status unpack(const geometry *g, const dist *s) {
  unpack_kernel<<<dim3(s->region_blocks, 26), PACK_BLOCK, 0, g->s>>>(
      s->recv, s->received, s->box, s->layered);
  KL_GPU_CHECK_LAUNCH(unpack_kernel);
  return KL_OK;
}

/* ---- the run ------------------------------------------------------------- */

/* A rung's solve over several ranks: the geometry of the rank's box, its
 * halo (dist_of's), the iterations done. It leaves the seconds of its
 * exchanges and sums in the halo's. */
typedef kl_status (*dist_solve_fn)(const kl_args *a, geometry *g, dist *s,
                                   int64_t *iterations);

/* The solve of the plan's box by cg-dist's rule; cg's scratch indices.
 * One rank: cuda-matrix-free's own solve of the grid; several: `solve`
 * over the halo of the device's regions or, staged, their pinned
 * copies. The phases: the exchanges' and the sums' seconds, and the
 * rest as compute. */
static inline kl_status dist_run(const kl_args *a, int staged,
                                 dist_solve_fn solve) {
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
    st = solve(a, &g, &s, &k);
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

/* cg's cuda-matrix-free scratch over the box's rows (r, p and Ap, the
 * device scalars, the partial sums), then the halo's send and receive
 * regions in device memory, the layered box (its layer at 0 until the
 * neighbours' regions arrive) and, staged, the regions in pinned host
 * memory: none at one rank, where nothing moves. */
static inline kl_status dist_scratch(kl_plan *p, int staged) {
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

#endif
