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
 * (0.74x the fused rate on Zen 4; LESSONS.md). */
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
 * 2-core machine at 2048 (LESSONS.md): a deep k slice pays most, since each
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

/* ---- each type's kernel, packing and loop nest: gemm-omp-body.h ------- */
#define T double
#define KC KC_F64
#define MC MC_F64
#define NC NC_F64
#define GEMM_NAME(name) name##_double
#if HAVE_VECTORS
#define V vf64
#endif
#include "gemm-omp-body.h"
#undef T
#undef V
#undef KC
#undef MC
#undef NC
#undef GEMM_NAME
#define T float
#define KC KC_F32
#define MC MC_F32
#define NC NC_F32
#define GEMM_NAME(name) name##_float
#if HAVE_VECTORS
#define V vf32
#endif
#include "gemm-omp-body.h"
#undef T
#undef V
#undef KC
#undef MC
#undef NC
#undef GEMM_NAME

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
