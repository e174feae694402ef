/* The one element-wise checker every workload's check calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void kl__verdict_set(kl_verdict *v, int64_t checked, int64_t bad,
                     int64_t first_bad, double max_error, double abs_error) {
  v->abs_error = abs_error;
  v->checked = checked;
  v->bad_count = bad;
  v->first_bad = bad ? first_bad : -1;
  v->max_error = max_error;
  v->passed = bad == 0 && checked > 0;
}

void kl__verdict_unverifiable(kl_verdict *v, int64_t count, const char *why) {
  v->unverifiable = count;
  if (count > 0 && v->bad_count == 0)
    snprintf(v->detail, sizeof v->detail, "%lld of %lld not verifiable: %s",
             (long long)count, (long long)v->checked,
             why ? why : "the error bound overflows the type's range");
}

long double kl__element(kl_type t, const void *buf, int64_t i) {
  switch (t) {
  case KL_F32: return ((const float *)buf)[i];
  case KL_F64: return ((const double *)buf)[i];
  case KL_I32: return ((const int32_t *)buf)[i];
  case KL_I64: return ((const int64_t *)buf)[i];
  case KL_U8: return ((const uint8_t *)buf)[i];
  case KL_U32: return ((const uint32_t *)buf)[i];
  case KL_U64: return ((const uint64_t *)buf)[i];
  default: return NAN;
  }
}

/* Returned by judge() for an element that cannot be verified: its
 * tolerance overflowed (not finite) while neither it nor its reference is
 * a NaN that the other is not. */
#define UNVERIFIABLE (-1.0)

/* The error over tolerance of one element (0: exact, above 1 or NaN:
 * outside, UNVERIFIABLE: no bound in the type's range) and its absolute
 * error; within its tolerance and at most `worst` of it, 0 (what only the
 * largest ratio needs, without a long double division an element). */
static double judge(const kl_element *e, double worst, double *abs_error) {
  if (e->got == e->want || (isnan(e->got) && isnan(e->want))) {
    *abs_error = 0;
    return 0;
  }
  const long double err = fabsl(e->got - e->want);
  *abs_error = isnan(err) ? INFINITY : (double)err;
  /* A NaN against a number is wrong whatever the bound. */
  if (isnan(e->got) != isnan(e->want)) return INFINITY;
  if (!isfinite(e->tol)) return UNVERIFIABLE;
  if (isnan(err)) return INFINITY;
  if (err <= e->tol)
    return e->tol > 0 && err > worst * (long double)e->tol
               ? (double)(err / e->tol)
               : 0;
  return e->tol > 0 ? (double)(err / e->tol) : INFINITY;
}

/* One element as a run of one. */
typedef struct one_by_one {
  kl_element_fn element;
  const void *ctx;
} one_by_one;

static void run_of_elements(const void *ctx, int64_t first, int n,
                            kl_element *e) {
  const one_by_one *o = ctx;
  for (int k = 0; k < n; k++) o->element(o->ctx, first + k, &e[k]);
}

void kl__check_elements(int64_t count, kl_element_fn element, const void *ctx,
                        kl_verdict *v) {
  const one_by_one o = {element, ctx};
  kl__check_runs(count, run_of_elements, &o, v);
}

void kl__check_runs(int64_t count, kl_elements_fn run, const void *ctx,
                    kl_verdict *v) {
  int64_t bad = 0, first = INT64_MAX, unverifiable = 0;
  double worst = 0, worst_abs = 0;
  const int64_t runs = (count + KL_CHECK_RUN - 1) / KL_CHECK_RUN;
#pragma omp parallel for reduction(+ : bad, unverifiable) \
    reduction(min : first) reduction(max : worst, worst_abs) schedule(static)
  for (int64_t r = 0; r < runs; r++) {
    kl_element e[KL_CHECK_RUN];
    const int64_t from = r * KL_CHECK_RUN;
    const int n = (int)(count - from < KL_CHECK_RUN ? count - from
                                                    : KL_CHECK_RUN);
    run(ctx, from, n, e);
    for (int k = 0; k < n; k++) {
      double abs_error;
      const double ratio = judge(&e[k], worst, &abs_error);
      if (ratio == UNVERIFIABLE) {
        unverifiable++;
        continue;
      }
      if (!(ratio <= 1)) {
        bad++;
        if (from + k < first) first = from + k;
      }
      if (ratio > worst) worst = ratio;
      if (abs_error > worst_abs) worst_abs = abs_error;
    }
  }
  kl__verdict_set(v, count, bad, first, worst, worst_abs);
  kl__verdict_unverifiable(v, unverifiable, NULL);
  if (bad) {
    kl_element e;
    run(ctx, first, 1, &e);
    snprintf(v->detail, sizeof v->detail,
             "element %lld: expected %.17Lg, got %.17Lg (tolerance %.3g)",
             (long long)first, e.want, e.got, e.tol);
  }
}

void kl__same_bits(kl_type t, const void *got, const void *want, int64_t i,
                   kl_element *e) {
  const size_t size = kl_type_size(t);
  e->got = kl__element(t, got, i);
  e->want = kl__element(t, want, i);
  e->tol = 0;
  /* Equal values with other bits (-0 for +0, another NaN) fail too. */
  if (memcmp((const char *)got + (size_t)i * size,
             (const char *)want + (size_t)i * size, size) != 0 &&
      (e->got == e->want || (isnan(e->got) && isnan(e->want)))) {
    e->got = NAN;
    e->want = 0;
  }
}
