#include <math.h>
#include <openacc.h>

#include "reduce.h"

/* Two OpenACC reductions of every type and operation. The clause rung
 * leaves the partitioning to the runtime: GCC launches 8448 gangs of 32
 * lanes, reduces each gang's lanes with shuffles, and combines the gangs
 * with a compare-and-swap loop on one address, one gang after another:
 * 12 ms for a sum of doubles whatever its size, where the swaps keep
 * failing; min and max, whose swaps mostly write what is there, pass. The
 * gang rung splits the array into GANGS contiguous pieces, one gang each,
 * reduced across the gang's lanes into a partial of its own, and one gang
 * combines the partials. The result comes to the host as the
 * clause's scalar and is copied into the output buffer.
 *
 * Min and max note NaN in a flag of their own, an | reduction, as the
 * OpenMP rungs do: the clauses' compares drop a NaN. */
#define ACC(text) REDUCE_PRAGMA(acc text)
#define PLAIN_NOTE(flag, v) (void)flag
#define NANFLAG_NOTE(flag, v) flag |= isnan(v)

/* Gangs of one 32-lane vector, whose lanes GCC reduces with shuffles (a
 * longer vector reduces through a lock that every gang takes in turn:
 * 0.25 ms for 1024 gangs of 256 lanes); 4224 of them, 32 (the most an SM
 * holds) on each of the H100's 132 SMs. */
#define GANGS 4224
#define LANES 32

#define REDUCE_CLAUSE(name, T, A, start, clause, step, nan)                   \
  static void name(const void *xv, int64_t n, A *result, int *seen,          \
                   void *scratch) {                                           \
    (void)scratch;                                                            \
    const T *restrict x = xv;                                                 \
    A acc = start;                                                            \
    int flag = 0;                                                             \
    ACC(parallel loop deviceptr(x) clause(acc) reduction(| : flag))           \
    for (int64_t i = 0; i < n; i++) {                                         \
      step(acc, x[i]);                                                        \
      nan##_NOTE(flag, x[i]);                                                 \
    }                                                                         \
    *result = acc;                                                            \
    *seen = flag;                                                             \
  }

#define REDUCE_GANGS(name, T, A, start, clause, step, nan)                    \
  static void name(const void *xv, int64_t n, A *result, int *seen,          \
                   void *scratch) {                                           \
    const T *restrict x = xv;                                                 \
    A *restrict partials = scratch;                                           \
    int *restrict flags = (int *)(partials + GANGS);                          \
    const int64_t piece = (n + GANGS - 1) / GANGS;                            \
    ACC(parallel loop gang num_gangs(GANGS) vector_length(LANES)              \
            deviceptr(x, partials, flags))                                    \
    for (int g = 0; g < GANGS; g++) {                                         \
      const int64_t begin = g * piece < n ? g * piece : n;                    \
      const int64_t end = begin + piece < n ? begin + piece : n;              \
      A acc = start;                                                          \
      int flag = 0;                                                           \
      ACC(loop vector clause(acc) reduction(| : flag))                        \
      for (int64_t i = begin; i < end; i++) {                                 \
        step(acc, x[i]);                                                      \
        nan##_NOTE(flag, x[i]);                                               \
      }                                                                       \
      partials[g] = acc;                                                      \
      flags[g] = flag;                                                        \
    }                                                                         \
    A acc = start;                                                            \
    int flag = 0;                                                             \
    ACC(parallel loop gang vector num_gangs(1) vector_length(LANES)           \
            deviceptr(partials, flags) clause(acc) reduction(| : flag))       \
    for (int g = 0; g < GANGS; g++) {                                         \
      step(acc, partials[g]);                                                 \
      flag |= flags[g];                                                       \
    }                                                                         \
    *result = acc;                                                            \
    *seen = flag;                                                             \
  }

/* Each case's reduction (kind_name_into) and the function that writes
 * its result, NaN where one was seen, to the output (kind_name). */
#define REDUCE_ENTRY(kind, name, T, A, start, clause, step, nan)              \
  kind(kind##_##name##_into, T, A, start, clause, step, nan)                  \
  static void kind##_##name(const void *x, int64_t n, void *out,             \
                            void *scratch) {                                  \
    A result;                                                                 \
    int seen;                                                                 \
    kind##_##name##_into(x, n, &result, &seen, scratch);                      \
    if (seen) result = (A)NAN;                                                \
    acc_memcpy_to_device(out, &result, sizeof result);                        \
  }

REDUCE_CASES(REDUCE_ENTRY, REDUCE_CLAUSE)
REDUCE_CASES(REDUCE_ENTRY, REDUCE_GANGS)

kl_status kl__reduce_acc_clause(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = REDUCE_TABLE(REDUCE_CLAUSE);
  return kl__reduce_dispatch(a, table);
}

/* The gangs' partials and NaN flags: 8 bytes and an int per gang. */
kl_status kl__reduce_acc_scratch(kl_plan *p) {
  return kl__plan_scratch(p, REDUCE_PARTIALS, "gang partials", KL_U8,
                          (int64_t)GANGS * (8 + sizeof(int)), KL_MEM_DEVICE,
                          0);
}

kl_status kl__reduce_acc_gangs(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = REDUCE_TABLE(REDUCE_GANGS);
  return kl__reduce_dispatch(a, table);
}
