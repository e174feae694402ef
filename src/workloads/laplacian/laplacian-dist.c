/* laplacian-dist: laplacian's stencil on one grid split over the ranks of
 * a run (kl_ranks), each rank its box of the interior and a one-point
 * layer around it, the layer's faces filled from the neighbours before
 * the stencil (a halo exchange). One rank (a run without mpirun) is
 * laplacian on the same grid, the exchange a no-op.
 *
 * The split: the grid's interior points, (nx-2) x (ny-2) x (nz-2), over a
 * px x py x pz grid of ranks whose busiest rank exchanges the fewest
 * points (kl__rank_grid: slabs along z under weak scaling). Weak scaling
 * (the default): every rank's box with its layer is nx x ny x nz, as
 * laplacian's grid (the whole grid px (nx-2) + 2 along x); strong: the
 * whole grid is nx x ny x nz, its interior shared in order along each
 * axis (kl__share). A rank's layer is the grid's
 * boundary where its box touches it, else its neighbours' points.
 * The layout: each rank's u and f are its box with the layer, x fastest,
 * as laplacian's grid: laplacian's kernels run on it unchanged (a plan of
 * the box's extents, local_plan), writing the box's points.
 * Inputs: u and f at global point (x, y, z) are laplacian's patterns at
 * the global index x + X (y + Y z), X and Y the whole grid's extents, so
 * each rank makes its own; the layer points a neighbour owns start as NaN
 * in u, so a rung that does not exchange them fails (the checked run is
 * the first after the upload). u is INOUT, not restored: the exchange
 * writes its layer, every time the same values (the neighbours' points,
 * which no run changes), so a repetition changes nothing. Restoring it
 * (1 GiB from the host at 512^3 f64, ~160 ms) left the GPUs idle before
 * each timed run, and an exchange after such a pause took ~200 us
 * against 34 us back to back (two H100s, an exchange timed after a pause).
 * The check: every point of the box against laplacian's rule, its
 * reference from the true u (the patterns, wherever the point's
 * neighbours lie); every layer point of f bit for bit as it was; every
 * point of a neighbour's face in u's layer the true value (the exchange
 * brought the right face), and every other point of u (the box's own, the
 * grid's boundary, the layer's edges and corners, which no stencil reads)
 * as it was.
 * The exchange: for each axis and side with a neighbour, the box's plane
 * next to that side packed into a send buffer, sent while the neighbour's
 * plane arrives into a receive buffer, unpacked into the layer (tag: the
 * axis; two ranks share at most one face). Six faces: the 7-point stencil
 * needs no edge or corner.
 * Cost model: laplacian's over the box (each rank's), summed over the
 * ranks by the harness; the faces moved are not counted. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "laplacian-dist.h"
#include "../../registry.h"

/* The interior's extents: per rank (weak) or whole (strong). */
static void interior_of(const kl_plan *p, int64_t in[3]) {
  const int64_t n[3] = {LAP_NX(p), LAP_NY(p), LAP_NZ(p)};
  for (int a = 0; a < 3; a++) in[a] = n[a] > 2 ? n[a] - 2 : 0;
}

static kl_status grid_of(const kl_plan *p, int dims[3]) {
  int64_t in[3];
  interior_of(p, in);
  return kl__rank_grid(kl__rank_count(p), in, !p->strong, dims);
}

static const char *const axes[3] = {"x", "y", "z"};

static kl_status plan(kl_plan *p) {
  double *v = p->value;
  v[LAP_P_NX] = (double)p->n;
  if (!(p->given >> LAP_P_NY & 1)) v[LAP_P_NY] = (double)p->n;
  if (!(p->given >> LAP_P_NZ & 1)) v[LAP_P_NZ] = (double)p->n;
  const int ranks = kl__rank_count(p);
  const int64_t n[3] = {LAP_NX(p), LAP_NY(p), LAP_NZ(p)};
  for (int a = 0; a < 3 && ranks > 1; a++)
    if (n[a] < 3)
      return kl__usage(KL_USAGE, "laplacian-dist: n%s = %lld over %d ranks: "
                       "at least 3 (one interior point) along every axis",
                       axes[a], (long long)n[a], ranks);
  int dims[3], coord[3];
  kl_status st = grid_of(p, dims);
  if (st != KL_OK) return st;
  if (ranks > 1) memcpy(p->rank_grid, dims, sizeof dims);
  kl__rank_coords(kl__rank(p), dims, coord);
  int64_t in[3];
  interior_of(p, in);
  double points = 1;
  for (int a = 0; a < 3; a++) {
    int64_t start = 0, len = in[a];
    if (ranks == 1) {
      p->constants[DIST_EXT + a] = (double)n[a];
      p->constants[DIST_GRID + a] = (double)n[a];
    } else if (p->strong) {
      kl__share(in[a], coord[a], dims[a], &start, &len);
      p->constants[DIST_EXT + a] = (double)(len + 2);
      p->constants[DIST_GRID + a] = (double)n[a];
    } else {
      start = in[a] * coord[a];
      p->constants[DIST_EXT + a] = (double)n[a];
      p->constants[DIST_GRID + a] = (double)(in[a] * dims[a] + 2);
    }
    p->constants[DIST_ORIGIN + a] = (double)start;
    points *= p->constants[DIST_GRID + a];
  }
  if (points > 0x1p60)
    return kl__usage(KL_TOO_LARGE, "laplacian-dist: a grid of %.4g points is "
                     "too many", points);
  st = kl__laplacian_coefficients(p);
  if (st != KL_OK) return st;
  p->constant_count = DIST_GRID + 3;
  const box b = box_of(p);
  const int64_t count = b.ext[0] * b.ext[1] * b.ext[2];
  int64_t face = 0;
  for (int a = 0; a < 3; a++) {
    const int64_t f = count / b.ext[a];
    if (f > face) face = f;
  }
  p->buffer_count = 3;
  p->buffers[LAP_U] =
      (kl_buffer_spec){"u", p->type, count, KL_INOUT, KL_MEM_DEVICE, 0};
  p->buffers[LAP_F] =
      (kl_buffer_spec){"f", p->type, count, KL_INOUT, KL_MEM_DEVICE, 0};
  p->buffers[DIST_FACES] =
      (kl_buffer_spec){"faces", p->type, 12 * face, KL_INOUT, KL_MEM_PAGEABLE,
                       KL_BUFFER_SCRATCH};
  return KL_OK;
}

/* ---- inputs and the check ----------------------------------------------- */

/* The box's point (i, j, k) in global coordinates, and whether it is on
 * the whole grid's boundary or in a neighbour's box (the layer). */
static int64_t global_index(const box *b, int64_t i, int64_t j, int64_t k) {
  return (b->origin[0] + i) +
         b->grid[0] * ((b->origin[1] + j) + b->grid[1] * (b->origin[2] + k));
}

/* The axes along which the point lies in the layer: 0 for the box's own
 * points, 1 on a face, 2 on an edge, 3 at a corner. */
static int in_layer(const box *b, int64_t i, int64_t j, int64_t k) {
  return (i == 0 || i == b->ext[0] - 1) + (j == 0 || j == b->ext[1] - 1) +
         (k == 0 || k == b->ext[2] - 1);
}

static int on_boundary(const box *b, int64_t i, int64_t j, int64_t k) {
  const int64_t at[3] = {i, j, k};
  for (int a = 0; a < 3; a++) {
    const int64_t g = b->origin[a] + at[a];
    if (g == 0 || g == b->grid[a] - 1) return 1;
  }
  return 0;
}

/* The pattern's value at a global index, rounded to the type as
 * kl__fill_uniform rounds it. */
static double pattern(const kl_plan *p, int stream, int64_t g) {
  const double x = -1 + 2 * kl__uniform(p->seed, (uint64_t)stream,
                                        (uint64_t)g);
  return p->type == KL_F32 ? (double)(float)x : x;
}

static void put(const kl_plan *p, void *buf, int64_t at, double x) {
  if (p->type == KL_F32) ((float *)buf)[at] = (float)x;
  else ((double *)buf)[at] = x;
}

static void init(const kl_plan *p, void *const *host) {
  const box b = box_of(p);
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < b.ext[2]; k++)
    for (int64_t j = 0; j < b.ext[1]; j++)
      for (int64_t i = 0; i < b.ext[0]; i++) {
        const int64_t at = i + b.ext[0] * (j + b.ext[1] * k);
        const int64_t g = global_index(&b, i, j, k);
        const int theirs = in_layer(&b, i, j, k) && !on_boundary(&b, i, j, k);
        put(p, host[LAP_U], at, theirs ? NAN : pattern(p, LAP_U, g));
        put(p, host[LAP_F], at, pattern(p, LAP_F, g));
      }
}

typedef struct dist_check {
  const kl_plan *p;
  box b;
  const void *u_in, *u_out, *f_in, *f_out;
  kl__lap_rule rule;
  int64_t count;
} dist_check;

/* Elements 0 .. count-1: u; count .. 2 count-1: f (the buffers'
 * order). */
static void dist_element(const void *ctx, int64_t e, kl_element *out) {
  const dist_check *k = ctx;
  const box *b = &k->b;
  const int is_u = e < k->count;
  const int64_t at = is_u ? e : e - k->count;
  const int64_t i = at % b->ext[0], j = at / b->ext[0] % b->ext[1],
                z = at / b->ext[0] / b->ext[1];
  const kl_type t = k->p->type;
  if (is_u) {
    /* A neighbour's face point: exchanged. Its edges and corners are not
     * (the 7-point stencil reads none): they stay as they were. */
    if (in_layer(b, i, j, z) == 1 && !on_boundary(b, i, j, z)) {
      out->got = kl__element(t, k->u_out, at);
      out->want = pattern(k->p, LAP_U, global_index(b, i, j, z));
      out->tol = 0;
    } else {
      kl__same_bits(t, k->u_out, k->u_in, at, out);
    }
    return;
  }
  if (in_layer(b, i, j, z)) {
    kl__same_bits(t, k->f_out, k->f_in, at, out);
    return;
  }
  const int64_t g = global_index(b, i, j, z), sy = b->grid[0],
                sz = b->grid[0] * b->grid[1];
  const int64_t near[7] = {g, g - 1, g + 1, g - sy, g + sy, g - sz, g + sz};
  long double u[7], want;
  for (int n = 0; n < 7; n++) u[n] = pattern(k->p, LAP_U, near[n]);
  kl__laplacian_reference(&k->rule, u, &want, &out->tol);
  out->want = want;
  out->got = kl__element(t, k->f_out, at);
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  dist_check k = {p, box_of(p), in[LAP_U], out[LAP_U], in[LAP_F],
                  out[LAP_F], {0, 0, 0, 0, 0, 0}, p->buffers[LAP_U].count};
  kl__laplacian_rule(p, &k.rule);
  kl__check_elements(2 * k.count, dist_element, &k, v);
  if (v->bad_count) {
    const int64_t e = v->first_bad, at = e % k.count;
    const box *b = &k.b;
    const int64_t i = at % b->ext[0], j = at / b->ext[0] % b->ext[1],
                  z = at / b->ext[0] / b->ext[1];
    kl_element x;
    dist_element(&k, e, &x);
    snprintf(v->detail, sizeof v->detail,
             "rank %d, %s point (%lld,%lld,%lld) of the grid, %s: expected "
             "%.17Lg, got %.17Lg", kl__rank(p),
             e < k.count ? "u" : "f",
             (long long)(b->origin[0] + i), (long long)(b->origin[1] + j),
             (long long)(b->origin[2] + z),
             e < k.count ? (in_layer(b, i, j, z) == 1 &&
                                     !on_boundary(b, i, j, z)
                                 ? "a neighbour's, exchanged"
                                 : "must be untouched")
             : in_layer(b, i, j, z) ? "must be untouched"
                                    : "the stencil",
             x.want, x.got);
  }
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  const box b = box_of(p);
  const double inner = b.ext[0] > 2 && b.ext[1] > 2 && b.ext[2] > 2
                           ? (double)(b.ext[0] - 2) * (double)(b.ext[1] - 2) *
                                 (double)(b.ext[2] - 2)
                           : 0;
  const double points = (double)b.ext[0] * (double)b.ext[1] * (double)b.ext[2];
  c->bytes = (points + inner) * (double)kl_type_size(p->type);
  c->flops = 10 * inner;
  c->items = inner;
}

/* ---- the exchange ---------------------------------------------------------- */

kl_status kl__lapdist_neighbours(const kl_plan *p, int nb[3][2]) {
  int dims[3], coord[3];
  kl_status st = grid_of(p, dims);
  if (st != KL_OK) return st;
  kl__rank_coords(kl__rank(p), dims, coord);
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      int c[3] = {coord[0], coord[1], coord[2]};
      c[axis] += side ? 1 : -1;
      nb[axis][side] = kl__rank_at(dims, c);
    }
  return KL_OK;
}

/* The face of an axis: the box's interior points of a plane across it. */
int64_t kl__lapdist_face_points(const box *b, int axis) {
  int64_t n = 1;
  for (int o = 0; o < 3; o++)
    if (o != axis) n *= b->ext[o] > 2 ? b->ext[o] - 2 : 0;
  return n;
}

/* The face on `side` of `axis` between u and a packed face, x fastest
 * (the GPU rungs' plane_kernel lays it out the same): to_face packs the
 * box's plane next to the layer, else unpacks into the layer's plane
 * (their interior points). */
static void face_copy(const kl_args *a, const box *b, int axis, int side,
                      char *face, int to_face, int parallel) {
  const int64_t at = to_face ? (side ? b->ext[axis] - 2 : 1)
                             : (side ? b->ext[axis] - 1 : 0);
  int64_t lo[3], hi[3];
  for (int o = 0; o < 3; o++) {
    lo[o] = o == axis ? at : 1;
    hi[o] = o == axis ? at + 1 : b->ext[o] - 1;
  }
  kl__box_copy(b->ext, kl_type_size(a->plan->type), a->buffers[LAP_U], face,
               lo, hi, to_face, parallel);
}

/* Pack the faces that have a neighbour and start sending them, the
 * neighbours' coming into the receive planes (a z face from and into u
 * as it lies, kl__lapdist_z_in_place); NULL where nothing moves. */
static void *exchange_start(const kl_args *a, const box *b,
                            const int nbs[3][2], int parallel) {
  const kl_plan *p = a->plan;
  const size_t es = kl_type_size(p->type);
  const int64_t face = p->buffers[DIST_FACES].count / 12;
  char *faces = a->buffers[DIST_FACES], *u = a->buffers[LAP_U];
  const int z_in_place = kl__lapdist_z_in_place(nbs);
  kl_message m[6];
  int count = 0;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      const int nb = nbs[axis][side];
      if (nb < 0) continue;
      char *send = faces + (size_t)((2 * axis + side) * face) * es;
      char *recv = faces + (size_t)((6 + 2 * axis + side) * face) * es;
      size_t bytes = (size_t)kl__lapdist_face_points(b, axis) * es;
      if (axis == 2 && z_in_place) {
        send = u + (size_t)kl__lapdist_z_start(b, side, 1) * es;
        recv = u + (size_t)kl__lapdist_z_start(b, side, 0) * es;
        bytes = (size_t)kl__lapdist_z_run(b) * es;
      } else {
        face_copy(a, b, axis, side, send, 1, parallel);
      }
      m[count++] = (kl_message){nb, axis, send, recv, bytes};
    }
  return kl__exchange_start(p, m, count);
}

/* Wait for the faces and unpack them into u's layer (those in place are
 * there). */
static void exchange_finish(const kl_args *a, const box *b,
                            const int nbs[3][2], void *pending, int parallel) {
  const kl_plan *p = a->plan;
  kl__exchange_wait(p, pending);
  const size_t es = kl_type_size(p->type);
  const int64_t face = p->buffers[DIST_FACES].count / 12;
  char *faces = a->buffers[DIST_FACES];
  const int z_in_place = kl__lapdist_z_in_place(nbs);
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++)
      if (nbs[axis][side] >= 0 && !(axis == 2 && z_in_place))
        face_copy(a, b, axis, side,
                  faces + (size_t)((6 + 2 * axis + side) * face) * es, 0,
                  parallel);
}

/* ---- the faces through shared memory ------------------------------------ */

static char *aligned(void *part, size_t align) {
  return (char *)(((uintptr_t)part + align - 1) & ~(uintptr_t)(align - 1));
}

kl_status kl__lapdist_share(kl_args *a, kl_status st, size_t align) {
  const kl_plan *p = a->plan;
  a->state.pointer[DIST_SHARED] = NULL;
  const int count = kl__rank_count(p), rank = kl__rank(p);
  if (count < 2) return st;
  if (!kl__ranks_shares(p))
    return kl__ranks_agreed(
        p, st != KL_OK ? st
                       : kl__usage(KL_UNAVAILABLE, "laplacian-dist: these "
                                   "ranks share no memory (their kl_ranks "
                                   "has no share)"));
  int nbs[3][2];
  if (st == KL_OK) st = kl__lapdist_neighbours(p, nbs);
  /* A face's room the same on every rank (the largest face of any box:
   * under strong scaling the boxes differ), so that a neighbour finds a
   * set's faces where this rank puts them. */
  uint64_t room = (uint64_t)(p->buffers[DIST_FACES].count / 12) *
                  kl_type_size(p->type);
  kl__allreduce(p, &room, 1, KL_U64, KL_RANKS_MAX);
  const size_t face_bytes = ((size_t)room + 63) & ~(size_t)63;
  const size_t bytes = (12 * face_bytes + align - 1) & ~(align - 1);
  void **parts = calloc((size_t)count, sizeof *parts);
  lapdist_shared *s = calloc(1, sizeof *s);
  if (st == KL_OK && (!parts || !s))
    st = kl__usage(KL_NO_MEMORY, "laplacian-dist: out of host memory");
  /* Made whatever failed: every rank makes it. */
  void *handle = kl__ranks_share(p, bytes + align, parts);
  for (int axis = 0; st == KL_OK && axis < 3; axis++)
    for (int side = 0; st == KL_OK && side < 2; side++) {
      const int nb = nbs[axis][side];
      if (nb >= 0 && !parts[nb])
        st = kl__usage(KL_UNAVAILABLE, "laplacian-dist: rank %d's neighbour "
                       "along %s, rank %d, is on another host; the ranks "
                       "share memory on one host only", rank, axes[axis],
                       nb);
    }
  if (st == KL_OK && !parts[rank])
    st = KL_FAIL(KL_DEVICE, "laplacian-dist: rank %d found no memory of "
                 "its own in what the ranks share", rank);
  st = kl__ranks_agreed(p, st);
  if (st != KL_OK) {
    kl__ranks_unshare(p, handle);
    free(parts);
    free(s);
    return st;
  }
  s->handle = handle;
  s->mine = aligned(parts[rank], align);
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      const int nb = nbs[axis][side];
      s->theirs[axis][side] = nb >= 0 ? aligned(parts[nb], align) : NULL;
    }
  s->face_bytes = face_bytes;
  s->bytes = bytes;
  free(parts);
  a->state.pointer[DIST_SHARED] = s;
  return KL_OK;
}

void kl__lapdist_unshare(kl_args *a) {
  lapdist_shared *s = a->state.pointer[DIST_SHARED];
  if (!s) return;
  kl__ranks_unshare(a->plan, s->handle);
  free(s);
  a->state.pointer[DIST_SHARED] = NULL;
}

kl_status kl__lapdist_notes(const kl_args *a, const int nbs[3][2]) {
  const kl_plan *p = a->plan;
  lapdist_shared *s = a->state.pointer[DIST_SHARED];
  char sent[6], got[6];
  kl_message m[6];
  int count = 0;
  kl__ranks_shared_sync(p, s->handle);
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      const int q = 2 * axis + side;
      if (nbs[axis][side] < 0) continue;
      sent[q] = (char)s->parity;
      got[q] = (char)-1;
      m[count++] = (kl_message){nbs[axis][side], axis, &sent[q], &got[q], 1};
    }
  kl__exchange_wait(p, kl__exchange_start(p, m, count));
  kl__ranks_shared_sync(p, s->handle);
  for (int i = 0; i < count; i++)
    if (*(const char *)m[i].recv != (char)s->parity)
      return KL_FAIL(KL_DEVICE, "laplacian-dist: rank %d's note from rank "
                     "%d is of another run (the ranks are out of step)",
                     kl__rank(p), m[i].peer);
  return KL_OK;
}

/* ---- the rungs ---------------------------------------------------------- */

void kl__lapdist_local_args(const kl_args *a, kl_plan *local, kl_args *la) {
  const box b = box_of(a->plan);
  *local = *a->plan;
  local->value[LAP_P_NX] = (double)b.ext[0];
  local->value[LAP_P_NY] = (double)b.ext[1];
  local->value[LAP_P_NZ] = (double)b.ext[2];
  local->value[LAP_P_M] = 4; /* laplacian's default, for its tiled kernels */
  local->value[LAP_P_PLANES] = 0; /* and the z-marching ones' */
  *la = *a;
  la->plan = local;
}

static const char *const phases[] = {"exchange", "stencil", NULL};
/* cuda-staged's exchange in its parts, so that the faces' copies through
 * pinned memory read as rates of their own; cuda-aware shares
 * the code (its copies 0). In DIST_PH_* order. */
static const char *const gpu_phases[] = {"pack", "d2h", "messages", "h2d",
                                         "stencil", NULL};

/* The exchange, then laplacian's kernel on the box. */
static kl_status blocking(const kl_args *a, kl_status (*kernel)(const kl_args *),
                          int parallel) {
  const box b = box_of(a->plan);
  int nbs[3][2];
  kl_status st = kl__lapdist_neighbours(a->plan, nbs);
  if (st != KL_OK) return st;
  const double t0 = kl__now();
  exchange_finish(a, &b, nbs, exchange_start(a, &b, nbs, parallel),
                  parallel);
  const double t1 = kl__now();
  kl__phase(a, 0, t1 - t0);
  kl_plan local;
  kl_args la;
  kl__lapdist_local_args(a, &local, &la);
  st = kernel(&la);
  kl__phase(a, 1, kl__now() - t1);
  return st;
}

static kl_status serial(const kl_args *a) {
  return blocking(a, kl__laplacian_serial, 0);
}

static kl_status openmp(const kl_args *a) {
  return blocking(a, kl__laplacian_omp_streaming, 1);
}

/* The stencil over the box's points lo .. hi - 1 along each axis. */
static void stencil_box(const kl_args *la, const int64_t lo[3],
                        const int64_t hi[3]) {
  const kl_args *a = la;
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p);
  KL_FOR_FLOAT_TYPE(p->type, T, return,
    LAP_HOST_BEGIN(T);
    _Pragma("omp parallel for collapse(2) schedule(static)")
    for (int64_t k = lo[2]; k < hi[2]; k++)
      for (int64_t j = lo[1]; j < hi[1]; j++) {
        const int64_t row = sy * j + sz * k;
        _Pragma("omp simd")
        for (int64_t i = lo[0]; i < hi[0]; i++) LAP_HOST_POINT(row + i);
      });
}

static void shell_slab(void *la, const int64_t lo[3], const int64_t hi[3]) {
  stencil_box(la, lo, hi);
}

/* The faces in flight while the points that do not need them (two or more
 * from the layer) are computed; then the shell next to the layer
 * (kl__box_shell: two planes across z, two across y between them, two
 * across x). */
static kl_status overlap(const kl_args *a) {
  const box b = box_of(a->plan);
  int nbs[3][2];
  kl_status st = kl__lapdist_neighbours(a->plan, nbs);
  if (st != KL_OK) return st;
  kl_plan local;
  kl_args la;
  kl__lapdist_local_args(a, &local, &la);
  const double t0 = kl__now();
  void *pending = exchange_start(a, &b, nbs, 1);
  const double t1 = kl__now();
  int64_t lo[3], hi[3];
  for (int axis = 0; axis < 3; axis++) {
    lo[axis] = 2;
    hi[axis] = b.ext[axis] - 2;
  }
  stencil_box(&la, lo, hi);
  const double t2 = kl__now();
  exchange_finish(a, &b, nbs, pending, 1);
  const double t3 = kl__now();
  for (int axis = 0; axis < 3; axis++) {
    lo[axis] = 1;
    hi[axis] = b.ext[axis] - 1;
  }
  kl__box_shell(lo, hi, shell_slab, &la);
  const double t4 = kl__now();
  kl__phase(a, 0, (t1 - t0) + (t3 - t2));
  kl__phase(a, 1, (t2 - t1) + (t4 - t3));
  return KL_OK;
}

/* Each face packed straight into the neighbour's set of the memory the
 * ranks share, a note to each neighbour and theirs awaited, the faces
 * unpacked from this rank's set: one copy of each face (the messages'
 * path copies it into MPI's memory and out again, or across processes),
 * then laplacian's openmp-streaming. */
static kl_status shared(const kl_args *a) {
  lapdist_shared *s = a->state.pointer[DIST_SHARED];
  const box b = box_of(a->plan);
  int nbs[3][2];
  kl_status st = kl__lapdist_neighbours(a->plan, nbs);
  if (st != KL_OK) return st;
  const double t0 = kl__now();
  if (s) {
    for (int axis = 0; axis < 3; axis++)
      for (int side = 0; side < 2; side++)
        if (nbs[axis][side] >= 0)
          face_copy(a, &b, axis, side,
                    lapdist_slot(s, s->theirs[axis][side], axis, !side), 1,
                    1);
    st = kl__lapdist_notes(a, nbs);
    for (int axis = 0; axis < 3; axis++)
      for (int side = 0; side < 2; side++)
        if (nbs[axis][side] >= 0)
          face_copy(a, &b, axis, side, lapdist_slot(s, s->mine, axis, side),
                    0, 1);
    s->parity ^= 1;
  }
  const double t1 = kl__now();
  kl__phase(a, 0, t1 - t0);
  kl_plan local;
  kl_args la;
  kl__lapdist_local_args(a, &local, &la);
  if (st == KL_OK) st = kl__laplacian_omp_streaming(&la);
  kl__phase(a, 1, kl__now() - t1);
  return st;
}

static kl_status shared_setup(kl_args *a) {
  return kl__lapdist_share(a, KL_OK, 64);
}

#define FLOATS (KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64))

/* The hooks every laplacian GPU rung shares. */
static const kl_rung_family gpu_family = {
    .scratch = KL_GPU_FN(kl__lapdist_gpu_scratch)};

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "the faces exchanged, then laplacian's triple "
            "loop on the rank's box", .phases = phases, .run = serial),
    KL_RUNG("openmp", openmp, "the faces packed in parallel and exchanged, "
            "then laplacian's openmp-streaming on the box", .phases = phases,
            .run = openmp),
    KL_RUNG("openmp-overlap", openmp, "the points two or more from the layer "
            "computed while the faces travel, then the shell next to it",
            .phases = phases, .run = overlap),
    KL_RUNG("openmp-shared", openmp, "each face packed straight into the "
            "neighbour's part of memory the ranks of a host share (an MPI "
            "shared window) and a one-byte note sent, then openmp's "
            "stencil; stands aside where a neighbour is on another host",
            .phases = phases, .setup = shared_setup,
            .teardown = kl__lapdist_unshare, .run = shared),
    KL_RUNG("cuda-staged", gpu, "the faces packed on the GPU and sent "
            "through pinned host memory, then laplacian's cuda-zmarch-vector "
            "on the box", .phases = gpu_phases,
            .scratch = KL_GPU_FN(kl__lapdist_gpu_staged_scratch),
            .setup = KL_GPU_FN(kl__lapdist_gpu_setup),
            .run = KL_GPU_FN(kl__lapdist_gpu_staged)),
    KL_RUNG("cuda-mapped", gpu, "the faces packed by the GPU straight into "
            "pinned host memory mapped into its address space, sent from "
            "there and unpacked from there: no copies, the SMs drive the "
            "bus", .phases = gpu_phases,
            .scratch = KL_GPU_FN(kl__lapdist_gpu_mapped_scratch),
            .setup = KL_GPU_FN(kl__lapdist_gpu_setup),
            .run = KL_GPU_FN(kl__lapdist_gpu_mapped)),
    KL_RUNG("cuda-shared", gpu, "the faces packed on the GPU and copied "
            "by its copy engine straight into the neighbour's part of pinned "
            "memory the ranks share (an MPI shared window), a one-byte note "
            "sent, then copied in from this rank's part: the CPU touches no "
            "face", .phases = gpu_phases,
            .setup = KL_GPU_FN(kl__lapdist_gpu_shared_setup),
            .teardown = KL_GPU_FN(kl__lapdist_gpu_shared_teardown),
            .run = KL_GPU_FN(kl__lapdist_gpu_shared),
            .family = &gpu_family),
    KL_RUNG("cuda-aware", gpu, "cuda-staged with the faces sent from the "
            "device (a CUDA-aware MPI); stands aside where MPI takes no "
            "device memory", .phases = gpu_phases,
            .setup = KL_GPU_FN(kl__lapdist_gpu_aware_setup),
            .run = KL_GPU_FN(kl__lapdist_gpu_aware),
            .family = &gpu_family),
    KL_RUNG("cuda-nccl", gpu, "the faces packed on the GPU (a z face as it "
            "lies in u) and exchanged by ncclSend and ncclRecv in one group "
            "on the stream, then cuda-zmarch-vector; stands aside where two "
            "ranks share a GPU",
            .phases = phases,
            .setup = KL_GPU_NCCL_FN(kl__lapdist_gpu_nccl_setup),
            .run = KL_GPU_NCCL_FN(kl__lapdist_gpu_nccl),
            .family = &gpu_family),
    KL_RUNG("cuda-nccl-overlap", gpu, "cuda-nccl's exchange on a stream of "
            "the highest priority while the interior's stencil runs, then "
            "the shell next to the faces; the phases overlap",
            .phases = phases,
            .setup = KL_GPU_NCCL_FN(kl__lapdist_gpu_nccl_setup),
            .run = KL_GPU_NCCL_FN(kl__lapdist_gpu_nccl_overlap),
            .family = &gpu_family),
};

static const kl_test_problem tests[] = {
    {"nx=1,ny=1,nz=1", 0},
    {"nx=3,ny=3,nz=3", 0},
    {"nx=4,ny=3,nz=5,hx=0.5,hy=2,hz=0.25", 0},
    {"nx=2,ny=5,nz=7", 0},
    {"nx=33,ny=17,nz=9,hx=0.5,hy=2,hz=0.25", 0},
    {"nx=68,ny=21,nz=37,hx=0.3", 0},
    {NULL, 0}};

const kl_workload kl__workload_laplacian_dist = {
    .name = "laplacian-dist",
    .summary = "laplacian on one grid split over the ranks, a halo "
               "exchange of the faces before the stencil",
    .tolerance = "laplacian's rule at every point of each rank's box, from "
                 "the true u; the layer of f untouched; the layer of u the "
                 "neighbours' values",
    .source = "seed 002; HPCG's decomposition and halos, NCCL's "
              "point-to-point",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = FLOATS,
    .default_type = KL_F64,
    .params = kl__laplacian_params,
    .param_count = LAP_P_M, /* those before m */
    .ceiling = {KL_CEILING_RUNG, &kl__workload_stream, NULL},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
    .distributed = 1,
};
