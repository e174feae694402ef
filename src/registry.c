/* The registries of backends and workloads, each from its one list. */
#include <string.h>

#include "core/harness.h"
#include "registry.h"

static const kl_backend *const backends[] = {
#define KL_BACKEND(name) &kl__backend_##name,
#include "backends/backends.def"
#undef KL_BACKEND
};

static const kl_workload *const workloads[] = {
#define KL_WORKLOAD(name) &kl__workload_##name,
#include "workloads/workloads.def"
#undef KL_WORKLOAD
};

size_t kl_backend_count(void) { return sizeof backends / sizeof *backends; }

const kl_backend *kl_backend_at(size_t i) {
  return i < kl_backend_count() ? backends[i] : NULL;
}

const kl_backend *kl_backend_find(const char *name) {
  for (size_t i = 0; i < kl_backend_count(); i++)
    if (strcmp(backends[i]->name, name) == 0) return backends[i];
  return NULL;
}

int kl_backend_available(const kl_backend *b, char *info, size_t info_size) {
  char scratch[256];
  if (info == NULL) info = scratch, info_size = sizeof scratch;
  return b->probe(info, info_size);
}

int kl_backend_devices(const kl_backend *b) {
  if (!kl_backend_available(b, NULL, 0)) return 0;
  return b->device_count ? b->device_count() : 1;
}

int kl_backend_host_memory(const kl_backend *b) {
  return b->host_memory || (b->memory_on_host && b->memory_on_host());
}

/* A test program's fake workload, after the listed ones (harness.h). */
static const kl_workload *added;

void kl__workload_add(const kl_workload *w) { added = w; }

size_t kl_workload_count(void) {
  return sizeof workloads / sizeof *workloads + (added != NULL);
}

const kl_workload *kl_workload_at(size_t i) {
  const size_t listed = sizeof workloads / sizeof *workloads;
  return i < listed ? workloads[i] : i == listed ? added : NULL;
}

const kl_workload *kl_workload_find(const char *name) {
  for (size_t i = 0; i < kl_workload_count(); i++)
    if (strcmp(kl_workload_at(i)->name, name) == 0) return kl_workload_at(i);
  return NULL;
}

const kl_rung *kl_rung_find(const kl_workload *w, const char *name) {
  for (size_t i = 0; i < w->rung_count; i++)
    if (strcmp(w->rungs[i].name, name) == 0) return &w->rungs[i];
  return NULL;
}

int kl_param_index(const kl_workload *w, const char *name) {
  for (int i = 0; i < w->param_count; i++)
    if (strcmp(w->params[i].name, name) == 0) return i;
  return -1;
}

int kl__param_with(const kl_workload *w, unsigned flag) {
  for (int i = 0; i < w->param_count; i++)
    if (w->params[i].flags & flag) return i;
  return -1;
}
