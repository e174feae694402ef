/* The board's clocks watched around timed runs, on the fake NVML library
 * (tools/fake_nvml.c, its path this program's argument): what NVML says
 * of the board, which samples count as a slowdown (thermal or hardware
 * reasons, a clock under the floor; not a power cap, not idle), and the
 * harness on a host rung with the fake board's clocks: a batch slowed
 * once is made again after a pause and the result says so; a board slowed
 * every time is kept and marked throttled; a power cap is reported with
 * the clock reached, not re-run. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/harness.h"
#include "expect.h"

static const char *bus = "00000000:17:00.0";
static void (*fake_reset)(void);

static void test_board(kl__nvml *n) {
  kl__gpu_disclosure d;
  kl__nvml_disclose(n, &d);
  EXPECT(d.power_limit_watts == 700 && d.app_sm_mhz == 1980 &&
         d.app_mem_mhz == 2619 && d.max_sm_mhz == 1980 && d.ecc == 1 &&
         d.persistence == 1);
  kl__clock_sample s;
  EXPECT(kl__nvml_clocks(n, &s) == 1 && s.sm_mhz == 1980 &&
         s.mem_mhz == 2619 && s.reasons == 0);
}

static void test_slowed(void) {
  const double app = 1980;
  const kl__clock_sample full = {1980, 2619, 0};
  const kl__clock_sample thermal = {1980, 2619, 0x40};
  const kl__clock_sample sw_thermal = {1700, 2619, 0x20};
  const kl__clock_sample capped = {1200, 2619, 0x4};
  const kl__clock_sample low = {1400, 2619, 0};
  const kl__clock_sample idle = {345, 2619, 0x1};
  EXPECT(!kl__clocks_slowed(&full, app));
  EXPECT(kl__clocks_slowed(&thermal, app) && kl__clocks_slowed(&sw_thermal, app));
  EXPECT(!kl__clocks_slowed(&capped, app));
  EXPECT(kl__clocks_slowed(&low, app) && !kl__clocks_slowed(&low, 0));
  EXPECT(!kl__clocks_slowed(&idle, app));
  char text[96];
  kl__clock_reasons_text(0x44, text, sizeof text);
  EXPECT(strcmp(text, "power-cap,hw-thermal") == 0);
  kl__clock_reasons_text(0, text, sizeof text);
  EXPECT(text[0] == '\0');
}

/* map's serial rung, 4 timed runs, the fake board's clocks watched. */
static kl_status measured(kl__nvml *n, kl__result *res) {
  const kl_workload *w = kl_workload_find("map");
  const kl_rung *r = w ? kl_rung_find(w, "serial") : NULL;
  const kl_backend *b = kl_backend_find("serial");
  if (!w || !r || !b) return KL_USAGE;
  kl__job job;
  memset(&job, 0, sizeof job);
  job.w = w;
  job.r = r;
  job.ceiling = -1;
  kl_problem pb;
  kl_problem_init(&pb);
  pb.n = 100000;
  kl_status st = kl__instance_from_problem(w, &pb, &job.in);
  if (st == KL_OK)
    st = kl__plan_make(w, r, &job.in, 1, NULL, &job.plan, &job.problem_bytes);
  kl_context ctx;
  if (st == KL_OK) st = kl__context_open(b, 0, &ctx);
  if (st != KL_OK) return st;
  st = kl__enter(&ctx);
  const kl__timing t = {.reps = 4, .warmup = 1, .clocks = n,
                        .app_sm_mhz = 1980};
  memset(res, 0, sizeof *res);
  if (st == KL_OK) {
    st = kl__measure(&job, &ctx, &t, NULL, NULL, res);
    kl__leave(&ctx);
  }
  kl__context_close(&ctx);
  return st;
}

static void test_harness(kl__nvml *n) {
  kl__result *res = calloc(1, sizeof *res);
  if (!res) return;
  /* A board at full clock: nothing made again, its clock kept. */
  fake_reset();
  EXPECT(measured(n, res) == KL_OK && res->pub.reps == 4 &&
         res->sm_mhz == 1980 && res->mem_mhz == 2619 &&
         res->slowed_batches == 0 && !res->throttled &&
         res->clock_reasons == 0);
  kl__result_free(res);
  /* Slowed in the first batch's samples: made again once, then kept. */
  setenv("FAKE_NVML_SLOW_READS", "2", 1);
  fake_reset();
  EXPECT(measured(n, res) == KL_OK && res->pub.reps == 4 &&
         res->slowed_batches == 1 && !res->throttled &&
         (res->clock_reasons & 0x40));
  kl__result_free(res);
  unsetenv("FAKE_NVML_SLOW_READS");
  /* Slowed in every try: kept after the retries, marked throttled. */
  setenv("FAKE_NVML_REASONS", "0x40", 1);
  EXPECT(measured(n, res) == KL_OK && res->pub.reps == 4 &&
         res->slowed_batches == 3 && res->throttled == 1);
  kl__result_free(res);
  /* At the power cap at 1500 MHz: reported, not made again. */
  setenv("FAKE_NVML_REASONS", "0x4", 1);
  setenv("FAKE_NVML_SM_MHZ", "1500", 1);
  EXPECT(measured(n, res) == KL_OK && res->slowed_batches == 0 &&
         !res->throttled && res->sm_mhz == 1500 &&
         res->clock_reasons == 0x4);
  kl__result_free(res);
  unsetenv("FAKE_NVML_REASONS");
  unsetenv("FAKE_NVML_SM_MHZ");
  free(res);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: test_clocks FAKE_NVML_LIBRARY\n");
    return 2;
  }
  setenv("KLADDER_NVML_LIBRARY", argv[1], 1);
  void *fake = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  void *p = fake ? dlsym(fake, "fake_nvml_reset") : NULL;
  memcpy(&fake_reset, &p, sizeof p);
  EXPECT(fake_reset != NULL);
  if (!fake_reset) return 1;
  kl__nvml *n = NULL;
  char why[192];
  EXPECT(kl__nvml_open(bus, &n, why, sizeof why) == KL_OK && n);
  if (n) {
    test_board(n);
    test_harness(n);
    kl__nvml_close(n);
  }
  test_slowed();
  /* A board NVML does not know, and no NVML: with why. */
  EXPECT(kl__nvml_open("00000000:99:00.0", &n, why, sizeof why) ==
             KL_UNAVAILABLE &&
         n == NULL && strstr(why, "does not know the device"));
  setenv("KLADDER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  EXPECT(kl__nvml_open(bus, &n, why, sizeof why) == KL_UNAVAILABLE &&
         strstr(why, "no NVML"));
  dlclose(fake);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
