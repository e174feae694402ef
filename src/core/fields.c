/* A result: how the core builds one, and the one description of its
 * fields that the table, the CSV and the JSON writers all read
 * (kl__fields: name, kind, where it goes, how to get its value). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"

/* ---- building a result ---------------------------------------------------- */

static const char *role_text(const kl_workload *w, const kl_plan *p,
                             unsigned flag) {
  int i = kl__param_with(w, flag);
  const kl_param *q = i >= 0 ? &w->params[i] : NULL;
  if (!q || q->kind != KL_PARAM_CHOICE) return "";
  size_t value = (size_t)p->value[i], count = 0;
  while (q->choices[count]) count++;
  return value < count ? q->choices[value] : "";
}

void kl__result_describe(kl__result *res, const kl_plan *p) {
  const kl_workload *w = res->w;
  kl_result *pub = &res->pub;
  res->plan = *p;
  pub->type = p->type;
  pub->n = p->n;
  kl__shape_text(w, p, pub->shape, sizeof pub->shape);
  pub->extent_count = 0;
  for (int i = 0; i < w->param_count && pub->extent_count < KL_MAX_DIMS; i++)
    if (w->params[i].flags & KL_PARAM_EXTENT)
      pub->extents[pub->extent_count++] = (int64_t)p->value[i];
  snprintf(pub->op, sizeof pub->op, "%s", role_text(w, p, KL_PARAM_OP));
  /* An input file's name stands in place of the pattern. */
  snprintf(pub->inputs, sizeof pub->inputs, "%s",
           p->input_file ? kl__input_name(p->input_file)
                         : role_text(w, p, KL_PARAM_INPUTS));
  /* And each named file the run reads: "A.mtx;rhs=b.mtx". */
  const kl_named_file *f = w->input ? w->input->files : NULL;
  for (int k = 0; f && k < KL_MAX_FILES && f[k].name; k++)
    if (f[k].role == KL_IN && p->files[k])
      kl__append(pub->inputs, sizeof pub->inputs, ";%s=%s", f[k].name,
                 kl__input_name(p->files[k]));
  pub->params[0] = '\0';
  for (int i = 0; i < w->param_count; i++) {
    const kl_param *q = &w->params[i];
    if (q->flags & KL_PARAM_MAIN_SIZE) continue;
    /* A tuning is the rung's, shown only where the rung reads it. */
    if ((q->flags & KL_PARAM_TUNING) && !(res->r->tunings & KL_PARAM_BIT(i)))
      continue;
    char value[64];
    if (p->input_file && (q->flags & KL_PARAM_INPUTS))
      snprintf(value, sizeof value, "%s", kl__input_name(p->input_file));
    else
      kl_param_text(q, p->value[i], value, sizeof value);
    kl__append(pub->params, sizeof pub->params, "%s%s=%s",
               pub->params[0] ? ";" : "", q->name, value);
  }
}

void kl__result_init(kl__result *res, const kl_workload *w, const kl_rung *r,
                     int device, const kl_plan *p) {
  memset(res, 0, sizeof *res);
  res->w = w;
  res->r = r;
  kl_result *pub = &res->pub;
  pub->size = sizeof *pub;
  pub->workload = w->name;
  pub->rung = r->name;
  pub->backend = r->backend->name;
  pub->summary = r->summary;
  pub->device = device;
  pub->flags = r->flags;
  pub->unit = w->unit;
  pub->verdict.first_bad = -1;
  pub->check = KL_CHECK_FAIL;
  pub->ranks = 1;
  pub->setup_build_seconds = -1;
  while (r->phases && pub->phase_count < KL_MAX_PHASES &&
         r->phases[pub->phase_count]) {
    pub->phase_names[pub->phase_count] = r->phases[pub->phase_count];
    pub->phase_count++;
  }
  while (w->counts && pub->count_count < KL_MAX_COUNTS &&
         w->counts[pub->count_count]) {
    pub->count_names[pub->count_count] = w->counts[pub->count_count];
    pub->count_count++;
  }
  if (p) kl__result_describe(res, p);
}

kl_status kl__result_status(kl__result *res, kl_status st) {
  res->pub.status = st;
  if (st != KL_OK)
    snprintf(res->pub.error, sizeof res->pub.error, "%s", kl_last_error());
  return st;
}

void kl__result_free(kl__result *res) {
  free(res->times);
  free(res->trace);
  free(res->rank_runs);
  res->times = NULL;
  res->trace = NULL;
  res->rank_runs = NULL;
  res->pub.rank_runs = NULL;
  res->pub.rank_run_count = 0;
  res->pub.times = NULL;
  res->pub.trace = NULL;
  res->pub.trace_count = 0;
}

const char *kl__check_text(const kl_result *r) {
  if (r->status == KL_UNAVAILABLE) return "ASIDE";
  if (r->status != KL_OK) return "ERROR";
  switch (r->check) {
  case KL_CHECK_PASS: return "PASS";
  case KL_CHECK_FAIL: return "FAIL";
  case KL_CHECK_CAUGHT: return "WRONG(expected)";
  case KL_CHECK_MISSED: return "PASS(known-wrong)";
  case KL_CHECK_UNVERIFIABLE: return "UNVERIFIABLE";
  }
  return "?";
}

void kl__flags_text(unsigned flags, char *dst, size_t size) {
  dst[0] = '\0';
  if (flags & KL_RUNG_CEILING) kl__append(dst, size, "ceiling");
  if (flags & KL_RUNG_VENDOR)
    kl__append(dst, size, "%svendor", dst[0] ? "," : "");
  if (flags & KL_RUNG_KNOWN_WRONG)
    kl__append(dst, size, "%sknown-wrong", dst[0] ? "," : "");
}

/* ---- the fields ------------------------------------------------------------
 * Each getter fills a kl__value: text, a number, or a list; `present` 0
 * where nothing was measured (CSV empty, JSON null, table "-"). */

/* A getter reads the report, the result or both; the other is unused. */
#define GET(name)                                                             \
  static void name(const kl_report *rep KL__UNUSED,                           \
                   const kl__result *res KL__UNUSED, kl__value *v)

static void text(kl__value *v, const char *s) {
  v->present = s != NULL;
  v->text = s;
}
static void number(kl__value *v, int present, double x) {
  v->present = present && isfinite(x);
  v->number = x;
}

/* What a result has measured: its timings and cost once it ran, its
 * check once it was checked. */
static int timed(const kl_result *r) { return r->status == KL_OK; }
static int checked(const kl_result *r) { return r->verdict.checked > 0; }

GET(get_workload) { text(v, res->pub.workload); }
GET(get_rung) { text(v, res->pub.rung); }
GET(get_backend) { text(v, res->pub.backend); }
GET(get_device) { number(v, 1, res->pub.device); }
GET(get_device_name) { text(v, res->pub.device_name); }
GET(get_flags) {
  kl__flags_text(res->pub.flags, v->buffer, sizeof v->buffer);
  text(v, v->buffer);
}
GET(get_op) { text(v, res->pub.op); }
GET(get_inputs) { text(v, res->pub.inputs); }
GET(get_type) { text(v, kl_type_name(res->pub.type)); }
GET(get_n) { number(v, 1, (double)res->pub.n); }
GET(get_shape) { text(v, res->pub.shape); }
GET(get_median) { number(v, timed(&res->pub), res->pub.t_median); }
GET(get_min) { number(v, timed(&res->pub), res->pub.t_min); }
GET(get_max) { number(v, timed(&res->pub), res->pub.t_max); }
GET(get_stddev) {
  number(v, timed(&res->pub) && res->pub.reps > 1, res->pub.t_stddev);
}
/* The 95% interval of the median, where the runs give one (kl_stop). */
GET(get_median_low) {
  number(v, timed(&res->pub) && res->pub.t_low > 0, res->pub.t_low);
}
GET(get_median_high) {
  number(v, timed(&res->pub) && res->pub.t_high > 0, res->pub.t_high);
}
GET(get_median_spread) {
  const double s = kl__median_spread(&res->pub);
  number(v, timed(&res->pub) && s >= 0, s);
}
GET(get_stop) {
  text(v, timed(&res->pub) ? kl_stop_name(res->pub.stop) : NULL);
}
GET(get_times) {
  v->present = timed(&res->pub) && res->pub.times;
  v->numbers = res->pub.times;
  v->count = res->pub.reps;
}
GET(get_bytes) { number(v, timed(&res->pub), res->pub.cost.bytes); }
GET(get_flops) { number(v, timed(&res->pub), res->pub.cost.flops); }
GET(get_items) { number(v, timed(&res->pub), res->pub.cost.items); }
GET(get_unit) { text(v, res->pub.unit); }
GET(get_rate) { number(v, timed(&res->pub), res->pub.merit); }
GET(get_ceiling) { number(v, res->pub.ceiling > 0, res->pub.ceiling); }
GET(get_percent) { number(v, res->pub.ceiling > 0, res->pub.percent); }
GET(get_ceiling_note) { text(v, res->pub.ceiling_note); }
GET(get_speedup) { number(v, res->pub.speedup > 0, res->pub.speedup); }
GET(get_check) { text(v, kl__check_text(&res->pub)); }
GET(get_abs_error) {
  number(v, checked(&res->pub), res->pub.verdict.abs_error);
}
GET(get_over_tolerance) {
  number(v, checked(&res->pub), res->pub.verdict.max_error);
}
GET(get_bad) {
  number(v, checked(&res->pub), (double)res->pub.verdict.bad_count);
}
GET(get_status) { text(v, kl_status_name(res->pub.status)); }
GET(get_error) { text(v, res->pub.error); }
GET(get_cpu) { text(v, rep->machine.cpu); }
GET(get_cpu_threads) { number(v, 1, rep->machine.cpu_threads); }
GET(get_omp_threads) { number(v, 1, rep->machine.omp_threads); }
GET(get_gpu) {
  text(v, rep->machine.gpu[0] || !v->json ? rep->machine.gpu : NULL);
}
GET(get_driver) {
  text(v, rep->machine.driver[0] || !v->json ? rep->machine.driver : NULL);
}
GET(get_host) { text(v, rep->machine.host); }
GET(get_cpu_governor) {
  text(v, rep->machine.cpu_governor[0] || !v->json ? rep->machine.cpu_governor
                                                   : NULL);
}
GET(get_cpu_mhz) { number(v, rep->machine.cpu_mhz > 0, rep->machine.cpu_mhz); }
/* The first watched GPU board's disclosure (run.c). */
GET(get_gpu_power_limit) {
  number(v, rep->machine.gpu_power_limit_w > 0,
         rep->machine.gpu_power_limit_w);
}
GET(get_gpu_app_sm) {
  number(v, rep->machine.gpu_app_sm_mhz > 0, rep->machine.gpu_app_sm_mhz);
}
GET(get_gpu_app_mem) {
  number(v, rep->machine.gpu_app_mem_mhz > 0, rep->machine.gpu_app_mem_mhz);
}
GET(get_gpu_max_sm) {
  number(v, rep->machine.gpu_max_sm_mhz > 0, rep->machine.gpu_max_sm_mhz);
}
GET(get_gpu_ecc) {
  v->is_bool = 1;
  number(v, rep->machine.gpu_ecc >= 0, rep->machine.gpu_ecc);
}
GET(get_gpu_persistence) {
  v->is_bool = 1;
  number(v, rep->machine.gpu_persistence >= 0, rep->machine.gpu_persistence);
}
/* A result's board clocks, where they were watched. */
GET(get_launch_floor) {
  number(v, res->pub.status == KL_OK && res->launch_floor > 0,
         res->launch_floor);
}
/* Where a rung's time went, where it was measured. */
GET(get_setup_seconds) {
  number(v, res->setup_seconds > 0, res->setup_seconds);
}
GET(get_timing_seconds) {
  number(v, res->timing_seconds > 0, res->timing_seconds);
}
GET(get_sm_mhz) {
  number(v, res->pub.status == KL_OK && res->sm_mhz > 0, res->sm_mhz);
}
GET(get_mem_mhz) {
  number(v, res->pub.status == KL_OK && res->mem_mhz > 0, res->mem_mhz);
}
GET(get_clock_reasons) {
  kl__clock_reasons_text(res->clock_reasons, v->buffer, sizeof v->buffer);
  text(v, res->pub.status == KL_OK && res->sm_mhz > 0 ? v->buffer : NULL);
}
GET(get_slowed_batches) {
  number(v, res->pub.status == KL_OK && res->sm_mhz > 0,
         res->slowed_batches);
}
GET(get_throttled) {
  number(v, res->pub.status == KL_OK && res->sm_mhz > 0, res->throttled);
}
GET(get_seed) { number(v, 1, (double)rep->options.seed); }
/* By noise: no count, the precision instead. */
GET(get_reps) { number(v, rep->options.reps > 0, rep->options.reps); }
GET(get_cache_option) {
  text(v, rep->options.cache == KL_CACHE_COLD ? "cold" : "warm");
}
GET(get_cold) {
  number(v, res->pub.status == KL_OK, res->pub.cache == KL_CACHE_COLD);
}
GET(get_precision) {
  number(v, rep->options.reps == 0, rep->options.precision);
}
GET(get_warmup) { number(v, 1, rep->options.warmup); }
GET(get_max_time) {
  number(v, rep->options.max_seconds > 0, rep->options.max_seconds);
}
GET(get_ceilings) {
  v->is_bool = 1;
  number(v, 1, !rep->options.skip_ceiling);
}
GET(get_host_data) {
  v->is_bool = 1;
  number(v, 1, rep->options.host_data != 0);
}
GET(get_timed_runs) { number(v, 1, res->pub.reps); }
GET(get_params) { text(v, res->pub.params); }
GET(get_phases) {
  v->present = 1;
  v->names = res->pub.phase_names;
  v->numbers = res->pub.phase_median;
  v->count = res->pub.phase_count;
  v->numbers_present = timed(&res->pub);
}
GET(get_counts) {
  v->present = 1;
  v->names = res->pub.count_names;
  v->numbers = res->pub.counts;
  v->count = res->pub.count_count;
  v->numbers_present = timed(&res->pub);
}
GET(get_summary) { text(v, res->pub.summary); }
GET(get_workload_summary) { text(v, res->w->summary); }
/* The rung the library's entry point on a context of this rung's device
 * runs for this problem's type and size (the wisdom's pick, else the
 * backend's library rung); absent for a workload without entry points or
 * a backend without a rung for it. */
GET(get_dispatched) {
  const kl_rung *d =
      res->r ? kl__dispatched(res->w, res->pub.type,
                              kl__wisdom_size(res->w, res->pub.n,
                                              res->plan.value),
                              res->r->backend, res->pub.device)
             : NULL;
  text(v, d ? d->name : NULL);
}
/* The rung of another backend doing this one's work, where it names one. */
GET(get_peer) { text(v, res->r->peer ? res->r->peer : ""); }
/* The rung's place in its ladder, from 1 (the naive rung). */
GET(get_step) { number(v, 1, (double)(res->r - res->w->rungs) + 1); }
/* Measured only as another rung's ceiling, not selected itself. */
GET(get_ceiling_only) {
  number(v, 1, res->ceiling_only);
  v->is_bool = 1;
}
GET(get_trace) {
  v->present = timed(&res->pub) && res->pub.trace_count > 0;
  v->count = res->pub.trace_count;
  v->result = &res->pub;
}
/* Each rank's timed runs; number: when the result's first began, in
 * seconds after the first of the run's results that have them began, so
 * that every result's runs share one time axis. */
GET(get_rank_runs) {
  v->present = timed(&res->pub) && res->pub.rank_run_count > 0;
  v->result = &res->pub;
  if (!v->present) return;
  double first = res->pub.rank_origin;
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *o = &rep->results[i].pub;
    if (o->rank_run_count > 0 && o->rank_origin < first)
      first = o->rank_origin;
  }
  v->number = res->pub.rank_origin - first;
}
GET(get_setup_build) {
  number(v, res->pub.setup_build_seconds >= 0,
         res->pub.setup_build_seconds);
}
/* Energy (kl_options.energy): none where the result names no counter. */
#define ENERGY(name, present, x)                                              \
  GET(name) {                                                                 \
    const kl_result *p = &res->pub;                                           \
    number(v, p->energy_source != NULL && (present), (x));                    \
  }
ENERGY(get_energy_joules, 1, p->energy_joules)
ENERGY(get_energy_watts, 1, p->energy_watts)
ENERGY(get_energy_pj, p->energy_pj > 0, p->energy_pj)
ENERGY(get_energy_seconds, 1, p->energy_seconds)
ENERGY(get_energy_reps, 1, p->energy_reps)
ENERGY(get_energy_updates, 1, p->energy_updates)
ENERGY(get_idle_watts, p->idle_watts > 0, p->idle_watts)
ENERGY(get_sampled_watts, p->sampled_watts > 0, p->sampled_watts)
#undef ENERGY
GET(get_energy_mismatch) {
  const kl_result *p = &res->pub;
  v->is_bool = 1;
  number(v, p->energy_source != NULL && p->sampled_watts > 0,
         p->energy_mismatch);
}
GET(get_energy_source) { text(v, res->pub.energy_source); }
/* What the picojoules are per: the workload's metric's unit of work. */
GET(get_energy_per) {
  const kl_workload *w = res->w;
  text(v, !res->pub.energy_source ? NULL
          : w->metric == KL_METRIC_GBS    ? "pJ/B"
          : w->metric == KL_METRIC_GFLOPS ? "pJ/flop"
                                          : "pJ/item");
}
GET(get_energy_option) {
  v->is_bool = 1;
  number(v, 1, rep->options.energy != 0);
}
GET(get_overlap) {
  number(v, timed(&res->pub) && res->pub.overlap > 0, res->pub.overlap);
}
GET(get_started) { text(v, rep->started[0] || !v->json ? rep->started : NULL); }
GET(get_version) { text(v, kl_build()->version); }
GET(get_commit) {
  const char *c = kl_build()->commit;
  text(v, c[0] || !v->json ? c : NULL);
}
GET(get_build_type) { text(v, kl_build()->build_type); }
GET(get_c_compiler) { text(v, kl_build()->c_compiler); }
GET(get_c_flags) { text(v, kl_build()->c_flags); }
GET(get_gpu_compiler) {
  const kl_build_info *b = kl_build();
  text(v, b->gpu_compiler[0] || !v->json ? b->gpu_compiler : NULL);
}
GET(get_gpu_flags) {
  const kl_build_info *b = kl_build();
  text(v, b->gpu_compiler[0] || !v->json ? b->gpu_flags : NULL);
}
GET(get_command_line) { text(v, rep->command_line); }
GET(get_notes) { text(v, rep->notes); }
GET(get_warmup_runs) {
  number(v, res->pub.status == KL_OK, res->pub.warmup_runs);
}
GET(get_in_cache) {
  number(v, res->pub.status == KL_OK, res->in_cache_bytes > 0);
}
GET(get_interleaved) {
  number(v, res->pub.status == KL_OK && res->interleaved > 0,
         res->interleaved);
}
GET(get_rounds) {
  number(v, res->pub.status == KL_OK && res->rounds > 0, res->rounds);
}
GET(get_checked_timed) {
  number(v, res->pub.status == KL_OK, res->checked_timed);
}
GET(get_ranks) { number(v, 1, res->pub.ranks); }
GET(get_one_rank_seconds) {
  number(v, res->pub.one_rank_seconds > 0, res->pub.one_rank_seconds);
}
GET(get_efficiency) { number(v, res->pub.efficiency > 0, res->pub.efficiency); }
GET(get_rank_grid) {
  const int *d = res->plan.rank_grid;
  snprintf(v->buffer, sizeof v->buffer, "%dx%dx%d", d[0], d[1], d[2]);
  text(v, res->pub.ranks > 1 && d[0] > 0 ? v->buffer : NULL);
}
GET(get_scaling) {
  text(v, res->w->distributed && res->pub.ranks > 1
              ? (res->plan.strong ? "strong" : "weak")
              : NULL);
}
GET(get_unverifiable) {
  number(v, checked(&res->pub), (double)res->pub.verdict.unverifiable);
}
GET(get_exchange) {
  number(v, rep->exchange_seconds > 0, rep->exchange_seconds);
}
GET(get_interrupted) {
  v->is_bool = 1;
  number(v, 1, rep->interrupted);
}

#ifdef KL_TEST_EXTRA_FIELD
/* The test build's fields (fields.def): never measured. */
GET(get_test_extra) { v->present = 0; }
#endif

/* The table, from fields.def. */
#define R KL__RESULT
const kl__field kl__fields[] = {
#define KL__FIELD(name, csv, scope, group, kind, format, get, unit)         \
  {#name, (csv) ? #name : NULL, scope, group, kind, format, get, unit},
#include "fields.def"
#undef KL__FIELD
};
#undef R
const size_t kl__field_count = sizeof kl__fields / sizeof *kl__fields;

const kl__field *kl__field_named(const char *name) {
  for (size_t i = 0; i < kl__field_count; i++)
    if (strcmp(kl__fields[i].name, name) == 0)
      return &kl__fields[i];
  return NULL;
}

const char *kl__field_format(const kl__field *f) {
  return f->format ? f->format : "%.17g";
}

void kl__field_get(const kl__field *f, const kl_report *rep,
                   const kl__result *res, int json, kl__value *v) {
  memset(v, 0, sizeof *v);
  v->json = json;
  f->get(rep, res, v);
}

/* ---- the description and the values, for every front end ---------------- */
_Static_assert((int)KL__TEXT == (int)KL_FIELD_TEXT &&
                   (int)KL__SECONDS == (int)KL_FIELD_SECONDS &&
                   (int)KL__RANK_RUNS == (int)KL_FIELD_RANK_RUNS,
               "kl__field_kind and kl_field_kind in one order");

size_t kl_field_count(void) { return kl__field_count; }

static kl_status field_describe(size_t i, kl_field_info *out) {
  if (i >= kl__field_count)
    return kl__usage(KL_USAGE, "kl_field_describe: field %zu of %zu", i,
                     kl__field_count);
  const kl__field *f = &kl__fields[i];
  kl_field_info full = {sizeof full,
                        f->name,
                        f->csv,
                        (kl_field_kind)f->kind,
                        f->unit ? f->unit : "",
                        f->scope == KL__RUN,
                        f->scope == KL__RUN ? f->group : ""};
  return kl__copy_sized(out, &full, sizeof full, "kl_field_describe");
}

kl_status kl_field_describe(size_t i, kl_field_info *out) {
  return kl__done(field_describe(i, out));
}

static kl_status field_index(const char *name, size_t *out) {
  const kl__field *f = name ? kl__field_named(name) : NULL;
  if (!f)
    return kl__usage(KL_USAGE, "no result field '%.64s' (kladder list "
                     "--fields names them)", name ? name : "(null)");
  *out = (size_t)(f - kl__fields);
  return KL_OK;
}

kl_status kl_field_index(const char *name, size_t *out) {
  return kl__done(field_index(name, out));
}

kl_status kl__field_wants(const kl__field *f, int text, int present,
                          const char *who) {
  const int number = f->kind == KL__NUMBER || f->kind == KL__SECONDS;
  if (!number && !(text && f->kind == KL__TEXT))
    return kl__usage(KL_USAGE, "%s: %s is %s", who, f->name,
                     text ? "neither text nor a number" : "not a number");
  if (!present)
    return kl__usage(KL_UNAVAILABLE, "%s: not measured for this result",
                     f->name);
  return KL_OK;
}

/* Field `field` of result `result`, got as the writers get it (not as
 * JSON: an empty text is present). */
static kl_status value_of(const kl_report *r, size_t result, size_t field,
                          const char *who, const kl__field **f,
                          kl__value *v) {
  if (!r || result >= r->count)
    return kl__usage(KL_USAGE, "%s: result %zu of %zu", who, result,
                     r ? r->count : 0);
  if (field >= kl__field_count)
    return kl__usage(KL_USAGE, "%s: field %zu of %zu", who, field,
                     kl__field_count);
  *f = &kl__fields[field];
  kl__field_get(*f, r, &r->results[result], 0, v);
  return KL_OK;
}

static kl_status result_number(const kl_report *r, size_t result,
                               size_t field, double *out) {
  const kl__field *f = NULL;
  kl__value v;
  kl_status st = value_of(r, result, field, "kl_result_number", &f, &v);
  if (st != KL_OK) return st;
  st = kl__field_wants(f, 0, v.present, "kl_result_number");
  if (st != KL_OK) return st;
  *out = v.number;
  return KL_OK;
}

kl_status kl_result_number(const kl_report *r, size_t result, size_t field,
                           double *out) {
  return kl__done(result_number(r, result, field, out));
}

static kl_status result_text(const kl_report *r, size_t result, size_t field,
                             char *out, size_t size) {
  const kl__field *f = NULL;
  kl__value v;
  if (!out || size == 0)
    return kl__usage(KL_USAGE, "kl_result_text: no room for the text");
  out[0] = '\0';
  kl_status st = value_of(r, result, field, "kl_result_text", &f, &v);
  if (st != KL_OK) return st;
  st = kl__field_wants(f, 1, v.present, "kl_result_text");
  if (st != KL_OK) return st;
  if (f->kind == KL__TEXT)
    snprintf(out, size, "%s", v.text ? v.text : "");
  else
    snprintf(out, size, kl__field_format(f), v.number);
  return KL_OK;
}

kl_status kl_result_text(const kl_report *r, size_t result, size_t field,
                         char *out, size_t size) {
  return kl__done(result_text(r, result, field, out, size));
}
