/* Wisdom (src/core/wisdom.c): test_wisdom MODE writes a wisdom file,
 * points KLADDER_WISDOM at it before the first library call, and checks
 * what the entry points then run. MODE: good (a file of this build and
 * these devices: histogram on serial below 64 KiB and on openmp from
 * there, the rung within it by openmp's picks, reduce's picks within each
 * backend; kl_histogram on 35 KB counts
 * right), other-build, other-device, malformed (each ignored whole, with
 * its note, and dispatch as the built-in wisdom has it), builtin (no file
 * at the path: the built-in wisdom, every line of it a rung this build
 * has), none (KLADDER_WISDOM=none: each backend's library rung). */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/harness.h"
#include "expect.h"
#include "kladder-histogram.h"

static int dispatched(kl_context *ctx, const char *w, kl_type t, int64_t n,
                      const char *backend, const char *rung) {
  const char *b = NULL, *r = NULL;
  if (kl_dispatch(ctx, w, t, n, &b, &r) != KL_OK) return 0;
  if (strcmp(b, backend) || strcmp(r, rung))
    printf("  %s n=%lld: %s %s, not %s %s\n", w, (long long)n, b, r, backend,
           rung);
  return !strcmp(b, backend) && !strcmp(r, rung);
}

/* What dispatch gives: on the openmp context (on_omp) or none. */
typedef struct expected {
  int on_omp;
  const char *workload;
  kl_type type;
  int64_t n;
  const char *backend, *rung;
} expected;

/* The file `good` writes (main): histogram on serial below 64 KiB and
 * openmp-blocks from there; within openmp, interleaved below 1M. The best
 * line chooses the backend, that backend's pick the rung: with no context
 * openmp's interleaved from 64 KiB, blocks from 1M; serial has no pick
 * lines and keeps the best line's rung. */
static const expected file_picks[] = {
    {0, "histogram", KL_U8, 1, "serial", "serial"},
    {0, "histogram", KL_U8, 35000, "serial", "serial"},
    {0, "histogram", KL_U8, 65535, "serial", "serial"},
    {0, "histogram", KL_U8, 65536, "openmp", "openmp-interleaved"},
    {0, "histogram", KL_U8, 2000000, "openmp", "openmp-blocks"},
    {1, "histogram", KL_U8, 35000, "openmp", "openmp-interleaved"},
    {1, "histogram", KL_U8, 2000000, "openmp", "openmp-blocks"},
    {1, "reduce", KL_F64, 10, "openmp", "openmp-clause"}};

/* The built-in wisdom (the H100 machine's): histogram on serial below 256
 * KiB, openmp-blocks from there; within openmp, interleaved from 4 KiB
 * and blocks from 32 KiB; reduce f64 on serial below 32K. */
static const expected builtin_picks[] = {
    {0, "histogram", KL_U8, 35000, "serial", "serial"},
    {0, "histogram", KL_U8, 1000000, "openmp", "openmp-blocks"},
    {1, "histogram", KL_U8, 10000, "openmp", "openmp-interleaved"},
    {1, "histogram", KL_U8, 35000, "openmp", "openmp-blocks"},
    {0, "reduce", KL_F64, 10, "serial", "serial"}};

/* The size the wisdom knows a problem of `workload` by: main size n, the
 * parameter a (b: NULL for none) given as va (vb), the others not; -1
 * where there is no such workload. */
static int64_t wisdom_size_of(const char *workload, int64_t n, const char *a,
                              double va, const char *b, double vb) {
  const kl_workload *w = kl_workload_find(workload);
  if (!w) return -1;
  double value[KL_MAX_PARAMS] = {0};
  value[kl_param_index(w, a)] = va;
  if (b) value[kl_param_index(w, b)] = vb;
  return kl__wisdom_size(w, n, value);
}

static void expect_picks(kl_context *omp, const expected *e, size_t count) {
  for (size_t i = 0; i < count; i++)
    EXPECT(dispatched(e[i].on_omp ? omp : NULL, e[i].workload, e[i].type,
                      e[i].n, e[i].backend, e[i].rung));
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "good";
  kl_device_info serial = {.size = sizeof serial};
  kl_device_info openmp = {.size = sizeof openmp};
  if (kl_device_describe("openmp", 0, &openmp) != KL_OK) {
    printf("SKIP: no openmp backend\n");
    return 77;
  }
  EXPECT(kl_device_describe("serial", 0, &serial) == KL_OK);
  char path[512];
  temp_template(path, sizeof path, "kl-wisdom");
  const int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  EXPECT(f != NULL);
  if (!f) return 1;
  const kl_build_info *b = kl_build();
  if (strcmp(mode, "malformed") == 0) fputs("kladder-wisdom 1\nfrob\n", f);
  else {
    fprintf(f, "kladder-wisdom 1\nbuild %s %s\n", b->version,
            strcmp(mode, "other-build") == 0 ? "0000000-elsewhere"
            : b->commit[0]                 ? b->commit
                                           : "-");
    fprintf(f, "device serial:0 %s\n", serial.name);
    fprintf(f, "device openmp:0 %s\n",
            strcmp(mode, "other-device") == 0 ? "Another CPU" : openmp.name);
    fputs("# histogram: serial below 64 KiB, openmp-blocks from there\n"
          "best histogram u8 0 serial serial\n"
          "best histogram u8 65536 openmp openmp-blocks\n"
          "pick histogram u8 0 openmp openmp-interleaved\n"
          "pick histogram u8 1000000 openmp openmp-blocks\n"
          "pick reduce f64 0 openmp openmp-clause\n"
          "# gemm on serial: the naive loop below 100, loop order from there\n"
          "pick gemm f64 0 serial serial-naive\n"
          "pick gemm f64 100 serial serial-loop-order\n", f);
  }
  fclose(f);
  if (strcmp(mode, "builtin") == 0) unlink(path);
  setenv("KLADDER_WISDOM", strcmp(mode, "none") == 0 ? "none" : path, 1);
  const char *note = kl_wisdom_note();
  printf("%s: %s\n", mode, note);
  const int good = strcmp(mode, "good") == 0;
  const int none = strcmp(mode, "none") == 0;
  if (good) EXPECT(strstr(note, ": 7 picks") != NULL);
  else if (none) EXPECT(strstr(note, "no wisdom") != NULL);
  else {
    EXPECT(strstr(note, "the built-in wisdom serves") != NULL);
    EXPECT(strstr(note, "skipped") == NULL);
    EXPECT(strstr(note, strcmp(mode, "builtin") == 0 ? "no wisdom file at"
                                                      : "ignored") != NULL);
  }
  if (strcmp(mode, "other-build") == 0) EXPECT(strstr(note, "another build") != NULL);
  if (strcmp(mode, "other-device") == 0) EXPECT(strstr(note, "Another CPU") != NULL);
  if (strcmp(mode, "malformed") == 0) EXPECT(strstr(note, "line 2") != NULL);

  kl_context *omp = NULL;
  EXPECT(kl_context_open("openmp", &omp) == KL_OK);
  /* Without wisdom: the library rung of the preferred backend, or of the
   * context's. */
  const char *lib_b = NULL, *lib_r = NULL;
  if (none) {
    EXPECT(kl_dispatch(NULL, "histogram", KL_U8, 35000, &lib_b, &lib_r) ==
           KL_OK);
    EXPECT(lib_b && strcmp(lib_b, "serial") != 0);
    EXPECT(dispatched(omp, "histogram", KL_U8, 35000, "openmp",
                      "openmp-blocks"));
  } else if (!good) {
    expect_picks(omp, builtin_picks,
                 sizeof builtin_picks / sizeof *builtin_picks);
  } else {
    expect_picks(omp, file_picks, sizeof file_picks / sizeof *file_picks);
    /* gemm dispatches by the side of the square of its flops, as tune's
     * sweep of squares measured it: 1000 x 10 x 1000 is a 215-cube (loop
     * order), where n = 10 alone would take the naive loop; m and k not
     * given: the main size. */
    const kl_workload *gw = kl_workload_find("gemm");
    const kl_backend *sb = kl_backend_find("serial");
    EXPECT(gw && sb);
    const int64_t big = wisdom_size_of("gemm", 10, "m", 1000, "k", 1000);
    const int64_t small = wisdom_size_of("gemm", 10, "m", 10, "k", 10);
    EXPECT(big == 215);
    EXPECT(wisdom_size_of("gemm", 300, "m", 0, "k", 0) == 300);
    if (gw && sb) {
      const kl_rung *r = kl__dispatched(gw, KL_F64, big, sb, 0);
      EXPECT(r && strcmp(r->name, "serial-loop-order") == 0);
      r = kl__dispatched(gw, KL_F64, small, sb, 0);
      EXPECT(r && strcmp(r->name, "serial-naive") == 0);
    }
    /* laplacian's grid as the cube of as many points: 100 x 100 x 1 has
     * 10^4, a 22-cube. cg: a matrix (stencil none, the third choice:
     * kl_cg's CSR) of n rows counts as the grid of as many, 64^3 rows a
     * 64-grid; the stencil's own n is already the grid's side. A workload
     * without a mapping keeps its size. */
    EXPECT(wisdom_size_of("laplacian", 100, "ny", 100, "nz", 1) == 22);
    EXPECT(wisdom_size_of("cg", 64 * 64 * 64, "stencil", 2, NULL, 0) == 64);
    EXPECT(wisdom_size_of("cg", 64, "stencil", 0, NULL, 0) == 64);
    EXPECT(wisdom_size_of("reduce", 12345, "op", 0, NULL, 0) == 12345);
    /* A type the wisdom does not cover: the library rung. */
    EXPECT(kl_dispatch(NULL, "reduce", KL_F32, 10, &lib_b, &lib_r) == KL_OK);
  }
  EXPECT(kl_dispatch(NULL, "nope", KL_U8, 1, &lib_b, &lib_r) == KL_USAGE);
  /* The entry point runs what it dispatches to, and counts right. */
  enum { N = 35000 };
  static unsigned char data[N];
  uint64_t want[256] = {0}, got[256];
  for (int i = 0; i < N; i++) data[i] = (unsigned char)(i * 7 + i / 300);
  for (int i = 0; i < N; i++) want[data[i]]++;
  memset(got, 0xff, sizeof got);
  EXPECT(kl_histogram(NULL, data, N, 0, got) == KL_OK);
  EXPECT(memcmp(got, want, sizeof got) == 0);
  memset(got, 0xff, sizeof got);
  EXPECT(kl_histogram(omp, data, N, 0, got) == KL_OK);
  EXPECT(memcmp(got, want, sizeof got) == 0);
  kl_context_close(omp);
  unlink(path);
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
