/* The command's kl_ranks over MPI_COMM_WORLD (ranks.h). MPI's errors stay
 * fatal (MPI_ERRORS_ARE_FATAL, the default): a failed collective ends the
 * whole job rather than leaving ranks waiting. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(KL_HAVE_MPI)
#include <mpi.h>

static kl_ranks world;
static int started;

static void barrier(void *context) {
  (void)context;
  MPI_Barrier(MPI_COMM_WORLD);
}

static void max(void *context, double *values, int n) {
  (void)context;
  MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* The lowest rank with a code, found by a minimum; its code and message
 * sent from it to all. */
static int agree(void *context, int code, char *message, size_t size) {
  (void)context;
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

const kl_ranks *cli_ranks_begin(void) {
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
  /* The ranks on this host share its memory. */
  MPI_Comm local;
  int here = 1;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank,
                          MPI_INFO_NULL, &local) == MPI_SUCCESS) {
    MPI_Comm_size(local, &here);
    MPI_Comm_free(&local);
  }
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
  MPI_Finalize();
  started = 0;
  return code;
}

#else /* one rank: a build without MPI */

const kl_ranks *cli_ranks_begin(void) { return NULL; }
int cli_ranks_rank(void) { return 0; }
int cli_ranks_gate(int code) { return code; }
int cli_ranks_end(int code) { return code; }

#endif
