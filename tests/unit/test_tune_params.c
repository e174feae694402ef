/* `kladder tune` sweeps a rung's tunings and the run takes the best
 * (src/cli/tune.c, src/core/wisdom.c, kl__plan_make). A fake workload,
 * added to the registry here, has one rung on the serial backend that
 * reads one tuning, m (candidates 1 to 6), and times itself (run_reps)
 * at |m - 3| + 1 units of 0.1 ms: m = 3 is the fastest by construction,
 * whatever the machine. Modes, each its own process (the wisdom is read
 * once a process):
 *   tune DIR      tune_main (the command's tune) writes DIR/wisdom; its
 *                 tuned line says m=3, and -p m=5 sweeps nothing
 *   run DIR       with KLADDER_WISDOM=DIR/wisdom, kl_run (what `kladder
 *                 run` calls) runs at m=3 and says it came from the
 *                 wisdom; -p m=5 wins
 *   lines DIR     the reader: a version 1 file reads; a tuned line of a
 *                 device not here is set aside, a file of no device here
 *                 ignored; a malformed tuned line (a value out of range, a
 *                 parameter the rung does not read) ignored whole, with
 *                 its line number, and `tune --check` exits 1 on it
 *   builtin DIR   the built-in wisdom (a text of the test's own, no file
 *                 at the path) with keys of two kinds of serial device:
 *                 the run takes the tuned value of the key that names
 *                 this device; builtin-other DIR: of a kind it does not
 *                 name, the first key's; its best lines, of a third key,
 *                 serve either way; lines naming a rung listed but not
 *                 built (fake-unbuilt) dispatch nothing
 * With no argument: each mode in a child, in a temporary folder. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/harness.h"
#include "core/tool.h"
#include "expect.h"
#include "fake-workload.h"
#include "tune.h"

enum { P_N, P_M };

static const kl_param params[] = {
    [P_N] = {.name = "n", .kind = KL_PARAM_SIZE, .flags = KL_PARAM_MAIN_SIZE,
             .help = "elements", .default_value = 1024, .min = 1,
             .max = 1 << 20, .step = 1},
    [P_M] = {.name = "m", .kind = KL_PARAM_INT, .flags = KL_PARAM_TUNING,
             .help = "a run takes |m - 3| + 1 units", .default_value = 1,
             .min = 1, .max = 6, .tune_values = "1,2,3,4,5,6"},
};

static void check(const kl_plan *p, const kl_rung *r, void *const *in,
                  void *const *out, kl_verdict *v) {
  (void)r;
  (void)in;
  const double *x = out[0];
  v->passed = 1;
  v->checked = p->n;
  for (int64_t i = 0; i < p->n; i++)
    if (x[i] != 1.0) {
      v->passed = 0;
      v->bad_count++;
    }
}

/* Each repetition's time: |m - 3| + 1 units of 0.1 ms, the fake timer. */
static kl_status fake_reps(const kl_args *a, kl_reps *reps) {
  double *x = a->buffers[0];
  for (int64_t i = 0; i < a->plan->n; i++) x[i] = 1.0;
  const double m = a->plan->value[P_M];
  for (int k = 0; k < reps->count; k++)
    reps->seconds[k] = (fabs(m - 3) + 1) * 1e-4;
  return KL_OK;
}

static kl_rung rungs[] = {
    {.name = "fake-tuned", .summary = "times itself by m",
     .run_reps = fake_reps, .library = KL_TYPE_BIT(KL_F64),
     .types = KL_TYPE_BIT(KL_F64), .tunings = KL_PARAM_BIT(P_M)},
    /* Listed, not built (as a rung of a library this build lacks): a
     * wisdom line naming it must never dispatch to it. */
    {.name = "fake-unbuilt", .summary = "no run here",
     .types = KL_TYPE_BIT(KL_F64)},
};

static const kl_workload fake = {
    .name = "fake-tuning", .summary = "a rung whose best m is 3",
    .tolerance = "exact", .source = "test_tune_params",
    .metric = KL_METRIC_GBS, .unit = "GB/s", .types = KL_TYPE_BIT(KL_F64),
    .default_type = KL_F64, .params = params, .param_count = 2,
    .plan = fake_plan, .init = fake_init, .check = check,
    .cost = fake_cost,
    .rungs = rungs, .rung_count = 2};

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char text[8192];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  return text;
}

static int tune(const char *dir, const char *fixed) {
  char out[1024];
  snprintf(out, sizeof out, "%s/wisdom", dir);
  char *argv[16] = {"tune", "-w", "fake-tuning", "-b", "serial", "-n",
                    "64,4096", "--reps", "3", "-q", "-o", out};
  int argc = 12;
  if (fixed) argv[argc++] = "-p", argv[argc++] = (char *)fixed;
  return tune_main(argc, argv);
}

static void mode_tune(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/wisdom", dir);
  /* -p m=5: fixed, not swept: picks but no tuned line. */
  EXPECT(tune(dir, "m=5") == 0);
  const char *text = slurp(path);
  EXPECT(text && strstr(text, "kladder-wisdom 2\n"));
  EXPECT(text && strstr(text, "pick d0 fake-tuning f64 0 serial fake-tuned"));
  EXPECT(text && !strstr(text, "tuned "));
  /* A list is no fixed value. */
  EXPECT(tune(dir, "m=2,3") == 2);
  EXPECT(tune(dir, "q=1") == 2);
  /* Swept: m = 3 at every size, one line from 0. */
  EXPECT(tune(dir, NULL) == 0);
  text = slurp(path);
  printf("%s", text ? text : "(no file)\n");
  EXPECT(text && strstr(text, "\ntuned d0 fake-tuning f64 0 serial fake-tuned "
                              "m=3\n"));
  EXPECT(text && !strstr(text, "m=1\n") && !strstr(text, "m=2\n"));
  char kind[256];
  EXPECT(kl__wisdom_device("serial", 0, kind, sizeof kind) == KL_OK);
  char line[300];
  snprintf(line, sizeof line, "device d0 %s\n", kind);
  EXPECT(text && strstr(text, line));
}

/* One run of the fake rung at size 1000 (between the sweep's sizes),
 * -p text `p`; the m it ran with, -1 where it did not. */
static int run_m(const char *p, int *from_wisdom) {
  kl_options o;
  kl_options_init(&o);
  o.workloads = "fake-tuning";
  o.backends = "serial";
  o.sizes = "1000";
  o.params = p;
  o.reps = 3;
  o.skip_ceiling = 1;
  kl_report *rep = NULL;
  const kl_status st = kl_run(&o, &rep);
  EXPECT(st == KL_OK && rep && kl_report_count(rep) == 1);
  int m = -1;
  if (st == KL_OK && rep && kl_report_count(rep) == 1) {
    const kl_result *r = kl_report_result(rep, 0);
    EXPECT(r->check == KL_CHECK_PASS);
    const char *at = strstr(r->params, "m=");
    m = at ? atoi(at + 2) : -1;
    printf("params %s; notes: %s\n", r->params, rep->notes);
    *from_wisdom = strstr(rep->notes, "fake-tuned: m=3 from the wisdom") !=
                   NULL;
  }
  kl_report_free(rep);
  return m;
}

/* The note of the wisdom read from DIR/NAME (a process reads it once). */
static const char *wisdom_in(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  setenv("KLADDER_WISDOM", path, 1);
  const char *note = kl_wisdom_note();
  printf("%s\n", note);
  return note;
}

static void mode_run(const char *dir) {
  EXPECT(strstr(wisdom_in(dir, "wisdom"), "1 tunings") != NULL);
  int from = 0;
  EXPECT(run_m(NULL, &from) == 3);
  EXPECT(from);
  EXPECT(run_m("m=5", &from) == 5); /* given: it wins */
  EXPECT(!from);
  /* The library's plan takes it too. */
  const kl_workload *w = kl_workload_find("fake-tuning");
  kl__instance in;
  kl_problem pb;
  memset(&pb, 0, sizeof pb);
  pb.size = sizeof pb;
  pb.type = KL_F64;
  pb.n = 100;
  kl_plan p;
  EXPECT(w && kl__instance_from_problem(w, &pb, &in) == KL_OK);
  EXPECT(w && kl__plan_make(w, &rungs[0], &in, 1,
                            kl__device_at(rungs[0].backend, 0), &p,
                            NULL) == KL_OK);
  EXPECT(p.value[P_M] == 3 && p.tuned == KL_PARAM_BIT(P_M));
}

/* `tune --check` (in a child: the note is read once a process) on a
 * file of `body` after the header `head` and this build's line: its exit
 * code, its note in `note`. */
static int check_of(const char *self, const char *dir, const char *head,
                    const char *body, char *note, size_t size) {
  char path[1024], said[1100], cmd[4000];
  snprintf(path, sizeof path, "%s/lines", dir);
  snprintf(said, sizeof said, "%s/said", dir);
  FILE *f = fopen(path, "w");
  EXPECT(f != NULL);
  if (!f) return -1;
  const kl_build_info *b = kl_build();
  fprintf(f, "%s\nbuild %s %s\n%s", head, b->version,
          b->commit[0] ? b->commit : "-", body);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s' check '%s' > '%s' 2>&1", self, path, said);
  const int rc = system(cmd);
  const char *text = slurp(said);
  snprintf(note, size, "%s", text ? text : "");
  printf("  %s", note);
  remove(path);
  remove(said);
  return rc >= 0 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void mode_lines(const char *self, const char *dir) {
  char here[256], dev[300], note[1024];
  EXPECT(kl__wisdom_device("serial", 0, here, sizeof here) == KL_OK);
  kl_device_info di = {.size = sizeof di};
  EXPECT(kl_device_describe("serial", 0, &di) == KL_OK);
  snprintf(dev, sizeof dev, "device d0 %s\n", here);
  char body[2048];
  /* Version 1: no keys, its device line by index. */
  snprintf(body, sizeof body, "device serial:0 %s\n"
           "pick fake-tuning f64 0 serial fake-tuned\n", di.name);
  EXPECT(check_of(self, dir, "kladder-wisdom 1", body, note, sizeof note) ==
         0);
  EXPECT(strstr(note, ": 1 picks") != NULL);
  /* Version 1 has no tuned lines. */
  snprintf(body, sizeof body, "device serial:0 %s\n"
           "tuned fake-tuning f64 0 serial fake-tuned m=2\n", di.name);
  EXPECT(check_of(self, dir, "kladder-wisdom 1", body, note, sizeof note) ==
         1);
  EXPECT(strstr(note, "line 4 is not understood") != NULL);
  /* A tuned line of a kind of device not here: set aside. */
  snprintf(body, sizeof body, "%sdevice d1 serial 999 1 Another CPU\n"
           "pick d0 fake-tuning f64 0 serial fake-tuned\n"
           "tuned d0 fake-tuning f64 0 serial fake-tuned m=3\n"
           "tuned d1 fake-tuning f64 0 serial fake-tuned m=2\n", dev);
  EXPECT(check_of(self, dir, "kladder-wisdom 2", body, note, sizeof note) ==
         0);
  EXPECT(strstr(note, ": 1 picks, 1 tunings, 1 lines of devices not here "
                      "set aside") != NULL);
  /* Only devices not here: ignored. */
  EXPECT(check_of(self, dir, "kladder-wisdom 2",
                  "device d1 serial 999 1 Another CPU\n"
                  "tuned d1 fake-tuning f64 0 serial fake-tuned m=2\n",
                  note, sizeof note) == 1);
  EXPECT(strstr(note, "all of devices not here; ignored") != NULL);
  /* Malformed tuned lines: a value out of m's range, a parameter that is
   * no tuning of the rung, a key without its device line. */
  snprintf(body, sizeof body, "%stuned d0 fake-tuning f64 0 serial "
           "fake-tuned m=9\n", dev);
  EXPECT(check_of(self, dir, "kladder-wisdom 2", body, note, sizeof note) ==
         1);
  EXPECT(strstr(note, "line 4: fake-tuning: m = 9 is outside [1, 6]") !=
         NULL);
  snprintf(body, sizeof body, "%stuned d0 fake-tuning f64 0 serial "
           "fake-tuned n=9\n", dev);
  EXPECT(check_of(self, dir, "kladder-wisdom 2", body, note, sizeof note) ==
         1);
  EXPECT(strstr(note, "line 4: n is not a tuning of its rung") != NULL);
  EXPECT(check_of(self, dir, "kladder-wisdom 2",
                  "tuned d7 fake-tuning f64 0 serial fake-tuned m=3\n", note,
                  sizeof note) == 1);
  EXPECT(strstr(note, "line 3: device d7 has no device line") != NULL);
  /* A later version: not this reader's. */
  EXPECT(check_of(self, dir, "kladder-wisdom 3", "", note, sizeof note) == 1);
  EXPECT(strstr(note, "not a wisdom file") != NULL);
}

/* The built-in wisdom's keys: `b` names this device (or, other, a fourth
 * kind), `a` and `c` others; a's tuned m is 2, b's 3, c's 4, c's line
 * first (a rule that let every key serve would take it); the best line is
 * c's. */
static void mode_builtin(const char *dir, int other) {
  static char text[2048];
  char here[256];
  EXPECT(kl__wisdom_device("serial", 0, here, sizeof here) == KL_OK);
  snprintf(text, sizeof text,
           "kladder-wisdom 2\n"
           "device a serial 999 1 Another CPU\n"
           "device b %s\n"
           "device c serial 998 1 Third CPU\n"
           "best c fake-tuning f64 0 serial fake-tuned\n"
           "best c fake-tuning f64 500 serial fake-unbuilt\n"
           "pick a fake-tuning f64 500 serial fake-unbuilt\n"
           "pick b fake-tuning f64 500 serial fake-unbuilt\n"
           "tuned c fake-tuning f64 0 serial fake-tuned m=4\n"
           "tuned a fake-tuning f64 0 serial fake-tuned m=2\n"
           "tuned b fake-tuning f64 0 serial fake-tuned m=3\n",
           other ? "serial 997 1 Fourth CPU" : here);
  kl__wisdom_builtin_text = text;
  EXPECT(strstr(wisdom_in(dir, "no-such-wisdom"),
                "the built-in wisdom serves") != NULL);
  int from = 0;
  EXPECT(run_m(NULL, &from) == (other ? 2 : 3));
  const kl_workload *w = kl_workload_find("fake-tuning");
  const kl_rung *r = w ? kl__wisdom_rung(w, KL_F64, 1000, NULL, 0) : NULL;
  EXPECT(r == &rungs[0]);
  /* The unbuilt rung's lines are passed over: the serial backend's own
   * choice is its library rung. */
  EXPECT(w && kl__dispatched(w, KL_F64, 1000, rungs[0].backend, 0) ==
                  &rungs[0]);
}

/* Every mode, each in a child, in a temporary folder removed after. */
static int all(const char *self) {
  char dir[512], cmd[2048], path[1100];
  temp_template(dir, sizeof dir, "kl-tune-params");
  EXPECT(mkdtemp(dir) != NULL);
  const char *modes[] = {"tune", "run", "lines", "builtin", "builtin-other"};
  for (int i = 0; i < 5; i++) {
    snprintf(cmd, sizeof cmd, "'%s' %s '%s'", self, modes[i], dir);
    const int rc = system(cmd);
    EXPECT(rc >= 0 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    if (!(rc >= 0 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0))
      printf("FAILED: mode %s\n", modes[i]);
  }
  snprintf(path, sizeof path, "%s/wisdom", dir);
  remove(path);
  EXPECT(rmdir(dir) == 0);
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}

int main(int argc, char **argv) {
  if (argc == 1) return all(argv[0]);
  const char *mode = argc > 2 ? argv[1] : "";
  rungs[0].backend = rungs[1].backend = kl_backend_find("serial");
  kl__workload_add(&fake);
  if (!strcmp(mode, "tune")) mode_tune(argv[2]);
  else if (!strcmp(mode, "run")) mode_run(argv[2]);
  else if (!strcmp(mode, "lines")) mode_lines(argv[0], argv[2]);
  else if (!strcmp(mode, "builtin")) mode_builtin(argv[2], 0);
  else if (!strcmp(mode, "builtin-other")) mode_builtin(argv[2], 1);
  else if (!strcmp(mode, "check") && argc > 2) {
    /* tune --check FILE, for the reader's cases (cli/tune.cmake's). */
    char *args[] = {"tune", "--check", argv[2]};
    return tune_main(3, args);
  } else {
    fprintf(stderr, "usage: test_tune_params "
            "tune|run|lines|builtin|builtin-other DIR, check FILE\n");
    return 2;
  }
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
