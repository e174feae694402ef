/* reduce-dist's NCCL rung (reduce-dist.c has the split and the check):
 * reduce's cuda-best over the rank's part, then the ranks' results
 * combined where they are, on the device, by ncclAllReduce on the rung's
 * stream, as the host rungs combine them (kl__reduce_dist_combine): a sum
 * in the result's type (int64 for int32: exact; double for floats), min
 * and max as the maximum of (sign * result, is-NaN) in double, exact for
 * every input type, so that a NaN on one rank is every rank's result
 * whatever NCCL does with NaN. The result stays on the device; the
 * harness reads it back as it reads every rung's. The communicator is
 * the context's (backends/ranks-nccl.cu), made by the setup; one rank
 * (the one-rank measurement, a run without mpirun) has none and combines
 * nothing. The allreduce is made even after a failure of the rank's own
 * (its result then whatever it holds), so that no rank waits forever;
 * the failure is returned after. */
#include <math.h>

#include "../../backends/gpu-nccl.h"
#include "reduce.h"

/* A one-thread kernel's launch, for a rung that goes on after a
 * failure. */
#define LAUNCHED(kernel)                                                      \
  kl__gpu_status_at(cudaGetLastError(), "launch of " #kernel, __FILE__,      \
                    __LINE__)

/* min's or max's result as (sign * x, is-NaN) in double, NaN as -Inf
 * beside its flag, so that the maximum over the ranks never meets a NaN;
 * and back, NaN where any rank had one. */
template <typename T>
static __global__ void to_pair(const T *out, double *pair, double sign) {
  const double x = (double)*out;
  const bool nan = isnan(x);
  pair[0] = nan ? -INFINITY : sign * x;
  pair[1] = nan ? 1.0 : 0.0;
}

template <typename T>
static __global__ void from_pair(T *out, const double *pair, double sign) {
  const double y = pair[1] > 0 ? NAN : sign * pair[0];
  *out = (T)y; /* an int32's y is never NaN: no rank had one */
}

template <typename T>
static kl_status combine_best(const kl_args *a, ncclComm_t comm,
                              kl_status st) {
  cudaStream_t s = (cudaStream_t)a->stream;
  T *out = (T *)a->buffers[REDUCE_OUT];
  double *pair = (double *)a->buffers[REDUCE_DIST_STAGE];
  const double sign = REDUCE_OP(a->plan) == REDUCE_MAX ? 1 : -1;
  if (st == KL_OK) {
    to_pair<T><<<1, 1, 0, s>>>(out, pair, sign);
    st = LAUNCHED(to_pair<T>);
  }
  /* Made whatever happened above: the other ranks wait for it. */
  KL_KEEP(st, KL_NCCL_STATUS(ncclAllReduce(pair, pair, 2, ncclFloat64,
                                           ncclMax, comm, s)));
  if (st == KL_OK) {
    from_pair<T><<<1, 1, 0, s>>>(out, pair, sign);
    st = LAUNCHED(from_pair<T>);
  }
  return st;
}

/* The combine, queued on the rung's stream after the local reduction. */
static kl_status combine(const kl_args *a, ncclComm_t comm, kl_status st) {
  const kl_plan *p = a->plan;
  const kl_type t = kl__reduce_result_type(p->type, REDUCE_OP(p));
  if (REDUCE_OP(p) == REDUCE_SUM) {
    void *out = a->buffers[REDUCE_OUT];
    const kl_status sent = KL_NCCL_STATUS(
        ncclAllReduce(out, out, 1, kl__nccl_type(t), ncclSum, comm,
                      (cudaStream_t)a->stream));
    KL_KEEP(st, sent);
    return st;
  }
  if (t == KL_I32) return combine_best<int32_t>(a, comm, st);
  if (t == KL_F32) return combine_best<float>(a, comm, st);
  return combine_best<double>(a, comm, st);
}

extern "C" kl_status kl__reduce_dist_gpu_nccl(const kl_args *a) {
  const kl_plan *p = a->plan;
  cudaStream_t s = (cudaStream_t)a->stream;
  ncclComm_t comm = kl__nccl_comm(a);
  /* The setup made a communicator on every rank or on none, and none
   * stops the rung on every rank before it runs. */
  if (kl__rank_count(p) > 1 && !comm)
    return KL_FAIL(KL_DEVICE, "reduce-dist cuda-nccl: no NCCL communicator");
  const double t0 = kl__now();
  kl_status st = kl__reduce_gpu_best(a);
  KL_KEEP(st, KL_GPU_STATUS(cudaStreamSynchronize(s)));
  const double t1 = kl__now();
  kl__phase(a, 0, t1 - t0);
  if (comm) {
    st = combine(a, comm, st);
    KL_KEEP(st, KL_GPU_STATUS(cudaStreamSynchronize(s)));
  }
  kl__phase(a, 1, kl__now() - t1);
  return st;
}

/* cuda-best's scratch, and the (value, NaN) pair on the device. */
extern "C" kl_status kl__reduce_dist_gpu_nccl_scratch(kl_plan *p) {
  kl_status st = kl__reduce_gpu_scratch(p);
  if (st == KL_OK)
    st = kl__plan_scratch(p, REDUCE_DIST_STAGE, "(value, NaN) pair", KL_F64,
                          2, KL_MEM_DEVICE, 0);
  return st;
}

/* cuda-best's grid, then the ranks' communicator (made on every rank,
 * whatever the grid's setup found). */
extern "C" kl_status kl__reduce_dist_gpu_nccl_setup(kl_args *a) {
  return kl__nccl_setup(a, kl__reduce_gpu_setup(a), "reduce-dist cuda-nccl");
}
