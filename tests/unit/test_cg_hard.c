/* kl_cg on hard matrices, on every backend here: spd_gen (its path the
 * first argument) makes sparse SPD matrices of 1000 rows of about
 * condition 1e2 to 1e8 (a band, a random sparse one scaled D A D, a 2D
 * diffusion problem); for each, b = A x* with x* random, and kl_cg from
 * x = 0 to tol 1e-10 with the matrix files' cap (20 iterations a row) must
 * converge, and the true residual |b - A x| / |b| (in long double) be
 * within tol + g, g the rounding gap between the residual a solve updates
 * and the true one after k iterations, as cg's check derives it:
 * (m + 4) (k + 1) u (|A|_inf |x| + |b|) / |b|, m the widest row. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "kladder-cg.h"

typedef struct csr {
  int64_t rows, nnz;
  int64_t *offsets;
  int32_t *columns;
  double *values;
} csr;

static void csr_free(csr *a) {
  free(a->offsets);
  free(a->columns);
  free(a->values);
  memset(a, 0, sizeof *a);
}

/* spd_gen's output (symmetric coordinate: the lower triangle) as a full
 * CSR matrix; 0 where it cannot be read. */
static int read_spd(FILE *f, csr *a) {
  char line[256];
  long long n = 0, m = 0, count = 0;
  do {
    if (!fgets(line, sizeof line, f)) return 0;
  } while (line[0] == '%');
  if (sscanf(line, "%lld %lld %lld", &n, &m, &count) != 3 || n != m ||
      n < 1 || count < 1)
    return 0;
  long long *ii = malloc(sizeof *ii * (size_t)count);
  long long *jj = malloc(sizeof *jj * (size_t)count);
  double *vv = malloc(sizeof *vv * (size_t)count);
  a->rows = n;
  a->offsets = calloc((size_t)n + 1, sizeof *a->offsets);
  int ok = ii && jj && vv && a->offsets;
  for (long long k = 0; ok && k < count; k++) {
    ok = fscanf(f, "%lld %lld %lf", &ii[k], &jj[k], &vv[k]) == 3 &&
         ii[k] >= 1 && ii[k] <= n && jj[k] >= 1 && jj[k] <= ii[k];
    if (!ok) break;
    a->offsets[ii[k]]++;
    if (ii[k] != jj[k]) a->offsets[jj[k]]++;
  }
  for (int64_t r = 0; ok && r < n; r++) a->offsets[r + 1] += a->offsets[r];
  a->nnz = ok ? a->offsets[n] : 0;
  a->columns = ok ? malloc(sizeof *a->columns * (size_t)a->nnz) : NULL;
  a->values = ok ? malloc(sizeof *a->values * (size_t)a->nnz) : NULL;
  int64_t *next = ok ? malloc(sizeof *next * (size_t)n) : NULL;
  ok = ok && a->columns && a->values && next;
  if (ok) memcpy(next, a->offsets, sizeof *next * (size_t)n);
  for (long long k = 0; ok && k < count; k++) {
    const int64_t i = ii[k] - 1, j = jj[k] - 1;
    a->columns[next[i]] = (int32_t)j;
    a->values[next[i]++] = vv[k];
    if (i != j) {
      a->columns[next[j]] = (int32_t)i;
      a->values[next[j]++] = vv[k];
    }
  }
  free(ii);
  free(jj);
  free(vv);
  free(next);
  if (!ok) csr_free(a);
  return ok;
}

/* |b - A x| / |b| in long double, and the rounding gap g after k
 * iterations. */
static long double true_residual(const csr *a, const double *b,
                                 const double *x, int64_t k,
                                 long double *gap) {
  long double rr = 0, bb = 0, xx = 0, a_norm = 0;
  int64_t widest = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    long double ax = 0, row = 0;
    for (int64_t p = a->offsets[i]; p < a->offsets[i + 1]; p++) {
      ax += (long double)a->values[p] * x[a->columns[p]];
      row += fabsl((long double)a->values[p]);
    }
    const long double r = b[i] - ax;
    rr += r * r;
    bb += (long double)b[i] * b[i];
    xx += (long double)x[i] * x[i];
    if (row > a_norm) a_norm = row;
    if (a->offsets[i + 1] - a->offsets[i] > widest)
      widest = a->offsets[i + 1] - a->offsets[i];
  }
  *gap = (long double)(widest + 4) * (k + 1) * 0x1p-53L *
         (a_norm * sqrtl(xx) + sqrtl(bb)) / sqrtl(bb);
  return sqrtl(rr / bb);
}

/* Every backend's default context that kl_cg serves; the count. */
static int solve_everywhere(const csr *a, const char *name) {
  const double tol = 1e-10;
  const int64_t n = a->rows;
  double *truth = malloc(sizeof *truth * (size_t)n);
  double *b = calloc((size_t)n, sizeof *b);
  double *x = malloc(sizeof *x * (size_t)n);
  int solved = 0;
  if (!truth || !b || !x) {
    EXPECT(!"out of memory");
    goto done;
  }
  uint64_t s = 12345;
  for (int64_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    truth[i] = (double)(s >> 11) * 0x1p-53 - 0.5;
  }
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = a->offsets[i]; p < a->offsets[i + 1]; p++)
      b[i] += a->values[p] * truth[a->columns[p]];
  const kl_cg_matrix m = {n, a->nnz, a->offsets, a->columns, a->values};
  for (size_t k = 0; k < kl_backend_count(); k++) {
    kl_backend_info info = {.size = sizeof info};
    if (kl_backend_describe(k, &info) != KL_OK || !info.available) continue;
    const char *backend = info.name;
    kl_context *ctx = NULL;
    if (kl_context_open(backend, &ctx) != KL_OK) continue; /* not here */
    memset(x, 0, sizeof *x * (size_t)n);
    kl_cg_result res = {.size = sizeof res};
    const kl_status st = kl_cg(ctx, &m, 0, 0, b, x, tol, 20 * n, 0, &res);
    kl_context_close(ctx);
    if (st == KL_UNAVAILABLE) continue; /* no rung of kl_cg's there */
    long double gap = 0;
    const long double rho = true_residual(a, b, x, res.iterations, &gap);
    printf("%s on %s: %s, %lld iterations, true residual %.3Lg (allowed "
           "%.3Lg)\n", name, backend, kl_status_name(st),
           (long long)res.iterations, rho, tol + gap);
    EXPECT(st == KL_OK && res.converged == 1);
    EXPECT(rho <= tol + gap);
    solved++;
  }
done:
  free(truth);
  free(b);
  free(x);
  return solved;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: test_cg_hard SPD_GEN\n");
    return 2;
  }
  static const char *const kinds[] = {"band", "random", "poisson"};
  static const char *const kappas[] = {"1e2", "1e4", "1e6", "1e8"};
  for (size_t i = 0; i < 3; i++)
    for (size_t j = 0; j < 4; j++) {
      char command[1024], name[64];
      snprintf(command, sizeof command, "'%s' %s 1000 %s 7", argv[1],
               kinds[i], kappas[j]);
      snprintf(name, sizeof name, "%s, condition %s", kinds[i], kappas[j]);
      FILE *f = popen(command, "r");
      csr a = {0};
      const int read = f && read_spd(f, &a);
      if (f) EXPECT(pclose(f) == 0);
      EXPECT(read);
      if (!read) continue;
      /* Two backends at least: serial and another host one. */
      EXPECT(solve_everywhere(&a, name) >= 2);
      csr_free(&a);
    }
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
