/* Reduction building blocks for GPU kernels, shared by every workload that
 * reduces (reduce, integrate, cg). Templates take the operation and the
 * accumulator type as compile-time constants, so the combine step inlines
 * to one instruction. Warp-size agnostic: loops run over warpSize, which is
 * 32 on NVIDIA GPUs and 64 on AMD GPUs and Hygon DCUs. */
#ifndef KL_GPU_REDUCE_H
#define KL_GPU_REDUCE_H

#include <float.h>
#include <limits.h>
#include <stdint.h>

#include "gpu.h"

enum { KL_OP_SUM, KL_OP_MIN, KL_OP_MAX };

/* The largest block any reduction kernel here is launched with, and so the
 * most warps (of at least 32 lanes) a block can have. */
#define KL_MAX_BLOCK 1024
#define KL_MAX_WARPS (KL_MAX_BLOCK / 32)

#define KL_FULL_MASK 0xffffffffu

template <int OP, typename A>
static __host__ __device__ __forceinline__ A kl_combine(A a, A b) {
  if (OP == KL_OP_SUM) return a + b;
  if (OP == KL_OP_MIN) return b < a ? b : a;
  return a < b ? b : a;
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
 * wins, so most calls never swap. */
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
  while (kl_combine<OP>(__longlong_as_double((long long)old), v) !=
         __longlong_as_double((long long)old)) {
    unsigned long long seen =
        atomicCAS(bits, old, (unsigned long long)__double_as_longlong(v));
    if (seen == old) break;
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
  while (kl_combine<OP>(__uint_as_float(old), v) != __uint_as_float(old)) {
    unsigned int seen = atomicCAS(bits, old, __float_as_uint(v));
    if (seen == old) break;
    old = seen;
  }
}

#endif
