/* Reduction building blocks for GPU kernels, shared by every workload that
 * reduces (reduce, integrate, cg). Templates take the operation and the
 * accumulator type as compile-time constants, so the combine step inlines
 * to one instruction. Warp-size agnostic: loops run over warpSize, which is
 * 32 on NVIDIA GPUs and 64 on AMD GPUs and Hygon DCUs. */
#ifndef KL_GPU_REDUCE_H
#define KL_GPU_REDUCE_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "gpu.h"

enum { KL_OP_SUM, KL_OP_MIN, KL_OP_MAX };

/* The largest block any reduction kernel here is launched with, and so the
 * most warps (of at least 32 lanes) a block can have. */
#define KL_MAX_BLOCK 1024
#define KL_MAX_WARPS (KL_MAX_BLOCK / 32)

/* Integers have no NaN: constant false, so their min and max stay one
 * instruction. */
static __host__ __device__ __forceinline__ bool kl_is_nan(int) { return false; }
static __host__ __device__ __forceinline__ bool kl_is_nan(long long) {
  return false;
}
static __host__ __device__ __forceinline__ bool kl_is_nan(float x) {
  return isnan(x);
}
static __host__ __device__ __forceinline__ bool kl_is_nan(double x) {
  return isnan(x);
}

/* Sums follow IEEE arithmetic (NaN, Inf - Inf) by themselves. Min and max
 * of floating types propagate NaN, as NumPy's np.min/np.max and IEEE
 * 754-2019 minimum/maximum do, whatever order a tree or the atomics meet
 * the operands in: a NaN operand is returned itself, a before b, so a NaN
 * already in an accumulator or in memory stays there (kl_atomic's loop
 * relies on that to stop). A plain compare would keep or drop the NaN by
 * its position.
 * b wins when it is lower (higher) or a NaN, unless a is a NaN: !(b >= a)
 * (!(a >= b)) holds for b < a (a < b) and whenever either is NaN. One
 * predicate and one select: a chain (isnan(a) ? a : isnan(b) ? b : ...)
 * compiled to branches and made best_kernel's f64 instances spill at their
 * 32 registers, and && instead of & to predicated selects and extra moves.
 * Now one more compare than a plain min (reduce's LESSONS.md); integer
 * instances compile to the same code as a plain min. */
template <int OP, typename A>
static __host__ __device__ __forceinline__ A kl_combine(A a, A b) {
  if (OP == KL_OP_SUM) return a + b;
  const bool b_wins = OP == KL_OP_MIN ? !(b >= a) : !(a >= b);
  return (b_wins & !kl_is_nan(a)) ? b : a;
}

template <int OP, typename A>
static __host__ __device__ __forceinline__ A kl_identity();

#define KL_IDENTITIES(A, lowest, highest)                                     \
  template <>                                                                 \
  __host__ __device__ __forceinline__ A kl_identity<KL_OP_SUM, A>() {         \
    return (A)0;                                                              \
  }                                                                           \
  template <>                                                                 \
  __host__ __device__ __forceinline__ A kl_identity<KL_OP_MIN, A>() {         \
    return highest;                                                           \
  }                                                                           \
  template <>                                                                 \
  __host__ __device__ __forceinline__ A kl_identity<KL_OP_MAX, A>() {         \
    return lowest;                                                            \
  }
KL_IDENTITIES(int, INT_MIN, INT_MAX)
KL_IDENTITIES(long long, LLONG_MIN, LLONG_MAX)
KL_IDENTITIES(float, -INFINITY, INFINITY)
KL_IDENTITIES(double, -INFINITY, INFINITY)
#undef KL_IDENTITIES

/* Lane 0 of each warp gets the warp's result. */
template <int OP, typename A>
static __device__ __forceinline__ A kl_warp_reduce(A v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v = kl_combine<OP>(v, __shfl_down_sync(KL_FULL_MASK, v, offset));
  return v;
}

/* Thread 0 gets the block's result; every thread must call it. Warps
 * reduce by shuffles, then the first warp reduces the per-warp results.
 * Shuffles rather than the seed's warp-synchronous volatile shared-memory
 * code: since Volta, the threads of a warp are scheduled independently and
 * need not run in lockstep, so that code races without __syncwarp. */
template <int OP, typename A>
static __device__ __forceinline__ A kl_block_reduce(A v) {
  __shared__ A warp_results[KL_MAX_WARPS];
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  const int warps = (blockDim.x + warpSize - 1) / warpSize;
  v = kl_warp_reduce<OP>(v);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? warp_results[lane] : kl_identity<OP, A>();
    v = kl_warp_reduce<OP>(v);
  }
  /* The buffer may be reused by a second call in the same kernel. */
  __syncthreads();
  return v;
}

/* Atomic combine into global or shared memory. Sums use the hardware's
 * adds; min and max of integers too; min and max of floating types use a
 * compare-and-swap loop that returns as soon as the stored value already
 * wins (a stored NaN always does), so most calls never swap. */
template <int OP>
static __device__ __forceinline__ void kl_atomic(long long *p, long long v) {
  static_assert(OP == KL_OP_SUM, "64-bit integers are only summed");
  atomicAdd((unsigned long long *)p, (unsigned long long)v);
}

template <int OP>
static __device__ __forceinline__ void kl_atomic(int *p, int v) {
  if (OP == KL_OP_SUM) atomicAdd(p, v);
  else if (OP == KL_OP_MIN) atomicMin(p, v);
  else atomicMax(p, v);
}

template <int OP>
static __device__ __forceinline__ void kl_atomic(double *p, double v) {
  if (OP == KL_OP_SUM) {
    atomicAdd(p, v);
    return;
  }
  unsigned long long *bits = (unsigned long long *)p;
  unsigned long long old = *(volatile unsigned long long *)bits;
  for (;;) {
    unsigned long long want = (unsigned long long)__double_as_longlong(
        kl_combine<OP>(__longlong_as_double((long long)old), v));
    if (want == old) return; /* bits: a stored NaN is unequal to itself */
    unsigned long long seen = atomicCAS(bits, old, want);
    if (seen == old) return;
    old = seen;
  }
}

template <int OP>
static __device__ __forceinline__ void kl_atomic(float *p, float v) {
  if (OP == KL_OP_SUM) {
    atomicAdd(p, v);
    return;
  }
  unsigned int *bits = (unsigned int *)p;
  unsigned int old = *(volatile unsigned int *)bits;
  for (;;) {
    unsigned int want = __float_as_uint(kl_combine<OP>(__uint_as_float(old), v));
    if (want == old) return; /* bits: a stored NaN is unequal to itself */
    unsigned int seen = atomicCAS(bits, old, want);
    if (seen == old) return;
    old = seen;
  }
}

#endif
