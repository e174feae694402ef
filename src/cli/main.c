/* The kladder command: a thin layer over the library. Its options follow
 * the GNU conventions (args.h), so that -n5, --size=5 and -- mean what
 * they mean in every other tool; every mistake is one line on stderr and
 * exit code 2, found before any rung runs. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "kladder-run.h"
#include "../core/tool.h"
#include "ranks.h"
#include "text.h"
#include "tune.h"
#include "explain.h"

static const char usage_main[] =
    "usage: kladder <command> [options]\n"
    "\n"
    "Runs ladders of compute kernels, from naive to vendor-library fast,\n"
    "verifies every rung on fresh random inputs and reports each one's time\n"
    "and rate as a share of a ceiling measured in the same run.\n"
    "\n"
    "commands:\n"
    "  list [-w W[,W...]] [--all] [--json]\n"
    "                the backends here and every workload with its rungs on\n"
    "                each, in one screen; with -w, those workloads in full\n"
    "                (parameters, defaults, rungs); --all, everything in\n"
    "                full; --json, all of it as one JSON document, for\n"
    "                programs (`kladder list --help`)\n"
    "  run           run ladders (see `kladder run --help`)\n"
    "  report FILE.json [...] -o REPORT.html\n"
    "                an HTML report of results files (`kladder report --help`)\n"
    "  compare BASE.json NEW.json\n"
    "                two results files of `run --json` compared, result by\n"
    "                result, for a regression (`kladder compare --help`)\n"
    "  history --db FILE [-w W] [-r RUNG] [--check] [--import FILE.json ...]\n"
    "                the results history (runs kept by `run --db FILE`): a\n"
    "                rung's runs over commits and machines, the regression\n"
    "                check over them (`kladder history --help`)\n"
    "  tune [-w W] [-b B] [-o FILE] | tune --check [FILE]\n"
    "                the fastest rung and backend for each size, as the\n"
    "                library's entry points will run them (`kladder tune\n"
    "                --help`)\n"
    "  explain -w W [-b B] [-r RUNG] [--results FILE.json]\n"
    "                the ladder of W as a lesson: each rung's technique, code,\n"
    "                diff from the rung before and the model's prediction,\n"
    "                with measurements from a results file (`kladder explain\n"
    "                --help`)\n"
    "  --help, -h    this text\n"
    "  --version     the version\n"
    "\n"
    "Options follow GNU conventions: -w map, -wmap, --workload map,\n"
    "--workload=map, or any unambiguous prefix of a long name (--work);\n"
    "-- ends the options. list, run and explain take no other arguments.\n"
    "\n"
    "exit codes: 0 all checks passed, 1 a check failed, 2 bad usage or\n"
    "input, 3 a device or runtime error; compare and history --check: 1 a\n"
    "regression.\n";

static const char usage_list[] =
    "usage: kladder list [-w W[,W...]] [--all] [--json]\n"
    "       kladder list --fields\n"
    "\n"
    "In one screen of 100 columns: a line a backend (its devices, or why it\n"
    "is not here), then a line a workload: its summary and how many rungs\n"
    "its ladder has on each backend, \"(N)\" for N that cannot run here.\n"
    "What is longer than its line is cut, marked '~'.\n"
    "\n"
    "  -w, --workload W[,W...]  these workloads (names, globs, !name) in\n"
    "                           full: their parameters, defaults and\n"
    "                           ranges, check, and rungs in ladder order,\n"
    "                           naive first (those of backends not here\n"
    "                           left out)\n"
    "  -a, --all                everything in full: each backend with its\n"
    "                           devices, each workload with every rung,\n"
    "                           those of backends not here too (with -w:\n"
    "                           those workloads' every rung)\n"
    "      --json               everything, every rung, as one JSON document\n"
    "      --fields             the results' fields, a line each: JSON key,\n"
    "                           kind, unit, CSV column (- none), and per run\n"
    "                           its JSON group\n"
    "  -h, --help               this text\n"
    "\n"
    "The text in full is wrapped to 100 columns, its later lines indented.\n";

static const char usage_run[] =
    "usage: kladder run [options]\n"
    "\n"
    "With no options, runs every workload on every backend available here.\n"
    "\n"
    "  -w, --workload W[,W...]  workloads to run (see `kladder list`)\n"
    "  -b, --backend B[,B...]   backends to run on: serial, openmp, cuda, hip,\n"
    "                           openacc, opencl; NAME:INDEX for one device of it\n"
    "                           (cuda:1; NAME alone is its device 0)\n"
    "  -r, --rung R[,R...]      rungs to run, by name\n"
    "  -p, --param NAME=VALUE[,NAME=VALUE...]\n"
    "                           any parameter of the workload (`kladder list\n"
    "                           -w W` lists them); NAME=A,B,C or a range\n"
    "                           NAME=LO..HI:xF sweeps it (see Sweeps below)\n"
    "  -n, --size N             the main size (elements; gemm: n, the default\n"
    "                           of m and k); digits with an optional K, M or\n"
    "                           G (powers of 1024). Default: each workload's,\n"
    "                           shrunk to fit memory (the output says so).\n"
    "                           A list N,N,... or a range sweeps it\n"
    "  -t, --type T             element type, where the workload has several:\n"
    "                           f32, f64, i32, i64, u8, u32, u64\n"
    "  -o, --op OP              the operation, where the workload has one\n"
    "                           (reduce: sum, min, max); -p op=OP\n"
    "      --inputs PATTERN     the input pattern, where the workload has one\n"
    "                           (default random); -p inputs=PATTERN\n"
    "  -i, --input FILE         the input of a workload that takes a file\n"
    "                           (histogram: counts its bytes); n is the file's\n"
    "                           size, so not with -n or --inputs. A file larger\n"
    "                           than memory runs in chunks (the output says so)\n"
    "      --matrix FILE        the same, for a matrix (cg: a Matrix Market\n"
    "                           file; n is its rows)\n"
    "      --rhs FILE           cg: the right-hand side b, a Matrix Market\n"
    "                           array file of the matrix's rows (default\n"
    "                           b = A x* from the seed); with --matrix\n"
    "      --solution FILE      cg: write the solution x as a Matrix Market\n"
    "                           array file, from the first rung whose check\n"
    "                           passed; with --matrix, opened before the run\n"
    "                           as --csv is\n"
    "  -s, --shape MxNxK        the extents in order (gemm: m, n and k); one\n"
    "                           not given follows -n\n"
    "      --ld LDA,LDB,LDC     the leading dimensions in order (gemm; default\n"
    "                           the rows)\n"
    "      --alpha A            the first and second scalar (gemm: alpha,\n"
    "      --beta B             default 1, and beta, default 0)\n"
    "      --scalars A,B        the scalars in order, as a list; each scalar\n"
    "                           once: not --alpha and a first item too\n"
    "      --reps N             timed runs per rung, at most 1000000 (default:\n"
    "                           until the median is known to --precision)\n"
    "      --cache cold|warm    cold: the device's last-level cache flushed\n"
    "                           before each timed run; warm (the default):\n"
    "                           what the run before left\n"
    "      --precision P        the 95% interval of a rung's median within P\n"
    "                           of it ends its runs (default 0.5%; a fraction\n"
    "                           or a percent), at most --max-time\n"
    "      --warmup N           untimed runs before them (default 2, at most\n"
    "                           1000000)\n"
    "      --max-time S         fewer runs where a rung's would take more than\n"
    "                           S seconds, at least one timed run (default 30,\n"
    "                           0.3 at a quick size; 0: no limit)\n"
    "      --seed S             seed of the random inputs (default 20261121)\n"
    "      --csv FILE           also write the results as CSV\n"
    "      --json FILE          also write the results as JSON\n"
    "      --trace FILE         write each rung's last timed run as a\n"
    "                           timeline (Chrome trace-event JSON, for\n"
    "                           Perfetto or chrome://tracing)\n"
    "      --html FILE          also write the results as an HTML report\n"
    "                           (as `kladder report` draws it)\n"
    "      --db FILE            also append the run to the results history\n"
    "                           FILE, an SQLite database (`kladder history\n"
    "                           --help`), in one transaction when it ends\n"
    "      --no-ceiling         do not measure the bandwidth ceilings\n"
    "      --host-data          time each repetition as a library call on\n"
    "                           data in host memory: on a GPU the copies of\n"
    "                           the inputs there and the outputs back are\n"
    "                           inside the time (a rung with its own loop,\n"
    "                           or an input run in chunks, stands aside;\n"
    "                           the ceilings stay on the GPU)\n"
    "      --energy             after each rung's timed runs, an energy\n"
    "                           window of at least 1 s: joules per run, mean\n"
    "                           watts, pJ per byte or flop (NVML on an\n"
    "                           NVIDIA GPU, RAPL on the host; where neither\n"
    "                           can be read, a note and no figures)\n"
    "      --scaling MODE       under mpirun, what -n is for a distributed\n"
    "                           workload: weak, each rank's share (the\n"
    "                           default), or strong, the whole problem\n"
    "      --full               where no size is given, each workload's full\n"
    "                           default (the seeds' sizes) instead of its\n"
    "                           quick one (past the caches, minutes in all)\n"
    "      --explain            after the table, each ladder run as a lesson\n"
    "                           with its measurements (`kladder explain`)\n"
    "  -q, --quiet              no progress lines on stderr\n"
    "  -v, --verbose            the wide table: a row per rung with every\n"
    "                           column (op, type, size, min, max, abs err)\n"
    "  -h, --help               this text\n"
    "\n"
    "Options: -n 5, -n5, --size 5, --size=5, or any unambiguous prefix of a\n"
    "long name (--si 5); -- ends the options, and run takes no arguments.\n"
    "-w, -b, -r and -p may be repeated and add up: -w map -w stream is\n"
    "-w map,stream. A workload, backend or rung named twice is run once, in\n"
    "ladder order whatever the order given; a parameter given twice (-p n=1\n"
    "-p n=2, or -p n=1,n=2) is an error. Every other option takes one value\n"
    "and may be given once (-n 1K -n 2K is an error). No value may be empty;\n"
    "-q, -v, --no-ceiling, --host-data, --energy, --full and -h take none.\n"
    "\n"
    "Sweeps: -n 1K,64K,1M runs each size as a problem of its own, with its\n"
    "own ceiling measured at that size; a row per size in the table (a\n"
    "heading each), the CSV and the JSON. A range: LO..HI:xF is LO, LO*F,\n"
    "LO*F^2, ... up to HI (F above 1: -n 1K..256M:x4), LO..HI:+S is LO,\n"
    "LO+S, ... (-n 1K..8K:+1K); items mix (-n 100,1K..64K:x8). -p takes the\n"
    "same for any parameter: in a -p list an item without '=' continues the\n"
    "parameter before it (-p nx=8,16,32,hx=0.5..2:x2 is three nx and three\n"
    "hx), a real's range is not rounded, a choice takes a list of names\n"
    "(-p op=sum,max). Several lists run every combination, the sizes\n"
    "varying slowest and the last -p list fastest, at most 64 points. An\n"
    "empty item, a range that runs down or without a step, a factor not\n"
    "above 1, a value given twice and too many points are refused at once\n"
    "(exit 2), as is a size outside the workload's range.\n"
    "\n"
    "--csv, --json, --trace and --html files are opened before any rung runs: a\n"
    "path that cannot be written (a directory, a missing folder, a full\n"
    "device) is refused at once with exit 2. They are written, each whole\n"
    "or not at all, when the run completes (exit 0, or 1: failed checks are\n"
    "results too); a run stopped by bad input or a device error (exit 2 or\n"
    "3) writes none and leaves a file already at the path as it was.\n"
    "\n"
    "The trace holds one process per rung and one track per stream and for\n"
    "the host; a rung that traces its own work (copies, kernels, host sums)\n"
    "shows each of its events, any other one event for its run. A rung with\n"
    "phases gets a line below the table: the traced run's wall time, each\n"
    "phase's busy time (the time covered by its events) and the overlap,\n"
    "wall time over the longest busy time (1.0: all the rest hidden).\n"
    "\n"
    "The table: median, min and max time of the timed runs; rate by the\n"
    "workload's cost model (GB/s or GFLOP/s at the median); %ceil, the rate\n"
    "as a percent of the backend's ceiling measured in the same run;\n"
    "speedup over the first rung of the same workload; abs err, the largest\n"
    "absolute error against the reference; check PASS or FAIL against a\n"
    "higher-precision reference on every element.\n"
    "\n"
    "environment:\n"
    "  KLADDER_MEMORY_LIMIT=SIZE  the most memory kladder believes the host,\n"
    "                           and each device, has: bytes, digits with an\n"
    "                           optional K, M or G as for -n. Default sizes\n"
    "                           shrink to fit it; larger explicit sizes are\n"
    "                           refused (exit 2)\n"
    "\n"
    "exit codes: 0 all checks passed, 1 a check failed, 2 bad usage or\n"
    "input, 3 a device or runtime error.\n";

/* ---- messages ---------------------------------------------------------- */

static int fail(kl_status st) {
  error_line("%s", kl_last_error()[0] ? kl_last_error() : kl_status_name(st));
  return kl_exit_code(st);
}

static int out_of_memory(void) {
  fprintf(stderr, "kladder: error: out of host memory\n");
  return 3;
}

static void print_progress(void *ctx, const char *line) {
  (void)ctx;
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
}

/* ---- list ------------------------------------------------------------------
 * Everything here comes through the public API: the info structs. Every
 * line is at most LIST_WIDTH columns: the brief list (no -w, no --all)
 * cuts what is longer with '~', a line a backend and a line a workload,
 * one screen; the long listings wrap it. */
#define LIST_WIDTH 100

/* printf's text, wrapped to LIST_WIDTH, the lines after the first
 * indented by `indent`. */
PRINTF_LIKE(2, 3)
static void list_line(int indent, const char *fmt, ...) {
  char small[512], *text = small;
  va_list ap;
  va_start(ap, fmt);
  const int len = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (len < 0) return;
  if ((size_t)len >= sizeof small && (text = malloc((size_t)len + 1))) {
    va_start(ap, fmt);
    vsnprintf(text, (size_t)len + 1, fmt, ap);
    va_end(ap);
  }
  kl__wrap_text(stdout, text ? text : small, LIST_WIDTH, indent);
  if (text != small) free(text);
}

static void print_types(const kl_workload_info *w) {
  char line[256] = "    types:";
  for (int t = 0; t < KL_TYPE_COUNT; t++)
    if (w->types & KL_TYPE_BIT(t))
      kl__append(line, sizeof line, " %s", kl_type_name((kl_type)t));
  list_line(6, "%s (default %s), rate in %s", line,
            kl_type_name(w->default_type), w->unit);
}

/* A parameter's number as the library writes it: an integer where whole,
 * else its shortest exact form. */
static void number_text(double v, char *dst, size_t size) {
  if (v > -9e18 && v < 9e18 && (double)(long long)v == v)
    snprintf(dst, size, "%lld", (long long)v);
  else
    snprintf(dst, size, "%.17g", v);
}

static void print_params(size_t wi, const kl_workload_info *w) {
  if (w->input_help)
    list_line(6, "    input: -i, --input FILE %s", w->input_help);
  for (int k = 0; k < w->file_count && k < KL_MAX_FILES; k++)
    list_line(11, "    file:  --%s FILE (%s) %s", w->file_names[k],
              w->file_writes[k] ? "written" : "read", w->file_help[k]);
  printf("    parameters (-p NAME=VALUE):\n");
  for (int i = 0; i < w->param_count; i++) {
    kl_param_info p = {.size = sizeof p};
    if (kl_param_describe(wi, i, &p) != KL_OK) continue;
    char value[64], lo[32], hi[32], line[1024] = "";
    if (p.default_text) snprintf(value, sizeof value, "%s", p.default_text);
    else if (p.choices)
      snprintf(value, sizeof value, "%s",
               p.default_choice ? p.default_choice : "?");
    else number_text(p.default_value, value, sizeof value);
    kl__append(line, sizeof line, "      %-8s %s; default %s", p.name,
               p.help, value);
    if (p.host_default > 0) {
      number_text(p.host_default, lo, sizeof lo);
      kl__append(line, sizeof line, " (%s on host backends)", lo);
    }
    if (p.choices) {
      kl__append(line, sizeof line, "; one of");
      for (size_t k = 0; p.choices[k]; k++)
        kl__append(line, sizeof line, "%s %s", k ? "," : "", p.choices[k]);
    } else {
      number_text(p.min, lo, sizeof lo);
      number_text(p.max, hi, sizeof hi);
      kl__append(line, sizeof line, "; from %s to %s", lo, hi);
    }
    list_line(15, "%s%s%s", line, p.main_size ? " (-n)" : "",
              p.tuning ? " (a tuning: the rungs that read it say so)" : "");
  }
}

/* The rungs that can run here; with `all`, those of the backends not
 * here too. */
static void print_rungs(size_t wi, const kl_workload_info *w, int all) {
  int hidden = 0;
  for (int j = 0; j < w->rung_count; j++) {
    kl_rung_info r = {.size = sizeof r};
    if (kl_rung_describe(wi, j, &r) != KL_OK) continue;
    if (!r.available && !all) {
      hidden++;
      continue;
    }
    char tuning[96] = "";
    if (r.tunings[0])
      snprintf(tuning, sizeof tuning, " [tuning: -p %s=]", r.tunings);
    /* The summary's later lines under its first. */
    list_line(47, "    %-24s %-7s %-9s %s%s%s%s%s%s", r.name, r.backend,
              r.available ? "ready" : (r.built ? "not here" : "not built"),
              r.summary, (r.flags & KL_RUNG_CEILING) ? " [ceiling]" : "",
              (r.flags & KL_RUNG_VENDOR) ? " [vendor]" : "",
              (r.flags & KL_RUNG_KNOWN_WRONG) ? " [known-wrong]" : "",
              r.library ? " [library]" : "", tuning);
  }
  if (hidden)
    printf("    (and %d rung%s of backends not here: `kladder list --all`)\n",
           hidden, hidden == 1 ? "" : "s");
}

static void print_devices(const kl_backend_info *b) {
  for (int d = 0; d < b->device_count; d++) {
    kl_device_info i = {.size = sizeof i};
    if (kl_device_describe(b->name, d, &i) != KL_OK) continue;
    list_line(22, "           %-10s %s, %.1f GiB, %d %s", i.id, i.name,
              (double)i.memory_bytes / (1u << 30), i.compute_units,
              b->host_memory ? "hardware threads" : "compute units");
  }
}

/* Every workload in full: the backends and their devices first; or those
 * of -w with their parameters. */
static void list_long(const char *only, int all) {
  if (!only) {
    printf("backends (-b NAME, or NAME:INDEX for one of its devices):\n");
    for (size_t i = 0; i < kl_backend_count(); i++) {
      kl_backend_info b = {.size = sizeof b};
      if (kl_backend_describe(i, &b) != KL_OK) continue;
      list_line(25, "  %-8s %-13s %s: %s", b.name,
                b.available ? "available" : "not here", b.summary, b.detail);
      print_devices(&b);
    }
    printf("\nworkloads (rungs in ladder order, naive first; `kladder list "
           "-w W` for W's parameters):\n");
  }
  for (size_t i = 0; i < kl_workload_count(); i++) {
    kl_workload_info w = {.size = sizeof w};
    if (kl_workload_describe(i, &w) != KL_OK) continue;
    if (!kl__selects(only, w.name)) continue;
    list_line(4, "  %s: %s", w.name, w.summary);
    print_types(&w);
    if (only) print_params(i, &w);
    list_line(11, "    check: %s", w.check);
    list_line(10, "    from: %s", w.source);
    if (w.distributed)
      printf("    distributed: under mpirun one problem split over the "
             "ranks (--scaling);\n    without, one rank, and only where "
             "named (-w)\n");
    print_rungs(i, &w, all);
  }
}


/* A device backend's devices in one line's text: those alike (name,
 * memory, units) one after the other as one, "cuda:0-7 H100 80GB HBM3,
 * 79.2 GiB, 132 compute units", each name in short (machine_words). Each
 * device is described once. */
static void devices_text(const kl_backend_info *b, char *dst, size_t size) {
  kl_device_info first = {.size = sizeof first};
  int from = -1;
  dst[0] = '\0';
  for (int d = 0; d <= b->device_count; d++) {
    kl_device_info i = {.size = sizeof i};
    const int ok = d < b->device_count &&
                   kl_device_describe(b->name, d, &i) == KL_OK;
    if (from >= 0 && ok && !strcmp(i.name, first.name) &&
        i.memory_bytes == first.memory_bytes &&
        i.compute_units == first.compute_units)
      continue;
    if (from >= 0) { /* the devices from..d-1 are alike */
      char name[sizeof first.name], ids[64], units[48] = "";
      kl__machine_words(first.name, name, sizeof name);
      if (d - 1 > from) snprintf(ids, sizeof ids, "%s:%d-%d", b->name, from, d - 1);
      else snprintf(ids, sizeof ids, "%s", first.id);
      if (first.compute_units > 0)
        snprintf(units, sizeof units, ", %d %s", first.compute_units,
                 b->host_memory ? "hardware threads" : "compute units");
      kl__append(dst, size, "%s%s %s, %.1f GiB%s", dst[0] ? "; " : "", ids,
                 name, (double)first.memory_bytes / (1u << 30), units);
    }
    from = ok ? d : -1;
    if (ok) first = i;
  }
}

/* s in at most width columns, cut where it must be after a word where
 * one ends in the cut's last third ("copy and triad over three~"), else
 * where the width ends; '~' marks the cut. */
static void cut_words(const char *s, int width, char *dst, size_t size) {
  kl__cut_text(s, width, dst, size);
  const size_t len = strlen(dst);
  if (len == 0 || dst[len - 1] != '~' || !strcmp(dst, s)) return;
  size_t end = len - 1;
  while (end > 0 && dst[end] != ' ') end--;
  if (dst[end] != ' ' || kl__text_columns(dst) - (int)end > width / 3) return;
  while (end > 0 && strchr(" ,;:(", dst[end - 1])) end--;
  if (end == 0) return;
  dst[end] = '~';
  dst[end + 1] = '\0';
}

/* A line cut to LIST_WIDTH, '~' where it was cut. */
static void brief_line(const char *text) {
  char shown_line[LIST_WIDTH * 4 + 8];
  cut_words(text, LIST_WIDTH, shown_line, sizeof shown_line);
  printf("%s\n", shown_line);
}

/* A rung count of the brief list: "-" for none, "N" where all can run
 * here, "(N)" where none can, "R+(U)" where R of R + U can. */
static void count_text(int ready, int total, char *dst, size_t size) {
  if (total == 0) snprintf(dst, size, "-");
  else if (ready == total) snprintf(dst, size, "%d", total);
  else if (ready == 0) snprintf(dst, size, "(%d)", total);
  else snprintf(dst, size, "%d+(%d)", ready, total - ready);
}

/* The brief list, one screen: a line a backend (its devices, or why it is
 * not here), then a line a workload: its summary and how many rungs it
 * has on each backend. */
static void list_brief(void) {
  const size_t nb = kl_backend_count(), nw = kl_workload_count();
  char line[LIST_WIDTH * 8];
  const char **names = calloc(nb ? nb : 1, sizeof *names);
  int *counts = calloc((nw ? nw : 1) * (nb ? nb : 1) * 2, sizeof *counts);
  int *widths = calloc(nb ? nb : 1, sizeof *widths);
  if (!names || !counts || !widths) {
    free(names);
    free(counts);
    free(widths);
    list_long(NULL, 0);
    return;
  }
  printf("backends (-b NAME, or NAME:INDEX for one of its devices):\n");
  for (size_t k = 0; k < nb; k++) {
    kl_backend_info b = {.size = sizeof b};
    if (kl_backend_describe(k, &b) != KL_OK) continue;
    names[k] = b.name;
    char devices[LIST_WIDTH * 4];
    if (b.available && !b.host_memory) devices_text(&b, devices, sizeof devices);
    else snprintf(devices, sizeof devices, "%s%s%s",
                  b.available ? b.summary : "", b.available ? ": " : "",
                  b.detail);
    snprintf(line, sizeof line, "  %-8s %-10s %s", b.name,
             b.available ? "available" : "not here", devices);
    brief_line(line);
  }
  /* Each workload's rungs on each backend: ready and all. */
  int name_width = 8;
  for (size_t i = 0; i < nw; i++) {
    kl_workload_info w = {.size = sizeof w};
    if (kl_workload_describe(i, &w) != KL_OK) continue;
    if ((int)strlen(w.name) > name_width) name_width = (int)strlen(w.name);
    for (int j = 0; j < w.rung_count; j++) {
      kl_rung_info r = {.size = sizeof r};
      if (kl_rung_describe(i, j, &r) != KL_OK) continue;
      for (size_t k = 0; k < nb; k++)
        if (names[k] && !strcmp(names[k], r.backend)) {
          counts[(i * nb + k) * 2] += r.available;
          counts[(i * nb + k) * 2 + 1]++;
        }
    }
  }
  int rest = 0, unready = 0;
  for (size_t k = 0; k < nb; k++) {
    widths[k] = names[k] ? (int)strlen(names[k]) : 1;
    for (size_t i = 0; i < nw; i++) {
      char cell[32];
      const int *c = &counts[(i * nb + k) * 2];
      count_text(c[0], c[1], cell, sizeof cell);
      if ((int)strlen(cell) > widths[k]) widths[k] = (int)strlen(cell);
      unready |= c[0] < c[1];
    }
    rest += 1 + widths[k];
  }
  /* The summary takes what the name and the counts leave. */
  int summary_width = LIST_WIDTH - 4 - name_width - rest;
  if (summary_width < 12) summary_width = 12;
  printf("\nworkloads (-w W) and their rungs on each backend%s:\n",
         unready ? "; (N): N rungs that cannot run here" : "");
  snprintf(line, sizeof line, "  %-*s  %-*s", name_width, "workload",
           summary_width, "summary");
  for (size_t k = 0; k < nb; k++)
    kl__append(line, sizeof line, " %*s", widths[k],
               names[k] ? names[k] : "?");
  brief_line(line);
  for (size_t i = 0; i < nw; i++) {
    kl_workload_info w = {.size = sizeof w};
    if (kl_workload_describe(i, &w) != KL_OK) continue;
    char summary[LIST_WIDTH * 4 + 8];
    cut_words(w.summary, summary_width, summary, sizeof summary);
    /* Padded by columns, not bytes. */
    snprintf(line, sizeof line, "  %-*s  %s%*s", name_width, w.name, summary,
             summary_width - kl__text_columns(summary), "");
    for (size_t k = 0; k < nb; k++) {
      char cell[32];
      const int *c = &counts[(i * nb + k) * 2];
      count_text(c[0], c[1], cell, sizeof cell);
      kl__append(line, sizeof line, " %*s", widths[k], cell);
    }
    brief_line(line);
  }
  printf("\n");
  brief_line("`kladder list -w W`: W's parameters and rungs; `kladder list "
             "--all`: every workload and rung");
  free(names);
  free(counts);
  free(widths);
}

/* Every name of a -w list must be a workload. */
static int check_workloads(const char *list) {
  char show[SHOWN_SIZE];
  for (const char *p = list; p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char name[128];
    if (len == 0 || len >= sizeof name) {
      fprintf(stderr, "kladder: error: bad workload list '%s'\n",
              kl__shown(list, show));
      return 2;
    }
    memcpy(name, p, len);
    name[len] = '\0';
    size_t index, matched = 0;
    const int pattern = name[0] == '!' || strpbrk(name, "*?[") != NULL;
    for (size_t i = 0; pattern && i < kl_workload_count(); i++) {
      kl_workload_info w = {.size = sizeof w};
      matched += kl_workload_describe(i, &w) == KL_OK &&
                 kl__matches(name, w.name);
    }
    if (pattern ? matched == 0 : kl_workload_index(name, &index) != KL_OK) {
      if (pattern)
        fprintf(stderr, "kladder: error: workload pattern '%s' matches no "
                "workload; valid:", kl__shown(name, show));
      else
        fprintf(stderr, "kladder: error: unknown workload '%s'; valid:",
                kl__shown(name, show));
      for (size_t i = 0; i < kl_workload_count(); i++) {
        kl_workload_info w = {.size = sizeof w};
        if (kl_workload_describe(i, &w) == KL_OK)
          fprintf(stderr, "%s %s", i ? "," : "", w.name);
      }
      fprintf(stderr, "\n");
      return 2;
    }
    p = end ? end + 1 : NULL;
  }
  return 0;
}

/* The results' fields, a line each (kladder list --fields). */
static void list_fields(void) {
  static const char *const kinds[] = {"text",  "number", "seconds",
                                      "list",  "pairs",  "events",
                                      "rank-runs"};
  _Static_assert(sizeof kinds / sizeof *kinds == KL_FIELD_RANK_RUNS + 1,
                 "a name for every kl_field_kind");
  printf("%-22s %-9s %-6s %-22s %s\n", "field", "kind", "unit", "csv",
         "per run");
  for (size_t i = 0; i < kl_field_count(); i++) {
    kl_field_info f = {.size = sizeof f};
    if (kl_field_describe(i, &f) != KL_OK) continue;
    printf("%-22s %-9s %-6s %-22s %s\n", f.name, kinds[f.kind],
           f.unit[0] ? f.unit : "-", f.csv ? f.csv : "-",
           !f.per_run ? "-" : f.group[0] ? f.group : "(top)");
  }
}

/* argv[0] is "list". */
static int list(int argc, char **argv) {
  char *only = NULL;
  int json = 0, all = 0, fields = 0;
  arg_option options[] = {{"workload", 'w', ARG_LIST, &only, NULL, 0},
                          {"all", 'a', ARG_FLAG, &all, NULL, 0},
                          {"json", 0, ARG_FLAG, &json, NULL, 0},
                          {"fields", 0, ARG_FLAG, &fields, NULL, 0},
                          {0}};
  args a = {"list", usage_list, options, NULL, 0, NULL, 0};
  int code = args_parse(&a, argc, argv);
  if (code >= 0) {
    free(only);
    return code;
  }
  code = only ? check_workloads(only) : 0;
  if (code == 0 && fields && (json || all || only))
    code = args_error("list", "--fields takes no other option");
  if (code == 0) {
    kl_status st = KL_OK;
    if (fields) list_fields();
    else if (json) st = kl__list_write_json(stdout, only);
    else if (!only && !all) list_brief();
    else list_long(only, all);
    if (st != KL_OK) code = fail(st);
    if (code == 0 && fflush(stdout) != 0) {
      fprintf(stderr, "kladder: error: writing the list: %s\n",
              strerror(errno));
      code = 3;
    }
  }
  free(only);
  return code;
}

/* ---- run --------------------------------------------------------------- */

/* The results files a run can write, in kl_format order. */
enum { OUTPUTS = KL_FORMAT_TRACE + 1 };

/* What the options of a run add up to. */
typedef struct run_command {
  kl_options o;
  int verbose; /* -v: the wide table */
  int explain; /* --explain: each ladder as a lesson after the table */
  char *workloads, *backends, *rungs, *params; /* -w, -b, -r, -p */
  /* The results files' paths, by kl_format: --csv, --json, --trace. */
  const char *output[OUTPUTS];
  const char *html; /* --html: the report of the run (report-html.c) */
  const char *db;   /* --db: the results history (history.c) */
  char input_flag[64]; /* -i, --input or --matrix, as typed */
  char *command_line;
} run_command;

/* --alpha, --beta and --scalars fill the same scalars: each may be set by
 * one of them only, or which value counts would depend on their order. */
static int set_scalars(run_command *c, const char *name, const char *text,
                       int first) {
  /* --alpha and --beta are shorthands for the first and second scalar. */
  if (name[2] != 's' && strchr(text, ','))
    return args_error("run", "%s takes one number", name);
  kl_shape fresh;
  memset(&fresh, 0, sizeof fresh);
  kl_status st = kl__shape_parse_scalars(text, &fresh);
  if (st != KL_OK) {
    /* The option's name before the reason: --alpha and --beta share it. */
    fprintf(stderr, "kladder: error: %s: ", name);
    one_line(stderr, kl_last_error());
    fputc('\n', stderr);
    return kl_exit_code(st);
  }
  /* --beta's one number is the second scalar. */
  if (first) {
    fresh.scalars[1] = fresh.scalars[0];
    fresh.scalars_set <<= 1;
  }
  const uint64_t again = fresh.scalars_set & c->o.shape.scalars_set;
  for (int i = 0; i < KL_MAX_DIMS; i++) {
    if (again >> i & 1)
      return args_error("run", "option '%s' sets scalar %d, which --alpha, "
                        "--beta or --scalars set already", name, i + 1);
    if (fresh.scalars_set >> i & 1) c->o.shape.scalars[i] = fresh.scalars[i];
  }
  c->o.shape.scalars_set |= fresh.scalars_set;
  return 0;
}

/* Each -p starts with NAME=: an item without '=' continues the list of
 * the parameter before it, in the same -p (`-p nx=8 -p 16` is no list). */
static int param_check(const char *command, const char *value) {
  char show[SHOWN_SIZE];
  if (memchr(value, '=', strcspn(value, ","))) return 0;
  return args_error(command, "parameter '%s' is not NAME=VALUE: each -p "
                    "starts with one", kl__shown(value, show));
}

/* A --reps or --warmup count: 0, or the exit code of its mistake. */
static int set_count(const char *name, const char *text, int min, int *out) {
  char show[SHOWN_SIZE];
  unsigned long long v;
  if (!args_count(text, (unsigned)min, KL_MAX_REPS, &v))
    return args_error("run", "%s '%s' must be an integer from %d to %d",
                      name, kl__shown(text, show), min, KL_MAX_REPS);
  *out = (int)v;
  return 0;
}

/* Which of two words text is: 0 or 1 into *out, or the exit code of the
 * mistake. */
static int set_word(const char *name, const char *text, const char *one,
                    const char *two, int *out) {
  char show[SHOWN_SIZE];
  if (strcmp(text, one) && strcmp(text, two))
    return args_error("run", "%s '%s' must be %s or %s", name,
                      kl__shown(text, show), one, two);
  *out = strcmp(text, one) != 0;
  return 0;
}

/* The values of run's options, read after them all: 0, or the exit code
 * of the first mistake. */
enum { V_SIZE, V_TYPE, V_SHAPE, V_LD, V_ALPHA, V_BETA, V_SCALARS, V_REPS,
       V_WARMUP, V_SEED, V_CACHE, V_PRECISION, V_MAX_TIME, V_SCALING,
       V_COUNT };
static int run_values(run_command *c, const char *const v[V_COUNT]) {
  char show[SHOWN_SIZE];
  kl_status st = KL_OK;
  if (v[V_SIZE] && (strchr(v[V_SIZE], ',') || strstr(v[V_SIZE], ".."))) {
    /* A sweep: checked here, run by the library. */
    int64_t sizes[KL_MAX_SWEEP];
    size_t count = 0;
    st = kl__parse_sizes(v[V_SIZE], sizes, KL_MAX_SWEEP, &count);
    c->o.sizes = v[V_SIZE];
  } else if (v[V_SIZE]) {
    st = kl_parse_size(v[V_SIZE], &c->o.n);
  }
  if (st == KL_OK && v[V_TYPE]) st = kl_type_parse(v[V_TYPE], &c->o.type);
  if (st == KL_OK && v[V_SHAPE])
    st = kl__shape_parse_dims(v[V_SHAPE], &c->o.shape);
  if (st == KL_OK && v[V_LD]) st = kl__shape_parse_leads(v[V_LD], &c->o.shape);
  if (st != KL_OK) return fail(st);
  /* --scalars after --alpha and --beta: the list is named where it sets
   * one of theirs. */
  static const char *const scalar[] = {"--alpha", "--beta", "--scalars"};
  int code = 0, word = 0;
  for (int k = 0; k < 3; k++)
    if (v[V_ALPHA + k] &&
        (code = set_scalars(c, scalar[k], v[V_ALPHA + k], k == 1)))
      return code;
  if ((v[V_REPS] && (code = set_count("--reps", v[V_REPS], 1, &c->o.reps))) ||
      (v[V_WARMUP] &&
       (code = set_count("--warmup", v[V_WARMUP], 0, &c->o.warmup))))
    return code;
  unsigned long long seed = 0;
  if (v[V_SEED] && !args_count(v[V_SEED], 0, ULLONG_MAX, &seed))
    return args_error("run", "--seed '%s' must be a non-negative integer",
                      kl__shown(v[V_SEED], show));
  if (v[V_SEED]) c->o.seed = seed;
  if (v[V_CACHE] &&
      (code = set_word("--cache", v[V_CACHE], "cold", "warm", &word)))
    return code;
  if (v[V_CACHE]) c->o.cache = word ? KL_CACHE_WARM : KL_CACHE_COLD;
  if (v[V_SCALING] &&
      (code = set_word("--scaling", v[V_SCALING], "weak", "strong", &word)))
    return code;
  if (v[V_SCALING]) c->o.scaling = word ? KL_SCALING_STRONG : KL_SCALING_WEAK;
  double p = 0, t = 0;
  if (v[V_PRECISION] &&
      (!args_real(v[V_PRECISION], 1, &p) || !(p > 0) || p >= 1))
    return args_error("run", "--precision '%s' must be above 0 and below 1 "
                      "(or 100%%): 0.005 or 0.5%%",
                      kl__shown(v[V_PRECISION], show));
  if (v[V_PRECISION]) c->o.precision = p;
  if (v[V_MAX_TIME] && (!args_real(v[V_MAX_TIME], 0, &t) || t < 0 || t > 1e6))
    return args_error("run", "--max-time '%s' must be seconds from 0 to 1e6",
                      kl__shown(v[V_MAX_TIME], show));
  if (v[V_MAX_TIME]) c->o.max_seconds = t;
  return 0;
}

/* A parameter given twice in the -p list, "n=1,n=2": which value would
 * count is not for the order of the options to decide. Names that are no
 * workload's parameter are left to the library, which names them; so at
 * most the few real names are compared, however long the list. */
static int twice_in_params(const char *list) {
  const char *seen[64];
  size_t seen_len[64], count = 0;
  for (const char *p = list; p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    char name[64];
    size_t name_len = eq ? (size_t)(eq - p) : 0;
    if (name_len > 0 && name_len < sizeof name) {
      memcpy(name, p, name_len);
      name[name_len] = '\0';
      int real = 0;
      for (size_t i = 0; i < kl_workload_count() && !real; i++) {
        kl_workload_info w = {.size = sizeof w};
        if (kl_workload_describe(i, &w) != KL_OK) continue;
        for (int k = 0; k < w.param_count && !real; k++) {
          kl_param_info p = {.size = sizeof p};
          real = kl_param_describe(i, k, &p) == KL_OK &&
                 strcmp(p.name, name) == 0;
        }
      }
      for (size_t k = 0; real && k < count; k++)
        if (seen_len[k] == name_len && memcmp(seen[k], p, name_len) == 0)
          return args_error("run", "parameter '%s' given twice (-p)", name);
      if (real && count < sizeof seen / sizeof seen[0]) {
        seen[count] = p;
        seen_len[count++] = name_len;
      }
    }
    p = end ? end + 1 : NULL;
  }
  return 0;
}

/* A shell word as typed: bare where the shell would read it so, else in
 * single quotes with each quote as '\''. */
static int needs_quotes(const char *s) {
  if (!*s) return 1;
  for (; *s; s++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789%+,-./:=@_", *s))
      return 1;
  return 0;
}

/* The command line for the results files: "kladder run -w 'a b'". */
static char *command_line(int argc, char **argv) {
  const char *name = argv[0] && *argv[0] ? argv[0] : "kladder";
  const char *slash = strrchr(name, '/');
  if (slash && slash[1]) name = slash + 1;
  size_t size = strlen(name) + 1;
  for (int i = 1; i < argc; i++) {
    size += 3;
    for (const char *s = argv[i]; *s; s++) size += *s == '\'' ? 4 : 1;
  }
  char *line = malloc(size), *out = line;
  if (!line) return NULL;
  out += sprintf(out, "%s", name);
  for (int i = 1; i < argc; i++) {
    *out++ = ' ';
    if (!needs_quotes(argv[i])) {
      out += sprintf(out, "%s", argv[i]);
      continue;
    }
    *out++ = '\'';
    for (const char *s = argv[i]; *s; s++) {
      if (*s == '\'') out += sprintf(out, "'\\''");
      else *out++ = *s;
    }
    *out++ = '\'';
  }
  *out = '\0';
  return line;
}

/* The options of a run: -1 to go on, else the exit code (0 after --help). */
static int parse_run(run_command *c, int argc, char **argv) {
  const char *v[V_COUNT] = {NULL};
  int quiet = 0;
  /* In the order of the help, which a prefix's possibilities follow. */
  arg_option options[] = {
      {"workload", 'w', ARG_LIST, &c->workloads, NULL, 0},
      {"backend", 'b', ARG_LIST, &c->backends, NULL, 0},
      {"rung", 'r', ARG_LIST, &c->rungs, NULL, 0},
      {"param", 'p', ARG_LIST, &c->params, param_check, 0},
      {"size", 'n', ARG_VALUE, &v[V_SIZE], NULL, 0},
      {"type", 't', ARG_VALUE, &v[V_TYPE], NULL, 0},
      {"op", 'o', ARG_VALUE, &c->o.op, NULL, 0},
      {"inputs", 0, ARG_VALUE, &c->o.inputs, NULL, 0},
      {"input", 'i', ARG_VALUE, &c->o.input_file, NULL, 0},
      {"matrix", 0, ARG_VALUE, &c->o.input_file, NULL, 0},
      {"rhs", 0, ARG_VALUE, &c->o.files[0].path, NULL, 0},
      {"solution", 0, ARG_VALUE, &c->o.files[1].path, NULL, 0},
      {"shape", 's', ARG_VALUE, &v[V_SHAPE], NULL, 0},
      {"ld", 0, ARG_VALUE, &v[V_LD], NULL, 0},
      {"alpha", 0, ARG_VALUE, &v[V_ALPHA], NULL, 0},
      {"beta", 0, ARG_VALUE, &v[V_BETA], NULL, 0},
      {"scalars", 0, ARG_VALUE, &v[V_SCALARS], NULL, 0},
      {"reps", 0, ARG_VALUE, &v[V_REPS], NULL, 0},
      {"warmup", 0, ARG_VALUE, &v[V_WARMUP], NULL, 0},
      {"max-time", 0, ARG_VALUE, &v[V_MAX_TIME], NULL, 0},
      {"precision", 0, ARG_VALUE, &v[V_PRECISION], NULL, 0},
      {"cache", 0, ARG_VALUE, &v[V_CACHE], NULL, 0},
      {"seed", 0, ARG_VALUE, &v[V_SEED], NULL, 0},
      {"csv", 0, ARG_VALUE, &c->output[KL_FORMAT_CSV], NULL, 0},
      {"json", 0, ARG_VALUE, &c->output[KL_FORMAT_JSON], NULL, 0},
      {"trace", 0, ARG_VALUE, &c->output[KL_FORMAT_TRACE], NULL, 0},
      {"html", 0, ARG_VALUE, &c->html, NULL, 0},
      {"db", 0, ARG_VALUE, &c->db, NULL, 0},
      {"no-ceiling", 0, ARG_FLAG, &c->o.skip_ceiling, NULL, 0},
      {"host-data", 0, ARG_FLAG, &c->o.host_data, NULL, 0},
      {"energy", 0, ARG_FLAG, &c->o.energy, NULL, 0},
      {"scaling", 0, ARG_VALUE, &v[V_SCALING], NULL, 0},
      {"full", 0, ARG_FLAG, &c->o.full, NULL, 0},
      {"explain", 0, ARG_FLAG, &c->explain, NULL, 0},
      {"quiet", 'q', ARG_FLAG, &quiet, NULL, 0},
      {"verbose", 'v', ARG_FLAG, &c->verbose, NULL, 0},
      {0}};
  args a = {"run", usage_run, options, NULL, 0, NULL, 0};
  int code = args_parse(&a, argc, argv);
  if (code >= 0) return code;
  code = run_values(c, v);
  if (quiet) c->o.progress = NULL;
  /* The file options name the files: -i, --input or --matrix as given. */
  for (arg_option *o = options; o->name; o++)
    if (o->given && o->slot == &c->o.input_file) args_name(o, c->input_flag);
  if (c->o.files[0].path) c->o.files[0].name = "rhs";
  if (c->o.files[1].path) c->o.files[1].name = "solution";
  if (code == 0 && c->params) code = twice_in_params(c->params);
  /* The files written, each its own (a link or another spelling of a
   * path included), and none a file the run reads. */
  const char *const out_flag[] = {"--csv", "--json", "--trace", "--html",
                                  "--db", "--solution"};
  const char *const out_path[] = {c->output[KL_FORMAT_CSV],
                                  c->output[KL_FORMAT_JSON],
                                  c->output[KL_FORMAT_TRACE], c->html, c->db,
                                  c->o.files[1].path};
  const char *const in_flag[] = {c->input_flag, "--rhs"};
  const char *const in_path[] = {c->o.input_file, c->o.files[0].path};
  enum { OUTS = sizeof out_path / sizeof *out_path };
  _Static_assert(OUTPUTS == 3, "the results files first, in kl_format order");
  char show[SHOWN_SIZE];
  for (int i = 0; i < OUTS && code == 0; i++) {
    if (!out_path[i]) continue;
    for (int j = i + 1; j < OUTS && code == 0; j++)
      if (out_path[j] && kl__same_file(out_path[i], out_path[j]))
        code =
            args_error("run", "%s and %s name the same file '%s'", out_flag[i],
                       out_flag[j], kl__shown(out_path[i], show));
    /* --solution against the inputs: the library's (it reads them). */
    for (int k = 0; k < 2 && code == 0 && i < OUTS - 1; k++)
      if (in_path[k] && strcmp(out_path[i], "-") != 0 &&
          kl__same_file(out_path[i], in_path[k]))
        code = args_error("run", "%s '%s' is the file of %s, an input: "
                          "refusing to write over it", out_flag[i],
                          kl__shown(out_path[i], show), in_flag[k]);
  }
  if (code) return code;
  c->o.workloads = c->workloads;
  c->o.backends = c->backends;
  c->o.rungs = c->rungs;
  c->o.params = c->params;
  return -1;
}

/* SIGINT and SIGTERM: the first stops the run after the repetition in
 * progress (the library polls the flag), and the finished rungs are
 * printed and written; a second removes --html's JSON file of our own and
 * exits at once, 128 + its number. The results files have no temporary
 * copy until they are written (kl_output_open), so none is left. */
static volatile sig_atomic_t stop_signal;
static const char *html_json; /* --html's JSON file, while it exists */

static void on_signal(int sig) {
  if (stop_signal) {
    if (html_json) (void)unlink(html_json);
    _exit(128 + sig);
  }
  stop_signal = sig;
  static const char said[] = "\nkladder: stopping after the current "
                             "repetition (again to quit at once)\n";
  ssize_t wrote = write(STDERR_FILENO, said, sizeof said - 1);
  (void)wrote;
}

static void discard_outputs(kl_output *out[OUTPUTS]) {
  for (int i = 0; i < OUTPUTS; i++)
    if (out[i]) kl_output_discard(out[i]);
}

/* --html FILE and --db FILE: the run's results go to a JSON file of our
 * own, which the report is drawn from and the history reads when the run
 * completes (so that the page and the history hold the numbers a results
 * file holds; path NULL: --db alone, no page). Before the run: the page's path is tried
 * (a file made beside it and removed), so a path that cannot be written
 * is refused at once, as the results files' are. */
typedef struct html_output {
  kl_output *json;
  char json_path[4096];
  int made;
} html_output;

static int html_open(const char *path, html_output *h) {
  char show[SHOWN_SIZE];
  if (path && strcmp(path, "-") != 0) {
    struct stat st;
    const int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
      fprintf(stderr, "kladder: error: cannot write the report to '%s': a "
              "directory\n", kl__shown(path, show));
      return 2;
    }
    /* A device or a pipe is written in place, as every output is: only a
     * regular file or a new path is tried beside it. */
    if (exists && !S_ISREG(st.st_mode)) path = NULL;
  }
  if (path && strcmp(path, "-") != 0) {
    char probe[4096];
    if (snprintf(probe, sizeof probe, "%s.tmp-XXXXXX", path) >=
        (int)sizeof probe) {
      fprintf(stderr, "kladder: error: --html: the path is too long\n");
      return 2;
    }
    const int fd = mkstemp(probe);
    if (fd < 0) {
      fprintf(stderr, "kladder: error: cannot write the report to '%s': %s\n",
              kl__shown(path, show), strerror(errno));
      return 2;
    }
    close(fd);
    unlink(probe);
  }
  const char *dir = getenv("TMPDIR");
  snprintf(h->json_path, sizeof h->json_path, "%s/kladder-html-XXXXXX",
           dir && *dir ? dir : "/tmp");
  const int fd = mkstemp(h->json_path);
  if (fd < 0) {
    fprintf(stderr, "kladder: error: --html: cannot make a temporary file in "
            "%s: %s\n", dir && *dir ? dir : "/tmp", strerror(errno));
    return 2;
  }
  close(fd);
  h->made = 1;
  kl_status st = kl_output_open(h->json_path, KL_FORMAT_JSON, &h->json);
  if (st != KL_OK) {
    unlink(h->json_path);
    h->made = 0;
    return fail(st);
  }
  return 0;
}

static void html_close(html_output *h) {
  if (h->json) kl_output_discard(h->json);
  h->json = NULL;
  if (h->made) unlink(h->json_path);
  h->made = 0;
}

/* Open the results files before the run; write them after a run that
 * completed, discard them otherwise. */
static int run_parsed(run_command *c) {
  kl_output *out[OUTPUTS] = {NULL};
  kl_status st = KL_OK;
  for (int i = 0; i < OUTPUTS && st == KL_OK; i++)
    if (c->output[i]) st = kl_output_open(c->output[i], (kl_format)i, &out[i]);
  int bad = st != KL_OK ? fail(st) : 0;
  html_output html = {0};
  kl_history *db = NULL;
  if (!bad && c->db) {
    /* The history checked before the run: a file that is not one, or
     * read-only, is refused at once. A new one is made when the run
     * has completed (a run that fails leaves none); its folder is tried
     * now. */
    struct stat st;
    if (stat(c->db, &st) != 0 && errno == ENOENT) {
      char probe[4096];
      int fd = -1;
      if (snprintf(probe, sizeof probe, "%s.tmp-XXXXXX", c->db) <
          (int)sizeof probe)
        fd = mkstemp(probe);
      if (fd < 0) {
        char show[SHOWN_SIZE];
        fprintf(stderr, "kladder: error: %s: cannot make the history: %s\n",
                kl__shown(c->db, show), strerror(errno));
        bad = 2;
      } else {
        close(fd);
        unlink(probe);
      }
    } else if (kl_history_open(c->db, 1, &db) != KL_OK) {
      bad = error_line("%s", kl_last_error());
    }
  }
  if (!bad && (c->html || c->db)) bad = html_open(c->html, &html);
  /* Under mpirun only rank 0 has files to open: the others wait for its
   * word before the run, which every rank must enter or none. */
  bad = cli_ranks_gate(bad);
  if (bad) {
    discard_outputs(out);
    html_close(&html);
    kl_history_close(db);
    return bad;
  }

  html_json = html.made ? html.json_path : NULL;
  catch_stop_signals(on_signal);
  c->o.stop = &stop_signal;
  kl_report *rep = NULL;
  st = kl_run(&c->o, &rep);
  const int completed = rep && (st == KL_OK || st == KL_CHECK_FAILED ||
                                st == KL_INTERRUPTED);
  /* The run's message, before the calls below replace or clear it. */
  char why[512];
  snprintf(why, sizeof why, "%s",
           kl_last_error()[0] ? kl_last_error() : kl_status_name(st));
  int code = 0;
  if (rep) {
    /* Results written to standard output (`--csv -`) take it: the table
     * goes to standard error then. */
    int piped = 0;
    for (int i = 0; i < OUTPUTS; i++)
      piped |= c->output[i] && strcmp(c->output[i], "-") == 0;
    piped |= c->html && strcmp(c->html, "-") == 0;
    FILE *table = piped ? stderr : stdout;
    kl_status printed = c->verbose ? kl_report_print_wide(rep, table)
                                   : kl_report_print(rep, table);
    if (c->explain && printed == KL_OK && explain_report(rep, table) > 1)
      printed = KL_IO;
    if (fflush(table) != 0 && printed == KL_OK) printed = KL_IO;
    if (printed != KL_OK) code = fail(printed);
  }
  if (!completed) {
    /* Bad input or a device error: nothing is left behind. */
    discard_outputs(out);
    html_close(&html);
    kl_history_close(db);
    kl_report_free(rep);
    if (code) return code;
    error_line("%s", why);
    return kl_exit_code(st);
  }
  const kl_status run_st = st;
  /* A failed CSV does not cost the JSON or the trace of a run that took
   * minutes: each file is written. */
  for (int i = 0; i < OUTPUTS; i++) {
    const kl_status wrote = out[i] ? kl_output_write(out[i], rep) : KL_OK;
    if (wrote != KL_OK && !code) code = fail(wrote);
  }
  if (html.json) {
    kl_status wrote = kl_output_write(html.json, rep);
    html.json = NULL; /* written or discarded by the write */
    if (wrote != KL_OK && !code) code = fail(wrote);
    const char *from = html.json_path;
    if (wrote == KL_OK && c->db) {
      /* One transaction: a run stopped while it is appended leaves the
       * history as it was. */
      kl_status st = db ? KL_OK : kl_history_open(c->db, 1, &db);
      if (st == KL_OK) st = kl_history_append(db, &from, 1, NULL);
      if (st != KL_OK && !code)
        code = error_line("%s (the run is not in the history)",
                          kl_last_error());
    }
    if (wrote == KL_OK && c->html &&
        kl_report_write_html(c->html, &from, 1, db) != KL_OK && !code) {
      fprintf(stderr, "kladder: error: %s\n", kl_last_error());
      code = 2;
    }
  }
  kl_history_close(db);
  html_close(&html);
  kl_report_free(rep);
  if (code) return code;
  if (run_st == KL_INTERRUPTED) {
    fprintf(stderr, "kladder: interrupted; the finished rungs are in the "
            "table%s\n", c->output[0] || c->output[1] || c->output[2] ||
                                   c->html
                              ? " and the results files" : "");
    return 128 + (stop_signal ? stop_signal : SIGINT);
  }
  if (run_st == KL_CHECK_FAILED)
    fprintf(stderr, "kladder: a check failed (see the table)\n");
  return kl_exit_code(run_st);
}

/* argv[0] is "run"; full_argc and full_argv the whole command line, for
 * the results files. */
static int run(int argc, char **argv, int full_argc, char **full_argv) {
  run_command c;
  memset(&c, 0, sizeof c);
  kl_options_init(&c.o);
  c.o.progress = print_progress;
  /* Under mpirun: every rank runs every rung at once (kl_options.ranks);
   * rank 0 alone prints and writes, the others' output goes nowhere and
   * their errors reach rank 0 through the run's agreements. */
  int refused = 0;
  c.o.ranks = cli_ranks_begin(&refused);
  if (refused) return 2;
  const int rank = cli_ranks_rank();
  if (rank > 0 && (!freopen("/dev/null", "w", stdout) ||
                   !freopen("/dev/null", "w", stderr)))
    return cli_ranks_end(3);
  c.command_line = command_line(full_argc, full_argv);
  if (!c.command_line) return cli_ranks_end(out_of_memory());
  c.o.command_line = c.command_line;
  int code = parse_run(&c, argc, argv);
  if (code < 0 && rank > 0) {
    for (int i = 0; i < OUTPUTS; i++) c.output[i] = NULL;
    c.html = NULL;
    c.db = NULL;
    c.o.progress = NULL;
  }
  if (code < 0) code = run_parsed(&c);
  code = cli_ranks_end(code);
  free(c.workloads);
  free(c.backends);
  free(c.rungs);
  free(c.params);
  free(c.command_line);
  return code;
}

static int command(int argc, char **argv);

/* What a command printed on standard output that did not reach it (a
 * full disk, a closed pipe) fails the command, unless it said so
 * already. */
int main(int argc, char **argv) {
  int code = command(argc, argv);
  if ((fflush(stdout) != 0 || ferror(stdout)) && code < 2) {
    fprintf(stderr, "kladder: error: writing standard output: %s\n",
            strerror(errno));
    code = 3;
  }
  return code;
}

static int command(int argc, char **argv) {
  /* A message is written in pieces (prefix, text, newline); line buffering
   * makes each line one write, so a launcher that forwards the pipes in
   * chunks (mpirun) never splits or interleaves it. */
  setvbuf(stderr, NULL, _IOLBF, BUFSIZ);
  if (argc < 2)
    return args_error(NULL, "no command; usage: kladder <command> "
                      "[options], the commands list, run, report, compare, "
                      "tune, history, explain");
  const char *cmd = argv[1];
  char show[SHOWN_SIZE];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      strcmp(cmd, "help") == 0) {
    fputs(usage_main, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("kladder %s\n", KL_VERSION);
    return 0;
  }
  if (strcmp(cmd, "list") == 0) return list(argc - 1, argv + 1);
  if (strcmp(cmd, "run") == 0) return run(argc - 1, argv + 1, argc, argv);
  if (strcmp(cmd, "report") == 0) return report_main(argc - 1, argv + 1);
  if (strcmp(cmd, "compare") == 0) return compare_main(argc - 1, argv + 1);
  if (strcmp(cmd, "tune") == 0) return tune_main(argc - 1, argv + 1);
  if (strcmp(cmd, "history") == 0) return history_main(argc - 1, argv + 1);
  if (strcmp(cmd, "explain") == 0) return explain_main(argc - 1, argv + 1);
  return args_error(NULL, "unknown command '%s'; valid: list, run, report, "
                    "compare, tune, history, explain", kl__shown(cmd, show));
}
