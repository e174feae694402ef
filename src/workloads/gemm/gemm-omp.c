/* gemm on the host: the cache-blocked, packed, register-blocked OpenMP rung.
 *
 * The loop nest is the Goto/BLIS one. For each panel of NC columns of C and
 * each slice of KC along k, the team packs the KC x NC block of B once into
 * a shared buffer that lives in L3; each thread then packs MC x KC blocks of
 * its own rows of A into a private buffer sized for its L2, and sweeps
 * MR x NR tiles of C with a micro-kernel whose accumulators never leave the
 * registers. Packing is what makes the kernel's loads sequential and
 * aligned whatever the leading dimensions, and it is where the edges are
 * padded with zeros, so the kernel has no edge cases in its inner loop.
 *
 * Rows i >= m of A and B (up to the leading dimension) hold NaN: packing
 * reads only rows below m and k, and pads with zeros instead. C is read
 * only when beta != 0 (BLAS: with beta = 0 it may hold NaN), and only the
 * m x n elements of C are ever written. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

/* ---- the register tile ----------------------------------------------------
 * MV vectors of A times NR broadcast elements of B: MV * NR accumulators,
 * plus MV for A and one for B, must fit the register file or the compiler
 * spills in the inner loop. AVX-512 has 32 vector registers: 3 x 8 = 24
 * accumulators. AVX2 and SSE have 16: 2 x 6 = 12. */
#if defined(__AVX512F__)
#define VBYTES 64
#define MV 3
#define NR 8
#elif defined(__AVX__)
#define VBYTES 32
#define MV 2
#define NR 6
#else
#define VBYTES 16
#define MV 2
#define NR 6
#endif

#if defined(__GNUC__)
/* GCC's and Clang's vector extensions: portable C that lowers to whatever
 * vector width the target has, with the tile as named vectors so that the
 * compiler keeps it in registers (the assembly shows no spills). The build
 * compiles this file with -ffp-contract=fast (CMakeLists.txt): ISO C mode
 * turns contraction off, and then every multiply-add is two instructions
 * (0.74x the fused rate on Zen 4, NOTES.md). */
typedef double vf64 __attribute__((vector_size(VBYTES)));
typedef float vf32 __attribute__((vector_size(VBYTES)));
#define HAVE_VECTORS 1
/* Prefetches may point past a buffer's end (the next sliver, the rows
 * below C's last tile): they never fault, and the address is formed as an
 * integer so that no out-of-bounds pointer arithmetic happens in C. */
#define PREFETCH_AT(p, bytes, rw)                                             \
  __builtin_prefetch((const void *)((uintptr_t)(p) + (uintptr_t)(bytes)), rw, 3)
#else
#define HAVE_VECTORS 0
#define PREFETCH_AT(p, bytes, rw) ((void)(p), (void)(bytes))
#endif

#define ALIGN 64
/* How far ahead of the micro-kernel's k step to prefetch its packed
 * operands: 32 steps is 6 KiB of A and 2 KiB of B; 16 and 64 did worse. */
#define PF_STEPS 32
#define ROUND_UP(x, r) (((x) + (r)-1) / (r) * (r))

/* ---- blocking --------------------------------------------------------------
 * Zen 4 per core: 32 KiB L1d, 1 MiB L2; 32 MiB L3 shared. Measured on the
 * 2-core machine at 2048 (NOTES.md): a deep k slice pays most, since each
 * slice is a pass over C and a barrier; KC = 512 makes the KC x NR sliver
 * of B that a sweep over an MC block reuses 32 KiB (double) or 16 KiB
 * (float), so it lives between L1 and L2, and the MC x KC block of A is
 * 384 KiB or 192 KiB of L2. A smaller MC, so that both threads' blocks and
 * the streaming B fit L2 with room, beat the usual half-of-L2 choice. The
 * KC x NC panel of B is 8 MiB or 4 MiB of L3. */
#define KC_F64 512
#define MC_F64 96
#define NC_F64 2048
#define KC_F32 512
#define MC_F32 96
#define NC_F32 2048
/* Below this many flops (about 20 us on one core) a second thread costs
 * more in waking it and in barriers than it saves. */
#define SERIAL_FLOPS 2000000

/* How a team splits C: a tm x tn grid of rectangles, whole tiles each. */
typedef struct split {
  int64_t m0, m1, n0, n1;
} split;

static split split_for(int64_t m, int64_t n, int64_t mr, int64_t nr,
                       int team, int t) {
  const int64_t mt = (m + mr - 1) / mr, nt = (n + nr - 1) / nr;
  int best = 1;
  int64_t best_work = -1;
  /* The most tiles any one thread gets, over each factorization of the
   * team; ties go to splitting rows, where each thread packs only its own
   * rows of A and all share B, rather than packing the same A twice. */
  for (int tm = team; tm >= 1; tm--) {
    if (team % tm) continue;
    const int64_t tn = team / tm;
    const int64_t work = ((mt + tm - 1) / tm) * ((nt + tn - 1) / tn);
    if (best_work < 0 || work < best_work) best_work = work, best = tm;
  }
  const int tm = best, tn = team / best;
  const int64_t rows = (mt + tm - 1) / tm * mr, cols = (nt + tn - 1) / tn * nr;
  split s;
  s.m0 = (t % tm) * rows;
  s.m1 = s.m0 + rows < m ? s.m0 + rows : m;
  s.n0 = (t / tm) * cols;
  s.n1 = s.n0 + cols < n ? s.n0 + cols : n;
  if (s.m0 > m) s.m0 = m;
  if (s.n0 > n) s.n0 = n;
  return s;
}

/* ---- one type's kernel, packing and loop nest ----------------------------- */
#if HAVE_VECTORS
/* The micro-kernel: an MR x NR tile of C = alpha * (packed A sliver) x
 * (packed B sliver) + beta * C. The accumulators are named vectors, fully
 * unrolled over the tile, so that they are registers. */
#define KERNEL(T, V)                                                          \
  enum { VL_##T = VBYTES / sizeof(T), MR_##T = MV * VL_##T };                 \
  static void kernel_##T(int64_t kc, const T *restrict a, const T *restrict b,\
                         T *restrict c, int64_t ldc, int mr, int nr, T alpha, \
                         T beta) {                                            \
    V acc[NR][MV];                                                            \
    for (int j = 0; j < NR; j++)                                              \
      for (int v = 0; v < MV; v++) acc[j][v] = (V){0};                        \
    /* C's tile is touched once per k slice, after the loop: asking for it  \
     * now hides that miss behind kc steps of arithmetic. */                  \
    for (int j = 0; j < nr; j++)                                              \
      for (int l = 0; l < (int)(MR_##T * sizeof(T)); l += 64)                 \
        PREFETCH_AT(c, ((size_t)j * (size_t)ldc * sizeof(T) + (size_t)l), 1); \
    for (int64_t p = 0; p < kc; p++) {                                        \
      /* The packed streams come from L2 (A's sliver is 96 KiB, B's 32 KiB  \
       * in double): asking PF_STEPS steps ahead, one request per line,     \
       * beat leaving them to the hardware prefetchers (NOTES.md). */       \
      for (int l = 0; l < MV; l++)                                            \
        PREFETCH_AT(a, (PF_STEPS * MR_##T + l * VL_##T) * sizeof(T), 0);      \
      PREFETCH_AT(b, PF_STEPS * NR * sizeof(T), 0);                           \
      V av[MV];                                                               \
      for (int v = 0; v < MV; v++)                                            \
        memcpy(&av[v], a + v * VL_##T, sizeof(V));                            \
      for (int j = 0; j < NR; j++) {                                          \
        const T bj = b[j];                                                    \
        for (int v = 0; v < MV; v++) acc[j][v] += av[v] * bj;                 \
      }                                                                       \
      a += MR_##T;                                                            \
      b += NR;                                                                \
    }                                                                         \
    if (mr == MR_##T && nr == NR) {                                           \
      for (int j = 0; j < NR; j++)                                            \
        for (int v = 0; v < MV; v++) {                                        \
          T *cj = c + j * ldc + v * VL_##T;                                   \
          V r = acc[j][v] * alpha;                                            \
          if (beta != 0) {                                                    \
            V old;                                                            \
            memcpy(&old, cj, sizeof(V));                                      \
            r = acc[j][v] * alpha + old * beta;                               \
          }                                                                   \
          memcpy(cj, &r, sizeof(V));                                          \
        }                                                                     \
      return;                                                                 \
    }                                                                         \
    /* An edge tile: only mr x nr of it is C's. */                            \
    T tile[NR][MR_##T];                                                       \
    memcpy(tile, acc, sizeof tile);                                           \
    for (int j = 0; j < nr; j++)                                              \
      for (int i = 0; i < mr; i++)                                            \
        c[i + j * ldc] = beta != 0 ? tile[j][i] * alpha + c[i + j * ldc] * beta\
                                   : tile[j][i] * alpha;                      \
  }
#else
/* Without vector extensions: the same tile as plain arrays. */
#define KERNEL(T, V)                                                          \
  enum { VL_##T = VBYTES / sizeof(T), MR_##T = MV * VL_##T };                 \
  static void kernel_##T(int64_t kc, const T *restrict a, const T *restrict b,\
                         T *restrict c, int64_t ldc, int mr, int nr, T alpha, \
                         T beta) {                                            \
    T acc[NR][MR_##T] = {{0}};                                                \
    for (int64_t p = 0; p < kc; p++, a += MR_##T, b += NR)                    \
      for (int j = 0; j < NR; j++) {                                          \
        _Pragma("omp simd") for (int i = 0; i < MR_##T; i++)                  \
          acc[j][i] += a[i] * b[j];                                           \
      }                                                                       \
    for (int j = 0; j < nr; j++)                                              \
      for (int i = 0; i < mr; i++)                                            \
        c[i + j * ldc] = beta != 0 ? acc[j][i] * alpha + c[i + j * ldc] * beta\
                                   : acc[j][i] * alpha;                       \
  }
#endif

/* Packing. A's sliver of MR rows is stored k-major, MR contiguous elements
 * per k (one column segment of A each, so the copy reads A's columns in
 * order); B's sliver of NR columns is stored k-major too, NR per k. Rows
 * and columns past the edge are zeros: they multiply into tile elements
 * that are never stored, and a zero, unlike the NaN the buffer holds
 * there, cannot spoil the rest. */
#define PACK(T)                                                               \
  static void pack_a_##T(int64_t mc, int64_t kc, const T *a, int64_t lda,    \
                         T *restrict dst) {                                   \
    for (int64_t ir = 0; ir < mc; ir += MR_##T) {                             \
      const int64_t mr = mc - ir < MR_##T ? mc - ir : MR_##T;                 \
      for (int64_t p = 0; p < kc; p++) {                                      \
        const T *src = a + ir + p * lda;                                      \
        int64_t i = 0;                                                        \
        for (; i < mr; i++) dst[i] = src[i];                                  \
        for (; i < MR_##T; i++) dst[i] = 0;                                   \
        dst += MR_##T;                                                        \
      }                                                                       \
    }                                                                         \
  }                                                                           \
  static void pack_b_##T(int64_t kc, int64_t nr, const T *b, int64_t ldb,    \
                         T *restrict dst) {                                   \
    for (int64_t p = 0; p < kc; p++) {                                        \
      int64_t j = 0;                                                          \
      for (; j < nr; j++) dst[j] = b[p + j * ldb];                            \
      for (; j < NR; j++) dst[j] = 0;                                         \
      dst += NR;                                                              \
    }                                                                         \
  }

/* The loop nest. Every thread walks the same jc and pc loops, so the
 * worksharing B pack and the barrier line up; the first k slice applies
 * beta, later ones add to what it left. */
#define NEST(T, KC, MC, NC)                                                   \
  /* The threads, the blocks and the packing buffers' sizes for a shape:   \
   * B's panel, shared, and one A block per thread, each a whole number of  \
   * ALIGN bytes. */                                                          \
  typedef struct sizes_##T {                                                  \
    int threads;                                                              \
    int64_t kc_max, nc_max, mc_max;                                           \
    size_t a_bytes, b_bytes;                                                  \
  } sizes_##T;                                                                \
  static sizes_##T sizes_of_##T(const kl__gemm_shape *s) {                    \
    const int64_t m = s->m, n = s->n, k = s->k;                               \
    sizes_##T z;                                                              \
    z.threads = 2 * m * n * k < SERIAL_FLOPS ? 1 : kl__omp_threads();        \
    /* Equal slices: k = 513 as 256 + 256 + 1 would spend a whole pass     \
     * over C on the last one. */                                             \
    z.kc_max = (k + (k + KC - 1) / KC - 1) / ((k + KC - 1) / KC);             \
    z.nc_max =                                                                \
        ROUND_UP((n + (n + NC - 1) / NC - 1) / ((n + NC - 1) / NC), NR);     \
    z.mc_max = ROUND_UP(m < MC ? m : MC, MR_##T);                             \
    z.b_bytes = ROUND_UP((size_t)(z.kc_max * z.nc_max) * sizeof(T), ALIGN);  \
    z.a_bytes = ROUND_UP((size_t)(z.kc_max * z.mc_max) * sizeof(T), ALIGN);  \
    return z;                                                                 \
  }                                                                           \
  static kl_status gemm_##T(const kl__gemm_shape *s, const T *A, const T *B,  \
                            T *C, void *bv, void *av) {                       \
    const int64_t m = s->m, n = s->n, k = s->k;                               \
    const int64_t lda = s->lda, ldb = s->ldb, ldc = s->ldc;                   \
    const T alpha = (T)s->alpha, beta = (T)s->beta;                           \
    if (alpha == 0 || k == 0) {                                               \
      /* BLAS: A and B are not referenced. */                                 \
      _Pragma("omp parallel for schedule(static)")                            \
      for (int64_t j = 0; j < n; j++)                                         \
        for (int64_t i = 0; i < m; i++)                                       \
          C[i + j * ldc] = beta != 0 ? beta * C[i + j * ldc] : 0;             \
      return KL_OK;                                                           \
    }                                                                         \
    const sizes_##T z = sizes_of_##T(s);                                      \
    const int threads = z.threads;                                            \
    const int64_t kc_max = z.kc_max, nc_max = z.nc_max;                       \
    const size_t a_bytes = z.a_bytes;                                         \
    T *bp = bv, *ap = av;                                                     \
    _Pragma("omp parallel num_threads(threads)") {                            \
      const int t = kl__omp_thread();                                         \
      const split my = split_for(m, n, MR_##T, NR, kl__omp_team(), t);        \
      T *my_a = (T *)((char *)ap + a_bytes * (size_t)t);                      \
      for (int64_t jc = 0; jc < n; jc += nc_max) {                            \
        const int64_t nc = n - jc < nc_max ? n - jc : nc_max;                 \
        const int64_t slivers = (nc + NR - 1) / NR;                           \
        /* This thread's columns within the panel. */                         \
        const int64_t j0 = my.n0 > jc ? my.n0 : jc;                           \
        const int64_t j1 = my.n1 < jc + nc ? my.n1 : jc + nc;                 \
        for (int64_t pc = 0; pc < k; pc += kc_max) {                          \
          const int64_t kc = k - pc < kc_max ? k - pc : kc_max;               \
          const T beta_here = pc == 0 ? beta : 1;                             \
          _Pragma("omp for schedule(static)")                                 \
          for (int64_t q = 0; q < slivers; q++) {                             \
            const int64_t nr = nc - q * NR < NR ? nc - q * NR : NR;           \
            pack_b_##T(kc, nr, B + pc + (jc + q * NR) * ldb, ldb,             \
                       bp + q * NR * kc);                                     \
          }                                                                   \
          for (int64_t ic = my.m0; ic < my.m1; ic += MC) {                    \
            const int64_t mc = my.m1 - ic < MC ? my.m1 - ic : MC;             \
            if (j0 >= j1) break;                                              \
            pack_a_##T(mc, kc, A + ic + pc * lda, lda, my_a);                 \
            for (int64_t jr = j0; jr < j1; jr += NR) {                        \
              const int nr = (int)(j1 - jr < NR ? j1 - jr : NR);              \
              const T *bs = bp + (jr - jc) * kc;                              \
              for (int64_t ir = 0; ir < mc; ir += MR_##T) {                   \
                const int mr = (int)(mc - ir < MR_##T ? mc - ir : MR_##T);    \
                kernel_##T(kc, my_a + ir * kc, bs, C + ic + ir + jr * ldc,    \
                           ldc, mr, nr, alpha, beta_here);                    \
              }                                                               \
            }                                                                 \
          }                                                                   \
          /* Nobody repacks B while another thread still reads it. */         \
          _Pragma("omp barrier")                                              \
        }                                                                     \
      }                                                                       \
    }                                                                         \
    return KL_OK;                                                             \
  }

#if HAVE_VECTORS
KERNEL(double, vf64)
KERNEL(float, vf32)
#else
KERNEL(double, double)
KERNEL(float, float)
#endif
PACK(double)
PACK(float)
NEST(double, KC_F64, MC_F64, NC_F64)
NEST(float, KC_F32, MC_F32, NC_F32)

/* The packing buffers as scratch of the plan: B's panel and the threads'
 * A blocks. The host backends' allocator gives large ones 2 MiB pages,
 * where 4 KiB ones cost ~2000 page faults a call, 1-2% of a 2048 run. */
kl_status kl__gemm_omp_scratch(kl_plan *p) {
  const kl__gemm_shape s = kl__gemm_shape_of(p);
  size_t a_bytes, b_bytes;
  if (p->type == KL_F32) {
    const sizes_float z = sizes_of_float(&s);
    a_bytes = z.a_bytes * (size_t)z.threads, b_bytes = z.b_bytes;
  } else {
    const sizes_double z = sizes_of_double(&s);
    a_bytes = z.a_bytes * (size_t)z.threads, b_bytes = z.b_bytes;
  }
  kl_status st = kl__plan_scratch(p, GEMM_B_PANEL, "packed B panel", KL_U8,
                                  (int64_t)b_bytes, KL_MEM_PAGEABLE, 0);
  if (st == KL_OK)
    st = kl__plan_scratch(p, GEMM_A_BLOCKS, "packed A blocks", KL_U8,
                          (int64_t)a_bytes, KL_MEM_PAGEABLE, 0);
  return st;
}

kl_status kl__gemm_omp_blocked(const kl_args *a) {
  const kl__gemm_shape s = kl__gemm_shape_of(a->plan);
  void *const *b = a->buffers;
  if (a->plan->type == KL_F32)
    return gemm_float(&s, b[GEMM_A], b[GEMM_B], b[GEMM_C], b[GEMM_B_PANEL],
                      b[GEMM_A_BLOCKS]);
  return gemm_double(&s, b[GEMM_A], b[GEMM_B], b[GEMM_C], b[GEMM_B_PANEL],
                     b[GEMM_A_BLOCKS]);
}
