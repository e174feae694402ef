/* The seed's ladder (section 3.4) on the GPU: every rung owns its loop and
 * traces each kernel, copy and host sum on a kl_gpu_timeline, so the
 * table's phases and overlap are its trace's. */
#include <stdint.h>
#include <stdlib.h>

#include "../../backends/gpu-timeline.h"
#include "../integrate/integrand-gpu.h"
#include "pipeline.h"

/* Scratch, per rung (pipeline.h): the seed's rungs keep two buffers of
 * partial sums (double buffering; the one-buffer rungs use the first),
 * each a multiple of two doubles so that the summing kernel's 16-byte
 * loads stay aligned. */
#define BUFFERS 2

static int64_t even(int64_t k) { return k + k % 2; }

/* One partial sum per warp-sized block, at most KL_GPU_MAX_BLOCKS blocks;
 * past that each thread strides over more than one point. The scratch
 * hooks size by the device the plan is made for (the run's context's). */
static int64_t partials_per_interval(int64_t n, const kl_device *d) {
  return kl__gpu_blocks(n, d->lanes);
}

static kl_status seed_scratch(kl_plan *p, kl_placement host) {
  KL_TRY(kl__plan_has_device(p));
  const int64_t per = partials_per_interval(p->n, p->device);
  const int64_t intervals = kl__pipe_intervals(p);
  p->constants[PIPE_PER_INTERVAL] = (double)per;
  KL_TRY(kl__plan_scratch(p, PIPE_PARTIALS, "partials", KL_F64,
                          BUFFERS * even(per), KL_MEM_DEVICE, 0));
  KL_TRY(kl__plan_scratch(p, PIPE_HOST_PARTIALS, "host partials", KL_F64,
                          BUFFERS * even(per), host, 0));
  KL_TRY(kl__plan_scratch(p, PIPE_RESULTS, "results", KL_F64, intervals,
                          KL_MEM_DEVICE, 0));
  return kl__plan_scratch(p, PIPE_HOST_RESULTS, "host results", KL_F64,
                          intervals, KL_MEM_PINNED, 0);
}

extern "C" kl_status kl__pipe_gpu_pageable_scratch(kl_plan *p) {
  return seed_scratch(p, KL_MEM_PAGEABLE);
}

extern "C" kl_status kl__pipe_gpu_pinned_scratch(kl_plan *p) {
  return seed_scratch(p, KL_MEM_PINNED);
}

/* ---- the rungs' state ----------------------------------------------------
 * The timeline; two blocking streams of the rung's own (the default-stream
 * rung: the context's streams do not wait for the legacy stream, by
 * design); an event per stream that orders kernels across streams; the
 * best rung's graph. */
typedef struct state {
  kl_gpu_timeline *timeline;
  cudaStream_t blocking[BUFFERS];
  cudaEvent_t order[KL_MAX_STREAMS];
  cudaGraphExec_t graph;
} state;

#define STATE(a) ((state *)(a)->state.pointer[0])
/* The track of the legacy default stream in the default-stream rung's
 * trace: the rung's own two streams are tracks 0 and 1. */
#define LEGACY_TRACK 2

extern "C" void kl__pipe_gpu_teardown(kl_args *a) {
  state *s = STATE(a);
  if (!s) return;
  kl__timeline_close(s->timeline);
  for (int b = 0; b < BUFFERS; b++)
    if (s->blocking[b]) (void)cudaStreamDestroy(s->blocking[b]);
  for (int k = 0; k < KL_MAX_STREAMS; k++)
    if (s->order[k]) (void)cudaEventDestroy(s->order[k]);
  if (s->graph) (void)cudaGraphExecDestroy(s->graph);
  free(s);
  a->state.pointer[0] = NULL;
}

extern "C" kl_status kl__pipe_gpu_setup(kl_args *a) {
  state *s = (state *)calloc(1, sizeof *s);
  if (!s) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  a->state.pointer[0] = s;
  /* Per interval a kernel, a copy or a second kernel, and a host sum;
   * then the results' copy and sum. */
  kl_status st = kl__timeline_open(
      &s->timeline, 4 * (int)kl__pipe_intervals(a->plan) + 4);
  for (int b = 0; b < BUFFERS && st == KL_OK; b++) {
    cudaError_t err = cudaStreamCreate(&s->blocking[b]);
    if (err != cudaSuccess)
      st = KL_FAIL(KL_DEVICE, "cudaStreamCreate failed: %s",
                   cudaGetErrorString(err));
  }
  for (int k = 0; k < KL_MAX_STREAMS && st == KL_OK; k++) {
    cudaError_t err =
        cudaEventCreateWithFlags(&s->order[k], cudaEventDisableTiming);
    if (err != cudaSuccess)
      st = KL_FAIL(KL_DEVICE, "cudaEventCreateWithFlags failed: %s",
                   cudaGetErrorString(err));
  }
  if (st != KL_OK) kl__pipe_gpu_teardown(a);
  return st;
}

/* ---- one repetition's pieces --------------------------------------------- */
typedef struct pipe_state {
  const kl_args *a;
  state *s;
  int64_t n, intervals, per, stride;
  double h;
  double *partials, *host_partials, *results, *host_results;
} pipe_state;

static pipe_state pipe_of(const kl_args *a) {
  const kl_plan *p = a->plan;
  pipe_state q;
  q.a = a;
  q.s = STATE(a);
  q.n = p->n;
  q.intervals = kl__pipe_intervals(p);
  q.per = (int64_t)p->constants[PIPE_PER_INTERVAL];
  q.stride = even(q.per);
  q.h = p->constants[PIPE_H];
  q.partials = (double *)a->buffers[PIPE_PARTIALS];
  q.host_partials = (double *)a->buffers[PIPE_HOST_PARTIALS];
  q.results = (double *)a->buffers[PIPE_RESULTS];
  q.host_results = (double *)a->buffers[PIPE_HOST_RESULTS];
  return q;
}

static cudaStream_t stream(const pipe_state *q, int k) {
  return (cudaStream_t)q->a->ctx->streams[k];
}

/* Interval j's partial sums into buffer b, on stream `on` (track). */
static kl_status partials_kernel(const pipe_state *q, int b, int64_t j,
                                 cudaStream_t on, int track) {
  int span;
  KL_TRY(kl__span_begin(q->s->timeline, on, &span));
  integrate_warp_partials<double>
      <<<(unsigned)q->per, q->a->ctx->device.lanes, 0, on>>>(
          q->partials + b * q->stride, j * q->n, q->n, q->h);
  KL_GPU_CHECK_LAUNCH(integrate_warp_partials);
  return kl__span_end(q->s->timeline, on, span, track, PIPE_KERNEL, (int)j);
}

/* Buffer b's partial sums summed on the device into results[j]. */
static kl_status sum_kernel(const pipe_state *q, int b, int64_t j, cudaStream_t on,
                            int track) {
  int span;
  KL_TRY(kl__span_begin(q->s->timeline, on, &span));
  integrate_sum_partials<<<1, SUM_BLOCK, 0, on>>>(
      q->partials + b * q->stride, (int)q->per, q->h, q->results + j);
  KL_GPU_CHECK_LAUNCH(integrate_sum_partials);
  return kl__span_end(q->s->timeline, on, span, track, PIPE_KERNEL, (int)j);
}

static kl_status copy_back(const pipe_state *q, void *dst, const void *src,
                           size_t bytes, int64_t item, cudaStream_t on,
                           int track) {
  int span;
  KL_TRY(kl__span_begin(q->s->timeline, on, &span));
  KL_GPU_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, on));
  return kl__span_end(q->s->timeline, on, span, track, PIPE_D2H, (int)item);
}

static kl_status copy_partials(const pipe_state *q, int b, int64_t j,
                               cudaStream_t on, int track) {
  return copy_back(q, q->host_partials + b * q->stride,
                   q->partials + b * q->stride,
                   (size_t)q->per * sizeof(double), j, on, track);
}

/* The host's sum of `count` values, traced as host work on item j. */
static double host_sum(const pipe_state *q, const double *v, int64_t count,
                       int64_t j) {
  const double start = kl__timeline_clock(q->s->timeline);
  double sum = 0;
  for (int64_t i = 0; i < count; i++) sum += v[i];
  kl__timeline_host(q->s->timeline, PIPE_HOST, (int)j, start,
                    kl__timeline_clock(q->s->timeline));
  return sum;
}

static double sum_partials(const pipe_state *q, int b, int64_t j) {
  return host_sum(q, q->host_partials + b * q->stride, q->per, j);
}

/* The rung's loop: each repetition starts on an idle device, is issued by
 * `issue`, which leaves the integral in the output, and is then read off
 * its timeline. */
typedef kl_status (*issue_fn)(const pipe_state *q);

static kl_status repeat(const kl_args *a, kl_reps *reps, issue_fn issue) {
  const pipe_state q = pipe_of(a);
  for (int r = 0; r < reps->count; r++) {
    if (a->reset) KL_TRY(a->reset(a));
    KL_TRY(kl__timeline_begin(q.s->timeline, stream(&q, 0)));
    KL_TRY(issue(&q));
    KL_TRY(kl__timeline_end(q.s->timeline, reps, r, 3));
  }
  return KL_OK;
}

static void write_integral(const pipe_state *q, double total) {
  *(double *)q->a->buffers[PIPE_OUT] = total;
}

/* ---- 1. sum_on_cpu: kernel, synchronous copy, host sum, in turn --------- */
static kl_status issue_sum_on_cpu(const pipe_state *q) {
  cudaStream_t on = stream(q, 0);
  double total = 0;
  for (int64_t j = 0; j < q->intervals; j++) {
    KL_TRY(partials_kernel(q, 0, j, on, 0));
    KL_TRY(copy_partials(q, 0, j, on, 0));
    KL_GPU_CHECK(cudaStreamSynchronize(on));
    total += sum_partials(q, 0, j);
  }
  write_integral(q, total * q->h);
  return KL_OK;
}

extern "C" kl_status kl__pipe_gpu_sum_on_cpu(const kl_args *a, kl_reps *r) {
  return repeat(a, r, issue_sum_on_cpu);
}

/* ---- 2. hide_cpu: the host sums interval j-1 while kernel j runs -------- */
static kl_status issue_hide_cpu(const pipe_state *q) {
  cudaStream_t on = stream(q, 0);
  double total = 0;
  KL_TRY(partials_kernel(q, 0, 0, on, 0));
  KL_TRY(copy_partials(q, 0, 0, on, 0));
  KL_GPU_CHECK(cudaStreamSynchronize(on));
  for (int64_t j = 1; j < q->intervals; j++) {
    KL_TRY(partials_kernel(q, 0, j, on, 0));
    total += sum_partials(q, 0, j - 1);
    KL_TRY(copy_partials(q, 0, j, on, 0));
    KL_GPU_CHECK(cudaStreamSynchronize(on));
  }
  total += sum_partials(q, 0, q->intervals - 1);
  write_integral(q, total * q->h);
  return KL_OK;
}

extern "C" kl_status kl__pipe_gpu_hide_cpu(const kl_args *a, kl_reps *r) {
  return repeat(a, r, issue_hide_cpu);
}

/* ---- 3, 4. double buffering over two streams ---------------------------
 * Interval j on stream and buffer j % 2; the host waits for interval j-1
 * and sums it while interval j runs. With `ordered`, kernel j first waits
 * for kernel j-1 (an event), so kernels do not overlap one another and
 * the copies hide behind them. */
static kl_status double_buffer(const pipe_state *q, int ordered) {
  double total = 0;
  for (int64_t j = 0; j < q->intervals; j++) {
    const int b = (int)(j % BUFFERS), prior = 1 - b;
    cudaStream_t on = stream(q, b);
    if (ordered && j > 0)
      KL_GPU_CHECK(cudaStreamWaitEvent(on, q->s->order[prior], 0));
    KL_TRY(partials_kernel(q, b, j, on, b));
    if (ordered) KL_GPU_CHECK(cudaEventRecord(q->s->order[b], on));
    KL_TRY(copy_partials(q, b, j, on, b));
    if (j == 0) continue;
    KL_GPU_CHECK(cudaStreamSynchronize(stream(q, prior)));
    total += sum_partials(q, prior, j - 1);
  }
  const int last = (int)((q->intervals - 1) % BUFFERS);
  KL_GPU_CHECK(cudaStreamSynchronize(stream(q, last)));
  total += sum_partials(q, last, q->intervals - 1);
  write_integral(q, total * q->h);
  return KL_OK;
}

static kl_status issue_double_buffer(const pipe_state *q) {
  return double_buffer(q, 0);
}

extern "C" kl_status kl__pipe_gpu_double_buffer(const kl_args *a,
                                                kl_reps *r) {
  return repeat(a, r, issue_double_buffer);
}

static kl_status issue_hide_copy(const pipe_state *q) { return double_buffer(q, 1); }

extern "C" kl_status kl__pipe_gpu_hide_copy(const kl_args *a, kl_reps *r) {
  return repeat(a, r, issue_hide_copy);
}

/* The intervals' results, on the device, copied back on `on` and summed. */
static kl_status finish_on_host(const pipe_state *q, cudaStream_t on, int track) {
  KL_TRY(copy_back(q, q->host_results, q->results,
                   (size_t)q->intervals * sizeof(double), q->intervals, on,
                   track));
  KL_GPU_CHECK(cudaStreamSynchronize(on));
  write_integral(q, host_sum(q, q->host_results, q->intervals, q->intervals));
  return KL_OK;
}

/* ---- 5. kernel_overlap: partials summed on the device, two streams ----- */
static kl_status issue_kernel_overlap(const pipe_state *q) {
  for (int64_t j = 0; j < q->intervals; j++) {
    const int b = (int)(j % BUFFERS);
    KL_TRY(partials_kernel(q, b, j, stream(q, b), b));
    KL_TRY(sum_kernel(q, b, j, stream(q, b), b));
  }
  /* Stream 0 waits for stream 1's last sum before the results' copy. */
  KL_GPU_CHECK(cudaEventRecord(q->s->order[1], stream(q, 1)));
  KL_GPU_CHECK(cudaStreamWaitEvent(stream(q, 0), q->s->order[1], 0));
  return finish_on_host(q, stream(q, 0), 0);
}

extern "C" kl_status kl__pipe_gpu_kernel_overlap(const kl_args *a,
                                                 kl_reps *r) {
  return repeat(a, r, issue_kernel_overlap);
}

/* ---- 6. the summing kernel on the legacy default stream ----------------
 * It waits for all work before it on the blocking streams, and work issued
 * to them after it waits for it: the intervals serialize. */
static kl_status issue_default_stream(const pipe_state *q) {
  cudaStream_t legacy = 0;
  for (int64_t j = 0; j < q->intervals; j++) {
    const int b = (int)(j % BUFFERS);
    KL_TRY(partials_kernel(q, b, j, q->s->blocking[b], b));
    KL_TRY(sum_kernel(q, b, j, legacy, LEGACY_TRACK));
  }
  return finish_on_host(q, legacy, LEGACY_TRACK);
}

extern "C" kl_status kl__pipe_gpu_default_stream(const kl_args *a,
                                                 kl_reps *r) {
  return repeat(a, r, issue_default_stream);
}

/* ---- 7. one graph of every interval over `streams` streams --------------
 * Captured once at setup: a fork from stream 0, interval j on stream
 * j % streams as one resident-grid kernel that sums its points and writes
 * results[j] (integrate's best kernel), a join, and the results' copy.
 * Each repetition launches it and sums the results on the host.
 *
 * Its scratch: a resident grid's block sums and a retirement counter per
 * stream, as kernels on different streams run at once. */
extern "C" kl_status kl__pipe_gpu_best_scratch(kl_plan *p) {
  KL_TRY(kl__plan_has_device(p));
  int per_sm = 0;
  KL_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, integrate_best<double>, BEST_BLOCK, 0));
  const int64_t resident =
      (int64_t)(per_sm > 0 ? per_sm : 1) * p->device->compute_units;
  const int64_t needed = kl__gpu_blocks(p->n, BEST_BLOCK);
  const int64_t blocks = resident < needed ? resident : needed;
  const int64_t streams = (int64_t)p->value[PIPE_PARAM_STREAMS];
  p->constants[PIPE_PER_INTERVAL] = (double)blocks;
  KL_TRY(kl__plan_scratch(p, PIPE_PARTIALS, "block sums", KL_F64,
                          streams * blocks, KL_MEM_DEVICE, 0));
  KL_TRY(kl__plan_scratch(p, PIPE_HOST_PARTIALS, "retired", KL_I32, streams,
                          KL_MEM_DEVICE, KL_BUFFER_ZEROED));
  KL_TRY(kl__plan_scratch(p, PIPE_RESULTS, "results", KL_F64,
                          kl__pipe_intervals(p), KL_MEM_DEVICE, 0));
  return kl__plan_scratch(p, PIPE_HOST_RESULTS, "host results", KL_F64,
                          kl__pipe_intervals(p), KL_MEM_PINNED, 0);
}

static kl_status capture(const pipe_state *q, int streams) {
  cudaStream_t s0 = stream(q, 0);
  const unsigned blocks = (unsigned)q->per;
  double *block_sums = (double *)q->a->buffers[PIPE_PARTIALS];
  unsigned *retired = (unsigned *)q->a->buffers[PIPE_HOST_PARTIALS];
  KL_GPU_CHECK(cudaEventRecord(q->s->order[0], s0));
  for (int k = 1; k < streams; k++)
    KL_GPU_CHECK(cudaStreamWaitEvent(stream(q, k), q->s->order[0], 0));
  for (int64_t j = 0; j < q->intervals; j++) {
    const int k = (int)(j % streams);
    cudaStream_t on = stream(q, k);
    int span;
    KL_TRY(kl__span_begin(q->s->timeline, on, &span));
    integrate_best<double><<<blocks, BEST_BLOCK, 0, on>>>(
        q->results + j, block_sums + (int64_t)k * blocks, retired + k,
        (double)(j * q->n), (double)q->n, q->h);
    KL_GPU_CHECK_LAUNCH(integrate_best);
    KL_TRY(kl__span_end(q->s->timeline, on, span, k, PIPE_KERNEL, (int)j));
  }
  for (int k = 1; k < streams; k++) {
    KL_GPU_CHECK(cudaEventRecord(q->s->order[k], stream(q, k)));
    KL_GPU_CHECK(cudaStreamWaitEvent(s0, q->s->order[k], 0));
  }
  KL_TRY(copy_back(q, q->host_results, q->results,
                   (size_t)q->intervals * sizeof(double), q->intervals, s0,
                   0));
  return KL_OK;
}

extern "C" kl_status kl__pipe_gpu_graph_setup(kl_args *a) {
  KL_TRY(kl__pipe_gpu_setup(a));
  const pipe_state q = pipe_of(a);
  const int streams = (int)a->plan->value[PIPE_PARAM_STREAMS];
  cudaStream_t s0 = stream(&q, 0);
  cudaGraph_t graph = NULL;
  kl_status st = KL_OK;
  cudaError_t err =
      cudaStreamBeginCapture(s0, cudaStreamCaptureModeThreadLocal);
  if (err != cudaSuccess)
    st = KL_FAIL(KL_DEVICE, "cudaStreamBeginCapture failed: %s",
                 cudaGetErrorString(err));
  if (st == KL_OK) st = capture(&q, streams);
  if (err == cudaSuccess) {
    /* Ends the capture even after a failed step, so that the stream is
     * usable again. */
    cudaError_t end = cudaStreamEndCapture(s0, &graph);
    if (st == KL_OK && end != cudaSuccess)
      st = KL_FAIL(KL_DEVICE, "cudaStreamEndCapture failed: %s",
                   cudaGetErrorString(end));
  }
  if (st == KL_OK) {
    err = cudaGraphInstantiateWithFlags(&q.s->graph, graph, 0);
    if (err != cudaSuccess)
      st = KL_FAIL(KL_DEVICE, "cudaGraphInstantiateWithFlags failed: %s",
                   cudaGetErrorString(err));
  }
  if (graph) (void)cudaGraphDestroy(graph);
  if (st == KL_OK) kl__timeline_keep(q.s->timeline);
  else kl__pipe_gpu_teardown(a);
  return st;
}

static kl_status issue_graph(const pipe_state *q) {
  cudaStream_t s0 = stream(q, 0);
  KL_GPU_CHECK(cudaGraphLaunch(q->s->graph, s0));
  KL_GPU_CHECK(cudaStreamSynchronize(s0));
  write_integral(q, host_sum(q, q->host_results, q->intervals, q->intervals));
  return KL_OK;
}

extern "C" kl_status kl__pipe_gpu_graph(const kl_args *a, kl_reps *r) {
  return repeat(a, r, issue_graph);
}
