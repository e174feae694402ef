/* test_rungs [--quick] [--random-only] BACKEND SIZE...: every rung of every
 * workload on BACKEND, at every size, type, operation and input pattern, on
 * fresh inputs, checked on every element. --quick: only each workload's
 * smallest type (which reaches the most elements in a given memory),
 * default operation and random inputs, for the sizes beyond 2^31.
 * --random-only: every type and operation, random inputs only (the memory
 * a rung touches does not depend on the values: the sanitizer runs).
 * A combination that the workload's plan refuses as KL_UNAVAILABLE (reduce:
 * a NaN or infinity pattern for int32) is skipped as not applicable.
 * Exit 0 when all pass, 1 on any failure, 77 (skipped) when the backend is
 * absent or no size fits in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kladder.h"

static size_t count(const char *const *list) {
  size_t n = 0;
  while (list && list[n]) n++;
  return n;
}

static int smallest_type(const kl_workload *w) {
  int best = -1;
  for (int t = 0; t < KL_TYPE_COUNT; t++)
    if ((w->types & KL_TYPE_BIT(t)) &&
        (best < 0 || kl_type_size((kl_type)t) < kl_type_size((kl_type)best)))
      best = t;
  return best;
}

int main(int argc, char **argv) {
  int quick = 0, random_only = 0;
  for (; argc > 1 && argv[1][0] == '-' && argv[1][1] == '-'; argc--, argv++) {
    if (strcmp(argv[1], "--quick") == 0) quick = 1;
    else if (strcmp(argv[1], "--random-only") == 0) random_only = 1;
    else break;
  }
  if (argc < 3) {
    fprintf(stderr,
            "usage: test_rungs [--quick] [--random-only] BACKEND SIZE...\n");
    return 2;
  }
  const kl_backend *b = kl_backend_find(argv[1]);
  char info[256] = "unknown backend";
  if (!b || !kl_backend_available(b, info, sizeof info)) {
    printf("SKIP: backend %s not available here: %s\n", argv[1], info);
    return 77;
  }
  int ran = 0, failed = 0, too_large = 0, not_applicable = 0;
  for (int s = 2; s < argc; s++) {
    int64_t n = 0;
    if (kl_parse_size(argv[s], &n) != KL_OK) {
      fprintf(stderr, "bad size %s: %s\n", argv[s], kl_last_error());
      return 2;
    }
    for (size_t w = 0; w < kl_workload_count(); w++) {
      const kl_workload *wl = kl_workload_at(w);
      if (wl->dims) continue; /* shaped workloads have their own tests */
      size_t ops = quick || !wl->ops ? 1 : count(wl->ops);
      size_t patterns =
          quick || random_only || !wl->inputs ? 1 : count(wl->inputs);
      for (size_t r = 0; r < wl->rung_count; r++) {
        const kl_rung *rung = &wl->rungs[r];
        if (strcmp(rung->backend, b->name) != 0 || !rung->run) continue;
        for (int t = 0; t < KL_TYPE_COUNT; t++) {
          if (!(wl->types & KL_TYPE_BIT(t))) continue;
          if (quick && t != smallest_type(wl)) continue;
          if (rung->types && !(rung->types & KL_TYPE_BIT(t))) continue;
          for (size_t op = 0; op < ops; op++) {
            for (size_t in = 0; in < patterns; in++) {
              /* A different seed per case: fresh inputs each time. */
              kl_problem pb = {
                  .n = n,
                  .type = (kl_type)t,
                  .op = wl->ops ? wl->ops[op] : NULL,
                  .inputs = wl->inputs ? wl->inputs[in] : NULL,
                  .seed = 1000u * (uint64_t)s + 100u * (uint64_t)t +
                          10u * op + in};
              kl_result res;
              kl_status st = kl_run_rung(wl, rung, &pb, 1, 0, &res);
              const char *word = "ok";
              if (st == KL_TOO_LARGE) {
                too_large++;
                word = "SKIP (too large here)";
              } else if (st == KL_UNAVAILABLE) {
                not_applicable++;
                word = "SKIP (not applicable)";
              } else if (st != KL_OK) {
                failed++;
                word = "FAIL";
              } else if (res.check == KL_CHECK_MISSED) {
                word = "ok (known-wrong rung passed at this size)";
              } else if (res.check == KL_CHECK_CAUGHT) {
                word = "ok (known-wrong rung caught)";
              }
              if (st == KL_OK) ran++;
              printf("%-9s %-22s %-4s %-4s %-10s n=%-11lld %s", wl->name,
                     rung->name, kl_type_name((kl_type)t),
                     pb.op ? pb.op : "-", pb.inputs ? pb.inputs : "-",
                     (long long)n, word);
              if (st == KL_CHECK_FAILED)
                printf(": %lld bad of %lld; %s",
                       (long long)res.verdict.bad_count,
                       (long long)res.verdict.checked, res.verdict.detail);
              else if (st != KL_OK)
                printf(": %s", res.error[0] ? res.error : kl_last_error());
              printf("\n");
              fflush(stdout);
            }
          }
        }
      }
    }
  }
  printf("skipped: %d too large here, %d not applicable\n", too_large,
         not_applicable);
  printf("%d passed, %d failed, %d skipped\n", ran, failed,
         too_large + not_applicable);
  if (failed) return 1;
  return ran ? 0 : 77;
}
