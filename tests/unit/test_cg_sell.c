/* cg's sliced ELLPACK (cg.h): for the built-in stencils on every grid
 * from 1^3 to 40^3 (slices across grid lines, planes and the grid's end),
 * kl__cg_sell_slices' offsets are those of slices as wide as their longest
 * row, each row's length counted by the CSR generator's own
 * kl__cg_stencil_entries, and kl__cg_sell_slices_csr's from the CSR
 * generator's row offsets the same (cuda-sell's setup slices the CSR
 * into a scratch the grid sized); at 201^3 the same, the 27-point
 * matrix's padding the 0.36% that cuda-sell's lesson quotes. Matrices of
 * their own: slices of rows of random lengths (empty rows, a last slice
 * in part) as wide as their longest row, and the room (kl__cg_sell_room_csr)
 * taking a 2D 5-point matrix's slices and refusing an arrowhead's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"
#include "workloads/cg/cg-host.h"

/* The entries of the slices of a CSR matrix of `rows` rows, and where
 * offsets is not NULL each slice's first: a slice as wide as its longest
 * row, as cuda-sell's setup makes them on the device. */
static int64_t csr_slices(int64_t rows, const int64_t *row_offsets,
                          int64_t *offsets) {
  const int64_t slices = CG_SELL_SLICES(rows);
  int64_t total = 0;
  if (offsets) offsets[0] = 0;
  for (int64_t s = 0; s < slices; s++) {
    int64_t width = 0;
    for (int64_t r = s * CG_SELL_HEIGHT;
         r < rows && r < (s + 1) * CG_SELL_HEIGHT; r++)
      if (row_offsets[r + 1] - row_offsets[r] > width)
        width = row_offsets[r + 1] - row_offsets[r];
    total += width * CG_SELL_HEIGHT;
    if (offsets) offsets[s + 1] = total;
  }
  return total;
}

/* 1 where the offsets of every slice match the rows' own widths. */
static int check(int64_t n, int stencil) {
  const int64_t rows = n * n * n, h = CG_SELL_HEIGHT;
  const int64_t slices = CG_SELL_SLICES(rows);
  int64_t *offsets = malloc(sizeof *offsets * (size_t)(slices + 1));
  if (!offsets) return 0;
  const int64_t total = kl__cg_sell_slices(n, stencil, offsets);
  int64_t columns[CG_STENCIL_MAX], at = 0;
  double values[CG_STENCIL_MAX];
  int ok = offsets[0] == 0;
  for (int64_t s = 0; s < slices && ok; s++) {
    int64_t width = 0;
    for (int64_t row = s * h; row < rows && row < (s + 1) * h; row++) {
      const int64_t w =
          kl__cg_stencil_entries(n, stencil, row, columns, values);
      if (w > width) width = w;
    }
    at += width * h;
    ok = offsets[s + 1] == at;
    if (!ok)
      printf("n %lld stencil %d: slice %lld ends at %lld, not %lld\n",
             (long long)n, stencil, (long long)s, (long long)offsets[s + 1],
             (long long)at);
  }
  /* The same slices from the CSR the generator makes. */
  const int64_t nnz = kl__cg_stencil_nnz(n, stencil);
  int64_t *row_offsets = malloc(sizeof *row_offsets * (size_t)(rows + 1));
  int32_t *csr_columns = malloc(sizeof *csr_columns * (size_t)nnz);
  double *csr_values = malloc(sizeof *csr_values * (size_t)nnz);
  int64_t *from_csr = malloc(sizeof *from_csr * (size_t)(slices + 1));
  if (ok && row_offsets && csr_columns && csr_values && from_csr) {
    kl__cg_stencil_csr(n, stencil, row_offsets, csr_columns, csr_values);
    ok = csr_slices(rows, row_offsets, from_csr) == total;
    for (int64_t s = 0; s <= slices && ok; s++)
      ok = from_csr[s] == offsets[s];
    if (!ok)
      printf("n %lld stencil %d: the CSR's slices differ\n", (long long)n,
             stencil);
  } else {
    ok = 0;
  }
  free(row_offsets), free(csr_columns), free(csr_values), free(from_csr);
  free(offsets);
  return ok && total == at && kl__cg_sell_slices(n, stencil, NULL) == at;
}

/* The 2D 5-point matrix on an m x m grid (rows along x first) and the
 * arrowhead of `rows` rows (row 0 full, the rest two entries): the
 * entries their slices hold. */
static int64_t five_point_slices(int64_t m, int64_t *nnz) {
  const int64_t rows = m * m;
  int64_t *row_offsets = malloc(sizeof *row_offsets * (size_t)(rows + 1));
  if (!row_offsets) return -1;
  row_offsets[0] = 0;
  for (int64_t r = 0; r < rows; r++) {
    const int64_t i = r % m, j = r / m;
    row_offsets[r + 1] = row_offsets[r] + 1 + (i > 0) + (i < m - 1) +
                         (j > 0) + (j < m - 1);
  }
  *nnz = row_offsets[rows];
  const int64_t total = csr_slices(rows, row_offsets, NULL);
  free(row_offsets);
  return total;
}

static int64_t arrowhead_slices(int64_t rows, int64_t *nnz) {
  int64_t *row_offsets = malloc(sizeof *row_offsets * (size_t)(rows + 1));
  if (!row_offsets) return -1;
  row_offsets[0] = 0;
  for (int64_t r = 0; r < rows; r++)
    row_offsets[r + 1] = row_offsets[r] + (r == 0 ? rows : 2);
  *nnz = row_offsets[rows];
  const int64_t total = csr_slices(rows, row_offsets, NULL);
  free(row_offsets);
  return total;
}

int main(void) {
  for (int64_t n = 1; n <= 40; n++) {
    EXPECT(check(n, CG_STENCIL_27));
    EXPECT(check(n, CG_STENCIL_7));
  }
  EXPECT(check(201, CG_STENCIL_27));
  const int64_t nnz = kl__cg_stencil_nnz(201, CG_STENCIL_27);
  const int64_t entries = kl__cg_sell_slices(201, CG_STENCIL_27, NULL);
  const double padding = (double)(entries - nnz) / (double)nnz;
  EXPECT(padding > 0.0035 && padding < 0.0036);
  /* Matrices of their own: the room. */
  int64_t five_nnz = 0, arrow_nnz = 0;
  const int64_t five = five_point_slices(64, &five_nnz);
  const int64_t arrow = arrowhead_slices(3000, &arrow_nnz);
  /* 5-point: slices along x, as wide as 5 (4 on the grid's first and last
   * lines): 4 of them 128 entries each, the rest 160. */
  EXPECT(five_nnz == 5 * 64 * 64 - 4 * 64);
  EXPECT(five == (128 - 4) * 160 + 4 * 128);
  EXPECT(five <= kl__cg_sell_room_csr(64 * 64, five_nnz));
  /* The arrowhead's first slice is 3000 wide: 96000 entries for 3000. */
  EXPECT(arrow_nnz == 3000 + 2 * 2999);
  EXPECT(arrow > kl__cg_sell_room_csr(3000, arrow_nnz));
  /* The room: the CSR's bytes (12 an entry, 8 a row) and an eighth, in
   * entries of 12 bytes. */
  EXPECT(kl__cg_sell_room_csr(96, 960) == (12 * 960 + 8 * 96) * 9 / 96);
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
