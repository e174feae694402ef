#include <stdio.h>
#include <string.h>

#include "internal.h"

extern const kl_backend kl__backend_serial;
extern const kl_backend kl__backend_openmp;

#if KL_HAVE_GPU
extern const kl_backend kl__backend_gpu;
#else
/* Listed even when not built, so that `kladder list` can say why. */
static int gpu_not_built(char *info, size_t size) {
  snprintf(info, size, "not built: no CUDA compiler was found at build time");
  return 0;
}
static const kl_backend kl__backend_gpu = {.name = KL_GPU,
                                           .summary = "CUDA on an NVIDIA GPU",
                                           .probe = gpu_not_built};
#endif

static const kl_backend *const backends[] = {
    &kl__backend_serial,
    &kl__backend_openmp,
    &kl__backend_gpu,
};

#define KL_WORKLOAD(name) extern const kl_workload kl__workload_##name;
#include "../workloads/workloads.def"
#undef KL_WORKLOAD

static const kl_workload *const workloads[] = {
#define KL_WORKLOAD(name) &kl__workload_##name,
#include "../workloads/workloads.def"
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

size_t kl_workload_count(void) { return sizeof workloads / sizeof *workloads; }

const kl_workload *kl_workload_at(size_t i) {
  return i < kl_workload_count() ? workloads[i] : NULL;
}

const kl_workload *kl_workload_find(const char *name) {
  for (size_t i = 0; i < kl_workload_count(); i++)
    if (strcmp(workloads[i]->name, name) == 0) return workloads[i];
  return NULL;
}

const kl_rung *kl_rung_find(const kl_workload *w, const char *name) {
  for (size_t i = 0; i < w->rung_count; i++)
    if (strcmp(w->rungs[i].name, name) == 0) return &w->rungs[i];
  return NULL;
}

const kl_rung *kl__ceiling_rung(const kl_workload **w, const char *backend) {
  const kl_workload *stream = kl_workload_find("stream");
  if (!stream) return NULL;
  for (size_t i = 0; i < stream->rung_count; i++) {
    const kl_rung *r = &stream->rungs[i];
    if ((r->flags & KL_RUNG_CEILING) && strcmp(r->backend, backend) == 0 &&
        r->run) {
      *w = stream;
      return r;
    }
  }
  return NULL;
}
