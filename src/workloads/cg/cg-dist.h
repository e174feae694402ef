/* cg-dist (cg-dist.c has the split, the solve and the check): what its
 * host rungs and its GPU rungs (cg-dist-cuda.cu, cg-dist-nccl.cu) share:
 * the parameters, the plan's buffers and constants, a rank's box, and
 * the halo's layout. */
#ifndef KL_CG_DIST_H
#define KL_CG_DIST_H

#include "cg.h"

/* The parameters: cg's, less nnz (the stencil's). */
enum { D_P_N, D_P_STENCIL, D_P_MODE, D_P_TOL, D_P_MAXIT, D_PARAMS };
#define D_STENCIL(p) ((int)(p)->value[D_P_STENCIL])
#define D_FIXED(p) ((int)(p)->value[D_P_MODE] == CG_FIXED)
#define D_TOL(p) ((p)->value[D_P_TOL])
#define D_MAXIT(p) ((int64_t)(p)->value[D_P_MAXIT])
#define D_GO_ON(p, k, rr, bb)                                                 \
  cg_go_on((k), D_MAXIT(p), D_FIXED(p), D_TOL(p) * D_TOL(p), (rr), (bb))

/* The buffers: cg's first six, then the scratch. The host rungs': r, p
 * (with its layer), Ap, and the halo's send and receive regions; the
 * pipelined rung's w (with its layer), z and s, its p without a layer and
 * q in Ap's place. The GPU rungs': cg's cuda-matrix-free's (r, p and Ap
 * of the box's rows, the device scalars, the partial sums), then the
 * halo's send and receive regions in device memory, the box with its
 * layer that the received regions are put in (the sweeps read it there)
 * and, for cuda-staged, the regions' copy in pinned host memory. */
enum { D_FACES = CG_AP + 1, D_W, D_Z, D_S };
enum { D_GPU_HALO = CG_PARTIALS + 1, D_GPU_LAYER, D_GPU_STAGE };

/* The plan's constants: the box's extents, its first point in the grid,
 * the grid's extents, the box's nonzeros. */
enum { D_EXT = 0, D_START = 3, D_GRID = 6, D_NNZ = 9 };

/* The phases of every rung, in the table's order. */
enum { D_PHASE_COMPUTE, D_PHASE_EXCHANGE, D_PHASE_ALLREDUCE };

/* A rank's box: its extents, its first point in the grid, the grid's
 * extents. Named apart from laplacian-dist.h's box: the GPU module's
 * generated stubs include every header that declares a GPU entry. */
typedef struct cgdist_box {
  int64_t l[3], start[3], grid[3];
  int64_t e[3]; /* the extents with the layer: l + 2 */
} cgdist_box;

static inline cgdist_box cgdist_box_of(const kl_plan *p) {
  cgdist_box b;
  for (int a = 0; a < 3; a++) {
    b.l[a] = (int64_t)p->constants[D_EXT + a];
    b.start[a] = (int64_t)p->constants[D_START + a];
    b.grid[a] = (int64_t)p->constants[D_GRID + a];
    b.e[a] = b.l[a] + 2;
  }
  return b;
}

/* The rank grid the plan's ranks make (kl__rank_grid): n^3 points a rank
 * (weak scaling) or in all (strong). */
static inline kl_status dist_grid(const kl_plan *p, int dims[3]) {
  const int64_t n[3] = {p->n, p->n, p->n};
  return kl__rank_grid(kl__rank_count(p), n, !p->strong, dims);
}

/* ---- the halo's layout ----------------------------------------------------
 * The layer around the box (the points one step outside it along one
 * axis or more) as 26 regions, one per neighbour's direction d, in
 * direction order (x fastest, the centre skipped); region d, x fastest,
 * holds along each axis where d is 0 the box's l points, and one point
 * elsewhere (the layer's plane, row or corner beside that neighbour).
 * What a rank sends holds the box's points next to each neighbour in the
 * same layout, so that a region sent and the region received into are of
 * one size. The host rungs (cg-dist.c) and the GPU rungs (cg-dist-gpu.h)
 * pack and unpack with it. */

/* Direction q (0 .. 25) as (dx, dy, dz), each -1, 0 or 1. */
static inline CG_HD void halo_direction(int q, int d[3]) {
  const int at = q < 13 ? q : q + 1; /* the centre skipped */
  d[0] = at % 3 - 1;
  d[1] = at / 3 % 3 - 1;
  d[2] = at / 9 - 1;
}

/* Region d's points. */
static inline CG_HD int64_t halo_region_size(const int64_t l[3],
                                             const int d[3]) {
  return (d[0] ? 1 : l[0]) * (d[1] ? 1 : l[1]) * (d[2] ? 1 : l[2]);
}

/* Where region d starts: the regions before it in direction order, as if
 * the box itself were one of them in the centre's place (the points of
 * a box of l + 2 an axis in 27 blocks, z slowest: the whole planes of
 * blocks before d's along z, the rows of blocks before it in its plane,
 * the blocks before it in its row), less the box where d comes after the
 * centre. */
static inline CG_HD int64_t halo_region_start(const int64_t l[3],
                                              const int d[3]) {
  int64_t before[3], w[3];
  for (int a = 0; a < 3; a++) {
    before[a] = d[a] < 0 ? 0 : d[a] == 0 ? 1 : 1 + l[a];
    w[a] = d[a] ? 1 : l[a];
  }
  const int64_t ex = l[0] + 2, ey = l[1] + 2;
  const int64_t blocks =
      before[2] * ex * ey + w[2] * (before[1] * ex + w[1] * before[0]);
  return d[0] + 3 * d[1] + 9 * d[2] > 0 ? blocks - l[0] * l[1] * l[2]
                                        : blocks;
}

/* Whether the stencil reads the layer beside direction d: every region
 * for 27 points, the faces alone for 7. */
static inline int halo_used(int stencil, const int d[3]) {
  return stencil == CG_STENCIL_27 ||
         (d[0] != 0) + (d[1] != 0) + (d[2] != 0) == 1;
}

#ifdef __cplusplus
extern "C" {
#endif
/* The GPU rungs (cg-dist-cuda.cu): cg's cuda-matrix-free sweeps on the
 * rank's box, the halo of p packed on the device and sent through pinned
 * host memory (staged) or from the device where MPI takes device memory
 * (aware, kl_ranks.device_memory); their scratch, and the aware rung's
 * setup (cg's CUDA rungs' setup and teardown serve otherwise). */
kl_status kl__cgdist_gpu_staged(const kl_args *a);
kl_status kl__cgdist_gpu_aware(const kl_args *a);
kl_status kl__cgdist_gpu_staged_scratch(kl_plan *p);
kl_status kl__cgdist_gpu_aware_scratch(kl_plan *p);
kl_status kl__cgdist_gpu_aware_setup(kl_args *a);
/* The NCCL rung (cg-dist-nccl.cu): the halo exchanged by ncclSend and
 * ncclRecv in one group, the dots summed by ncclAllReduce and alpha and
 * beta worked out on the device, all on the rung's stream; its scratch
 * (the aware rung's) and setup (the ranks' communicator). */
kl_status kl__cgdist_gpu_nccl(const kl_args *a);
kl_status kl__cgdist_gpu_nccl_scratch(kl_plan *p);
kl_status kl__cgdist_gpu_nccl_setup(kl_args *a);
/* cuda-nccl's iterations in batches, the stop decided on the device;
 * and those with p's halo beside sweep A's inner tiles (both with
 * cuda-nccl's scratch and setup). */
kl_status kl__cgdist_gpu_nccl_batched(const kl_args *a);
kl_status kl__cgdist_gpu_nccl_overlap(const kl_args *a);
#ifdef __cplusplus
}
#endif

#endif
