#include <stdint.h>

#include "../../backends/gpu.h"
#include "map.h"

#define MAP_BLOCK 256
/* float4 loads each thread issues before its first use. */
#define MAP_VEC_DEPTH 4

static __device__ __forceinline__ float quad(float a, float b, float c,
                                             float x) {
  return a * x * x + b * x + c;
}

/* The seed's kernel: one element per thread, 64-bit indices. Past the
 * largest grid (KL_GPU_MAX_BLOCKS) a thread takes one more element per
 * grid's width. */
__global__ void map_thread(const float *__restrict__ x, float *__restrict__ y,
                           float a, float b, float c, int64_t n) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    y[i] = quad(a, b, c, x[i]);
}

/* A grid sized to fill the device once; each thread strides by the whole
 * grid, so launch cost no longer grows with n. */
__global__ void map_grid_stride(const float *__restrict__ x,
                                float *__restrict__ y, float a, float b,
                                float c, int64_t n) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    y[i] = quad(a, b, c, x[i]);
}

/* Each block takes MAP_VEC_DEPTH * blockDim.x float4s at a time, read with
 * all loads in flight before any store; consecutive threads touch
 * consecutive 16-byte words, so every warp access is fully coalesced. Past
 * the largest grid, blocks stride by the grid. The n % 4 tail is done by
 * the first threads of block 0. */
__global__ void map_vec4(const float4 *__restrict__ x, float4 *__restrict__ y,
                         float a, float b, float c, int64_t n4,
                         const float *__restrict__ x_tail,
                         float *__restrict__ y_tail, int tail) {
  const int64_t per_block = (int64_t)blockDim.x * MAP_VEC_DEPTH;
  for (int64_t base = (int64_t)blockIdx.x * per_block + threadIdx.x;
       base - threadIdx.x < n4; base += (int64_t)gridDim.x * per_block) {
    float4 v[MAP_VEC_DEPTH];
#pragma unroll
    for (int k = 0; k < MAP_VEC_DEPTH; k++) {
      int64_t i = base + (int64_t)k * blockDim.x;
      if (i < n4) v[k] = x[i];
    }
#pragma unroll
    for (int k = 0; k < MAP_VEC_DEPTH; k++) {
      int64_t i = base + (int64_t)k * blockDim.x;
      if (i < n4) {
        float4 r;
        r.x = quad(a, b, c, v[k].x);
        r.y = quad(a, b, c, v[k].y);
        r.z = quad(a, b, c, v[k].z);
        r.w = quad(a, b, c, v[k].w);
        y[i] = r;
      }
    }
  }
  if (blockIdx.x == 0 && (int)threadIdx.x < tail)
    y_tail[threadIdx.x] = quad(a, b, c, x_tail[threadIdx.x]);
}

#define MAP_ARGS(args)                                                        \
  (const float *)(args)->buffers[MAP_X], (float *)(args)->buffers[MAP_Y],     \
      (float)(args)->plan->params[MAP_A], (float)(args)->plan->params[MAP_B], \
      (float)(args)->plan->params[MAP_C]

extern "C" kl_status kl__map_gpu_thread(const kl_args *a) {
  map_thread<<<kl__gpu_blocks(a->plan->n, MAP_BLOCK), MAP_BLOCK, 0,
               (cudaStream_t)a->stream>>>(MAP_ARGS(a), a->plan->n);
  KL_GPU_CHECK_LAUNCH(map_thread);
  return KL_OK;
}

extern "C" kl_status kl__map_gpu_grid_stride(const kl_args *a) {
  int64_t resident = (int64_t)kl__gpu_sm_count() *
                     (kl__gpu_max_threads_per_sm() / MAP_BLOCK);
  int64_t needed = kl__gpu_blocks(a->plan->n, MAP_BLOCK);
  unsigned blocks = (unsigned)(needed < resident ? needed : resident);
  map_grid_stride<<<blocks, MAP_BLOCK, 0, (cudaStream_t)a->stream>>>(
      MAP_ARGS(a), a->plan->n);
  KL_GPU_CHECK_LAUNCH(map_grid_stride);
  return KL_OK;
}

extern "C" kl_status kl__map_gpu_vec4(const kl_args *a) {
  const float *x = (const float *)a->buffers[MAP_X];
  float *y = (float *)a->buffers[MAP_Y];
  /* Callers of the library may pass buffers that are not 16-byte aligned;
   * they get the scalar kernel rather than a misaligned-address fault. */
  if (((uintptr_t)x | (uintptr_t)y) % sizeof(float4) != 0)
    return kl__map_gpu_grid_stride(a);
  int64_t n = a->plan->n, n4 = n / 4;
  int tail = (int)(n - 4 * n4);
  map_vec4<<<kl__gpu_blocks(n4, (int64_t)MAP_BLOCK * MAP_VEC_DEPTH),
             MAP_BLOCK, 0, (cudaStream_t)a->stream>>>(
      (const float4 *)x, (float4 *)y, (float)a->plan->params[MAP_A],
      (float)a->plan->params[MAP_B], (float)a->plan->params[MAP_C], n4,
      x + 4 * n4, y + 4 * n4, tail);
  KL_GPU_CHECK_LAUNCH(map_vec4);
  return KL_OK;
}
