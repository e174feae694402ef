/* The one assertion of the C test programs: counts passes and failures
 * and names the failed condition, its line and the library's last error.
 * A program reports both counts and exits non-zero on any failure. */
#ifndef KL_TESTS_EXPECT_H
#define KL_TESTS_EXPECT_H

#include <stdio.h>

#include "kladder.h"

static int failures, passes;

#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (cond) passes++;                                                       \
    else {                                                                    \
      failures++;                                                             \
      printf("FAILED %s:%d: %s (last error: %s)\n", __FILE__, __LINE__,       \
             #cond, kl_last_error());                                         \
    }                                                                         \
  } while (0)

#endif
