/* A program outside the tree, built against an installed kladder by
 * tests/install/check.sh: through pkg-config (shared and static) and
 * through find_package(kladder). The installed headers only (the model is
 * not installed). Host backends only: no GPU needed. */
#include <stdio.h>

#include "kladder-run.h"

int main(void) {
  printf("kladder %s (%d.%d.%d)\n", KL_VERSION, KL_VERSION_MAJOR,
         KL_VERSION_MINOR, KL_VERSION_PATCH);
  size_t workloads = kl_workload_count();
  printf("workloads %zu\n", workloads);

  kl_problem pb;
  kl_problem_init(&pb);
  pb.n = 1000;
  pb.seed = 7;
  kl_report *rep = NULL;
  kl_status st = kl_run_rung(NULL, "map", "serial", &pb, 1, 0, &rep);
  const kl_result *res = kl_report_result(rep, 0);
  if (!res) {
    printf("map serial: no result: %s: %s\n", kl_status_name(st),
           kl_last_error());
    return 1;
  }
  int pass = st == KL_OK && res->check == KL_CHECK_PASS;
  printf("map serial n=%lld: %s %s\n", (long long)res->n,
         st == KL_OK ? "OK" : kl_status_name(st), pass ? "PASS" : "FAIL");
  kl_report_free(rep);
  return pass && workloads > 0 ? 0 : 1;
}
