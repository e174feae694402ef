/* The integrate ladder on the GPU: each rung's kernel, launcher and entry
 * in ladder order; the kernels the partials and best rungs share with
 * pipeline are in integrand-gpu.h. Launches are sized by the context's
 * device; a scratch hook, which runs when the plan is made, before any
 * context opens, takes the device the backend's probe found. */
#include <stdint.h>
#include <stdlib.h>

#include "integrand-gpu.h"

#define SEED_BLOCK 256  /* the seed's block for the atomic rungs */
#define WIDE_BLOCK 1024 /* the largest block: fewest global atomics */
#define POINTS_PER_THREAD 100
/* Caps the partials array (512 KiB) for large n; 1e8 points need 31250
 * warps of 32 lanes at 100 points each, the seed's configuration. */
#define PARTIALS_MAX 65536

/* ---- what the rungs share ------------------------------------------------ */

static cudaStream_t stream_of(const kl_args *a) {
  return (cudaStream_t)a->stream;
}
static double *out_of(const kl_args *a) {
  return (double *)a->buffers[INTEGRATE_OUT];
}
static double step(const kl_args *a) { return a->plan->constants[INTEGRATE_H]; }
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

/* ---- 1. one global atomic per point ------------------------------------- */

template <typename T>
__global__ void integrate_atomic(double *sum, int64_t n, double h) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    kl_atomic<KL_OP_SUM>(sum, value<T, INTEGRATE_PLAIN>(point(i, h)));
}

template <typename T> static kl_status launch_atomic(const kl_args *a) {
  integrate_atomic<T>
      <<<grid_for(a->plan->n, SEED_BLOCK, 1), SEED_BLOCK, 0, stream_of(a)>>>(
          out_of(a), a->plan->n, step(a));
  KL_GPU_CHECK_LAUNCH(integrate_atomic);
  return KL_OK;
}

extern "C" kl_status kl__integrate_gpu_atomic(const kl_args *a) {
  kl_status st = zero_output(a);
  if (st == KL_OK)
    st = is_f32(a) ? launch_atomic<float>(a) : launch_atomic<double>(a);
  return st == KL_OK ? scale_output(a) : st;
}

/* ---- 2. a shared atomic per point, one global atomic per block --------- */

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

template <typename T> static kl_status launch_shared_atomic(const kl_args *a) {
  integrate_shared_atomic<T>
      <<<grid_for(a->plan->n, SEED_BLOCK, 1), SEED_BLOCK, 0, stream_of(a)>>>(
          out_of(a), a->plan->n, step(a));
  KL_GPU_CHECK_LAUNCH(integrate_shared_atomic);
  return KL_OK;
}

extern "C" kl_status kl__integrate_gpu_shared_atomic(const kl_args *a) {
  kl_status st = zero_output(a);
  if (st == KL_OK)
    st = is_f32(a) ? launch_shared_atomic<float>(a)
                   : launch_shared_atomic<double>(a);
  return st == KL_OK ? scale_output(a) : st;
}

/* ---- 3 to 5. warp shuffles, one shared atomic per warp ------------------ */

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

template <typename T, int EVAL>
static kl_status launch_shuffle(const kl_args *a, int64_t per_thread) {
  integrate_shuffle<T, EVAL>
      <<<grid_for(a->plan->n, WIDE_BLOCK, per_thread), WIDE_BLOCK, 0,
         stream_of(a)>>>(out_of(a), a->plan->n, step(a));
  KL_GPU_CHECK_LAUNCH(integrate_shuffle);
  return KL_OK;
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
/* Scratch: one sum per warp on the device and its host copy, and the
 * result in host memory, which must outlive the copy that reads it. */
#define PARTIALS(a) ((double *)(a)->buffers[INTEGRATE_SCRATCH])
#define HOST_PARTIALS(a) ((double *)(a)->buffers[INTEGRATE_SCRATCH + 1])
#define HOST_RESULT(a) ((double *)(a)->buffers[INTEGRATE_SCRATCH + 2])
#define WARPS(a) ((unsigned)(a)->plan->buffers[INTEGRATE_SCRATCH].count)

extern "C" kl_status kl__integrate_gpu_partials_scratch(kl_plan *p) {
  KL_TRY(kl__plan_has_device(p));
  unsigned warps = grid_for(p->n, p->device->lanes, POINTS_PER_THREAD);
  if (warps > PARTIALS_MAX) warps = PARTIALS_MAX;
  kl_status st = kl__plan_scratch(p, INTEGRATE_SCRATCH, "partials", KL_F64,
                                  warps, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, INTEGRATE_SCRATCH + 1, "host partials", KL_F64,
                          warps, KL_MEM_PAGEABLE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, INTEGRATE_SCRATCH + 2, "host result", KL_F64, 1,
                          KL_MEM_PAGEABLE, 0);
  return st;
}

static kl_status launch_partials(const kl_args *a) {
  const int warp = a->ctx->device.lanes;
  if (is_f32(a))
    integrate_warp_partials<float><<<WARPS(a), warp, 0, stream_of(a)>>>(
        PARTIALS(a), 0, a->plan->n, step(a));
  else
    integrate_warp_partials<double><<<WARPS(a), warp, 0, stream_of(a)>>>(
        PARTIALS(a), 0, a->plan->n, step(a));
  KL_GPU_CHECK_LAUNCH(integrate_warp_partials);
  return KL_OK;
}

extern "C" kl_status kl__integrate_gpu_partials_host(const kl_args *a) {
  kl_status st = launch_partials(a);
  if (st != KL_OK) return st;
  double *host = HOST_PARTIALS(a);
  KL_GPU_CHECK(cudaMemcpyAsync(host, PARTIALS(a), WARPS(a) * sizeof(double),
                               cudaMemcpyDeviceToHost, stream_of(a)));
  KL_GPU_CHECK(cudaStreamSynchronize(stream_of(a)));
  double sum = 0;
  for (unsigned w = 0; w < WARPS(a); w++) sum += host[w];
  *HOST_RESULT(a) = sum * step(a);
  KL_GPU_CHECK(cudaMemcpyAsync(out_of(a), HOST_RESULT(a), sizeof(double),
                               cudaMemcpyHostToDevice, stream_of(a)));
  return KL_OK;
}

extern "C" kl_status kl__integrate_gpu_partials_device(const kl_args *a) {
  kl_status st = launch_partials(a);
  if (st != KL_OK) return st;
  integrate_sum_partials<<<1, SUM_BLOCK, 0, stream_of(a)>>>(
      PARTIALS(a), (int)WARPS(a), step(a), out_of(a));
  KL_GPU_CHECK_LAUNCH(integrate_sum_partials);
  return KL_OK;
}

/* ---- best: one pass over a resident grid --------------------------------- */
/* Scratch: a sum per block of the resident grid, and the retirement
 * counter, zero at the start and left so by the last block. */
#define BLOCK_SUMS(a) ((double *)(a)->buffers[INTEGRATE_SCRATCH])
#define RETIRED(a) ((unsigned *)(a)->buffers[INTEGRATE_SCRATCH + 1])
#define BLOCKS(a) ((unsigned)(a)->plan->buffers[INTEGRATE_SCRATCH].count)

extern "C" kl_status kl__integrate_gpu_best_scratch(kl_plan *p) {
  KL_TRY(kl__plan_has_device(p));
  int per_sm = 0;
  KL_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm,
      p->type == KL_F32 ? integrate_best<float> : integrate_best<double>,
      BEST_BLOCK, 0));
  int64_t resident =
      (int64_t)(per_sm > 0 ? per_sm : 1) * p->device->compute_units;
  unsigned needed = grid_for(p->n, BEST_BLOCK, 1);
  const unsigned blocks = resident < needed ? (unsigned)resident : needed;
  kl_status st = kl__plan_scratch(p, INTEGRATE_SCRATCH, "block sums", KL_F64,
                                  blocks, KL_MEM_DEVICE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, INTEGRATE_SCRATCH + 1, "retired", KL_I32, 1,
                          KL_MEM_DEVICE, KL_BUFFER_ZEROED);
  return st;
}

extern "C" kl_status kl__integrate_gpu_best(const kl_args *a) {
  if (is_f32(a))
    integrate_best<float><<<BLOCKS(a), BEST_BLOCK, 0, stream_of(a)>>>(
        out_of(a), BLOCK_SUMS(a), RETIRED(a), 0.0, (double)a->plan->n,
        step(a));
  else
    integrate_best<double><<<BLOCKS(a), BEST_BLOCK, 0, stream_of(a)>>>(
        out_of(a), BLOCK_SUMS(a), RETIRED(a), 0.0, (double)a->plan->n,
        step(a));
  KL_GPU_CHECK_LAUNCH(integrate_best);
  return KL_OK;
}
