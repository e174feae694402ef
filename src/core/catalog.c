/* What this library holds, for the user's API: backends and their
 * devices, workloads with their parameters and rungs (the info structs),
 * and all of it as the JSON document of `kladder list --json`. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "json.h"

/* ---- backends and devices ------------------------------------------------ */

static kl_status backend_describe(size_t i, kl_backend_info *out) {
  const kl_backend *b = kl_backend_at(i);
  if (!b)
    return kl__usage(KL_USAGE, "kl_backend_describe: no backend %zu (there "
                     "are %zu)", i, kl_backend_count());
  kl_backend_info full;
  memset(&full, 0, sizeof full);
  full.size = sizeof full;
  full.name = b->name;
  full.summary = b->summary;
  full.available = kl_backend_available(b, full.detail, sizeof full.detail);
  full.device_count = kl_backend_devices(b);
  full.host_memory = kl_backend_host_memory(b);
  return kl__copy_sized(out, &full, sizeof full, "kl_backend_describe");
}

kl_status kl_backend_describe(size_t i, kl_backend_info *out) {
  return kl__done(backend_describe(i, out));
}

/* Device `index` of b as described once per process (kl__device_at: the
 * first to ask describes it), or described now where that has none (an
 * index past its table, or a describe that failed, for its status). */
static kl_status device_of(const kl_backend *b, int index, kl_device *out) {
  const kl_device *d = kl__device_at(b, index);
  if (d) {
    *out = *d;
    return KL_OK;
  }
  return kl__device_describe(b, index, out);
}

static kl_status device_describe(const char *backend, int index,
                                 kl_device_info *out) {
  if (!backend) return kl__usage(KL_USAGE, "kl_device_describe: no backend");
  char text[96];
  snprintf(text, sizeof text, "%.60s:%d", backend, index);
  kl__device_ref ref;
  kl_status st = index < 0 ? kl__usage(KL_USAGE, "device index %d is "
                                       "negative", index)
                           : kl__device_parse(text, &ref);
  kl_device d;
  if (st == KL_OK) st = device_of(ref.backend, ref.index, &d);
  if (st != KL_OK) return st;
  kl_device_info full;
  kl__device_info(ref.backend, &d, &full);
  return kl__copy_sized(out, &full, sizeof full, "kl_device_describe");
}

kl_status kl_device_describe(const char *backend, int index,
                             kl_device_info *out) {
  return kl__done(device_describe(backend, index, out));
}

/* ---- workloads, parameters, rungs ----------------------------------------- */

static const char *const kind_names[] = {"size", "int", "real", "choice"};

static kl_status workload_of(size_t i, const char *what,
                             const kl_workload **out) {
  *out = kl_workload_at(i);
  if (!*out)
    return kl__usage(KL_USAGE, "%s: no workload %zu (there are %zu)", what, i,
                     kl_workload_count());
  return KL_OK;
}

static kl_status workload_describe(size_t i, kl_workload_info *out) {
  const kl_workload *w;
  kl_status st = workload_of(i, "kl_workload_describe", &w);
  if (st != KL_OK) return st;
  kl_workload_info full;
  memset(&full, 0, sizeof full);
  full.size = sizeof full;
  full.name = w->name;
  full.summary = w->summary;
  full.check = w->tolerance;
  full.source = w->source;
  full.unit = w->unit;
  full.types = w->types;
  full.default_type = w->default_type;
  full.input_help = w->input ? w->input->help : NULL;
  full.param_count = w->param_count;
  full.rung_count = (int)w->rung_count;
  full.distributed = w->distributed;
  const kl_named_file *f = w->input ? w->input->files : NULL;
  for (int k = 0; f && k < KL_MAX_FILES && f[k].name; k++) {
    full.file_names[k] = f[k].name;
    full.file_help[k] = f[k].help;
    full.file_writes[k] = f[k].role != KL_IN;
    full.file_count = k + 1;
  }
  return kl__copy_sized(out, &full, sizeof full, "kl_workload_describe");
}

kl_status kl_workload_describe(size_t i, kl_workload_info *out) {
  return kl__done(workload_describe(i, out));
}

static void param_info(const kl_param *p, kl_param_info *full) {
  memset(full, 0, sizeof *full);
  full->size = sizeof *full;
  full->name = p->name;
  full->kind = kind_names[p->kind];
  full->help = p->help;
  if (!p->default_text && p->kind == KL_PARAM_CHOICE) {
    size_t count = 0;
    while (p->choices && p->choices[count]) count++;
    if (p->default_value >= 0 && p->default_value < (double)count)
      full->default_choice = p->choices[(size_t)p->default_value];
  } else if (!p->default_text) {
    full->default_value = p->default_value;
  }
  full->default_text = p->default_text;
  full->host_default = p->host_default;
  full->min = p->min;
  full->max = p->max;
  full->choices = p->kind == KL_PARAM_CHOICE ? p->choices : NULL;
  full->main_size = (p->flags & KL_PARAM_MAIN_SIZE) != 0;
  full->tuning = (p->flags & KL_PARAM_TUNING) != 0;
  full->tune_values = full->tuning ? p->tune_values : NULL;
}

static kl_status param_describe(size_t workload, int i, kl_param_info *out) {
  const kl_workload *w;
  kl_status st = workload_of(workload, "kl_param_describe", &w);
  if (st != KL_OK) return st;
  if (i < 0 || i >= w->param_count)
    return kl__usage(KL_USAGE, "kl_param_describe: %s has no parameter %d "
                     "(it has %d)", w->name, i, w->param_count);
  kl_param_info full;
  param_info(&w->params[i], &full);
  return kl__copy_sized(out, &full, sizeof full, "kl_param_describe");
}

kl_status kl_param_describe(size_t workload, int i, kl_param_info *out) {
  return kl__done(param_describe(workload, i, out));
}

static void rung_info(const kl_workload *w, const kl_rung *r,
                      kl_rung_info *full) {
  memset(full, 0, sizeof *full);
  full->size = sizeof *full;
  full->name = r->name;
  full->backend = r->backend->name;
  full->summary = r->summary;
  full->flags = r->flags;
  full->types = r->types ? r->types & w->types : w->types;
  full->library = r->library;
  full->built = kl__rung_built(r);
  full->available = full->built && kl_backend_available(r->backend, NULL, 0);
  full->peer = r->peer;
  for (int i = 0; i < w->param_count; i++)
    if (r->tunings & KL_PARAM_BIT(i))
      kl__append(full->tunings, sizeof full->tunings, "%s%s",
                 full->tunings[0] ? "," : "", w->params[i].name);
}

static kl_status rung_describe(size_t workload, int i, kl_rung_info *out) {
  const kl_workload *w;
  kl_status st = workload_of(workload, "kl_rung_describe", &w);
  if (st != KL_OK) return st;
  if (i < 0 || (size_t)i >= w->rung_count)
    return kl__usage(KL_USAGE, "kl_rung_describe: %s has no rung %d (it has "
                     "%zu)", w->name, i, w->rung_count);
  kl_rung_info full;
  rung_info(w, &w->rungs[i], &full);
  return kl__copy_sized(out, &full, sizeof full, "kl_rung_describe");
}

kl_status kl_rung_describe(size_t workload, int i, kl_rung_info *out) {
  return kl__done(rung_describe(workload, i, out));
}

static kl_status workload_index(const char *name, size_t *out) {
  for (size_t i = 0; name && i < kl_workload_count(); i++)
    if (strcmp(kl_workload_at(i)->name, name) == 0) {
      *out = i;
      return KL_OK;
    }
  char valid[512] = "";
  for (size_t i = 0; i < kl_workload_count(); i++)
    kl__append(valid, sizeof valid, "%s%s", i ? ", " : "",
               kl_workload_at(i)->name);
  return kl__usage(KL_USAGE, "unknown workload " KL_Q "; valid: %s",
                   KL_CLIP(name ? name : ""), valid);
}

kl_status kl_workload_index(const char *name, size_t *out) {
  return kl__done(workload_index(name, out));
}

/* ---- the whole catalog as JSON --------------------------------------------- */

static void json_types(kl__json *j, const char *key, unsigned types) {
  kl__json_open(j, key, '[', 0);
  for (int t = 0; t < KL_TYPE_COUNT; t++)
    if (types & KL_TYPE_BIT(t)) kl__json_string(j, NULL, kl_type_name((kl_type)t));
  kl__json_close(j);
}

static void json_param(kl__json *j, const kl_param *p) {
  kl_param_info i;
  param_info(p, &i);
  const int choice = p->kind == KL_PARAM_CHOICE;
  kl__json_open(j, NULL, '{', 0);
  kl__json_string(j, "name", i.name);
  kl__json_string(j, "kind", i.kind);
  kl__json_string(j, "help", i.help);
  if (choice) kl__json_string(j, "default", i.default_choice);
  else kl__json_number(j, "default", !i.default_text, i.default_value);
  kl__json_string(j, "default_text", i.default_text);
  kl__json_number(j, "host_default", i.host_default > 0, i.host_default);
  kl__json_number(j, "min", !choice, i.min);
  kl__json_number(j, "max", !choice, i.max);
  if (choice) {
    kl__json_open(j, "choices", '[', 0);
    for (size_t k = 0; p->choices[k]; k++)
      kl__json_string(j, NULL, p->choices[k]);
    kl__json_close(j);
  } else {
    kl__json_null(j, "choices");
  }
  kl__json_bool(j, "main_size", i.main_size);
  kl__json_bool(j, "tuning", i.tuning);
  kl__json_close(j);
}

static void json_rung(kl__json *j, const kl_workload *w, const kl_rung *r) {
  kl_rung_info i;
  rung_info(w, r, &i);
  kl__json_open(j, NULL, '{', 0);
  kl__json_string(j, "name", i.name);
  kl__json_string(j, "backend", i.backend);
  kl__json_string(j, "summary", i.summary);
  kl__json_bool(j, "built", i.built);
  kl__json_bool(j, "available", i.available);
  kl__json_bool(j, "ceiling", (i.flags & KL_RUNG_CEILING) != 0);
  kl__json_bool(j, "vendor", (i.flags & KL_RUNG_VENDOR) != 0);
  kl__json_bool(j, "known_wrong", (i.flags & KL_RUNG_KNOWN_WRONG) != 0);
  json_types(j, "types", i.types);
  json_types(j, "library_types", i.library);
  kl__json_string(j, "peer", i.peer);
  kl__json_string(j, "tunings", i.tunings);
  kl__json_close(j);
}

static void json_workload(kl__json *j, const kl_workload *w) {
  kl__json_open(j, NULL, '{', 1);
  kl__json_string(j, "name", w->name);
  kl__json_string(j, "summary", w->summary);
  kl__json_string(j, "unit", w->unit);
  json_types(j, "types", w->types);
  kl__json_string(j, "default_type", kl_type_name(w->default_type));
  kl__json_string(j, "check", w->tolerance);
  kl__json_string(j, "source", w->source);
  kl__json_string(j, "input_file", w->input ? w->input->help : NULL);
  kl__json_bool(j, "distributed", w->distributed);
  /* Its named files: name, help, and whether a run writes it. */
  kl__json_open(j, "files", '[', 1);
  const kl_named_file *f = w->input ? w->input->files : NULL;
  for (int k = 0; f && k < KL_MAX_FILES && f[k].name; k++) {
    kl__json_open(j, NULL, '{', 0);
    kl__json_string(j, "name", f[k].name);
    kl__json_string(j, "help", f[k].help);
    kl__json_bool(j, "writes", f[k].role != KL_IN);
    kl__json_close(j);
  }
  kl__json_close(j);
  kl__json_open(j, "params", '[', 1);
  for (int i = 0; i < w->param_count; i++) json_param(j, &w->params[i]);
  kl__json_close(j);
  kl__json_open(j, "rungs", '[', 1);
  for (size_t r = 0; r < w->rung_count; r++) json_rung(j, w, &w->rungs[r]);
  kl__json_close(j);
  kl__json_close(j);
}

static void json_backend(kl__json *j, const kl_backend *b) {
  char info[256] = "";
  const int ok = kl_backend_available(b, info, sizeof info);
  kl__json_open(j, NULL, '{', 0);
  kl__json_string(j, "name", b->name);
  kl__json_string(j, "summary", b->summary);
  kl__json_bool(j, "available", ok);
  kl__json_string(j, "info", info);
  kl__json_open(j, "devices", '[', 0);
  for (int d = 0; d < kl_backend_devices(b); d++) {
    kl_device dev;
    kl_device_info i;
    if (device_of(b, d, &dev) != KL_OK) continue;
    kl__device_info(b, &dev, &i);
    kl__json_open(j, NULL, '{', 0);
    kl__json_string(j, "id", i.id);
    kl__json_string(j, "name", i.name);
    kl__json_number(j, "memory_bytes", 1, (double)i.memory_bytes);
    kl__json_number(j, "compute_units", 1, i.compute_units);
    kl__json_number(j, "lanes", 1, i.lanes);
    kl__json_close(j);
  }
  kl__json_close(j);
  kl__json_close(j);
}

static kl_status list_write_json(FILE *f, const char *only) {
  if (!f) return kl__usage(KL_USAGE, "kl__list_write_json: no stream");
  for (const char *p = only; p && *p;) {
    const char *end = strchr(p, ',');
    char name[128];
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    snprintf(name, sizeof name, "%.*s", (int)(len < 127 ? len : 127), p);
    size_t index;
    int any = 0;
    for (size_t i = 0; kl__is_pattern(name) && i < kl_workload_count(); i++)
      any |= kl__matches(name, kl_workload_at(i)->name);
    kl_status st = kl__is_pattern(name)
                       ? (any ? KL_OK
                              : kl__usage(KL_USAGE, "workload pattern " KL_Q
                                          " matches no workload",
                                          KL_CLIP(name)))
                       : workload_index(name, &index);
    if (st != KL_OK) return st;
    p = end ? end + 1 : NULL;
  }
  kl__json j;
  kl__json_begin(&j, f);
  kl__json_open(&j, NULL, '{', 1);
  kl__json_string(&j, "version", KL_VERSION);
  kl__json_open(&j, "backends", '[', 1);
  for (size_t i = 0; i < kl_backend_count(); i++)
    json_backend(&j, kl_backend_at(i));
  kl__json_close(&j);
  kl__json_open(&j, "workloads", '[', 1);
  for (size_t i = 0; i < kl_workload_count(); i++) {
    const kl_workload *w = kl_workload_at(i);
    if (kl__selects(only, w->name)) json_workload(&j, w);
  }
  kl__json_close(&j);
  kl__json_close(&j);
  fputc('\n', f);
  return ferror(f) ? KL_FAIL(KL_IO, "writing the list failed") : KL_OK;
}

kl_status kl__list_write_json(FILE *f, const char *workloads) {
  return kl__done(list_write_json(f, workloads));
}
