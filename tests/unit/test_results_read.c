#define _POSIX_C_SOURCE 200809L /* mkstemp */
/* kl_results_read: a run's JSON read back gives every field as the run's
 * report gives it; an older format's missing fields are not measured, a
 * newer one is read with a warning; a file that is not a results file, or
 * holds a value of the wrong kind, is refused with the path, line and
 * column in one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"

/* text written to a temporary file, its path in path (unlinked by the
 * caller). */
static int write_temp(char *path, size_t size, const char *text) {
  temp_template(path, size, "results");
  const int fd = mkstemp(path);
  if (fd < 0) return 0;
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    return 0;
  }
  fputs(text, f);
  return fclose(f) == 0;
}

/* Every text and number field of every result, the report's against the
 * file's: the same text (numbers as the CSV writes them) or both not
 * measured; an empty text, which the file holds as null, is not measured
 * there. */
static void test_round_trip(void) {
  kl_options o;
  kl_options_init(&o);
  o.workloads = "reduce,map";
  o.backends = "serial";
  o.n = 4099;
  o.reps = 3;
  o.warmup = 1;
  kl_report *rep = NULL;
  EXPECT(kl_run(&o, &rep) == KL_OK && rep);
  if (!rep) return;
  char path[4096];
  temp_template(path, sizeof path, "round-trip");
  const int fd = mkstemp(path);
  EXPECT(fd >= 0);
  if (fd < 0) return;
  close(fd);
  EXPECT(kl_report_write_json(rep, path) == KL_OK);
  kl_results *file = NULL;
  EXPECT(kl_results_read(path, &file) == KL_OK && file);
  unlink(path);
  if (!file) {
    kl_report_free(rep);
    return;
  }
  EXPECT(kl_results_count(file) == kl_report_count(rep));
  EXPECT(kl_results_format(file) == 2 && kl_results_warning(file)[0] == 0);
  int compared = 0, differ = 0;
  for (size_t i = 0; i < kl_report_count(rep); i++)
    for (size_t k = 0; k < kl_field_count(); k++) {
      kl_field_info f = {.size = sizeof f};
      EXPECT(kl_field_describe(k, &f) == KL_OK);
      if (f.kind != KL_FIELD_TEXT && f.kind != KL_FIELD_NUMBER &&
          f.kind != KL_FIELD_SECONDS)
        continue;
      char want[512], got[512];
      const kl_status a = kl_result_text(rep, i, k, want, sizeof want);
      const kl_status b = kl_results_text(file, i, k, got, sizeof got);
      const int same =
          a == KL_OK ? (b == KL_OK && strcmp(want, got) == 0) ||
                           (want[0] == 0 && b == KL_UNAVAILABLE)
                     : a == b;
      if (!same && differ++ < 5)
        printf("result %zu, %s: report '%s' (%s), file '%s' (%s)\n", i,
               f.name, want, kl_status_name(a), got, kl_status_name(b));
      compared++;
      if (f.kind == KL_FIELD_TEXT) continue;
      double x = 0, y = 0;
      const kl_status c = kl_result_number(rep, i, k, &x);
      const kl_status d = kl_results_number(file, i, k, &y);
      if (!(c == d && (c != KL_OK || x == y)) && differ++ < 5)
        printf("result %zu, %s: report %.17g (%s), file %.17g (%s)\n", i,
               f.name, x, kl_status_name(c), y, kl_status_name(d));
    }
  printf("round trip: %d values of %zu results compared, %d differ\n",
         compared, kl_report_count(rep), differ);
  EXPECT(compared > 100 && differ == 0);
  /* Past the end, a list field as a number: refused. */
  double x;
  size_t times;
  EXPECT(kl_field_index("times_s", &times) == KL_OK);
  EXPECT(kl_results_number(file, kl_results_count(file), 0, &x) == KL_USAGE);
  EXPECT(kl_results_number(file, 0, times, &x) == KL_USAGE);
  kl_results_free(file);
  kl_report_free(rep);
}

/* A version-1 file with a few fields: those read, the others (and an
 * empty workload's absent run fields) not measured. */
static void test_old_and_new(void) {
  char path[4096];
  const char *v1 =
      "{\"format\": \"kladder-results-1\", \"machine\": {\"cpu\": \"c\"},\n"
      " \"results\": [{\"workload\": \"reduce\", \"rung\": \"serial\",\n"
      "  \"backend\": \"serial\", \"type\": \"f64\", \"n\": 4, \"check\": "
      "\"PASS\",\n  \"median_s\": 0.25, \"status\": \"ok\"}]}\n";
  EXPECT(write_temp(path, sizeof path, v1));
  kl_results *r = NULL;
  EXPECT(kl_results_read(path, &r) == KL_OK && r);
  unlink(path);
  size_t median = 0, energy = 0, cpu = 0;
  EXPECT(kl_field_index("median_s", &median) == KL_OK &&
         kl_field_index("stddev_s", &energy) == KL_OK &&
         kl_field_index("cpu", &cpu) == KL_OK);
  double x = 0;
  char text[64];
  EXPECT(r && kl_results_format(r) == 1 && kl_results_count(r) == 1);
  EXPECT(kl_results_number(r, 0, median, &x) == KL_OK && x == 0.25);
  EXPECT(kl_results_number(r, 0, energy, &x) == KL_UNAVAILABLE);
  EXPECT(kl_results_text(r, 0, cpu, text, sizeof text) == KL_OK &&
         strcmp(text, "c") == 0);
  kl_results_free(r);
  /* A newer version: read, with a warning that names it. */
  const char *v9 = "{\"format\": \"kladder-results-9\", \"results\": "
                   "[{\"workload\": \"w\", \"rung\": \"r\", \"new\": 1}]}";
  EXPECT(write_temp(path, sizeof path, v9));
  r = NULL;
  EXPECT(kl_results_read(path, &r) == KL_OK && r);
  unlink(path);
  EXPECT(r && strstr(kl_results_warning(r), "kladder-results-9") != NULL);
  kl_results_free(r);
}

/* A file refused: its error one line, naming the path and, where the
 * place matters, the line and column. */
static void refused(const char *text, const char *where, const char *why) {
  char path[4096], want[4200];
  EXPECT(write_temp(path, sizeof path, text));
  kl_results *r = (kl_results *)&r;
  const kl_status st = kl_results_read(path, &r);
  const char *err = kl_last_error();
  snprintf(want, sizeof want, "%s%s", path, where);
  const int ok = st == KL_USAGE && r == NULL && strstr(err, want) == err &&
                 strstr(err, why) && !strchr(err, '\n');
  if (!ok) printf("for %s: %s\n", text, err);
  EXPECT(ok);
  unlink(path);
}

static void test_refused(void) {
  refused("{\"format\": \"kladder-results-2\", \"results\": [}", ":1:45:",
          "expected");
  refused("[1, 2]", ":", "not a kladder results file");
  refused("{\"format\": \"other-1\", \"results\": []}", ":",
          "not a kladder results file");
  refused("{\"format\": \"kladder-results-0\", \"results\": []}", ":",
          "has no version");
  refused("{\"format\": \"kladder-results-2\"}", ":", "no \"results\"");
  refused("{\"format\": \"kladder-results-2\", \"results\": {}}", ":1:44:",
          "is not an array");
  refused("{\"format\": \"kladder-results-2\", \"results\": []}", ":",
          "is empty");
  refused("{\"format\": \"kladder-results-2\", \"results\": [3]}", ":1:45:",
          "is not an object");
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": \"r\", \"median_s\": -1}]}",
          ":2:44:", "\"median_s\" is negative");
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": \"r\", \"median_s\": 1e999}]}",
          ":2:44:", "is not a finite number");
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": 7}]}",
          ":2:27:", "\"rung\" is not a string");
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\"}]}",
          ":2:1:", "has no \"rung\"");
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": 5, \"rung\": \"r\"}]}",
          ":2:14:", "\"workload\" is not a string");
  refused("{\"format\": \"kladder-results-2\", \"machine\": {\"cpu_threads\":"
          " \"x\"},\n \"results\": [{\"workload\": \"w\", \"rung\": \"r\"}]}",
          ":1:60:", "\"cpu_threads\" is not a finite number");
  /* A success has its time: without one it would read as 0 s. */
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": \"r\", \"backend\": \"b\", \"type\": \"f64\", \"n\": 1, \"check\": \"PASS\", \"status\": "
          "\"success\"}]}",
          ":2:1:", "succeeded but has no \"median_s\"");
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": \"r\", \"backend\": \"b\", \"type\": \"f64\", \"n\": 1, \"check\": \"PASS\", \"status\": "
          "\"success\", \"median_s\": null}]}",
          ":2:1:", "succeeded but has no \"median_s\"");
  /* Of a format known here, every reader's identity of a result, its
   * size and its time (null where it did not run). */
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": \"r\", \"type\": \"f64\"}]}",
          ":2:1:", "has no \"backend\"");
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": \"r\", \"backend\": \"b\", "
          "\"type\": \"f64\", \"check\": \"PASS\", \"status\": \"x\"}]}",
          ":2:1:", "has no \"shape\" or \"n\"");
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": \"r\", \"backend\": \"b\", \"type\": \"f64\", \"n\": 1, \"check\": \"PASS\", \"status\": "
          "\"error\"}]}",
          ":2:1:", "has no \"median_s\"");
  /* A NUL would end the name early: "r\u0000junk" read as "r". */
  refused("{\"format\": \"kladder-results-2\", \"results\": [\n"
          "{\"workload\": \"w\", \"rung\": \"r\\u0000junk\"}]}",
          ":2:29:", "a NUL character");
  kl_results *r = (kl_results *)&r;
  EXPECT(kl_results_read("/nonexistent/results.json", &r) == KL_USAGE &&
         r == NULL && strstr(kl_last_error(), "/nonexistent/results.json"));
  EXPECT(kl_results_read(NULL, &r) == KL_USAGE);
  EXPECT(kl_results_count(NULL) == 0 && kl_results_format(NULL) == 0);
  kl_results_free(NULL);
}

int main(void) {
  test_round_trip();
  test_old_and_new();
  test_refused();
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
