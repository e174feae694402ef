/* The events of a traced repetition: kept by the rungs, measured here. */
#include "internal.h"

#include <stdlib.h>

void kl__trace_add(kl_reps *reps, int track, int phase, int item,
                   double start, double end) {
  if (!reps || !reps->trace) return;
  if (reps->trace_count >= reps->trace_capacity) {
    reps->trace_lost++;
    return;
  }
  kl_trace_event *e = &reps->trace[reps->trace_count++];
  e->track = track;
  e->phase = phase;
  e->item = item;
  e->start = start;
  e->end = end > start ? end : start;
}

typedef struct span {
  double start, end;
} span;

static int by_start(const void *a, const void *b) {
  const double x = ((const span *)a)->start, y = ((const span *)b)->start;
  return (x > y) - (x < y);
}

/* The time covered by at least one event of the phase: sorted by start,
 * each span adds what it reaches past the furthest end so far. */
double kl__trace_busy(const kl_trace_event *e, int count, int phase) {
  int n = 0;
  for (int i = 0; i < count; i++) n += e[i].phase == phase;
  if (n == 0) return 0;
  span *s = malloc(sizeof *s * (size_t)n);
  if (!s) return 0;
  n = 0;
  for (int i = 0; i < count; i++)
    if (e[i].phase == phase) s[n++] = (span){e[i].start, e[i].end};
  qsort(s, (size_t)n, sizeof *s, by_start);
  double busy = 0, reached = s[0].start;
  for (int i = 0; i < n; i++) {
    const double from = s[i].start > reached ? s[i].start : reached;
    if (s[i].end > from) {
      busy += s[i].end - from;
      reached = s[i].end;
    }
  }
  free(s);
  return busy;
}

double kl__trace_wall(const kl_trace_event *e, int count) {
  if (count == 0) return 0;
  double first = e[0].start, last = e[0].end;
  for (int i = 0; i < count; i++) {
    if (e[i].start < first) first = e[i].start;
    if (e[i].end > last) last = e[i].end;
  }
  return last - first;
}

double kl__trace_overlap(const kl_trace_event *e, int count, int lost) {
  if (lost > 0 || count == 0) return 0;
  double slowest = 0;
  for (int k = 0; k < KL_MAX_PHASES; k++) {
    const double busy = kl__trace_busy(e, count, k);
    if (busy > slowest) slowest = busy;
  }
  return slowest > 0 ? kl__trace_wall(e, count) / slowest : 0;
}
