// kladder.h from C++: the header compiles as C++ and links against the C
// library (extern "C" linkage), and a run works end to end.
#include <cstdio>
#include <cstring>

#include "kladder.h"

int main() {
  kl_options o;
  kl_options_init(&o);
  o.workloads = "map";
  o.backends = "serial";
  o.n = 1000;
  o.reps = 1;
  o.skip_ceiling = 1;
  kl_report *rep = nullptr;
  kl_status st = kl_run(&o, &rep);
  int ok = st == KL_OK && rep && rep->count == 1 &&
           rep->results[0].check == KL_CHECK_PASS &&
           std::strcmp(rep->results[0].rung->name, "serial") == 0;
  kl_report_free(rep);
  std::printf("%d passed, %d failed\n", ok, !ok);
  return ok ? 0 : 1;
}
