/* test_rungs [--quick] [--random-only] [--pairs] [--big] [--workloads W,W...]
 *            [--no-vendor] [--min-n N] [--max-n N] [--fixed-iterations N]
 *            [--shard K/N] [--list] BACKEND [SIZE...]:
 * every
 * rung of every workload on BACKEND, on each workload's own test problems
 * (its awkward sizes and shapes; with --big, those whose indices pass
 * 2^31), or at the main sizes given, for every type and every value of
 * the workload's operation and input-pattern parameters, on fresh inputs,
 * checked on every element.
 * --quick: only each workload's smallest type (which reaches the most
 * elements in a given memory), default operation and inputs.
 * --random-only: every type and operation, default inputs only (the
 * memory a rung touches does not depend on the values: the sanitizer runs).
 * --pairs: of the types and operations, not every combination on every
 * problem but max(types, operations) of them, shifted from one problem to
 * the next: every type and every operation on every problem, and every
 * pair of the two on some problem (the sanitizer runs, where one case
 * costs seconds: the memory a rung touches depends on the type and the
 * size, and the operation changes only the arithmetic).
 * --list: print the cases, run none (the backend need not be here).
 * --workloads: only those, each with the workloads of its folder (reduce:
 * reduce-dist too; the sanitizer runs leave gemm to test_gemm).
 * --no-vendor: not the vendor rungs. --min-n, --max-n: only the test
 * problems whose main size is at least, at most N (the sanitizer's
 * slowdown). --fixed-iterations N: a workload that iterates to a
 * tolerance or a fixed count (a `mode` parameter with the choice `fixed`
 * and an iteration count `maxit`: cg, cg-dist) runs every test problem in
 * fixed mode for N iterations; a problem that sets a fixed count of its
 * own keeps it where it is smaller, and otherwise takes N or N + 1,
 * whichever has its count's parity (cg-matrix-free's last step depends on
 * it). The same kernels run at every iteration, so that a few cover them
 * under the sanitizers, where each costs seconds; the workload's check of
 * fixed mode compares the answer with a reference solve of as many
 * iterations. --shard K/N: only every N-th case from the K-th (0-based),
 * so that N processes run the cases between them (the sanitizer's long
 * jobs, side by side).
 * Where an LD_PRELOAD library defines kl_launch_log_case (the sanitizer
 * gate's launch log, tests/tools/launch_log.c), each case is named to it
 * before it runs: "WORKLOAD RUNG TYPE PARAMS n=N".
 * A test problem whose parameters set the operation or the input pattern
 * itself runs with those alone (histogram: all-same on bins 0 and 255).
 * A combination that the workload's plan refuses as KL_UNAVAILABLE (reduce:
 * a NaN or infinity pattern for int32) is skipped as not applicable.
 * Exit 0 when all pass, 1 on any failure, 77 (skipped) when the backend is
 * absent or nothing fits in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "../tools/launch_log_case.h"

static int smallest_type(const kl_workload *w) {
  int best = -1;
  for (int t = 0; t < KL_TYPE_COUNT; t++)
    if ((w->types & KL_TYPE_BIT(t)) &&
        (best < 0 || kl_type_size((kl_type)t) < kl_type_size((kl_type)best)))
      best = t;
  return best;
}

/* The choices of the parameter with this flag to go through: all, or
 * only the default. */
static int choices_of(const kl_workload *w, unsigned flag, int all,
                      const kl_param **param) {
  *param = NULL;
  for (int i = 0; i < w->param_count; i++)
    if ((w->params[i].flags & flag) && w->params[i].kind == KL_PARAM_CHOICE)
      *param = &w->params[i];
  if (!*param) return 1;
  int count = 0;
  while ((*param)->choices[count]) count++;
  return all ? count : 1;
}

static int listed(const char *list, const char *name) {
  const size_t len = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    const size_t item = end ? (size_t)(end - p) : strlen(p);
    /* W names W and the workloads of its folder, W-* (reduce-dist). */
    if (item <= len && strncmp(p, name, item) == 0 &&
        (item == len || name[item] == '-'))
      return 1;
    p = end ? end + 1 : NULL;
  }
  return 0;
}

/* Whether the -p text of a test problem sets parameter `name` itself
 * (histogram's all-same on bin 0): then it is not gone through. */
static int sets(const char *params, const char *name) {
  const size_t len = strlen(name);
  for (const char *p = params; p && *p;) {
    if (strncmp(p, name, len) == 0 && p[len] == '=') return 1;
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
  return 0;
}

/* Whether w iterates in a fixed mode (--fixed-iterations): a choice
 * parameter `mode` with the choice `fixed`, and `maxit`. */
static int has_fixed_mode(const kl_workload *w) {
  int mode = 0, maxit = 0;
  for (int i = 0; i < w->param_count; i++) {
    const kl_param *p = &w->params[i];
    if (strcmp(p->name, "maxit") == 0) maxit = 1;
    if (strcmp(p->name, "mode") == 0 && p->kind == KL_PARAM_CHOICE)
      for (int c = 0; p->choices && p->choices[c]; c++)
        if (strcmp(p->choices[c], "fixed") == 0) mode = 1;
  }
  return mode && maxit;
}

/* The -p text of a test problem run in fixed mode for about `iterations`
 * (--fixed-iterations): its own items but mode, maxit and tol, then
 * mode=fixed,maxit=K. */
static void fixed_params(const char *given, long iterations, char *out,
                         size_t size) {
  long own = 0;
  int own_fixed = 0;
  size_t used = 0;
  out[0] = '\0';
  for (const char *p = given; p && *p;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (strncmp(p, "mode=", 5) == 0)
      own_fixed = len == 10 && strncmp(p + 5, "fixed", 5) == 0;
    else if (strncmp(p, "maxit=", 6) == 0)
      own = strtol(p + 6, NULL, 10);
    else if (strncmp(p, "tol=", 4) != 0 && used + len + 2 < size) {
      used += (size_t)snprintf(out + used, size - used, "%s%.*s",
                               used ? "," : "", (int)len, p);
    }
    p = end ? end + 1 : NULL;
  }
  long k = iterations;
  if (own_fixed && own > 0)
    k = own <= iterations ? own : iterations + (own - iterations) % 2;
  snprintf(out + used, size - used, "%smode=fixed,maxit=%ld", used ? "," : "",
           k);
}

typedef struct tally {
  int ran, failed, too_large, not_applicable;
} tally;

static void run_case(const kl_workload *wl, const kl_rung *rung,
                     const kl_problem *pb, tally *t) {
  kl_report *rep = NULL;
  kl_status st = kl_run_rung(NULL, wl->name, rung->name, pb, 1, 0, &rep);
  const kl_result *res = kl_report_result(rep, 0);
  if (!res) {
    printf("%-9s %-23s no result: %s\n", wl->name, rung->name,
           kl_last_error());
    t->failed++;
    return;
  }
  const char *word = "ok";
  if (st == KL_TOO_LARGE) {
    t->too_large++;
    word = "SKIP (too large here)";
  } else if (st == KL_UNAVAILABLE) {
    t->not_applicable++;
    word = "SKIP (not applicable)";
  } else if (st != KL_OK) {
    t->failed++;
    word = "FAIL";
  } else if (res->check == KL_CHECK_MISSED) {
    word = "ok (known-wrong rung passed at this size)";
  } else if (res->check == KL_CHECK_CAUGHT) {
    word = "ok (known-wrong rung caught)";
  }
  if (st == KL_OK) t->ran++;
  const char *size =
      (st == KL_OK || st == KL_CHECK_FAILED) && res->shape[0] ? res->shape
                                                               : "-";
  printf("%-9s %-23s %-4s %-22s %-14s %s", wl->name, rung->name,
         kl_type_name(pb->type), pb->params ? pb->params : "-", size, word);
  if (st == KL_CHECK_FAILED)
    printf(": %lld bad of %lld; %s", (long long)res->verdict.bad_count,
           (long long)res->verdict.checked, res->verdict.detail);
  else if (st != KL_OK)
    printf(": %s", res->error[0] ? res->error : kl_last_error());
  printf("\n");
  fflush(stdout);
  kl_report_free(rep);
}

int main(int argc, char **argv) {
  int quick = 0, random_only = 0, pairs = 0, list = 0, big = 0, no_vendor = 0;
  int64_t min_n = 0, max_n = 0;
  long fixed_iterations = 0;
  long shard = 0, shards = 1;
  const char *only = NULL;
  for (; argc > 1 && argv[1][0] == '-' && argv[1][1] == '-'; argc--, argv++) {
    if (strcmp(argv[1], "--quick") == 0) quick = 1;
    else if (strcmp(argv[1], "--random-only") == 0) random_only = 1;
    else if (strcmp(argv[1], "--pairs") == 0) pairs = 1;
    else if (strcmp(argv[1], "--list") == 0) list = 1;
    else if (strcmp(argv[1], "--big") == 0) big = 1;
    else if (strcmp(argv[1], "--no-vendor") == 0) no_vendor = 1;
    else if ((strcmp(argv[1], "--max-n") == 0 ||
              strcmp(argv[1], "--min-n") == 0) && argc > 2) {
      int64_t *bound = argv[1][3] == 'a' ? &max_n : &min_n;
      if (kl_parse_size(argv[2], bound) != KL_OK) {
        fprintf(stderr, "bad %s %s: %s\n", argv[1], argv[2], kl_last_error());
        return 2;
      }
      argc--, argv++;
    }
    else if (strcmp(argv[1], "--fixed-iterations") == 0 && argc > 2) {
      char *end = NULL;
      fixed_iterations = strtol(argv[2], &end, 10);
      if (!end || *end || fixed_iterations < 1 || fixed_iterations > 1000000) {
        fprintf(stderr, "bad --fixed-iterations %s: a count from 1 to "
                "1000000\n", argv[2]);
        return 2;
      }
      argc--, argv++;
    }
    else if (strcmp(argv[1], "--shard") == 0 && argc > 2) {
      char *end = NULL;
      shard = strtol(argv[2], &end, 10);
      shards = end && *end == '/' ? strtol(end + 1, &end, 10) : 0;
      if (!end || *end || shards < 1 || shard < 0 || shard >= shards) {
        fprintf(stderr, "bad --shard %s: K/N with 0 <= K < N\n", argv[2]);
        return 2;
      }
      argc--, argv++;
    }
    else if (strcmp(argv[1], "--workloads") == 0 && argc > 2) {
      only = argv[2];
      argc--, argv++;
    } else break;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: test_rungs [--quick] [--random-only] [--pairs] "
            "[--big] [--workloads W,W...] [--no-vendor] [--min-n N] "
            "[--max-n N] [--fixed-iterations N] [--shard K/N] [--list] "
            "BACKEND [SIZE...]\n");
    return 2;
  }
  const kl_backend *b = kl_backend_find(argv[1]);
  char info[256] = "unknown backend";
  if (!b || (!list && !kl_backend_available(b, info, sizeof info))) {
    printf("SKIP: backend %s not available here: %s\n", argv[1], info);
    return 77;
  }
  /* Main sizes from the command line, as test problems of every workload. */
  kl_test_problem given[64];
  int given_count = 0;
  for (int s = 2; s < argc && given_count < 63; s++) {
    int64_t n = 0;
    if (kl_parse_size(argv[s], &n) != KL_OK) {
      fprintf(stderr, "bad size %s: %s\n", argv[s], kl_last_error());
      return 2;
    }
    given[given_count++] = (kl_test_problem){NULL, n};
  }
  given[given_count] = (kl_test_problem){NULL, 0};
  tally t = {0, 0, 0, 0};
  long cases = 0;
  for (size_t w = 0; w < kl_workload_count(); w++) {
    const kl_workload *wl = kl_workload_at(w);
    if (only && !listed(only, wl->name)) continue;
    const kl_test_problem *problems =
        given_count ? given : big ? wl->big_tests : wl->tests;
    for (const kl_test_problem *tp = problems; tp && (tp->params || tp->n);
         tp++) {
      if (max_n > 0 && tp->n > max_n) continue;
      if (tp->n < min_n) continue;
      char fixed[256];
      const char *own = tp->params;
      if (fixed_iterations && has_fixed_mode(wl)) {
        fixed_params(tp->params, fixed_iterations, fixed, sizeof fixed);
        own = fixed;
      }
      const kl_param *op, *inputs;
      int ops = choices_of(wl, KL_PARAM_OP, !quick, &op);
      int patterns =
          choices_of(wl, KL_PARAM_INPUTS, !quick && !random_only, &inputs);
      if (op && sets(own, op->name)) ops = 1, op = NULL;
      if (inputs && sets(own, inputs->name)) patterns = 1, inputs = NULL;
      for (size_t r = 0; r < wl->rung_count; r++) {
        const kl_rung *rung = &wl->rungs[r];
        if (rung->backend != b || (!rung->run && !rung->run_reps)) continue;
        if (no_vendor && (rung->flags & KL_RUNG_VENDOR)) continue;
        /* The rung's types, then the (type, operation) combinations. */
        int types[KL_TYPE_COUNT], type_count = 0;
        for (int type = 0; type < KL_TYPE_COUNT; type++) {
          if (!(wl->types & KL_TYPE_BIT(type))) continue;
          if (quick && type != smallest_type(wl)) continue;
          if (rung->types && !(rung->types & KL_TYPE_BIT(type))) continue;
          types[type_count++] = type;
        }
        const int problem = (int)(tp - problems);
        const int combos = pairs ? (type_count > ops ? type_count : ops)
                                 : type_count * ops;
        for (int c = 0; c < combos && type_count > 0; c++) {
          const int type = pairs ? types[c % type_count] : types[c / ops];
          const int o = pairs ? (c + problem) % ops : c % ops;
          for (int in = 0; in < patterns; in++) {
            char params[512];
            snprintf(params, sizeof params, "%s%s%s%s%s%s",
                     own ? own : "", own && op ? "," : "", op ? op->name : "",
                     op ? "=" : "", op ? op->choices[o] : "",
                     (own || op) && inputs ? "," : "");
            if (inputs)
              snprintf(params + strlen(params), sizeof params - strlen(params),
                       "%s=%s", inputs->name, inputs->choices[in]);
            /* A different seed per case: fresh inputs each time. */
            kl_problem pb = {.size = sizeof pb,
                             .n = tp->n,
                             .type = (kl_type)type,
                             .params = params[0] ? params : NULL,
                             .seed = 1000u * (uint64_t)problem +
                                     100u * (uint64_t)type +
                                     10u * (uint64_t)o + (uint64_t)in};
            if (cases++ % shards != shard) continue;
            if (list)
              printf("%-9s %-23s %-4s %-22s n=%lld\n", wl->name, rung->name,
                     kl_type_name(pb.type), pb.params ? pb.params : "-",
                     (long long)pb.n);
            else {
              char text[768];
              snprintf(text, sizeof text, "%s %s %s %s n=%lld", wl->name,
                       rung->name, kl_type_name(pb.type),
                       pb.params ? pb.params : "-", (long long)pb.n);
              launch_log_case(text);
              run_case(wl, rung, &pb, &t);
            }
          }
        }
      }
    }
  }
  if (list) {
    printf("%ld cases\n", (cases + shards - 1 - shard) / shards);
    return 0;
  }
  printf("skipped: %d too large here, %d not applicable\n", t.too_large,
         t.not_applicable);
  printf("%d passed, %d failed, %d skipped\n", t.ran, t.failed,
         t.too_large + t.not_applicable);
  if (t.failed) return 1;
  return t.ran ? 0 : 77;
}
