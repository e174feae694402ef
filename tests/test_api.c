/* The library API, as a C program embedding kladder would use it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expect.h"
#include "kladder.h"
#include "kladder-cg.h"
#include "kladder-histogram.h"
#include "kladder-laplacian.h"
#include "kladder-reduce.h"


static void test_sizes(void) {
  int64_t n = 0;
  EXPECT(kl_parse_size("1000003", &n) == KL_OK && n == 1000003);
  EXPECT(kl_parse_size("256M", &n) == KL_OK && n == 268435456);
  EXPECT(kl_parse_size("2G", &n) == KL_OK && n == 2147483648LL);
  EXPECT(kl_parse_size("4k", &n) == KL_OK && n == 4096);
  EXPECT(kl_parse_size("0", &n) == KL_USAGE);
  EXPECT(kl_parse_size("-3", &n) == KL_USAGE);
  EXPECT(kl_parse_size("", &n) == KL_USAGE);
  EXPECT(kl_parse_size("12x", &n) == KL_USAGE);
  EXPECT(kl_parse_size("1.5", &n) == KL_USAGE);
  EXPECT(kl_parse_size("9223372036854775808", &n) == KL_TOO_LARGE);
  EXPECT(kl_parse_size("9999999999G", &n) == KL_TOO_LARGE);
}

static void test_names_and_codes(void) {
  kl_type t;
  EXPECT(kl_type_parse("f64", &t) == KL_OK && t == KL_F64);
  EXPECT(kl_type_parse("double", &t) == KL_USAGE);
  EXPECT(kl_type_size(KL_F32) == 4 && kl_type_size(KL_U8) == 1);
  EXPECT(kl_type_parse("u32", &t) == KL_OK && t == KL_U32 &&
         kl_type_size(t) == 4);
  EXPECT(kl_type_parse("u64", &t) == KL_OK && t == KL_U64 &&
         kl_type_size(t) == 8 && strcmp(kl_type_name(t), "u64") == 0);
  EXPECT(kl_exit_code(KL_OK) == 0);
  EXPECT(kl_exit_code(KL_CHECK_FAILED) == 1);
  EXPECT(kl_exit_code(KL_USAGE) == 2 && kl_exit_code(KL_TOO_LARGE) == 2);
  EXPECT(kl_exit_code(KL_DEVICE) == 3 && kl_exit_code(KL_NO_MEMORY) == 3);
  EXPECT(kl_workload_find("map") && kl_workload_find("stream"));
  EXPECT(kl_workload_find("nope") == NULL);
  EXPECT(kl_backend_find("serial") && kl_backend_available(
      kl_backend_find("serial"), NULL, 0));
  const kl_workload *map = kl_workload_find("map");
  EXPECT(map && kl_rung_find(map, "serial") && !kl_rung_find(map, "fast"));
  /* Every workload's ladder starts on the serial backend, so speedups are
   * over the plain loop, and every rung name is unique in its ladder. */
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    EXPECT(w->rung_count > 0 &&
           w->rungs[0].backend == kl_backend_find("serial"));
    for (size_t a = 0; a < w->rung_count; a++)
      for (size_t b = a + 1; b < w->rung_count; b++)
        EXPECT(strcmp(w->rungs[a].name, w->rungs[b].name) != 0);
    /* A peer is a rung of the same ladder on another backend. */
    for (size_t a = 0; a < w->rung_count; a++) {
      const kl_rung *peer = w->rungs[a].peer
                                ? kl_rung_find(w, w->rungs[a].peer)
                                : NULL;
      EXPECT(!w->rungs[a].peer ||
             (peer && peer->backend != w->rungs[a].backend));
    }
  }
}

static int file_exists(const char *path) {
  FILE *f = fopen(path, "r");
  if (f) fclose(f);
  return f != NULL;
}

/* Results files: checked and started when opened, complete or absent. */
static void test_outputs(const kl_report *rep) {
  const kl_build_info *b = kl_build();
  EXPECT(b && strcmp(b->version, KL_VERSION) == 0 && b->commit &&
         b->build_type && b->c_compiler && b->c_flags && b->gpu_compiler &&
         b->gpu_flags);
  kl_output *out = NULL;
  EXPECT(kl_output_open("/", KL_FORMAT_CSV, &out) == KL_USAGE && !out);
  EXPECT(strstr(kl_last_error(), "is a directory") != NULL);
  EXPECT(kl_output_open("", KL_FORMAT_JSON, &out) == KL_USAGE && !out);
  EXPECT(kl_output_open("x.csv", (kl_format)7, &out) == KL_USAGE && !out);
  if (file_exists("/dev/full")) {
    EXPECT(kl_output_open("/dev/full", KL_FORMAT_CSV, &out) == KL_USAGE);
    EXPECT(strstr(kl_last_error(), "No space left") != NULL);
  }
  char path[64];
  snprintf(path, sizeof path, "test_api_%ld.json", (long)time(NULL));
  remove(path);
  /* Discarded: nothing left behind. */
  EXPECT(kl_output_open(path, KL_FORMAT_JSON, &out) == KL_OK && out);
  kl_output_discard(out);
  EXPECT(!file_exists(path));
  /* Written: the whole file, under its name only once complete. */
  EXPECT(kl_output_open(path, KL_FORMAT_JSON, &out) == KL_OK && out);
  EXPECT(!file_exists(path));
  EXPECT(kl_output_write(out, rep) == KL_OK && kl_last_error()[0] == '\0');
  FILE *f = fopen(path, "r");
  char text[65536] = "";
  if (f) {
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
  }
  EXPECT(strncmp(text, "{\n  \"format\": \"kladder-results-1\"", 33) == 0);
  EXPECT(strstr(text, "\"command_line\": \"kladder run -w map\"") != NULL);
  EXPECT(strstr(text, "\"times_s\": [") != NULL);
  EXPECT(strstr(text, "\"stddev_s\": ") != NULL);
  EXPECT(strcmp(text + strlen(text) - 4, "]\n}\n") == 0);
  remove(path);
}

static void test_run(void) {
  kl_options o;
  kl_options_init(&o);
  o.workloads = "map";
  o.backends = "serial,openmp";
  o.n = 100003;
  o.reps = 3;
  o.warmup = 1;
  char command[] = "kladder run -w map";
  o.command_line = command;
  kl_report *rep = NULL;
  kl_status st = kl_run(&o, &rep);
  EXPECT(st == KL_OK && rep != NULL);
  if (!rep) return;
  /* The report keeps its own copy of the command line. */
  command[0] = 'X';
  EXPECT(rep->command_line && strcmp(rep->command_line, "kladder run -w map") == 0);
  EXPECT(strlen(rep->started) == 20 && rep->started[10] == 'T');
  /* The serial and OpenMP ceilings (stream's triad over as many bytes as
   * map's plan: 2 x 100003 f32 = 800024 bytes, so 3 arrays of 33335
   * doubles) come first, then the two map rungs. */
  EXPECT(rep->count == 4);
  int maps = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i];
    EXPECT(r->status == KL_OK && r->check == KL_CHECK_PASS);
    EXPECT(r->t_min > 0 && r->t_min <= r->t_median && r->t_median <= r->t_max);
    EXPECT(r->reps == 3 && r->times && r->t_stddev >= 0);
    for (int k = 0; r->times && k < r->reps; k++)
      EXPECT(r->times[k] >= r->t_min && r->times[k] <= r->t_max);
    if (strcmp(r->workload->name, "stream") == 0)
      EXPECT(r->n == 33335 && (r->rung->flags & KL_RUNG_CEILING));
    if (strcmp(r->workload->name, "map") == 0) {
      maps++;
      EXPECT(r->n == 100003 && r->cost.bytes == 8.0 * 100003);
      EXPECT(r->ceiling > 0 && r->percent > 0 && r->speedup > 0);
      EXPECT(r->verdict.checked == 100003);
      EXPECT(r->percent <= 105 || r->ceiling_note != NULL);
    }
  }
  EXPECT(maps == 2);
  EXPECT(kl_report_write_csv(rep, "/nonexistent-dir/x.csv") == KL_USAGE);
  EXPECT(strstr(kl_last_error(), "its directory does not exist") != NULL);
  test_outputs(rep);
  kl_report_free(rep);

  kl_options_init(&o);
  o.workloads = "map";
  o.rungs = "warp-speed";
  EXPECT(kl_run(&o, &rep) == KL_USAGE && rep == NULL);
  EXPECT(strstr(kl_last_error(), "valid: map: serial openmp") != NULL);
  o.rungs = NULL;
  o.reps = 0;
  EXPECT(kl_run(&o, &rep) == KL_USAGE);
}

static void test_same_seed_same_result(void) {
  const kl_workload *map = kl_workload_find("map");
  const kl_rung *serial = kl_rung_find(map, "serial");
  kl_result a, b;
  kl_problem pb = {.n = 1000, .type = KL_TYPE_DEFAULT, .seed = 5};
  EXPECT(kl_run_rung(map, serial, &pb, 1, 0, &a) == KL_OK);
  EXPECT(kl_run_rung(map, serial, &pb, 1, 0, &b) == KL_OK);
  EXPECT(a.verdict.max_error == b.verdict.max_error);
  EXPECT(a.verdict.abs_error == b.verdict.abs_error);
  /* n = 0 means "the parameters give it"; a zero or negative size is
   * refused, from either. */
  pb.n = -1;
  EXPECT(kl_run_rung(map, serial, &pb, 1, 0, &a) == KL_USAGE);
  pb.n = 0;
  pb.params = "n=0";
  EXPECT(kl_run_rung(map, serial, &pb, 1, 0, &a) == KL_USAGE);
  pb.params = "n=1000";
  EXPECT(kl_run_rung(map, serial, &pb, 1, 0, &a) == KL_OK && a.n == 1000);
  pb.params = NULL;
  pb.n = 1000;
  pb.type = KL_F64;
  EXPECT(kl_run_rung(map, serial, &pb, 1, 0, &a) != KL_OK);
  pb.type = KL_TYPE_DEFAULT;
  pb.params = "op=max";
  EXPECT(kl_run_rung(map, serial, &pb, 1, 0, &a) == KL_USAGE);
}

/* Data already on a device, through a context of its backend: `bytes` of
 * host at *dev; device_free gives them back. */
static void device_copy(const kl_backend *b, kl_context *ctx, void **dev,
                        const void *host, size_t bytes) {
  memset(ctx, 0, sizeof *ctx);
  ctx->backend = b;
  *dev = NULL;
  EXPECT(b->open(ctx) == KL_OK);
  EXPECT(b->alloc(ctx, KL_MEM_DEVICE, dev, bytes) == KL_OK);
  EXPECT(b->copy(ctx, 0, *dev, host, bytes) == KL_OK && b->sync(ctx) == KL_OK);
}

static void device_free(kl_context *ctx, void *dev) {
  ctx->backend->release(ctx, KL_MEM_DEVICE, dev);
  ctx->backend->close(ctx);
}

/* kl_reduce on every backend here, from host memory and, on a GPU, from
 * device memory, against sums computed here. */
static void test_reduce_entry(void) {
  enum { N = 100003 };
  static int32_t ints[N];
  static double doubles[N];
  int64_t exact = 0;
  double dsum = 0, dmin = 1e300;
  for (int i = 0; i < N; i++) {
    ints[i] = (int32_t)((i * 2654435761u) >> 1) - (1 << 30);
    doubles[i] = (double)(i % 1000) / 8 - 60;
    exact += ints[i];
    dsum += doubles[i];
    if (doubles[i] < dmin) dmin = doubles[i];
  }
  for (size_t k = 0; k < kl_backend_count(); k++) {
    const kl_backend *b = kl_backend_at(k);
    if (!kl_backend_available(b, NULL, 0)) continue;
    int64_t isum = 0;
    double got = 0;
    EXPECT(kl_reduce(b->name, "sum", KL_I32, ints, N, 0, &isum) == KL_OK);
    EXPECT(isum == exact);
    /* Multiples of 1/8 below 2^40: exact in double in any order. */
    EXPECT(kl_reduce(b->name, NULL, KL_F64, doubles, N, 0, &got) == KL_OK);
    EXPECT(got == dsum);
    EXPECT(kl_reduce(b->name, "min", KL_F64, doubles, N, 0, &got) == KL_OK);
    EXPECT(got == dmin);
    if (!kl_backend_host_memory(b)) {
      kl_context ctx;
      void *dev;
      device_copy(b, &ctx, &dev, ints, sizeof ints);
      isum = 0;
      EXPECT(kl_reduce(b->name, "sum", KL_I32, dev, N, 1, &isum) == KL_OK);
      EXPECT(isum == exact);
      device_free(&ctx, dev);
    }
  }
  int64_t isum;
  EXPECT(kl_reduce(NULL, "sum", KL_I32, ints, N, 0, &isum) == KL_OK &&
         isum == exact);
  EXPECT(kl_reduce("serial", "product", KL_I32, ints, N, 0, &isum) ==
         KL_USAGE);
  EXPECT(kl_reduce("serial", "sum", KL_U8, ints, N, 0, &isum) == KL_USAGE);
  EXPECT(kl_reduce("serial", "sum", KL_I32, ints, 0, 0, &isum) == KL_USAGE);
  EXPECT(kl_reduce("tpu", "sum", KL_I32, ints, N, 0, &isum) == KL_USAGE);
  EXPECT(kl_reduce("serial", "sum", KL_I32, NULL, N, 0, &isum) == KL_USAGE);
}

/* The rung marked for the library's use, "" for none, or "(several)". */
static const char *library_rung(const kl_workload *w, const kl_backend *b,
                                kl_type t) {
  const char *found = "";
  for (size_t i = 0; i < w->rung_count; i++) {
    const kl_rung *r = &w->rungs[i];
    if (r->backend != b || !(r->library & KL_TYPE_BIT(t))) continue;
    if (found[0]) return "(several)";
    found = r->name;
  }
  return found;
}

/* kl_histogram on every backend here, from host memory and, on a GPU,
 * from device memory, against counts made here: a run of equal bytes, then
 * bytes of every value at odd offsets. */
static void test_histogram_entry(void) {
  enum { N = 100003 };
  static unsigned char bytes[N];
  uint64_t want[256] = {0}, got[256];
  for (uint32_t i = 0; i < N; i++) {
    bytes[i] = i < 777 ? 42 : (unsigned char)((i * 2654435761u) >> 13);
    want[bytes[i]]++;
  }
  for (size_t k = 0; k < kl_backend_count(); k++) {
    const kl_backend *b = kl_backend_at(k);
    if (!kl_backend_available(b, NULL, 0)) continue;
    if (!library_rung(kl_workload_find("histogram"), b, KL_U8)[0]) {
      /* A backend without a histogram rung (openacc) says so. */
      EXPECT(kl_histogram(b->name, bytes, N, 0, got) == KL_UNAVAILABLE);
      continue;
    }
    memset(got, 0xFF, sizeof got);
    EXPECT(kl_histogram(b->name, bytes, N, 0, got) == KL_OK);
    EXPECT(memcmp(got, want, sizeof got) == 0);
    /* An unaligned start and an odd length. */
    memset(got, 0xFF, sizeof got);
    EXPECT(kl_histogram(b->name, bytes + 3, 1, 0, got) == KL_OK);
    EXPECT(got[bytes[3]] == 1 && got[(bytes[3] + 1) % 256] == 0);
    if (!kl_backend_host_memory(b)) {
      kl_context ctx;
      void *dev;
      device_copy(b, &ctx, &dev, bytes, N);
      memset(got, 0xFF, sizeof got);
      EXPECT(kl_histogram(b->name, dev, N, 1, got) == KL_OK);
      EXPECT(memcmp(got, want, sizeof got) == 0);
      device_free(&ctx, dev);
    }
  }
  memset(got, 0xFF, sizeof got);
  EXPECT(kl_histogram(NULL, bytes, N, 0, got) == KL_OK &&
         memcmp(got, want, sizeof got) == 0);
  EXPECT(kl_histogram("serial", bytes, 0, 0, got) == KL_USAGE);
  EXPECT(kl_histogram("serial", bytes, -5, 0, got) == KL_USAGE);
  EXPECT(kl_histogram("serial", NULL, N, 0, got) == KL_USAGE);
  EXPECT(kl_histogram("serial", bytes, N, 0, NULL) == KL_USAGE);
  EXPECT(kl_histogram("tpu", bytes, N, 0, got) == KL_USAGE);
  EXPECT(kl_histogram("serial", bytes, N, 0, got) == KL_OK &&
         kl_last_error()[0] == '\0');
}

/* kl_laplacian on every backend here and the preferred one, f64 and f32,
 * from host memory and, on a GPU, from device memory (on_device), against
 * a stencil computed here in double: the interior within a bound of the
 * magnitudes of its terms, the boundary of f and all of u untouched (bit
 * for bit). */
static int laplacian_case(const kl_backend *b, int on_device, kl_type t,
                          int nx, int ny, int nz) {
  enum { MAX = 8 * 5 * 4 }; /* the largest case */
  const double hx = 0.5, hy = 2, hz = 0.25;
  double ud[MAX], fd[MAX], u0[MAX], f0[MAX];
  float uf[MAX], ff[MAX];
  const int n = nx * ny * nz;
  for (int g = 0; g < n; g++) {
    ud[g] = uf[g] = (float)((g * 37 % 101) / 50.0 - 1);
    fd[g] = ff[g] = (float)(-3 - g);
  }
  const int f32 = t == KL_F32;
  memcpy(u0, f32 ? (void *)uf : (void *)ud, f32 ? sizeof uf : sizeof ud);
  memcpy(f0, f32 ? (void *)ff : (void *)fd, f32 ? sizeof ff : sizeof fd);
  void *uh = f32 ? (void *)uf : (void *)ud, *fh = f32 ? (void *)ff : (void *)fd;
  const size_t bytes = (size_t)n * (f32 ? sizeof *uf : sizeof *ud);
  const char *backend = b ? b->name : NULL;
  if (on_device) {
    kl_context uctx, fctx;
    void *du, *df;
    device_copy(b, &uctx, &du, uh, bytes);
    device_copy(b, &fctx, &df, fh, bytes);
    const kl_status st = kl_laplacian(backend, t, nx, ny, nz, hx, hy, hz,
                                      du, df, 1);
    EXPECT(b->copy(&fctx, 0, fh, df, bytes) == KL_OK && b->sync(&fctx) == KL_OK);
    EXPECT(b->copy(&uctx, 0, uh, du, bytes) == KL_OK && b->sync(&uctx) == KL_OK);
    device_free(&uctx, du);
    device_free(&fctx, df);
    if (st != KL_OK) return 0;
  } else if (kl_laplacian(backend, t, nx, ny, nz, hx, hy, hz, uh, fh, 0) !=
             KL_OK) {
    return 0;
  }
  int ok = memcmp(u0, f32 ? (void *)uf : (void *)ud,
                  f32 ? sizeof uf : sizeof ud) == 0;
  const double cx = 1 / (hx * hx), cy = 1 / (hy * hy), cz = 1 / (hz * hz);
  const double eps = f32 ? 1e-5 : 1e-13;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        const int g = i + nx * (j + ny * k);
        const double got = f32 ? ff[g] : fd[g];
        if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 ||
            k == nz - 1) {
          ok = ok && (f32 ? memcmp(&ff[g], (const float *)(void *)f0 + g,
                                   sizeof *ff)
                          : memcmp(&fd[g], &f0[g], sizeof *fd)) == 0;
          continue;
        }
        const double *u = ud;
        const int sy = nx, sz = nx * ny;
        const double want = (u[g - 1] - 2 * u[g] + u[g + 1]) * cx +
                            (u[g - sy] - 2 * u[g] + u[g + sy]) * cy +
                            (u[g - sz] - 2 * u[g] + u[g + sz]) * cz;
        const double m = 2 * (cx + cy + cz) * fabs(u[g]) + 8 * (cx + cy + cz);
        ok = ok && fabs(got - want) <= eps * m;
      }
  return ok;
}

static void test_laplacian_entry(void) {
  for (size_t k = 0; k < kl_backend_count(); k++) {
    const kl_backend *b = kl_backend_at(k);
    if (!kl_backend_available(b, NULL, 0)) continue;
    const int has_device = !kl_backend_host_memory(b);
    for (int on_device = 0; on_device <= has_device; on_device++) {
      EXPECT(laplacian_case(b, on_device, KL_F64, 7, 5, 4));
      EXPECT(laplacian_case(b, on_device, KL_F32, 7, 5, 4));
      /* Rows a multiple of the 16-byte vector wide. */
      EXPECT(laplacian_case(b, on_device, KL_F32, 8, 5, 4));
      EXPECT(laplacian_case(b, on_device, KL_F64, 3, 3, 3));
      EXPECT(laplacian_case(b, on_device, KL_F64, 2, 5, 4)); /* no interior */
    }
  }
  EXPECT(laplacian_case(NULL, 0, KL_TYPE_DEFAULT, 7, 5, 4));
  double u[8] = {0}, f[8] = {0};
  EXPECT(kl_laplacian("serial", KL_F64, 0, 2, 2, 1, 1, 1, u, f, 0) == KL_USAGE);
  EXPECT(kl_laplacian("serial", KL_F64, 2, -2, 2, 1, 1, 1, u, f, 0) == KL_USAGE);
  EXPECT(kl_laplacian("serial", KL_F64, 2, 2, 2, 0, 1, 1, u, f, 0) == KL_USAGE &&
         strstr(kl_last_error(), "hx = 0 must be finite and nonzero"));
  EXPECT(kl_laplacian("serial", KL_F64, 2, 2, 2, 1, INFINITY, 1, u, f, 0) ==
         KL_USAGE);
  EXPECT(kl_laplacian("serial", KL_F64, 2, 2, 2, 1, 1, NAN, u, f, 0) ==
         KL_USAGE);
  EXPECT(kl_laplacian("serial", KL_F32, 2, 2, 2, 1e-30, 1, 1, u, f, 0) ==
         KL_USAGE && strstr(kl_last_error(), "outside the range of f32"));
  EXPECT(kl_laplacian("serial", KL_I32, 2, 2, 2, 1, 1, 1, u, f, 0) != KL_OK);
  EXPECT(kl_laplacian("serial", KL_F64, 2, 2, 2, 1, 1, 1, NULL, f, 0) ==
         KL_USAGE);
  EXPECT(kl_laplacian("serial", KL_F64, 2, 2, 2, 1, 1, 1, u, NULL, 0) ==
         KL_USAGE);
  EXPECT(kl_laplacian("tpu", KL_F64, 2, 2, 2, 1, 1, 1, u, f, 0) == KL_USAGE);
  EXPECT(kl_laplacian("serial", KL_F64, 2, 2, 2, 1, 1, 1, u, f, 0) == KL_OK &&
         kl_last_error()[0] == '\0');
}

/* One backend: NaN in the middle, then +Inf first (and -Inf last); the
 * arrays come back as they were. */
static void reduce_nan_on(const char *backend, float *f, double *d,
                          int64_t n) {
  float fmax = 0;
  double got = 0;
  f[n / 2] = NAN;
  d[n / 2] = NAN;
  EXPECT(kl_reduce(backend, "max", KL_F32, f, n, 0, &fmax) == KL_OK);
  EXPECT(isnan(fmax));
  EXPECT(kl_reduce(backend, "min", KL_F64, d, n, 0, &got) == KL_OK);
  EXPECT(isnan(got));
  EXPECT(kl_reduce(backend, "sum", KL_F32, f, n, 0, &got) == KL_OK);
  EXPECT(isnan(got));
  f[n / 2] = 0;
  d[n / 2] = 0;
  const double first = d[0], last = d[n - 1];
  d[0] = INFINITY;
  EXPECT(kl_reduce(backend, "max", KL_F32, f, n, 0, &fmax) == KL_OK);
  EXPECT(fmax == 64.875f);
  EXPECT(kl_reduce(backend, "sum", KL_F64, d, n, 0, &got) == KL_OK);
  EXPECT(got == INFINITY);
  d[n - 1] = -INFINITY;
  EXPECT(kl_reduce(backend, "sum", KL_F64, d, n, 0, &got) == KL_OK);
  EXPECT(isnan(got));
  EXPECT(kl_reduce(backend, "max", KL_F64, d, n, 0, &got) == KL_OK);
  EXPECT(got == INFINITY);
  EXPECT(kl_reduce(backend, "min", KL_F64, d, n, 0, &got) == KL_OK);
  EXPECT(got == -INFINITY);
  d[0] = first;
  d[n - 1] = last;
}

/* A NaN must not vanish from a reduction (issue 8): min and max return
 * NaN, as NumPy's np.min and np.max do, on every backend here, from host
 * memory; a sum of +Inf and -Inf is NaN, of +Inf alone +Inf. The f32 case
 * is the issue's: 10,000,019 floats, one NaN in the middle. */
static void test_reduce_nan(void) {
  const int64_t n = 10000019;
  float *f = malloc(sizeof *f * (size_t)n);
  double *d = malloc(sizeof *d * (size_t)n);
  EXPECT(f && d);
  if (!f || !d) return;
  for (int64_t i = 0; i < n; i++) {
    d[i] = (double)(i % 1000) / 8 - 60;
    f[i] = (float)d[i];
  }
  for (size_t k = 0; k < kl_backend_count(); k++)
    if (kl_backend_available(kl_backend_at(k), NULL, 0))
      reduce_nan_on(kl_backend_at(k)->name, f, d, n);
  free(f);
  free(d);
}

/* kl_cg on every backend here and the preferred one: a CSR matrix (the
 * 1D Laplacian with 4 on the diagonal, and a 4x4 dense SPD one) from host
 * memory and, on a GPU, from device memory; the built-in stencils; a fixed
 * count. The solution against x* within 1e-8 (the matrices are well
 * conditioned: cond < 3); the residual the solve reports within its
 * tolerance. */
enum { CG_ROWS = 50 };
static int cg_case(const kl_backend *b, int on_device) {
  int64_t offsets[CG_ROWS + 1];
  int32_t columns[3 * CG_ROWS];
  double values[3 * CG_ROWS], want[CG_ROWS], rhs[CG_ROWS], x[CG_ROWS];
  int64_t e = 0;
  for (int i = 0; i < CG_ROWS; i++) {
    offsets[i] = e;
    for (int j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < CG_ROWS)
        columns[e] = j, values[e++] = i == j ? 4 : -1;
    want[i] = sin(i + 1.0);
  }
  offsets[CG_ROWS] = e;
  for (int i = 0; i < CG_ROWS; i++) {
    rhs[i] = 0;
    for (int64_t k = offsets[i]; k < offsets[i + 1]; k++)
      rhs[i] += values[k] * want[columns[k]];
    x[i] = 0;
  }
  const char *backend = b ? b->name : NULL;
  kl_cg_matrix a = {CG_ROWS, e, offsets, columns, values};
  kl_cg_result res = {0, 0};
  kl_status st;
  if (on_device) {
    kl_context c[5];
    void *d[5];
    const size_t sizes[5] = {sizeof offsets, (size_t)e * sizeof *columns,
                             (size_t)e * sizeof *values, sizeof rhs,
                             sizeof x};
    const void *h[5] = {offsets, columns, values, rhs, x};
    for (int i = 0; i < 5; i++) device_copy(b, &c[i], &d[i], h[i], sizes[i]);
    kl_cg_matrix da = {CG_ROWS, e, d[0], d[1], d[2]};
    st = kl_cg(backend, &da, 0, 0, d[3], d[4], 1e-12, 200, 1, &res);
    EXPECT(b->copy(&c[4], 0, x, d[4], sizeof x) == KL_OK &&
           b->sync(&c[4]) == KL_OK);
    for (int i = 0; i < 5; i++) device_free(&c[i], d[i]);
  } else {
    st = kl_cg(backend, &a, 0, 0, rhs, x, 1e-12, 200, 0, &res);
  }
  if (st != KL_OK) return 0;
  int ok = res.iterations > 0 && res.iterations < 200 &&
           res.residual <= 1e-12;
  for (int i = 0; i < CG_ROWS; i++) ok = ok && fabs(x[i] - want[i]) <= 1e-8;
  return ok;
}

/* The built-in 27-point matrix on a 6^3 grid, b = A 1: x comes back 1. */
static int cg_stencil_case(const kl_backend *b, int stencil) {
  enum { N = 6, ROWS = N * N * N };
  double rhs[ROWS], x[ROWS];
  const double diagonal = stencil == 27 ? 27 : 6;
  for (int row = 0; row < ROWS; row++) {
    const int i = row % N, j = row / N % N, k = row / N / N;
    int neighbours = 0;
    for (int dk = -1; dk <= 1; dk++)
      for (int dj = -1; dj <= 1; dj++)
        for (int di = -1; di <= 1; di++) {
          const int zeros = (di == 0) + (dj == 0) + (dk == 0);
          if (zeros == 3 || (stencil == 7 && zeros < 2)) continue;
          neighbours += i + di >= 0 && i + di < N && j + dj >= 0 &&
                        j + dj < N && k + dk >= 0 && k + dk < N;
        }
    rhs[row] = diagonal - neighbours;
    x[row] = 0;
  }
  kl_cg_result res = {0, 0};
  if (kl_cg(b ? b->name : NULL, NULL, N, stencil, rhs, x, 1e-12, 1000, 0,
            &res) != KL_OK)
    return 0;
  int ok = res.iterations > 0 && res.residual <= 1e-12;
  for (int row = 0; row < ROWS; row++) ok = ok && fabs(x[row] - 1) <= 1e-9;
  /* A fixed count makes exactly that many iterations. */
  for (int row = 0; row < ROWS; row++) x[row] = 0;
  ok = ok && kl_cg(b ? b->name : NULL, NULL, N, stencil, rhs, x, 0, 3, 0,
                   &res) == KL_OK && res.iterations == 3;
  return ok;
}

static void test_cg_entry(void) {
  for (size_t k = 0; k < kl_backend_count(); k++) {
    const kl_backend *b = kl_backend_at(k);
    if (!kl_backend_available(b, NULL, 0)) continue;
    const int has_device = !kl_backend_host_memory(b);
    for (int on_device = 0; on_device <= has_device; on_device++)
      EXPECT(cg_case(b, on_device));
    EXPECT(cg_stencil_case(b, 27));
    EXPECT(cg_stencil_case(b, 7));
  }
  EXPECT(cg_case(NULL, 0));
  /* Bad arguments: one clear error each. */
  double b1[1] = {1}, x1[1] = {0};
  int64_t offsets[2] = {0, 1};
  int32_t columns[1] = {0};
  double minus[1] = {-2};
  kl_cg_matrix m = {1, 1, offsets, columns, minus};
  kl_cg_result res;
  EXPECT(kl_cg("serial", &m, 0, 0, b1, x1, 1e-10, 10, 0, &res) == KL_USAGE &&
         strstr(kl_last_error(), "not positive definite"));
  EXPECT(kl_cg("serial", NULL, 4, 27, NULL, x1, 1e-10, 10, 0, &res) ==
         KL_USAGE);
  EXPECT(kl_cg("serial", NULL, 4, 5, b1, x1, 1e-10, 10, 0, &res) == KL_USAGE);
  EXPECT(kl_cg("serial", NULL, 0, 27, b1, x1, 1e-10, 10, 0, &res) ==
         KL_USAGE);
  EXPECT(kl_cg("serial", NULL, 4, 27, b1, x1, 1e-10, 0, 0, &res) == KL_USAGE);
  EXPECT(kl_cg("serial", NULL, 4, 27, b1, x1, -1, 10, 0, &res) == KL_USAGE);
  EXPECT(kl_cg("serial", &m, 0, 0, b1, x1, 1e-30, 10, 0, &res) == KL_USAGE);
  EXPECT(kl_cg("tpu", &m, 0, 0, b1, x1, 1e-10, 10, 0, &res) == KL_USAGE);
  kl_cg_matrix empty = {0, 1, offsets, columns, minus};
  EXPECT(kl_cg("serial", &empty, 0, 0, b1, x1, 1e-10, 10, 0, &res) ==
         KL_USAGE);
  /* A success clears the message. */
  double one[1] = {3}, plus[1] = {3};
  kl_cg_matrix pos = {1, 1, offsets, columns, plus};
  x1[0] = 0;
  EXPECT(kl_cg("serial", &pos, 0, 0, one, x1, 1e-10, 10, 0, &res) == KL_OK &&
         fabs(x1[0] - 1) < 1e-15 && res.iterations == 1 &&
         kl_last_error()[0] == '\0');
}

/* The library's rung of each workload, backend and type: the rung that
 * kl_reduce, kl_gemm and the other entry points run there, the fastest
 * hand-written rung measured on the H100 (scripts/gpu-library-rungs.sh;
 * docs/results/2026-11-23-core-v2.md, 2026-11-21-gemm.md,
 * src/workloads/reduce/NOTES.md). One line per choice: a change of choice
 * is a change of one line. Every workload, backend and offered type not
 * listed has no library rung (stream has none anywhere). "cuda" is the GPU
 * backend, whatever its name in this build (hip). */
#define I32 KL_TYPE_BIT(KL_I32)
#define F32 KL_TYPE_BIT(KL_F32)
#define F64 KL_TYPE_BIT(KL_F64)
#define U8 KL_TYPE_BIT(KL_U8)
static const struct {
  const char *workload, *backend;
  unsigned types; /* KL_TYPE_BIT set */
  const char *rung;
} library[] = {
    {"map", "serial", F32, "serial"},
    {"map", "openmp", F32, "openmp"},
    {"map", "cuda", F32, "cuda-vec4"},
    {"reduce", "serial", I32 | F32 | F64, "serial"},
    {"reduce", "openmp", I32 | F32 | F64, "openmp-partials"},
    {"reduce", "cuda", I32 | F32 | F64, "cuda-best"},
    {"histogram", "serial", U8, "serial"},
    {"histogram", "openmp", U8, "openmp-blocks"},
    {"histogram", "cuda", U8, "cuda-best"},
    {"laplacian", "serial", F32 | F64, "serial"},
    {"laplacian", "openmp", F32 | F64, "openmp-streaming"},
    {"laplacian", "cuda", F32 | F64, "cuda-zmarch-vector"},
    {"cg", "serial", F64, "serial"},
    {"cg", "openmp", F64, "openmp"},
    {"cg", "cuda", F64, "cuda-graph"},
    {"integrate", "serial", F32 | F64, "serial"},
    {"integrate", "openmp", F32 | F64, "openmp"},
    {"integrate", "cuda", F32 | F64, "cuda-best"},
    {"gemm", "serial", F32 | F64, "serial-loop-order"},
    {"gemm", "openmp", F32 | F64, "openmp-blocked"},
    {"gemm", "cuda", F64, "cuda-dmma"},
    {"gemm", "cuda", F32, "cuda-pipelined"},
    {"map", "openacc", F32, "openacc"},
    {"reduce", "openacc", I32 | F32 | F64, "openacc-gangs"},
    {"laplacian", "openacc", F32 | F64, "openacc"},
    {"cg", "openacc", F64, "openacc-tuned"},
};
#define LIBRARY_COUNT (sizeof library / sizeof *library)
#undef I32
#undef F32
#undef F64
#undef U8

/* A backend of the table by name; "cuda" is the GPU backend of any build. */
static const kl_backend *table_backend(const char *name) {
  const kl_backend *b = kl_backend_find(name);
  if (!b && strcmp(name, "cuda") == 0) b = kl_backend_find("hip");
  return b;
}

/* The pinned choice for a workload, backend and type: "" when none. */
static const char *pinned_rung(const kl_workload *w, const kl_backend *b,
                               kl_type t) {
  for (size_t i = 0; i < LIBRARY_COUNT; i++)
    if (strcmp(library[i].workload, w->name) == 0 &&
        table_backend(library[i].backend) == b &&
        (library[i].types & KL_TYPE_BIT(t)))
      return library[i].rung;
  return "";
}

static void test_library_rungs(void) {
  /* The table itself: each line names a workload, a backend, types the
   * workload offers and a rung of that backend; no two lines pin one
   * workload, backend and type. */
  for (size_t i = 0; i < LIBRARY_COUNT; i++) {
    const kl_workload *w = kl_workload_find(library[i].workload);
    const kl_backend *b = table_backend(library[i].backend);
    EXPECT(w && b);
    if (!w || !b) continue;
    EXPECT(library[i].types != 0 && (library[i].types & ~w->types) == 0);
    const kl_rung *r = kl_rung_find(w, library[i].rung);
    EXPECT(r && r->backend == b);
    for (size_t j = i + 1; j < LIBRARY_COUNT; j++)
      EXPECT(!(strcmp(library[j].workload, w->name) == 0 &&
               table_backend(library[j].backend) == b &&
               (library[j].types & library[i].types)));
  }
  /* Every workload, backend and type the workload offers: at most one
   * library rung, and exactly the pinned one ("" where none is). */
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    for (size_t k = 0; k < kl_backend_count(); k++) {
      const kl_backend *b = kl_backend_at(k);
      for (int t = 0; t < KL_TYPE_COUNT; t++) {
        if (!(w->types & KL_TYPE_BIT(t))) continue;
        const char *got = library_rung(w, b, (kl_type)t);
        const char *want = pinned_rung(w, b, (kl_type)t);
        if (strcmp(got, want) != 0)
          printf("library rung of %s on %s for %s: '%s', pinned '%s'\n",
                 w->name, b->name, kl_type_name((kl_type)t), got, want);
        EXPECT(strcmp(got, "(several)") != 0);
        EXPECT(strcmp(got, want) == 0);
      }
    }
    /* A library rung is hand-written and right, and runs the types it is
     * the library's rung for. */
    for (size_t r = 0; r < w->rung_count; r++) {
      const kl_rung *rung = &w->rungs[r];
      if (!rung->library) continue;
      EXPECT(!(rung->flags & (KL_RUNG_VENDOR | KL_RUNG_KNOWN_WRONG)));
      EXPECT((rung->library & ~w->types) == 0);
      EXPECT(rung->types == 0 || (rung->library & ~rung->types) == 0);
    }
  }
  /* stream has no library rung, for any type. */
  const kl_workload *stream = kl_workload_find("stream");
  EXPECT(stream != NULL);
  for (size_t r = 0; stream && r < stream->rung_count; r++)
    EXPECT(stream->rungs[r].library == 0);
}

/* Issue 10: a call that succeeds clears the message of an earlier
 * failure; a value outside kl_type is named as such. */
static void test_last_error(void) {
  int64_t n;
  EXPECT(kl_parse_size("12x", &n) == KL_USAGE && kl_last_error()[0]);
  EXPECT(kl_parse_size("12", &n) == KL_OK && kl_last_error()[0] == '\0');
  const kl_workload *map = kl_workload_find("map");
  kl_result r;
  kl_problem pb = {.n = 100, .type = (kl_type)42, .seed = 1};
  EXPECT(kl_run_rung(map, &map->rungs[0], &pb, 1, 0, &r) == KL_USAGE &&
         strstr(kl_last_error(), "42 is not a kl_type value"));
  pb.type = KL_TYPE_DEFAULT;
  EXPECT(kl_run_rung(map, &map->rungs[0], &pb, 1, 0, &r) == KL_OK &&
         kl_last_error()[0] == '\0');
  int32_t x[3] = {1, 2, 3};
  int64_t sum = 0;
  EXPECT(kl_reduce("serial", "product", KL_I32, x, 3, 0, &sum) == KL_USAGE);
  EXPECT(kl_reduce("serial", "sum", KL_I32, x, 3, 0, &sum) == KL_OK &&
         sum == 6 && kl_last_error()[0] == '\0');
  EXPECT(strcmp(kl_type_name((kl_type)42), "(not a type)") == 0 &&
         strcmp(kl_type_name(KL_TYPE_DEFAULT), "default") == 0);
  /* Every enum outside its range gets its own word or message. */
  EXPECT(strcmp(kl_placement_name(KL_MEM_PINNED), "pinned") == 0 &&
         strcmp(kl_placement_name((kl_placement)9), "(not a placement)") == 0);
  EXPECT(strcmp(kl_status_name((kl_status)99), "unknown status") == 0 &&
         kl_exit_code((kl_status)99) == 3);
  kl_options o;
  kl_options_init(&o);
  o.type = (kl_type)-7;
  kl_report *rep = NULL;
  EXPECT(kl_run(&o, &rep) == KL_USAGE && rep == NULL &&
         strstr(kl_last_error(), "-7 is not a kl_type value"));
}

int main(void) {
  test_last_error();
  test_library_rungs();
  test_reduce_entry();
  test_reduce_nan();
  test_histogram_entry();
  test_laplacian_entry();
  test_cg_entry();
  test_sizes();
  test_names_and_codes();
  test_run();
  test_same_seed_same_result();
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
