/* cg's split sweeps (src/workloads/cg/cg-tiles.h): over boxes of tiles of
 * every shape up to 6 x 6 x 6 and every inner box in them (empty ones
 * too), the inner launch's blocks take the inner box's tiles and the edge
 * launch's the rest, every tile of the box exactly once, in order of
 * plane (the edge launch's planes never go back). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "workloads/cg/cg-tiles.h"

static int in_box(const int at[3], int X, int Y, int Z) {
  return at[0] >= 0 && at[0] < X && at[1] >= 0 && at[1] < Y && at[2] >= 0 &&
         at[2] < Z;
}

static int inside(const int lo[3], const int hi[3], int X, int Y, int t) {
  const int at[3] = {t % X, t / X % Y, t / X / Y};
  for (int i = 0; i < 3; i++)
    if (at[i] < lo[i] || at[i] >= hi[i]) return 0;
  return 1;
}

/* One box and inner box: 1 where every check held. */
static int check(int X, int Y, int Z, const int lo[3], const int hi[3]) {
  const int tiles = X * Y * Z;
  const int inner = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  unsigned char *taken = calloc((size_t)tiles, 1);
  if (!taken) return 0;
  int ok = 1, last_plane = -1;
  for (int j = 0; j < inner && ok; j++) {
    int at[3];
    cg_inner_tile(lo, hi, j, at);
    const int t = at[0] + X * (at[1] + Y * at[2]);
    ok = in_box(at, X, Y, Z) && t >= 0 && t < tiles && !taken[t] && inside(lo, hi, X, Y, t);
    if (ok) taken[t] = 1;
  }
  for (int j = 0; j < tiles - inner && ok; j++) {
    int at[3];
    cg_shell_tile(lo, hi, X, Y, j, at);
    const int t = at[0] + X * (at[1] + Y * at[2]);
    ok = in_box(at, X, Y, Z) && t >= 0 && t < tiles && !taken[t] && !inside(lo, hi, X, Y, t) &&
         t / (X * Y) >= last_plane;
    if (ok) taken[t] = 1, last_plane = t / (X * Y);
  }
  for (int t = 0; t < tiles && ok; t++) ok = taken[t];
  free(taken);
  if (!ok)
    printf("box %dx%dx%d, inner [%d,%d)x[%d,%d)x[%d,%d): a tile taken "
           "twice, never or by the wrong launch\n", X, Y, Z, lo[0], hi[0],
           lo[1], hi[1], lo[2], hi[2]);
  return ok;
}

int main(void) {
  int boxes = 0, bad = 0;
  for (int X = 1; X <= 6; X++)
    for (int Y = 1; Y <= 6; Y++)
      for (int Z = 1; Z <= 6; Z++) {
        const int n[3] = {X, Y, Z};
        /* Every inner box [lo, hi) with lo < hi on every axis, and the
         * empty one (lo = hi = 0 everywhere, mf_layer_of's). */
        int lo[3], hi[3];
        const int empty[3] = {0, 0, 0};
        bad += !check(X, Y, Z, empty, empty);
        boxes++;
        for (lo[0] = 0; lo[0] < n[0]; lo[0]++)
          for (hi[0] = lo[0] + 1; hi[0] <= n[0]; hi[0]++)
            for (lo[1] = 0; lo[1] < n[1]; lo[1]++)
              for (hi[1] = lo[1] + 1; hi[1] <= n[1]; hi[1]++)
                for (lo[2] = 0; lo[2] < n[2]; lo[2]++)
                  for (hi[2] = lo[2] + 1; hi[2] <= n[2]; hi[2]++) {
                    bad += !check(X, Y, Z, lo, hi);
                    boxes++;
                  }
      }
  EXPECT(bad == 0);
  EXPECT(boxes > 100000);
  /* A box of 256^3 points at 2 ranks split along z (9 x 16 x 86 tiles,
   * the last plane of tiles on the edge): the edge launch takes exactly
   * that plane. */
  const int lo[3] = {0, 0, 0}, hi[3] = {9, 16, 85};
  int at[3];
  cg_shell_tile(lo, hi, 9, 16, 0, at);
  EXPECT(at[0] == 0 && at[1] == 0 && at[2] == 85);
  cg_shell_tile(lo, hi, 9, 16, 143, at);
  EXPECT(at[0] == 8 && at[1] == 15 && at[2] == 85);
  printf("%d boxes checked; %d passed, %d failed\n", boxes, passes,
         failures);
  return failures != 0;
}
