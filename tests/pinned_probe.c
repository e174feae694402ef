/* pinned_probe: what a copy between the GPU and pinned host memory costs
 * by what the CPU did to that memory just before: the yardstick behind
 * laplacian-dist's faces (issue 32). A staged exchange copies a face to
 * the device from pinned memory that MPI's receive has just written with
 * the CPU, and to pinned memory that MPI's send has just read; a copy
 * engine's reads and writes of lines a core holds go through that core's
 * cache. For one buffer of BYTES (default a 512^2 f64 face's interior,
 * 8 x 510^2), each direction, each state before each copy:
 *   idle       the CPU has not touched it since the last copy;
 *   cpu-wrote  the CPU wrote all of it (memset), as a receive does;
 *   cpu-read   the CPU read all of it, as a send does;
 *   flushed    (x86-64 with clflushopt) written, then every line flushed
 *              from the caches (clflushopt, sfence) before the copy: the
 *              flush's own time is given apart.
 * Each figure the median of 50 copies after 5 of warm-up, timed by events
 * around the copy alone (the CPU's work done before the first event).
 * Every CUDA call checked: an error names the call, file and line (exit
 * 3). No GPU: a line saying so, exit 77 (a skip). Bad input: exit 2.
 * Usage: pinned_probe [BYTES] */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "pinned_probe: %s failed at %s:%d: %s\n", #call,         \
              __FILE__, __LINE__, cudaGetErrorString(e_));                     \
      exit(3);                                                                 \
    }                                                                          \
  } while (0)

enum { WARMUP = 5, RUNS = 50 };
enum { IDLE, WROTE, READ, FLUSHED, STATES };
static const char *const state_names[STATES] = {"idle", "cpu-wrote",
                                                "cpu-read", "flushed"};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#if defined(__x86_64__)
__attribute__((target("clflushopt"))) static void flush(char *p,
                                                         size_t bytes) {
  for (size_t i = 0; i < bytes; i += 64) _mm_clflushopt(p + i);
  _mm_sfence();
}
static int can_flush(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("clflushopt");
}
#else
static void flush(char *p, size_t bytes) { (void)p, (void)bytes; }
static int can_flush(void) { return 0; }
#endif

static volatile uint64_t sink;

/* The CPU's work on the buffer before a copy; the flush's seconds. */
static double prepare(char *h, size_t bytes, int state, int run) {
  if (state == IDLE) return 0;
  if (state == READ) {
    uint64_t s = 0;
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
      uint64_t w;
      memcpy(&w, h + i, 8);
      s += w;
    }
    sink = s;
    return 0;
  }
  memset(h, run & 0x7f, bytes);
  if (state != FLUSHED) return 0;
  const double t0 = now();
  flush(h, bytes);
  return now() - t0;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  size_t bytes = 8 * 510 * 510;
  if (argc > 2) {
    fprintf(stderr, "pinned_probe: usage: pinned_probe [BYTES]\n");
    return 2;
  }
  if (argc == 2) {
    char *end = NULL;
    const long long v = strtoll(argv[1], &end, 10);
    if (!end || *end || v < 64 || v > (1LL << 34)) {
      fprintf(stderr, "pinned_probe: BYTES must be a whole number from 64 "
                      "to 2^34, not '%s'\n", argv[1]);
      return 2;
    }
    bytes = (size_t)v;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    printf("pinned_probe: no CUDA device here\n");
    return 77;
  }
  char *h = NULL, *d = NULL;
  CHECK(cudaMallocHost((void **)&h, bytes));
  CHECK(cudaMalloc((void **)&d, bytes));
  memset(h, 1, bytes);
  CHECK(cudaMemset(d, 2, bytes));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  const int flushes = can_flush();
  printf("pinned_probe: %zu bytes, median of %d copies\n", bytes, RUNS);
  printf("%-4s %-10s %10s %10s %8s %10s\n", "dir", "state", "copy us",
         "GB/s", "x idle", "flush us");
  for (int dir = 0; dir < 2; dir++) {
    double idle = 0;
    for (int state = 0; state < STATES; state++) {
      if (state == FLUSHED && !flushes) continue;
      double copy[RUNS], flushed[RUNS];
      for (int run = 0; run < WARMUP + RUNS; run++) {
        const double f = prepare(h, bytes, state, run);
        CHECK(cudaEventRecord(a, s));
        CHECK(cudaMemcpyAsync(dir ? (void *)h : (void *)d,
                              dir ? (const void *)d : (const void *)h, bytes,
                              dir ? cudaMemcpyDeviceToHost
                                  : cudaMemcpyHostToDevice,
                              s));
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (run >= WARMUP) {
          copy[run - WARMUP] = 1e-3 * ms;
          flushed[run - WARMUP] = f;
        }
      }
      qsort(copy, RUNS, sizeof *copy, by_value);
      qsort(flushed, RUNS, sizeof *flushed, by_value);
      const double t = copy[RUNS / 2];
      if (state == IDLE) idle = t;
      printf("%-4s %-10s %10.1f %10.2f %8.2f %10.1f\n", dir ? "d2h" : "h2d",
             state_names[state], 1e6 * t, (double)bytes / t / 1e9,
             idle / t, 1e6 * flushed[RUNS / 2]);
    }
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(h));
  return 0;
}
