#include <stdint.h>
#include <stdlib.h>

#include "../../backends/gpu-reduce.h"
#include "integrate.h"

#if !defined(KL_HAVE_HIP)
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#endif

#define SEED_BLOCK 256  /* the seed's block for the atomic rungs */
#define WIDE_BLOCK 1024 /* the largest block: fewest global atomics */
#define POINTS_PER_THREAD 100
#define BEST_BLOCK 256
#define SUM_BLOCK 1024 /* the one block that sums the partials */
/* Caps the partials array (512 KiB) for large n; 1e8 points need 31250
 * warps of 32 lanes at 100 points each, the seed's configuration. */
#define PARTIALS_MAX 65536

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

template <typename T>
__global__ void integrate_atomic(double *sum, int64_t n, double h) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    kl_atomic<KL_OP_SUM>(sum, value<T, INTEGRATE_PLAIN>(point(i, h)));
}

/* Shared-memory atomics serialize within a block only; the global one
 * sees one add per block. */
template <typename T>
__global__ void integrate_shared_atomic(double *sum, int64_t n, double h) {
  __shared__ double block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    kl_atomic<KL_OP_SUM>(&block_sum, value<T, INTEGRATE_PLAIN>(point(i, h)));
  __syncthreads();
  if (threadIdx.x == 0) kl_atomic<KL_OP_SUM>(sum, block_sum);
}

/* Shuffles first, so a block makes one shared atomic per warp and one global
 * atomic. warp-shuffle launches a thread per point, and the loop runs once;
 * grid-stride (and fast) launch a hundredth of that, and each thread sums
 * about 100 points in a register before any shuffle. */
template <typename T, int EVAL>
__global__ __launch_bounds__(WIDE_BLOCK) void integrate_shuffle(double *sum,
                                                                int64_t n,
                                                                double h) {
  __shared__ double block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  double v = 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    v += value<T, EVAL>(point(i, h));
  v = kl_warp_reduce<KL_OP_SUM>(v);
  if (threadIdx.x % warpSize == 0) kl_atomic<KL_OP_SUM>(&block_sum, v);
  __syncthreads();
  if (threadIdx.x == 0) kl_atomic<KL_OP_SUM>(sum, block_sum);
}

/* Blocks of one warp, each writing its sum to its own slot: no atomics. */
template <typename T>
__global__ void integrate_warp_partials(double *partials, int64_t n,
                                        double h) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  double v = 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    v += value<T, INTEGRATE_PLAIN>(point(i, h));
  v = kl_warp_reduce<KL_OP_SUM>(v);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

/* One block reads the partials as 16-byte double2 loads, half the load
 * instructions of 8-byte ones; cudaMalloc's alignment makes them legal. */
__global__ __launch_bounds__(SUM_BLOCK) void integrate_sum_partials(
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

/* A grid that the device holds at once, each thread striding over the
 * points with a double counter (exact below 2^53, and it spares the 64-bit
 * integer conversion per point that runs at a quarter of the FP64 rate).
 * Each block writes its sum; the last block to finish, known from a ticket
 * counter, adds the block sums and writes the result: one launch, no
 * atomics on the data, and no memset before it, since atomicInc wraps the
 * counter back to 0 for the next launch. */
template <typename T>
__global__ __launch_bounds__(BEST_BLOCK) void integrate_best(
    double *out, double *block_sums, unsigned *retired, double n, double h) {
  const double stride = (double)gridDim.x * blockDim.x;
  double v = 0;
  for (double i = (double)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
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

/* The atomic rungs sum into the output; h multiplies the finished sum. */
__global__ void integrate_scale(double *sum, double h) { *sum *= h; }

/* ---- host side ----------------------------------------------------------- */

static cudaStream_t stream_of(const kl_args *a) {
  return (cudaStream_t)a->stream;
}
static double *out_of(const kl_args *a) {
  return (double *)a->buffers[INTEGRATE_OUT];
}
static double step(const kl_args *a) { return a->plan->params[INTEGRATE_H]; }
static int is_f32(const kl_args *a) { return a->plan->type == KL_F32; }

/* Blocks for n points at per_thread points a thread, at least one and at
 * most 2^31 - 1 threads in all. */
static unsigned grid_for(int64_t n, int block, int64_t per_thread) {
  int64_t per_block = (int64_t)block * per_thread;
  int64_t blocks = (n + per_block - 1) / per_block;
  int64_t most = INT32_MAX / block;
  return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

static kl_status zero_output(const kl_args *a) {
  KL_GPU_CHECK(cudaMemsetAsync(out_of(a), 0, sizeof(double), stream_of(a)));
  return KL_OK;
}

static kl_status scale_output(const kl_args *a) {
  integrate_scale<<<1, 1, 0, stream_of(a)>>>(out_of(a), step(a));
  KL_GPU_CHECK_LAUNCH(integrate_scale);
  return KL_OK;
}

static kl_status device_alloc(void **ptr, size_t bytes) {
  KL_GPU_CHECK(cudaMalloc(ptr, bytes));
  return KL_OK;
}

/* Teardowns cannot report; the error is still recorded for kl_last_error. */
static kl_status device_free(void *ptr) {
  if (ptr) KL_GPU_CHECK(cudaFree(ptr));
  return KL_OK;
}

template <typename T> static kl_status launch_atomic(const kl_args *a) {
  integrate_atomic<T>
      <<<grid_for(a->plan->n, SEED_BLOCK, 1), SEED_BLOCK, 0, stream_of(a)>>>(
          out_of(a), a->plan->n, step(a));
  KL_GPU_CHECK_LAUNCH(integrate_atomic);
  return KL_OK;
}

template <typename T> static kl_status launch_shared_atomic(const kl_args *a) {
  integrate_shared_atomic<T>
      <<<grid_for(a->plan->n, SEED_BLOCK, 1), SEED_BLOCK, 0, stream_of(a)>>>(
          out_of(a), a->plan->n, step(a));
  KL_GPU_CHECK_LAUNCH(integrate_shared_atomic);
  return KL_OK;
}

template <typename T, int EVAL>
static kl_status launch_shuffle(const kl_args *a, int64_t per_thread) {
  integrate_shuffle<T, EVAL>
      <<<grid_for(a->plan->n, WIDE_BLOCK, per_thread), WIDE_BLOCK, 0,
         stream_of(a)>>>(out_of(a), a->plan->n, step(a));
  KL_GPU_CHECK_LAUNCH(integrate_shuffle);
  return KL_OK;
}

extern "C" kl_status kl__integrate_gpu_atomic(const kl_args *a) {
  kl_status st = zero_output(a);
  if (st == KL_OK)
    st = is_f32(a) ? launch_atomic<float>(a) : launch_atomic<double>(a);
  return st == KL_OK ? scale_output(a) : st;
}

extern "C" kl_status kl__integrate_gpu_shared_atomic(const kl_args *a) {
  kl_status st = zero_output(a);
  if (st == KL_OK)
    st = is_f32(a) ? launch_shared_atomic<float>(a)
                   : launch_shared_atomic<double>(a);
  return st == KL_OK ? scale_output(a) : st;
}

extern "C" kl_status kl__integrate_gpu_warp_shuffle(const kl_args *a) {
  kl_status st = zero_output(a);
  if (st == KL_OK)
    st = is_f32(a) ? launch_shuffle<float, INTEGRATE_PLAIN>(a, 1)
                   : launch_shuffle<double, INTEGRATE_PLAIN>(a, 1);
  return st == KL_OK ? scale_output(a) : st;
}

extern "C" kl_status kl__integrate_gpu_grid_stride(const kl_args *a) {
  kl_status st = zero_output(a);
  if (st == KL_OK)
    st = is_f32(a)
             ? launch_shuffle<float, INTEGRATE_PLAIN>(a, POINTS_PER_THREAD)
             : launch_shuffle<double, INTEGRATE_PLAIN>(a, POINTS_PER_THREAD);
  return st == KL_OK ? scale_output(a) : st;
}

extern "C" kl_status kl__integrate_gpu_fast(const kl_args *a) {
  kl_status st = zero_output(a);
  if (st == KL_OK)
    st = launch_shuffle<float, INTEGRATE_FAST>(a, POINTS_PER_THREAD);
  return st == KL_OK ? scale_output(a) : st;
}

/* ---- per-warp partials --------------------------------------------------- */

typedef struct partials {
  double *device; /* one sum per warp */
  double *host;
  double result; /* outlives the asynchronous copy that reads it */
  unsigned warps;
  int warp_size;
} partials;

extern "C" void kl__integrate_gpu_partials_teardown(kl_args *a) {
  partials *p = (partials *)a->scratch;
  if (!p) return;
  (void)device_free(p->device);
  free(p->host);
  free(p);
  a->scratch = NULL;
}

extern "C" kl_status kl__integrate_gpu_partials_setup(kl_args *a) {
  int warp_size = 0;
  KL_GPU_CHECK(cudaDeviceGetAttribute(&warp_size, cudaDevAttrWarpSize, 0));
  partials *p = (partials *)calloc(1, sizeof *p);
  if (!p) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  a->scratch = p;
  p->warp_size = warp_size;
  p->warps = grid_for(a->plan->n, warp_size, POINTS_PER_THREAD);
  if (p->warps > PARTIALS_MAX) p->warps = PARTIALS_MAX;
  p->host = (double *)malloc(p->warps * sizeof(double));
  kl_status st = p->host ? device_alloc((void **)&p->device,
                                        p->warps * sizeof(double))
                         : KL_FAIL(KL_NO_MEMORY, "out of host memory");
  if (st != KL_OK) kl__integrate_gpu_partials_teardown(a);
  return st;
}

static kl_status launch_partials(const kl_args *a, const partials *p) {
  if (is_f32(a))
    integrate_warp_partials<float>
        <<<p->warps, p->warp_size, 0, stream_of(a)>>>(p->device, a->plan->n,
                                                      step(a));
  else
    integrate_warp_partials<double>
        <<<p->warps, p->warp_size, 0, stream_of(a)>>>(p->device, a->plan->n,
                                                      step(a));
  KL_GPU_CHECK_LAUNCH(integrate_warp_partials);
  return KL_OK;
}

extern "C" kl_status kl__integrate_gpu_partials_host(const kl_args *a) {
  partials *p = (partials *)a->scratch;
  kl_status st = launch_partials(a, p);
  if (st != KL_OK) return st;
  KL_GPU_CHECK(cudaMemcpyAsync(p->host, p->device, p->warps * sizeof(double),
                               cudaMemcpyDeviceToHost, stream_of(a)));
  KL_GPU_CHECK(cudaStreamSynchronize(stream_of(a)));
  double sum = 0;
  for (unsigned w = 0; w < p->warps; w++) sum += p->host[w];
  p->result = sum * step(a);
  KL_GPU_CHECK(cudaMemcpyAsync(out_of(a), &p->result, sizeof(double),
                               cudaMemcpyHostToDevice, stream_of(a)));
  return KL_OK;
}

extern "C" kl_status kl__integrate_gpu_partials_device(const kl_args *a) {
  partials *p = (partials *)a->scratch;
  kl_status st = launch_partials(a, p);
  if (st != KL_OK) return st;
  integrate_sum_partials<<<1, SUM_BLOCK, 0, stream_of(a)>>>(
      p->device, (int)p->warps, step(a), out_of(a));
  KL_GPU_CHECK_LAUNCH(integrate_sum_partials);
  return KL_OK;
}

/* ---- best: one pass over a resident grid --------------------------------- */

typedef struct best {
  double *block_sums;
  unsigned *retired;
  unsigned blocks;
} best;

extern "C" void kl__integrate_gpu_best_teardown(kl_args *a) {
  best *b = (best *)a->scratch;
  if (!b) return;
  (void)device_free(b->block_sums);
  (void)device_free(b->retired);
  free(b);
  a->scratch = NULL;
}

static kl_status best_allocate(kl_args *a, best *b) {
  int per_sm = 0;
  KL_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, is_f32(a) ? integrate_best<float> : integrate_best<double>,
      BEST_BLOCK, 0));
  int64_t resident = (int64_t)(per_sm > 0 ? per_sm : 1) * kl__gpu_sm_count();
  unsigned needed = grid_for(a->plan->n, BEST_BLOCK, 1);
  b->blocks = resident < needed ? (unsigned)resident : needed;
  kl_status st = device_alloc((void **)&b->block_sums,
                              b->blocks * sizeof(double));
  if (st == KL_OK) st = device_alloc((void **)&b->retired, sizeof(unsigned));
  if (st != KL_OK) return st;
  KL_GPU_CHECK(cudaMemsetAsync(b->retired, 0, sizeof(unsigned), stream_of(a)));
  return KL_OK;
}

extern "C" kl_status kl__integrate_gpu_best_setup(kl_args *a) {
  best *b = (best *)calloc(1, sizeof *b);
  if (!b) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  a->scratch = b;
  kl_status st = best_allocate(a, b);
  if (st != KL_OK) kl__integrate_gpu_best_teardown(a);
  return st;
}

extern "C" kl_status kl__integrate_gpu_best(const kl_args *a) {
  const best *b = (const best *)a->scratch;
  if (is_f32(a))
    integrate_best<float><<<b->blocks, BEST_BLOCK, 0, stream_of(a)>>>(
        out_of(a), b->block_sums, b->retired, (double)a->plan->n, step(a));
  else
    integrate_best<double><<<b->blocks, BEST_BLOCK, 0, stream_of(a)>>>(
        out_of(a), b->block_sums, b->retired, (double)a->plan->n, step(a));
  KL_GPU_CHECK_LAUNCH(integrate_best);
  return KL_OK;
}

/* ---- cub::DeviceReduce::TransformReduce ---------------------------------- */
#if !defined(KL_HAVE_HIP)

/* Point i's value by the plain rule: the one functor CUB needs. */
template <typename T> struct integrand_at {
  double h;
  __device__ double operator()(long long i) const {
    return value<T, INTEGRATE_PLAIN>(point(i, h));
  }
};

template <typename T>
static cudaError_t cub_reduce(void *temp, size_t *bytes, const kl_args *a) {
  integrand_at<T> op = {step(a)};
  return cub::DeviceReduce::TransformReduce(
      temp, *bytes, thrust::counting_iterator<long long>(0), out_of(a),
      (long long)a->plan->n, cuda::std::plus<>{}, op, 0.0, stream_of(a));
}

typedef struct vendor_temp {
  void *storage;
  size_t bytes;
} vendor_temp;

extern "C" void kl__integrate_gpu_cub_teardown(kl_args *a) {
  vendor_temp *t = (vendor_temp *)a->scratch;
  if (!t) return;
  (void)device_free(t->storage);
  free(t);
  a->scratch = NULL;
}

static kl_status cub_allocate(kl_args *a, vendor_temp *t) {
  KL_GPU_CHECK(is_f32(a) ? cub_reduce<float>(NULL, &t->bytes, a)
                         : cub_reduce<double>(NULL, &t->bytes, a));
  return device_alloc(&t->storage, t->bytes);
}

extern "C" kl_status kl__integrate_gpu_cub_setup(kl_args *a) {
  vendor_temp *t = (vendor_temp *)calloc(1, sizeof *t);
  if (!t) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  a->scratch = t;
  kl_status st = cub_allocate(a, t);
  if (st != KL_OK) kl__integrate_gpu_cub_teardown(a);
  return st;
}

extern "C" kl_status kl__integrate_gpu_cub(const kl_args *a) {
  vendor_temp *t = (vendor_temp *)a->scratch;
  KL_GPU_CHECK(is_f32(a) ? cub_reduce<float>(t->storage, &t->bytes, a)
                         : cub_reduce<double>(t->storage, &t->bytes, a));
  return scale_output(a);
}

#endif
