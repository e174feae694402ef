#define _XOPEN_SOURCE 700
/* kladder run --energy without a GPU: the energy window's arithmetic, its
 * rule (a second and ten updates), RAPL's wrap-around and the "no energy"
 * path, on a fake powercap folder (KLADDER_POWERCAP_ROOT) whose package
 * counter a thread of this test advances at a known power; and NVML's
 * path and its cross-check, on a fake NVML library (fake_nvml.c, through
 * KLADDER_NVML_LIBRARY, its path this program's first argument). A
 * second argument: where the RAPL run's results file is written. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "core/harness.h"
#include "expect.h"

/* The fake package: FAKE_WATTS, its counter wrapping at FAKE_RANGE_UJ
 * (30 J: the counter wraps in every window), written every 20 ms. */
#define FAKE_WATTS 40.0
#define FAKE_RANGE_UJ 30000000ULL

static char root[256];
static const char *json_path; /* argv[2]: where the RAPL run's results go */
static atomic_int stop_writer;

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return 0;
  int ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

/* The counter's value written whole: a new file renamed over the old. */
static void write_counter(unsigned long long uj) {
  char tmp[300], path[300], text[32];
  snprintf(tmp, sizeof tmp, "%s/intel-rapl:0/.energy_uj", root);
  snprintf(path, sizeof path, "%s/intel-rapl:0/energy_uj", root);
  snprintf(text, sizeof text, "%llu\n", uj);
  if (write_text(tmp, text)) rename(tmp, path);
}

static int writer(void *arg) {
  (void)arg;
  const double origin = seconds_now();
  while (!atomic_load(&stop_writer)) {
    const double drawn = FAKE_WATTS * 1e6 * (seconds_now() - origin);
    write_counter((unsigned long long)fmod(drawn + 1e6, (double)FAKE_RANGE_UJ));
    struct timespec t = {0, 20000000};
    thrd_sleep(&t, NULL);
  }
  return 0;
}

static int make_fake_rapl(void) {
  temp_template(root, sizeof root, "kl-energy");
  if (!mkdtemp(root)) return 0;
  char path[300];
  snprintf(path, sizeof path, "%s/intel-rapl:0", root);
  if (mkdir(path, 0700) != 0) return 0;
  /* A part of the package (its cores): left out, its count being in the
   * package's; its counter unreadable, so that reading it would fail. */
  snprintf(path, sizeof path, "%s/intel-rapl:0:0", root);
  if (mkdir(path, 0700) != 0) return 0;
  snprintf(path, sizeof path, "%s/intel-rapl:0/max_energy_range_uj", root);
  char range[32];
  snprintf(range, sizeof range, "%llu\n", FAKE_RANGE_UJ);
  if (!write_text(path, range)) return 0;
  snprintf(path, sizeof path, "%s/intel-rapl:0/name", root);
  if (!write_text(path, "package-0\n")) return 0;
  write_counter(1000000);
  return 1;
}

static kl_report *run_stream(void) {
  kl_options o;
  kl_options_init(&o);
  o.workloads = "stream";
  o.backends = "serial";
  o.rungs = "serial-triad";
  o.n = 1 << 16;
  o.reps = 3;
  o.warmup = 1;
  o.skip_ceiling = 1;
  o.energy = 1;
  kl_report *rep = NULL;
  kl_status st = kl_run(&o, &rep);
  EXPECT(st == KL_OK);
  EXPECT(rep && kl_report_count(rep) == 1);
  return rep;
}

/* One run with the fake package's counter advancing (from 1 J again). */
static kl_report *rapl_run(void) {
  atomic_store(&stop_writer, 0);
  thrd_t t;
  const int writing = thrd_create(&t, writer, NULL) == thrd_success;
  EXPECT(writing);
  kl_report *rep = run_stream();
  atomic_store(&stop_writer, 1);
  if (writing) thrd_join(t, NULL);
  return rep;
}

/* Whether a run's window and idle power are the package's, within the
 * counter's step (20 ms in a second) and the writer's lateness. */
static int rapl_power_right(const kl_result *r) {
  return fabs(r->energy_watts - FAKE_WATTS) < 0.15 * FAKE_WATTS &&
         fabs(r->idle_watts - FAKE_WATTS) < 0.15 * FAKE_WATTS;
}

static void test_rapl(void) {
  EXPECT(make_fake_rapl());
  setenv("KLADDER_POWERCAP_ROOT", root, 1);
  /* The counter wraps every 0.75 s, where a real package's takes tens
   * of minutes: on a host busy with other tests, the run's reads of it can
   * stall longer than that, and a wrap between two reads is lost (30 J
   * of the window's: 27.6 W seen over 2.45 s where 40 W ran). Such a run
   * is made again, up to three runs; a reader that mishandles a wrap is
   * wrong in all three. */
  kl_report *rep = rapl_run();
  for (int again = 0; again < 2 && rep && kl_report_count(rep) == 1 &&
                      !rapl_power_right(kl_report_result(rep, 0));
       again++) {
    const kl_result *r = kl_report_result(rep, 0);
    printf("rapl: %.3f W (idle %.3f W) over %.3f s, %d updates: run again "
           "(a wrap lost between two reads?)\n",
           r->energy_watts, r->idle_watts, r->energy_seconds,
           r->energy_updates);
    kl_report_free(rep);
    rep = rapl_run();
  }
  if (!rep || kl_report_count(rep) != 1) return;
  const kl_result *r = kl_report_result(rep, 0);
  EXPECT(r->status == KL_OK && r->check == KL_CHECK_PASS);
  EXPECT(r->energy_source && strcmp(r->energy_source, "rapl") == 0);
  /* The window's rule: at least a second and one run; ten updates seen,
   * or ten of the counter's 20 ms periods (batches of 50 ms see one
   * update in two or three). */
  EXPECT(r->energy_seconds >= 1.0);
  EXPECT(r->energy_updates >= 1);
  EXPECT(r->energy_reps >= 1);
  /* The package's power, through a wrap or more, within the counter's
   * step (20 ms in a second) and the writer's lateness on a busy host. */
  printf("rapl: %.3f W (idle %.3f W) over %.3f s, %d updates, %d runs\n",
         r->energy_watts, r->idle_watts, r->energy_seconds,
         r->energy_updates, r->energy_reps);
  EXPECT(rapl_power_right(r));
  /* Joules per run: the window's over its runs; pJ per byte: that over
   * the cost model's bytes. */
  EXPECT(fabs(r->energy_joules * r->energy_reps -
              r->energy_watts * r->energy_seconds) <
         1e-9 * r->energy_watts * r->energy_seconds);
  EXPECT(r->cost.bytes > 0 &&
         fabs(r->energy_pj - r->energy_joules / r->cost.bytes * 1e12) <
             1e-9 * r->energy_pj);
  /* RAPL reports no power of its own: no cross-check. */
  EXPECT(r->sampled_watts == 0 && r->energy_mismatch == 0);
  EXPECT(strstr(kl_report_notes(rep), "no energy") == NULL);
  /* The results file, for the report's test (energy-report). */
  if (json_path) EXPECT(kl_report_write_json(rep, json_path) == KL_OK);
  kl_report_free(rep);

  /* A package whose counter cannot be read: no energy, a note, the run's
   * status unchanged. */
  char path[300];
  snprintf(path, sizeof path, "%s/intel-rapl:0/energy_uj", root);
  EXPECT(unlink(path) == 0);
  rep = run_stream();
  if (rep && kl_report_count(rep) == 1) {
    r = kl_report_result(rep, 0);
    EXPECT(r->status == KL_OK && r->check == KL_CHECK_PASS);
    EXPECT(r->energy_source == NULL);
    EXPECT(strstr(kl_report_notes(rep), "no energy on serial") != NULL);
    EXPECT(strstr(kl_report_notes(rep), "cannot be read") != NULL);
  }
  kl_report_free(rep);
  /* No powercap folder at all. */
  setenv("KLADDER_POWERCAP_ROOT", "/nonexistent/kladder-powercap", 1);
  rep = run_stream();
  if (rep && kl_report_count(rep) == 1) {
    EXPECT(kl_report_result(rep, 0)->energy_source == NULL);
    EXPECT(strstr(kl_report_notes(rep), "no RAPL") != NULL);
  }
  kl_report_free(rep);
  unsetenv("KLADDER_POWERCAP_ROOT");
  snprintf(path, sizeof path, "%s/intel-rapl:0/max_energy_range_uj", root);
  unlink(path);
  snprintf(path, sizeof path, "%s/intel-rapl:0/name", root);
  unlink(path);
  snprintf(path, sizeof path, "%s/intel-rapl:0:0", root);
  rmdir(path);
  snprintf(path, sizeof path, "%s/intel-rapl:0", root);
  rmdir(path);
  rmdir(root);
}

/* ---- NVML, on the fake library ---- */
static const char *fake_bus = "00000000:17:00.0";
static kl_status bus_of(kl_context *ctx, char *out, size_t size) {
  (void)ctx;
  snprintf(out, size, "%s", fake_bus);
  return KL_OK;
}

static int batches;
static kl_status busy(void *arg, int count) {
  (void)arg;
  batches++;
  struct timespec t = {0, 5000000L * count};
  thrd_sleep(&t, NULL);
  return KL_OK;
}

static void test_nvml(const char *library) {
  setenv("KLADDER_NVML_LIBRARY", library, 1);
  setenv("FAKE_NVML_WATTS", "250", 1);
  unsetenv("FAKE_NVML_REPORTED");
  kl_backend gpu = {0};
  gpu.name = "fake-gpu";
  gpu.bus_id = bus_of;
  kl_context ctx = {0};
  ctx.backend = &gpu;
  kl__energy_rule rule = {0.5, 10};
  kl__energy *e = NULL;
  char why[192];
  EXPECT(kl__energy_open(&ctx, &rule, &e, why, sizeof why) == KL_OK);
  if (!e) {
    printf("nvml: %s\n", why);
    return;
  }
  EXPECT(strcmp(kl__energy_source(e), "nvml") == 0);
  EXPECT(fabs(kl__energy_idle_watts(e) - 250) < 0.1 * 250);
  kl__energy_figures f;
  EXPECT(kl__energy_window(e, &rule, busy, NULL, 2, &f) == KL_OK);
  printf("nvml: %.3f W, sampled %.3f W, %.3f s, %d updates, %ld runs, "
         "%d batches\n", f.watts, f.sampled_watts, f.seconds, f.updates,
         f.reps, batches);
  EXPECT(f.seconds >= 0.5 && f.updates >= 10);
  EXPECT(f.reps >= 2 && f.reps % 2 == 0 && f.reps <= 2L * batches);
  EXPECT(fabs(f.watts - 250) < 0.1 * 250);
  EXPECT(fabs(f.joules - f.watts * f.seconds) < 1e-9 * f.joules);
  /* The board's own power agrees: no flag. */
  EXPECT(fabs(f.sampled_watts - 250) < 1e-6 && f.mismatch == 0);
  /* It reports 20% more than its counter drew: flagged. */
  setenv("FAKE_NVML_REPORTED", "300", 1);
  EXPECT(kl__energy_window(e, &rule, busy, NULL, 2, &f) == KL_OK);
  EXPECT(fabs(f.sampled_watts - 300) < 1e-6 && f.mismatch == 1);
  /* 5% more: within the 10%. */
  setenv("FAKE_NVML_REPORTED", "262.5", 1);
  EXPECT(kl__energy_window(e, &rule, busy, NULL, 2, &f) == KL_OK);
  EXPECT(f.mismatch == 0);
  /* Batches of 60 ms, three of the counter's periods each: the watcher
   * still sees every update. */
  unsetenv("FAKE_NVML_REPORTED");
  EXPECT(kl__energy_window(e, &rule, busy, NULL, 12, &f) == KL_OK);
  printf("nvml, long batches: %.3f W over %.3f s, %d updates seen, "
         "%ld runs\n", f.watts, f.seconds, f.updates, f.reps);
  EXPECT(f.seconds >= 0.5 && f.seconds < 1.5 && f.updates >= 10);
  EXPECT(f.reps % 12 == 0 && fabs(f.watts - 250) < 0.05 * 250);
  kl__energy_close(e);
  /* A counter moving every 100 ms (the H100's and H200's) and batches of
   * 300 ms (one gemm repetition): an update placed between the reads
   * around a batch would be 150 ms early on average, 10% too much power
   * over the window; the watcher places it within a few ms. Three
   * windows, each within 3%. */
  setenv("FAKE_NVML_PERIOD_MS", "100", 1);
  kl__energy_rule second = {1.0, 10};
  EXPECT(kl__energy_open(&ctx, &second, &e, why, sizeof why) == KL_OK && e);
  for (int i = 0; e && i < 3; i++) {
    EXPECT(kl__energy_window(e, &second, busy, NULL, 60, &f) == KL_OK);
    printf("nvml, 300 ms batches, 100 ms counter: %.3f W over %.3f s, %d "
           "updates, %ld runs\n", f.watts, f.seconds, f.updates, f.reps);
    EXPECT(fabs(f.watts - 250) < 0.03 * 250 && f.reps % 60 == 0);
    EXPECT(f.mismatch == 0);
  }
  kl__energy_close(e);
  unsetenv("FAKE_NVML_PERIOD_MS");
  /* A load that repeats: 800 W more for 5 ms of every 26 ms, over 200 W
   * (its mean 353.8 W). The counter's mean and the power sampled at
   * random times over 3 s agree with it (the samples' mean within 8%:
   * its spread, about 1.5%, comes from where they fall on the pulses);
   * samples at a fixed period near 26 ms would see one phase of it, 200
   * or 1000 W. */
  setenv("FAKE_NVML_WATTS", "200", 1);
  setenv("FAKE_NVML_PULSE", "26,5,800", 1);
  kl__energy_rule pulsed = {3.0, 10};
  EXPECT(kl__energy_open(&ctx, &pulsed, &e, why, sizeof why) == KL_OK && e);
  if (e) {
    EXPECT(kl__energy_window(e, &pulsed, busy, NULL, 2, &f) == KL_OK);
    const double mean = 200 + 800 * 5.0 / 26;
    printf("nvml, a pulsed load of %.1f W: counter %.3f W, sampled %.3f W "
           "over %.3f s\n", mean, f.watts, f.sampled_watts, f.seconds);
    EXPECT(fabs(f.watts - mean) < 0.03 * mean);
    EXPECT(fabs(f.sampled_watts - mean) < 0.08 * mean && f.mismatch == 0);
    kl__energy_close(e);
  }
  unsetenv("FAKE_NVML_PULSE");
  setenv("FAKE_NVML_WATTS", "250", 1);
  EXPECT(kl__energy_open(&ctx, &rule, &e, why, sizeof why) == KL_OK && e);
  if (!e) return;
  /* The board's 1 s average lags the window (the idle board's power in
   * its first second: 150 W), its instantaneous field does not: the
   * cross-check reads the field, and agrees. */
  setenv("FAKE_NVML_REPORTED", "150", 1);
  setenv("FAKE_NVML_INSTANT", "250", 1);
  EXPECT(kl__energy_window(e, &rule, busy, NULL, 2, &f) == KL_OK);
  EXPECT(fabs(f.sampled_watts - 250) < 1e-6 && f.mismatch == 0);
  /* A counter that drifts from what the board measures now: flagged. */
  setenv("FAKE_NVML_INSTANT", "300", 1);
  EXPECT(kl__energy_window(e, &rule, busy, NULL, 2, &f) == KL_OK);
  EXPECT(f.mismatch == 1);
  unsetenv("FAKE_NVML_INSTANT");
  unsetenv("FAKE_NVML_REPORTED");
  kl__energy_close(e);
  /* A board without the field: its average, from a second into a window
   * a second longer; agreeing, then 20% off and flagged. */
  setenv("FAKE_NVML_NO_FIELDS", "1", 1);
  EXPECT(kl__energy_open(&ctx, &rule, &e, why, sizeof why) == KL_OK && e);
  if (e) {
    EXPECT(kl__energy_window(e, &rule, busy, NULL, 2, &f) == KL_OK);
    printf("nvml, averaged power: %.3f W, sampled %.3f W over %.3f s\n",
           f.watts, f.sampled_watts, f.seconds);
    EXPECT(f.seconds >= 1.5 && fabs(f.sampled_watts - 250) < 1e-6 &&
           f.mismatch == 0);
    setenv("FAKE_NVML_REPORTED", "300", 1);
    EXPECT(kl__energy_window(e, &rule, busy, NULL, 2, &f) == KL_OK);
    EXPECT(f.mismatch == 1);
    unsetenv("FAKE_NVML_REPORTED");
    kl__energy_close(e);
  }
  unsetenv("FAKE_NVML_NO_FIELDS");

  /* A device NVML does not know, or no NVML: no energy, with why. */
  fake_bus = "00000000:99:00.0";
  EXPECT(kl__energy_open(&ctx, &rule, &e, why, sizeof why) ==
         KL_UNAVAILABLE);
  EXPECT(e == NULL && strstr(why, "does not know the device") != NULL);
  setenv("KLADDER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  EXPECT(kl__energy_open(&ctx, &rule, &e, why, sizeof why) ==
         KL_UNAVAILABLE);
  EXPECT(e == NULL && strstr(why, "no NVML") != NULL);
  /* A backend with neither a bus id nor host memory has none. */
  gpu.bus_id = NULL;
  EXPECT(kl__energy_open(&ctx, &rule, &e, why, sizeof why) ==
         KL_UNAVAILABLE);
  EXPECT(e == NULL && strstr(why, "fake-gpu") != NULL);
  unsetenv("KLADDER_NVML_LIBRARY");
}

int main(int argc, char **argv) {
  json_path = argc > 2 ? argv[2] : NULL;
  test_rapl();
  if (argc > 1) test_nvml(argv[1]);
  else EXPECT(!"the fake NVML library's path is the first argument");
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
