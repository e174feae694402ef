/* reduce.c's serial loop for one case of reduce-cases.h (T, A and the
 * REDUCE_* of an operation and type): a template header, included once
 * per case, so that the loop is a function with its own lines and a
 * compile-time operator, which it vectorizes with.
 *
 * Floating min and max: the compare drops a NaN, so NaN elements are
 * noted in a flag and the result is NaN. The flag costs nothing measurable
 * (16M floats: 9.3 ms against 9.4); letting a NaN replace the accumulator
 * instead (x < acc || isnan(x) ? x : acc) made the loop 4x slower. */
#if REDUCE_NANFLAG
#define NOTE_NAN(v) seen_nan |= isnan(v)
#define RESULT(acc) (seen_nan ? (A)NAN : acc)
#else
#define NOTE_NAN(v)
#define RESULT(acc) ((void)seen_nan, acc)
#endif

static void REDUCE_NAME(serial)(const void *xv, int64_t n, void *out) {
  const T *restrict x = xv;
  A acc = REDUCE_START;
  int seen_nan = 0;
  for (int64_t i = 0; i < n; i++) {
    REDUCE_STEP(acc, x[i]);
    NOTE_NAN(x[i]);
  }
  *(A *)out = RESULT(acc);
}

#undef NOTE_NAN
#undef RESULT
