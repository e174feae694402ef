// kladder.h from C++: the header compiles as C++ and links against the C
// library (extern "C" linkage), and a run, a run of one rung on one
// problem and the entry points (kl_histogram, kl_laplacian) work end to end.
#include <cstdio>
#include <cstring>

#include "kladder.h"
#include "kladder-histogram.h"
#include "kladder-laplacian.h"

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
  // One rung on one problem, its parameters as text (kl_problem's params),
  // and the backend by pointer.
  const kl_workload *gemm = kl_workload_find("gemm");
  const kl_rung *rung =
      gemm ? kl_rung_find(gemm, "serial-loop-order") : nullptr;
  kl_problem pb;
  std::memset(&pb, 0, sizeof pb);
  pb.n = 5;
  pb.type = KL_F64;
  pb.params = "m=7,k=3,lda=10,alpha=-1.5,beta=0.75";
  pb.seed = 1;
  kl_result res;
  char size[64] = "";
  int ran = rung && rung->backend == kl_backend_find("serial") &&
            kl_run_rung(gemm, rung, &pb, 1, 0, &res) == KL_OK &&
            res.check == KL_CHECK_PASS;
  if (ran) kl_result_size(&res, size, sizeof size);
  ran = ran && std::strcmp(size, "7x5x3") == 0;
  // An entry point's header, from C++.
  const unsigned char bytes[] = {7, 7, 255};
  uint64_t counts[256];
  int counted = kl_histogram("serial", bytes, 3, 0, counts) == KL_OK &&
                      counts[7] == 2 && counts[255] == 1 && counts[0] == 0;
  // A 3x3x3 grid: the centre's Laplacian, the boundary untouched.
  double u[27], f[27];
  for (int g = 0; g < 27; g++) u[g] = g == 13 ? 1 : 0, f[g] = 9;
  counted = counted &&
            kl_laplacian("serial", KL_F64, 3, 3, 3, 1, 1, 1, u, f, 0) ==
                KL_OK && f[13] == -6 && f[0] == 9 && f[26] == 9;
  std::printf("%d passed, %d failed\n", ok + ran + counted,
              !ok + !ran + !counted);
  return ok && ran && counted ? 0 : 1;
}
