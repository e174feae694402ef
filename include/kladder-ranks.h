/* kladder's rank transport: for a program that runs kladder over several
 * processes (MPI ranks), the plugin it fills and hands to a run
 * (kl_options.ranks, kladder-run.h), as ggml-backend-impl.h is for a
 * ggml backend. kladder.h's soname promise and thread contract hold
 * here. */
#ifndef KLADDER_RANKS_H
#define KLADDER_RANKS_H

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ranks: a run over several processes at once (MPI ranks). The library
 * does not call MPI itself: a program started by mpirun fills a kl_ranks
 * with the few collectives a run needs (the command's src/cli/ranks-mpi.c
 * does it with MPI_COMM_WORLD) and points kl_options.ranks at it. Every
 * rank then calls kl_run with the same options: each rung runs on every
 * rank at once, each repetition starts after a barrier, its time is the
 * slowest rank's, the rates count the work of every rank, a check passes
 * only where it passed on every rank, and an error on one rank (a failed
 * allocation, a device error) stops the rung on all, with that rank's
 * message. Most workloads run one copy of the problem per rank (the size
 * given is each rank's); the distributed ones (kl_workload_info's
 * `distributed`: reduce-dist, laplacian-dist, cg-dist) split one problem
 * over the ranks, through the collectives below, weakly (each rank's
 * share is the size given) or strongly (the size given is the whole;
 * kl_options.scaling). Where there are several ranks each rung also runs
 * on rank 0 alone first, for its efficiency (kl_result.one_rank_seconds).
 * Results are the same on every rank; printing and writing them is the
 * caller's choice (the command: rank 0 alone). Every function is
 * collective but rank and count, which are fields, and exchange_start,
 * which involves the peers its messages name. MPI's errors are the
 * caller's to make fatal: a collective that fails must end the job, never
 * return. */

/* An element-wise operation over the ranks (kl_ranks.allreduce). */
typedef enum kl_ranks_op { KL_RANKS_SUM, KL_RANKS_MIN, KL_RANKS_MAX } kl_ranks_op;

/* One message of an exchange: `bytes` of `send` to rank `peer`, and
 * `bytes` from it into `recv` (either NULL: that direction has none), both
 * tagged `tag` (0..255) so that two messages between the same ranks are
 * told apart. */
typedef struct kl_message {
  int peer;
  int tag;
  const void *send;
  void *recv;
  size_t bytes;
} kl_message;

typedef struct kl_ranks {
  size_t size;      /* sizeof(kl_ranks) as the caller knows it */
  int rank, count;  /* this process's rank and the ranks in the run */
  void *context;    /* passed to every function */
  void (*barrier)(void *context);
  /* In place: each of the n values becomes its maximum over the ranks. */
  void (*max)(void *context, double *values, int n);
  /* code: this rank's (0 = none). Returns the code of the lowest rank
   * whose code is not 0 (0 where none), and copies that rank's message
   * (size bytes, NUL-terminated) into every rank's message. */
  int (*agree)(void *context, int code, char *message, size_t size);
  /* ---- what the distributed workloads need (added after the fields
   * above): a kl_ranks whose size stops before them, or whose functions
   * are NULL, runs every other workload, and those stand aside ---- */
  /* This rank among those on its host, and how many share the host (a
   * device per local rank; host memory shared). */
  int local_rank, local_count;
  /* In place: each of the n values (KL_F32, KL_F64, KL_I32, KL_I64,
   * KL_U32, KL_U64) becomes op over the ranks; integers exactly. */
  void (*allreduce)(void *context, void *values, int n, kl_type type,
                    kl_ranks_op op);
  /* Start every message at once and return a handle that exchange_wait
   * completes (the buffers are the caller's until then); a rank and its
   * peers name each other's messages with the same tags and sizes. */
  void *(*exchange_start)(void *context, const kl_message *messages,
                          int count);
  void (*exchange_wait)(void *context, void *pending);
  /* ---- optional (NULL: allreduce, at once) ---- */
  /* allreduce started, its values the caller's until allreduce_wait
   * returns them reduced: a rung computes while the sum travels
   * (MPI_Iallreduce). */
  void *(*allreduce_start)(void *context, void *values, int n, kl_type type,
                           kl_ranks_op op);
  void (*allreduce_wait)(void *context, void *pending);
  /* 1 where exchange_start and allreduce take device memory (a
   * CUDA-aware MPI: the GPU rungs then send from the device); 0: the GPU
   * rungs stage their messages through pinned host memory. */
  int device_memory;
  /* ---- optional, after the fields above (NULL, or a size that stops
   * before them: the ranks share no memory, and the rungs that need it
   * stand aside) ---- */
  /* Collective: `bytes` of memory on every rank (the same on each) that
   * the ranks on its host can all read and write (an MPI shared window).
   * Returns a handle, and sets parts[r] for each of the count ranks to
   * rank r's memory as this process addresses it, NULL where rank r is on
   * another host (parts may be NULL: a rank that failed before it still
   * makes the collective). A failure ends the job, as a failed collective
   * does. */
  void *(*share)(void *context, size_t bytes, void **parts);
  /* Orders this rank's loads and stores of the shared memory against the
   * other ranks': called after writing a part and before the message that
   * says so, and after receiving such a message and before reading
   * (MPI_Win_sync). */
  void (*shared_sync)(void *context, void *handle);
  /* Collective: the memory of a share given back. */
  void (*unshare)(void *context, void *handle);
} kl_ranks;

#ifdef __cplusplus
}
#endif
#endif
