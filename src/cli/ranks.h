/* The command under mpirun: the kl_ranks of MPI_COMM_WORLD (ranks-mpi.c).
 * Without MPI in the build, or in a process no MPI launcher started, one
 * rank and no MPI call: the same binary behaves as without mpirun. */
#ifndef KL_CLI_RANKS_H
#define KL_CLI_RANKS_H

#include "kladder-ranks.h"
#include "kladder-run.h"

/* Start MPI where a launcher started this process; the run's kl_ranks
 * (NULL: one rank). *refused: 1 where a launcher started several
 * processes and this build has no MPI (launcher rank 0 has said so on
 * stderr): the command exits 2. Each rank sizes its defaults for its
 * share of the host's memory: KLADDER_MEMORY_LIMIT, where not set,
 * becomes the free memory over the ranks on this host. */
const kl_ranks *cli_ranks_begin(int *refused);
/* This process's rank: 0 with one. */
int cli_ranks_rank(void);
/* Collective: the highest of the ranks' codes (0 where all are 0). */
int cli_ranks_gate(int code);
/* Agree on the exit code (the highest of the ranks'), end MPI, and
 * return it: every rank exits with the same code. */
int cli_ranks_end(int code);

#endif
