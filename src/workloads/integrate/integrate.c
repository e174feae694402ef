#include <float.h>
#include <math.h>
#include <stdio.h>

#include "integrate.h"
#include "../../registry.h"

double kl__integrate_length(void) { return INTEGRATE_PERIODS * INTEGRATE_PI; }

static kl_status plan(kl_plan *p) {
  /* Past 2^40 points the summation bound gamma_n L grows beyond 15 and a
   * serial run would take hours; below it, (i + 0.5) is exact in double. */
  if (p->n > INTEGRATE_MAX_N)
    return kl__usage(KL_USAGE,
                     "integrate: n = %lld points is more than 2^40 = %lld",
                     (long long)p->n, (long long)INTEGRATE_MAX_N);
  p->buffer_count = 1;
  p->buffers[INTEGRATE_OUT] =
      (kl_buffer_spec){"integral", KL_F64, 1, KL_OUT, KL_MEM_DEVICE, 0};
  p->constant_count = 1;
  p->constants[INTEGRATE_H] = kl__integrate_length() / (double)p->n;
  return KL_OK;
}

/* No inputs: the points are a function of n alone. */
static void init(const kl_plan *p, void *const *host) {
  (void)p;
  (void)host;
}

/* ---- the check ------------------------------------------------------------
 * Reference. f(x) = sin^2(2x) cos^2(x) = (1 + cos2x/2 - cos4x - cos6x/2)/4.
 * Over the n midpoints of [0, L], L = 40000 pi, h = L/n, the terms cos(kx)
 * sum to zero unless kh is a multiple of 2 pi, i.e. unless n divides
 * 20000k; then each point gives (-1)^m, m = 20000k/n. So the midpoint sum
 * in exact arithmetic is
 *     M_n = 10000 pi (1 + d2/2 - d4 - d6/2),
 *     dk = (-1)^m if n divides 20000k, else 0:
 * the integral 10000 pi itself for every n that does not divide 120000 (the
 * seed's 1e8 among them), but 0 for n = 1, 2, 32 or 64, where every point
 * lands on a zero of f. The result is compared with M_n.
 *
 * Bound: |I - M_n| <= B = G + E + S + H, with u_d = 2^-53, u_T the unit
 * roundoff of the evaluation type, gamma_k = k u/(1 - k u), and f <= 16/27.
 *  H  the step and the last product: h^ = fl(fl(40000 fl(pi))/n) is within
 *     gamma_3 of h and I = fl(h^ sum) rounds once, so H = 5 u_d L.
 *  S  summing n values in double, in any order or tree, errs by at most
 *     gamma_n sum|f^_i| (Higham, Accuracy and Stability of Numerical
 *     Algorithms, ch. 4); times h, with f^ <= 1: S = gamma_n L.
 *  E  evaluation, per point, times n h = L. CUDA documents sin, cos, sinf,
 *     cosf, sincos and sincosf at 2 ulp over their whole range (glibc: 1),
 *     so each result is s(1 + e), |e| <= 4u (2 ulp <= 4u|s| for a normal s;
 *     none here is subnormal); 2x is exact in binary.
 *     PLAIN (s*s)*(c*c): s and c each twice, three roundings:
 *       (1 + 4u)^4 (1 + u)^3 - 1 = 19u + O(u^2) <= 20u, E = 20 u_T L.
 *     SINCOS 4 (s*s) ((c*c)(c*c)): s twice, c four times, four roundings
 *       (times 4 is exact): 28u + O(u^2) <= 29u, E = 29 u_T L.
 *     FAST (f32) absolute: __sinf, __cosf err by at most 2^-21.41, 2^-21.19
 *       on [-pi, pi]; the partial derivatives of S^2 C^2, 2 S C^2 and
 *       2 S^2 C, are at most 2, so 2.0001 (2^-21.41 + 2^-21.19) covers them
 *       with the second-order terms. The reduced argument is within 2^-22
 *       of x^ - k pi (two roundings below 2^-24 each, a pi tail of 1e-19 k,
 *       the clamp inside pi/2 at most 7.6e-8), which costs |f'| 2^-22 <=
 *       2^-21; three float products add 3 u_f. E = (that + 4 u_f) L.
 *  G  the points. f' = (-sin2x + 4 sin4x + 3 sin6x)/4, so |f'| <= 2.
 *     f64: x^_i = fl((i + 0.5) h^) lies within gamma_4 x_i <= gamma_4 L of
 *       x_i: G = n h 2 gamma_4 L = 2 gamma_4 L^2 (1.4e-5), no computation.
 *     f32: rounding to float moves a point by up to 2^-8 near x = 1e5; the
 *       bound 2 u_f L^2 would be 1900, useless, while the real effect nearly
 *       cancels. So the grid's integral is computed on the host, in double,
 *       at the very float points the rungs use: I_g = h^ sum f(fl32(x^_i)).
 *       Its own error is at most H + S + 20 u_d L, so
 *       G = |I_g - M_n| + H + S + 20 u_d L. */

/* 2^-21.41 and 2^-21.19: CUDA's absolute error bounds for __sinf, __cosf. */
#define FAST_SIN_ERROR 3.5887879071499520e-07
#define FAST_COS_ERROR 4.1799818101693836e-07

static double gamma_k(double k, double u) { return k * u / (1 - k * u); }

double kl__integrate_midpoint_exact(int64_t n) {
  double sum = 1;
  const double weight[3] = {0.5, -1, -0.5}; /* of cos 2x, cos 4x, cos 6x */
  for (int j = 0; j < 3; j++) {
    int64_t m = 20000 * 2 * (j + 1);
    if (m % n == 0) sum += weight[j] * ((m / n) % 2 ? -1 : 1);
  }
  return 0.25 * kl__integrate_length() * sum;
}

/* The f32 grid's integral, once per n and thread (a library's callers may
 * check from several threads): n points of a double sin and cos, about 2 s
 * at n = 1e8 on 2 cores. */
static double grid_integral_f32(int64_t n, double h) {
  static _Thread_local int64_t cached_n = 0;
  static _Thread_local double cached = 0;
  if (cached_n == n) return cached;
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    double x = (float)(((double)i + 0.5) * h);
    double s = sin(2 * x), c = cos(x);
    sum += s * s * (c * c);
  }
  cached = sum * h;
  cached_n = n;
  return cached;
}

static double evaluation_error(int kernel, double u) {
  switch (kernel) {
  case INTEGRATE_SINCOS: return 29 * u;
  case INTEGRATE_FAST:
    return 2.0001 * (FAST_SIN_ERROR + FAST_COS_ERROR) + 0x1p-21 + 4 * u;
  default: return 20 * u;
  }
}

double kl__integrate_bound_f64(int kernel, double L, double sums) {
  const double ud = DBL_EPSILON / 2;
  return 2 * gamma_k(4, ud) * L * L + evaluation_error(kernel, ud) * L +
         gamma_k(sums, ud) * L + 5 * ud * L;
}

static void result_element(const void *ctx, int64_t i, kl_element *e) {
  (void)i;
  *e = *(const kl_element *)ctx;
}

void kl__integrate_verdict(double got, double exact, double bound,
                           kl_verdict *v) {
  const kl_element e = {got, exact, bound};
  kl__check_elements(1, result_element, &e, v);
  if (v->bad_count)
    snprintf(v->detail, sizeof v->detail,
             "integral: got %.17g, exact %.17g, |error| %.3g > bound %.3g",
             got, exact, fabs(got - exact), bound);
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)in;
  const double ud = DBL_EPSILON / 2, L = kl__integrate_length(), n = (double)p->n;
  const double exact = kl__integrate_midpoint_exact(p->n);
  double bound = kl__integrate_bound_f64(r->variant, L, n);
  if (p->type == KL_F32) {
    const double uT = FLT_EPSILON / 2;
    const double H = 5 * ud * L, S = gamma_k(n, ud) * L;
    const double E = evaluation_error(r->variant, uT) * L;
    const double G =
        fabs(grid_integral_f32(p->n, p->constants[INTEGRATE_H]) - exact) + H +
        S + 20 * ud * L;
    bound = G + E + S + H;
  }
  kl__integrate_verdict(((const double *)out[INTEGRATE_OUT])[0], exact, bound,
                        v);
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  c->bytes = sizeof(double);
  c->flops = INTEGRATE_FLOPS_PER_POINT * (double)p->n;
  c->items = (double)p->n;
}

static kl_status serial(const kl_args *a) {
  const int64_t n = a->plan->n;
  const double h = a->plan->constants[INTEGRATE_H];
  double sum = 0;
  if (a->plan->type == KL_F32)
    for (int64_t i = 0; i < n; i++) sum += kl__integrand_f32(i, h);
  else
    for (int64_t i = 0; i < n; i++) sum += kl__integrand_f64(i, h);
  ((double *)a->buffers[INTEGRATE_OUT])[0] = sum * h;
  return KL_OK;
}

#define FLOATS (KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64))

static const kl_rung rungs[] = {
    KL_RUNG("serial", serial, "one loop, double accumulator",
            .library = FLOATS, .variant = INTEGRATE_PLAIN, .run = serial),
    KL_RUNG("openmp", openmp, "parallel for with a sum reduction",
            .library = FLOATS, .variant = INTEGRATE_PLAIN,
            .run = kl__integrate_omp),
    KL_RUNG("cuda-atomic", gpu,
            "one global double atomicAdd per point, 256-thread blocks",
            .variant = INTEGRATE_PLAIN,
            .run = KL_GPU_FN(kl__integrate_gpu_atomic)),
    KL_RUNG("cuda-shared-atomic", gpu,
            "a shared-memory atomic per point, one global atomic per block",
            .variant = INTEGRATE_PLAIN,
            .run = KL_GPU_FN(kl__integrate_gpu_shared_atomic)),
    KL_RUNG("cuda-warp-shuffle", gpu,
            "1024-thread blocks, warp shuffles, a shared atomic per warp",
            .variant = INTEGRATE_PLAIN,
            .run = KL_GPU_FN(kl__integrate_gpu_warp_shuffle)),
    KL_RUNG("cuda-grid-stride", gpu, "as warp-shuffle, about 100 points per "
            "thread", .variant = INTEGRATE_PLAIN,
            .run = KL_GPU_FN(kl__integrate_gpu_grid_stride)),
    KL_RUNG("cuda-partials-host", gpu,
            "one partial sum per warp, summed on the host",
            .variant = INTEGRATE_PLAIN,
            .scratch = KL_GPU_FN(kl__integrate_gpu_partials_scratch),
            .run = KL_GPU_FN(kl__integrate_gpu_partials_host)),
    KL_RUNG("cuda-partials-device", gpu, "one partial sum per warp, summed "
            "by a second kernel with 16-byte loads",
            .variant = INTEGRATE_PLAIN,
            .scratch = KL_GPU_FN(kl__integrate_gpu_partials_scratch),
            .run = KL_GPU_FN(kl__integrate_gpu_partials_device)),
    KL_RUNG("cuda-fast", gpu,
            "__sinf/__cosf after reducing x by the period pi (f32)",
            .variant = INTEGRATE_FAST, .types = KL_TYPE_BIT(KL_F32),
            .run = KL_GPU_FN(kl__integrate_gpu_fast)),
    KL_RUNG("cuda-best", gpu, "persistent grid, one sincos per point, one "
            "pass with a last block", .library = FLOATS,
            .variant = INTEGRATE_SINCOS,
            .scratch = KL_GPU_FN(kl__integrate_gpu_best_scratch),
            .run = KL_GPU_FN(kl__integrate_gpu_best)),
    KL_RUNG("cuda-cub", gpu,
            "cub::DeviceReduce::TransformReduce over a counting iterator",
            .flags = KL_RUNG_VENDOR, .variant = INTEGRATE_PLAIN,
            .scratch = KL_GPU_CUB_FN(kl__integrate_gpu_cub_scratch),
            .run = KL_GPU_CUB_FN(kl__integrate_gpu_cub)),
};

static const kl_param params[] = {
    {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
     .help = "midpoints", .default_value = 100000000, /* the seed's 1e8 */
     .quick_host_default = 10000000,
     .min = 1, .max = (double)INTEGRATE_MAX_N, .step = 1 << 20},
};

/* n = 1, 2, 32 and 64 put every point on a zero of f; 1000003 is none of
 * the special divisors of 120000. */
static const kl_test_problem tests[] = {
    {NULL, 1}, {NULL, 2}, {NULL, 31}, {NULL, 32}, {NULL, 33}, {NULL, 63},
    {NULL, 64}, {NULL, 65}, {NULL, 1000003}, {NULL, 0}};
static const kl_test_problem big_tests[] = {{NULL, 2147483651}, {NULL, 0}};

const kl_workload kl__workload_integrate = {
    .name = "integrate",
    .summary = "midpoint rule for the integral of sin^2(2x)cos^2(x) on "
               "[0, 40000 pi]",
    .tolerance = "|I - M_n| <= G + E + S + H: point rounding, sin/cos at "
                 "2 ulp, gamma_n summation; M_n = 10000 pi unless n | 120000",
    .source = "seed 000 section 3.3",
    .metric = KL_METRIC_GITEMS,
    .unit = "Gpt/s",
    .types = FLOATS,
    .default_type = KL_F64,
    .params = params,
    .param_count = 1,
    .ceiling = {KL_CEILING_VENDOR, NULL, NULL},
    .plan = plan,
    .init = init,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
};
