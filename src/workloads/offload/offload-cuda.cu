/* The chunked rungs: chunk k of x goes in on stream k % S, map's kernel
 * turns it into y's chunk on the device, and it comes back on the same
 * stream, which orders the reuse of that stream's device buffers. Every
 * copy and kernel is a span of the timeline. */
#include <stdint.h>
#include <stdlib.h>

#include "../../backends/gpu-timeline.h"
#include "offload.h"

static int64_t chunk_of(const kl_plan *p) {
  const int64_t c = (int64_t)p->value[OFFLOAD_PARAM_CHUNK];
  return c < p->n ? c : p->n;
}

static int64_t chunks_of(const kl_plan *p) {
  return (p->n + chunk_of(p) - 1) / chunk_of(p);
}

/* A chunk of x and one of y on the device per stream; the rung's host
 * arrays in its placement. */
static kl_status chunk_scratch(kl_plan *p, kl_placement host, int streams) {
  p->buffers[MAP_X].placement = host;
  p->buffers[MAP_Y].placement = host;
  p->constants[OFFLOAD_STREAM_COUNT] = streams;
  p->constant_count = OFFLOAD_STREAM_COUNT + 1;
  const int64_t count = streams * chunk_of(p);
  KL_TRY(kl__plan_scratch(p, OFFLOAD_DEVICE_X, "device x", KL_F32, count,
                          KL_MEM_DEVICE, 0));
  return kl__plan_scratch(p, OFFLOAD_DEVICE_Y, "device y", KL_F32, count,
                          KL_MEM_DEVICE, 0);
}

/* Each rung's scratch: its placement and stream count. */
extern "C" kl_status kl__offload_gpu_pageable_1_scratch(kl_plan *p) {
  return chunk_scratch(p, KL_MEM_PAGEABLE, 1);
}

extern "C" kl_status kl__offload_gpu_pageable_2_scratch(kl_plan *p) {
  return chunk_scratch(p, KL_MEM_PAGEABLE, 2);
}

extern "C" kl_status kl__offload_gpu_pageable_3_scratch(kl_plan *p) {
  return chunk_scratch(p, KL_MEM_PAGEABLE, 3);
}

extern "C" kl_status kl__offload_gpu_pageable_4_scratch(kl_plan *p) {
  return chunk_scratch(p, KL_MEM_PAGEABLE, 4);
}

extern "C" kl_status kl__offload_gpu_pinned_1_scratch(kl_plan *p) {
  return chunk_scratch(p, KL_MEM_PINNED, 1);
}

extern "C" kl_status kl__offload_gpu_pinned_2_scratch(kl_plan *p) {
  return chunk_scratch(p, KL_MEM_PINNED, 2);
}

extern "C" kl_status kl__offload_gpu_pinned_3_scratch(kl_plan *p) {
  return chunk_scratch(p, KL_MEM_PINNED, 3);
}

extern "C" kl_status kl__offload_gpu_pinned_4_scratch(kl_plan *p) {
  return chunk_scratch(p, KL_MEM_PINNED, 4);
}

/* Three spans per chunk, as many as the trace holds: a finer problem
 * runs as well, its trace marked as lost. */
extern "C" kl_status kl__offload_gpu_setup(kl_args *a) {
  const int64_t spans = 3 * chunks_of(a->plan);
  kl_gpu_timeline *t = NULL;
  KL_TRY(kl__timeline_open(&t, spans < KL_MAX_TRACE_EVENTS
                                   ? (int)spans
                                   : KL_MAX_TRACE_EVENTS));
  a->state.pointer[0] = t;
  return KL_OK;
}

extern "C" void kl__offload_gpu_teardown(kl_args *a) {
  kl__timeline_close((kl_gpu_timeline *)a->state.pointer[0]);
  a->state.pointer[0] = NULL;
}

/* One repetition: every chunk issued, then its events read. */
static kl_status issue(const kl_args *a, kl_gpu_timeline *t) {
  const kl_plan *p = a->plan;
  const int streams = (int)p->constants[OFFLOAD_STREAM_COUNT];
  const int64_t chunk = chunk_of(p), chunks = chunks_of(p);
  const float *x = (const float *)a->buffers[MAP_X];
  float *y = (float *)a->buffers[MAP_Y];
  float *dx = (float *)a->buffers[OFFLOAD_DEVICE_X];
  float *dy = (float *)a->buffers[OFFLOAD_DEVICE_Y];
  for (int64_t k = 0; k < chunks; k++) {
    const int s = (int)(k % streams);
    cudaStream_t on = (cudaStream_t)a->ctx->streams[s];
    const int64_t first = k * chunk;
    const int64_t count = p->n - first < chunk ? p->n - first : chunk;
    const size_t bytes = (size_t)count * sizeof(float);
    float *in = dx + s * chunk, *out = dy + s * chunk;
    int span;
    KL_TRY(kl__span_begin(t, on, &span));
    KL_GPU_CHECK(cudaMemcpyAsync(in, x + first, bytes,
                                 cudaMemcpyHostToDevice, on));
    KL_TRY(kl__span_end(t, on, span, s, OFFLOAD_H2D, (int)k));
    KL_TRY(kl__span_begin(t, on, &span));
    KL_TRY(kl__map_gpu_apply(in, out, count, p->constants, &a->ctx->device,
                             on));
    KL_TRY(kl__span_end(t, on, span, s, OFFLOAD_KERNEL, (int)k));
    KL_TRY(kl__span_begin(t, on, &span));
    KL_GPU_CHECK(cudaMemcpyAsync(y + first, out, bytes,
                                 cudaMemcpyDeviceToHost, on));
    KL_TRY(kl__span_end(t, on, span, s, OFFLOAD_D2H, (int)k));
  }
  return KL_OK;
}

extern "C" kl_status kl__offload_gpu_chunks(const kl_args *a, kl_reps *reps) {
  kl_gpu_timeline *t = (kl_gpu_timeline *)a->state.pointer[0];
  for (int r = 0; r < reps->count; r++) {
    if (a->reset) KL_TRY(a->reset(a));
    KL_TRY(kl__timeline_begin(t, (cudaStream_t)a->ctx->streams[0]));
    KL_TRY(issue(a, t));
    KL_TRY(kl__timeline_end(t, reps, r, 3));
  }
  return KL_OK;
}
