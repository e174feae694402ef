/* gemm: the workload (shape, inputs, check, cost), the serial rungs and the
 * ladder. The verification rule is derived in docs/workloads/gemm.md ("The
 * check"). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "kladder-gemm.h"

static const char *const leads[] = {"lda", "ldb", "ldc"};

/* Elements a column-major matrix needs: the BLAS minimum, so that a user's
 * array of exactly that size is never read past its end. */
static int64_t matrix_count(int64_t rows, int64_t cols, int64_t ld) {
  return ld * (cols - 1) + rows;
}

static kl_status plan(kl_plan *p) {
  double *v = p->value;
  /* m and k follow n where not given; each leading dimension the rows of
   * its matrix. */
  if (!(p->given >> GEMM_P_M & 1)) v[GEMM_P_M] = (double)p->n;
  if (!(p->given >> GEMM_P_K & 1)) v[GEMM_P_K] = (double)p->n;
  v[GEMM_P_N] = (double)p->n;
  const int64_t m = (int64_t)v[GEMM_P_M], n = p->n, k = (int64_t)v[GEMM_P_K];
  const int64_t rows[3] = {m, k, m}, cols[3] = {k, n, n};
  /* Beyond 2^40 a side, products of extents could overflow int64. */
  const int64_t limit = INT64_C(1) << 40;
  if (n > limit)
    return kl__usage(KL_TOO_LARGE, "gemm: extent n = %lld is too large",
                     (long long)n);
  for (int i = 0; i < 3; i++) {
    double *ld = &v[GEMM_P_LDA + i];
    if (!(p->given >> (GEMM_P_LDA + i) & 1)) *ld = (double)rows[i];
    if ((int64_t)*ld < rows[i])
      return kl__usage(KL_USAGE, "gemm: %s = %lld is smaller than the rows "
                       "of its matrix (%lld)", leads[i], (long long)*ld,
                       (long long)rows[i]);
    if (*ld > (double)limit || *ld * (double)cols[i] > 0x1p61)
      return kl__usage(KL_TOO_LARGE, "gemm: %s = %lld makes its matrix too "
                       "large", leads[i], (long long)*ld);
  }
  static const char *const names[3] = {"A", "B", "C"};
  static const kl_role roles[3] = {KL_IN, KL_IN, KL_INOUT};
  p->buffer_count = 3;
  for (int i = 0; i < 3; i++)
    p->buffers[i] = (kl_buffer_spec){
        names[i], p->type,
        matrix_count(rows[i], cols[i], (int64_t)v[GEMM_P_LDA + i]), roles[i],
        KL_MEM_DEVICE, 0};
  return KL_OK;
}

/* ---- inputs -------------------------------------------------------------- */

/* Fill the rows of a column-major matrix with uniform values in [-1, 1)
 * and the gap rows below them (up to ld) with `gap`. */
static void fill_matrix(kl_type t, void *x, int64_t rows, int64_t cols,
                        int64_t ld, uint64_t seed, uint64_t stream,
                        double gap) {
  const int64_t count = matrix_count(rows, cols, ld);
  kl__fill_uniform(t, x, count, seed, stream, -1, 1);
  if (ld == rows) return;
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < cols - 1; j++)
    for (int64_t i = rows; i < ld; i++) {
      if (t == KL_F32) ((float *)x)[i + j * ld] = (float)gap;
      else ((double *)x)[i + j * ld] = gap;
    }
}

static void init(const kl_plan *p, void *const *host) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  fill_matrix(p->type, host[GEMM_A], s.m, s.k, s.lda, p->seed, GEMM_A, NAN);
  fill_matrix(p->type, host[GEMM_B], s.k, s.n, s.ldb, p->seed, GEMM_B, NAN);
  /* C's gap rows keep a known value the check looks for; with beta = 0 C
   * is not an input, and NaN in it must not reach the result. */
  fill_matrix(p->type, host[GEMM_C], s.m, s.n, s.ldc, p->seed, GEMM_C, 7.0);
  if (s.beta == 0) {
    const int64_t cols = s.n;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < cols; j++)
      for (int64_t i = 0; i < s.m; i++) {
        if (p->type == KL_F32) ((float *)host[GEMM_C])[i + j * s.ldc] = NAN;
        else ((double *)host[GEMM_C])[i + j * s.ldc] = NAN;
      }
  }
}

/* ---- the check ------------------------------------------------------------
 * Every element of C against ref = alpha A B + beta C0 within
 *   tol_ij = (gamma_(k+3)(u) + u_ref) * mag_ij + (k + 3) eta,
 *   mag = |alpha| |A| |B| + |beta| |C0|, gamma_j(u) = j u / (1 - j u),
 * u the unit roundoff of the type, eta its smallest subnormal (gradual
 * underflow): any order of the k products and sums,
 * with or without FMA, and the scalings by alpha and beta, stays inside
 * it (Higham, Accuracy and Stability, 3.5). Up to EXACT_WORK multiply-adds
 * the reference is summed in long double (u_ref: its rounding to double);
 * beyond, it comes from a double-precision GEMM (cuBLAS on the GPU, else
 * OpenBLAS, else a plain loop), whose own error adds gamma_(k+3)(2^-53),
 * and 1024 elements at random are also checked against long double. */
#define EXACT_WORK (INT64_C(1) << 30)
#define SAMPLES 1024

static double gamma_of(double j, double u) { return j * u / (1 - j * u); }

static double unit_roundoff(kl_type t) {
  return t == KL_F32 ? 0x1p-24 : 0x1p-53;
}

static double element(const kl_plan *p, const void *x, int64_t i) {
  return (double)kl__element(p->type, x, i);
}

void kl__gemm_widen(kl_type t, const void *src, int64_t ld, int64_t rows,
                    int64_t cols, int absolute, double *dst) {
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++) {
      const double x = t == KL_F32 ? (double)((const float *)src)[i + j * ld]
                                   : ((const double *)src)[i + j * ld];
      dst[i + j * rows] = absolute ? fabs(x) : x;
    }
}

/* ref and mag of one column of C in long double. */
static void exact_column(const kl_plan *p, void *const *in, int64_t j,
                         long double *sum, long double *mag, double *ref_out,
                         double *mag_out) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  for (int64_t i = 0; i < s.m; i++) sum[i] = mag[i] = 0;
  for (int64_t q = 0; q < s.k; q++) {
    const long double b = element(p, in[GEMM_B], q + j * s.ldb);
    for (int64_t i = 0; i < s.m; i++) {
      const long double x = b * element(p, in[GEMM_A], i + q * s.lda);
      sum[i] += x;
      mag[i] += fabsl(x);
    }
  }
  for (int64_t i = 0; i < s.m; i++) {
    long double r = (long double)s.alpha * sum[i];
    long double g = fabsl((long double)s.alpha) * mag[i];
    if (s.beta != 0) {
      const long double c = element(p, in[GEMM_C], i + j * s.ldc);
      r += (long double)s.beta * c;
      g += fabsl((long double)s.beta * c);
    }
    ref_out[i] = (double)r;
    mag_out[i] = (double)g;
  }
}

/* One element in long double: for the samples of a large problem. */
static void exact_element(const kl_plan *p, void *const *in, int64_t i,
                          int64_t j, double *ref, double *mag) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  long double sum = 0, g = 0;
  for (int64_t q = 0; q < s.k; q++) {
    const long double x = (long double)element(p, in[GEMM_A], i + q * s.lda) *
                          element(p, in[GEMM_B], q + j * s.ldb);
    sum += x;
    g += fabsl(x);
  }
  long double r = (long double)s.alpha * sum;
  g *= fabsl((long double)s.alpha);
  if (s.beta != 0) {
    const long double c = element(p, in[GEMM_C], i + j * s.ldc);
    r += (long double)s.beta * c;
    g += fabsl((long double)s.beta * c);
  }
  *ref = (double)r;
  *mag = (double)g;
}

/* The last reference made, reused by the next rung of the same problem:
 * a large one costs a GEMM on the GPU, a small one seconds of long double.
 * Keyed by the plan and a fingerprint of the inputs, since the same plan
 * may be filled on the host or on a device. */
typedef struct reference {
  uint64_t key;
  double *ref, *mag; /* m x n, leading dimension m */
  int exact;         /* summed in long double */
} reference;

static _Thread_local reference cached;

static uint64_t mix(uint64_t h, uint64_t x) { return kl__hash(h, 17, x); }

static uint64_t fingerprint(const kl_plan *p, void *const *in) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  uint64_t h = mix(0, (uint64_t)p->type);
  const int64_t ints[6] = {s.m, s.n, s.k, s.lda, s.ldb, s.ldc};
  for (int i = 0; i < 6; i++) h = mix(h, (uint64_t)ints[i]);
  uint64_t bits;
  memcpy(&bits, &s.alpha, sizeof bits);
  h = mix(h, bits);
  memcpy(&bits, &s.beta, sizeof bits);
  h = mix(h, bits);
  for (int b = 0; b < 3; b++) {
    const int64_t count = p->buffers[b].count;
    const int64_t step = count > 4096 ? count / 4096 : 1;
    for (int64_t i = 0; i < count; i += step) {
      double x = element(p, in[b], i);
      memcpy(&bits, &x, sizeof bits);
      h = mix(h, bits);
    }
  }
  return h;
}

typedef kl_status (*reference_fn)(const kl_plan *p, void *const *in,
                                  double *ref, double *mag);

static kl_status reference_for(const kl_plan *p, const kl_rung *r,
                               void *const *in, reference **out) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  const uint64_t key = fingerprint(p, in);
  *out = &cached;
  if (cached.ref && cached.key == key) return KL_OK;
  free(cached.ref);
  free(cached.mag);
  memset(&cached, 0, sizeof cached);
  const size_t count = (size_t)s.m * (size_t)s.n;
  double *ref = malloc(count * sizeof *ref), *mag = malloc(count * sizeof *mag);
  if (!ref || !mag) {
    free(ref);
    free(mag);
    return KL_FAIL(KL_NO_MEMORY, "gemm: no host memory for the reference");
  }
  kl_status st = KL_UNAVAILABLE;
  int exact = (double)s.m * (double)s.n * (double)s.k <= (double)EXACT_WORK;
  if (!exact) {
    /* The engines this build has: a GPU BLAS for rungs on a device, else
     * OpenBLAS. */
    reference_fn device = KL_GPU_BLAS_FN(kl__gemm_reference_device);
    reference_fn host = KL_OPENBLAS_FN(kl__gemm_reference_openblas);
    if (device && !kl_backend_host_memory(r->backend))
      st = device(p, in, ref, mag);
    if (st == KL_UNAVAILABLE && host) st = host(p, in, ref, mag);
    if (st != KL_OK && st != KL_UNAVAILABLE) {
      free(ref);
      free(mag);
      return st;
    }
    /* No fast engine here: sum in long double, however long it takes. */
    exact = st == KL_UNAVAILABLE;
  }
  if (exact) {
    int failed = 0;
#pragma omp parallel
    {
      long double *sum = malloc((size_t)s.m * sizeof *sum);
      long double *g = malloc((size_t)s.m * sizeof *g);
      if (!sum || !g) {
#pragma omp atomic write
        failed = 1;
      }
#pragma omp for schedule(dynamic, 1)
      for (int64_t j = 0; j < s.n; j++)
        if (sum && g)
          exact_column(p, in, j, sum, g, ref + j * s.m, mag + j * s.m);
      free(sum);
      free(g);
    }
    if (failed) {
      free(ref);
      free(mag);
      return KL_FAIL(KL_NO_MEMORY, "gemm: no host memory for the reference");
    }
  }
  cached = (reference){key, ref, mag, exact};
  return KL_OK;
}

typedef struct tally {
  int64_t checked, bad, first_bad;
  double max_error, abs_error;
  int64_t unverifiable;
} tally;

/* Compare one element; returns nonzero when it is outside tolerance. An
 * element equal to its reference passes, infinities of the same sign too
 * (a result beyond the type's range overflows alike in both). Otherwise a
 * tolerance that overflowed (scalars so large that |alpha| |A| |B| passes
 * the largest double) bounds nothing: the element cannot be verified and
 * is counted so (the verdict says UNVERIFIABLE), neither passed nor
 * failed, unless one side is a NaN the other is not. */
static int judge(tally *t, double got, double want, double tol) {
  t->checked++;
  if (got == want) return 0;
  const double err = fabs(got - want);
  if (err > t->abs_error || err != err) t->abs_error = err;
  if (!isfinite(tol) && isnan(got) == isnan(want)) {
    t->unverifiable++;
    return 0;
  }
  const double ratio = isfinite(tol) ? err / tol : INFINITY;
  if (ratio > t->max_error || ratio != ratio) t->max_error = ratio;
  return !(err <= tol) || !isfinite(tol);
}

/* Gradual underflow: each of the k + 3 roundings may also lose up to half
 * the smallest subnormal of the type whatever the magnitudes (with a tiny
 * alpha the results lie on the subnormal grid, where the relative bound
 * alone fails); a whole subnormal each, as half of double's is not a
 * double. */
static double underflow_floor(const kl_plan *p, int64_t k) {
  return ((double)k + 3) * (p->type == KL_F32 ? 0x1p-149 : 0x1p-1074);
}

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  reference *rf = NULL;
  kl_status st = reference_for(p, r, in, &rf);
  if (st != KL_OK) {
    kl__verdict_set(v, 0, 1, 0, INFINITY, INFINITY);
    snprintf(v->detail, sizeof v->detail, "no reference: %s", kl_last_error());
    return;
  }
  const double u = unit_roundoff(p->type);
  const double exact_factor = gamma_of((double)s.k + 3, u) + 0x1p-53;
  const double factor =
      exact_factor + (rf->exact ? 0 : gamma_of((double)s.k + 3, 0x1p-53));
  const double tiny = underflow_floor(p, s.k);
  const void *c = out[GEMM_C];
  tally total = {0, 0, -1, 0, 0, 0};
  char detail[160] = "";
#pragma omp parallel
  {
    tally mine = {0, 0, -1, 0, 0, 0};
#pragma omp for schedule(static)
    for (int64_t j = 0; j < s.n; j++) {
      for (int64_t i = 0; i < s.m; i++) {
        const int64_t at = i + j * s.ldc;
        if (judge(&mine, element(p, c, at), rf->ref[i + j * s.m],
                  factor * rf->mag[i + j * s.m] + tiny) &&
            mine.bad++ == 0)
          mine.first_bad = at;
      }
      /* The gap rows of C are nobody's: they must come back as they were. */
      for (int64_t i = s.m; j < s.n - 1 && i < s.ldc; i++) {
        const int64_t at = i + j * s.ldc;
        const size_t size = kl_type_size(p->type);
        mine.checked++;
        if (memcmp((const char *)c + at * (int64_t)size,
                   (const char *)in[GEMM_C] + at * (int64_t)size, size) != 0 &&
            mine.bad++ == 0)
          mine.first_bad = at;
      }
    }
#pragma omp critical
    {
      total.checked += mine.checked;
      total.bad += mine.bad;
      total.unverifiable += mine.unverifiable;
      if (mine.bad && (total.first_bad < 0 || mine.first_bad < total.first_bad))
        total.first_bad = mine.first_bad;
      if (mine.max_error > total.max_error || mine.max_error != mine.max_error)
        total.max_error = mine.max_error;
      if (mine.abs_error > total.abs_error) total.abs_error = mine.abs_error;
    }
  }
  int64_t sampled_bad = 0;
  if (!rf->exact) {
    /* The samples hold the rung to the exact rule, independent of the
     * double-precision engine. */
    tally samples = {0, 0, -1, 0, 0, 0};
    for (int q = 0; q < SAMPLES; q++) {
      const uint64_t h = kl__hash(p->seed, 99, (uint64_t)q);
      const int64_t i = (int64_t)(h % (uint64_t)s.m);
      const int64_t j = (int64_t)((h >> 32) % (uint64_t)s.n);
      double want, mag;
      exact_element(p, in, i, j, &want, &mag);
      if (judge(&samples, element(p, c, i + j * s.ldc), want,
                exact_factor * mag + tiny) &&
          samples.bad++ == 0)
        samples.first_bad = i + j * s.ldc;
    }
    sampled_bad = samples.bad;
    if (samples.bad && total.first_bad < 0) total.first_bad = samples.first_bad;
    if (samples.max_error > total.max_error) total.max_error = samples.max_error;
    snprintf(detail, sizeof detail, "reference: double GEMM, and %d elements "
             "in long double (%lld outside)", SAMPLES, (long long)samples.bad);
  }
  kl__verdict_set(v, total.checked, total.bad + sampled_bad, total.first_bad,
                  total.max_error, total.abs_error);
  if (v->bad_count && total.first_bad >= 0) {
    const int64_t at = total.first_bad, j = at / s.ldc, i = at % s.ldc;
    if (i < s.m)
      snprintf(v->detail, sizeof v->detail, "C(%lld,%lld) = %.17g, expected "
               "%.17g within %.3g", (long long)i, (long long)j,
               element(p, c, at), rf->ref[i + j * s.m],
               factor * rf->mag[i + j * s.m] + tiny);
    else
      snprintf(v->detail, sizeof v->detail, "C(%lld,%lld) lies below the m = "
               "%lld rows and was written", (long long)i, (long long)j,
               (long long)s.m);
  } else {
    snprintf(v->detail, sizeof v->detail, "%s", detail);
  }
  kl__verdict_unverifiable(v, total.unverifiable, "the bound |alpha| |A| |B| "
                           "+ |beta| |C| overflows the type's range");
}

static void cost(const kl_plan *p, const kl_rung *r, const double *counts,
                 kl_cost *c) {
  (void)r, (void)counts;
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  const double m = (double)s.m, n = (double)s.n, k = (double)s.k;
  c->flops = 2 * m * n * k;
  c->bytes = (double)kl_type_size(p->type) *
             (m * k + k * n + m * n * (s.beta != 0 ? 2 : 1));
  c->items = m * n;
}

/* ---- serial rungs: gemm-serial-body.h once per type --------------------- */
#define T float
#define GEMM_NAME(name) name##_f32
#include "gemm-serial-body.h"
#undef T
#undef GEMM_NAME
#define T double
#define GEMM_NAME(name) name##_f64
#include "gemm-serial-body.h"
#include "../../registry.h"
#undef T
#undef GEMM_NAME

static kl_status serial_naive(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  if (a->plan->type == KL_F32)
    naive_f32(s, a->buffers[GEMM_A], a->buffers[GEMM_B], a->buffers[GEMM_C]);
  else
    naive_f64(s, a->buffers[GEMM_A], a->buffers[GEMM_B], a->buffers[GEMM_C]);
  return KL_OK;
}

static kl_status serial_ordered(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  if (a->plan->type == KL_F32)
    ordered_f32(s, a->buffers[GEMM_A], a->buffers[GEMM_B], a->buffers[GEMM_C]);
  else
    ordered_f64(s, a->buffers[GEMM_A], a->buffers[GEMM_B], a->buffers[GEMM_C]);
  return KL_OK;
}

/* ---- the ladder ------------------------------------------------------------ */

#define FLOATS (KL_TYPE_BIT(KL_F32) | KL_TYPE_BIT(KL_F64))

/* The inputs made on the GPU by cuRAND (gemm-curand.cu), at the sizes
 * where the host would be slow; on any other backend (OpenCL's buffers
 * are not device pointers CUDA knows) init() makes them. */
static kl_status init_device(const kl_args *a) {
  kl_status (*on_gpu)(const kl_args *) = KL_GPU_RAND_FN(kl__gemm_init_device);
  if (!on_gpu || a->ctx->backend != &kl__backend_gpu) return KL_UNAVAILABLE;
  return on_gpu(a);
}

static const kl_rung rungs[] = {
    KL_RUNG("serial-naive", serial, "the seed's triple loop, a dot product "
            "per element, A walked along rows", .run = serial_naive),
    KL_RUNG("serial-loop-order", serial, "loops in j, k, i order: unit "
            "stride down columns of A and C", .library = FLOATS,
            .run = serial_ordered),
    KL_RUNG("openmp-blocked", openmp, "packed cache blocks, a SIMD register "
            "micro-kernel, threads over blocks of C", .library = FLOATS,
            .scratch = kl__gemm_omp_scratch, .run = kl__gemm_omp_blocked),
    KL_RUNG("openblas", openmp, "OpenBLAS cblas_?gemm on every host thread",
            .flags = KL_RUNG_VENDOR, .run = KL_OPENBLAS_FN(kl__gemm_openblas)),
    KL_RUNG("cuda-naive", gpu, "one element of C per thread, 8x8 blocks, "
            "grid-stride [dcu.cc]", .run = KL_GPU_FN(kl__gemm_gpu_naive)),
    KL_RUNG("cuda-shared-8", gpu, "8x8 tiles of A and B in shared memory "
            "[shared.cc]", .run = KL_GPU_FN(kl__gemm_gpu_shared8)),
    KL_RUNG("cuda-shared-16", gpu, "16x16 shared-memory tiles",
            .run = KL_GPU_FN(kl__gemm_gpu_shared16)),
    KL_RUNG("cuda-shared-32", gpu, "32x32 shared-memory tiles",
            .run = KL_GPU_FN(kl__gemm_gpu_shared32)),
    KL_RUNG("cuda-regtile-64x64", gpu, "64x64 tiles by 32x32 threads, 4 "
            "elements each in registers [more_elements.cc]",
            .run = KL_GPU_FN(kl__gemm_gpu_regtile_64x64)),
    KL_RUNG("cuda-regtile-128x16", gpu, "128x128 tiles 16 deep by 16x16 "
            "threads, 64 elements each [more_elements.cc]",
            .run = KL_GPU_FN(kl__gemm_gpu_regtile_128x16)),
    KL_RUNG("cuda-local-memory", gpu, "teaching rung: the register tile's "
            "accumulators indexed at run time, so in local memory",
            .run = KL_GPU_FN(kl__gemm_gpu_local_memory)),
    KL_RUNG("cuda-padded", gpu, "register tiles, shared arrays padded "
            "against bank conflicts", .run = KL_GPU_FN(kl__gemm_gpu_padded)),
    KL_RUNG("cuda-dynamic", gpu, "tile sized at run time, dynamic shared "
            "memory", .run = KL_GPU_FN(kl__gemm_gpu_dynamic)),
    KL_RUNG("cuda-pipelined", gpu, "register tiles fed by asynchronous "
            "copies into multi-buffered shared memory",
            .library = KL_TYPE_BIT(KL_F32),
            .tunings = KL_PARAM_BIT(GEMM_P_PIPELINED_TILE),
            .run = KL_GPU_FN(kl__gemm_gpu_pipelined)),
    KL_RUNG("cuda-rescheduled", gpu, "cuda-pipelined's float kernels with "
            "their FFMAs reordered in SASS after ptxas, for the operand "
            "reuse cache and the register banks (sm_90)",
            .types = KL_TYPE_BIT(KL_F32),
            .tunings = KL_PARAM_BIT(GEMM_P_PIPELINED_TILE),
            .setup = KL_SASS_FN(kl__gemm_gpu_rescheduled_setup),
            .teardown = KL_SASS_FN(kl__gemm_gpu_rescheduled_teardown),
            .run = KL_SASS_FN(kl__gemm_gpu_rescheduled)),
    KL_RUNG("cuda-dmma", gpu, "FP64 tensor cores: mma.sync m16n8k8, 128x128 "
            "tiles, 4-stage cp.async pipeline", .types = KL_TYPE_BIT(KL_F64),
            .library = KL_TYPE_BIT(KL_F64),
            .tunings = KL_PARAM_BIT(GEMM_P_DMMA_TILE) |
                       KL_PARAM_BIT(GEMM_P_DMMA_PERSIST),
            .run = KL_NVIDIA_FN(kl__gemm_gpu_dmma)),
    KL_RUNG("cuda-cublas", gpu, "cuBLAS ?gemm, default math (no TF32)",
            .flags = KL_RUNG_VENDOR,
            .setup = KL_GPU_BLAS_FN(kl__gemm_gpu_cublas_setup),
            .teardown = KL_GPU_BLAS_FN(kl__gemm_gpu_cublas_teardown),
            .run = KL_GPU_BLAS_FN(kl__gemm_gpu_cublas)),
    KL_RUNG("opencl-local", opencl, "16x16 tiles of A and B in local memory",
            .peer = "cuda-shared-16", .setup = KL_CL_FN(kl__gemm_cl_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__gemm_cl_local)),
    KL_RUNG("opencl-regtile", opencl, "register tiles: a 128x128 block of "
            "C per group, 8x8 outputs per item, A and B tiles in local "
            "memory (a CPU: 32x32 and 4x4, operands from global memory)",
            .peer = "cuda-regtile-128x16",
            .setup = KL_CL_FN(kl__gemm_cl_regtile_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__gemm_cl_regtile)),
    KL_RUNG("opencl-pipelined", opencl, "opencl-regtile's blocks with "
            "cuda-pipelined's steps: 4-wide strips an item read from local "
            "memory as float4, float4 global loads and no bounds checks "
            "when the shape allows, two local stages filled from registers "
            "(one barrier a k-step)",
            .peer = "cuda-pipelined",
            .setup = KL_CL_FN(kl__gemm_cl_pipelined_setup),
            .teardown = KL_CL_FN(kl__cl_teardown),
            .run = KL_CL_FN(kl__gemm_cl_pipelined)),
};

static const char *const dmma_tiles[] = {"auto", "128x128", "128x64",
                                         "64x128", "64x64", NULL};
static const char *const persists[] = {"auto", "off", "on", NULL};
static const char *const f32_tiles[] = {"auto", "128x128", "128x64",
                                        "256x128", NULL};

#define EXTENT (KL_PARAM_EXTENT)
static const kl_param params[GEMM_P_COUNT] = {
    [GEMM_P_M] = {.name = "m", .kind = KL_PARAM_SIZE, .flags = EXTENT,
                  .help = "rows of A and C", .default_text = "n", .min = 1,
                  .max = 0x1p40},
    [GEMM_P_N] = {.name = "n", .kind = KL_PARAM_SIZE,
                  .flags = KL_PARAM_MAIN_SIZE | EXTENT,
                  .help = "columns of B and C; the default of m and k",
                  .default_value = 8192, .host_default = 1024, .min = 1,
                  .quick_default = 4096, .quick_host_default = 512,
                  .max = 0x1p40, .step = 256},
    [GEMM_P_K] = {.name = "k", .kind = KL_PARAM_SIZE, .flags = EXTENT,
                  .help = "columns of A, rows of B", .default_text = "n",
                  .min = 1, .max = 0x1p40},
    [GEMM_P_LDA] = {.name = "lda", .kind = KL_PARAM_SIZE,
                    .flags = KL_PARAM_LEAD, .help = "leading dimension of A",
                    .default_text = "m", .min = 1, .max = 0x1p40},
    [GEMM_P_LDB] = {.name = "ldb", .kind = KL_PARAM_SIZE,
                    .flags = KL_PARAM_LEAD, .help = "leading dimension of B",
                    .default_text = "k", .min = 1, .max = 0x1p40},
    [GEMM_P_LDC] = {.name = "ldc", .kind = KL_PARAM_SIZE,
                    .flags = KL_PARAM_LEAD, .help = "leading dimension of C",
                    .default_text = "m", .min = 1, .max = 0x1p40},
    [GEMM_P_ALPHA] = {.name = "alpha", .kind = KL_PARAM_REAL,
                      .flags = KL_PARAM_SCALAR, .help = "scales A B",
                      .default_value = 1, .min = -DBL_MAX, .max = DBL_MAX},
    [GEMM_P_BETA] = {.name = "beta", .kind = KL_PARAM_REAL,
                     .flags = KL_PARAM_SCALAR,
                     .help = "scales C; 0: C is not read (BLAS)",
                     .default_value = 0, .min = -DBL_MAX, .max = DBL_MAX},
    /* auto: each rung's pick by the shape, as measured on the H100
     * (LESSONS.md, "What did not work"). */
    [GEMM_P_DMMA_TILE] = {.name = "dmma_tile", .kind = KL_PARAM_CHOICE,
                          .flags = KL_PARAM_TUNING,
                          .help = "cuda-dmma's tile of C (auto: 128x128 "
                                  "where 1.5 waves of them and k >= 512, "
                                  "else 64x64)",
                          .default_value = GEMM_DMMA_AUTO,
                          .choices = dmma_tiles},
    [GEMM_P_DMMA_PERSIST] = {.name = "dmma_persist", .kind = KL_PARAM_CHOICE,
                             .flags = KL_PARAM_TUNING,
                             .help = "cuda-dmma's persistent blocks (auto: "
                                     "short k past a wave of tiles)",
                             .default_value = GEMM_PERSIST_AUTO,
                             .choices = persists},
    [GEMM_P_PIPELINED_TILE] = {.name = "pipelined_tile",
                               .kind = KL_PARAM_CHOICE,
                               .flags = KL_PARAM_TUNING,
                               .help = "cuda-pipelined's f32 tile of C "
                                       "(auto: 256x128 where 1.5 waves of "
                                       "them, 128x128 where a wave, else "
                                       "128x64)",
                               .default_value = GEMM_F32_AUTO,
                               .choices = f32_tiles},
};

/* The shapes that break tiled kernels: one element, primes, a tile and
 * one, leading dimensions past the rows (odd ones rule out 16-byte
 * copies), scalars other than 1 and 0. */
static const kl_test_problem tests[] = {
    {"m=1,n=1,k=1", 0},
    {"m=7,n=5,k=3,alpha=-1.5,beta=0.75,lda=10,ldb=8,ldc=8", 0},
    {"m=64,n=64,k=64", 0},
    {"m=129,n=257,k=65,lda=131,ldb=67,ldc=130,alpha=2,beta=-1", 0},
    {"m=67,n=45,k=33,beta=1,alpha=0.5", 0},
    {NULL, 0}};
static const kl_test_problem big_tests[] = {{NULL, 0}};

/* The wisdom's size of an m x n x k product: the side of the square of
 * its flops, as `kladder tune` sweeps squares; m or k not given: n. */
static int64_t wisdom_size(int64_t n, const double *value) {
  const double m = value[GEMM_P_M] >= 1 ? value[GEMM_P_M] : (double)n;
  const double k = value[GEMM_P_K] >= 1 ? value[GEMM_P_K] : (double)n;
  return (int64_t)llround(cbrt(m * (double)n * k));
}

const kl_workload kl__workload_gemm = {
    .name = "gemm",
    .summary = "C = alpha A B + beta C, column-major, any shape",
    .tolerance = "every element |c - ref| <= (gamma_(k+3)(u) + 2^-53) "
                 "(|alpha| |A||B| + |beta| |C0|); ref in long double, or "
                 "beyond 2^30 multiply-adds a double GEMM (its error added) "
                 "plus 1024 long-double samples; rows below m untouched",
    .source = "seed 000 section 3.5",
    .metric = KL_METRIC_GFLOPS,
    .unit = "GFLOP/s",
    .types = FLOATS,
    .default_type = KL_F64,
    .params = params,
    .param_count = GEMM_P_COUNT,
    .ceiling = {KL_CEILING_VENDOR, NULL, NULL},
    .plan = plan,
    .init = init,
    .init_device = init_device,
    .check = check,
    .cost = cost,
    .tests = tests,
    .big_tests = big_tests,
    .rungs = rungs,
    .rung_count = sizeof rungs / sizeof *rungs,
    .wisdom_size = wisdom_size,
};

kl_status kl_gemm(kl_context *ctx, kl_type type, int64_t m, int64_t n,
                  int64_t k, double alpha, const void *a, int64_t lda,
                  const void *b, int64_t ldb, double beta, void *c,
                  int64_t ldc, int data_on_device) {
  if (m < 1 || n < 1 || k < 1)
    return kl__usage(KL_USAGE, "kl_gemm: m, n and k must be at least 1 "
                     "(got %lld, %lld, %lld)", (long long)m, (long long)n,
                     (long long)k);
  if (!isfinite(alpha) || !isfinite(beta))
    return kl__usage(KL_USAGE, "kl_gemm: alpha and beta must be finite");
  const int64_t ld[3] = {lda, ldb, ldc};
  for (int i = 0; i < 3; i++)
    if (ld[i] < 1)
      return kl__usage(KL_USAGE, "kl_gemm: %s = %lld must be positive",
                       leads[i], (long long)ld[i]);
  /* %.17g gives the scalars back exactly. */
  char params[256];
  snprintf(params, sizeof params,
           "m=%lld,k=%lld,lda=%lld,ldb=%lld,ldc=%lld,alpha=%.17g,beta=%.17g",
           (long long)m, (long long)k, (long long)lda, (long long)ldb,
           (long long)ldc, alpha, beta);
  kl_problem pb = {.size = sizeof pb,
                   .n = n, .type = type, .params = params};
  void *buffers[3] = {(void *)a, (void *)b, c};
  return kl__done(kl__run_library(ctx, &kl__workload_gemm, &pb, buffers,
                         data_on_device));
}
