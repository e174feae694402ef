/* The timeline of one repetition of a GPU rung that owns its loop: spans
 * of device work between two events of a pool, and spans of host work
 * between two readings of the clock, in seconds from an origin event
 * recorded as the repetition starts. kl__timeline_end turns them into the
 * repetition's trace (kl__trace_add), its time (the last span's end) and
 * its phases' times (each phase's busy time), so that the table's phases
 * and overlap are the trace's.
 *
 * Host spans: the origin event is recorded on an idle stream and waited
 * for, and the host clock read at once; a host span is then placed within
 * the few microseconds that wait takes to return. */
#ifndef KL_GPU_TIMELINE_H
#define KL_GPU_TIMELINE_H

#include "gpu.h"

typedef struct kl_gpu_timeline kl_gpu_timeline;

#ifdef __cplusplus
extern "C" {
#endif
/* Room for `spans` spans per repetition (device spans hold two events). */
kl_status kl__timeline_open(kl_gpu_timeline **t, int spans);
void kl__timeline_close(kl_gpu_timeline *t);
/* A repetition starts: the spans kept by kl__timeline_keep stay, the rest
 * are dropped; the origin is recorded on `on` (idle) and waited for. */
kl_status kl__timeline_begin(kl_gpu_timeline *t, cudaStream_t on);
/* A device span: span_begin records its first event on `on`, span_end its
 * second, and keeps it with its track (a stream of the context, or
 * another the rung names), phase and item. Past the pool's room the span
 * is counted as lost; while `on` is being captured into a graph where the
 * runtime cannot time graph nodes (HIP here), it is not kept. */
kl_status kl__span_begin(kl_gpu_timeline *t, cudaStream_t on, int *span);
kl_status kl__span_end(kl_gpu_timeline *t, cudaStream_t on, int span,
                       int track, int phase, int item);
/* Host work: the clock in seconds from the origin, and a span of it. */
double kl__timeline_clock(const kl_gpu_timeline *t);
void kl__timeline_host(kl_gpu_timeline *t, int phase, int item, double start,
                       double end);
/* The spans so far belong to a graph captured once and launched every
 * repetition: kl__timeline_begin keeps them, with their events. */
void kl__timeline_keep(kl_gpu_timeline *t);
/* The repetition has been issued: wait for its events, and fill
 * repetition `rep` of reps (time, the first `phases` phases' busy times,
 * the trace). */
kl_status kl__timeline_end(kl_gpu_timeline *t, kl_reps *reps, int rep,
                           int phases);
#ifdef __cplusplus
}
#endif

#endif
