/* NCCL for the sources that use it (NAME-nccl.cu, built only where the
 * library is found): NVIDIA's NCCL, or RCCL (the same nccl* names)
 * through vendors/hip.h. Its calls are checked as the runtime's are: the
 * error names the call, file and line. And the communicator of a run's
 * ranks on a GPU context (ranks-nccl.cu), which the distributed
 * workloads' cuda-nccl rungs share. */
#ifndef KL_GPU_NCCL_H
#define KL_GPU_NCCL_H

#define KL_GPU_WANT_NCCL
#include "gpu.h"

#if defined(KL_HAVE_HIP)
#include "vendors/hip.h"
#else
#include <nccl.h>
#endif

/* An NCCL call's status: KL_DEVICE naming the call, the caller's file and
 * line, NCCL's word for the error and its last message, where it has one
 * (KL_KEEP(st, KL_NCCL_STATUS(ncclGroupEnd()))). */
#define KL_NCCL_STATUS(call)                                                  \
  kl__nccl_status_at((call), #call, __FILE__, __LINE__)
static inline kl_status kl__nccl_status_at(ncclResult_t r, const char *call,
                                           const char *file, int line) {
  if (r == ncclSuccess) return KL_OK;
  const char *last = ncclGetLastError(NULL);
  return kl__fail_at(KL_DEVICE, file, line, "%s failed: %s%s%.200s", call,
                     ncclGetErrorString(r), last && last[0] ? ": " : "",
                     last ? last : "");
}

/* NCCL's type of a kladder type; ncclNumTypes for one it has not. */
static inline ncclDataType_t kl__nccl_type(kl_type t) {
  switch (t) {
  case KL_F32: return ncclFloat32;
  case KL_F64: return ncclFloat64;
  case KL_I32: return ncclInt32;
  case KL_I64: return ncclInt64;
  case KL_U8: return ncclUint8;
  case KL_U32: return ncclUint32;
  case KL_U64: return ncclUint64;
  default: return ncclNumTypes;
  }
}

/* The NCCL communicator of the plan's ranks on the rung's GPU context,
 * made by a cuda-nccl rung's setup (untimed) and kept in the context
 * (kl__gpu_kept) for every later rung of the run on it, until it closes.
 * A collective: every rank calls it, passing what its setup found before
 * (st), and makes the same collectives whatever that was; a failure of
 * its own is returned after them. One rank (the plan's ranks NULL) needs
 * no communicator and makes no call. KL_UNAVAILABLE on every rank where
 * two ranks share a GPU (NCCL takes one GPU per rank), the message
 * saying so under `who`, the rung's name. A rank whose own steps went
 * well while another's failed returns KL_OK without a communicator: the
 * harness's agreement on the setup then stops the rung on every rank,
 * with the failing rank's message. */
kl_status kl__nccl_setup(const kl_args *a, kl_status st, const char *who);
/* The communicator kl__nccl_setup made for the plan's ranks on a's
 * context; NULL for one rank. */
ncclComm_t kl__nccl_comm(const kl_args *a);

#endif
