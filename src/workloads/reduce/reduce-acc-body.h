/* reduce-acc.c's two reductions for one case of reduce-cases.h (T, A and
 * the REDUCE_* of an operation and type): a template header, included
 * once per case, so that each is a function with its own lines. The
 * pragmas take the case's operator as a macro, which GCC expands inside
 * #pragma acc lines. */
#if REDUCE_NANFLAG
#define NOTE_NAN(flag, v) flag |= isnan(v)
#else
#define NOTE_NAN(flag, v) (void)flag
#endif

/* The result, NaN where one was seen, to the output on the device. */
static void REDUCE_NAME(store)(void *out, A result, int seen) {
  if (seen) result = (A)NAN;
  acc_memcpy_to_device(out, &result, sizeof result);
}

static void REDUCE_NAME(clause)(const void *xv, int64_t n, void *out,
                                void *scratch) {
  (void)scratch;
  const T *restrict x = xv;
  A acc = REDUCE_START;
  int flag = 0;
#pragma acc parallel loop deviceptr(x) reduction(REDUCE_OPERATOR : acc) \
    reduction(| : flag)
  for (int64_t i = 0; i < n; i++) {
    REDUCE_STEP(acc, x[i]);
    NOTE_NAN(flag, x[i]);
  }
  REDUCE_NAME(store)(out, acc, flag);
}

static void REDUCE_NAME(gangs)(const void *xv, int64_t n, void *out,
                               void *scratch) {
  const T *restrict x = xv;
  A *restrict partials = scratch;
  int *restrict flags = (int *)(partials + GANGS);
  const int64_t piece = (n + GANGS - 1) / GANGS;
#pragma acc parallel loop gang num_gangs(GANGS) vector_length(LANES) \
    deviceptr(x, partials, flags)
  for (int g = 0; g < GANGS; g++) {
    const int64_t begin = g * piece < n ? g * piece : n;
    const int64_t end = begin + piece < n ? begin + piece : n;
    A acc = REDUCE_START;
    int flag = 0;
#pragma acc loop vector reduction(REDUCE_OPERATOR : acc) reduction(| : flag)
    for (int64_t i = begin; i < end; i++) {
      REDUCE_STEP(acc, x[i]);
      NOTE_NAN(flag, x[i]);
    }
    partials[g] = acc;
    flags[g] = flag;
  }
  A acc = REDUCE_START;
  int flag = 0;
#pragma acc parallel loop gang vector num_gangs(1) vector_length(LANES) \
    deviceptr(partials, flags) reduction(REDUCE_OPERATOR : acc) \
    reduction(| : flag)
  for (int g = 0; g < GANGS; g++) {
    REDUCE_STEP(acc, partials[g]);
    flag |= flags[g];
  }
  REDUCE_NAME(store)(out, acc, flag);
}

#undef NOTE_NAN
