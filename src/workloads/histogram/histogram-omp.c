#include <string.h>

#include "histogram-host.h"

/* openmp-blocks counts into SUBS sub-histograms of 32-bit counters: byte k
 * of each 8-byte word into sub-histogram k, so that a run of equal bytes
 * makes SUBS independent chains of increments instead of one, each waiting
 * for the store before it (0.4 GB/s a core on equal bytes with one, 2.2
 * with eight on the 2-core Xeon). A word of 8 equal bytes adds 8 at once.
 * Each sub-histogram is padded so that the same bin of two sub-histograms
 * is not 4 KiB apart, which the CPU takes for a store to the same address
 * (4K aliasing). */
#define SUBS 8
#define SUB_STRIDE (HIST_BINS + 16)
/* At most this many bytes into the 32-bit counters before they are added
 * to 64-bit totals: no counter can pass 2^32 - 1. */
#define PIECE_BYTES (INT64_C(1) << 31)
#define ALL_ONES_BYTES UINT64_C(0x0101010101010101)

static void count_piece(const uint8_t *x, int64_t n, uint32_t *sub) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, x + i, 8);
    const unsigned first = (unsigned)(w & 255);
    if (w == first * ALL_ONES_BYTES) {
      sub[(size_t)(i >> 3 & (SUBS - 1)) * SUB_STRIDE + first] += 8;
      continue;
    }
    for (int k = 0; k < 8; k++)
      sub[(size_t)(k % SUBS) * SUB_STRIDE + (w >> (8 * k) & 255)]++;
  }
  for (; i < n; i++) sub[x[i]]++;
}

static void count_block(const uint8_t *x, int64_t n, uint64_t *totals) {
  uint32_t sub[SUBS * SUB_STRIDE];
  for (int64_t at = 0; at < n; at += PIECE_BYTES) {
    memset(sub, 0, sizeof sub);
    count_piece(x + at, n - at < PIECE_BYTES ? n - at : PIECE_BYTES, sub);
    for (int b = 0; b < HIST_BINS; b++)
      for (int k = 0; k < SUBS; k++) totals[b] += sub[k * SUB_STRIDE + b];
  }
}

/* The rungs' loops for each count type: histogram-omp-body.h, once per
 * type. */
#define C uint32_t
#define HIST_NAME(name) name##_u32
#include "histogram-omp-body.h"
#undef C
#undef HIST_NAME
#define C uint64_t
#define HIST_NAME(name) name##_u64
#include "histogram-omp-body.h"
#undef C
#undef HIST_NAME

kl_status kl__histogram_omp_atomic(const kl_args *a) {
  return kl__histogram_host_run(a, atomic_u32, atomic_u64);
}

kl_status kl__histogram_omp_interleaved(const kl_args *a) {
  return kl__histogram_host_run(a, interleaved_u32, interleaved_u64);
}

kl_status kl__histogram_omp_blocks(const kl_args *a) {
  return kl__histogram_host_run(a, blocks_u32, blocks_u64);
}
