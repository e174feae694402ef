/* Every backend and workload, declared from the one lists
 * (backends/backends.def, workloads/workloads.def): what a rung table
 * names (its backend, as model.h's rung macros write &kl__backend_ID; a
 * ceiling's workload) and what the registry (registry.c) lists. Beside
 * the core, not in it: the core includes nothing of the backends and
 * workloads, and finds them through the registry's functions
 * (kl_backend_at, kl_workload_find, ...). */
#ifndef KL_REGISTRY_H
#define KL_REGISTRY_H

#include "core/model.h"

#define KL_BACKEND(name) extern const kl_backend kl__backend_##name;
#include "backends/backends.def"
#undef KL_BACKEND
#define KL_WORKLOAD(name) extern const kl_workload kl__workload_##name;
#include "workloads/workloads.def"
#undef KL_WORKLOAD

#endif
