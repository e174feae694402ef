/* The checker must catch wrong outputs: for every workload and type, a
 * rung that leaves the poisoned output unwritten, and rungs that compute the
 * right answer and then spoil one element (first, middle, last), must all
 * be reported as failed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kladder.h"

static const kl_rung *reference_rung; /* the workload's serial rung */
static int64_t spoil_at;              /* -1: write nothing at all */

static int first_output(const kl_plan *p) {
  for (int i = 0; i < p->buffer_count; i++)
    if (p->buffers[i].role != KL_IN) return i;
  return -1;
}

/* Far outside any tolerance, yet a plausible-looking number. */
static void spoil(void *buf, kl_type t, int64_t i) {
  switch (t) {
  case KL_F32: ((float *)buf)[i] = ((float *)buf)[i] * 1.001f + 1e-3f; break;
  case KL_F64: ((double *)buf)[i] = ((double *)buf)[i] * 1.001 + 1e-3; break;
  case KL_I32: ((int32_t *)buf)[i] += 1; break;
  case KL_I64: ((int64_t *)buf)[i] += 1; break;
  case KL_U8: ((uint8_t *)buf)[i] += 1; break;
  default: break;
  }
}

/* The element the faulty rung spoils: spoil_at, or the last element of
 * an output shorter than that (a reduction's single result). */
static int64_t spoiled_index(const kl_plan *p) {
  int out = first_output(p);
  int64_t count = out >= 0 ? p->buffers[out].count : 0;
  return spoil_at < count ? spoil_at : count - 1;
}

static int64_t last_spoiled = -1;

static kl_status faulty_run(const kl_args *a) {
  if (spoil_at < 0) return KL_OK; /* the poison stays */
  kl_status st = reference_rung->run(a);
  int out = first_output(a->plan);
  if (st == KL_OK && out >= 0) {
    last_spoiled = spoiled_index(a->plan);
    spoil(a->buffers[out], a->plan->buffers[out].type, last_spoiled);
  }
  return st;
}

int main(void) {
  int checked = 0, missed = 0;
  for (size_t w = 0; w < kl_workload_count(); w++) {
    const kl_workload *wl = kl_workload_at(w);
    reference_rung = NULL;
    for (size_t r = 0; r < wl->rung_count && !reference_rung; r++)
      if (strcmp(wl->rungs[r].backend, "serial") == 0 &&
          !(wl->rungs[r].flags & KL_RUNG_KNOWN_WRONG))
        reference_rung = &wl->rungs[r];
    if (!reference_rung) {
      printf("%s: no serial rung to spoil\n", wl->name);
      missed++;
      continue;
    }
    /* Shaped workloads (gemm) at a small odd shape whose output has gap
     * rows (ldc > m): a write into them must be caught as well. */
    kl_shape shape = {{0}, {0}, {0}, 0};
    int64_t n = 4099, out_count = n, gap = -1;
    if (wl->dims) {
      const int64_t m = 67, cols = 61;
      n = m;
      shape.dims[0] = m;
      shape.dims[1] = cols;
      shape.dims[2] = 59;
      shape.lead[2] = m + 3;
      out_count = (m + 3) * (cols - 1) + m;
      gap = m + 1; /* column 0, below the last row */
    }
    for (int t = 0; t < KL_TYPE_COUNT; t++) {
      if (!(wl->types & KL_TYPE_BIT(t))) continue;
      const int64_t cases[] = {-1, 0, out_count / 2, out_count - 1, gap};
      for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        if (c == 4 && gap < 0) continue;
        kl_rung faulty = *reference_rung;
        faulty.name = "faulty";
        faulty.run = faulty_run;
        faulty.flags = 0;
        spoil_at = cases[c];
        kl_result res;
        kl_problem pb = {.n = n, .type = (kl_type)t, .seed = 7 + c,
                         .shape = shape};
        kl_status st = kl_run_rung(wl, &faulty, &pb, 1, 0, &res);
        int caught = st == KL_CHECK_FAILED && res.verdict.bad_count >= 1 &&
                     (spoil_at < 0 || res.verdict.first_bad == last_spoiled);
        printf("%-8s %-4s %-16s %s (%lld bad, first at %lld)\n", wl->name,
               kl_type_name((kl_type)t),
               spoil_at < 0 ? "unwritten" : c == 4 ? "gap row written"
                                              : "one spoiled",
               caught ? "caught" : "MISSED", (long long)res.verdict.bad_count,
               (long long)res.verdict.first_bad);
        checked++;
        missed += !caught;
      }
      /* And the unspoiled reference itself passes. */
      kl_result res;
      kl_problem pb = {.n = n, .type = (kl_type)t, .seed = 3,
                       .shape = shape};
      if (kl_run_rung(wl, reference_rung, &pb, 1, 0, &res) != KL_OK) {
        printf("%s %s: reference rung failed: %s\n", wl->name,
               kl_type_name((kl_type)t), res.error);
        missed++;
      }
    }
  }
  printf("%d passed, %d failed\n", checked - missed, missed);
  return missed ? 1 : 0;
}
