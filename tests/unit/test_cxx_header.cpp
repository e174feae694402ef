// The installed headers from C++: they compile as C++ and link against the C
// library (extern "C" linkage), and a run, a run of one rung on one
// problem, a context and the entry points (kl_histogram, kl_laplacian,
// kl_reduce) work end to end. The public headers only; no designated
// initializers (C++20), so each struct's size is set by assignment.
#include <cstdio>
#include <cstring>

#include "kladder.h"
#include "kladder-ranks.h"
#include "kladder-run.h"
#include "kladder-cg.h"
#include "kladder-gemm.h"
#include "kladder-histogram.h"
#include "kladder-laplacian.h"
#include "kladder-reduce.h"

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
  const kl_result *first = kl_report_result(rep, 0);
  int ok = st == KL_OK && kl_report_count(rep) == 1 && first &&
           first->check == KL_CHECK_PASS &&
           std::strcmp(first->rung, "serial") == 0;
  kl_report_free(rep);
  // One rung on one problem, by name, its parameters as text (kl_problem's
  // params); the rung described through the info structs.
  size_t gemm = 0;
  kl_workload_info w;
  w.size = sizeof w;
  int ran = kl_workload_index("gemm", &gemm) == KL_OK &&
            kl_workload_describe(gemm, &w) == KL_OK &&
            std::strcmp(w.name, "gemm") == 0;
  int found = 0;
  for (int r = 0; ran && r < w.rung_count; r++) {
    kl_rung_info ri;
    ri.size = sizeof ri;
    if (kl_rung_describe(gemm, r, &ri) == KL_OK &&
        std::strcmp(ri.name, "serial-loop-order") == 0)
      found = std::strcmp(ri.backend, "serial") == 0 && ri.available;
  }
  kl_problem pb;
  kl_problem_init(&pb);
  pb.n = 5;
  pb.type = KL_F64;
  pb.params = "m=7,k=3,lda=10,alpha=-1.5,beta=0.75";
  pb.seed = 1;
  rep = nullptr;
  ran = ran && found &&
        kl_run_rung(nullptr, "gemm", "serial-loop-order", &pb, 1, 0, &rep) ==
            KL_OK;
  const kl_result *res = kl_report_result(rep, 0);
  ran = ran && res && res->check == KL_CHECK_PASS &&
        std::strcmp(res->shape, "7x5x3") == 0 && res->extent_count == 3;
  kl_report_free(rep);
  // A context, and the entry points' headers, from C++.
  kl_context *ctx = nullptr;
  int counted = kl_context_open("serial", &ctx) == KL_OK && ctx;
  kl_device_info d;
  d.size = sizeof d;
  counted = counted && kl_context_device(ctx, &d) == KL_OK &&
            std::strcmp(d.backend, "serial") == 0;
  const unsigned char bytes[] = {7, 7, 255};
  uint64_t counts[256];
  counted = counted && kl_histogram(ctx, bytes, 3, 0, counts) == KL_OK &&
            counts[7] == 2 && counts[255] == 1 && counts[0] == 0;
  // A 3x3x3 grid: the centre's Laplacian, the boundary untouched.
  double u[27], f[27];
  for (int g = 0; g < 27; g++) u[g] = g == 13 ? 1 : 0, f[g] = 9;
  counted = counted &&
            kl_laplacian(ctx, KL_F64, 3, 3, 3, 1, 1, 1, u, f, 0) == KL_OK &&
            f[13] == -6 && f[0] == 9 && f[26] == 9;
  double sum = 0;
  counted = counted && kl_reduce(nullptr, "sum", KL_F64, u, 27, 0, &sum) ==
                           KL_OK && sum == 1;
  // kl_gemm and kl_cg: 1x1 problems.
  const double a1 = 2, b1 = 3;
  double c1 = 1, x1 = 0, rhs = 6;
  counted = counted && kl_gemm(ctx, KL_F64, 1, 1, 1, 1, &a1, 1, &b1, 1, 1,
                               &c1, 1, 0) == KL_OK && c1 == 7;
  const int64_t offsets[2] = {0, 1};
  const int32_t columns[1] = {0};
  const kl_cg_matrix m = {1, 1, offsets, columns, &a1};
  kl_cg_result cr{};
  cr.size = sizeof cr;
  counted = counted && kl_cg(ctx, &m, 0, 0, &rhs, &x1, 1e-12, 10, 0, &cr) ==
                           KL_OK && x1 == 3 && cr.iterations == 1 &&
                           cr.converged == 1;
  kl_context_close(ctx);
  std::printf("%d passed, %d failed\n", ok + ran + counted,
              !ok + !ran + !counted);
  return ok && ran && counted ? 0 : 1;
}
