/* test_gemm [--shard K/N] [--list] [--params P] BACKEND [MxNxK...]: every
 * gemm rung on
 * BACKEND, both types, at the shapes that break tiled kernels (1x1x1,
 * primes, a tile and one, non-multiples,
 * a square above the largest tile), with alpha and beta other than 1 and 0
 * and leading dimensions beyond the rows (odd ones, which rule out 16-byte
 * copies, and even ones). Every element is checked by the workload; the
 * kl_gemm entry point is then checked here against a plain loop.
 * --shard K/N: only every N-th case from the K-th (0-based), the entry
 * point in shard 0 only (the sanitizer's jobs, side by side). --list:
 * only count the cases (the backend need not be here). --params P: P
 * ("dmma_tile=128x128", the tunings) added to every case's parameters.
 * Each case is named
 * to the sanitizer gate's launch log where it is preloaded
 * (tests/tools/launch_log_case.h): "gemm RUNG TYPE MxNxK PARAMS".
 * Exit 0 when all pass, 1 on any failure, 77 when the backend is absent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/harness.h"
#include "kladder-gemm.h"
#include "../tools/launch_log_case.h"

typedef struct gemm_case {
  int64_t m, n, k;
} gemm_case;

static const gemm_case shapes[] = {{1, 1, 1},      {7, 5, 3},
                                   {64, 64, 64},   {1000, 777, 513},
                                   {129, 257, 65}, {520, 520, 520},
                                   /* GPU only: more 128 x 128 tiles than
                                    * an H100 has SMs, with a tail that the
                                    * fast rungs split along k; then over
                                    * one and a half waves of 128 x 128
                                    * and of 256 x 128 tiles with k past
                                    * 512 (the fast rungs' large tiles),
                                    * a part slice at k's end. */
                                   {1541, 1415, 1000}, {2052, 2820, 600},
                                   /* GPU only: short k and over two waves
                                    * of 64 x 64 tiles (the DMMA rung's
                                    * persistent blocks, two or three tiles
                                    * each, the tail among them), a part
                                    * slice; then just over a wave at its
                                    * longest persistent k (441 tiles, 25
                                    * slices, the last a part). */
                                   {2000, 1800, 180}, {1300, 1290, 392}};
#define GPU_ONLY_SHAPES 4

/* alpha, beta and the extra rows of lda, ldb, ldc. */
typedef struct variant {
  double alpha, beta;
  int64_t pad[3];
} variant;

static const variant variants[] = {
    {1, 0, {0, 0, 0}},
    {-1.5, 0.75, {3, 5, 1}}, /* odd leading dimensions */
    {2, -1, {4, 2, 6}},      /* even ones, with gaps */
    {0.5, 1, {0, 0, 0}}};

/* The problem as planned is the one asked for: the parameters' text
 * reached the plan (the extents, the leading dimensions and the scalars
 * that kl_problem's shape once carried as numbers). */
static int planned_as_asked(const kl_workload *w, const kl__result *res,
                            const gemm_case *c, const variant *x) {
  const struct {
    const char *name;
    double value;
  } want[] = {{"m", (double)c->m},
              {"n", (double)c->n},
              {"k", (double)c->k},
              {"lda", (double)(c->m + x->pad[0])},
              {"ldb", (double)(c->k + x->pad[1])},
              {"ldc", (double)(c->m + x->pad[2])},
              {"alpha", x->alpha},
              {"beta", x->beta}};
  if (res->plan.n != c->n || res->pub.n != c->n) return 0;
  /* The result says so too: its extents and its shape "MxNxK". */
  char shape[96];
  snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)c->m,
           (long long)c->n, (long long)c->k);
  if (res->pub.extent_count != 3 || res->pub.extents[0] != c->m ||
      res->pub.extents[1] != c->n || res->pub.extents[2] != c->k ||
      strcmp(res->pub.shape, shape) != 0)
    return 0;
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const int p = kl_param_index(w, want[i].name);
    if (p < 0 || res->plan.value[p] != want[i].value) return 0;
  }
  return 1;
}

static int check_entry_point(const char *backend) {
  kl_context *ctx = NULL;
  if (kl_context_open(backend, &ctx) != KL_OK) {
    printf("FAIL   kl_context_open(%s): %s\n", backend, kl_last_error());
    return 1;
  }
  /* kl_gemm on host arrays against a plain triple loop in double. */
  const int64_t m = 37, n = 29, k = 41, lda = 40, ldb = 43, ldc = 38;
  launch_log_case("gemm kl_gemm f64 37x29x41");
  double *a = malloc(sizeof *a * (size_t)(lda * k));
  double *b = malloc(sizeof *b * (size_t)(ldb * n));
  double *c = malloc(sizeof *c * (size_t)(ldc * n));
  double *want = malloc(sizeof *want * (size_t)(ldc * n));
  if (!a || !b || !c || !want) {
    kl_context_close(ctx);
    return 1;
  }
  for (int64_t i = 0; i < lda * k; i++) a[i] = sin((double)i);
  for (int64_t i = 0; i < ldb * n; i++) b[i] = cos((double)i);
  for (int64_t i = 0; i < ldc * n; i++) c[i] = want[i] = 0.25 * (double)(i % 7);
  const double alpha = 1.25, beta = -0.5;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      double sum = 0;
      for (int64_t q = 0; q < k; q++) sum += a[i + q * lda] * b[q + j * ldb];
      want[i + j * ldc] = alpha * sum + beta * want[i + j * ldc];
    }
  kl_status st = kl_gemm(ctx, KL_F64, m, n, k, alpha, a, lda, b, ldb,
                         beta, c, ldc, 0);
  int bad = st != KL_OK;
  if (bad) printf("kl_gemm on %s: %s\n", backend, kl_last_error());
  for (int64_t i = 0; i < ldc * n && !bad; i++)
    if (!(fabs(c[i] - want[i]) <= 1e-12 * (1 + fabs(want[i])))) {
      printf("kl_gemm on %s: element %lld is %.17g, expected %.17g\n",
             backend, (long long)i, c[i], want[i]);
      bad = 1;
    }
  /* Bad arguments: one clear status, nothing run. */
  if (kl_gemm(ctx, KL_F64, 0, n, k, 1, a, lda, b, ldb, 0, c, ldc, 0) !=
          KL_USAGE ||
      kl_gemm(ctx, KL_F64, m, n, k, 1, a, m - 1, b, ldb, 0, c, ldc, 0) !=
          KL_USAGE ||
      kl_gemm(ctx, KL_I32, m, n, k, 1, a, lda, b, ldb, 0, c, ldc, 0) !=
          KL_USAGE) {
    printf("kl_gemm on %s accepted bad arguments\n", backend);
    bad = 1;
  }
  printf("%-6s kl_gemm entry point %s\n", bad ? "FAIL" : "ok", backend);
  free(a);
  free(b);
  free(c);
  free(want);
  kl_context_close(ctx);
  return bad;
}

/* Shapes given as MxNxK on the command line replace the built-in list
 * (scripts/gpu-sanitize.sh runs the rungs under compute-sanitizer at a few
 * small ones, where the full list would take hours). */
static gemm_case given[16];

static size_t parse_shapes(int argc, char **argv) {
  size_t count = 0;
  for (int i = 2; i < argc; i++) {
    long long m, n, k;
    char end;
    if (count == sizeof given / sizeof *given ||
        sscanf(argv[i], "%lldx%lldx%lld%c", &m, &n, &k, &end) != 3 || m < 1 ||
        n < 1 || k < 1) {
      fprintf(stderr, "test_gemm: bad shape '%s' (MxNxK, at most %zu)\n",
              argv[i], sizeof given / sizeof *given);
      return 0;
    }
    given[count++] = (gemm_case){m, n, k};
  }
  return count;
}

int main(int argc, char **argv) {
  long shard = 0, shards = 1;
  if (argc > 2 && strcmp(argv[1], "--shard") == 0) {
    char *end = NULL;
    shard = strtol(argv[2], &end, 10);
    shards = end && *end == '/' ? strtol(end + 1, &end, 10) : 0;
    if (!end || *end || shards < 1 || shard < 0 || shard >= shards) {
      fprintf(stderr, "test_gemm: bad --shard %s: K/N with 0 <= K < N\n",
              argv[2]);
      return 2;
    }
    argc -= 2, argv += 2;
  }
  int count_only = 0;
  if (argc > 1 && strcmp(argv[1], "--list") == 0)
    count_only = 1, argc--, argv++;
  const char *extra = NULL;
  if (argc > 2 && strcmp(argv[1], "--params") == 0)
    extra = argv[2], argc -= 2, argv += 2;
  if (argc < 2) {
    fprintf(stderr, "usage: test_gemm [--shard K/N] [--list] [--params P] "
            "BACKEND [MxNxK...]\n");
    return 2;
  }
  const size_t given_count = parse_shapes(argc, argv);
  if (argc > 2 && given_count == 0) return 2;
  const kl_backend *b = kl_backend_find(argv[1]);
  char info[256] = "unknown backend";
  if (!b || (!count_only && !kl_backend_available(b, info, sizeof info))) {
    printf("SKIP: backend %s not available here: %s\n", argv[1], info);
    return 77;
  }
  const kl_workload *w = kl_workload_find("gemm");
  if (!w) return 1;
  int ran = 0, failed = 0;
  long cases = 0;
  /* Rungs innermost: they share the problem, so the workload's check
   * computes each reference once. */
  for (int t = 0; t < KL_TYPE_COUNT; t++) {
    if (!(w->types & KL_TYPE_BIT(t))) continue;
    const gemm_case *list = given_count ? given : shapes;
    const size_t shape_count =
        given_count ? given_count : sizeof shapes / sizeof *shapes;
    for (size_t s = 0; s < shape_count; s++) {
      if (!given_count && kl_backend_host_memory(b) &&
          s >= shape_count - GPU_ONLY_SHAPES)
        continue;
      for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        for (size_t r = 0; r < w->rung_count; r++) {
          const kl_rung *rung = &w->rungs[r];
          if (rung->backend != b || !rung->run) continue;
          if (rung->types && !(rung->types & KL_TYPE_BIT(t))) continue;
          if (cases++ % shards != shard || count_only) continue;
          const gemm_case *c = &list[s];
          const variant *x = &variants[v];
          char params[256];
          snprintf(params, sizeof params,
                   "m=%lld,k=%lld,lda=%lld,ldb=%lld,ldc=%lld,alpha=%.17g,"
                   "beta=%.17g%s%s",
                   (long long)c->m, (long long)c->k,
                   (long long)(c->m + x->pad[0]), (long long)(c->k + x->pad[1]),
                   (long long)(c->m + x->pad[2]), x->alpha, x->beta,
                   extra ? "," : "", extra ? extra : "");
          kl_problem pb = {.size = sizeof pb, .n = c->n, .type = (kl_type)t,
                           .params = params,
                           .seed = 100u * s + 10u * v + (uint64_t)t};
          char text[384];
          snprintf(text, sizeof text, "gemm %s %s %lldx%lldx%lld %s",
                   rung->name, kl_type_name((kl_type)t), (long long)c->m,
                   (long long)c->n, (long long)c->k, params);
          launch_log_case(text);
          kl_report *rep = NULL;
          kl_status st = kl__run_one(NULL, w, rung, &pb, 1, 0, &rep);
          const kl__result *res = rep ? &rep->results[0] : NULL;
          ran++;
          const char *why = NULL;
          if (!res)
            why = kl_last_error();
          else if (st != KL_OK)
            why = res->pub.status != KL_OK ? res->pub.error
                                           : res->pub.verdict.detail;
          else if (!planned_as_asked(w, res, c, x))
            why = "the plan is not the problem asked for";
          if (why) failed++;
          if (why || (s == 0 && v == 0))
            printf("%-6s %-22s %s %lldx%lldx%lld alpha %g beta %g ld +%lld"
                   ",+%lld,+%lld%s%s\n",
                   why ? "FAIL" : "ok", rung->name, kl_type_name((kl_type)t),
                   (long long)c->m, (long long)c->n, (long long)c->k,
                   x->alpha, x->beta, (long long)x->pad[0],
                   (long long)x->pad[1], (long long)x->pad[2],
                   why ? ": " : "", why ? why : "");
          fflush(stdout);
          kl_report_free(rep);
        }
      }
    }
  }
  if (count_only) {
    printf("%ld cases\n", (cases + shards - 1 - shard) / shards);
    return 0;
  }
  if (shard == 0 && (kl_backend_host_memory(b) || strcmp(b->name, "cuda") == 0))
    failed += check_entry_point(b->name);
  printf("%d gemm cases on %s, %d failed\n", ran, b->name, failed);
  return failed ? 1 : 0;
}
