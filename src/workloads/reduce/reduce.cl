/* reduce's OpenCL rungs (reduce-cl.c). T the input type, A the result's
 * (sums widen: int to long, float to double; min and max keep T), OP 0
 * sum, 1 min, 2 max; KL_INT for integer T. A NaN never vanishes from a
 * floating min or max: COMBINE keeps it (fmin and fmax would drop it). */
#if OP == 0
#define IDENTITY ((A)0)
#define COMBINE(x, y) ((x) + (y))
#elif defined(KL_INT)
#define IDENTITY (OP == 1 ? (A)INT_MAX : (A)INT_MIN)
#define COMBINE(x, y) (OP == 1 ? min((x), (y)) : max((x), (y)))
#else
#define IDENTITY (OP == 1 ? (A)INFINITY : (A)-INFINITY)
#define COMBINE(x, y)                                                         \
  (isnan(x) ? (x)                                                             \
   : isnan(y) ? (y)                                                           \
   : OP == 1  ? ((y) < (x) ? (y) : (x))                                       \
              : ((y) > (x) ? (y) : (x)))
#endif

/* The group's values in local memory combined into scratch[0]: a tree of
 * halvings, a barrier between levels (the group's size a power of two). */
static A group_combine(A mine, __local A *scratch) {
  const size_t l = get_local_id(0);
  scratch[l] = mine;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] = COMBINE(scratch[l], scratch[l + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return scratch[0];
}

#define VEC8(t) KL_CAT(t, 8)
#define CONVERT8(t) KL_CAT(convert_, VEC8(t))

#ifndef KL_CONTIGUOUS
/* A vector of KL_VEC elements (16 bytes: double2, float4, int4), TV,
 * combined into an accumulator lane by lane, in order. */
#define TV KL_CAT(T, KL_VEC)
static A combine_vector(A acc, const TV v) {
  acc = COMBINE(acc, (A)v.s0);
  acc = COMBINE(acc, (A)v.s1);
#if KL_VEC == 4
  acc = COMBINE(acc, (A)v.s2);
  acc = COMBINE(acc, (A)v.s3);
#endif
  return acc;
}
#endif

/* An item's elements combined: strided (a GPU), or its contiguous run
 * into eight accumulators at once (a CPU: eight independent chains that
 * the compiler can put in one vector; one chain would wait on each add). */
static A item_combine(__global const T *restrict x, const ulong n) {
  A acc = IDENTITY;
#ifdef KL_CONTIGUOUS
  size_t begin, end;
  kl_run(n, &begin, &end);
  size_t i = begin;
#if OP == 0
  /* A sum: eight lanes of one vector, each element widened in it
   * (convert_double8 of a float8: the compiler's own vectors). */
  VEC8(A) lanes = (VEC8(A))(0);
  for (; i + 8 <= end; i += 8) lanes += CONVERT8(A)(vload8(0, x + i));
  acc = ((lanes.s0 + lanes.s1) + (lanes.s2 + lanes.s3)) +
        ((lanes.s4 + lanes.s5) + (lanes.s6 + lanes.s7));
#else
  A part[8];
  for (int k = 0; k < 8; k++) part[k] = IDENTITY;
  for (; i + 8 <= end; i += 8)
    for (int k = 0; k < 8; k++) part[k] = COMBINE(part[k], (A)x[i + k]);
  for (int k = 0; k < 8; k++) acc = COMBINE(acc, part[k]);
#endif
  for (; i < end; i++) acc = COMBINE(acc, (A)x[i]);
#else
  /* A GPU: 16-byte loads (KL_VEC elements of T, the buffer's start
   * aligned), two of them in flight per item a step, a grid's stride
   * apart, into two chains; then the last n % KL_VEC elements, one an
   * item. One scalar chain kept few bytes in flight: 0.943x CUB at 256M
   * f64 on the H100. */
  const size_t g = get_global_size(0), vectors = n / KL_VEC;
  __global const TV *xv = (__global const TV *)x;
  A other = IDENTITY;
  size_t i = get_global_id(0);
  for (; i + g < vectors; i += 2 * g) {
    const TV u = xv[i], w = xv[i + g];
    acc = combine_vector(acc, u);
    other = combine_vector(other, w);
  }
  if (i < vectors) acc = combine_vector(acc, xv[i]);
  for (size_t t = vectors * KL_VEC + get_global_id(0); t < n; t += g)
    acc = COMBINE(acc, (A)x[t]);
  acc = COMBINE(acc, other);
#endif
  return acc;
}

/* Pass 1: each group goes over its elements, combines in local memory,
 * and writes its partial. */
__kernel void reduce_partials(__global const T *restrict x, const ulong n,
                              __global A *restrict partials,
                              __local A *scratch) {
  const A acc = item_combine(x, n);
  const A total = group_combine(acc, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = total;
}

/* Pass 2: one group combines the partials into the result. */
__kernel void reduce_final(__global const A *restrict partials,
                           const uint count, __global A *restrict out,
                           __local A *scratch) {
  A acc = IDENTITY;
  for (size_t i = get_local_id(0); i < count; i += get_local_size(0))
    acc = COMBINE(acc, partials[i]);
  const A total = group_combine(acc, scratch);
  if (get_local_id(0) == 0) out[0] = total;
}

/* One pass: pass 1, then the last group to finish (a counter's atomic
 * increment after a fence on its partial) combines every partial. The
 * counter starts at zero and is put back to zero by that group. */
__kernel void reduce_one_pass(__global const T *restrict x, const ulong n,
                              __global A *restrict partials,
                              __global volatile uint *retired,
                              __global A *restrict out, __local A *scratch,
                              __local uint *last) {
  const A acc = item_combine(x, n);
  const A total = group_combine(acc, scratch);
  if (get_local_id(0) == 0) {
    partials[get_group_id(0)] = total;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    *last = atomic_inc(retired) == get_num_groups(0) - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!*last) return;
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  A all = IDENTITY;
  for (size_t i = get_local_id(0); i < get_num_groups(0);
       i += get_local_size(0))
    all = COMBINE(all, ((__global volatile A *)partials)[i]);
  const A result = group_combine(all, scratch);
  if (get_local_id(0) == 0) {
    out[0] = result;
    *retired = 0;
  }
}
