/* kladder's laplacian entry point: f = del^2 u by the 7-point
 * finite-difference stencil, with a backend's fastest hand-written rung. */
#ifndef KLADDER_LAPLACIAN_H
#define KLADDER_LAPLACIAN_H

#include "kladder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* f = d2u/dx2 + d2u/dy2 + d2u/dz2 by central differences on an
 * nx x ny x nz grid of spacings hx, hy, hz, for type KL_F64 or KL_F32
 * (KL_TYPE_DEFAULT: f64), on the context ctx (kl_context_open(): "serial", "openmp", "cuda:1", ...;
 * NULL: the process's default context of the preferred backend that has
 * a library rung, a GPU where there is one). u and f hold
 * nx * ny * nz elements of the type, x fastest: point (i, j, k) is element
 * i + nx * (j + ny * k). Only the interior points (1 .. n-2 on every axis)
 * of f are written,
 *   f = (u[i-1] - 2u + u[i+1]) / hx^2 + (same in j) / hy^2
 *       + (same in k) / hz^2;
 * f's boundary points are left as they were, and u is not written: a grid
 * with an extent below 3 writes nothing. u and f are host memory, or the
 * context's device memory when data_on_device is nonzero. The result is
 * within (gamma_12(u) + 2^-58) M of the exact stencil of u, M the sum of
 * the seven terms' |coefficient x u| (docs/workloads/laplacian.md). KL_USAGE for an
 * extent below 1, a spacing zero, non-finite or whose 1/h^2 the type
 * cannot hold, or a NULL u or f; KL_TOO_LARGE for a
 * grid beyond memory. */
kl_status kl_laplacian(kl_context *ctx, kl_type type, int64_t nx,
                       int64_t ny, int64_t nz, double hx, double hy,
                       double hz, const void *u, void *f, int data_on_device);

#ifdef __cplusplus
}
#endif
#endif
