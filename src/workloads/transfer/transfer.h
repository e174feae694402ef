/* transfer: y = x through the device, the host arrays in pinned (or
 * pageable) memory: n floats to the device and back, in chunks through a
 * ring of device buffers. Its duplex rung, both directions at once on two
 * streams, is the ceiling of the work that moves host arrays through the
 * GPU (offload, pipeline): what the two copy engines carry together.
 * Cost model: 4n bytes each way, 8n in all. */
#ifndef KL_TRANSFER_H
#define KL_TRANSFER_H

#include "../../core/internal.h"

enum { XFER_X, XFER_Y, XFER_RING };
enum { XFER_PARAM_N, XFER_PARAM_CHUNK };
/* Device buffers in the ring: a chunk's copy back, the next one's copy in
 * and one to spare, so that neither direction waits for the other. */
#define XFER_RING_SLOTS 3

#ifdef __cplusplus
extern "C" {
#endif
kl_status kl__transfer_omp(const kl_args *a);
kl_status kl__transfer_gpu_pinned_scratch(kl_plan *p);
kl_status kl__transfer_gpu_pageable_scratch(kl_plan *p);
kl_status kl__transfer_gpu_one_stream(const kl_args *a);
kl_status kl__transfer_gpu_duplex(const kl_args *a);
#ifdef __cplusplus
}
#endif

#endif
