/* Non-temporal stores for host rungs: whole 64-byte lines written around
 * the caches, so that a rung writing an array larger than the last-level
 * cache saves the write-allocate read of every line. GCC ignores OpenMP's
 * `nontemporal` clause, so the store is an intrinsic here, the widest the
 * build's target has; elsewhere a plain copy. */
#ifndef KL_HOST_STORE_H
#define KL_HOST_STORE_H

#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#define KL_LINE_BYTES 64

/* dst and src 64-byte aligned. */
static inline void kl_store_line_streaming(void *dst, const void *src) {
#if defined(__AVX512F__)
  _mm512_stream_si512((__m512i *)dst, _mm512_load_si512(src));
#elif defined(__AVX__)
  const __m256i *s = (const __m256i *)src;
  __m256i *d = (__m256i *)dst;
  _mm256_stream_si256(d, _mm256_load_si256(s));
  _mm256_stream_si256(d + 1, _mm256_load_si256(s + 1));
#elif defined(__SSE2__)
  const __m128i *s = (const __m128i *)src;
  __m128i *d = (__m128i *)dst;
  for (int i = 0; i < 4; i++) _mm_stream_si128(d + i, _mm_load_si128(s + i));
#else
  memcpy(dst, src, KL_LINE_BYTES);
#endif
}

/* Streaming stores are weakly ordered: each thread that made them fences
 * before another thread, or the timer, may rely on them. */
static inline void kl_store_streaming_fence(void) {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

#endif
