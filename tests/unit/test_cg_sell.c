/* cg's sliced ELLPACK (cg.h): for the built-in stencils on every grid
 * from 1^3 to 40^3 (slices across grid lines, planes and the grid's end),
 * kl__cg_sell_slices' offsets are those of slices as wide as their longest
 * row, each row's length counted by the CSR generator's own
 * kl__cg_stencil_entries; and at 201^3 the same, the 27-point matrix's
 * padding the 0.36% that cuda-sell's lesson quotes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"
#include "workloads/cg/cg-host.h"

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
  free(offsets);
  return ok && total == at && kl__cg_sell_slices(n, stencil, NULL) == at;
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
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
