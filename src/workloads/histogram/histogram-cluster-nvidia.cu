/* histogram with thread-block clusters (Hopper, sm_90): the 256 bins are
 * split over the shared memories of a cluster's blocks, and every block
 * counts its bytes into whichever block owns the bin, through distributed
 * shared memory. The Programming Guide shows the technique for histograms
 * too large for one block; 256 bins fit one block many times over, so here
 * it is a teaching rung: what a remote shared atomic costs against a local
 * one (LESSONS.md). Built in CUDA builds only. */
#include <cooperative_groups.h>
#include "histogram-gpu.h"

namespace cg = cooperative_groups;

#define CLUSTER 4
#define CLUSTER_THREADS 1024
/* Bins per block; bin b lives in block b % CLUSTER at b / CLUSTER, so that
 * text-like data spreads over the cluster. Each bin has a column per bank,
 * as in the best rung, so that a warp's increments never share a bank. */
#define OWNED (HIST_BINS / CLUSTER)

/* mapa turns the address in this block's shared memory into the same
 * address in the owner's: one instruction, no table of pointers (which
 * a run-time index would put in local memory). */
static __device__ __forceinline__ void count_remote(cg::cluster_group &cluster,
                                                    unsigned *mine,
                                                    unsigned bin) {
  atomicAdd(cluster.map_shared_rank(mine + (bin / CLUSTER) * BANKS, bin % CLUSTER),
            1u);
}

template <typename C>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(CLUSTER_THREADS)
    cluster_kernel(const uint8_t *__restrict__ data, int64_t n, C *counts) {
  __shared__ unsigned owned[OWNED * BANKS];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < OWNED * BANKS; i += blockDim.x) owned[i] = 0;
  /* Every block's counters are zero before any block adds to them. */
  cluster.sync();
  unsigned *mine = owned + threadIdx.x % BANKS;
  const aligned_span s = split_aligned<16>(data, n);
  const uint4 *v = (const uint4 *)(data + s.head);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < s.words;
       i += stride) {
    const uint4 r = __ldcs(v + i);
    const unsigned w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
    for (int k = 0; k < 16; k++)
      count_remote(cluster, mine, (w[k / 4] >> (8 * (k % 4))) & 255u);
  }
  if (blockIdx.x == 0) {
    const int64_t t = threadIdx.x, tail = s.head + s.words * 16 + t;
    if (t < s.head) count_remote(cluster, mine, data[t]);
    if (t < 16 && tail < n) count_remote(cluster, mine, data[tail]);
  }
  /* Every remote add has landed before the owners read their bins, and no
   * block leaves while another may still write to its memory. */
  cluster.sync();
  for (int b = threadIdx.x; b < OWNED; b += blockDim.x) {
    const unsigned sum = sum_columns(owned, b);
    if (sum) atomicAdd(counts + b * CLUSTER + cluster.block_rank(), (C)sum);
  }
}

template <typename C>
static kl_status cluster_rung(const kl_args *a) {
  cudaStream_t s = (cudaStream_t)a->stream;
  kl_status st = start_counts<C>(a);
  if (st != KL_OK) return st;
  const int64_t n = HIST_LENGTH(a->plan);
  /* Two blocks of 1024 threads per multiprocessor, rounded up to whole
   * clusters (the grid limit is a multiple of CLUSTER). */
  int64_t blocks = block_limit(n, (int64_t)2 * a->ctx->device.compute_units);
  blocks = (blocks + CLUSTER - 1) / CLUSTER * CLUSTER;
  cluster_kernel<C><<<(unsigned)blocks, CLUSTER_THREADS, 0, s>>>(
      HIST_BYTES(a), n, (C *)a->buffers[HIST_COUNTS]);
  KL_GPU_CHECK_LAUNCH(cluster_kernel);
  return KL_OK;
}

extern "C" kl_status kl__histogram_gpu_cluster(const kl_args *a) {
  HIST_DISPATCH(cluster_rung, a);
}
