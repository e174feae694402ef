#include <math.h>
#include <stdlib.h>

#include "reduce.h"

/* One loop per type and operation, the operator a compile-time constant.
 * The simd reduction clauses matter: they let the compiler keep several
 * vector accumulators, without which a floating sum is one dependent
 * chain, far slower than memory. */
#define OMP(text) REDUCE_PRAGMA(omp text)

/* The min and max clauses and compares drop a NaN, whatever its place, so
 * floating min and max note NaN elements in a flag of their own, an or
 * reduction that vectorizes as well, and return NaN at the end. Sums need
 * nothing: IEEE arithmetic carries NaN and Inf - Inf through the clause.
 * Integers have no NaN. */
#define PLAIN_CLAUSE(flag)
#define PLAIN_NOTE(flag, v)
#define PLAIN_RESULT(acc, flag) ((void)flag, acc)
#define NANFLAG_CLAUSE(flag) reduction(| : flag)
#define NANFLAG_NOTE(flag, v) flag |= isnan(v)
#define NANFLAG_RESULT(acc, flag) (flag ? NAN : acc)

/* OpenMP's reduction clause does it all. */
#define REDUCE_CLAUSE(kind, name, T, A, start, clause, step, nan)             \
  static void kind##_##name(const void *xv, int64_t n, void *out,            \
                            void *scratch) {                                  \
    (void)scratch;                                                            \
    const T *restrict x = xv;                                                 \
    A acc = start;                                                            \
    int seen_nan = 0;                                                         \
    OMP(parallel for simd schedule(static) clause(acc)                        \
            nan##_CLAUSE(seen_nan))                                           \
    for (int64_t i = 0; i < n; i++) {                                         \
      step(acc, x[i]);                                                        \
      nan##_NOTE(seen_nan, x[i]);                                             \
    }                                                                         \
    *(A *)out = nan##_RESULT(acc, seen_nan);                                  \
  }

/* By hand: each thread reduces its own contiguous block into a partial of
 * its own, a cache line apart from the others so that no two threads write
 * one line, and one thread combines the partials. */
#define REDUCE_PARTIALS(kind, name, T, A, start, clause, step, nan)           \
  static void kind##_##name(const void *xv, int64_t n, void *out,            \
                            void *scratch) {                                  \
    const T *restrict x = xv;                                                 \
    enum { PAD = 64 / sizeof(A) };                                            \
    const int threads = kl__omp_threads();                                    \
    A *partials = scratch;                                                    \
    for (int t = 0; t < threads; t++) partials[PAD * (size_t)t] = start;      \
    int seen_nan = 0;                                                         \
    OMP(parallel num_threads(threads) nan##_CLAUSE(seen_nan)) {               \
      const int64_t t = kl__omp_thread(), team = kl__omp_team();              \
      const int64_t begin = n / team * t + (t < n % team ? t : n % team);     \
      const int64_t end = begin + n / team + (t < n % team);                  \
      A acc = start;                                                          \
      OMP(simd clause(acc) nan##_CLAUSE(seen_nan))                            \
      for (int64_t i = begin; i < end; i++) {                                 \
        step(acc, x[i]);                                                      \
        nan##_NOTE(seen_nan, x[i]);                                           \
      }                                                                       \
      partials[PAD * (size_t)t] = acc;                                        \
    }                                                                         \
    A result = start;                                                         \
    for (int t = 0; t < threads; t++) step(result, partials[PAD * (size_t)t]);\
    *(A *)out = nan##_RESULT(result, seen_nan);                               \
  }

REDUCE_CASES(REDUCE_CLAUSE, by_clause)
REDUCE_CASES(REDUCE_PARTIALS, by_partials)

kl_status kl__reduce_omp_clause(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = REDUCE_TABLE(by_clause);
  return kl__reduce_dispatch(a, table);
}

/* One cache line per thread, as scratch of the plan. */
kl_status kl__reduce_omp_scratch(kl_plan *p) {
  return kl__plan_scratch(p, REDUCE_PARTIALS, "thread partials", KL_U8,
                          64 * (int64_t)kl__omp_threads(), KL_MEM_PAGEABLE, 0);
}

kl_status kl__reduce_omp_partials(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = REDUCE_TABLE(by_partials);
  return kl__reduce_dispatch(a, table);
}
