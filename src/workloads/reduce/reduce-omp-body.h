/* reduce-omp.c's two loops for one case of reduce-cases.h (T, A and the
 * REDUCE_* of an operation and type): a template header, included once
 * per case, so that each loop is a function with its own lines. The
 * pragmas take the case's operator and NaN clause as macros, which GCC
 * expands inside #pragma omp lines.
 *
 * The min and max clauses and compares drop a NaN, whatever its place, so
 * floating min and max note NaN elements in a flag of their own, an or
 * reduction that vectorizes as well, and return NaN at the end. Sums need
 * nothing: IEEE arithmetic carries NaN and Inf - Inf through the clause.
 * Integers have no NaN. */
#if REDUCE_NANFLAG
#define NAN_CLAUSE reduction(| : seen_nan)
#define NOTE_NAN(v) seen_nan |= isnan(v)
#define RESULT(acc) (seen_nan ? NAN : acc)
#else
#define NAN_CLAUSE
#define NOTE_NAN(v)
#define RESULT(acc) ((void)seen_nan, acc)
#endif

/* OpenMP's reduction clause does it all. */
static void REDUCE_NAME(by_clause)(const void *xv, int64_t n, void *out,
                                   void *scratch) {
  (void)scratch;
  const T *restrict x = xv;
  A acc = REDUCE_START;
  int seen_nan = 0;
#pragma omp parallel for simd schedule(static) \
    reduction(REDUCE_OPERATOR : acc) NAN_CLAUSE
  for (int64_t i = 0; i < n; i++) {
    REDUCE_STEP(acc, x[i]);
    NOTE_NAN(x[i]);
  }
  *(A *)out = RESULT(acc);
}

/* By hand: each thread reduces its own contiguous block into a partial of
 * its own, a cache line apart from the others so that no two threads write
 * one line, and one thread combines the partials. */
static void REDUCE_NAME(by_partials)(const void *xv, int64_t n, void *out,
                                     void *scratch) {
  const T *restrict x = xv;
  enum { PAD = 64 / sizeof(A) };
  const int threads = kl__omp_threads();
  A *partials = scratch;
  for (int t = 0; t < threads; t++) partials[PAD * (size_t)t] = REDUCE_START;
  int seen_nan = 0;
#pragma omp parallel num_threads(threads) NAN_CLAUSE
  {
    const int64_t t = kl__omp_thread(), team = kl__omp_team();
    const int64_t begin = n / team * t + (t < n % team ? t : n % team);
    const int64_t end = begin + n / team + (t < n % team);
    A acc = REDUCE_START;
#pragma omp simd reduction(REDUCE_OPERATOR : acc) NAN_CLAUSE
    for (int64_t i = begin; i < end; i++) {
      REDUCE_STEP(acc, x[i]);
      NOTE_NAN(x[i]);
    }
    partials[PAD * (size_t)t] = acc;
  }
  A result = REDUCE_START;
  for (int t = 0; t < threads; t++)
    REDUCE_STEP(result, partials[PAD * (size_t)t]);
  *(A *)out = RESULT(result);
}

#undef NAN_CLAUSE
#undef NOTE_NAN
#undef RESULT
