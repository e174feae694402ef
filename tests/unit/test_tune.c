/* tune_pick (src/cli/tune.h), the rule of a backend's pick line: the
 * fastest passing rung at a size takes the library rung's place only
 * where its median is below the library rung's fastest run. Results
 * made here, no run. */
#include <string.h>

#include "expect.h"
#include "tune.h"

static kl_result timed(const char *rung, double median, double min) {
  kl_result r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  r.rung = rung;
  r.reps = 5;
  r.t_median = median;
  r.t_min = min;
  return r;
}

int main(void) {
  const kl_result lib = timed("cuda-best", 13.5e-6, 12.6e-6);
  /* Faster at the median but inside the library rung's spread: kept. */
  const kl_result near = timed("cuda-tree", 12.9e-6, 12.0e-6);
  EXPECT(tune_pick(&near, &lib) == &lib);
  /* Equal to its fastest run: not faster than every run, kept. */
  const kl_result tie = timed("cuda-tree", 12.6e-6, 12.0e-6);
  EXPECT(tune_pick(&tie, &lib) == &lib);
  /* Below its fastest run: the faster rung. */
  const kl_result far = timed("cuda-single-pass-fence", 12.5e-6, 12.2e-6);
  EXPECT(tune_pick(&far, &lib) == &far);
  /* The library rung fastest itself, or none measured, or no result. */
  EXPECT(tune_pick(&lib, &lib) == &lib);
  EXPECT(tune_pick(&near, NULL) == &near);
  EXPECT(tune_pick(NULL, &lib) == NULL);
  EXPECT(tune_pick(NULL, NULL) == NULL);
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
