/* The one assertion of the C test programs: counts passes and failures
 * and names the failed condition, its line and the library's last error.
 * A program reports both counts and exits non-zero on any failure. */
#ifndef KL_TESTS_EXPECT_H
#define KL_TESTS_EXPECT_H

#include <stdio.h>
#include <stdlib.h>

#include "kladder-run.h"

/* A mkdtemp or mkstemp template named NAME-XXXXXX in the temporary folder
 * ($TMPDIR, else /tmp), written into buf: the suite runs every test with
 * its own TMPDIR and checks that it is left empty. */
static inline void temp_template(char *buf, size_t size, const char *name) {
  const char *dir = getenv("TMPDIR");
  snprintf(buf, size, "%s/%s-XXXXXX", dir && *dir ? dir : "/tmp", name);
}

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
