/* The integrand on the GPU, shared by the hand-written rungs and the
 * vendor rung: the point rule and the three ways to evaluate f. */
#ifndef KL_INTEGRAND_GPU_H
#define KL_INTEGRAND_GPU_H

#include "../../backends/gpu-reduce.h"
#include "integrate.h"

/* ---- evaluating f ----------------------------------------------------------
 * The point rule of every rung: x_i in double, rounded once to T. A 64-bit
 * index is exact in double up to 2^53, far past INTEGRATE_MAX_N. */
static __device__ __forceinline__ double point(int64_t i, double h) {
  return ((double)i + 0.5) * h;
}

static __device__ __forceinline__ double integrand(float x) {
  float s = sinf(2.0f * x), c = cosf(x);
  return (double)(s * s * (c * c));
}

static __device__ __forceinline__ double integrand(double x) {
  double s = sin(2.0 * x), c = cos(x);
  return s * s * (c * c);
}

/* sin^2(2x) cos^2(x) = 4 sin^2(x) cos^4(x): one sincos instead of a sin and
 * a cos, whose argument reductions are most of the cost. */
static __device__ __forceinline__ double integrand_sincos(float x) {
  float s, c;
  sincosf(x, &s, &c);
  float c2 = c * c;
  return (double)(4.0f * (s * s) * (c2 * c2));
}

static __device__ __forceinline__ double integrand_sincos(double x) {
  double s, c;
  sincos(x, &s, &c);
  double c2 = c * c;
  return 4.0 * (s * s) * (c2 * c2);
}

/* pi = PI_A + PI_B + PI_C to within 2e-19. PI_A has 8 significant bits, so
 * k PI_A is exact for k < 2^16 (here k <= 40000), and x - k PI_A is exact
 * by Sterbenz's lemma; the fused steps add at most 2^-24 each. */
#define PI_A 3.140625f
#define PI_B 0x1.fb5444p-11f
#define PI_C 0x1.68c234p-38f
#define HALF_PI_BELOW 0x1.921fb4p+0f /* the float just below pi/2 */
#define INV_PI 0.31830988618379067154

/* f has period pi, and __sinf/__cosf are accurate only on [-pi, pi]: reduce
 * x to r in [-pi/2, pi/2] so that 2r stays inside. k comes from a double
 * product because a float one can be off by one near the half-periods,
 * which would push 2r past pi; the clamp keeps 2r inside when the fused
 * steps round r just past pi/2. */
static __device__ __forceinline__ double integrand_fast(float x) {
  float k = (float)rint((double)x * INV_PI);
  float r = fmaf(-k, PI_C, fmaf(-k, PI_B, fmaf(-k, PI_A, x)));
  r = fminf(fmaxf(r, -HALF_PI_BELOW), HALF_PI_BELOW);
  float s = __sinf(2.0f * r), c = __cosf(r);
  return (double)(s * s * (c * c));
}

template <typename T, int EVAL>
static __device__ __forceinline__ double value(double x) {
  if (EVAL == INTEGRATE_FAST) return integrand_fast((float)x);
  if (EVAL == INTEGRATE_SINCOS) return integrand_sincos((T)x);
  return integrand((T)x);
}

/* ---- kernels -------------------------------------------------------------
 * The one-point-per-thread kernels still loop: a grid is capped at 2^31
 * threads (HIP refuses more than 2^32 work-items), and n may reach 2^40. */

/* The atomic rungs sum into the output; h multiplies the finished sum.
 * Static kernels of this header are marked unused: not every includer
 * launches each (clang warns of those it does not). */
__attribute__((unused)) static __global__ void integrate_scale(double *sum,
                                                               double h) {
  *sum *= h;
}

#define SUM_BLOCK 1024 /* the one block that sums the partials */
#define BEST_BLOCK 256

/* Points first .. first + n - 1 (integrate: first 0; pipeline: an
 * interval's), in blocks of one warp, each writing its sum to its own
 * slot: no atomics. */
template <typename T>
__global__ void integrate_warp_partials(double *partials, int64_t first,
                                        int64_t n, double h) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  double v = 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    v += value<T, INTEGRATE_PLAIN>(point(first + i, h));
  v = kl_warp_reduce<KL_OP_SUM>(v);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

/* One block reads the partials as 16-byte double2 loads, half the load
 * instructions of 8-byte ones: partials must be 16-byte aligned. */
__attribute__((unused)) static __global__ __launch_bounds__(SUM_BLOCK) void
integrate_sum_partials(
    const double *partials, int count, double h, double *out) {
  const double2 *pairs = (const double2 *)partials;
  double v = 0;
  for (int i = threadIdx.x; i < count / 2; i += blockDim.x) {
    double2 p = pairs[i];
    v += p.x + p.y;
  }
  if (threadIdx.x == 0 && count % 2) v += partials[count - 1];
  v = kl_block_reduce<KL_OP_SUM>(v);
  if (threadIdx.x == 0) *out = v * h;
}

/* Points first .. first + n - 1 over a grid that the device holds at
 * once, each thread striding with a double counter (exact below 2^53, and
 * it spares the 64-bit integer conversion per point that runs at a
 * quarter of the FP64 rate). Each block writes its sum; the last block to
 * finish, known from a ticket counter, adds the block sums and writes the
 * result: one launch, no atomics on the data, and no memset before it,
 * since atomicInc wraps the counter back to 0 for the next launch. */
template <typename T>
__global__ __launch_bounds__(BEST_BLOCK) void integrate_best(
    double *out, double *block_sums, unsigned *retired, double first,
    double n, double h) {
  const double stride = (double)gridDim.x * blockDim.x, end = first + n;
  double v = 0;
  for (double i = first + (double)blockIdx.x * blockDim.x + threadIdx.x;
       i < end; i += stride)
    v += value<T, INTEGRATE_SINCOS>((i + 0.5) * h);
  v = kl_block_reduce<KL_OP_SUM>(v);
  __shared__ int last;
  if (threadIdx.x == 0) {
    block_sums[blockIdx.x] = v;
    /* The sum must be visible device-wide before the ticket says so. */
    __threadfence();
    last = atomicInc(retired, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  /* Pairs with the writers' fence: no block sum is read before its store. */
  __threadfence();
  double total = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    total += ((volatile double *)block_sums)[b];
  total = kl_block_reduce<KL_OP_SUM>(total);
  if (threadIdx.x == 0) *out = total * h;
}

#endif
