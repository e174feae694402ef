/* test_rungs [--smallest-type] BACKEND SIZE...: every rung of every
 * workload on BACKEND, at every size and type (or only each workload's
 * smallest type, which reaches the most elements in a given memory), on
 * fresh inputs, checked on every element.
 * Exit 0 when all pass, 1 on any failure, 77 (skipped) when the backend is
 * absent or no size fits in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kladder.h"

int main(int argc, char **argv) {
  int smallest_only = argc > 1 && strcmp(argv[1], "--smallest-type") == 0;
  argc -= smallest_only;
  argv += smallest_only;
  if (argc < 3) {
    fprintf(stderr, "usage: test_rungs [--smallest-type] BACKEND SIZE...\n");
    return 2;
  }
  const kl_backend *b = kl_backend_find(argv[1]);
  char info[256] = "unknown backend";
  if (!b || !kl_backend_available(b, info, sizeof info)) {
    printf("SKIP: backend %s not available here: %s\n", argv[1], info);
    return 77;
  }
  int ran = 0, failed = 0, too_large = 0;
  for (int s = 2; s < argc; s++) {
    int64_t n = 0;
    if (kl_parse_size(argv[s], &n) != KL_OK) {
      fprintf(stderr, "bad size %s: %s\n", argv[s], kl_last_error());
      return 2;
    }
    for (size_t w = 0; w < kl_workload_count(); w++) {
      const kl_workload *wl = kl_workload_at(w);
      int smallest = -1;
      for (int t = 0; t < KL_TYPE_COUNT; t++)
        if ((wl->types & KL_TYPE_BIT(t)) &&
            (smallest < 0 ||
             kl_type_size((kl_type)t) < kl_type_size((kl_type)smallest)))
          smallest = t;
      for (size_t r = 0; r < wl->rung_count; r++) {
        const kl_rung *rung = &wl->rungs[r];
        if (strcmp(rung->backend, b->name) != 0 || !rung->run) continue;
        for (int t = 0; t < KL_TYPE_COUNT; t++) {
          if (!(wl->types & KL_TYPE_BIT(t))) continue;
          if (smallest_only && t != smallest) continue;
          if (rung->types && !(rung->types & KL_TYPE_BIT(t))) continue;
          kl_result res;
          /* A different seed per size and type: fresh inputs each time. */
          uint64_t seed = 1000u * (uint64_t)s + (uint64_t)t;
          kl_status st =
              kl_run_rung(wl, rung, n, (kl_type)t, seed, 1, 0, &res);
          const char *word = "ok";
          if (st == KL_TOO_LARGE) {
            too_large++;
            word = "SKIP (too large here)";
          } else if (st != KL_OK) {
            failed++;
            word = "FAIL";
          } else if (res.check == KL_CHECK_MISSED) {
            word = "ok (known-wrong rung passed at this size)";
          }
          if (st == KL_OK) ran++;
          printf("%-8s %-22s %-4s n=%-11lld %s", wl->name, rung->name,
                 kl_type_name((kl_type)t), (long long)n, word);
          if (st != KL_OK && st != KL_TOO_LARGE) printf(": %s", res.error);
          if (st == KL_CHECK_FAILED)
            printf("%lld bad of %lld; %s", (long long)res.verdict.bad_count,
                   (long long)res.verdict.checked, res.verdict.detail);
          if (st == KL_TOO_LARGE) printf(": %s", kl_last_error());
          printf("\n");
          fflush(stdout);
        }
      }
    }
  }
  printf("%d passed, %d failed, %d skipped\n", ran, failed, too_large);
  if (failed) return 1;
  return ran ? 0 : 77;
}
