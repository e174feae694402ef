#include <stdint.h>

#include "../../backends/gpu.h"
#include "transfer.h"

static int64_t chunk_of(const kl_plan *p) {
  const int64_t c = (int64_t)p->value[XFER_PARAM_CHUNK];
  return c < p->n ? c : p->n;
}

static kl_status ring_scratch(kl_plan *p, kl_placement host) {
  p->buffers[XFER_X].placement = host;
  p->buffers[XFER_Y].placement = host;
  return kl__plan_scratch(p, XFER_RING, "ring", KL_F32,
                          XFER_RING_SLOTS * chunk_of(p), KL_MEM_DEVICE, 0);
}

extern "C" kl_status kl__transfer_gpu_pinned_scratch(kl_plan *p) {
  return ring_scratch(p, KL_MEM_PINNED);
}

/* The rung's scratch hook moves the host arrays to pageable memory. */
extern "C" kl_status kl__transfer_gpu_pageable_scratch(kl_plan *p) {
  return ring_scratch(p, KL_MEM_PAGEABLE);
}

typedef struct ring {
  const float *x;
  float *y, *slots;
  int64_t n, chunk, chunks;
  cudaStream_t in, out;
} ring;

static ring ring_of(const kl_args *a) {
  ring g;
  g.x = (const float *)a->buffers[XFER_X];
  g.y = (float *)a->buffers[XFER_Y];
  g.slots = (float *)a->buffers[XFER_RING];
  g.n = a->plan->n;
  g.chunk = chunk_of(a->plan);
  g.chunks = (g.n + g.chunk - 1) / g.chunk;
  g.in = (cudaStream_t)a->ctx->streams[0];
  g.out = (cudaStream_t)a->ctx->streams[1];
  return g;
}

static size_t bytes_of(const ring *g, int64_t k) {
  const int64_t left = g->n - k * g->chunk;
  return (size_t)(left < g->chunk ? left : g->chunk) * sizeof(float);
}

/* Each chunk in and back on one stream: the copies take turns. */
extern "C" kl_status kl__transfer_gpu_one_stream(const kl_args *a) {
  const ring g = ring_of(a);
  for (int64_t k = 0; k < g.chunks; k++) {
    KL_GPU_CHECK(cudaMemcpyAsync(g.slots, g.x + k * g.chunk, bytes_of(&g, k),
                                 cudaMemcpyHostToDevice, g.in));
    KL_GPU_CHECK(cudaMemcpyAsync(g.y + k * g.chunk, g.slots, bytes_of(&g, k),
                                 cudaMemcpyDeviceToHost, g.in));
  }
  return KL_OK;
}

/* Chunk k into slot k % 3 on the in-stream, then back from it on the
 * out-stream once in; a slot is refilled once its copy back is done. The
 * events order the two streams, a pair per slot; each wait sees the
 * slot's latest record, which is the one it needs. */
typedef struct ring_events {
  cudaEvent_t filled[XFER_RING_SLOTS], emptied[XFER_RING_SLOTS];
} ring_events;

static kl_status duplex(const ring *g, ring_events *e) {
  for (int64_t k = 0; k < g->chunks; k++) {
    const int slot = (int)(k % XFER_RING_SLOTS);
    float *dev = g->slots + slot * g->chunk;
    if (k >= XFER_RING_SLOTS)
      KL_GPU_CHECK(cudaStreamWaitEvent(g->in, e->emptied[slot], 0));
    KL_GPU_CHECK(cudaMemcpyAsync(dev, g->x + k * g->chunk, bytes_of(g, k),
                                 cudaMemcpyHostToDevice, g->in));
    KL_GPU_CHECK(cudaEventRecord(e->filled[slot], g->in));
    KL_GPU_CHECK(cudaStreamWaitEvent(g->out, e->filled[slot], 0));
    KL_GPU_CHECK(cudaMemcpyAsync(g->y + k * g->chunk, dev, bytes_of(g, k),
                                 cudaMemcpyDeviceToHost, g->out));
    KL_GPU_CHECK(cudaEventRecord(e->emptied[slot], g->out));
  }
  /* The run ends on the in-stream, where the harness times it. */
  const int last = (int)((g->chunks - 1) % XFER_RING_SLOTS);
  KL_GPU_CHECK(cudaStreamWaitEvent(g->in, e->emptied[last], 0));
  return KL_OK;
}

extern "C" kl_status kl__transfer_gpu_duplex(const kl_args *a) {
  const ring g = ring_of(a);
  ring_events e = {};
  kl_status st = KL_OK;
  for (int s = 0; s < XFER_RING_SLOTS && st == KL_OK; s++) {
    cudaError_t err =
        cudaEventCreateWithFlags(&e.filled[s], cudaEventDisableTiming);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags(&e.emptied[s], cudaEventDisableTiming);
    if (err != cudaSuccess)
      st = KL_FAIL(KL_DEVICE, "cudaEventCreateWithFlags failed: %s",
                   cudaGetErrorString(err));
  }
  if (st == KL_OK) st = duplex(&g, &e);
  /* An event destroyed while a stream still waits on it completes as
   * recorded: the runtime releases it afterwards. */
  for (int s = 0; s < XFER_RING_SLOTS; s++) {
    if (e.filled[s]) (void)cudaEventDestroy(e.filled[s]);
    if (e.emptied[s]) (void)cudaEventDestroy(e.emptied[s]);
  }
  return st;
}
