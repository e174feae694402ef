/* gemm-omp.c's micro-kernel, packing and loop nest for one element type:
 * a template header, included once per type with
 *   T              the element type (float, double)
 *   V              its vector of VBYTES bytes (where HAVE_VECTORS)
 *   KC, MC, NC     the type's blocking
 *   GEMM_NAME(x)   x_float, x_double: the names of its functions
 * so that each is a function with its own lines; everything else is
 * gemm-omp.c's. */
enum { GEMM_NAME(VL) = VBYTES / sizeof(T), GEMM_NAME(MR) = MV * GEMM_NAME(VL) };
#define VL GEMM_NAME(VL) /* elements of a vector */
#define MR GEMM_NAME(MR) /* rows of the register tile */

#if HAVE_VECTORS
/* The micro-kernel: an MR x NR tile of C = alpha * (packed A sliver) x
 * (packed B sliver) + beta * C. The accumulators are named vectors, fully
 * unrolled over the tile, so that they are registers. */
static void GEMM_NAME(kernel)(int64_t kc, const T *restrict a,
                              const T *restrict b, T *restrict c, int64_t ldc,
                              int mr, int nr, T alpha, T beta) {
  V acc[NR][MV];
  for (int j = 0; j < NR; j++)
    for (int v = 0; v < MV; v++) acc[j][v] = (V){0};
  /* C's tile is touched once per k slice, after the loop: asking for it
   * now hides that miss behind kc steps of arithmetic. */
  for (int j = 0; j < nr; j++)
    for (int l = 0; l < (int)(MR * sizeof(T)); l += 64)
      PREFETCH_AT(c, ((size_t)j * (size_t)ldc * sizeof(T) + (size_t)l), 1);
  for (int64_t p = 0; p < kc; p++) {
    /* The packed streams come from L2 (A's sliver is 96 KiB, B's 32 KiB
     * in double): asking PF_STEPS steps ahead, one request per line,
     * beat leaving them to the hardware prefetchers (LESSONS.md). */
    for (int l = 0; l < MV; l++)
      PREFETCH_AT(a, (PF_STEPS * MR + l * VL) * sizeof(T), 0);
    PREFETCH_AT(b, PF_STEPS * NR * sizeof(T), 0);
    V av[MV];
    for (int v = 0; v < MV; v++)
      memcpy(&av[v], a + v * VL, sizeof(V));
    for (int j = 0; j < NR; j++) {
      const T bj = b[j];
      for (int v = 0; v < MV; v++) acc[j][v] += av[v] * bj;
    }
    a += MR;
    b += NR;
  }
  if (mr == MR && nr == NR) {
    for (int j = 0; j < NR; j++)
      for (int v = 0; v < MV; v++) {
        T *cj = c + j * ldc + v * VL;
        V r = acc[j][v] * alpha;
        if (beta != 0) {
          V old;
          memcpy(&old, cj, sizeof(V));
          r = acc[j][v] * alpha + old * beta;
        }
        memcpy(cj, &r, sizeof(V));
      }
    return;
  }
  /* An edge tile: only mr x nr of it is C's. */
  T tile[NR][MR];
  memcpy(tile, acc, sizeof tile);
  for (int j = 0; j < nr; j++)
    for (int i = 0; i < mr; i++)
      c[i + j * ldc] = beta != 0 ? tile[j][i] * alpha + c[i + j * ldc] * beta
                                 : tile[j][i] * alpha;
}
#else
/* Without vector extensions: the same tile as plain arrays. */
static void GEMM_NAME(kernel)(int64_t kc, const T *restrict a,
                              const T *restrict b, T *restrict c, int64_t ldc,
                              int mr, int nr, T alpha, T beta) {
  T acc[NR][MR] = {{0}};
  for (int64_t p = 0; p < kc; p++, a += MR, b += NR)
    for (int j = 0; j < NR; j++) {
#pragma omp simd
      for (int i = 0; i < MR; i++)
        acc[j][i] += a[i] * b[j];
    }
  for (int j = 0; j < nr; j++)
    for (int i = 0; i < mr; i++)
      c[i + j * ldc] = beta != 0 ? acc[j][i] * alpha + c[i + j * ldc] * beta
                                 : acc[j][i] * alpha;
}
#endif

/* Packing. A's sliver of MR rows is stored k-major, MR contiguous elements
 * per k (one column segment of A each, so the copy reads A's columns in
 * order); B's sliver of NR columns is stored k-major too, NR per k. Rows
 * and columns past the edge are zeros: they multiply into tile elements
 * that are never stored, and a zero, unlike the NaN the buffer holds
 * there, cannot spoil the rest. */
static void GEMM_NAME(pack_a)(int64_t mc, int64_t kc, const T *a,
                              int64_t lda, T *restrict dst) {
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int64_t mr = mc - ir < MR ? mc - ir : MR;
    for (int64_t p = 0; p < kc; p++) {
      const T *src = a + ir + p * lda;
      int64_t i = 0;
      for (; i < mr; i++) dst[i] = src[i];
      for (; i < MR; i++) dst[i] = 0;
      dst += MR;
    }
  }
}

static void GEMM_NAME(pack_b)(int64_t kc, int64_t nr, const T *b,
                              int64_t ldb, T *restrict dst) {
  for (int64_t p = 0; p < kc; p++) {
    int64_t j = 0;
    for (; j < nr; j++) dst[j] = b[p + j * ldb];
    for (; j < NR; j++) dst[j] = 0;
    dst += NR;
  }
}

/* The threads, the blocks and the packing buffers' sizes for a shape:
 * B's panel, shared, and one A block per thread, each a whole number of
 * ALIGN bytes. */
typedef struct GEMM_NAME(sizes) {
  int threads;
  int64_t kc_max, nc_max, mc_max;
  size_t a_bytes, b_bytes;
} GEMM_NAME(sizes);

static GEMM_NAME(sizes) GEMM_NAME(sizes_of)(const kl__gemm_shape *s) {
  const int64_t m = s->m, n = s->n, k = s->k;
  GEMM_NAME(sizes) z;
  z.threads = 2 * m * n * k < SERIAL_FLOPS ? 1 : kl__omp_threads();
  /* Equal slices: k = 513 as 256 + 256 + 1 would spend a whole pass
   * over C on the last one. */
  z.kc_max = (k + (k + KC - 1) / KC - 1) / ((k + KC - 1) / KC);
  z.nc_max =
      ROUND_UP((n + (n + NC - 1) / NC - 1) / ((n + NC - 1) / NC), NR);
  z.mc_max = ROUND_UP(m < MC ? m : MC, MR);
  z.b_bytes = ROUND_UP((size_t)(z.kc_max * z.nc_max) * sizeof(T), ALIGN);
  z.a_bytes = ROUND_UP((size_t)(z.kc_max * z.mc_max) * sizeof(T), ALIGN);
  return z;
}

/* The loop nest. Every thread walks the same jc and pc loops, so the
 * worksharing B pack and the barrier line up; the first k slice applies
 * beta, later ones add to what it left. */
static kl_status GEMM_NAME(gemm)(const kl__gemm_shape *s, const T *A,
                                 const T *B, T *C, void *bv, void *av) {
  const int64_t m = s->m, n = s->n, k = s->k;
  const int64_t lda = s->lda, ldb = s->ldb, ldc = s->ldc;
  const T alpha = (T)s->alpha, beta = (T)s->beta;
  if (alpha == 0 || k == 0) {
    /* BLAS: A and B are not referenced. */
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < m; i++)
        C[i + j * ldc] = beta != 0 ? beta * C[i + j * ldc] : 0;
    return KL_OK;
  }
  const GEMM_NAME(sizes) z = GEMM_NAME(sizes_of)(s);
  const int threads = z.threads;
  const int64_t kc_max = z.kc_max, nc_max = z.nc_max;
  const size_t a_bytes = z.a_bytes;
  T *bp = bv, *ap = av;
#pragma omp parallel num_threads(threads)
  {
    const int t = kl__omp_thread();
    const split my = split_for(m, n, MR, NR, kl__omp_team(), t);
    T *my_a = (T *)((char *)ap + a_bytes * (size_t)t);
    for (int64_t jc = 0; jc < n; jc += nc_max) {
      const int64_t nc = n - jc < nc_max ? n - jc : nc_max;
      const int64_t slivers = (nc + NR - 1) / NR;
      /* This thread's columns within the panel. */
      const int64_t j0 = my.n0 > jc ? my.n0 : jc;
      const int64_t j1 = my.n1 < jc + nc ? my.n1 : jc + nc;
      for (int64_t pc = 0; pc < k; pc += kc_max) {
        const int64_t kc = k - pc < kc_max ? k - pc : kc_max;
        const T beta_here = pc == 0 ? beta : 1;
#pragma omp for schedule(static)
        for (int64_t q = 0; q < slivers; q++) {
          const int64_t nr = nc - q * NR < NR ? nc - q * NR : NR;
          GEMM_NAME(pack_b)(kc, nr, B + pc + (jc + q * NR) * ldb, ldb,
                            bp + q * NR * kc);
        }
        for (int64_t ic = my.m0; ic < my.m1; ic += MC) {
          const int64_t mc = my.m1 - ic < MC ? my.m1 - ic : MC;
          if (j0 >= j1) break;
          GEMM_NAME(pack_a)(mc, kc, A + ic + pc * lda, lda, my_a);
          for (int64_t jr = j0; jr < j1; jr += NR) {
            const int nr = (int)(j1 - jr < NR ? j1 - jr : NR);
            const T *bs = bp + (jr - jc) * kc;
            for (int64_t ir = 0; ir < mc; ir += MR) {
              const int mr = (int)(mc - ir < MR ? mc - ir : MR);
              GEMM_NAME(kernel)(kc, my_a + ir * kc, bs,
                                C + ic + ir + jr * ldc, ldc, mr, nr, alpha,
                                beta_here);
            }
          }
        }
        /* Nobody repacks B while another thread still reads it. */
#pragma omp barrier
      }
    }
  }
  return KL_OK;
}

#undef VL
#undef MR
