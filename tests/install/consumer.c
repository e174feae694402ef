/* A program outside the tree, built against an installed kladder by
 * tests/install/check.sh: through pkg-config (shared and static) and
 * through find_package(kladder). Host backends only: no GPU needed. */
#include <stdio.h>
#include <string.h>

#include "kladder.h"

int main(void) {
  printf("kladder %s (%d.%d.%d)\n", KL_VERSION, KL_VERSION_MAJOR,
         KL_VERSION_MINOR, KL_VERSION_PATCH);
  size_t workloads = kl_workload_count();
  printf("workloads %zu\n", workloads);

  const kl_workload *map = kl_workload_find("map");
  const kl_rung *serial = map ? kl_rung_find(map, "serial") : NULL;
  if (!serial) {
    printf("map's serial rung: not found\n");
    return 1;
  }
  kl_problem pb;
  memset(&pb, 0, sizeof pb);
  pb.n = 1000;
  pb.type = KL_TYPE_DEFAULT;
  pb.seed = 7;
  kl_result res;
  kl_status st = kl_run_rung(map, serial, &pb, 1, 0, &res);
  int pass = st == KL_OK && res.check == KL_CHECK_PASS;
  printf("map serial n=%lld: %s %s\n", (long long)res.n,
         st == KL_OK ? "OK" : kl_status_name(st), pass ? "PASS" : "FAIL");
  return pass && workloads > 0 ? 0 : 1;
}
