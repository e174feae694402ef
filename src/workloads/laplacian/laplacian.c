/* laplacian: the workload (grid, inputs, check, cost), the serial rung and
 * the ladder (seed 002). laplacian.h has the stencil and the layout. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kladder-laplacian.h"
#include "laplacian.h"
#include "../../registry.h"

static const char *const axes[3] = {"x", "y", "z"};

kl_status kl__laplacian_coefficients(kl_plan *p) {
  const double *v = p->value;
  /* Each coefficient 1/h^2 must be a normal number of the type, with room
   * for the sum of the seven terms (|u| < 1): no overflow, no underflow. */
  const double big = p->type == KL_F32 ? FLT_MAX / 16 : DBL_MAX / 16;
  const double small = p->type == KL_F32 ? FLT_MIN : DBL_MIN;
  for (int a = 0; a < 3; a++) {
    const double h = v[LAP_P_HX + a];
    if (h == 0 || !isfinite(h))
      return kl__usage(KL_USAGE, "laplacian: spacing h%s = %g must be finite "
                       "and nonzero", axes[a], h);
    const double c = 1 / (h * h);
    if (!(c <= big && c >= small))
      return kl__usage(KL_USAGE, "laplacian: spacing h%s = %g gives 1/h%s^2 "
                       "= %g, outside the range of %s", axes[a], h, axes[a], c,
                       kl_type_name(p->type));
    p->constants[LAP_CX + a] = c;
  }
  p->constant_count = 3;
  return KL_OK;
}

static kl_status plan(kl_plan *p) {
  double *v = p->value;
  /* ny and nz follow nx where not given. */
  v[LAP_P_NX] = (double)p->n;
  if (!(p->given >> LAP_P_NY & 1)) v[LAP_P_NY] = (double)p->n;
  if (!(p->given >> LAP_P_NZ & 1)) v[LAP_P_NZ] = (double)p->n;
  const double points = v[LAP_P_NX] * v[LAP_P_NY] * v[LAP_P_NZ];
  if (points > 0x1p60)
    return kl__usage(KL_TOO_LARGE, "laplacian: grid %lldx%lldx%lld has too "
                     "many points", (long long)LAP_NX(p), (long long)LAP_NY(p),
                     (long long)LAP_NZ(p));
  kl_status st = kl__laplacian_coefficients(p);
  if (st != KL_OK) return st;
  /* m is a compile-time constant of the tiled kernels: one instantiation
   * per value (laplacian-cuda.cu). */
  const double m = v[LAP_P_M];
  if (m != 1 && m != 2 && m != 4 && m != 8 && m != 16)
    return kl__usage(KL_USAGE, "laplacian: m = %g is not 1, 2, 4, 8 or 16 "
                     "(the points per thread along y of the tiled kernels)",
                     m);
  const int64_t count = LAP_POINTS(p);
  p->buffer_count = 2;
  p->buffers[LAP_U] =
      (kl_buffer_spec){"u", p->type, count, KL_IN, KL_MEM_DEVICE, 0};
  p->buffers[LAP_F] =
      (kl_buffer_spec){"f", p->type, count, KL_INOUT, KL_MEM_DEVICE, 0};
  return KL_OK;
}

/* u uniform in [-1, 1); f too, from a stream of its own: a pattern that
 * the boundary must keep bit for bit and that an unwritten interior point
 * keeps too (and fails). */
static void init(const kl_plan *p, void *const *host) {
  const int64_t count = LAP_POINTS(p);
  kl__fill_uniform(p->type, host[LAP_U], count, p->seed, LAP_U, -1, 1);
  kl__fill_uniform(p->type, host[LAP_F], count, p->seed, LAP_F, -1, 1);
}

/* ---- the check ------------------------------------------------------------
 * Interior point: the reference in long double with exact coefficients
 * (1.0L / (h*h) of the spacings as given), against a bound of the
 * cancellation:
 *   |f - ref| <= gamma_12(u_T) M + 2^-58 M + 8 t_T,
 *   M = |cc u| + cx (|u[i-1]| + |u[i+1]|) + cy (...) + cz (...),
 * the magnitudes of the seven terms with their coefficients (not of their
 * sum, which cancels), gamma_k = k u_T / (1 - k u_T), u_T the unit roundoff
 * of the type (2^-53, 2^-24). k = 12 counts the longest chain of roundings
 * any reasonable evaluation of the formula makes on one term (Higham,
 * "Accuracy and Stability of Numerical Algorithms", 2nd ed., 3.1): up to 5
 * in the centre coefficient (h to the type, 1/h/h in two divisions, the
 * sum of three, times 2 exact), one product and up to six additions of
 * seven terms; the seed's form makes 8 at most. 2^-58 M covers the
 * long-double reference's own roundings (about ten at 2^-64), and 8 t_T,
 * t_T the type's smallest subnormal, the products that underflow.
 * Boundary point: bit for bit what it was before the run. */
void kl__laplacian_rule(const kl_plan *p, kl__lap_rule *k) {
  const double ur = p->type == KL_F32 ? 0x1p-24 : 0x1p-53;
  const long double hx = LAP_HX(p), hy = LAP_HY(p), hz = LAP_HZ(p);
  k->cx = 1.0L / (hx * hx);
  k->cy = 1.0L / (hy * hy);
  k->cz = 1.0L / (hz * hz);
  k->cc = -2 * (k->cx + k->cy + k->cz);
  k->gamma = 12 * ur / (1 - 12 * ur);
  k->tiny = 8 * (p->type == KL_F32 ? 0x1p-149 : 0x1p-1074);
}

typedef struct lap_check {
  kl_type type;
  const void *u, *f_in, *f_out;
  int64_t nx, ny, nz;
  kl__lap_rule rule;
} lap_check;

/* A point's 7 values as long double, loaded as the type (the checker's
 * loop calls this for every point: no call per value). */
#define LAP_LOAD(T, k, at, u)                                   \
  do {                                                          \
    const T *src = (const T *)(k)->u;                           \
    for (int t = 0; t < 7; t++) (u)[t] = src[(at)[t]];          \
  } while (0)

/* Point g = i + nx (j + ny z) of the grid. */
static void lap_point(const lap_check *k, int64_t g, int64_t i, int64_t j,
                      int64_t z, kl_element *e) {
  if (i == 0 || j == 0 || z == 0 || i == k->nx - 1 || j == k->ny - 1 ||
      z == k->nz - 1) {
    kl__same_bits(k->type, k->f_out, k->f_in, g, e);
    return;
  }
  const int64_t sx = 1, sy = k->nx, sz = k->nx * k->ny;
  const int64_t at[7] = {g, g - sx, g + sx, g - sy, g + sy, g - sz, g + sz};
  long double u[7], want;
  if (k->type == KL_F64) {
    LAP_LOAD(double, k, at, u);
    e->got = ((const double *)k->f_out)[g];
  } else {
    LAP_LOAD(float, k, at, u);
    e->got = ((const float *)k->f_out)[g];
  }
  kl__laplacian_reference(&k->rule, u, &want, &e->tol);
  e->want = want;
}

/* Points first..first+n, their coordinates found once and then walked. */
static void lap_run(const void *ctx, int64_t first, int n, kl_element *e) {
  const lap_check *k = ctx;
  int64_t i = first % k->nx, r = first / k->nx, j = r % k->ny,
          z = r / k->ny;
  for (int t = 0; t < n; t++) {
    lap_point(k, first + t, i, j, z, &e[t]);
    if (++i == k->nx) {
      i = 0;
      if (++j == k->ny) j = 0, z++;
    }
  }
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  lap_check k = {p->type, in[LAP_U], in[LAP_F], out[LAP_F], LAP_NX(p),
                 LAP_NY(p), LAP_NZ(p), {0, 0, 0, 0, 0, 0}};
  kl__laplacian_rule(p, &k.rule);
  kl__check_runs(LAP_POINTS(p), lap_run, &k, v);
  if (v->bad_count) {
    const int64_t g = v->first_bad, i = g % k.nx, j = g / k.nx % k.ny,
                  z = g / k.nx / k.ny;
    kl_element e;
    lap_run(&k, g, 1, &e);
    const int edge = i == 0 || j == 0 || z == 0 || i == k.nx - 1 ||
                     j == k.ny - 1 || z == k.nz - 1;
    snprintf(v->detail, sizeof v->detail,
             "%s point (%lld,%lld,%lld): expected %.17Lg, got %.17Lg%s",
             edge ? "boundary" : "interior", (long long)i, (long long)j,
             (long long)z, edge ? kl__element(k.type, k.f_in, g) : e.want,
             kl__element(k.type, k.f_out, g),
             edge ? " (must be untouched)" : "");
  }
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  const double interior = LAP_HAS_INTERIOR(p)
                              ? (double)(LAP_NX(p) - 2) *
                                    (double)(LAP_NY(p) - 2) *
                                    (double)(LAP_NZ(p) - 2)
                              : 0;
  c->bytes = ((double)LAP_POINTS(p) + interior) * (double)kl_type_size(p->type);
  c->flops = 10 * interior;
  c->items = interior;
}

/* ---- the serial rung: the triple loop, k outer, i inner ------------------ */
kl_status kl__laplacian_serial(const kl_args *a) {
  const kl_plan *p = a->plan;
  const int64_t nx = LAP_NX(p), ny = LAP_NY(p), nz = LAP_NZ(p);
  KL_FOR_FLOAT_TYPE(p->type, T, return KL_USAGE,
    LAP_HOST_BEGIN(T);
    for (int64_t k = 1; k < nz - 1; k++)
      for (int64_t j = 1; j < ny - 1; j++)
        for (int64_t i = 1; i < nx - 1; i++)
          LAP_HOST_POINT(i + sy * j + sz * k));
  return KL_OK;
}

#define FLOATS (KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64))

/* The ladder, naive first. The four tiled CUDA rungs read m, the points
 * per thread along y (-p m=), and the z-marching ones planes, the planes
 * of a chunk (-p planes=): their .tunings. */
/* The hooks every laplacian GPU rung shares. */
static const kl_rung_family gpu_family = {
    .setup = KL_GPU_FN(kl__laplacian_gpu_zmarch_setup)};

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "the triple loop, k outer, i inner",
            .library = FLOATS, .run = kl__laplacian_serial),
    KL_RUNG("openmp", openmp, "parallel over k and j (collapse), the i loop "
            "omp simd", .run = kl__laplacian_omp),
    KL_RUNG("openmp-blocked", openmp, "blocks of rows sized to the L2 "
            "marched along z, one thread each",
            .run = kl__laplacian_omp_blocked),
    KL_RUNG("openmp-streaming", openmp, "openmp-blocked with streaming "
            "stores for f's whole lines", .library = FLOATS,
            .run = kl__laplacian_omp_streaming),
    KL_RUNG("cuda-kernel1", gpu, "the seed's kernel 1: one thread per point, "
            "256x1x1 blocks", .run = KL_GPU_FN(kl__laplacian_gpu_point)),
    KL_RUNG("cuda-tiled", gpu, "the seed's kernel 2: m points per thread "
            "along y (-p m=), the centre reused as a y neighbour",
            .tunings = KL_PARAM_BIT(LAP_P_M),
            .run = KL_GPU_FN(kl__laplacian_gpu_tiled)),
    KL_RUNG("cuda-reordered", gpu, "the seed's kernel 3: kernel 2 with the "
            "loads in ascending addresses; m from -p m=",
            .tunings = KL_PARAM_BIT(LAP_P_M),
            .run = KL_GPU_FN(kl__laplacian_gpu_reordered)),
    KL_RUNG("cuda-bounded", gpu, "the seed's part 3: kernel 3 with "
            "__launch_bounds__(256); m from -p m=",
            .tunings = KL_PARAM_BIT(LAP_P_M),
            .run = KL_GPU_FN(kl__laplacian_gpu_bounded)),
    KL_RUNG("cuda-kernel1-streaming", gpu, "the seed's part 3: kernel 1 with "
            "streaming stores for f",
            .run = KL_GPU_FN(kl__laplacian_gpu_point_streaming)),
    KL_RUNG("cuda-streaming", gpu, "the seed's part 3: cuda-bounded with "
            "streaming stores for f; m from -p m=",
            .tunings = KL_PARAM_BIT(LAP_P_M),
            .run = KL_GPU_FN(kl__laplacian_gpu_streaming)),
    KL_RUNG("cuda-zmarch", gpu, "beyond the seed: marching along z over 8 "
            "planes, k-1, k, k+1 in registers, x and y neighbours through L1",
            .tunings = KL_PARAM_BIT(LAP_P_PLANES),
            .run = KL_GPU_FN(kl__laplacian_gpu_zmarch),
            .family = &gpu_family),
    KL_RUNG("cuda-zmarch-shared", gpu, "marching along z, plane k's tile and "
            "halo in shared memory (2.5D blocking)",
            .tunings = KL_PARAM_BIT(LAP_P_PLANES),
            .run = KL_GPU_FN(kl__laplacian_gpu_zmarch_shared),
            .family = &gpu_family),
    KL_RUNG("cuda-zmarch-vector", gpu, "cuda-zmarch over 4 planes with "
            "16-byte vector loads and stores along x (nx a multiple of 2 f64 "
            "or 4 f32; else as cuda-zmarch)",
            .tunings = KL_PARAM_BIT(LAP_P_PLANES),
            .run = KL_GPU_FN(kl__laplacian_gpu_zmarch_vector),
            .family = &gpu_family),
    KL_RUNG("cuda-zmarch-prefetch", gpu, "cuda-zmarch-vector over 10 planes, "
            "each step asking L2 for the plane 3 ahead: more bytes in flight "
            "than the registers hold", .library = FLOATS,
            .tunings = KL_PARAM_BIT(LAP_P_PLANES),
            .run = KL_GPU_FN(kl__laplacian_gpu_zmarch_prefetch),
            .family = &gpu_family),
    KL_RUNG("openacc", openacc, "rows over gangs (collapse(2)), each row's "
            "points over 128 vector lanes", .peer = "cuda-kernel1",
            .library = FLOATS, .run = KL_ACC_FN(kl__laplacian_acc)),
    KL_RUNG("openacc-tiled", openacc, "tiles of 128x4x2 points, one per gang, "
            "each row's points over 128 vector lanes", .peer = "cuda-tiled",
            .run = KL_ACC_FN(kl__laplacian_acc_tiled)),
    KL_RUNG("opencl-point", opencl, "the seed's kernel 1: one point per "
            "work-item over a 3D range", .peer = "cuda-kernel1",
            .setup = KL_CL_FN(kl__laplacian_cl_point_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__laplacian_cl_point)),
    KL_RUNG("opencl-zmarch", opencl, "a column per work-item marching along "
            "z, planes k-1, k, k+1 in registers", .peer = "cuda-zmarch",
            .setup = KL_CL_FN(kl__laplacian_cl_zmarch_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__laplacian_cl_zmarch)),
    KL_RUNG("opencl-tiled", opencl, "32x8 tiles marching along z over "
            "chunks of 8 planes, plane k's tile and halo in local memory "
            "(2.5D blocking); on a CPU opencl-zmarch's rows",
            .peer = "cuda-zmarch-shared",
            .setup = KL_CL_FN(kl__laplacian_cl_tiled_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__laplacian_cl_tiled)),
    KL_RUNG("opencl-zmarch-vector", opencl, "opencl-zmarch over chunks of 4 "
            "planes with 16-byte vectors along x (nx a multiple of 2 f64 or "
            "4 f32; else as opencl-zmarch)", .peer = "cuda-zmarch-vector",
            .setup = KL_CL_FN(kl__laplacian_cl_zvector_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__laplacian_cl_zvector)),
};

/* The m sweep was 20 rungs until core v3: each of the four tiled rungs at
 * m = 1, 2, 4, 8, 16. Their names say what replaced them. */
static const kl_retired_rung retired[] = {
    {"cuda-tiled-m1", "cuda-tiled with -p m=1"},
    {"cuda-tiled-m2", "cuda-tiled with -p m=2"},
    {"cuda-tiled-m4", "cuda-tiled with -p m=4"},
    {"cuda-tiled-m8", "cuda-tiled with -p m=8"},
    {"cuda-tiled-m16", "cuda-tiled with -p m=16"},
    {"cuda-reordered-m1", "cuda-reordered with -p m=1"},
    {"cuda-reordered-m2", "cuda-reordered with -p m=2"},
    {"cuda-reordered-m4", "cuda-reordered with -p m=4"},
    {"cuda-reordered-m8", "cuda-reordered with -p m=8"},
    {"cuda-reordered-m16", "cuda-reordered with -p m=16"},
    {"cuda-bounded-m1", "cuda-bounded with -p m=1"},
    {"cuda-bounded-m2", "cuda-bounded with -p m=2"},
    {"cuda-bounded-m4", "cuda-bounded with -p m=4"},
    {"cuda-bounded-m8", "cuda-bounded with -p m=8"},
    {"cuda-bounded-m16", "cuda-bounded with -p m=16"},
    {"cuda-streaming-m1", "cuda-streaming with -p m=1"},
    {"cuda-streaming-m2", "cuda-streaming with -p m=2"},
    {"cuda-streaming-m4", "cuda-streaming with -p m=4"},
    {"cuda-streaming-m8", "cuda-streaming with -p m=8"},
    {"cuda-streaming-m16", "cuda-streaming with -p m=16"},
    {NULL, NULL}};

#define EXTENT (KL_PARAM_EXTENT)
const kl_param kl__laplacian_params[LAP_PARAMS] = {
    [LAP_P_NX] = {.name = "nx", .kind = KL_PARAM_SIZE,
                  .flags = KL_PARAM_MAIN_SIZE | EXTENT,
                  .help = "points along x (fastest); the default of ny and nz",
                  .default_value = 512, /* the seed's 512^3 */
                  .host_default = 256, .min = 1, .max = 0x1p40, .step = 16,
                  .quick_default = 256, .quick_host_default = 192,
                  .cache_multiple = 4},
    [LAP_P_NY] = {.name = "ny", .kind = KL_PARAM_SIZE, .flags = EXTENT,
                  .help = "points along y", .default_text = "nx", .min = 1,
                  .max = 0x1p40},
    [LAP_P_NZ] = {.name = "nz", .kind = KL_PARAM_SIZE, .flags = EXTENT,
                  .help = "points along z (slowest)", .default_text = "nx",
                  .min = 1, .max = 0x1p40},
    [LAP_P_HX] = {.name = "hx", .kind = KL_PARAM_REAL,
                  .help = "grid spacing along x; finite, nonzero",
                  .default_value = 1, .min = -DBL_MAX, .max = DBL_MAX},
    [LAP_P_HY] = {.name = "hy", .kind = KL_PARAM_REAL,
                  .help = "grid spacing along y; finite, nonzero",
                  .default_value = 1, .min = -DBL_MAX, .max = DBL_MAX},
    [LAP_P_HZ] = {.name = "hz", .kind = KL_PARAM_REAL,
                  .help = "grid spacing along z; finite, nonzero",
                  .default_value = 1, .min = -DBL_MAX, .max = DBL_MAX},
    /* 4, the best measured on the H100 for the tiled rungs (% of the
     * copy): kernel 3, bounded and streaming peak at m = 4 at 512^3, 256^3
     * and 257x129x65, f64 and f32, and kernel 2 does in f32 at 512^3 and
     * f64 at 256^3.
     * Kernel 2 alone differs: 2 in f64 at 512^3 (91% against 83% at 4),
     * 8 in f32 at 256^3 (86% against 85%). 4 serves the ladder's best
     * tiled rungs: m = 2 would give kernel 2 its 7.5 points in f64 at
     * 512^3 and cost the other three 1-5 points there, and every kernel
     * 2-13 points in f32. */
    [LAP_P_M] = {.name = "m", .kind = KL_PARAM_INT, .flags = KL_PARAM_TUNING,
                 .help = "points per thread along y of the tiled kernels (1, "
                         "2, 4, 8 or 16)",
                 .default_value = 4, .min = 1, .max = 16,
                 .tune_values = "1,2,4,8,16"},
    /* 0: each z-marching kernel's chunk as measured best (LESSONS.md,
     * "What did not work"): on the H100 8 planes for cuda-zmarch, 4 for
     * the vector kernel, 16 for the shared-memory one; on the H200 10 for
     * the prefetching one. */
    [LAP_P_PLANES] = {.name = "planes", .kind = KL_PARAM_INT,
                      .flags = KL_PARAM_TUNING,
                      .help = "planes per chunk of the z-marching GPU "
                              "rungs (0: each kernel's measured best)",
                      .default_value = 0, .min = 0, .max = 65536,
                      .tune_values = "0,2,4,6,8,12,16,32"},
};

/* No interior at all (1x1x1, 2x2x2, and 2x5x7, 5x3x2: one extent of 2),
 * the smallest interior (3x3x3: one point), odd shapes past a vector's
 * and a cache line's width, rows a multiple of 4 points wide (4x3x3,
 * 68x21x37: the vector rungs' 16-byte path), and unequal, non-unit
 * spacings. */
static const kl_test_problem tests[] = {
    {"nx=1,ny=1,nz=1", 0},
    {"nx=2,ny=2,nz=2", 0},
    {"nx=3,ny=3,nz=3", 0},
    {"nx=3,ny=3,nz=3,hx=0.5,hy=2,hz=0.25", 0},
    {"nx=2,ny=5,nz=7", 0},
    {"nx=5,ny=3,nz=2,hx=0.1", 0},
    {"nx=33,ny=17,nz=9", 0},
    {"nx=33,ny=17,nz=9,hx=0.5,hy=2,hz=0.25", 0},
    {"nx=257,ny=129,nz=65,hx=0.01,hy=0.03,hz=0.7", 0},
    {"nx=4,ny=3,nz=3", 0},
    {"nx=68,ny=21,nz=37,hx=0.3", 0},
    /* Rows long enough that openmp-blocked cuts 11 rows into blocks of 2
     * (f64) or 4 (f32) against a 2 MiB L2, the last one short. */
    {"nx=20001,ny=13,nz=4", 0},
    /* The tiled rungs at the values of m besides the default, on grids
     * whose last tile the edge cuts (ny not a multiple of m), one with
     * fewer rows than m; the others read no m and run them as above. */
    {"nx=33,ny=17,nz=9,m=1", 0},
    {"nx=33,ny=17,nz=9,hx=0.5,hy=2,hz=0.25,m=2", 0},
    {"nx=68,ny=21,nz=37,hx=0.3,m=8", 0},
    {"nx=33,ny=21,nz=9,m=16", 0},
    {"nx=4,ny=3,nz=3,m=16", 0},
    {NULL, 0}};
/* None: more than 2^31 points need u, f and f's copy for the check, 3 x
 * 2^31 x 4 bytes = 26 GB in f32, more than the 2-core test machine's
 * memory; the CUDA rungs' big test comes with them. */
static const kl_test_problem big_tests[] = {{NULL, 0}};

/* The wisdom's size of an nx x ny x nz grid: the side of the cube of as
 * many points, as `kladder tune` sweeps cubes; ny or nz not given: nx. */
static int64_t wisdom_size(int64_t nx, const double *value) {
  const double ny = value[LAP_P_NY] >= 1 ? value[LAP_P_NY] : (double)nx;
  const double nz = value[LAP_P_NZ] >= 1 ? value[LAP_P_NZ] : (double)nx;
  return (int64_t)llround(cbrt((double)nx * ny * nz));
}

const kl_workload kl__workload_laplacian = {
    .name = "laplacian",
    .summary = "f = del^2 u, the 7-point stencil on an nx x ny x nz grid",
    .tolerance = "interior |f - ref| <= (gamma_12(u) + 2^-58) M + 8 "
                 "subnormal_min, M = sum of the 7 terms' |coefficient x u|, "
                 "ref in long double; boundary bit for bit as before the run",
    .source = "seed 002, Finite difference method - Laplacian part 2",
    .metric = KL_METRIC_GBS,
    .unit = "GB/s",
    .types = FLOATS,
    .default_type = KL_F64,
    .params = kl__laplacian_params,
    .param_count = LAP_PARAMS,
    .ceiling = {KL_CEILING_RUNG, &kl__workload_stream, NULL},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
    .retired = retired,
    .wisdom_size = wisdom_size,
};

kl_status kl_laplacian(kl_context *ctx, kl_type type, int64_t nx,
                       int64_t ny, int64_t nz, double hx, double hy,
                       double hz, const void *u, void *f,
                       int data_on_device) {
  if (nx < 1 || ny < 1 || nz < 1)
    return kl__usage(KL_USAGE, "kl_laplacian: nx, ny and nz must be at least "
                     "1 (got %lld, %lld, %lld)", (long long)nx, (long long)ny,
                     (long long)nz);
  const double h[3] = {hx, hy, hz};
  for (int a = 0; a < 3; a++)
    if (h[a] == 0 || !isfinite(h[a]))
      return kl__usage(KL_USAGE, "kl_laplacian: spacing h%s = %g must be "
                       "finite and nonzero", axes[a], h[a]);
  /* %.17g gives the spacings back exactly. */
  char params[256];
  snprintf(params, sizeof params, "ny=%lld,nz=%lld,hx=%.17g,hy=%.17g,hz=%.17g",
           (long long)ny, (long long)nz, hx, hy, hz);
  kl_problem pb = {.size = sizeof pb,
                   .n = nx, .type = type, .params = params};
  void *buffers[2] = {(void *)u, f};
  return kl__done(kl__run_library(ctx, &kl__workload_laplacian, &pb,
                                  buffers, data_on_device));
}
