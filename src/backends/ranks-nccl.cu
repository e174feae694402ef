/* The NCCL communicator of a run's ranks on a GPU context (gpu-nccl.h):
 * made by the first cuda-nccl rung's setup of the run on that context,
 * kept in the context (kl__gpu_kept) for the rungs after it and
 * destroyed when the context closes, at the end of the run. Its
 * bootstrap goes through the plan's ranks (the run's kl_ranks: MPI in
 * the command), every rank making the same collectives in the same order
 * whatever happened on its own, so that none waits forever:
 *   1. each rank's GPU (its host's name, hashed, and its PCI bus id) and
 *      whether the rank can go on, gathered on every rank
 *      (kl__ranks_gather): where one cannot, every rank stops there (the
 *      harness's agreement on the setup carries its message); where two
 *      ranks share a GPU, the rung stands aside on all (NCCL takes one
 *      GPU per rank, and refuses two ranks on one);
 *   2. rank 0's ncclUniqueId, and whether it has one, on every rank
 *      (kl__ranks_broadcast: an allreduce sum in which the other ranks
 *      give zeros);
 *   3. ncclCommInitRank on every rank on its context's device (the
 *      current one: the harness entered the context), then whether it
 *      failed anywhere (an allreduce): a communicator is kept on every
 *      rank or on none, so that a later rung finds one on every rank or
 *      makes the bootstrap on every rank.
 * NVLink SHARP (NVLS: NVLink multicast objects, cuMulticastCreate) is
 * never used: every rank sets NCCL_NVLS_ENABLE=0 before its first NCCL
 * call, whatever the environment said (NCCL reads it at its first
 * communicator). These rungs move faces and single numbers, and
 * multicast stays off the machines they run on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu-nccl.h"

/* What a context keeps: the communicator and the ranks it is of. */
typedef struct kept {
  ncclComm_t comm;
  const kl_ranks *ranks;
  int rank, count;
} kept;

static void release(void *thing) {
  kept *k = (kept *)thing;
  if (k->comm) (void)ncclCommDestroy(k->comm);
  free(k);
}

static const kept *kept_of(const kl_args *a) {
  const kl__gpu_keep *slot = kl__gpu_kept(a->ctx, KL_GPU_KEEP_NCCL);
  return slot ? (const kept *)slot->thing : NULL;
}

ncclComm_t kl__nccl_comm(const kl_args *a) {
  const kl_plan *p = a->plan;
  const kept *k = kept_of(a);
  if (!p->ranks || !k) return NULL;
  return k->ranks == p->ranks && k->rank == kl__rank(p) &&
                 k->count == kl__rank_count(p)
             ? k->comm
             : NULL;
}

/* A rank's GPU as step 1 gathers it: whether the rank failed, its host
 * (FNV-1a of its name) and its device's PCI bus id ("0000:1b:00.0", at
 * most 31 characters). */
enum { ID_FAILED, ID_HOST, ID_BUS, ID_BUS_BYTES = 32,
       ID_WORDS = ID_BUS + ID_BUS_BYTES / 8 };

static uint64_t host_hash(void) {
  char name[256] = "";
  if (gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
  name[sizeof name - 1] = '\0';
  uint64_t h = 14695981039346656037ull;
  for (const char *c = name; *c; c++)
    h = (h ^ (unsigned char)*c) * 1099511628211ull;
  return h;
}

/* Step 1: KL_OK where every rank can go on and no two share a GPU;
 * KL_UNAVAILABLE on every rank where two do; else the rank's own
 * failure, or KL_OK on a rank that did not fail (*stop set on every
 * rank: step 2 is not made). */
static kl_status one_gpu_each(const kl_args *a, kl_status st,
                              const char *who, int *stop) {
  const kl_plan *p = a->plan;
  const int count = kl__rank_count(p);
  uint64_t mine[ID_WORDS];
  char bus[ID_BUS_BYTES];
  memset(mine, 0, sizeof mine);
  memset(bus, 0, sizeof bus);
  KL_KEEP(st, KL_GPU_STATUS(cudaDeviceGetPCIBusId(bus, ID_BUS_BYTES - 1,
                                                  a->ctx->device.index)));
  uint64_t *all = (uint64_t *)calloc((size_t)count * ID_WORDS, sizeof *all);
  KL_KEEP(st, all ? KL_OK
                  : KL_FAIL(KL_NO_MEMORY, "%s: out of host memory", who));
  mine[ID_FAILED] = st != KL_OK;
  mine[ID_HOST] = host_hash();
  memcpy(&mine[ID_BUS], bus, ID_BUS_BYTES);
  /* Made whatever happened above (without `all` too): the others wait
   * for it. */
  kl__ranks_gather(p, mine, ID_WORDS, all);
  int failed = st != KL_OK, pair[2] = {-1, -1};
  for (int r = 0; all && r < count; r++)
    failed |= all[(size_t)r * ID_WORDS + ID_FAILED] != 0;
  char shared[ID_BUS_BYTES + 1] = "";
  const int alike = !failed && kl__ranks_alike(all, count, ID_WORDS, pair);
  if (alike)
    memcpy(shared, &all[(size_t)pair[0] * ID_WORDS + ID_BUS], ID_BUS_BYTES);
  shared[ID_BUS_BYTES] = '\0';
  free(all);
  *stop = failed || alike;
  if (failed) return st;
  if (alike)
    return kl__usage(KL_UNAVAILABLE, "%s: NCCL needs one GPU per rank: "
                     "ranks %d and %d share GPU %s (a rank per GPU; "
                     "cuda-staged runs ranks that share one)", who, pair[0],
                     pair[1], shared);
  return KL_OK;
}

kl_status kl__nccl_setup(const kl_args *a, kl_status st, const char *who) {
  const kl_plan *p = a->plan;
  if (!p->ranks || kl__nccl_comm(a)) return st;
  const int count = kl__rank_count(p), rank = kl__rank(p);
  kl__gpu_keep *slot = kl__gpu_kept(a->ctx, KL_GPU_KEEP_NCCL);
  /* Another run's communicator (other ranks): every rank lets its own
   * go, as every rank's context holds one of the same ranks. */
  if (slot && slot->thing) {
    slot->release(slot->thing);
    slot->thing = NULL;
    slot->release = NULL;
  }
  kept *k = (kept *)calloc(1, sizeof *k);
  KL_KEEP(st, slot ? KL_OK
                   : KL_FAIL(KL_DEVICE, "%s: not a GPU context", who));
  KL_KEEP(st, k ? KL_OK
                : KL_FAIL(KL_NO_MEMORY, "%s: out of host memory", who));

  /* 1. One GPU per rank. */
  int stop = 0;
  st = one_gpu_each(a, st, who, &stop);
  if (stop) {
    free(k);
    return st;
  }

  /* 2. Rank 0's id on every rank. */
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  struct {
    uint64_t failed;
    ncclUniqueId id;
  } boot;
  memset(&boot, 0, sizeof boot);
  if (rank == 0) {
    st = KL_NCCL_STATUS(ncclGetUniqueId(&boot.id));
    boot.failed = st != KL_OK;
  }
  kl__ranks_broadcast(p, &boot, sizeof boot);
  if (boot.failed) {
    free(k);
    return st; /* rank 0's failure; KL_OK elsewhere */
  }

  /* 3. The communicator, on every rank or on none. */
  ncclComm_t comm = NULL;
  st = KL_NCCL_STATUS(ncclCommInitRank(&comm, count, boot.id, rank));
  int32_t failed = st != KL_OK;
  kl__allreduce(p, &failed, 1, KL_I32, KL_RANKS_MAX);
  if (failed) {
    /* A failed init may leave a communicator to free; a good one's peers
     * are gone: abort, which does not wait for them. */
    if (comm) (void)ncclCommAbort(comm);
    free(k);
    return st;
  }
  k->comm = comm;
  k->ranks = p->ranks;
  k->rank = rank;
  k->count = count;
  slot->thing = k;
  slot->release = release;
  return KL_OK;
}
