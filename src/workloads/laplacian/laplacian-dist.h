/* laplacian-dist (laplacian-dist.c has the split, the layout and the
 * check): what its host rungs and its GPU rungs (laplacian-dist-cuda.cu)
 * share. */
#ifndef KL_LAPLACIAN_DIST_H
#define KL_LAPLACIAN_DIST_H

#include "laplacian.h"

/* The plan's constants after laplacian's three coefficients: the box with
 * its layer (extents, the global coordinate of its first point) and the
 * whole grid's extents. */
enum { DIST_EXT = 3, DIST_ORIGIN = 6, DIST_GRID = 9 };
/* The plan's buffers: laplacian's, then the faces (scratch): six send
 * planes, then six receive planes, each of the largest face's size; the
 * GPU rungs' faces are in device memory, and the staged rung's copies of
 * them in pinned host memory follow. */
enum { DIST_FACES = 2, DIST_STAGE = 3 };
/* cuda-staged's and cuda-aware's phases, positions in their rungs' list
 * (laplacian-dist.c's gpu_phases): the pack and unpack kernels, the faces'
 * copies to pinned host memory, the messages (the host's wall time), the
 * copies back, the stencil. cuda-aware's copies are 0. */
enum {
  DIST_PH_PACK,
  DIST_PH_D2H,
  DIST_PH_MESSAGES,
  DIST_PH_H2D,
  DIST_PH_STENCIL
};

/* The faces through memory the ranks of a host share (openmp-shared,
 * cuda-shared; kl__ranks_share): each rank's part holds two sets of six
 * receive faces, one per parity of the run; a neighbour writes its face
 * straight into this rank's set (packing it there on a host, copying it
 * there on a GPU) and then says so in a one-byte note. A rank writes the
 * set of the run's parity while its neighbours may still read the other
 * set, and cannot get two runs ahead: each run waits for the neighbours'
 * notes. In the rung's state.pointer[DIST_SHARED] (laplacian's z-marching
 * setup keeps integers 0 to 2); NULL at one rank, where nothing moves. */
enum { DIST_SHARED = 3 };
typedef struct lapdist_shared {
  void *handle;          /* kl__ranks_share's */
  char *mine;            /* this rank's two sets, aligned as asked */
  char *theirs[3][2];    /* the neighbour's on each side; NULL where none */
  size_t face_bytes;     /* a face's room, a multiple of 64 */
  size_t bytes;          /* the two sets, a multiple of the alignment */
  int parity;            /* the set this run writes and reads */
  unsigned pinned;       /* cuda-shared: the parts registered (bit 0 mine,
                            1 + 2 axis + side a neighbour's) */
} lapdist_shared;

/* Where the face from side `side` of `axis` lands in a part (this rank's,
 * or the neighbour's with the neighbour's side) in this run's set. */
static inline char *lapdist_slot(const lapdist_shared *s, char *part,
                                 int axis, int side) {
  return part + (size_t)s->parity * 6 * s->face_bytes +
         (size_t)(2 * axis + side) * s->face_bytes;
}

typedef struct box {
  int64_t ext[3], origin[3], grid[3];
} box;

static inline box box_of(const kl_plan *p) {
  box b;
  for (int a = 0; a < 3; a++) {
    b.ext[a] = (int64_t)p->constants[DIST_EXT + a];
    b.origin[a] = (int64_t)p->constants[DIST_ORIGIN + a];
    b.grid[a] = (int64_t)p->constants[DIST_GRID + a];
  }
  return b;
}

/* Whether the faces across z go from and into u itself, unpacked: a z
 * plane's rows 1 to ny - 2, whole x lines (one run of memory), where the
 * box has no neighbour along x (the grid of ranks then splits y and z
 * alone: slabs along z under weak scaling). The lines' ends are then the
 * grid's boundary on both ranks of the pair (the same x range, the same
 * values), so that receiving them changes nothing there. Both ranks of a
 * z pair share their place along x: they agree. The rungs that message
 * from memory they address take it (the host's MPI messages, NCCL's);
 * the staged, mapped and shared ones pack every face into slots of the
 * packed size. */
static inline int kl__lapdist_z_in_place(const int nbs[3][2]) {
  return nbs[0][0] < 0 && nbs[0][1] < 0;
}

/* An in-place face's points, and its first point in u: the box's plane
 * next to the layer (to send) or the layer's (to receive) on `side`. */
static inline int64_t kl__lapdist_z_run(const box *b) {
  return b->ext[0] * (b->ext[1] - 2);
}
static inline int64_t kl__lapdist_z_start(const box *b, int side, int send) {
  const int64_t k = send ? (side ? b->ext[2] - 2 : 1)
                         : (side ? b->ext[2] - 1 : 0);
  return b->ext[0] * (1 + b->ext[1] * k);
}

#ifdef __cplusplus
extern "C" {
#endif
/* The rank on each side (0: minus, 1: plus) of each axis, -1 at the
 * grid's boundary. */
kl_status kl__lapdist_neighbours(const kl_plan *p, int nb[3][2]);
/* The points of a face across `axis`: the box's interior of a plane. */
int64_t kl__lapdist_face_points(const box *b, int axis);
/* A rung's args with a plan of the box's extents: laplacian's kernels run
 * on it as on a grid of their own. */
void kl__lapdist_local_args(const kl_args *a, kl_plan *local, kl_args *la);
/* The GPU rungs (laplacian-dist-cuda.cu): the faces packed on the device,
 * sent through pinned host memory (staged; mapped: packed straight into
 * it) or from the device where MPI takes device memory
 * (kl_ranks.device_memory), then laplacian's cuda-zmarch-vector on the
 * box; their scratch and setup. */
kl_status kl__lapdist_gpu_staged(const kl_args *a);
kl_status kl__lapdist_gpu_mapped(const kl_args *a);
kl_status kl__lapdist_gpu_aware(const kl_args *a);
kl_status kl__lapdist_gpu_scratch(kl_plan *p);
kl_status kl__lapdist_gpu_staged_scratch(kl_plan *p);
kl_status kl__lapdist_gpu_mapped_scratch(kl_plan *p);
kl_status kl__lapdist_gpu_setup(kl_args *a);
kl_status kl__lapdist_gpu_aware_setup(kl_args *a);
/* The shared faces (above): made on every rank in a rung's setup after
 * st, this rank's status so far, with each part aligned to `align` bytes
 * (a power of two; a page where a device registers it), the setup's
 * status agreed over the ranks (nothing kept where any failed); given
 * back in its teardown. The notes: this run's faces written into the
 * neighbours' sets, a note to each and each one's awaited; KL_DEVICE
 * where a neighbour's note is of another run (out of step). */
kl_status kl__lapdist_share(kl_args *a, kl_status st, size_t align);
void kl__lapdist_unshare(kl_args *a);
kl_status kl__lapdist_notes(const kl_args *a, const int nbs[3][2]);
/* cuda-shared (laplacian-dist-cuda.cu): the faces packed on the device
 * and copied by the copy engine straight into the neighbours' sets (each
 * part registered with the device), then from this rank's set. */
kl_status kl__lapdist_gpu_shared(const kl_args *a);
kl_status kl__lapdist_gpu_shared_setup(kl_args *a);
void kl__lapdist_gpu_shared_teardown(kl_args *a);
/* The NCCL rung (laplacian-dist-nccl.cu): the faces packed on the device
 * (a z face in place, kl__lapdist_z_in_place) and exchanged by ncclSend
 * and ncclRecv in one group on the rung's stream; its setup makes the
 * ranks' communicator. */
kl_status kl__lapdist_gpu_nccl(const kl_args *a);
kl_status kl__lapdist_gpu_nccl_setup(kl_args *a);
/* cuda-nccl's exchange and shell on the context's urgent stream while
 * the interior is computed (cuda-nccl's setup). */
kl_status kl__lapdist_gpu_nccl_overlap(const kl_args *a);
#ifdef __cplusplus
}
#endif

#endif
