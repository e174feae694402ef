/* A repetition's timeline on the GPU (gpu-timeline.h). */
#include <stdlib.h>
#include <string.h>

#include "gpu-timeline.h"

#if !defined(__HIP_DEVICE_COMPILE__)

typedef struct span {
  int track, phase, item;
  int from, to;         /* events of a device span; -1: a host span */
  double start, end;    /* a host span's, then every span's, in seconds */
} span;

struct kl_gpu_timeline {
  cudaEvent_t origin;
  cudaEvent_t *events;
  int event_count, event_capacity, events_kept;
  span *spans;
  int span_count, span_capacity, spans_kept;
  int lost;
  double host_origin;
  kl_trace_event *scratch; /* the spans as events, for the busy times */
};

extern "C" void kl__timeline_close(kl_gpu_timeline *t) {
  if (!t) return;
  if (t->origin) (void)cudaEventDestroy(t->origin);
  for (int i = 0; i < t->event_capacity; i++)
    if (t->events && t->events[i]) (void)cudaEventDestroy(t->events[i]);
  free(t->events);
  free(t->spans);
  free(t->scratch);
  free(t);
}

extern "C" kl_status kl__timeline_open(kl_gpu_timeline **out, int spans) {
  kl_gpu_timeline *t = (kl_gpu_timeline *)calloc(1, sizeof *t);
  *out = NULL;
  if (!t) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  t->span_capacity = spans > 0 ? spans : 1;
  t->event_capacity = 2 * t->span_capacity;
  t->events = (cudaEvent_t *)calloc((size_t)t->event_capacity,
                                    sizeof *t->events);
  t->spans = (span *)calloc((size_t)t->span_capacity, sizeof *t->spans);
  t->scratch = (kl_trace_event *)calloc((size_t)t->span_capacity,
                                        sizeof *t->scratch);
  if (!t->events || !t->spans || !t->scratch) {
    kl__timeline_close(t);
    return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  }
  cudaError_t err = cudaEventCreate(&t->origin);
  for (int i = 0; i < t->event_capacity && err == cudaSuccess; i++)
    err = cudaEventCreate(&t->events[i]);
  if (err != cudaSuccess) {
    kl__timeline_close(t);
    return KL_FAIL(KL_DEVICE, "cudaEventCreate failed: %s",
                   cudaGetErrorString(err));
  }
  *out = t;
  return KL_OK;
}

extern "C" void kl__timeline_keep(kl_gpu_timeline *t) {
  t->spans_kept = t->span_count;
  t->events_kept = t->event_count;
}

extern "C" kl_status kl__timeline_begin(kl_gpu_timeline *t, cudaStream_t on) {
  t->span_count = t->spans_kept;
  t->event_count = t->events_kept;
  t->lost = 0;
  KL_GPU_CHECK(cudaEventRecord(t->origin, on));
  KL_GPU_CHECK(cudaEventSynchronize(t->origin));
  t->host_origin = kl__now();
  return KL_OK;
}

extern "C" double kl__timeline_clock(const kl_gpu_timeline *t) {
  return kl__now() - t->host_origin;
}

extern "C" kl_status kl__span_begin(kl_gpu_timeline *t, cudaStream_t on,
                                    int *out) {
  *out = -1;
  if (t->event_count + 2 > t->event_capacity ||
      t->span_count >= t->span_capacity)
    return KL_OK;
  int recorded = 0;
  KL_GPU_CHECK(kl__gpu_record(t->events[t->event_count], on, &recorded));
  if (recorded) *out = t->event_count++;
  return KL_OK;
}

extern "C" kl_status kl__span_end(kl_gpu_timeline *t, cudaStream_t on,
                                  int from, int track, int phase, int item) {
  if (from < 0) {
    int capturing = 0;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    KL_GPU_CHECK(cudaStreamIsCapturing(on, &status));
    capturing = status == cudaStreamCaptureStatusActive;
    /* Untimed inside a graph on a runtime that cannot: not lost. */
    if (!(capturing && !KL_GPU_GRAPH_EVENTS)) t->lost++;
    return KL_OK;
  }
  int recorded = 0;
  KL_GPU_CHECK(kl__gpu_record(t->events[t->event_count], on, &recorded));
  if (!recorded) return KL_OK;
  t->spans[t->span_count++] = (span){track, phase, item, from,
                                     t->event_count++, 0, 0};
  return KL_OK;
}

extern "C" void kl__timeline_host(kl_gpu_timeline *t, int phase, int item,
                                  double start, double end) {
  if (t->span_count >= t->span_capacity) {
    t->lost++;
    return;
  }
  t->spans[t->span_count++] =
      (span){KL_TRACK_HOST, phase, item, -1, -1, start, end};
}

static kl_status seconds_since(const kl_gpu_timeline *t, int event,
                               double *s) {
  float ms = 0;
  KL_GPU_CHECK(cudaEventSynchronize(t->events[event]));
  KL_GPU_CHECK(cudaEventElapsedTime(&ms, t->origin, t->events[event]));
  *s = 1e-3 * (double)ms;
  return KL_OK;
}

extern "C" kl_status kl__timeline_end(kl_gpu_timeline *t, kl_reps *reps,
                                      int rep, int phases) {
  double last = 0;
  for (int i = 0; i < t->span_count; i++) {
    span *s = &t->spans[i];
    if (s->from >= 0) {
      KL_TRY(seconds_since(t, s->from, &s->start));
      KL_TRY(seconds_since(t, s->to, &s->end));
    }
    if (s->end > last) last = s->end;
    t->scratch[i] = (kl_trace_event){s->track, s->phase, s->item, s->start,
                                     s->end};
  }
  reps->seconds[rep] = last;
  for (int k = 0; k < phases && k < KL_MAX_PHASES; k++)
    reps->phase_seconds[(size_t)rep * KL_MAX_PHASES + (size_t)k] =
        kl__trace_busy(t->scratch, t->span_count, k);
  reps->trace_count = 0;
  reps->trace_lost = t->lost;
  for (int i = 0; i < t->span_count; i++)
    kl__trace_add(reps, t->scratch[i].track, t->scratch[i].phase,
                  t->scratch[i].item, t->scratch[i].start, t->scratch[i].end);
  return KL_OK;
}

#endif
