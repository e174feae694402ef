/* A report: the table on stdout, CSV, JSON and the Chrome trace, every
 * value read through the one description of a result's fields
 * (fields.c); and the report's public accessors. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "tool.h"
#include "json.h"

/* ---- the report ------------------------------------------------------------ */

kl_status kl__report_new(const kl_options *o, size_t capacity,
                         kl_report **out) {
  *out = NULL;
  kl_report *rep = calloc(1, sizeof *rep);
  if (!rep) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  rep->options = *o;
  rep->options.command_line = NULL;
  if (o->command_line) {
    rep->command_line = malloc(strlen(o->command_line) + 1);
    if (!rep->command_line) {
      free(rep);
      return KL_FAIL(KL_NO_MEMORY, "out of host memory");
    }
    strcpy(rep->command_line, o->command_line);
    rep->options.command_line = rep->command_line;
  }
  rep->results = calloc(capacity ? capacity : 1, sizeof *rep->results);
  if (!rep->results) {
    kl_report_free(rep);
    return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  }
  time_t now = time(NULL);
  struct tm utc;
  if (now != (time_t)-1 && kl__utc(now, &utc))
    strftime(rep->started, sizeof rep->started, "%Y-%m-%dT%H:%M:%SZ", &utc);
  kl__host_describe(&rep->machine);
  *out = rep;
  return KL_OK;
}

void kl_report_free(kl_report *r) {
  if (!r) return;
  for (size_t i = 0; r->results && i < r->count; i++)
    kl__result_free(&r->results[i]);
  free(r->command_line);
  free(r->results);
  free(r);
}

size_t kl_report_count(const kl_report *r) { return r ? r->count : 0; }

const kl_result *kl_report_result(const kl_report *r, size_t i) {
  return r && i < r->count ? &r->results[i].pub : NULL;
}

const kl_machine *kl_report_machine(const kl_report *r) {
  return r ? &r->machine : NULL;
}

const char *kl_report_started(const kl_report *r) {
  return r ? r->started : "";
}

const char *kl_report_command_line(const kl_report *r) {
  return r ? r->command_line : NULL;
}

const char *kl_report_notes(const kl_report *r) { return r ? r->notes : ""; }

int kl_report_interrupted(const kl_report *r) {
  return r ? r->interrupted : 0;
}

/* ---- the table ----------------------------------------------------------------
 * Columns name the fields they show; each cell is the field's value in a
 * form for the eye. */
typedef enum cell {
  CELL_TEXT,    /* as it is; "-" where empty */
  CELL_TIME,    /* seconds in us, ms or s */
  CELL_RATE,    /* "%.1f unit" */
  CELL_PERCENT, /* "%.1f%%" */
  CELL_SPEEDUP, /* "%.2fx" */
  CELL_ERROR,   /* "%.2e" */
  CELL_DEVICE,  /* the backend, with ":index" past device 0 */
  CELL_CHECK,   /* the verdict and the rung's flags */
  CELL_SPREAD   /* the median's interval, its larger side in percent */
} cell;

typedef struct column {
  const char *field;
  const char *header;
  int width; /* negative: left-aligned */
  cell kind;
} column;

static const column columns[] = {
    {"workload", "workload", -9, CELL_TEXT},
    {"rung", "rung", -24, CELL_TEXT},
    {"backend", "backend", -7, CELL_DEVICE},
    {"op", "op", -4, CELL_TEXT},
    {"type", "type", -4, CELL_TEXT},
    {"shape", "n", 14, CELL_TEXT},
    {"median_s", "median", 11, CELL_TIME},
    {"median_spread", "+/-", 6, CELL_SPREAD},
    {"min_s", "min", 11, CELL_TIME},
    {"max_s", "max", 11, CELL_TIME},
    {"rate", "rate", 15, CELL_RATE},
    {"percent_ceiling", "%ceil", 7, CELL_PERCENT},
    {"speedup", "speedup", 9, CELL_SPEEDUP},
    {"abs_error", "abs err", 9, CELL_ERROR},
    {"check", " check", 0, CELL_CHECK},
};

/* How many timed runs the options ask for, as the table's heading says. */
static void runs_text(const kl_options *o, char *dst, size_t size) {
  if (o->reps > 0)
    snprintf(dst, size, "%d timed runs after %d warm-up", o->reps, o->warmup);
  else
    snprintf(dst, size, "timed runs until the median is known to +/-%g%%, "
             "after %d warm-up", 100 * o->precision, o->warmup);
}

/* A median's interval as "+/-" shows it: its larger side in percent. */
static void format_spread(const kl_result *r, char *dst, size_t size) {
  const double s = r->status == KL_OK ? kl__median_spread(r) : -1;
  if (s < 0) snprintf(dst, size, "-");
  else snprintf(dst, size, s < 0.1 ? "%.2f%%" : "%.0f%%", 100 * s);
}

void kl__time_text(double s, char *dst, size_t size) {
  if (!(s > 0) || !isfinite(s)) snprintf(dst, size, "-");
  else if (s < 1e-3) snprintf(dst, size, "%.2f us", s * 1e6);
  else if (s < 1.0) snprintf(dst, size, "%.3f ms", s * 1e3);
  else snprintf(dst, size, "%.3f s", s);
}

static void cell_text(const column *c, const kl_report *rep,
                      const kl__result *res, char *dst, size_t size) {
  kl__value v;
  kl__field_get(kl__field_named(c->field), rep, res, 0, &v);
  const kl_result *r = &res->pub;
  snprintf(dst, size, "-");
  switch (c->kind) {
  case CELL_TEXT:
    if (v.present && v.text && v.text[0]) snprintf(dst, size, "%s", v.text);
    break;
  case CELL_TIME:
    if (v.present) kl__time_text(v.number, dst, size);
    break;
  case CELL_RATE:
    if (v.present) snprintf(dst, size, "%.1f %s", v.number, r->unit);
    break;
  case CELL_PERCENT:
    if (v.present && v.number > 0) snprintf(dst, size, "%.1f%%", v.number);
    break;
  case CELL_SPEEDUP:
    if (v.present) snprintf(dst, size, "%.2fx", v.number);
    break;
  case CELL_ERROR:
    if (v.present && r->status == KL_OK)
      snprintf(dst, size, "%.2e", v.number);
    break;
  case CELL_DEVICE:
    snprintf(dst, size, "%s", r->backend);
    if (r->device > 0) kl__append(dst, size, ":%d", r->device);
    break;
  case CELL_SPREAD:
    format_spread(r, dst, size);
    break;
  case CELL_CHECK: {
    char marks[64];
    kl__flags_text(r->flags, marks, sizeof marks);
    snprintf(dst, size, " %s%s%s%s", v.text, marks[0] ? " [" : "", marks,
             marks[0] ? "]" : "");
    break;
  }
  }
}

static void print_row(FILE *f, const char *const *cells) {
  const size_t count = sizeof columns / sizeof *columns;
  for (size_t c = 0; c < count; c++) {
    const int w = columns[c].width;
    if (w == 0) fprintf(f, "%s%s", c ? " " : "", cells[c]);
    else fprintf(f, "%s%*s", c ? " " : "", w, cells[c]);
  }
  fputc('\n', f);
}

/* Why %ceil is missing or above 105%: one line per workload and reason,
 * with the rungs it concerns. */
static void print_ceiling_notes(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    int first = 1;
    for (size_t j = 0; j < i && first; j++)
      first = !(rep->results[j].w == rep->results[i].w &&
                rep->results[j].pub.ceiling_note == r->ceiling_note);
    if (!r->ceiling_note || !first) continue;
    fprintf(f, "%%ceil %s, %s", r->percent > 0 ? "above 105%" : "-",
            r->workload);
    for (size_t j = i; j < rep->count; j++) {
      const kl_result *o = &rep->results[j].pub;
      if (rep->results[j].w != rep->results[i].w ||
          o->ceiling_note != r->ceiling_note)
        continue;
      /* Each rung once, also where a sweep ran it at several points. */
      int named = 0;
      for (size_t k = i; k < j && !named; k++)
        named = rep->results[k].w == rep->results[j].w &&
                rep->results[k].pub.ceiling_note == r->ceiling_note &&
                strcmp(rep->results[k].pub.rung, o->rung) == 0;
      if (!named) fprintf(f, " %s", o->rung);
    }
    fprintf(f, ": %s\n", r->ceiling_note);
  }
}

/* The results whose buffers fit in their device's last-level cache, one
 * line: their rates are the cache's, not memory's. */
static void print_in_cache(const kl_report *rep, FILE *f) {
  int count = 0;
  double most = 0, cache = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const kl__result *r = &rep->results[i];
    if (r->pub.status != KL_OK || r->in_cache_bytes <= 0 || r->ceiling_only ||
        r->pub.cache == KL_CACHE_COLD)
      continue;
    count++;
    if (r->in_cache_bytes > most) {
      most = r->in_cache_bytes;
      cache = r->cache_bytes;
    }
  }
  if (!count) return;
  fprintf(f, "in cache, %d result%s: the buffers (at most %.3g MB) fit in the "
          "device's last-level cache (%.3g MB), which the repetitions then run "
          "from: a cache's rate, not memory's (the quick sizes or a larger -n "
          "for memory)\n", count, count == 1 ? "" : "s", most / 1e6,
          cache / 1e6);
}

/* The counts a run reported (cg's iterations) and the time per unit of
 * the first one, a line per result that has them. */
static void print_counts(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    if (r->count_count == 0 || r->status != KL_OK) continue;
    fprintf(f, "%s %s:", r->workload, r->rung);
    for (int k = 0; k < r->count_count; k++)
      fprintf(f, "%s %.15g %s", k ? "," : "", r->counts[k], r->count_names[k]);
    if (r->counts[0] > 0)
      fprintf(f, ", %.4g ms each", r->t_median / r->counts[0] * 1e3);
    fputc('\n', f);
  }
}

/* The traced run of a rung with phases: its wall time, each phase's busy
 * time and the overlap, a line per result that has them. */
static void print_overlap(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    if (r->status != KL_OK || r->trace_count == 0 || r->phase_count == 0 ||
        (r->overlap <= 0 && r->trace_lost == 0))
      continue;
    char t[32];
    kl__time_text(kl__trace_wall(r->trace, r->trace_count), t, sizeof t);
    fprintf(f, "%s %s, last run: wall %s; busy", r->workload, r->rung, t);
    for (int k = 0; k < r->phase_count; k++) {
      kl__time_text(kl__trace_busy(r->trace, r->trace_count, k), t, sizeof t);
      fprintf(f, "%s %s %s", k ? "," : "", r->phase_names[k], t);
    }
    if (r->overlap > 0) fprintf(f, "; overlap %.3f\n", r->overlap);
    else fprintf(f, "; overlap unknown: %d events lost\n", r->trace_lost);
  }
}

/* Over several ranks: each rung's efficiency against rank 0 alone, and
 * the share of each of its phases (their medians, the slowest rank's), a
 * line per result that has either. */
static void print_ranks(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl__result *res = &rep->results[i];
    const kl_result *r = &res->pub;
    const int phases = res->r->run && r->phase_count > 0;
    if (r->status != KL_OK || r->ranks < 2 ||
        (r->efficiency <= 0 && !phases))
      continue;
    char t[32], alone[32];
    kl__time_text(r->t_median, t, sizeof t);
    fprintf(f, "%s %s: %d ranks", r->workload, r->rung, r->ranks);
    const int *d = res->plan.rank_grid;
    if (d[0] > 0) fprintf(f, " (%d x %d x %d)", d[0], d[1], d[2]);
    fprintf(f, " %s", t);
    if (r->efficiency > 0) {
      kl__time_text(r->one_rank_seconds, alone, sizeof alone);
      fprintf(f, ", rank 0 alone %s%s: efficiency %.2f", alone,
              res->plan.strong ? " (the whole problem)" : "", r->efficiency);
    }
    for (int k = 0; phases && k < r->phase_count; k++) {
      kl__time_text(r->phase_median[k], t, sizeof t);
      fprintf(f, "%s %s %s (%.0f%%)", k ? "," : "; phases", r->phase_names[k],
              t, r->t_median > 0 ? 100 * r->phase_median[k] / r->t_median : 0);
    }
    fputc('\n', f);
  }
}

/* What the rungs' set-ups spent compiling programs, untimed: a line per
 * workload and backend, each rung that built any with its seconds. */
static void print_builds(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl__result *a = &rep->results[i];
    if (a->pub.setup_build_seconds <= 0) continue;
    int first = 1;
    for (size_t j = 0; j < i && first; j++)
      first = !(rep->results[j].w == a->w &&
                rep->results[j].r->backend == a->r->backend &&
                rep->results[j].pub.setup_build_seconds > 0);
    if (!first) continue;
    fprintf(f, "%s, %s programs built at set-up (untimed):", a->pub.workload,
            a->pub.backend);
    int shown = 0;
    for (size_t j = i; j < rep->count; j++) {
      const kl__result *b = &rep->results[j];
      if (b->w != a->w || b->r->backend != a->r->backend ||
          b->pub.setup_build_seconds <= 0)
        continue;
      char t[32];
      kl__time_text(b->pub.setup_build_seconds, t, sizeof t);
      fprintf(f, "%s %s %s", shown++ ? "," : "", b->pub.rung, t);
    }
    fputc('\n', f);
  }
}

static int same_problem(const kl__result *a, const kl__result *b) {
  return a->w == b->w && kl__plans_alike(a->w, &a->plan, &b->plan);
}

static int passed(const kl_result *r) {
  return r->status == KL_OK && r->check == KL_CHECK_PASS && r->merit > 0;
}

/* Each rung beside its peer on another backend, where both ran on one
 * problem and passed. */
static void print_peers(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl__result *a = &rep->results[i];
    if (!a->r->peer || !passed(&a->pub)) continue;
    for (size_t j = 0; j < rep->count; j++) {
      const kl__result *b = &rep->results[j];
      if (!passed(&b->pub) || strcmp(b->pub.rung, a->r->peer) != 0 ||
          !same_problem(a, b))
        continue;
      fprintf(f, "%s %s beside %s: %.4g vs %.4g %s, %.3fx\n", a->pub.workload,
              a->pub.rung, b->pub.rung, a->pub.merit, b->pub.merit,
              a->pub.unit, a->pub.merit / b->pub.merit);
      break;
    }
  }
}

/* Under either table: why a result has no percent, counts, overlaps,
 * peers, runs cut short, errors and failed checks. */
/* With kl_options.energy: a line per result that has energy (per
 * repetition, mean watts, per unit of work, the window), then for each
 * problem with two rungs or more, its rung of the least energy per unit
 * beside its fastest. */
static void print_energy(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    if (!r->energy_source) continue;
    const kl_workload *w = rep->results[i].w;
    const char *per = w->metric == KL_METRIC_GBS      ? "pJ/B"
                      : w->metric == KL_METRIC_GFLOPS ? "pJ/flop"
                                                      : "pJ/item";
    fprintf(f, "%s %s energy (%s): %.4g J per run, %.4g W", r->workload,
            r->rung, r->energy_source, r->energy_joules, r->energy_watts);
    if (r->idle_watts > 0) fprintf(f, " (idle %.4g W)", r->idle_watts);
    if (r->energy_pj > 0) fprintf(f, ", %.4g %s", r->energy_pj, per);
    fprintf(f, "; %d runs in %.3g s, %d counter updates", r->energy_reps,
            r->energy_seconds, r->energy_updates);
    if (r->sampled_watts > 0)
      fprintf(f, "; sampled %.4g W%s", r->sampled_watts,
              r->energy_mismatch ? ", MISMATCH: over 10% apart" : "");
    fputc('\n', f);
  }
  for (size_t i = 0; i < rep->count; i++) {
    const kl__result *a = &rep->results[i];
    if (!a->pub.energy_source || a->pub.energy_pj <= 0 || !passed(&a->pub))
      continue;
    int first = 1, rungs = 0;
    const kl__result *least = a, *fastest = a;
    for (size_t j = 0; j < rep->count; j++) {
      const kl__result *b = &rep->results[j];
      if (!b->pub.energy_source || b->pub.energy_pj <= 0 ||
          !passed(&b->pub) || !same_problem(a, b) || strcmp(a->pub.workload, b->pub.workload))
        continue;
      if (j < i) first = 0;
      rungs++;
      if (b->pub.energy_pj < least->pub.energy_pj) least = b;
      if (b->pub.merit > fastest->pub.merit) fastest = b;
    }
    if (!first || rungs < 2) continue;
    fprintf(f, "%s (%s): least energy per unit: %s (%.4g pJ); fastest: %s%s\n",
            a->pub.workload, a->pub.shape, least->pub.rung,
            least->pub.energy_pj, fastest->pub.rung,
            least == fastest ? ", the same" : "");
  }
}

/* Where a board's clocks were watched: each result that ran power-capped
 * with the clock it reached, each one throttled (slowed in every try),
 * and how many batches were made again after a slowdown. */
static void print_clocks(const kl_report *rep, FILE *f) {
  int again = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const kl__result *r = &rep->results[i];
    if (r->pub.status != KL_OK || r->sm_mhz <= 0) continue;
    again += r->slowed_batches;
    char reasons[96];
    kl__clock_reasons_text(r->clock_reasons, reasons, sizeof reasons);
    if (r->throttled)
      fprintf(f, "%s %s: THROTTLED: the board slowed itself (%s) in every "
              "try; SM at %.0f MHz: a slowed board's figures\n",
              r->pub.workload, r->pub.rung, reasons, r->sm_mhz);
    else if (r->clock_reasons & 0x4)
      fprintf(f, "%s %s: at the board's power cap, SM at %.0f MHz of %.0f "
              "(its application clock)\n", r->pub.workload, r->pub.rung,
              r->sm_mhz, rep->machine.gpu_app_sm_mhz);
  }
  if (again)
    fprintf(f, "clocks: %d batch%s of timed runs made again, after a pause, "
            "where the board slowed itself (thermal or hardware slowdown, "
            "or the SM clock under %.0f%% of its application clock)\n",
            again, again == 1 ? "" : "es", 100 * KL__CLOCK_FLOOR);
}

/* Each backend's launch floor, with the results whose median is within
 * ten times of it (their time is mostly the launch): one line a backend,
 * the first six named. */
#define NEAR_FLOOR 10
static void print_floors(const kl_report *rep, FILE *f) {
  for (size_t i = 0; i < rep->count; i++) {
    const kl__result *a = &rep->results[i];
    if (a->launch_floor <= 0) continue;
    int first = 1;
    for (size_t j = 0; j < i && first; j++)
      first = !(rep->results[j].launch_floor > 0 &&
                rep->results[j].r->backend == a->r->backend);
    if (!first) continue;
    int near = 0;
    for (size_t j = i; j < rep->count; j++) {
      const kl__result *b = &rep->results[j];
      near += b->r->backend == a->r->backend && b->pub.status == KL_OK &&
              b->launch_floor > 0 &&
              b->pub.t_median < NEAR_FLOOR * b->launch_floor;
    }
    if (!near) continue;
    char t[32];
    kl__time_text(a->launch_floor, t, sizeof t);
    fprintf(f, "launch floor, %s: an empty launch takes %s between events; "
            "%d result%s within %dx of it, mostly launch:", a->pub.backend,
            t, near, near == 1 ? "" : "s", NEAR_FLOOR);
    int named = 0;
    for (size_t j = i; j < rep->count && named < 6; j++) {
      const kl__result *b = &rep->results[j];
      if (b->r->backend != a->r->backend || b->pub.status != KL_OK ||
          b->launch_floor <= 0 ||
          b->pub.t_median >= NEAR_FLOOR * b->launch_floor)
        continue;
      fprintf(f, "%s %s %s %.1fx", named++ ? "," : "", b->pub.workload,
              b->pub.rung, b->pub.t_median / b->launch_floor);
    }
    fprintf(f, "%s\n", named < near ? ", ..." : "");
  }
}

static kl_status print_remarks(const kl_report *rep, FILE *f) {
  print_ceiling_notes(rep, f);
  print_floors(rep, f);
  print_clocks(rep, f);
  print_in_cache(rep, f);
  print_counts(rep, f);
  print_overlap(rep, f);
  print_ranks(rep, f);
  print_builds(rep, f);
  print_peers(rep, f);
  print_energy(rep, f);
  /* Runs that ended at a bound (kl_stop): each rung where the bound is
   * --max-time's; the quick run's, one line for all. By noise, a rung
   * that stopped there is one whose median is known less well than
   * asked (+/- says how well); with --reps, one that made fewer runs. */
  const kl_options *o = &rep->options;
  const int by_noise = o->reps == 0;
  int quick_cut = 0, quick_checked = 0;
  double quick_bound = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    if (r->status != KL_OK) continue;
    const double bound = rep->results[i].max_seconds > 0
                             ? rep->results[i].max_seconds
                             : o->max_seconds;
    const int cut = r->stop == KL_STOP_MAX_TIME;
    const int checked = cut && rep->results[i].checked_timed;
    char spread[16];
    format_spread(r, spread, sizeof spread);
    if (r->stop == KL_STOP_MAX_REPS) {
      fprintf(f, "%s %s: %d timed runs, the most by noise, and its median "
              "within +/-%s, not %g%%\n", r->workload, r->rung, r->reps,
              spread, 100 * o->precision);
    } else if (cut && bound < o->max_seconds) {
      quick_cut++;
      quick_checked += checked;
      quick_bound = bound;
    } else if (checked) {
      fprintf(f, "%s %s: timed once, by its checked run, which alone took "
              "longer than %g s (--max-time)\n", r->workload, r->rung, bound);
    } else if (cut && by_noise) {
      fprintf(f, "%s %s: stopped at %g s (--max-time) after %d timed runs, "
              "its median within +/-%s, not %g%%\n", r->workload, r->rung,
              bound, r->reps, spread, 100 * o->precision);
    } else if (cut) {
      fprintf(f, "%s %s: %d timed run%s after %d warm-up instead of %d after "
              "%d, to stay within %g s (--max-time)\n", r->workload,
              r->rung, r->reps, r->reps == 1 ? "" : "s", r->warmup_runs,
              o->reps, o->warmup, bound);
    }
  }
  if (quick_cut) {
    char checked[160] = "";
    if (quick_checked)
      snprintf(checked, sizeof checked, "; %d timed once, by the checked "
               "run, which alone took longer", quick_checked);
    if (by_noise)
      fprintf(f, "%d rung%s stopped at %g s each at the quick sizes before "
              "the median was within +/-%g%% (+/- says how far)%s (-n, "
              "--full or --reps N for others)\n", quick_cut,
              quick_cut == 1 ? "" : "s", quick_bound, 100 * o->precision,
              checked);
    else
      fprintf(f, "%d rung%s ran fewer than %d timed runs, to stay within %g "
              "s each at the quick sizes%s (-n, --full or a lower --max-time "
              "for others)\n", quick_cut, quick_cut == 1 ? "" : "s",
              o->reps, quick_bound, checked);
  }
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    if (r->status == KL_UNAVAILABLE)
      fprintf(f, "%s %s: stands aside: %s\n", r->workload, r->rung, r->error);
    else if (r->status != KL_OK)
      fprintf(f, "%s %s: error: %s\n", r->workload, r->rung, r->error);
    else if (r->check == KL_CHECK_UNVERIFIABLE)
      fprintf(f, "%s %s: UNVERIFIABLE, not failed: %s\n", r->workload,
              r->rung, r->verdict.detail);
    else if (r->check != KL_CHECK_PASS)
      fprintf(f, "%s %s: %s: %lld of %lld elements outside tolerance "
              "(worst %.3g x tolerance)%s%s\n",
              r->workload, r->rung, kl__check_text(r),
              (long long)r->verdict.bad_count, (long long)r->verdict.checked,
              r->verdict.max_error, r->verdict.detail[0] ? "; " : "",
              r->verdict.detail);
  }
  return ferror(f) ? KL_FAIL(KL_IO, "writing the table failed") : KL_OK;
}

/* Under several ranks (kl_options.ranks), what the times and rates are. */
static void ranks_line(const kl_report *rep, FILE *f) {
  int ranks = 1;
  for (size_t i = 0; i < rep->count; i++)
    if (rep->results[i].pub.ranks > ranks) ranks = rep->results[i].pub.ranks;
  int distributed = 0;
  for (size_t i = 0; i < rep->count; i++)
    distributed |= rep->results[i].w->distributed;
  if (ranks > 1)
    fprintf(f, "%d ranks at once: each time the slowest rank's, each rate "
            "the work of all %d\n%s", ranks, ranks,
            !distributed ? ""
            : rep->options.scaling == KL_SCALING_STRONG
                ? "a distributed workload's size is the whole problem's "
                  "(strong scaling)\n"
                : "a distributed workload's size is each rank's share (weak "
                  "scaling)\n");
}

static kl_status print_wide(const kl_report *rep, FILE *f) {
  if (!rep || !f) return kl__usage(KL_USAGE, "kl_report_print: no report");
  const kl_machine *m = &rep->machine;
  fprintf(f, "kladder %s | CPU: %s, %d threads, OpenMP %d | GPU: %s%s%s\n",
          KL_VERSION, m->cpu, m->cpu_threads, m->omp_threads,
          m->gpu[0] ? m->gpu : "none", m->driver[0] ? " | " : "", m->driver);
  char runs[128];
  runs_text(&rep->options, runs, sizeof runs);
  fprintf(f, "seed %llu, %s; time = median [min, max]; +/-: the 95%% "
          "interval of the median\n", (unsigned long long)rep->options.seed,
          runs);
  ranks_line(rep, f);
  fputc('\n', f);
  enum { COLUMNS = sizeof columns / sizeof *columns };
  const char *cells[COLUMNS];
  char text[COLUMNS][160];
  for (size_t c = 0; c < COLUMNS; c++) cells[c] = columns[c].header;
  print_row(f, cells);
  for (size_t i = 0; i < rep->count; i++) {
    for (size_t c = 0; c < COLUMNS; c++) {
      cell_text(&columns[c], rep, &rep->results[i], text[c], sizeof text[c]);
      cells[c] = text[c];
    }
    print_row(f, cells);
  }
  fprintf(f, "\n%%ceil: percent of the backend's ceiling in this run: for "
          "memory-bound rungs the ceiling rung their workload names (the "
          "device copy, or the read for work that only reads), timed right "
          "after the rung; for compute-bound ones "
          "the vendor rung. speedup: over the first rung of the same workload and "
          "size. abs err: largest absolute error against the reference.\n");
  if (rep->notes[0]) fprintf(f, "note: %s\n", rep->notes);
  if (rep->interrupted)
    fprintf(f, "interrupted: the run was stopped; the table holds the %zu "
            "rungs that finished\n", rep->count);
  return print_remarks(rep, f);
}

kl_status kl_report_print_wide(const kl_report *rep, FILE *f) {
  return kl__done(print_wide(rep, f));
}

/* ---- the brief table ----------------------------------------------------------
 * Within 100 columns: a heading per problem (workload, type and
 * operation, size), then a row per rung of it (workload, rung, device,
 * median, rate, %ceil, speedup, check); the ceilings that ran only as
 * ceilings in a group of their own after the ladders; the remarks below,
 * wrapped. */
#define BRIEF_WIDTH 100

/* A rate with at least three significant digits: 2954, 13.7, 0.0720. */
static void rate_text(double v, const char *unit, char *dst, size_t size) {
  if (v >= 100) snprintf(dst, size, "%.0f %s", v, unit);
  else if (v >= 10) snprintf(dst, size, "%.1f %s", v, unit);
  else if (v >= 1) snprintf(dst, size, "%.2f %s", v, unit);
  else if (v > 0) snprintf(dst, size, "%#.3g %s", v, unit);
  else snprintf(dst, size, "0 %s", unit);
}

void kl__text_wrapped(FILE *f, const char *text, int width, int indent) {
  int col = 0, words = 0; /* words on this line */
  for (const char *p = text; *p;) {
    while (*p == ' ') p++;
    const size_t word = strcspn(p, " ");
    if (!word) break;
    if (words > 0 && col + 1 + (int)word > width) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
      words = 0;
    } else if (words > 0) {
      fputc(' ', f);
      col++;
    }
    words++;
    for (size_t i = 0; i < word; i++) {
      const unsigned char ch = (unsigned char)p[i];
      if (ch < 0x20 || ch == 0x7f) fprintf(f, "\\x%02x", ch);
      else fputc(ch, f);
    }
    col += (int)word;
    p += word;
  }
  fputc('\n', f);
}

/* Text wrapped at BRIEF_WIDTH, its later lines indented by `indent`. */
static void wrapped(FILE *f, const char *text, int indent) {
  kl__text_wrapped(f, text, BRIEF_WIDTH, indent);
}

/* The problem a result ran: its group's key and heading. A parameter
 * given that takes other values in other results of the workload (a
 * sweep's) is named too, where the heading does not show it already. */
static void problem_text(const kl_report *rep, const kl__result *res,
                         char *dst, size_t size) {
  const kl_result *r = &res->pub;
  snprintf(dst, size, "%s: %s%s%s, %s%s", r->workload, kl_type_name(r->type),
           r->op[0] ? " " : "", r->op, r->extent_count ? "" : "n=",
           r->shape);
  if (r->inputs[0] && strcmp(r->inputs, "random") != 0)
    kl__append(dst, size, ", inputs %s", r->inputs);
  const kl_workload *w = res->w;
  const unsigned shown = KL_PARAM_MAIN_SIZE | KL_PARAM_EXTENT | KL_PARAM_OP |
                         KL_PARAM_INPUTS;
  for (int i = 0; i < w->param_count; i++) {
    if ((w->params[i].flags & shown) || !(res->plan.given >> i & 1)) continue;
    int varies = 0;
    for (size_t j = 0; j < rep->count && !varies; j++)
      varies = rep->results[j].w == w &&
               rep->results[j].plan.value[i] != res->plan.value[i];
    if (!varies) continue;
    char value[64];
    kl_param_text(&w->params[i], res->plan.value[i], value, sizeof value);
    kl__append(dst, size, ", %s=%s", w->params[i].name, value);
  }
}

static void brief_row(FILE *f, const kl__result *res, int width) {
  const kl_result *r = &res->pub;
  char where[64], med[32], spread[16], rate[40], pct[16] = "-",
      spd[16] = "-";
  snprintf(where, sizeof where, "%s", r->backend);
  if (r->device > 0) kl__append(where, sizeof where, ":%d", r->device);
  kl__time_text(r->status == KL_OK ? r->t_median : 0, med, sizeof med);
  format_spread(r, spread, sizeof spread);
  if (r->status == KL_OK) rate_text(r->merit, r->unit, rate, sizeof rate);
  else snprintf(rate, sizeof rate, "-");
  if (r->status == KL_OK && r->percent > 0)
    snprintf(pct, sizeof pct, "%.1f%%", r->percent);
  if (r->status == KL_OK && r->speedup > 0)
    snprintf(spd, sizeof spd, r->speedup < 100 ? "%.2fx" : "%.0fx",
             r->speedup);
  fprintf(f, "%-*s %-23s %-7s %9s %6s %13s %7s %7s  %s%s\n", width,
          r->workload, r->rung, where, med, spread, rate, pct, spd,
          kl__check_text(r),
          (r->flags & KL_RUNG_VENDOR) ? " [vendor]" : "");
}

static kl_status print_brief(const kl_report *rep, FILE *f) {
  if (!rep || !f) return kl__usage(KL_USAGE, "kl_report_print: no report");
  const kl_machine *m = &rep->machine;
  char line[512];
  snprintf(line, sizeof line, "kladder %s | CPU: %s, %d threads | GPU: %s",
           KL_VERSION, m->cpu, m->cpu_threads, m->gpu[0] ? m->gpu : "none");
  wrapped(f, line, 2);
  char runs[128];
  runs_text(&rep->options, runs, sizeof runs);
  snprintf(line, sizeof line, "seed %llu, %s; time: the median",
           (unsigned long long)rep->options.seed, runs);
  wrapped(f, line, 2);
  ranks_line(rep, f);
  /* The workload column as wide as its longest name, 9 at least. */
  int width = 9;
  for (size_t i = 0; i < rep->count; i++) {
    const int len = (int)strlen(rep->results[i].pub.workload);
    if (len > width) width = len;
  }
  fprintf(f, "\n%-*s %-23s %-7s %9s %6s %13s %7s %7s  %s\n", width,
          "workload", "rung", "backend", "median", "+/-", "rate", "%ceil",
          "speedup", "check");
  /* The groups in the order their first result ran; the ceilings that
   * ran only as ceilings after them. */
  /* Each result's key made once: a sweep's report holds many. */
  const size_t count = rep->count ? rep->count : 1;
  char *done = calloc(count, 1);
  char (*keys)[256] = malloc(count * sizeof *keys);
  if (!done || !keys) {
    free(done);
    free(keys);
    return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  }
  for (size_t i = 0; i < rep->count; i++)
    problem_text(rep, &rep->results[i], keys[i], sizeof keys[i]);
  for (int pass = 0; pass < 2; pass++) {
    int headed = 0;
    for (size_t i = 0; i < rep->count; i++) {
      if (done[i] || rep->results[i].ceiling_only != pass) continue;
      if (pass == 1 && !headed) {
        fprintf(f, "\nceilings, each also timed right after the rungs it "
                "serves:\n");
        headed = 1;
      }
      fprintf(f, "%s%s\n", pass == 0 ? "\n" : "", keys[i]);
      for (size_t j = i; j < rep->count; j++) {
        if (done[j] || rep->results[j].ceiling_only != pass ||
            strcmp(keys[i], keys[j]) != 0)
          continue;
        brief_row(f, &rep->results[j], width);
        done[j] = 1;
      }
    }
  }
  free(keys);
  free(done);
  fputc('\n', f);
  wrapped(f, "%ceil: the rate as a percent of the ceiling measured in this "
          "run: for memory-bound rungs the copy (or, for work that only "
          "reads, the read) their workload names, timed right after each "
          "rung; for compute-bound ones the vendor rung. +/-: how far the "
          "median's 95% interval reaches from it, on its wider side. "
          "speedup: over the first rung of the same problem. kladder run -v: "
          "every column (min, max, abs err); --csv, --json: every field.", 2);
  if (rep->notes[0]) {
    snprintf(line, sizeof line, "note: %.490s", rep->notes);
    wrapped(f, line, 2);
  }
  if (rep->interrupted)
    fprintf(f, "interrupted: the run was stopped; the table holds the %zu "
            "rungs that finished\n", rep->count);
  /* The remarks, each wrapped. */
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  if (!mem) return print_remarks(rep, f);
  kl_status st = print_remarks(rep, mem);
  fclose(mem);
  for (char *p = text; st == KL_OK && p && *p;) {
    char *end = strchr(p, '\n');
    if (end) *end = '\0';
    wrapped(f, p, 2);
    p = end ? end + 1 : NULL;
  }
  free(text);
  return st == KL_OK && ferror(f) ? KL_FAIL(KL_IO, "writing the table failed")
                                  : st;
}

kl_status kl_report_print(const kl_report *rep, FILE *f) {
  return kl__done(print_brief(rep, f));
}

/* ---- CSV ------------------------------------------------------------------- */

/* s as a CSV field, quoted (quotes doubled) where `always` or where it
 * holds a comma, a quote or a line break. */
static void csv_string(FILE *f, const char *s, int always) {
  if (!always && !strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void kl__csv_text(FILE *f, const char *s) { csv_string(f, s, 0); }

/* Names, types, units and the check are written bare unless they hold a
 * comma, a quote or a line break (an input file's name may); other texts
 * are always quoted. */
static int bare(const char *name) {
  static const char *const names[] = {"workload", "rung", "backend", "op",
                                      "inputs", "type", "shape", "unit",
                                      "check", NULL};
  for (size_t i = 0; names[i]; i++)
    if (strcmp(names[i], name) == 0) return 1;
  return 0;
}

static void csv_header(FILE *f) {
  int first = 1;
  for (size_t i = 0; i < kl__field_count; i++) {
    if (!kl__fields[i].csv) continue;
    fprintf(f, "%s%s", first ? "" : ",", kl__fields[i].csv);
    first = 0;
  }
  fputc('\n', f);
}

static void csv_row(FILE *f, const kl_report *rep, const kl__result *res) {
  int first = 1;
  for (size_t i = 0; i < kl__field_count; i++) {
    const kl__field *fd = &kl__fields[i];
    if (!fd->csv) continue;
    if (!first) fputc(',', f);
    first = 0;
    kl__value v;
    kl__field_get(fd, rep, res, 0, &v);
    if (fd->kind == KL__TEXT) {
      const char *t = v.text ? v.text : "";
      csv_string(f, t, !bare(fd->name));
    } else if (fd->kind == KL__PAIRS) {
      char text[512] = "";
      for (int k = 0; k < v.count; k++)
        kl__append(text, sizeof text, "%s%s=%.9g", k ? ";" : "", v.names[k],
                   v.numbers[k]);
      csv_string(f, text, 1);
    } else if (fd->kind != KL__LIST && fd->kind != KL__EVENTS &&
               fd->kind != KL__RANK_RUNS && v.present) {
      fprintf(f, kl__field_format(fd), v.number);
    }
  }
  fputc('\n', f);
}

/* ---- JSON ------------------------------------------------------------------- */

/* The traced run's events as the results file keeps them: [track, phase,
 * item, start_s, end_s] each, times from the run's start; track -1 the
 * host, s a stream; phase a name of the result's phases, or "run" for an
 * event that is the whole run; item -1 where none. At most
 * KL__JSON_TRACE_EVENTS of them (the first; "dropped" counts the rest),
 * so that a run of many chunks keeps its file and report small; "lost":
 * events the rung could not keep (kl_result.trace_lost). */
#define KL__JSON_TRACE_EVENTS 2000
static void json_trace(kl__json *j, const char *key, const kl__value *v) {
  if (!v->present) {
    kl__json_null(j, key);
    return;
  }
  const kl_result *r = v->result;
  const int kept = r->trace_count < KL__JSON_TRACE_EVENTS
                       ? r->trace_count
                       : KL__JSON_TRACE_EVENTS;
  kl__json_open(j, key, '{', 0);
  kl__json_number(j, "lost", 1, r->trace_lost);
  kl__json_number(j, "dropped", 1, r->trace_count - kept);
  kl__json_open(j, "events", '[', 0);
  for (int e = 0; e < kept; e++) {
    const kl_trace_event *ev = &r->trace[e];
    const int named = ev->phase >= 0 && ev->phase < r->phase_count;
    kl__json_open(j, NULL, '[', 0);
    kl__json_number(j, NULL, 1, ev->track);
    kl__json_string(j, NULL, named ? r->phase_names[ev->phase] : "run");
    kl__json_number(j, NULL, 1, ev->item);
    kl__json_number(j, NULL, 1, ev->start);
    kl__json_number(j, NULL, 1, ev->end);
    kl__json_close(j);
  }
  kl__json_close(j);
  kl__json_close(j);
}

/* Each rank's timed runs as the results file keeps them: [rank, run,
 * start_s, end_s, {phase: seconds}] each, times from the barrier before
 * the first run; "from_s": when that was, after the first of the run's
 * results that have them. At most KL__JSON_TRACE_EVENTS of them: each
 * rank's first runs ("dropped" counts the rest). */
static void json_rank_runs(kl__json *j, const char *key,
                           const kl__value *v) {
  if (!v->present) {
    kl__json_null(j, key);
    return;
  }
  const kl_result *r = v->result;
  const int ranks = r->ranks > 1 ? r->ranks : 1;
  const int per_rank = KL__JSON_TRACE_EVENTS / ranks > 0
                           ? KL__JSON_TRACE_EVENTS / ranks
                           : 1;
  int kept = 0;
  for (int e = 0; e < r->rank_run_count; e++)
    kept += r->rank_runs[e].run < per_rank;
  kl__json_open(j, key, '{', 0);
  kl__json_number(j, "from_s", 1, v->number);
  kl__json_number(j, "dropped", 1, r->rank_run_count - kept);
  kl__json_open(j, "runs", '[', 0);
  for (int e = 0; e < r->rank_run_count; e++) {
    const kl_rank_run *u = &r->rank_runs[e];
    if (u->run >= per_rank) continue;
    kl__json_open(j, NULL, '[', 0);
    kl__json_number(j, NULL, 1, u->rank);
    kl__json_number(j, NULL, 1, u->run);
    kl__json_number(j, NULL, 1, u->start);
    kl__json_number(j, NULL, 1, u->end);
    kl__json_open(j, NULL, '{', 0);
    for (int k = 0; k < r->phase_count; k++)
      kl__json_number(j, r->phase_names[k], 1, u->phase_seconds[k]);
    kl__json_close(j);
    kl__json_close(j);
  }
  kl__json_close(j);
  kl__json_close(j);
}

static void json_field(kl__json *j, const kl__field *fd, const kl_report *rep,
                       const kl__result *res) {
  kl__value v;
  kl__field_get(fd, rep, res, 1, &v);
  switch (fd->kind) {
  case KL__TEXT:
    kl__json_string(j, fd->name, v.present ? v.text : NULL);
    break;
  case KL__NUMBER:
  case KL__SECONDS:
    if (v.is_bool && v.present) kl__json_bool(j, fd->name, v.number != 0);
    else if (v.is_bool) kl__json_null(j, fd->name);
    else kl__json_number(j, fd->name, v.present, v.number);
    break;
  case KL__LIST:
    if (!v.present) {
      kl__json_null(j, fd->name);
      break;
    }
    kl__json_open(j, fd->name, '[', 0);
    for (int k = 0; k < v.count; k++) kl__json_number(j, NULL, 1, v.numbers[k]);
    kl__json_close(j);
    break;
  case KL__PAIRS:
    kl__json_open(j, fd->name, '{', 0);
    for (int k = 0; k < v.count; k++)
      kl__json_number(j, v.names[k], v.numbers_present, v.numbers[k]);
    kl__json_close(j);
    break;
  case KL__EVENTS:
    json_trace(j, fd->name, &v);
    break;
  case KL__RANK_RUNS:
    json_rank_runs(j, fd->name, &v);
    break;
  }
}

/* The run's fields of one group ("" the top level), in the fields' order. */
static void json_group(kl__json *j, const kl_report *rep, const char *group) {
  for (size_t i = 0; i < kl__field_count; i++)
    if (kl__fields[i].scope == KL__RUN &&
        strcmp(kl__fields[i].group, group) == 0)
      json_field(j, &kl__fields[i], rep, NULL);
}

static void json_body(kl__json *j, const kl_report *rep) {
  json_group(j, rep, "");
  /* The groups in the order their first field comes. */
  const char *done[8];
  size_t groups = 0;
  for (size_t i = 0; i < kl__field_count; i++) {
    const char *g = kl__fields[i].group;
    if (kl__fields[i].scope != KL__RUN || !g[0]) continue;
    int seen = 0;
    for (size_t k = 0; k < groups && !seen; k++) seen = strcmp(done[k], g) == 0;
    if (seen || groups == sizeof done / sizeof *done) continue;
    done[groups++] = g;
    kl__json_open(j, g, '{', 0);
    json_group(j, rep, g);
    kl__json_close(j);
  }
  kl__json_open(j, "results", '[', 1);
  for (size_t r = 0; r < rep->count; r++) {
    kl__json_open(j, NULL, '{', 0);
    for (size_t i = 0; i < kl__field_count; i++)
      if (kl__fields[i].scope == KL__RESULT)
        json_field(j, &kl__fields[i], rep, &rep->results[r]);
    kl__json_close(j);
  }
  kl__json_close(j);
}

/* ---- the trace -------------------------------------------------------------
 * Chrome's trace-event format, a process per result and a thread per
 * track (tid 0 the host, tid s + 1 stream s); complete ("X") events in
 * microseconds from the first traced run's start. Over several ranks, a
 * process per rank after them (trace_ranks). Written when the file is
 * opened: */
static const char trace_head[] = "{\"displayTimeUnit\": \"ms\", "
                                 "\"traceEvents\": [\n";

static void trace_meta(FILE *f, int pid, int tid, const char *what,
                       const char *key, const char *value) {
  fprintf(f, "{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"%s\", "
          "\"args\": {\"%s\": ", pid, tid, what, key);
  kl__json_write_string(f, value);
  fputs("}},\n", f);
}

void kl__trace_ns(FILE *f, const char *key, long long ns) {
  if (ns < 0) ns = 0;
  fprintf(f, ", \"%s\": %lld.%03lld", key, ns / 1000, ns % 1000);
}

/* A process per rank ("rank K", pid after the results'), one track: each
 * timed run of each result the ranks gathered (kl_result.rank_runs), in
 * microseconds from `zero` as every other event, and nested in it its
 * phases, laid end to end in the rung's order from the run's start: the
 * rung reports how long each phase took, not when. Where they add up to
 * more than the run (a rung whose phases overlap), the run's args alone
 * give them. */
static void trace_ranks(FILE *f, const kl_report *rep, double zero) {
  int ranks = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    for (int e = 0; e < r->rank_run_count; e++)
      if (r->rank_runs[e].rank >= ranks) ranks = r->rank_runs[e].rank + 1;
  }
  for (int k = 0; k < ranks; k++) {
    const int pid = (int)rep->count + 1 + k;
    char name[160];
    snprintf(name, sizeof name, "rank %d", k);
    trace_meta(f, pid, 0, "process_name", "name", name);
    trace_meta(f, pid, 0, "thread_name", "name", name);
    for (size_t i = 0; i < rep->count; i++) {
      const kl_result *r = &rep->results[i].pub;
      snprintf(name, sizeof name, "%s %s", r->workload, r->rung);
      const double at = r->rank_origin - zero;
      for (int e = 0; e < r->rank_run_count; e++) {
        const kl_rank_run *u = &r->rank_runs[e];
        if (u->rank != k) continue;
        const long long from = llround((at + u->start) * 1e9);
        const long long to = llround((at + u->end) * 1e9);
        fprintf(f, "{\"ph\": \"X\", \"pid\": %d, \"tid\": 0, \"name\": ",
                pid);
        kl__json_write_string(f, name);
        fputs(", \"cat\": \"run\"", f);
        kl__trace_ns(f, "ts", from);
        kl__trace_ns(f, "dur", to - from);
        fprintf(f, ", \"args\": {\"result\": %zu, \"run\": %d", i + 1,
                u->run);
        double sum = 0;
        for (int p = 0; p < r->phase_count; p++) {
          fputs(", ", f);
          kl__json_write_string(f, r->phase_names[p]);
          fprintf(f, ": %.9g", u->phase_seconds[p]);
          sum += u->phase_seconds[p];
        }
        fputs("}},\n", f);
        if (sum > u->end - u->start + 1e-9) continue;
        long long cursor = from;
        for (int p = 0; p < r->phase_count; p++) {
          long long end = cursor + llround(u->phase_seconds[p] * 1e9);
          if (end > to) end = to;
          if (end <= cursor) continue;
          fprintf(f, "{\"ph\": \"X\", \"pid\": %d, \"tid\": 0, "
                  "\"name\": ", pid);
          kl__json_write_string(f, r->phase_names[p]);
          fputs(", \"cat\": ", f);
          kl__json_write_string(f, r->phase_names[p]);
          kl__trace_ns(f, "ts", cursor);
          kl__trace_ns(f, "dur", end - cursor);
          fputs("},\n", f);
          cursor = end;
        }
      }
    }
  }
}

static void trace_body(FILE *f, const kl_report *rep) {
  double zero = 0;
  int any = 0;
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    if (r->trace_count > 0 && (!any || r->trace_origin < zero)) {
      zero = r->trace_origin;
      any = 1;
    }
    if (r->rank_run_count > 0 && (!any || r->rank_origin < zero)) {
      zero = r->rank_origin;
      any = 1;
    }
  }
  for (size_t i = 0; i < rep->count; i++) {
    const kl_result *r = &rep->results[i].pub;
    if (r->trace_count == 0) continue;
    const int pid = (int)i + 1;
    char name[160];
    snprintf(name, sizeof name, "%s %s", r->workload, r->rung);
    trace_meta(f, pid, 0, "process_name", "name", name);
    if (r->overlap > 0)
      snprintf(name, sizeof name, "overlap %.9g", r->overlap);
    else
      snprintf(name, sizeof name, "%d events lost", r->trace_lost);
    if (r->overlap > 0 || r->trace_lost > 0)
      trace_meta(f, pid, 0, "process_labels", "labels", name);
    int named[KL_MAX_STREAMS + 1] = {0};
    for (int e = 0; e < r->trace_count; e++) {
      const int tid = r->trace[e].track + 1;
      if (tid < 0 || tid > KL_MAX_STREAMS || named[tid]) continue;
      named[tid] = 1;
      if (tid == 0) snprintf(name, sizeof name, "host");
      else snprintf(name, sizeof name, "stream %d", tid - 1);
      trace_meta(f, pid, tid, "thread_name", "name", name);
    }
    const double at = r->trace_origin - zero;
    for (int e = 0; e < r->trace_count; e++) {
      const kl_trace_event *ev = &r->trace[e];
      const int phase = ev->phase >= 0 && ev->phase < r->phase_count;
      const char *what = phase ? r->phase_names[ev->phase] : r->rung;
      if (ev->item >= 0) snprintf(name, sizeof name, "%s %d", what, ev->item);
      else snprintf(name, sizeof name, "%s", what);
      fprintf(f, "{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"name\": ",
              pid, ev->track + 1);
      kl__json_write_string(f, name);
      fputs(", \"cat\": ", f);
      kl__json_write_string(f, phase ? what : "run");
      fprintf(f, ", \"ts\": %.4f, \"dur\": %.4f},\n", (at + ev->start) * 1e6,
              (ev->end - ev->start) * 1e6);
    }
  }
  trace_ranks(f, rep, zero);
  /* JSON allows no comma after the last element: a closing metadata
   * event names the file's maker. */
  fprintf(f, "{\"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"name\": "
          "\"process_name\", \"args\": {\"name\": \"kladder %s\"}}\n]}\n",
          KL_VERSION);
}

/* ---- results files ------------------------------------------------------------ */

struct kl_output {
  kl_format format;
  FILE *f;
  char *path;
  char *temp; /* written here and renamed to path; NULL: written directly */
  int to_stdout; /* path "-": standard output, flushed, never closed */
  /* A regular file: tried at open (its temporary made, its head written,
   * then removed) and made again when written, so that no temporary
   * outlives a run killed before its end (a rank's SIGKILL under mpirun). */
  int deferred;
  kl__json json; /* JSON: the document, begun at open */
};

static void output_free(kl_output *o) {
  if (!o) return;
  if (o->f && !o->to_stdout) fclose(o->f);
  if (o->temp) remove(o->temp);
  free(o->temp);
  free(o->path);
  free(o);
}

/* What open writes, so that a device that cannot take it fails before
 * the run. */
static void output_head(kl_output *o) {
  if (o->format == KL_FORMAT_CSV) {
    csv_header(o->f);
  } else if (o->format == KL_FORMAT_JSON) {
    kl__json_begin(&o->json, o->f);
    kl__json_open(&o->json, NULL, '{', 1);
    kl__json_string(&o->json, "format", "kladder-results-2");
  } else {
    fputs(trace_head, o->f);
  }
}

static kl_status output_open(const char *path, kl_format format,
                             kl_output **out) {
  if (!out) return kl__usage(KL_USAGE, "kl_output_open: out is NULL");
  *out = NULL;
  if (format != KL_FORMAT_CSV && format != KL_FORMAT_JSON &&
      format != KL_FORMAT_TRACE)
    return kl__usage(KL_USAGE, "%d is not a kl_format value", (int)format);
  if (!path || !*path)
    return kl__usage(KL_USAGE, "the results file name is empty");
  kl_output *o = calloc(1, sizeof *o);
  if (!o) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  o->format = format;
  char why[160] = "";
  kl_status st = KL_OK;
  if (strcmp(path, "-") == 0) {
    o->f = stdout;
    o->to_stdout = 1;
    o->path = malloc(2);
    if (o->path) strcpy(o->path, "-");
    else st = KL_NO_MEMORY;
  } else {
    st = kl__output_file(path, &o->f, &o->path, &o->temp, why, sizeof why);
  }
  if (st == KL_OK) {
    output_head(o);
    if (fflush(o->f) != 0 || ferror(o->f)) {
      snprintf(why, sizeof why, "%s", strerror(errno));
      st = KL_USAGE;
    }
  }
  if (st != KL_OK) {
    output_free(o);
    return kl__usage(st, "cannot write results to " KL_Q ": %s",
                     KL_CLIP(path), why);
  }
  if (o->temp) {
    fclose(o->f);
    o->f = NULL;
    remove(o->temp);
    free(o->temp);
    o->temp = NULL;
    memset(&o->json, 0, sizeof o->json);
    o->deferred = 1;
  }
  *out = o;
  return KL_OK;
}

/* A deferred file made again to be written: its temporary and head. */
static kl_status output_reopen(kl_output *o) {
  char why[160] = "", *dest = NULL;
  kl_status st = kl__output_file(o->path, &o->f, &dest, &o->temp, why,
                                 sizeof why);
  free(dest);
  if (st != KL_OK)
    return kl__usage(KL_IO, "writing results to " KL_Q " failed: %s",
                     KL_CLIP(o->path), why);
  o->deferred = 0;
  output_head(o);
  return KL_OK;
}

kl_status kl_output_open(const char *path, kl_format format, kl_output **out) {
  return kl__done(output_open(path, format, out));
}

static kl_status output_write(kl_output *o, const kl_report *rep) {
  if (!o) return kl__usage(KL_USAGE, "no results file to write");
  if (!rep) {
    output_free(o);
    return kl__usage(KL_USAGE, "no report to write");
  }
  if (o->deferred) {
    const kl_status st = output_reopen(o);
    if (st != KL_OK) {
      output_free(o);
      return st;
    }
  }
  if (o->format == KL_FORMAT_CSV) {
    for (size_t i = 0; i < rep->count; i++)
      csv_row(o->f, rep, &rep->results[i]);
  } else if (o->format == KL_FORMAT_JSON) {
    json_body(&o->json, rep);
    kl__json_close(&o->json);
    fputc('\n', o->f);
  } else {
    trace_body(o->f, rep);
  }
  /* errno of the step that failed, whichever it was. */
  int err = 0;
  if (fflush(o->f) != 0 || ferror(o->f)) err = errno ? errno : EIO;
  if (!o->to_stdout && fclose(o->f) != 0 && !err) err = errno;
  o->f = NULL;
  if (!err && o->temp && rename(o->temp, o->path) != 0) err = errno;
  const int bad = err != 0;
  if (!bad && o->temp) {
    free(o->temp);
    o->temp = NULL;
  }
  kl_status st = bad ? kl__usage(KL_IO, "writing results to " KL_Q " failed: "
                                 "%s", KL_CLIP(o->path), strerror(err))
                     : KL_OK;
  output_free(o);
  return st;
}

kl_status kl_output_write(kl_output *o, const kl_report *rep) {
  return kl__done(output_write(o, rep));
}

void kl_output_discard(kl_output *o) { output_free(o); }

static kl_status write_file(const kl_report *rep, const char *path,
                            kl_format format) {
  kl_output *o;
  kl_status st = output_open(path, format, &o);
  return st == KL_OK ? output_write(o, rep) : st;
}

kl_status kl_report_write_csv(const kl_report *rep, const char *path) {
  return kl__done(write_file(rep, path, KL_FORMAT_CSV));
}

kl_status kl_report_write_json(const kl_report *rep, const char *path) {
  return kl__done(write_file(rep, path, KL_FORMAT_JSON));
}
