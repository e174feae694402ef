/* spd_gen KIND N KAPPA SEED: a sparse symmetric positive definite matrix
 * of about condition KAPPA, in Matrix Market coordinate format (symmetric:
 * the lower triangle), on standard output. For cg's tests on hard
 * matrices: every rung that takes a matrix must reach its tolerance on
 * them.
 *
 *   band     N x N, (T^2 + s I) with T = tridiag(-1, 2, -1): pentadiagonal,
 *            eigenvalues (2 - 2 cos(j pi / (N + 1)))^2 + s, so that its
 *            condition is (16 + s) / (lambda_min(T^2) + s) with
 *            s = 16 / KAPPA (where lambda_min(T^2) is far below s:
 *            KAPPA up to about N^4 / 6); the matrix the SciPy
 *            example made.
 *   random   N x N, random sparse: about 5 off-diagonal entries a row in
 *            [-1, 0), the diagonal their row sum plus 1 (diagonally
 *            dominant: SPD, condition of a few tens), then scaled D A D
 *            with D's entries spread log-uniformly over [1, sqrt(KAPPA /
 *            20)]: the condition grows about as the square of D's spread.
 *   poisson  the 5-point Laplacian of an M x M grid (N = M^2 rows,
 *            Dirichlet), coefficients 1 and 1 / KAPPA * M^2 / 10 in a
 *            checkerboard of 4 x 4 blocks (edges the harmonic mean): a
 *            diffusion problem whose condition is the coefficients'
 *            contrast times the grid's.
 *
 * The condition is approximate (the generator does not solve for the
 * spectrum): the tests name their matrices by the order of magnitude. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: the generator's stream, from the seed. */
static uint64_t state;
static double uniform(void) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1p-53;
}

typedef struct entry {
  int64_t i, j; /* i >= j, from 1 */
  double v;
} entry;

static int by_position(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->j != y->j) return x->j < y->j ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

static void write(const char *kind, int64_t n, double kappa, entry *e,
                  int64_t count) {
  qsort(e, (size_t)count, sizeof *e, by_position);
  printf("%%%%MatrixMarket matrix coordinate real symmetric\n");
  printf("%% spd_gen %s: about condition %g\n", kind, kappa);
  printf("%lld %lld %lld\n", (long long)n, (long long)n, (long long)count);
  for (int64_t k = 0; k < count; k++)
    printf("%lld %lld %.17g\n", (long long)e[k].i, (long long)e[k].j,
           e[k].v);
}

static int band(int64_t n, double kappa) {
  /* T^2 = pentadiagonal (1, -4, 6, -4, 1), the corners 5 (the boundary
   * rows of T have one neighbour). */
  const double s = 16 / kappa;
  entry *e = malloc(sizeof *e * (size_t)(3 * n));
  if (!e) return 1;
  int64_t count = 0;
  for (int64_t i = 1; i <= n; i++) {
    const double diag = (i == 1 || i == n) ? 5 : 6;
    e[count++] = (entry){i, i, diag + s};
    if (i >= 2) e[count++] = (entry){i, i - 1, -4};
    if (i >= 3) e[count++] = (entry){i, i - 2, 1};
  }
  write("band", n, kappa, e, count);
  free(e);
  return 0;
}

static int random_spd(int64_t n, double kappa) {
  const int per_row = 5;
  const size_t cap = (size_t)n * (per_row + 1);
  entry *e = malloc(sizeof *e * cap);
  double *rowsum = calloc((size_t)n + 1, sizeof *rowsum);
  double *d = malloc(sizeof *d * ((size_t)n + 1));
  if (!e || !rowsum || !d) return 1;
  const double spread = kappa > 20 ? sqrt(kappa / 20) : 1;
  for (int64_t i = 1; i <= n; i++) d[i] = pow(spread, uniform());
  int64_t count = 0;
  for (int64_t i = 2; i <= n; i++)
    for (int k = 0; k < per_row / 2 + 1; k++) {
      const int64_t j = 1 + (int64_t)(uniform() * (double)(i - 1));
      int seen = 0;
      for (int64_t q = count - k; q < count; q++)
        if (q >= 0 && e[q].i == i && e[q].j == j) seen = 1;
      if (seen) continue;
      const double v = -uniform();
      e[count++] = (entry){i, j, v};
      rowsum[i] += -v;
      rowsum[j] += -v;
    }
  for (int64_t i = 1; i <= n; i++)
    e[count++] = (entry){i, i, rowsum[i] + 1};
  /* D A D: every entry times d_i d_j. */
  for (int64_t k = 0; k < count; k++) e[k].v *= d[e[k].i] * d[e[k].j];
  write("random", n, kappa, e, count);
  free(e), free(rowsum), free(d);
  return 0;
}

/* The coefficient of cell (x, y) of an m x m grid: 1, or `low` in every
 * other 4 x 4 block. */
static double coefficient(int64_t x, int64_t y, double low) {
  return ((x / 4 + y / 4) % 2) ? low : 1;
}

static int poisson(int64_t n, double kappa) {
  int64_t m = (int64_t)floor(sqrt((double)n));
  if (m < 2) m = 2;
  const int64_t rows = m * m;
  /* The grid alone has a condition of about 0.4 m^2: the contrast makes
   * up the rest. */
  double low = 0.4 * (double)m * (double)m / kappa;
  if (low > 1) low = 1;
  entry *e = malloc(sizeof *e * (size_t)(3 * rows));
  if (!e) return 1;
  int64_t count = 0;
  for (int64_t y = 0; y < m; y++)
    for (int64_t x = 0; x < m; x++) {
      const int64_t i = y * m + x + 1;
      const double c = coefficient(x, y, low);
      /* An edge's weight: the harmonic mean of its two cells'; a
       * boundary edge, the cell's own. */
      double diag = 0;
      const int64_t nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1,
                                                          y + 1};
      for (int k = 0; k < 4; k++) {
        const int inside = nx[k] >= 0 && nx[k] < m && ny[k] >= 0 && ny[k] < m;
        const double o = inside ? coefficient(nx[k], ny[k], low) : c;
        const double w = 2 * c * o / (c + o);
        diag += w;
        const int64_t j = inside ? ny[k] * m + nx[k] + 1 : 0;
        if (inside && j < i) e[count++] = (entry){i, j, -w};
      }
      e[count++] = (entry){i, i, diag};
    }
  write("poisson", rows, kappa, e, count);
  free(e);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: spd_gen band|random|poisson N KAPPA SEED\n");
    return 2;
  }
  const int64_t n = strtoll(argv[2], NULL, 10);
  const double kappa = strtod(argv[3], NULL);
  state = strtoull(argv[4], NULL, 10);
  if (n < 2 || !(kappa >= 1)) {
    fprintf(stderr, "spd_gen: N of 2 or more and KAPPA of 1 or more\n");
    return 2;
  }
  if (!strcmp(argv[1], "band")) return band(n, kappa);
  if (!strcmp(argv[1], "random")) return random_spd(n, kappa);
  if (!strcmp(argv[1], "poisson")) return poisson(n, kappa);
  fprintf(stderr, "spd_gen: no kind '%s' (band, random, poisson)\n", argv[1]);
  return 2;
}
