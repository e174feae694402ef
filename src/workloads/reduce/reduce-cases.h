/* The nine cases of reduce's host and directive rungs, operation by type:
 * includes the template header named by REDUCE_BODY once per case, with
 *   REDUCE_NAME(kind)    kind##_sum_i32, kind##_min_f32, ...: the names
 *                        of the case's functions
 *   T, A                 the input type and the accumulator (sums widen)
 *   REDUCE_START         the operation's identity in A
 *   REDUCE_OPERATOR      the operator of a reduction clause: +, min, max
 *   REDUCE_STEP(acc, v)  the loop's step
 *   REDUCE_NANFLAG       1 where a floating min or max must note a NaN
 *                        itself (the compares drop it), else 0
 * The body is a real function there, with line numbers; each case gets
 * its operator and types as compile-time constants, so every loop is the
 * compiler's to vectorize. REDUCE_TABLE(kind) is the [op][type] table of
 * the nine. Not guarded: include it once per body. */

#define REDUCE_LOWER(acc, v) acc = v < acc ? v : acc
#define REDUCE_HIGHER(acc, v) acc = v > acc ? v : acc

/* ---- sum: IEEE arithmetic carries NaN and Inf - Inf through ------------- */
#define REDUCE_OPERATOR +
#define REDUCE_STEP(acc, v) acc += v
#define REDUCE_START 0
#define REDUCE_NANFLAG 0
#define REDUCE_NAME(kind) kind##_sum_i32
#define T int32_t
#define A int64_t
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#define REDUCE_NAME(kind) kind##_sum_f32
#define T float
#define A double
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#define REDUCE_NAME(kind) kind##_sum_f64
#define T double
#define A double
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#undef REDUCE_OPERATOR
#undef REDUCE_STEP
#undef REDUCE_START
#undef REDUCE_NANFLAG

/* ---- min ---------------------------------------------------------------- */
#define REDUCE_OPERATOR min
#define REDUCE_STEP(acc, v) REDUCE_LOWER(acc, v)
#define REDUCE_NAME(kind) kind##_min_i32
#define T int32_t
#define A int32_t
#define REDUCE_START INT32_MAX
#define REDUCE_NANFLAG 0
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#undef REDUCE_START
#undef REDUCE_NANFLAG
#define REDUCE_START INFINITY
#define REDUCE_NANFLAG 1
#define REDUCE_NAME(kind) kind##_min_f32
#define T float
#define A float
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#define REDUCE_NAME(kind) kind##_min_f64
#define T double
#define A double
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#undef REDUCE_START
#undef REDUCE_NANFLAG
#undef REDUCE_OPERATOR
#undef REDUCE_STEP

/* ---- max ---------------------------------------------------------------- */
#define REDUCE_OPERATOR max
#define REDUCE_STEP(acc, v) REDUCE_HIGHER(acc, v)
#define REDUCE_NAME(kind) kind##_max_i32
#define T int32_t
#define A int32_t
#define REDUCE_START INT32_MIN
#define REDUCE_NANFLAG 0
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#undef REDUCE_START
#undef REDUCE_NANFLAG
#define REDUCE_START -INFINITY
#define REDUCE_NANFLAG 1
#define REDUCE_NAME(kind) kind##_max_f32
#define T float
#define A float
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#define REDUCE_NAME(kind) kind##_max_f64
#define T double
#define A double
#include REDUCE_BODY
#undef REDUCE_NAME
#undef T
#undef A
#undef REDUCE_START
#undef REDUCE_NANFLAG
#undef REDUCE_OPERATOR
#undef REDUCE_STEP

#undef REDUCE_LOWER
#undef REDUCE_HIGHER

/* The [op][type] table of kind's nine functions, for kl__reduce_dispatch. */
#ifndef REDUCE_TABLE
#define REDUCE_TABLE(kind)                                                    \
  {{kind##_sum_i32, kind##_sum_f32, kind##_sum_f64},                          \
   {kind##_min_i32, kind##_min_f32, kind##_min_f64},                          \
   {kind##_max_i32, kind##_max_f32, kind##_max_f64}}
#endif
