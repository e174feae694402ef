/* The checker must catch wrong outputs: for every workload and type, a
 * rung that leaves the poisoned output unwritten, and rungs that compute the
 * right answer and then spoil one element (first, middle, last), must all
 * be reported as failed (but on a problem with nothing to compute, where
 * the unwritten output is right and must pass). And reduce's check must
 * take a NaN result exactly where its reference is NaN, and an infinity
 * exactly where the reference is that infinity. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/harness.h"

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
  case KL_U32: ((uint32_t *)buf)[i] += 1; break;
  case KL_U64: ((uint64_t *)buf)[i] += 1; break;
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

static void spoil_output(const kl_args *a) {
  int out = first_output(a->plan);
  if (out < 0) return;
  last_spoiled = spoiled_index(a->plan);
  spoil(a->buffers[out], a->plan->buffers[out].type, last_spoiled);
}

static kl_status faulty_run(const kl_args *a) {
  if (spoil_at < 0) return KL_OK; /* the poison stays */
  kl_status st = reference_rung->run(a);
  if (st == KL_OK) spoil_output(a);
  return st;
}

/* The same for a rung that owns its loop (cg): spoiled after its last
 * repetition; unwritten, the output keeps what it started with (cg's x0). */
static kl_status faulty_run_reps(const kl_args *a, kl_reps *reps) {
  for (int i = 0; i < reps->count; i++) reps->seconds[i] = 0;
  if (spoil_at < 0) return KL_OK;
  kl_status st = reference_rung->run_reps(a, reps);
  if (st == KL_OK) spoil_output(a);
  return st;
}

/* Set a choice parameter of a plan by names; 0 when there is no such. */
static int set_choice(const kl_workload *w, kl_plan *p, const char *param,
                      const char *choice) {
  int i = kl_param_index(w, param);
  if (i < 0 || w->params[i].kind != KL_PARAM_CHOICE) return 0;
  for (int k = 0; w->params[i].choices[k]; k++)
    if (strcmp(w->params[i].choices[k], choice) == 0) {
      p->value[i] = k;
      return 1;
    }
  return 0;
}

/* reduce's check of a hand-made result, on inputs made by the workload's
 * own plan and init: 1 when it passes or fails as it must. what names the
 * result; FINITE_MAX stands for the largest element that is not NaN,
 * which a compare that drops NaN would return. */
static const char FINITE_MAX[] = "finite max";

static int reduce_case(const char *op, const char *inputs, kl_type t,
                       const char *what, double result, int must_pass) {
  const kl_workload *w = kl_workload_find("reduce");
  kl_plan p;
  memset(&p, 0, sizeof p);
  p.n = 1001;
  p.type = t;
  p.seed = 11;
  if (!set_choice(w, &p, "op", op) || !set_choice(w, &p, "inputs", inputs) ||
      w->plan(&p) != KL_OK) {
    printf("reduce %s %s %s: no plan: %s\n", op, inputs, kl_type_name(t),
           kl_last_error());
    return 0;
  }
  void *bufs[KL_MAX_BUFFERS] = {0};
  int x = -1, r = -1; /* the input and the result */
  for (int i = 0; i < p.buffer_count; i++) {
    bufs[i] = calloc((size_t)p.buffers[i].count,
                     kl_type_size(p.buffers[i].type));
    if (p.buffers[i].role == KL_IN) x = i;
    else if (r < 0) r = i;
  }
  w->init(&p, bufs);
  if (what == FINITE_MAX) {
    result = -INFINITY;
    for (int64_t i = 0; i < p.n; i++) {
      double e = t == KL_F32 ? ((float *)bufs[x])[i] : ((double *)bufs[x])[i];
      if (e > result) result = e;
    }
  }
  if (p.buffers[r].type == KL_F32) *(float *)bufs[r] = (float)result;
  else *(double *)bufs[r] = result;
  kl_verdict v;
  memset(&v, 0, sizeof v);
  w->check(&p, &w->rungs[0], bufs, bufs, &v);
  int ok = v.passed == must_pass;
  if (v.passed && v.abs_error != 0) ok = 0; /* NaN for NaN is no error */
  printf("reduce   %-4s %s over %-10s = %-10s (%g): %s\n", kl_type_name(t),
         op, inputs, what, result, ok ? (v.passed ? "passed" : "caught")
                                      : (v.passed ? "PASSED" : "REJECTED"));
  for (int i = 0; i < p.buffer_count; i++) free(bufs[i]);
  return ok;
}

/* NaN must stay where the reference has one and nowhere else; an
 * infinity must be the reference's own. */
static int reduce_nan_and_infinity(int *checked) {
  int missed = 0;
  const kl_type types[] = {KL_F32, KL_F64};
  for (int k = 0; k < 2; k++) {
    const kl_type t = types[k];
    const struct {
      const char *op, *inputs, *what;
      double result;
      int pass;
    } cases[] = {
        {"max", "nan-middle", "NaN", NAN, 1},
        {"max", "nan-middle", "-NaN", -NAN, 1},
        {"max", "nan-middle", FINITE_MAX, 0, 0},
        {"min", "nan-first", "NaN", NAN, 1},
        {"sum", "nan-last", "NaN", NAN, 1},
        {"sum", "nan-last", "0", 0, 0},
        {"sum", "random", "NaN", NAN, 0},
        {"min", "random", "NaN", NAN, 0},
        {"max", "random", "NaN", NAN, 0},
        {"max", "random", "+Inf", INFINITY, 0},
        {"sum", "inf-both", "+Inf", INFINITY, 0},
        {"sum", "inf-both", "-Inf", -INFINITY, 0},
        {"sum", "inf-both", "NaN", NAN, 1},
        {"min", "inf-both", "-Inf", -INFINITY, 1},
        {"max", "inf-both", "+Inf", INFINITY, 1},
        {"min", "inf-middle", "-Inf", -INFINITY, 1},
        {"min", "inf-middle", "+Inf", INFINITY, 0},
        {"min", "inf-middle", "NaN", NAN, 0},
        {"sum", "inf-last", "+Inf", INFINITY, 1},
        {"sum", "inf-last", "NaN", NAN, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
      (*checked)++;
      missed += !reduce_case(cases[c].op, cases[c].inputs, t, cases[c].what,
                             cases[c].result, cases[c].pass);
    }
  }
  /* int32 has neither: its plan refuses the patterns, naming why. */
  const kl_workload *w = kl_workload_find("reduce");
  kl_plan p;
  memset(&p, 0, sizeof p);
  p.n = 1001;
  p.type = KL_I32;
  kl_status st = set_choice(w, &p, "inputs", "nan-middle") ? w->plan(&p)
                                                            : KL_USAGE;
  int refused = st == KL_UNAVAILABLE &&
                strstr(kl_last_error(), "needs a floating-point type");
  printf("reduce   i32  nan-middle refused by the plan: %s (%s)\n",
         refused ? "yes" : "NO", kl_last_error());
  (*checked)++;
  missed += !refused;
  return missed;
}

int main(void) {
  int checked = 0, missed = 0;
  missed += reduce_nan_and_infinity(&checked);
  for (size_t w = 0; w < kl_workload_count(); w++) {
    const kl_workload *wl = kl_workload_at(w);
    reference_rung = NULL;
    for (size_t r = 0; r < wl->rung_count && !reference_rung; r++)
      if (wl->rungs[r].backend == kl_backend_find("serial") &&
          !(wl->rungs[r].flags & KL_RUNG_KNOWN_WRONG))
        reference_rung = &wl->rungs[r];
    if (!reference_rung) {
      printf("%s: no serial rung to spoil\n", wl->name);
      missed++;
      continue;
    }
    /* The workload's own test problems, each type, but for the tiny main
     * sizes (below 1000), where single-precision integrate's bound is
     * rightly wider than a subtle spoil: the unwritten output,
     * then one spoiled element at the first, 129th, middle and last index
     * of the output. Index 129 lies in a gap row of gemm's 129-row problem
     * with ldc = 130 (column 0, row 129), which must come back unchanged;
     * elsewhere it is an ordinary element (or the last, in short ones). */
    for (const kl_test_problem *tp = wl->tests; tp && (tp->params || tp->n);
         tp++) {
      if (!tp->params && tp->n < 1000) continue;
      for (int t = 0; t < KL_TYPE_COUNT; t++) {
        if (!(wl->types & KL_TYPE_BIT(t))) continue;
        kl_problem pb = {.size = sizeof pb, .n = tp->n, .type = (kl_type)t,
                         .params = tp->params, .seed = 3};
        kl_report *rep = NULL;
        /* The unspoiled reference itself passes, and tells the output's
         * size. */
        if (kl__run_one(NULL, wl, reference_rung, &pb, 1, 0, &rep) != KL_OK) {
          printf("%s %s %s: reference rung failed: %s\n", wl->name,
                 tp->params ? tp->params : "", kl_type_name((kl_type)t),
                 rep ? rep->results[0].pub.error : kl_last_error());
          kl_report_free(rep);
          missed++;
          continue;
        }
        const kl__result *ref = &rep->results[0];
        /* A problem with no item to compute (laplacian's grids with an
         * extent below 3: no interior point) writes nothing: there the
         * unwritten output is right and must pass. */
        const int nothing_to_write = ref->pub.cost.items == 0;
        int64_t out_count = 0;
        for (int i = 0; i < ref->plan.buffer_count && !out_count; i++)
          if (ref->plan.buffers[i].role != KL_IN)
            out_count = ref->plan.buffers[i].count;
        kl_report_free(rep);
        const int64_t cases[] = {-1, 0, 129, out_count / 2, out_count - 1};
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
          kl_rung faulty = *reference_rung;
          faulty.name = "faulty";
          if (faulty.run) faulty.run = faulty_run;
          else faulty.run_reps = faulty_run_reps;
          faulty.flags = 0;
          spoil_at = cases[c];
          pb.seed = 7 + c;
          rep = NULL;
          kl_status st = kl__run_one(NULL, wl, &faulty, &pb, 1, 0, &rep);
          const kl_result *res = kl_report_result(rep, 0);
          if (!res) {
            printf("%s %s: faulty rung: no result: %s\n", wl->name,
                   kl_type_name((kl_type)t), kl_last_error());
            checked++;
            missed++;
            continue;
          }
          /* A solve's check (a workload that reports counts: cg's
           * iterations) judges its residual, a norm over the whole output,
           * not element by element: the first bad is not the spoiled one. */
          const int by_norm = wl->counts != NULL;
          int caught = st == KL_CHECK_FAILED && res->verdict.bad_count >= 1 &&
                       (spoil_at < 0 || by_norm ||
                        res->verdict.first_bad == last_spoiled);
          if (spoil_at < 0 && nothing_to_write) caught = st == KL_OK;
          printf("%-9s %-4s %-14s %-16s %s (%lld bad, first at %lld)\n",
                 wl->name, kl_type_name((kl_type)t), res->shape,
                 spoil_at < 0 ? nothing_to_write ? "unwritten, none due"
                                                 : "unwritten"
                              : "one spoiled",
                 caught ? (spoil_at < 0 && nothing_to_write ? "passed"
                                                             : "caught")
                        : "MISSED",
                 (long long)res->verdict.bad_count,
                 (long long)res->verdict.first_bad);
          kl_report_free(rep);
          checked++;
          missed += !caught;
        }
      }
    }
  }
  printf("%d passed, %d failed\n", checked - missed, missed);
  return missed ? 1 : 0;
}
