/* The command's kl_ranks over MPI_COMM_WORLD (ranks.h). MPI's errors stay
 * fatal (MPI_ERRORS_ARE_FATAL, the default): a failed collective ends the
 * whole job rather than leaving ranks waiting. */
#define _GNU_SOURCE /* setenv, nanosleep, sched_getaffinity */
#include "ranks.h"

#include <limits.h>
#include <sched.h>
#include <signal.h> /* SIGINT, SIGTERM */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* sysconf */
#if defined(_OPENMP)
#include <omp.h>
#endif

/* Whether an MPI launcher started this process (Open MPI, PMIx, MPICH's
 * Hydra): MPI is not started otherwise, so that the command without
 * mpirun never becomes a singleton MPI job. */
static int launched(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                      "PMI_SIZE", "PMI_RANK"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (getenv(names[i])) return 1;
  return 0;
}

#if defined(KL_HAVE_MPI)
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Query_cuda_support */
#endif

static kl_ranks world;
static int started;

/* The transport's state is in MPI: no hook reads its context. */
#define UNUSED __attribute__((unused))

/* A barrier that spins for its first millisecond (a repetition's start,
 * where ranks arrive together and must leave together) and then sleeps
 * between tests: ranks that wait long (for rank 0's one-rank run) leave
 * the cores to it instead of polling them. */
static void barrier(void *context UNUSED) {
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  const double begun = MPI_Wtime();
  int done = 0;
  while (!done) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done && MPI_Wtime() - begun > 1e-3) {
      struct timespec nap = {0, 200000};
      nanosleep(&nap, NULL);
    }
  }
}

static MPI_Datatype datatype(kl_type type) {
  switch (type) {
  case KL_F32: return MPI_FLOAT;
  case KL_F64: return MPI_DOUBLE;
  case KL_I32: return MPI_INT32_T;
  case KL_I64: return MPI_INT64_T;
  case KL_U32: return MPI_UINT32_T;
  case KL_U64: return MPI_UINT64_T;
  default: return MPI_DATATYPE_NULL;
  }
}

/* An allreduce's MPI type and operation; a type MPI has none for ends the
 * job (the workloads ask for none such). */
static MPI_Datatype reduced_type(kl_type type) {
  const MPI_Datatype t = datatype(type);
  if (t == MPI_DATATYPE_NULL) {
    fprintf(stderr, "kladder: error: rank %d: an allreduce of type %s\n",
            world.rank, kl_type_name(type));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return t;
}

static MPI_Op reduced_op(kl_ranks_op op) {
  return op == KL_RANKS_SUM ? MPI_SUM : op == KL_RANKS_MIN ? MPI_MIN : MPI_MAX;
}

static void allreduce(void *context UNUSED, void *values, int n,
                      kl_type type, kl_ranks_op op) {
  MPI_Allreduce(MPI_IN_PLACE, values, n, reduced_type(type), reduced_op(op),
                MPI_COMM_WORLD);
}

/* Out of host memory on this rank: said, and every rank stopped. */
static void *no_memory(void) {
  fprintf(stderr, "kladder: error: rank %d: out of host memory\n",
          world.rank);
  MPI_Abort(MPI_COMM_WORLD, 3);
  return NULL;
}

static void *allreduce_start(void *context UNUSED, void *values, int n,
                             kl_type type, kl_ranks_op op) {
  const MPI_Datatype t = reduced_type(type);
  MPI_Request *req = malloc(sizeof *req);
  if (!req) return no_memory();
  MPI_Iallreduce(MPI_IN_PLACE, values, n, t, reduced_op(op), MPI_COMM_WORLD,
                 req);
  return req;
}

static void allreduce_wait(void *context UNUSED, void *pending) {
  MPI_Request *req = pending;
  if (!req) return;
  MPI_Wait(req, MPI_STATUS_IGNORE);
  free(req);
}

/* An exchange in flight: a receive and a send per message. */
typedef struct pending {
  int count;
  MPI_Request req[];
} pending;

static void *exchange_start(void *context UNUSED, const kl_message *m,
                            int count) {
  pending *p = malloc(sizeof *p + sizeof(MPI_Request) * 2 * (size_t)count);
  if (!p) return no_memory();
  p->count = 0;
  for (int i = 0; i < count; i++)
    if (m[i].bytes > INT_MAX) {
      fprintf(stderr, "kladder: error: rank %d: a message of %zu bytes, "
              "more than MPI's int counts\n", world.rank, m[i].bytes);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  /* Receives first, so that a message finds its buffer. */
  for (int i = 0; i < count; i++)
    if (m[i].recv)
      MPI_Irecv(m[i].recv, (int)m[i].bytes, MPI_BYTE, m[i].peer, m[i].tag,
                MPI_COMM_WORLD, &p->req[p->count++]);
  for (int i = 0; i < count; i++)
    if (m[i].send)
      MPI_Isend(m[i].send, (int)m[i].bytes, MPI_BYTE, m[i].peer, m[i].tag,
                MPI_COMM_WORLD, &p->req[p->count++]);
  return p;
}

static void exchange_wait(void *context UNUSED, void *handle) {
  pending *p = handle;
  if (!p) return;
  MPI_Waitall(p->count, p->req, MPI_STATUSES_IGNORE);
  free(p);
}

static void max(void *context UNUSED, double *values, int n) {
  MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* The lowest rank with a code, found by a minimum; its code and message
 * sent from it to all. */
static int agree(void *context UNUSED, int code, char *message, size_t size) {
  int lowest = code ? world.rank : world.count;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (lowest == world.count) return 0;
  MPI_Bcast(&code, 1, MPI_INT, lowest, MPI_COMM_WORLD);
  if (size > 0) {
    MPI_Bcast(message, (int)size, MPI_CHAR, lowest, MPI_COMM_WORLD);
    message[size - 1] = '\0';
  }
  return code;
}

/* Memory the ranks of a host share: a window of MPI_Win_allocate_shared
 * over the ranks of each host (MPI_COMM_TYPE_SHARED), every rank's part
 * found by MPI_Win_shared_query, in a passive epoch from the start
 * (MPI_Win_lock_all) so that MPI_Win_sync may order loads and stores.
 * The test hook KLADDER_INJECT_HOSTS=K has the ranks pretend to be on K
 * hosts (rank r on host r % K), so that a rung whose neighbour is "on
 * another host" can be shown standing aside on one machine. */
static int pretend_hosts(void) {
  const char *v = getenv("KLADDER_INJECT_HOSTS");
  const int k = v ? atoi(v) : 0;
  return k > 1 ? k : 0;
}

typedef struct shared {
  MPI_Comm host;
  MPI_Win win;
} shared;

static void *shared_alloc(void *context UNUSED, size_t bytes, void **parts) {
  shared *h = malloc(sizeof *h);
  int *all = malloc(sizeof *all * 2 * (size_t)world.count);
  if (!h || !all || bytes > (size_t)LLONG_MAX) return no_memory();
  const int hosts = pretend_hosts();
  if (hosts)
    MPI_Comm_split(MPI_COMM_WORLD, world.rank % hosts, world.rank, &h->host);
  else
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank,
                        MPI_INFO_NULL, &h->host);
  void *mine = NULL;
  MPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL, h->host, &mine,
                          &h->win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, h->win);
  /* Each world rank's rank on this host (MPI_UNDEFINED elsewhere). */
  MPI_Group world_group, host_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(h->host, &host_group);
  for (int r = 0; r < world.count; r++) all[r] = r;
  MPI_Group_translate_ranks(world_group, world.count, all, host_group,
                            all + world.count);
  MPI_Group_free(&world_group);
  MPI_Group_free(&host_group);
  for (int r = 0; parts && r < world.count; r++) {
    parts[r] = NULL;
    if (all[world.count + r] == MPI_UNDEFINED) continue;
    MPI_Aint size = 0;
    int unit = 0;
    void *base = NULL;
    MPI_Win_shared_query(h->win, all[world.count + r], &size, &unit, &base);
    parts[r] = base;
  }
  free(all);
  return h;
}

static void shared_fence(void *context UNUSED, void *handle) {
  MPI_Win_sync(((shared *)handle)->win);
}

static void shared_free(void *context UNUSED, void *handle) {
  shared *h = handle;
  MPI_Win_unlock_all(h->win);
  MPI_Win_free(&h->win);
  MPI_Comm_free(&h->host);
  free(h);
}

/* Whether MPI takes device memory in its messages: Open MPI built with
 * CUDA says so at compile time and confirms at run time; any other, no.
 * KLADDER_MPI_DEVICE_MEMORY=0 makes the GPU rungs stage even so. */
static int device_memory(void) {
  const char *forced = getenv("KLADDER_MPI_DEVICE_MEMORY");
  if (forced && strcmp(forced, "0") == 0) return 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}

/* The host's free memory (MemAvailable), bytes; 0 where unknown. */
static unsigned long long available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024;
}

/* The CPUs of a cpuset list ("0-3,8,10-11"); 0 where it does not parse. */
static long cpu_list_count(const char *text) {
  long count = 0;
  const char *p = text;
  while (*p && *p != '\n') {
    char *end;
    const long first = strtol(p, &end, 10);
    if (end == p || first < 0) return 0;
    long last = first;
    p = end;
    if (*p == '-') {
      last = strtol(p + 1, &end, 10);
      if (end == p + 1 || last < first) return 0;
      p = end;
    }
    count += last - first + 1;
    if (*p == ',') p++;
    else if (*p && *p != '\n') return 0;
  }
  return count;
}

/* The CPUs of this process's cgroup cpuset (a container's share of the
 * machine, which the launcher's binding does not change): cgroup v2's
 * cpuset.cpus.effective, or v1's cpuset.effective_cpus; 0 where neither
 * can be read. */
static long cgroup_cpus(void) {
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f) return 0;
  char line[512], path[768] = "";
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    const char *v1 = strstr(line, ":cpuset:");
    if (v1) {
      snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus",
               v1 + 8);
      break;
    }
    if (strncmp(line, "0::", 3) == 0)
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpuset.cpus.effective",
               line + 3);
  }
  fclose(f);
  if (!path[0]) return 0;
  f = fopen(path, "r");
  if (!f) return 0;
  char text[4096];
  const long count = fgets(text, sizeof text, f) ? cpu_list_count(text) : 0;
  fclose(f);
  return count;
}

/* This host's CPUs as the job has them (those online, no more than the
 * cgroup's cpuset), those this process may run on (all of them where its
 * affinity is unknown), and a rank's share of them. */
typedef struct host_cpus {
  long online, mine, share;
} host_cpus;

static host_cpus cpus_of(int ranks_here) {
  host_cpus c = {sysconf(_SC_NPROCESSORS_ONLN), 0, 0};
  const long in_cgroup = cgroup_cpus();
  if (in_cgroup > 0 && in_cgroup < c.online) c.online = in_cgroup;
  cpu_set_t set;
  c.mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                       : c.online;
  c.share = c.online / ranks_here;
  return c;
}

/* Open MPI binds each rank to one core where it starts two or fewer (to a
 * socket beyond): an OpenMP rung of such a rank runs its threads on that
 * core. Said once, by rank 0, where its CPUs are fewer than its share of
 * the host's. */
static void note_binding(host_cpus c) {
  if (c.online < 2 || c.mine >= c.share) return;
  fprintf(stderr,
          "kladder: note: the launcher bound rank 0 to %ld of this host's "
          "%ld CPUs, which its host backends' threads share; `mpirun "
          "--bind-to none` (or --map-by slot:PE=%ld) gives each rank its "
          "share\n",
          c.mine, c.online, c.share);
}

/* The ranks of a host share its CPUs: where OMP_NUM_THREADS is not set,
 * each rank's OpenMP threads (its host rungs', its checks' and
 * references', OpenBLAS's) are its share, no more than the CPUs it is
 * bound to; every rank's default of all the host's CPUs made four ranks
 * on 64 cores run 256 spinning threads, and a check's host solve of a
 * 33^3 grid ran past a minute. Said once, by rank 0. */
static void share_threads(int ranks_here, host_cpus c) {
#if defined(_OPENMP)
  if (ranks_here < 2 || c.online < 2 || getenv("OMP_NUM_THREADS")) return;
  long share = c.mine < c.share ? c.mine : c.share;
  if (share < 1) share = 1;
  omp_set_num_threads((int)share);
  if (world.rank == 0)
    fprintf(stderr,
            "kladder: note: %d ranks share this host's %ld CPUs: OpenMP "
            "threads a rank %ld (OMP_NUM_THREADS sets another count)\n",
            ranks_here, c.online, share);
#else
  (void)ranks_here;
  (void)c;
#endif
}

const kl_ranks *cli_ranks_begin(int *refused) {
  *refused = 0;
  if (!launched()) return NULL;
  int provided = 0;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) !=
      MPI_SUCCESS)
    return NULL;
  started = 1;
  world.size = sizeof world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.count);
  world.barrier = barrier;
  world.max = max;
  world.agree = agree;
  world.allreduce = allreduce;
  world.exchange_start = exchange_start;
  world.exchange_wait = exchange_wait;
  world.allreduce_start = allreduce_start;
  world.allreduce_wait = allreduce_wait;
  world.device_memory = device_memory();
  world.share = shared_alloc;
  world.shared_sync = shared_fence;
  world.unshare = shared_free;
  /* The ranks on this host share its memory. */
  MPI_Comm local;
  int here = 1;
  world.local_rank = 0;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank,
                          MPI_INFO_NULL, &local) == MPI_SUCCESS) {
    MPI_Comm_size(local, &here);
    MPI_Comm_rank(local, &world.local_rank);
    MPI_Comm_free(&local);
  }
  world.local_count = here;
  const host_cpus cpus = cpus_of(here);
  if (world.rank == 0) note_binding(cpus);
  share_threads(here, cpus);
  const unsigned long long free_bytes = available();
  if (!getenv("KLADDER_MEMORY_LIMIT") && free_bytes > 0 && here > 1) {
    char text[32];
    snprintf(text, sizeof text, "%llu", free_bytes / (unsigned)here);
    setenv("KLADDER_MEMORY_LIMIT", text, 1);
  }
  return world.count > 1 ? &world : NULL;
}

int cli_ranks_rank(void) { return started ? world.rank : 0; }

int cli_ranks_gate(int code) {
  if (!started) return code;
  MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return code;
}

int cli_ranks_end(int code) {
  if (!started) return code;
  code = cli_ranks_gate(code);
  /* An interrupted run (128 + SIGINT or SIGTERM, every rank's code now)
   * ends without MPI_Finalize: a signal to mpirun has Open MPI's launcher
   * end the job (SIGTERM to each rank, SIGKILL a second later), and
   * MPI_Finalize would wait on it until killed. Nothing is lost: rank 0
   * wrote the results before the gate above. */
  if (code != 128 + SIGINT && code != 128 + SIGTERM) MPI_Finalize();
  started = 0;
  return code;
}

#else /* one rank: a build without MPI */

/* The launcher's count of processes and this one's place, from its
 * environment (Open MPI, PMI). */
static int launcher_value(const char *a, const char *b) {
  const char *v = getenv(a);
  if (!v) v = getenv(b);
  return v ? atoi(v) : -1;
}

const kl_ranks *cli_ranks_begin(int *refused) {
  *refused = 0;
  const int size = launcher_value("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
  if (!launched() || size < 2) return NULL;
  /* Each process would run alone and print the whole table. */
  *refused = 1;
  if (launcher_value("OMPI_COMM_WORLD_RANK", "PMI_RANK") == 0)
    fprintf(stderr, "kladder: error: started by an MPI launcher as %d "
            "processes, but this kladder was built without MPI: each would "
            "run alone (build where CMake finds MPI, Debian's "
            "libopenmpi-dev; its summary says MPI ON)\n", size);
  return NULL;
}
int cli_ranks_rank(void) { return 0; }
int cli_ranks_gate(int code) { return code; }
int cli_ranks_end(int code) { return code; }

#endif
