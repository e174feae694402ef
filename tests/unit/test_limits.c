/* The bounds a run keeps to: KLADDER_MEMORY_LIMIT and the most
 * repetitions, through the library as an embedding program meets them. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "kladder-run.h"

static kl_status run(kl_options *o, kl_report **rep) {
  *rep = NULL;
  return kl_run(o, rep);
}

static void small_options(kl_options *o) {
  kl_options_init(o);
  o->workloads = "map";
  o->backends = "serial";
  o->n = 1000;
  o->reps = 1;
  o->warmup = 0;
  o->skip_ceiling = 1;
}

/* Without the bound, a million and one runs of a tiny rung simply ran, and
 * INT_MAX reps made kl_run ask for 16 GiB of timings. */
static void test_reps_bound(void) {
  kl_options o;
  kl_report *rep;
  small_options(&o);
  o.reps = KL_MAX_REPS + 1;
  EXPECT(run(&o, &rep) == KL_USAGE && !rep &&
         strstr(kl_last_error(), "--reps must be from 1 to 1000000"));
  small_options(&o);
  o.reps = 2147483647;
  EXPECT(run(&o, &rep) == KL_USAGE && !rep);
  small_options(&o);
  o.warmup = KL_MAX_REPS + 1;
  EXPECT(run(&o, &rep) == KL_USAGE && !rep &&
         strstr(kl_last_error(), "--warmup must be from 0 to 1000000"));
  kl_problem pb;
  kl_problem_init(&pb);
  pb.n = 100;
  EXPECT(kl_run_rung(NULL, "map", "serial", &pb, KL_MAX_REPS + 1, 0, &rep) ==
             KL_USAGE &&
         strstr(kl_last_error(), "reps must be from 0 (by noise)"));
  kl_report_free(rep);
  EXPECT(kl_run_rung(NULL, "map", "serial", &pb, 1, KL_MAX_REPS + 1, &rep) ==
         KL_USAGE);
  kl_report_free(rep);
  EXPECT(kl_run_rung(NULL, "map", "serial", &pb, -1, 0, &rep) == KL_USAGE);
  kl_report_free(rep);
}

/* The size of the one result of a run of map's serial rung, or -1. */
static int64_t map_default_n(kl_status *st) {
  kl_options o;
  kl_report *rep;
  small_options(&o);
  o.n = 0;
  *st = run(&o, &rep);
  int64_t n = kl_report_count(rep) == 1 ? kl_report_result(rep, 0)->n : -1;
  kl_report_free(rep);
  return n;
}

/* A workload's main-size parameter: 1 and its description, or 0. */
static int main_size(const char *workload, kl_param_info *p) {
  size_t w;
  kl_workload_info wi = {.size = sizeof wi};
  if (kl_workload_index(workload, &w) != KL_OK ||
      kl_workload_describe(w, &wi) != KL_OK)
    return 0;
  for (int i = 0; i < wi.param_count; i++) {
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    if (kl_param_describe(w, i, p) == KL_OK && p->main_size) return 1;
  }
  return 0;
}

static void test_memory_limit(void) {
  kl_options o;
  kl_report *rep;
  kl_status st;
  /* The defaults the cases below shrink: map's 256M elements on every
   * backend, gemm's 1024 on the host backends. */
  kl_param_info map_n, gemm_n;
  EXPECT(main_size("map", &map_n) &&
         map_n.default_value == 256.0 * 1024 * 1024 &&
         map_n.host_default == 0);
  EXPECT(main_size("gemm", &gemm_n) && gemm_n.host_default == 1024);
  /* map's default (256M floats, 2 GiB with its output) shrinks to fit half
   * of 8 MiB: 512Ki floats in, 512Ki out. */
  setenv("KLADDER_MEMORY_LIMIT", "8M", 1);
  EXPECT(map_default_n(&st) == 512 * 1024 && st == KL_OK);
  /* Below a mebi-element the fitted size is a power of two, not 1. */
  setenv("KLADDER_MEMORY_LIMIT", "1M", 1);
  EXPECT(map_default_n(&st) == 64 * 1024 && st == KL_OK);
  /* An explicit size beyond it is refused, as beyond the machine. */
  setenv("KLADDER_MEMORY_LIMIT", "64K", 1);
  small_options(&o);
  o.n = 100000;
  EXPECT(run(&o, &rep) == KL_TOO_LARGE && !rep &&
         strstr(kl_last_error(), "of host memory") &&
         strstr(kl_last_error(), "KLADDER_MEMORY_LIMIT"));
  /* The same size as a parameter (-p n=100000) too. */
  small_options(&o);
  o.n = 0;
  o.params = "n=100000";
  EXPECT(run(&o, &rep) == KL_TOO_LARGE && !rep &&
         strstr(kl_last_error(), "of host memory") &&
         strstr(kl_last_error(), "KLADDER_MEMORY_LIMIT"));
  small_options(&o);
  o.n = 1000;
  EXPECT(run(&o, &rep) == KL_OK && rep);
  kl_report_free(rep);
  /* gemm's host default, 1024^3, fits 4 MiB as 256^3. */
  setenv("KLADDER_MEMORY_LIMIT", "4M", 1);
  small_options(&o);
  o.workloads = "gemm";
  o.rungs = "serial-naive";
  o.n = 0;
  EXPECT(run(&o, &rep) == KL_OK && kl_report_count(rep) == 1 &&
         kl_report_result(rep, 0)->n == 256);
  kl_report_free(rep);
  /* A malformed limit is a usage error naming the variable. */
  const char *bad[] = {"", "abc", "0", "-5", "12Q", "99999999999999999999G"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv("KLADDER_MEMORY_LIMIT", bad[i], 1);
    small_options(&o);
    kl_status got = run(&o, &rep);
    EXPECT(kl_exit_code(got) == 2 && !rep &&
           strncmp(kl_last_error(), "KLADDER_MEMORY_LIMIT: ", 22) == 0);
  }
  unsetenv("KLADDER_MEMORY_LIMIT");
}

int main(void) {
  test_reps_bound();
  test_memory_limit();
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
