/* The ceiling policy, all of it: which ceiling a rung is compared with,
 * at what size it is measured and where, how a result relates to it, and
 * why a result has no percent.
 *
 *   which   the workload's kl_ceiling: RUNG and BOUND name the ceiling
 *           rung (KL_RUNG_CEILING) of workload `of` on the rung's device;
 *           VENDOR the workload's own vendor rung on the same problem
 *           (a host library serves every host backend);
 *   size    the ceiling runs over as many bytes as the rung's problem
 *           (its buffers before the rung's scratch), so that a rung
 *           working in a cache is compared with a copy working there too,
 *           and one past its default with a copy as long (the fixed costs
 *           of a launch and its tail weigh alike); where that does not
 *           fit the memory a default may use, at its own default fitted to
 *           memory; own_size: at its default. One ceiling job per device
 *           and size, planned once;
 *           a selected job that runs that rung on that problem is it;
 *   where   a RUNG or BOUND ceiling is timed right after each rung it
 *           serves, on the same context (measure.c), and otherwise its
 *           own job's figure stands;
 *   related percent = rate over ceiling (BOUND: bound() of the measured
 *           figure); a note where there is none, or one above 105%;
 *   impossible  a rate above IMPOSSIBLE_FACTOR times a hardware ceiling
 *           (RUNG or BOUND, measured in the same run at the rung's size;
 *           RUNG: the fastest it was measured there)
 *           is no result: its timer did not cover its work (a launch timed
 *           by the host clock without a synchronization, seed 000 §3.1.6).
 *           Its check fails, saying so (a known-wrong rung's: caught). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"


/* The ceiling-flagged rung of workload `of` on backend b, or NULL. */
static const kl_rung *ceiling_rung(const kl_workload *of, const kl_backend *b) {
  for (size_t i = 0; i < of->rung_count; i++) {
    const kl_rung *r = &of->rungs[i];
    if ((r->flags & KL_RUNG_CEILING) && r->backend == b && kl__rung_built(r))
      return r;
  }
  return NULL;
}

static int measured_beside(const kl_workload *w) {
  return w->ceiling.of && (w->ceiling.kind == KL_CEILING_RUNG ||
                           w->ceiling.kind == KL_CEILING_BOUND);
}

static int same_instance(const kl__job *a, const kl__job *b) {
  return a->w == b->w && memcmp(&a->in, &b->in, sizeof a->in) == 0;
}

int kl__plans_alike(const kl_workload *w, const kl_plan *a, const kl_plan *b) {
  return a->n == b->n && a->type == b->type &&
         memcmp(a->value, b->value,
                sizeof a->value[0] * (size_t)w->param_count) == 0;
}

int kl__same_problem(const kl_workload *w, const kl__instance *a,
                     const kl__instance *b) {
  const int main = kl__param_with(w, KL_PARAM_MAIN_SIZE);
  const uint64_t other = main >= 0 ? ~(1ull << main) : ~0ull;
  if (a->n != b->n || a->type != b->type || a->seed != b->seed ||
      (a->given & other) != (b->given & other))
    return 0;
  for (int i = 0; i < w->param_count; i++)
    if (i != main && (a->given >> i & 1) && a->value[i] != b->value[i])
      return 0;
  return 1;
}

/* ---- size ------------------------------------------------------------------
 * The smallest size of the ceiling's workload whose problem holds
 * `bytes`. Below its fitted default (c->in.n, planned already with
 * `top_bytes`): a copy's plan grows in proportion to n, so the proportion
 * predicts the size and one plan confirms it; a plan that does not hold as
 * predicted is found by bisection. Above it: the proportion's size where
 * its plan holds the bytes and fits the memory a default may use, else
 * the default. Each plan is the job's own (the ceiling rung's), so the
 * one confirmed is the one the job runs. */
static int holds(kl__planner *pl, kl__job *c, int host, int64_t n,
                 double bytes) {
  double held = 0;
  c->in.n = n;
  return kl__plan_get(pl, c->w, c->r, &c->in, host,
                      kl__device_at(c->r->backend, c->device), &c->plan,
                      &held) ==
             KL_OK &&
         held >= bytes;
}

static kl_status size_for_bytes(kl__planner *pl, kl__job *c, int host,
                                double top_bytes, double bytes) {
  const int64_t top = c->in.n;
  if (top_bytes <= 0 || top_bytes == bytes) return KL_OK;
  double want = (double)top * (bytes / top_bytes);
  if (top_bytes < bytes) {
    /* Past the default: as long a copy, where memory takes it. The
     * proportion leaves out the plan's fixed bytes (a result), so the
     * size steps up, by doubling steps, until its plan holds them. */
    const kl__placed placed = {c->r, c->device};
    int64_t grown = want < 0x1p61 ? (int64_t)ceil(want) : 0;
    int held = grown > top && holds(pl, c, host, grown, bytes);
    for (int64_t step = 1; grown > top && !held && step < grown; step *= 2) {
      grown += step;
      held = holds(pl, c, host, grown, bytes);
    }
    /* The plan that held is the job's; the budget's check plans apart. */
    if (held && kl__fits_as_default(pl, c->w, &c->in, grown, &placed))
      return KL_OK;
    (void)holds(pl, c, host, top, 0); /* the default's plan, kept */
    return KL_OK;
  }
  int64_t guess = (int64_t)want;
  if ((double)guess * top_bytes < (double)top * bytes) guess++;
  if (guess < 1) guess = 1;
  if (guess > top) guess = top;
  /* Where the guess holds, it is the size (at most a rounding above the
   * least); else the least above it, by bisection. */
  int64_t lo = guess, hi = top; /* lo does not hold; hi does */
  if (holds(pl, c, host, guess, bytes)) return KL_OK;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (holds(pl, c, host, mid, bytes)) hi = mid;
    else lo = mid;
  }
  (void)holds(pl, c, host, hi, bytes); /* its plan, kept by the planner */
  return KL_OK;
}

/* The ceiling job of a rung job: found among those made, or made and
 * planned. Its index among the ceiling jobs, or -1 for none. */
static kl_status ceiling_for(kl__planner *pl, const kl_options *o,
                             const kl__job *s, kl__jobs *ceilings,
                             kl_report *rep, ptrdiff_t *index) {
  *index = -1;
  const kl_workload *of = s->w->ceiling.of;
  const kl_rung *cr = ceiling_rung(of, s->r->backend);
  if (!cr) return KL_OK;
  const int host = kl_backend_host_memory(cr->backend);
  kl_options defaults;
  kl_options_init(&defaults);
  defaults.seed = o->seed;
  defaults.full = o->full;
  kl__job c;
  memset(&c, 0, sizeof c);
  c.w = of;
  c.r = cr;
  c.device = s->device;
  c.is_ceiling = 1;
  c.ceiling_only = 1;
  c.ceiling = -1;
  c.quick_size = s->quick_size;
  const kl__placed placed = {cr, s->device};
  kl_status st = kl__instance_from_options(&defaults, of, 0, NULL, &c.in, 1,
                                           rep->notes, sizeof rep->notes);
  if (st == KL_OK)
    st = kl__fit_default_size(pl, of, &c.in, &placed, 1, 0, rep->notes,
                              sizeof rep->notes);
  double top_bytes = 0;
  if (st == KL_OK) {
    c.in.n = kl__instance_size(of, &c.in, host);
    c.in.n_given = 1;
    st = kl__plan_get(pl, of, cr, &c.in, host,
                      kl__device_at(cr->backend, c.device), &c.plan,
                      &top_bytes);
  }
  if (st == KL_OK && !s->w->ceiling.own_size)
    st = size_for_bytes(pl, &c, host, top_bytes, s->problem_bytes);
  if (st != KL_OK) return st;
  for (size_t j = 0; j < ceilings->count; j++) {
    const kl__job *k = &ceilings->items[j];
    if (k->r == cr && k->device == c.device &&
        kl__same_problem(of, &k->in, &c.in)) {
      *index = (ptrdiff_t)j;
      return KL_OK;
    }
  }
  st = kl__plan_get(pl, of, cr, &c.in, host,
                    kl__device_at(cr->backend, c.device), &c.plan,
                    &c.problem_bytes);
  if (st != KL_OK) return st;
  c.in.n_given = 1;
  *index = (ptrdiff_t)ceilings->count;
  return kl__jobs_push(ceilings, &c);
}

kl_status kl__ceiling_jobs(kl__planner *pl, const kl_options *o,
                           kl__jobs *selected, kl__jobs *jobs,
                           kl_report *rep) {
  kl__jobs ceilings = {0};
  kl_status st = KL_OK;
  for (size_t i = 0; i < selected->count && st == KL_OK && !o->skip_ceiling;
       i++) {
    kl__job *s = &selected->items[i];
    if (!measured_beside(s->w)) continue;
    /* The rungs of one problem on one device share their ceiling. */
    size_t k = 0;
    while (k < i && !(selected->items[k].r->backend == s->r->backend &&
                      selected->items[k].device == s->device &&
                      same_instance(&selected->items[k], s)))
      k++;
    if (k < i) s->ceiling = selected->items[k].ceiling;
    else st = ceiling_for(pl, o, s, &ceilings, rep, &s->ceiling);
  }
  /* A ceiling job that the selection runs anyway is that job. The list:
   * the other ceiling jobs, then the selection; index[c] is ceiling c's
   * place in it. */
  ptrdiff_t *index = malloc((ceilings.count + 1) * sizeof *index);
  if (!index && st == KL_OK) st = KL_FAIL(KL_NO_MEMORY, "out of host memory");
  size_t own = 0; /* ceiling jobs that stay jobs of their own */
  for (size_t c = 0; c < ceilings.count && st == KL_OK; c++) {
    const kl__job *cj = &ceilings.items[c];
    index[c] = -1;
    for (size_t j = 0; j < selected->count && index[c] < 0; j++) {
      kl__job *t = &selected->items[j];
      if (t->r == cj->r && t->device == cj->device &&
          kl__same_problem(t->w, &t->in, &cj->in)) {
        t->is_ceiling = 1;
        index[c] = (ptrdiff_t)j;
      }
    }
    own += index[c] < 0;
  }
  for (size_t c = 0; c < ceilings.count && st == KL_OK; c++) {
    if (index[c] >= 0) {
      index[c] += (ptrdiff_t)own;
    } else {
      index[c] = (ptrdiff_t)jobs->count;
      st = kl__jobs_push(jobs, &ceilings.items[c]);
    }
  }
  for (size_t j = 0; j < selected->count && st == KL_OK; j++) {
    kl__job jb = selected->items[j];
    jb.ceiling = jb.is_ceiling || jb.ceiling < 0 ? -1 : index[jb.ceiling];
    st = kl__jobs_push(jobs, &jb);
  }
  free(index);
  free(ceilings.items);
  return st;
}

/* ---- relating results --------------------------------------------------------- */

/* A result's ceiling from the rate measured for its workload's ceiling
 * (the ceiling rung's, or the vendor rung's): that rate, or for a BOUND
 * ceiling what the workload's bound() makes of it; 0 when none. */
static double ceiling_rate(const kl_workload *w, const kl_result *r,
                           double measured) {
  if (w->ceiling.kind != KL_CEILING_BOUND) return measured;
  return measured > 0 && w->ceiling.bound ? w->ceiling.bound(r, measured) : 0;
}

/* Whether the build has a vendor rung of w whose figure serves backend b
 * (one on b, or a host library for a host backend). */
static int has_vendor_for(const kl_workload *w, const kl_backend *b) {
  for (size_t i = 0; i < w->rung_count; i++) {
    const kl_rung *r = &w->rungs[i];
    if ((r->flags & KL_RUNG_VENDOR) && kl__rung_built(r) &&
        (r->backend == b ||
         (kl_backend_host_memory(r->backend) && kl_backend_host_memory(b))))
      return 1;
  }
  return 0;
}

/* The percent above which a rate needs a word: timing noise alone stays
 * below it. */
#define ABOVE_CEILING_PERCENT 105.0

/* The factor over a hardware ceiling measured in the same run beyond which
 * a rate is impossible. A copy ceiling is not a bound on every rung: one
 * that mostly reads passes it (no bus turnaround), and on a CPU the copy
 * pays write-allocate for 3 bytes of every 2 the cost model counts, so a
 * read-only rung may reach 1.5 times it. And a ceiling measured on a
 * shared or oversubscribed host can come out several times low (PoCL's
 * copy at a size whose work-items its runtime groups one by one: 4 times
 * slower than at a size nearby, measured on the 2-core host). A timer
 * that misses the work is off by far more: 50 to 10000 times on the
 * host-clock rungs of map. The work must also take at least 20 us at the
 * ceiling's rate, so that launch overheads do not set both rates, and the
 * rung's median be of 3 timed runs or more (the ceiling beside it is
 * timed as often): the median of one or two is one preemption away from
 * a tenfold error. */
#define IMPOSSIBLE_FACTOR 10.0

static const char *const impossible_note =
    "impossible: more than 10 times the ceiling measured in the same run, "
    "so its timer did not cover its work (a launch timed without waiting "
    "for it); not a result";

/* Whether res's rate is beyond what the ceiling measured beside it
 * allows. */
static int impossible(const kl__job *jb, const kl_result *res) {
  const kl_ceiling *c = &jb->w->ceiling;
  return !jb->is_ceiling && res->ceiling > 0 && !c->own_size &&
         (c->kind == KL_CEILING_RUNG || c->kind == KL_CEILING_BOUND) &&
         res->reps >= 3 && res->merit > IMPOSSIBLE_FACTOR * res->ceiling &&
         res->t_median * res->merit / res->ceiling >= 20e-6;
}

/* Why a result has no percent of ceiling, or one above
 * ABOVE_CEILING_PERCENT; NULL when it needs no word. */
static const char *ceiling_note(const kl_report *rep, const kl__job *jb,
                                const kl_result *res) {
  const kl_ceiling *c = &jb->w->ceiling;
  if (res->ceiling > 0) {
    if (res->percent <= ABOVE_CEILING_PERCENT) return NULL;
    if (res->t_median < 20e-6)
      return "its runs take under 20 us, where launch and timer overheads "
             "rather than bandwidth set both rates";
    if (c->kind == KL_CEILING_VENDOR)
      return "faster than its vendor rung on the same problem: the vendor "
             "library is the reference to beat, not a hardware bound";
    if (kl_backend_host_memory(jb->r->backend) && c->kind == KL_CEILING_RUNG)
      return "a CPU reads every cache line before it writes it "
             "(write-allocate), which the cost models do not count: the "
             "copy ceiling moves 3 bytes for every 2 it counts, so a rung "
             "that mostly reads, or writes with streaming stores, can pass "
             "it";
    return "above the copy measured beside it: a rung that mostly reads "
           "can pass a copy, which pays for turning the memory bus between "
           "reads and writes; or a cache keeps some of the bytes its cost "
           "model counts";
  }
  if (rep->options.skip_ceiling && c->kind != KL_CEILING_VENDOR)
    return "ceilings not measured (--no-ceiling)";
  switch (c->kind) {
  case KL_CEILING_NONE:
    return "the workload declares no ceiling";
  case KL_CEILING_VENDOR:
    return has_vendor_for(jb->w, jb->r->backend)
               ? "its vendor rung did not pass on this problem in this run "
                 "(not selected, or it failed)"
               : "no vendor rung for this backend in this build";
  case KL_CEILING_RUNG:
  case KL_CEILING_BOUND:
    return ceiling_rung(c->of, jb->r->backend)
               ? "its ceiling rung did not pass in this run"
               : "no ceiling rung for this backend";
  }
  return NULL;
}

/* The fastest a RUNG ceiling was measured in the run for result i: its
 * ceiling job's own figure and every figure timed beside a rung it
 * served. A busy host only slows a copy down, so the fastest of them is
 * the one nearest the truth; BOUND and VENDOR ceilings: the result's own. */
static double fastest_ceiling(const kl__jobs *jobs, const kl_report *rep,
                              size_t i) {
  const kl__job *ji = &jobs->items[i];
  double best = rep->results[i].pub.ceiling;
  if (ji->w->ceiling.kind != KL_CEILING_RUNG || ji->ceiling < 0) return best;
  const kl_result *own = &rep->results[ji->ceiling].pub;
  if (own->status == KL_OK && own->check == KL_CHECK_PASS && own->merit > best)
    best = own->merit;
  for (size_t j = 0; j < rep->count; j++) {
    const kl_result *other = &rep->results[j].pub;
    if (jobs->items[j].ceiling == ji->ceiling &&
        jobs->items[j].w->ceiling.kind == KL_CEILING_RUNG &&
        other->status == KL_OK && other->ceiling > best)
      best = other->ceiling;
  }
  return best;
}

/* Each result whose rate is impossible (see IMPOSSIBLE_FACTOR) fails its
 * check, saying so; a known-wrong rung's is its expected failure. */
static void catch_impossible(const kl__jobs *jobs, kl_report *rep) {
  for (size_t i = 0; i < rep->count; i++) {
    kl_result *res = &rep->results[i].pub;
    const kl__job *ji = &jobs->items[i];
    if (res->status != KL_OK || res->check == KL_CHECK_FAIL ||
        !impossible(ji, res))
      continue;
    const double best = fastest_ceiling(jobs, rep, i);
    if (res->merit <= IMPOSSIBLE_FACTOR * best) continue;
    const int wrong = (ji->r->flags & KL_RUNG_KNOWN_WRONG) != 0;
    res->check = wrong ? KL_CHECK_CAUGHT : KL_CHECK_FAIL;
    res->verdict.passed = 0;
    res->ceiling_note = impossible_note;
    snprintf(res->verdict.detail, sizeof res->verdict.detail,
             "rate %.4g %s is %.1fx the fastest ceiling %.4g %s measured in "
             "the same run: the timer did not cover the work",
             res->merit, res->unit, res->merit / best, best, res->unit);
  }
}

void kl__ceiling_relate(const kl__jobs *jobs, kl_report *rep) {
  for (size_t i = 0; i < rep->count; i++) {
    kl_result *res = &rep->results[i].pub;
    const kl__job *ji = &jobs->items[i];
    const kl_ceiling *c = &ji->w->ceiling;
    if (res->status != KL_OK) continue;
    /* A ceiling timed beside the rung is already in; else the ceiling
     * job's own figure, or the vendor rung's on the same problem. */
    double measured = res->ceiling;
    for (size_t j = 0; j < rep->count && measured == 0; j++) {
      const kl_result *other = &rep->results[j].pub;
      const kl__job *jj = &jobs->items[j];
      if (other->status != KL_OK || other->check != KL_CHECK_PASS) continue;
      if (ji->ceiling == (ptrdiff_t)j || (ji->is_ceiling && j == i))
        measured = other->merit;
      /* A host vendor library (threaded) serves every host backend. */
      const int same_memory =
          (jj->r->backend == ji->r->backend && jj->device == ji->device) ||
          (kl_backend_host_memory(jj->r->backend) &&
           kl_backend_host_memory(ji->r->backend));
      if (c->kind == KL_CEILING_VENDOR && same_memory &&
          same_instance(jj, ji) && (jj->r->flags & KL_RUNG_VENDOR))
        measured = other->merit;
    }
    res->ceiling = ceiling_rate(ji->w, res, measured);
    if (res->ceiling > 0) res->percent = 100.0 * res->merit / res->ceiling;
    res->ceiling_note = ceiling_note(rep, ji, res);
    for (size_t j = 0; j < rep->count; j++) {
      const kl_result *base = &rep->results[j].pub;
      if (same_instance(&jobs->items[j], ji) && base->status == KL_OK) {
        res->speedup = base->t_median / res->t_median;
        break;
      }
    }
  }
  catch_impossible(jobs, rep);
}
