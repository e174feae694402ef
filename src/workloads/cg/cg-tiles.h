/* cg's matrix-free sweeps split in two launches (cg-matrix-free.h): which
 * tile of a box of X x Y x Z tiles (x fastest, then y, then z) a launch's
 * j-th block takes. The inner launch takes the tiles of an inner box,
 * lo[i] .. hi[i] - 1 along axis i; the edge launch the shell around it.
 * Plain C, so that tests/unit/test_cg_tiles.c checks every tile is taken once
 * on the host. */
#ifndef KL_CG_TILES_H
#define KL_CG_TILES_H

#if defined(__CUDACC__) || defined(__HIPCC__)
#define CG_TILES_FN static inline __host__ __device__
#else
#define CG_TILES_FN static inline
#endif

/* The inner box's j-th tile, the box's tiles in order: its coordinates
 * in tiles, at[0] along x. */
CG_TILES_FN void cg_inner_tile(const int lo[3], const int hi[3], int j,
                               int at[3]) {
  const int ix = hi[0] - lo[0], iy = hi[1] - lo[1];
  at[0] = lo[0] + j % ix;
  at[1] = lo[1] + j / ix % iy;
  at[2] = lo[2] + j / ix / iy;
}

/* The shell's j-th tile (0 <= j < X Y Z less the inner box's tiles),
 * plane of tiles by plane: the whole planes below the inner box; then,
 * for each plane beside it, its ring: the whole rows below the box, each
 * row beside it less the box's tiles, the whole rows above; then the
 * whole planes above. An empty inner box (hi = lo on every axis): every
 * tile in order. */
CG_TILES_FN void cg_shell_tile(const int lo[3], const int hi[3], int X,
                               int Y, int j, int at[3]) {
  const int ix = hi[0] - lo[0], iy = hi[1] - lo[1], iz = hi[2] - lo[2];
  const int whole = X * Y, ring = whole - ix * iy, side = X - ix;
  int r; /* the tile's place in its plane */
  if (j < lo[2] * whole) {
    at[2] = j / whole, r = j % whole;
  } else if ((j -= lo[2] * whole) >= iz * ring) {
    j -= iz * ring;
    at[2] = hi[2] + j / whole, r = j % whole;
  } else {
    at[2] = lo[2] + j / ring, r = j % ring; /* r: its place in the ring */
    if (r >= lo[1] * X) {
      r -= lo[1] * X;
      if (r < iy * side) { /* a row beside the box */
        const int c = r % side;
        at[0] = c < lo[0] ? c : c + ix;
        at[1] = lo[1] + r / side;
        return;
      }
      r += hi[1] * X - iy * side; /* the whole rows above the box */
    }
  }
  at[0] = r % X;
  at[1] = r / X;
}

#endif
