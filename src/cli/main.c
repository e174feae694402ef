/* The kladder command: a thin layer over the library. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kladder.h"

static const char usage_main[] =
    "usage: kladder <command> [options]\n"
    "\n"
    "Runs ladders of compute kernels, from naive to vendor-library fast,\n"
    "verifies every rung on fresh random inputs and reports each one's time\n"
    "and rate as a share of a ceiling measured in the same run.\n"
    "\n"
    "commands:\n"
    "  list [-w W]   workloads, their rungs, and the backends available here;\n"
    "                with -w, one workload's parameters and defaults\n"
    "  run           run ladders (see `kladder run --help`)\n"
    "  --help, -h    this text\n"
    "  --version     the version\n"
    "\n"
    "exit codes: 0 all checks passed, 1 a check failed, 2 bad usage or\n"
    "input, 3 a device or runtime error.\n";

static const char usage_run[] =
    "usage: kladder run [options]\n"
    "\n"
    "With no options, runs every workload on every backend available here.\n"
    "\n"
    "  -w, --workload W[,W...]  workloads to run (see `kladder list`)\n"
    "  -b, --backend B[,B...]   backends to run on: serial, openmp, cuda, hip\n"
    "  -r, --rung R[,R...]      rungs to run, by name\n"
    "  -n, --size N             the main size (elements; gemm: n, the default\n"
    "                           of m and k); digits with an optional K, M or\n"
    "                           G (powers of 1024). Default: each workload's,\n"
    "                           shrunk to fit memory (the output says so)\n"
    "  -p, --param NAME=VALUE[,NAME=VALUE...]\n"
    "                           any parameter of the workload (`kladder list\n"
    "                           -w W` lists them); -p may be repeated\n"
    "  -t, --type T             element type, where the workload has several:\n"
    "                           f32, f64, i32, i64, u8\n"
    "  -o, --op OP              the operation, where the workload has one\n"
    "                           (reduce: sum, min, max); -p op=OP\n"
    "      --inputs PATTERN     the input pattern, where the workload has one\n"
    "                           (default random); -p inputs=PATTERN\n"
    "  -s, --shape MxNxK        the extents in order (gemm: m, n and k); one\n"
    "                           not given follows -n\n"
    "      --ld LDA,LDB,LDC     the leading dimensions in order (gemm; default\n"
    "                           the rows)\n"
    "      --alpha A            the first and second scalar (gemm: alpha,\n"
    "      --beta B             default 1, and beta, default 0)\n"
    "      --scalars A,B        the scalars in order, as a list\n"
    "      --reps N             timed runs per rung (default 10, at most\n"
    "                           1000000)\n"
    "      --warmup N           untimed runs before them (default 2, at most\n"
    "                           1000000)\n"
    "      --max-time S         fewer runs where a rung's would take more than\n"
    "                           S seconds, at least one timed run (default 30;\n"
    "                           0: no limit)\n"
    "      --seed S             seed of the random inputs (default 20261121)\n"
    "      --csv FILE           also write the results as CSV\n"
    "      --json FILE          also write the results as JSON\n"
    "      --no-ceiling         do not measure the bandwidth ceilings\n"
    "  -q, --quiet              no progress lines on stderr\n"
    "  -h, --help               this text\n"
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

static int fail(kl_status st) {
  fprintf(stderr, "kladder: error: %s\n",
          kl_last_error()[0] ? kl_last_error() : kl_status_name(st));
  return kl_exit_code(st);
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "kladder: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see `kladder --help`)\n");
  return 2;
}

static void print_progress(void *ctx, const char *line) {
  (void)ctx;
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
}

static int parse_count(const char *text, const char *what, long min,
                       long *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end != '\0' || v < min || v > KL_MAX_REPS) {
    fprintf(stderr, "kladder: error: %s '%s' must be an integer from %ld to "
            "%d\n", what, text, min, KL_MAX_REPS);
    return 0;
  }
  *out = v;
  return 1;
}

static void print_types(const kl_workload *w) {
  printf("    types:");
  for (int t = 0; t < KL_TYPE_COUNT; t++)
    if (w->types & KL_TYPE_BIT(t)) printf(" %s", kl_type_name((kl_type)t));
  printf(" (default %s), rate in %s\n", kl_type_name(w->default_type),
         kl_metric_unit(w));
}

static void print_params(const kl_workload *w) {
  printf("    parameters (-p NAME=VALUE):\n");
  for (int i = 0; i < w->param_count; i++) {
    const kl_param *p = &w->params[i];
    char value[64], lo[32], hi[32];
    if (p->default_text) snprintf(value, sizeof value, "%s", p->default_text);
    else kl_param_text(p, p->default_value, value, sizeof value);
    printf("      %-8s %s; default %s", p->name, p->help, value);
    if (p->host_default > 0) {
      kl_param_text(p, p->host_default, lo, sizeof lo);
      printf(" (%s on host backends)", lo);
    }
    if (p->kind == KL_PARAM_CHOICE) {
      printf("; one of");
      for (size_t k = 0; p->choices[k]; k++)
        printf("%s %s", k ? "," : "", p->choices[k]);
    } else {
      kl_param_text(p, p->min, lo, sizeof lo);
      kl_param_text(p, p->max, hi, sizeof hi);
      printf("; from %s to %s", lo, hi);
    }
    printf("%s\n", (p->flags & KL_PARAM_MAIN_SIZE) ? " (-n)" : "");
  }
}

static void print_rungs(const kl_workload *w) {
  for (size_t j = 0; j < w->rung_count; j++) {
    const kl_rung *r = &w->rungs[j];
    const int built = r->run || r->run_reps;
    const int ok = built && kl_backend_available(r->backend, NULL, 0);
    printf("    %-24s %-7s %-9s %s%s%s%s%s\n", r->name, r->backend->name,
           ok ? "ready" : (built ? "not here" : "not built"), r->summary,
           (r->flags & KL_RUNG_CEILING) ? " [ceiling]" : "",
           (r->flags & KL_RUNG_VENDOR) ? " [vendor]" : "",
           (r->flags & KL_RUNG_KNOWN_WRONG) ? " [known-wrong]" : "",
           r->library ? " [library]" : "");
  }
}

/* Every workload in brief, or one (-w W) with its parameters. */
static int list(const char *only) {
  const kl_workload *one = only ? kl_workload_find(only) : NULL;
  if (only && !one) {
    fprintf(stderr, "kladder: error: unknown workload '%s'; valid:", only);
    for (size_t i = 0; i < kl_workload_count(); i++)
      fprintf(stderr, "%s %s", i ? "," : "", kl_workload_at(i)->name);
    fprintf(stderr, "\n");
    return 2;
  }
  if (!one) {
    printf("backends:\n");
    for (size_t i = 0; i < kl_backend_count(); i++) {
      const kl_backend *b = kl_backend_at(i);
      char info[256];
      int ok = kl_backend_available(b, info, sizeof info);
      printf("  %-8s %-13s %s: %s\n", b->name, ok ? "available" : "not here",
             b->summary, info);
    }
    printf("\nworkloads (rungs in ladder order, naive first; `kladder list "
           "-w W` for W's parameters):\n");
  }
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    if (one && w != one) continue;
    printf("  %s: %s\n", w->name, w->summary);
    print_types(w);
    if (one) print_params(w);
    printf("    check: %s\n    from: %s\n", w->tolerance, w->source);
    print_rungs(w);
  }
  return 0;
}

/* The value of option argv[*i]: after '=' or in the next argument. */
static const char *option_value(int argc, char **argv, int *i,
                                const char *inline_value) {
  if (inline_value) return inline_value;
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

static int run(int argc, char **argv) {
  kl_options o;
  kl_options_init(&o);
  o.progress = print_progress;
  const char *csv = NULL, *json = NULL;
  static char params[4096];
  params[0] = '\0';
  for (int i = 0; i < argc; i++) {
    char name[64];
    const char *arg = argv[i], *inline_value = NULL;
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len >= sizeof name) return usage_error("unknown option '%s'", arg);
    memcpy(name, arg, len);
    name[len] = '\0';
    if (eq) inline_value = eq + 1;
#define IS(short_name, long_name)                                             \
  ((short_name[0] && strcmp(name, short_name) == 0) ||                        \
   strcmp(name, long_name) == 0)
    if (IS("-h", "--help")) {
      fputs(usage_run, stdout);
      return 0;
    }
    if (IS("-q", "--quiet")) {
      o.progress = NULL;
      continue;
    }
    if (IS("", "--no-ceiling")) {
      o.skip_ceiling = 1;
      continue;
    }
    int takes_value = IS("-p", "--param") || IS("-w", "--workload") ||
                      IS("-b", "--backend") ||
                      IS("-r", "--rung") || IS("-n", "--size") ||
                      IS("-t", "--type") || IS("-o", "--op") ||
                      IS("", "--inputs") || IS("", "--reps") ||
                      IS("", "--warmup") || IS("", "--seed") ||
                      IS("", "--csv") || IS("", "--json") ||
                      IS("-s", "--shape") || IS("", "--ld") ||
                      IS("", "--scalars") || IS("", "--alpha") ||
                      IS("", "--beta") || IS("", "--max-time");
    if (!takes_value) return usage_error("unknown option '%s'", arg);
    const char *value = option_value(argc, argv, &i, inline_value);
    if (!value) return usage_error("option '%s' needs a value", name);
    long count;
    if (IS("-p", "--param")) {
      /* Several -p options add up. */
      size_t used = strlen(params);
      if (!*value || used + strlen(value) + 2 > sizeof params)
        return usage_error("parameter list '%s' is empty or too long", value);
      snprintf(params + used, sizeof params - used, "%s%s", used ? "," : "",
               value);
      o.params = params;
    } else if (IS("-w", "--workload")) o.workloads = value;
    else if (IS("-b", "--backend")) o.backends = value;
    else if (IS("-r", "--rung")) o.rungs = value;
    else if (IS("-o", "--op")) o.op = value;
    else if (IS("", "--inputs")) o.inputs = value;
    else if (IS("-n", "--size")) {
      kl_status st = kl_parse_size(value, &o.n);
      if (st != KL_OK) return fail(st);
    } else if (IS("-t", "--type")) {
      kl_status st = kl_type_parse(value, &o.type);
      if (st != KL_OK) return fail(st);
    } else if (IS("", "--reps")) {
      if (!parse_count(value, "--reps", 1, &count)) return 2;
      o.reps = (int)count;
    } else if (IS("", "--warmup")) {
      if (!parse_count(value, "--warmup", 0, &count)) return 2;
      o.warmup = (int)count;
    } else if (IS("", "--seed")) {
      char *end = NULL;
      errno = 0;
      unsigned long long s = strtoull(value, &end, 10);
      if (errno || end == value || *end != '\0' || value[0] == '-')
        return usage_error("--seed '%s' must be a non-negative integer",
                           value);
      o.seed = s;
    } else if (IS("-s", "--shape")) {
      kl_status st = kl_shape_parse_dims(value, &o.shape);
      if (st != KL_OK) return fail(st);
    } else if (IS("", "--ld")) {
      kl_status st = kl_shape_parse_leads(value, &o.shape);
      if (st != KL_OK) return fail(st);
    } else if (IS("", "--scalars")) {
      kl_status st = kl_shape_parse_scalars(value, &o.shape);
      if (st != KL_OK) return fail(st);
    } else if (IS("", "--alpha") || IS("", "--beta")) {
      /* Shorthands for the first and second scalar. */
      char text[80];
      if (strchr(value, ',') || strlen(value) > 60)
        return usage_error("%s takes one number", name);
      snprintf(text, sizeof text, "%s%s", IS("", "--beta") ? "," : "", value);
      kl_status st = kl_shape_parse_scalars(text, &o.shape);
      if (st != KL_OK) return fail(st);
    } else if (IS("", "--max-time")) {
      char *end = NULL;
      errno = 0;
      double t = strtod(value, &end);
      if (errno || end == value || *end != '\0' || !(t >= 0) || t > 1e6)
        return usage_error("--max-time '%s' must be seconds from 0 to 1e6",
                           value);
      o.max_seconds = t;
    } else if (IS("", "--csv")) csv = value;
    else if (IS("", "--json")) json = value;
#undef IS
  }

  kl_report *rep = NULL;
  kl_status st = kl_run(&o, &rep);
  if (!rep) return fail(st);
  kl_status wrote = kl_report_print(rep, stdout);
  fflush(stdout);
  if (wrote == KL_OK && csv) wrote = kl_report_write_csv(rep, csv);
  if (wrote == KL_OK && json) wrote = kl_report_write_json(rep, json);
  kl_report_free(rep);
  if (wrote != KL_OK) return fail(wrote);
  if (st != KL_OK && st != KL_CHECK_FAILED) return fail(st);
  if (st == KL_CHECK_FAILED)
    fprintf(stderr, "kladder: a check failed (see the table)\n");
  return kl_exit_code(st);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_main, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      strcmp(cmd, "help") == 0) {
    fputs(usage_main, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("kladder %s\n", KL_VERSION);
    return 0;
  }
  if (strcmp(cmd, "list") == 0) {
    if (argc == 2) return list(NULL);
    if ((strcmp(argv[2], "-w") == 0 || strcmp(argv[2], "--workload") == 0) &&
        argc == 4)
      return list(argv[3]);
    return usage_error("list takes only -w WORKLOAD ('%s')", argv[2]);
  }
  if (strcmp(cmd, "run") == 0) return run(argc - 2, argv + 2);
  return usage_error("unknown command '%s'; valid: list, run", cmd);
}
