#include <math.h>

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
#define SUM REDUCE_SUM_CLAUSE
#define MIN REDUCE_MIN_CLAUSE
#define MAX REDUCE_MAX_CLAUSE
#define ADD REDUCE_ADD
#define LOWER REDUCE_LOWER
#define HIGHER REDUCE_HIGHER
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

/* Each kind's nine functions, and the entry that writes the output. */
#define REDUCE_ENTRY(kind, name, T, A, start, clause, step, nan)              \
  kind(kind##_##name, T, A, start, clause, step, nan)                         \
  static void name##_##kind(const void *x, int64_t n, void *out,             \
                            void *scratch) {                                  \
    A result;                                                                 \
    int seen;                                                                 \
    kind##_##name(x, n, &result, &seen, scratch);                             \
    if (seen) result = (A)NAN;                                                \
    acc_memcpy_to_device(out, &result, sizeof result);                        \
  }
#define REDUCE_ALL(kind)                                                      \
  REDUCE_ENTRY(kind, sum_i32, int32_t, int64_t, 0, SUM, ADD, PLAIN)           \
  REDUCE_ENTRY(kind, sum_f32, float, double, 0, SUM, ADD, PLAIN)              \
  REDUCE_ENTRY(kind, sum_f64, double, double, 0, SUM, ADD, PLAIN)             \
  REDUCE_ENTRY(kind, min_i32, int32_t, int32_t, INT32_MAX, MIN, LOWER, PLAIN) \
  REDUCE_ENTRY(kind, min_f32, float, float, INFINITY, MIN, LOWER, NANFLAG)    \
  REDUCE_ENTRY(kind, min_f64, double, double, INFINITY, MIN, LOWER, NANFLAG)  \
  REDUCE_ENTRY(kind, max_i32, int32_t, int32_t, INT32_MIN, MAX, HIGHER,       \
               PLAIN)                                                         \
  REDUCE_ENTRY(kind, max_f32, float, float, -INFINITY, MAX, HIGHER, NANFLAG)  \
  REDUCE_ENTRY(kind, max_f64, double, double, -INFINITY, MAX, HIGHER, NANFLAG)

#include <openacc.h>
REDUCE_ALL(REDUCE_CLAUSE)
REDUCE_ALL(REDUCE_GANGS)


kl_status kl__reduce_acc_clause(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = {
      {sum_i32_REDUCE_CLAUSE, sum_f32_REDUCE_CLAUSE, sum_f64_REDUCE_CLAUSE},
      {min_i32_REDUCE_CLAUSE, min_f32_REDUCE_CLAUSE, min_f64_REDUCE_CLAUSE},
      {max_i32_REDUCE_CLAUSE, max_f32_REDUCE_CLAUSE, max_f64_REDUCE_CLAUSE}};
  return kl__reduce_dispatch(a, table);
}

/* The gangs' partials and NaN flags: 8 bytes and an int per gang. */
kl_status kl__reduce_acc_scratch(kl_plan *p) {
  return kl__plan_scratch(p, REDUCE_PARTIALS, "gang partials", KL_U8,
                          (int64_t)GANGS * (8 + sizeof(int)), KL_MEM_DEVICE,
                          0);
}

kl_status kl__reduce_acc_gangs(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = {
      {sum_i32_REDUCE_GANGS, sum_f32_REDUCE_GANGS, sum_f64_REDUCE_GANGS},
      {min_i32_REDUCE_GANGS, min_f32_REDUCE_GANGS, min_f64_REDUCE_GANGS},
      {max_i32_REDUCE_GANGS, max_f32_REDUCE_GANGS, max_f64_REDUCE_GANGS}};
  return kl__reduce_dispatch(a, table);
}
