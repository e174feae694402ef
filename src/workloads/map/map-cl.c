/* map's OpenCL rungs (map.cl): an element a work-item, and four as one
 * 16-byte vector (cuda-vec4's work), in groups of 256 on a GPU and of the
 * runtime's choosing on a CPU. */
#include "../../backends/opencl.h"
#include "cl-sources.h"
#include "map.h"

kl_status kl__map_cl_thread_setup(kl_args *a) {
  return kl__cl_rung_kernel(a, kl__cl_source_map, 0, "", "map_thread", 0);
}

kl_status kl__map_cl_vec4_setup(kl_args *a) {
  return kl__cl_rung_kernel(a, kl__cl_source_map, 0, "", "map_vec4", 0);
}

static kl_status run(const kl_args *a, int per_item) {
  cl_kernel k = a->state.pointer[0];
  cl_mem x = a->buffers[MAP_X], y = a->buffers[MAP_Y];
  const cl_float ca = (cl_float)a->plan->constants[MAP_A],
                 cb = (cl_float)a->plan->constants[MAP_B],
                 cc = (cl_float)a->plan->constants[MAP_C];
  const cl_ulong n = (cl_ulong)a->plan->n;
  KL_CL_ARG(k, 0, x);
  KL_CL_ARG(k, 1, y);
  KL_CL_ARG(k, 2, ca);
  KL_CL_ARG(k, 3, cb);
  KL_CL_ARG(k, 4, cc);
  KL_CL_ARG(k, 5, n);
  const size_t items = (size_t)((n + (cl_ulong)per_item - 1) / per_item);
  return kl__cl_launch(a, k, items, kl__cl_group(a));
}

kl_status kl__map_cl_thread(const kl_args *a) { return run(a, 1); }
kl_status kl__map_cl_vec4(const kl_args *a) { return run(a, 4); }

/* Seed 000 §3.1.6's pitfall, kept to be caught: opencl-thread's launch
 * timed by the host clock with nothing that waits for the kernel, so each
 * time is the enqueue's, not the work's. The queue is drained only once
 * every timer has stopped. */
kl_status kl__map_cl_host_clock(const kl_args *a, kl_reps *reps) {
  for (int i = 0; i < reps->count; i++) {
    const double start = kl__now();
    const kl_status st = run(a, 1);
    reps->seconds[i] = kl__now() - start;
    if (st != KL_OK) return st;
  }
  KL_CL_CHECK(kl__cl.Finish(kl__cl_queue(a)));
  return KL_OK;
}
