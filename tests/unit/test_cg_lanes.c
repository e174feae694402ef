/* The CSR lanes' SpMV's shape (cg.h: cg_lanes, cg_lane_tiles_per_block),
 * over matrices of 0 to 2^33 rows and mean rows of 0 to 300 entries:
 * the lanes the fewest power of two up to 32 whose round of CG_LANE_RUN
 * entries a lane holds the mean row, 0 (the stream kernel) exactly where
 * the longest row passes CG_LANE_ROUNDS rounds; the blocks' tiles cover
 * every row, in at most CG_MAX_BLOCKS blocks, each block about
 * CG_LANE_BLOCK_ENTRIES entries where that many blocks suffice and never
 * more tiles than that needs. The built-in stencils at 201^3 take the
 * lanes their lesson quotes: 4 for 27 points, 1 for 7. */
#include <stdint.h>
#include <stdio.h>

#include "expect.h"
#include "workloads/cg/cg.h"

#define THREADS 256 /* cg-gpu.h's BLOCK */

/* One matrix's shape: 1 where every check held. */
static int check(int64_t rows, int64_t nnz, int64_t longest) {
  const int lanes = cg_lanes(rows, nnz, longest);
  const double mean = rows > 0 ? (double)nnz / (double)rows : 0;
  int found = 1;
  while (found < 32 && found * CG_LANE_RUN < mean) found *= 2;
  const int stream = longest > (int64_t)CG_LANE_ROUNDS * found * CG_LANE_RUN;
  int ok = lanes == (stream ? 0 : found);
  if (ok && lanes > 0) {
    const int64_t tiles = cg_lane_tiles_per_block(rows, nnz, lanes, THREADS);
    const int64_t tile_rows = THREADS / lanes;
    const int64_t all = (rows + tile_rows - 1) / tile_rows;
    const int64_t blocks = (all + tiles - 1) / tiles;
    const double entries = (double)tiles * (double)tile_rows * mean;
    const int64_t fewest = (all + CG_MAX_BLOCKS - 1) / CG_MAX_BLOCKS;
    ok = tiles >= 1 && blocks <= CG_MAX_BLOCKS &&
         blocks * tiles * tile_rows >= rows &&
         /* about the target, unless one tile passes it or the cap rules */
         (tiles == fewest || tiles == 1 ||
          (entries >= CG_LANE_BLOCK_ENTRIES / 2.0 &&
           entries <= 1.5 * CG_LANE_BLOCK_ENTRIES)) &&
         (tiles == 1 || tiles == fewest ||
          entries - (double)tile_rows * mean < CG_LANE_BLOCK_ENTRIES);
  }
  if (!ok)
    printf("rows %lld, nnz %lld, longest %lld: lanes %d (expected %d)\n",
           (long long)rows, (long long)nnz, (long long)longest, lanes,
           stream ? 0 : found);
  return ok;
}

int main(void) {
  static const int64_t rows[] = {0, 1, 2, 3, 63, 64, 65, 255, 256, 257,
                                 1000, 8120601, (int64_t)1 << 31,
                                 ((int64_t)1 << 33) + 7};
  static const double means[] = {0, 0.5, 1, 5, 7, 7.5, 14, 15, 26.7, 27,
                                 56, 100, 224, 300};
  int shapes = 0, bad = 0;
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
    for (size_t j = 0; j < sizeof means / sizeof *means; j++) {
      const int64_t nnz = (int64_t)(means[j] * (double)rows[i]);
      const int64_t mean = rows[i] > 0 ? nnz / rows[i] : 0;
      /* the longest row: the mean, just within 8 rounds, just past them */
      for (int lanes = 1; lanes <= 32; lanes *= 2) {
        const int64_t bound = (int64_t)CG_LANE_ROUNDS * lanes * CG_LANE_RUN;
        const int64_t longests[] = {mean, bound, bound + 1};
        for (int k = 0; k < 3; k++) {
          if (longests[k] < mean) continue;
          shapes++;
          if (!check(rows[i], nnz, longests[k])) bad++;
        }
      }
    }
  EXPECT(bad == 0);
  EXPECT(shapes > 500);

  /* The built-in stencils at 201^3: (3n - 2)^3 entries for 27 points,
   * 7 n^3 - 6 n^2 for 7. */
  const int64_t n = 201, grid = n * n * n;
  EXPECT(cg_lanes(grid, (3 * n - 2) * (3 * n - 2) * (3 * n - 2), 27) == 4);
  EXPECT(cg_lanes(grid, 7 * grid - 6 * n * n, 7) == 1);
  /* an arrowhead's row of every column goes to the stream kernel */
  EXPECT(cg_lanes(1000, 3 * 1000, 1000) == 0);

  printf("%d shapes; %d passed, %d failed\n", shapes, passes, failures);
  return failures ? 1 : 0;
}
