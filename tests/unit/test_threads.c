/* The thread contract of kladder.h, as an embedding program leans on it:
 * calls from many threads at once, each with a context of its own or all
 * on the process's shared default context (locked per call), two threads
 * sharing one explicit context, and kl_run from two threads at once. Every
 * result is checked exactly (the sums are of multiples of 1/8 and of
 * int32, exact in double and int64 in any order), and the last error is
 * each thread's own. Exit 1 on any wrong result. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kladder-run.h"
#include "kladder-histogram.h"
#include "kladder-reduce.h"

static atomic_int passes, failures;

#define CHECK(cond, who)                                                      \
  do {                                                                        \
    if (cond) atomic_fetch_add(&passes, 1);                                   \
    else {                                                                    \
      atomic_fetch_add(&failures, 1);                                         \
      printf("FAILED %s:%d (%s): %s (last error: %s)\n", __FILE__, __LINE__, \
             who, #cond, kl_last_error());                                    \
    }                                                                         \
  } while (0)

/* ---- library calls from many threads ----------------------------------- */

enum { WORKERS = 8, SHARING = 2, ROUNDS = 100 }; /* 4 calls a round */

/* Every thread starts its calls at once. */
static pthread_barrier_t start;

typedef struct worker {
  char name[48];
  const char *device;   /* the context it opens; NULL: the default one */
  kl_context *shared;   /* a context another thread uses too */
  int64_t n;            /* its own size */
  uint64_t seed;        /* and data */
  long calls;
} worker;

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

static void *work(void *arg) {
  worker *w = arg;
  const int64_t n = w->n;
  double *d = malloc(sizeof *d * (size_t)n);
  int32_t *i32 = malloc(sizeof *i32 * (size_t)n);
  unsigned char *bytes = malloc((size_t)n);
  CHECK(d && i32 && bytes, w->name);
  if (!d || !i32 || !bytes) abort();
  for (int64_t i = 0; i < n; i++) {
    const uint64_t h = mix(w->seed * 0x9e3779b97f4a7c15ull + (uint64_t)i);
    d[i] = (double)(int64_t)(h % 4001) / 8 - 250; /* multiples of 1/8 */
    i32[i] = (int32_t)(uint32_t)(h >> 32);
    bytes[i] = (unsigned char)(h >> 17);
  }
  kl_context *ctx = w->shared;
  if (w->device)
    CHECK(kl_context_open(w->device, &ctx) == KL_OK && ctx, w->name);
  pthread_barrier_wait(&start);
  if (w->device && !ctx) goto done;
  for (int round = 0; round < ROUNDS; round++) {
    /* A different length each round: the expected values made here. */
    const int64_t len = n - round * 7;
    double sum = 0, min = 1e300;
    int64_t isum = 0;
    uint64_t want[256] = {0};
    for (int64_t i = 0; i < len; i++) {
      sum += d[i];
      if (d[i] < min) min = d[i];
      isum += i32[i];
      want[bytes[i]]++;
    }
    double got = -1;
    int64_t igot = -1;
    uint64_t counts[256];
    memset(counts, 0xFF, sizeof counts);
    CHECK(kl_reduce(ctx, "sum", KL_F64, d, len, 0, &got) == KL_OK &&
              got == sum,
          w->name);
    CHECK(kl_reduce(ctx, "sum", KL_I32, i32, len, 0, &igot) == KL_OK &&
              igot == isum,
          w->name);
    CHECK(kl_reduce(ctx, "min", KL_F64, d, len, 0, &got) == KL_OK &&
              got == min,
          w->name);
    CHECK(kl_histogram(ctx, bytes, len, 0, counts) == KL_OK &&
              memcmp(counts, want, sizeof want) == 0,
          w->name);
    w->calls += 4;
    /* The last error is this thread's: a bad call says why, here only,
     * and the next good call clears it. */
    if (round % 20 == 0) {
      char op[32];
      snprintf(op, sizeof op, "op%d", (int)w->seed);
      CHECK(kl_reduce(ctx, op, KL_F64, d, len, 0, &got) == KL_USAGE &&
                strstr(kl_last_error(), op),
            w->name);
      CHECK(kl_reduce(ctx, "max", KL_F64, d, len, 0, &got) == KL_OK &&
                kl_last_error()[0] == '\0',
            w->name);
      w->calls += 2;
    }
  }
  if (w->device) kl_context_close(ctx);
done:
  free(d);
  free(i32);
  free(bytes);
  return NULL;
}

static void test_calls(void) {
  worker w[WORKERS + SHARING];
  pthread_t t[WORKERS + SHARING];
  memset(w, 0, sizeof w);
  kl_context *shared = NULL;
  CHECK(kl_context_open("openmp", &shared) == KL_OK && shared, "main");
  for (int i = 0; i < WORKERS + SHARING; i++) {
    w[i].n = 20011 + 3001 * i;
    w[i].seed = 1000 + (uint64_t)i;
    if (i < WORKERS / 2) {
      w[i].device = i % 2 ? "serial" : "openmp";
      snprintf(w[i].name, sizeof w[i].name, "thread %d, own %s context", i,
               w[i].device);
    } else if (i < WORKERS) {
      snprintf(w[i].name, sizeof w[i].name, "thread %d, default context", i);
    } else {
      w[i].shared = shared;
      snprintf(w[i].name, sizeof w[i].name, "thread %d, shared openmp", i);
    }
  }
  if (!shared) return;
  if (pthread_barrier_init(&start, NULL, WORKERS + SHARING) != 0) abort();
  for (int i = 0; i < WORKERS + SHARING; i++)
    if (pthread_create(&t[i], NULL, work, &w[i]) != 0) abort();
  const int started = WORKERS + SHARING;
  for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
  kl_context_close(shared);
  for (int i = 0; i < started; i++) {
    printf("%-34s n = %lld: %ld calls\n", w[i].name, (long long)w[i].n,
           w[i].calls);
    CHECK(w[i].calls >= 200, w[i].name);
  }
}

/* ---- kl_run from two threads ------------------------------------------- */

enum { RUNS = 6 };

typedef struct runner {
  char name[32];
  int64_t n;
  int ok_runs;
} runner;

static void *run_maps(void *arg) {
  runner *r = arg;
  for (int k = 0; k < RUNS; k++) {
    kl_options o;
    kl_options_init(&o);
    o.workloads = "map";
    o.backends = "serial";
    o.n = r->n + k;
    o.reps = 2;
    o.warmup = 1;
    o.command_line = r->name;
    kl_report *rep = NULL;
    const kl_status st = kl_run(&o, &rep);
    /* stream's copy (the ceiling) first, then map's serial rung. */
    const kl_result *map = kl_report_result(rep, 1);
    const int ok = st == KL_OK && kl_report_count(rep) == 2 && map &&
                   strcmp(map->workload, "map") == 0 &&
                   map->check == KL_CHECK_PASS && map->n == o.n &&
                   map->verdict.checked == o.n && map->ceiling > 0 &&
                   strcmp(kl_report_command_line(rep), r->name) == 0;
    CHECK(ok, r->name);
    r->ok_runs += ok;
    kl_report_free(rep);
  }
  return NULL;
}

static void test_runs(void) {
  runner r[2] = {{"kl_run thread 0", 4093, 0}, {"kl_run thread 1", 7919, 0}};
  pthread_t t[2];
  int started = 0;
  for (int i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, run_maps, &r[i]) == 0) started++;
  CHECK(started == 2, "main");
  for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < started; i++) {
    printf("%-34s %d of %d runs passed\n", r[i].name, r[i].ok_runs, RUNS);
    CHECK(r[i].ok_runs == RUNS, r[i].name);
  }
}

int main(void) {
  test_calls();
  test_runs();
  printf("%d passed, %d failed\n", atomic_load(&passes),
         atomic_load(&failures));
  return atomic_load(&failures) ? 1 : 0;
}
