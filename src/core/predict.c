/* What the model predicts for one rung before it runs (kl_rung_predict):
 * the cost of one repetition at a size, and what its rate is compared
 * with, from the workload's cost model and ceiling policy. What `kladder
 * explain` shows beside each step of a ladder. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* A rung's scratch may size itself by its device; a prediction made
 * without one (the device may not be here) sizes it by this one. The cost
 * models read the problem, not the scratch. */
static const kl_device nominal = {.name = "nominal",
                                  .memory_bytes = (size_t)1 << 34,
                                  .compute_units = 64,
                                  .max_threads_per_unit = 1024,
                                  .lanes = 32};

static void ceiling_text(const kl_workload *w, const kl_rung *r, char *dst,
                         size_t size) {
  const kl_ceiling *c = &w->ceiling;
  const kl_rung *cr = NULL;
  for (size_t i = 0; c->of && i < c->of->rung_count; i++)
    if ((c->of->rungs[i].flags & KL_RUNG_CEILING) &&
        c->of->rungs[i].backend == r->backend) {
      cr = &c->of->rungs[i];
      break;
    }
  switch (c->kind) {
  case KL_CEILING_NONE:
    snprintf(dst, size, "none: the workload declares no ceiling");
    break;
  case KL_CEILING_VENDOR:
    snprintf(dst, size, "the workload's vendor rung on the same problem");
    break;
  case KL_CEILING_RUNG:
    if (cr)
      snprintf(dst, size, "%s %s (%s) on the same device", c->of->name,
               cr->name, cr->summary);
    else
      snprintf(dst, size, "%s's ceiling rung, which %s lacks", c->of->name,
               r->backend->name);
    break;
  case KL_CEILING_BOUND:
    snprintf(dst, size, "a bound from the rate of %s %s on the same device",
             c->of->name, cr ? cr->name : "(none on this backend)");
    break;
  }
}

static kl_status predict(size_t workload, int rung, int64_t n,
                         kl_prediction *out) {
  const kl_workload *w = kl_workload_at(workload);
  if (!w)
    return kl__usage(KL_USAGE, "kl_rung_predict: no workload %zu (there are "
                     "%zu)", workload, kl_workload_count());
  if (rung < 0 || (size_t)rung >= w->rung_count)
    return kl__usage(KL_USAGE, "kl_rung_predict: %s has no rung %d", w->name,
                     rung);
  if (n < 0)
    return kl__usage(KL_USAGE, "kl_rung_predict: size %lld below 0",
                     (long long)n);
  const kl_rung *r = &w->rungs[rung];
  kl_prediction full;
  memset(&full, 0, sizeof full);
  full.size = sizeof full;
  kl_problem pb;
  kl_problem_init(&pb);
  pb.n = n;
  pb.seed = 20261121;
  kl__instance in;
  kl_status st = kl__instance_from_problem(w, &pb, &in);
  if (st != KL_OK) return st;
  in.quick = 0;
  kl_plan plan;
  st = kl__plan_make(w, r, &in, r->backend->host_memory, &nominal, &plan,
                     NULL);
  if (st != KL_OK) return st;
  double counts[KL_MAX_COUNTS] = {0};
  kl_cost c = {0, 0, 0};
  w->cost(&plan, r, counts, &c);
  full.cost.bytes = c.bytes;
  full.cost.flops = c.flops;
  full.cost.items = c.items;
  full.n = plan.n;
  full.type = plan.type;
  full.unit = w->unit;
  ceiling_text(w, r, full.ceiling, sizeof full.ceiling);
  return kl__copy_sized(out, &full, sizeof full, "kl_rung_predict");
}

kl_status kl_rung_predict(size_t workload, int rung, int64_t n,
                          kl_prediction *out) {
  return kl__done(predict(workload, rung, n, out));
}
