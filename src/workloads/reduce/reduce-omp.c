#include <math.h>
#include <stdlib.h>

#include "reduce.h"

/* One loop per type and operation, the operator a compile-time constant.
 * The simd reduction clauses matter: they let the compiler keep several
 * vector accumulators, without which a floating sum is one dependent
 * chain, far slower than memory. */
#define SUM(acc) reduction(+ : acc)
#define MIN(acc) reduction(min : acc)
#define MAX(acc) reduction(max : acc)
/* The clause is expanded before it is made the pragma's string. */
#define PRAGMA(text) _Pragma(#text)
#define OMP(text) PRAGMA(omp text)
#define ADD(acc, v) acc += v
#define LOWER(acc, v) acc = v < acc ? v : acc
#define HIGHER(acc, v) acc = v > acc ? v : acc

/* OpenMP's reduction clause does it all. */
#define REDUCE_CLAUSE(name, T, A, start, clause, step)                       \
  static int name(const void *xv, int64_t n, void *out) {                     \
    const T *restrict x = xv;                                                 \
    A acc = start;                                                            \
    OMP(parallel for simd schedule(static) clause(acc))                       \
    for (int64_t i = 0; i < n; i++) step(acc, x[i]);                          \
    *(A *)out = acc;                                                          \
    return 1;                                                                 \
  }

/* By hand: each thread reduces its own contiguous block into a partial of
 * its own, a cache line apart from the others so that no two threads write
 * one line, and one thread combines the partials. */
#define REDUCE_PARTIALS(name, T, A, start, clause, step)                     \
  static int name(const void *xv, int64_t n, void *out) {                     \
    const T *restrict x = xv;                                                 \
    enum { PAD = 64 / sizeof(A) };                                            \
    const int threads = kl__omp_threads();                                    \
    A *partials = malloc(sizeof(A) * PAD * (size_t)threads);                  \
    if (!partials) return 0;                                                  \
    for (int t = 0; t < threads; t++) partials[PAD * (size_t)t] = start;      \
    OMP(parallel num_threads(threads)) {                                      \
      const int64_t t = kl__omp_thread(), team = kl__omp_team();              \
      const int64_t begin = n / team * t + (t < n % team ? t : n % team);     \
      const int64_t end = begin + n / team + (t < n % team);                  \
      A acc = start;                                                          \
      OMP(simd clause(acc))                                                   \
      for (int64_t i = begin; i < end; i++) step(acc, x[i]);                  \
      partials[PAD * (size_t)t] = acc;                                        \
    }                                                                         \
    A result = start;                                                         \
    for (int t = 0; t < threads; t++) step(result, partials[PAD * (size_t)t]);\
    free(partials);                                                           \
    *(A *)out = result;                                                       \
    return 1;                                                                 \
  }

#define REDUCE_ALL(kind)                                                      \
  kind(kind##_sum_i32, int32_t, int64_t, 0, SUM, ADD)                         \
  kind(kind##_sum_f32, float, double, 0, SUM, ADD)                            \
  kind(kind##_sum_f64, double, double, 0, SUM, ADD)                           \
  kind(kind##_min_i32, int32_t, int32_t, INT32_MAX, MIN, LOWER)               \
  kind(kind##_min_f32, float, float, INFINITY, MIN, LOWER)                    \
  kind(kind##_min_f64, double, double, INFINITY, MIN, LOWER)                  \
  kind(kind##_max_i32, int32_t, int32_t, INT32_MIN, MAX, HIGHER)              \
  kind(kind##_max_f32, float, float, -INFINITY, MAX, HIGHER)                  \
  kind(kind##_max_f64, double, double, -INFINITY, MAX, HIGHER)
REDUCE_ALL(REDUCE_CLAUSE)
REDUCE_ALL(REDUCE_PARTIALS)

typedef int (*reduce_fn)(const void *, int64_t, void *);

static kl_status dispatch(const kl_args *a, const reduce_fn table[3][3]) {
  const kl_plan *p = a->plan;
  int t = p->type == KL_I32 ? 0 : p->type == KL_F32 ? 1 : 2;
  if (!table[p->op][t](a->buffers[REDUCE_IN], p->n, a->buffers[REDUCE_OUT]))
    return KL_FAIL(KL_NO_MEMORY, "out of host memory for partials");
  return KL_OK;
}

kl_status kl__reduce_omp_clause(const kl_args *a) {
  static const reduce_fn table[3][3] = {
      {REDUCE_CLAUSE_sum_i32, REDUCE_CLAUSE_sum_f32, REDUCE_CLAUSE_sum_f64},
      {REDUCE_CLAUSE_min_i32, REDUCE_CLAUSE_min_f32, REDUCE_CLAUSE_min_f64},
      {REDUCE_CLAUSE_max_i32, REDUCE_CLAUSE_max_f32, REDUCE_CLAUSE_max_f64}};
  return dispatch(a, table);
}

kl_status kl__reduce_omp_partials(const kl_args *a) {
  static const reduce_fn table[3][3] = {
      {REDUCE_PARTIALS_sum_i32, REDUCE_PARTIALS_sum_f32, REDUCE_PARTIALS_sum_f64},
      {REDUCE_PARTIALS_min_i32, REDUCE_PARTIALS_min_f32, REDUCE_PARTIALS_min_f64},
      {REDUCE_PARTIALS_max_i32, REDUCE_PARTIALS_max_f32, REDUCE_PARTIALS_max_f64}};
  return dispatch(a, table);
}
