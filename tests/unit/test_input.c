/* Input files (--input FILE, kl_problem.input_file): histogram counts the
 * bytes of a real file exactly, whole and in chunks (a small
 * KLADDER_MEMORY_LIMIT makes a 100 kB file larger than memory), on every
 * rung here; on host rungs the counts are compared with a count made here,
 * not only by the workload's check (device rungs: by the check alone). A file that changes size between the plan and a
 * read is an I/O error; a missing, empty or directory path is bad input. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/harness.h"
#include "expect.h"

#define N 100003

static const kl_workload *histogram;
static const kl_rung *spied;      /* the rung the spy runs */
static uint64_t seen[256];        /* the counts after its last chunk */
static int64_t chunk_runs;        /* runs of one chunk each */
static const char *grow_on_chunk; /* a file to grow during chunk 0 */

static kl_status spy_run(const kl_args *a) {
  const kl_plan *p = a->plan;
  kl_status st = spied->run(a);
  chunk_runs++;
  if (st == KL_OK && grow_on_chunk && p->chunk == 0) {
    FILE *f = fopen(grow_on_chunk, "ab");
    if (f) fputc('!', f), fclose(f);
  }
  if (st != KL_OK || p->chunk != p->chunk_count - 1) return st;
  for (int b = 0; b < 256; b++)
    seen[b] = p->buffers[1].type == KL_U64
                  ? ((const uint64_t *)a->buffers[1])[b]
                  : ((const uint32_t *)a->buffers[1])[b];
  return st;
}

/* Run rung r on the file through the spy: its status, and its report of
 * one result (kl_report_free it). */
static kl_status run_spied(const kl_rung *r, const char *path,
                           kl_report **rep) {
  kl_rung spy = *r;
  spy.run = spy_run;
  spied = r;
  memset(seen, 0, sizeof seen);
  chunk_runs = 0;
  kl_problem pb = {.size = sizeof pb, .type = KL_TYPE_DEFAULT, .seed = 1,
                   .input_file = path};
  return kl__run_one(NULL, histogram, &spy, &pb, 1, 0, rep);
}

/* The one result of a report, as the core keeps it (its plan too); a
 * zeroed one where there is none, so that the checks fail, not crash. */
static const kl__result *result_of(const kl_report *rep) {
  static kl__result none;
  return rep && rep->count == 1 ? &rep->results[0] : &none;
}

/* The file's bytes: a run of zeros (8 equal bytes at a time, which
 * openmp-blocks counts at once), then every value in a scrambled order,
 * some far more often than others. */
static int write_file(const char *path, uint64_t want[256]) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  memset(want, 0, 256 * sizeof *want);
  for (uint32_t i = 0; i < N; i++) {
    const unsigned char byte =
        i < 5000 ? 0 : (unsigned char)((i * 2654435761u) >> (i % 3 ? 24 : 29));
    fputc(byte, f);
    want[byte]++;
  }
  return fclose(f) == 0;
}

static void test_counts(const char *path, const uint64_t want[256],
                        const char *limit) {
  if (limit) setenv("KLADDER_MEMORY_LIMIT", limit, 1);
  for (size_t i = 0; i < histogram->rung_count; i++) {
    const kl_rung *r = &histogram->rungs[i];
    if (!r->run || !kl_backend_available(r->backend, NULL, 0)) continue;
    kl_report *rep = NULL;
    kl_status st;
    if (!kl_backend_host_memory(r->backend)) {
      /* Counts in device memory: the check, which reads the file again,
       * is the judge. */
      kl_problem pb = {.size = sizeof pb, .type = KL_TYPE_DEFAULT, .seed = 1,
                       .input_file = path};
      st = kl_run_rung(NULL, histogram->name, r->name, &pb, 1, 0, &rep);
      const kl__result *res = result_of(rep);
      printf("%-20s %s: %s, %lld chunks, %s\n", r->name,
             limit ? limit : "no limit", kl_status_name(st),
             (long long)res->plan.chunk_count, res->pub.error);
      EXPECT(st == KL_OK && res->pub.check == KL_CHECK_PASS &&
             res->pub.n == N);
      EXPECT(limit ? res->plan.chunk_count > 1 : res->plan.chunk_count == 1);
      kl_report_free(rep);
      continue;
    }
    st = run_spied(r, path, &rep);
    const kl__result *res = result_of(rep);
    const int64_t chunks = res->plan.chunk_count;
    printf("%-20s %s: %s, %lld chunk%s, %s\n", r->name,
           limit ? limit : "no limit", kl_status_name(st), (long long)chunks,
           chunks == 1 ? "" : "s", res->pub.error);
    EXPECT(st == KL_OK && res->pub.check == KL_CHECK_PASS && res->pub.n == N);
    EXPECT(memcmp(seen, want, sizeof seen) == 0);
    EXPECT(limit ? chunks > 1 : chunks == 1);
    /* The checked run and the timed one, each over every chunk. */
    EXPECT(chunk_runs == 2 * chunks);
    EXPECT(strcmp(res->pub.inputs, strrchr(path, '/') + 1) == 0);
    kl_report_free(rep);
  }
  if (limit) unsetenv("KLADDER_MEMORY_LIMIT");
}

/* The file grows while chunk 0 is counted: chunk 1's read finds it so. */
static void test_changed(const char *path) {
  setenv("KLADDER_MEMORY_LIMIT", "64K", 1);
  grow_on_chunk = path;
  kl_report *rep = NULL;
  EXPECT(run_spied(&histogram->rungs[0], path, &rep) == KL_IO &&
         strstr(result_of(rep)->pub.error,
                "changed size during the run: 100003 bytes when "
                "planned, 100004 now"));
  kl_report_free(rep);
  grow_on_chunk = NULL;
  unsetenv("KLADDER_MEMORY_LIMIT");
}

/* Run histogram's serial rung (or map's) on pb: whether it was refused
 * with `status` and an error saying `why`, in the result and the last
 * error. */
static int refused(const char *workload, const kl_problem *pb,
                   kl_status status, const char *why) {
  kl_report *rep = NULL;
  const kl_status st = kl_run_rung(NULL, workload, "serial", pb, 1, 0, &rep);
  const kl_result *res = kl_report_result(rep, 0);
  const int ok = st == status && res && res->status == status &&
                 strstr(res->error, why) && strstr(kl_last_error(), why);
  if (!ok)
    printf("%s %s: %s, '%s'\n", workload, pb->input_file,
           kl_status_name(st), res ? res->error : kl_last_error());
  kl_report_free(rep);
  return ok;
}

static void test_bad_paths(const char *dir) {
  char path[512];
  kl_problem pb = {.size = sizeof pb, .type = KL_TYPE_DEFAULT, .seed = 1};
  snprintf(path, sizeof path, "%s/missing.bin", dir);
  pb.input_file = path;
  EXPECT(refused("histogram", &pb, KL_USAGE, "No such file or directory"));
  pb.input_file = dir;
  EXPECT(refused("histogram", &pb, KL_USAGE, "is a directory"));
  snprintf(path, sizeof path, "%s/empty.bin", dir);
  FILE *f = fopen(path, "wb");
  if (f) fclose(f);
  pb.input_file = path;
  EXPECT(refused("histogram", &pb, KL_USAGE, "is empty"));
  remove(path);
  pb.input_file = "/dev/null";
  EXPECT(refused("histogram", &pb, KL_USAGE, "is not a regular file"));
  /* n is the file's size; a workload without input files takes none. */
  snprintf(path, sizeof path, "%s/bytes.bin", dir);
  pb.input_file = path;
  pb.n = 5;
  EXPECT(refused("histogram", &pb, KL_USAGE, "n is the size of the input file"));
  pb.n = 0;
  pb.params = "inputs=skewed";
  EXPECT(refused("histogram", &pb, KL_USAGE,
                 "an input file has no input pattern"));
  pb.params = NULL;
  EXPECT(refused("map", &pb, KL_USAGE, "workload map takes no input file"));
}

int main(void) {
  histogram = kl_workload_find("histogram");
  EXPECT(histogram && histogram->input && histogram->input->help &&
         histogram->input->load_chunk);
  if (!histogram) return 1;
  char dir[400], path[512];
  temp_template(dir, sizeof dir, "kladder-input");
  if (!mkdtemp(dir)) {
    printf("no temporary directory\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/bytes.bin", dir);
  uint64_t want[256];
  EXPECT(write_file(path, want));
  test_counts(path, want, NULL);
  test_counts(path, want, "64K");
  test_bad_paths(dir);
  test_changed(path);
  remove(path);
  rmdir(dir);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
