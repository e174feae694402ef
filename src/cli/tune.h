/* `kladder tune`: the wisdom file of this machine (tune.c). */
#ifndef KL_CLI_TUNE_H
#define KL_CLI_TUNE_H

#include "kladder-run.h"

/* argv[0] is "tune": the command's exit code. */
int tune_main(int argc, char **argv);

/* The pick of one backend at one size: its fastest passing result, unless
 * that is not faster than every timed run of the backend's library rung
 * (its median at or above that rung's minimum), which then stays: a rung
 * takes the library's place only by more than the library rung's own
 * spread, so that the noise of a short sweep (five runs) does not hand a
 * size to a rung that another run finds 20% slower (reduce f64 at 2M on
 * the H100: cuda-tree picked, 16.2 us against cuda-best's 13.5 in a sweep
 * of 20 runs). library may be NULL (none measured, or not passing). */
static inline const kl_result *tune_pick(const kl_result *fastest,
                                         const kl_result *library) {
  if (!fastest || !library || fastest == library) return fastest;
  return fastest->t_median < library->t_min ? fastest : library;
}

#endif
