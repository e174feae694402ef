/* The integrand on the GPU, shared by the hand-written rungs and the
 * vendor rung: the point rule and the three ways to evaluate f. */
#ifndef KL_INTEGRAND_GPU_H
#define KL_INTEGRAND_GPU_H

#include "../../backends/gpu.h"
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

/* The atomic rungs sum into the output; h multiplies the finished sum. */
static __global__ void integrate_scale(double *sum, double h) { *sum *= h; }

#endif
