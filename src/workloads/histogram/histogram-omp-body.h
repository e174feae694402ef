/* histogram-omp.c's three loops for one count type C (uint32_t, uint64_t),
 * named HIST_NAME(atomic), HIST_NAME(interleaved), HIST_NAME(blocks): a
 * template header, included once per count type, so that each loop is a
 * function with its own lines. Each counts n bytes into counts, which
 * hold zeros or the earlier chunks' counts. */

/* The seed's negative optimization: every byte an atomic increment of a
 * counter all threads share, so that each increment waits for the
 * counter's cache line to come back from the other core. */
static void HIST_NAME(atomic)(const uint8_t *x, int64_t n, C *counts) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
#pragma omp atomic update
    counts[x[i]]++;
  }
}

/* A private histogram per thread, added to the shared counts once; thread
 * t takes bytes t, t + T, t + 2T, ...: every thread walks the whole array
 * and uses one byte of each cache line it loads. A thread's count fits the
 * count type: it is at most n. */
static void HIST_NAME(interleaved)(const uint8_t *x, int64_t n, C *counts) {
#pragma omp parallel
  {
    const int64_t t = kl__omp_thread(), team = kl__omp_team();
    C mine[HIST_BINS] = {0};
    for (int64_t i = t; i < n; i += team) mine[x[i]]++;
    for (int b = 0; b < HIST_BINS; b++) {
#pragma omp atomic update
      counts[b] += mine[b];
    }
  }
}

/* A contiguous block per thread, as the seed's fastest loop, counted by
 * count_block. */
static void HIST_NAME(blocks)(const uint8_t *x, int64_t n, C *counts) {
#pragma omp parallel
  {
    const int64_t t = kl__omp_thread(), team = kl__omp_team();
    const int64_t begin = n / team * t + (t < n % team ? t : n % team);
    const int64_t end = begin + n / team + (t < n % team);
    uint64_t totals[HIST_BINS] = {0};
    count_block(x + begin, end - begin, totals);
    for (int b = 0; b < HIST_BINS; b++) {
#pragma omp atomic update
      counts[b] += (C)totals[b];
    }
  }
}
