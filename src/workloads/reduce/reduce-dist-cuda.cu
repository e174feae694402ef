/* reduce-dist's GPU rung (reduce-dist.c has the split and the check):
 * reduce's cuda-best over the rank's part, its one result copied to
 * pinned host memory, combined over the ranks there, and copied back. The
 * combine is made even after a failure of the rank's own (its result then
 * whatever it holds), so that no rank waits forever; the failure is
 * returned after. */
#include "../../backends/gpu.h"
#include "reduce.h"

extern "C" kl_status kl__reduce_dist_gpu_best(const kl_args *a) {
  const kl_plan *p = a->plan;
  cudaStream_t s = (cudaStream_t)a->stream;
  const size_t bytes =
      kl_type_size(kl__reduce_result_type(p->type, REDUCE_OP(p)));
  void *out = a->buffers[REDUCE_OUT], *host = a->buffers[REDUCE_DIST_STAGE];
  const double t0 = kl__now();
  kl_status st = kl__reduce_gpu_best(a);
  KL_KEEP(st, kl__gpu_status(cudaMemcpyAsync(host, out, bytes,
                                             cudaMemcpyDeviceToHost, s),
                             "cudaMemcpyAsync (result to host)"));
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                             "cudaStreamSynchronize"));
  const double t1 = kl__now();
  kl__phase(a, 0, t1 - t0);
  kl__reduce_dist_combine(p, host);
  KL_KEEP(st, kl__gpu_status(cudaMemcpyAsync(out, host, bytes,
                                             cudaMemcpyHostToDevice, s),
                             "cudaMemcpyAsync (result to the device)"));
  KL_KEEP(st, kl__gpu_status(cudaStreamSynchronize(s),
                             "cudaStreamSynchronize"));
  kl__phase(a, 1, kl__now() - t1);
  return st;
}

/* cuda-best's scratch, and the result's pinned copy. */
extern "C" kl_status kl__reduce_dist_gpu_scratch(kl_plan *p) {
  kl_status st = kl__reduce_gpu_scratch(p);
  if (st == KL_OK)
    st = kl__plan_scratch(p, REDUCE_DIST_STAGE, "result (pinned)",
                          kl__reduce_result_type(p->type, REDUCE_OP(p)), 1,
                          KL_MEM_PINNED, 0);
  return st;
}
