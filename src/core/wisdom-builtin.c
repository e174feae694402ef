/* The built-in wisdom (issue 31): what the library's entry points run,
 * by size, where no wisdom file of this machine is read (none at its
 * path, or one ignored: of another build or device, or malformed; see
 * wisdom.c). It is `kladder tune`'s file as measured on the H100 machine
 * (one NVIDIA H100 80GB HBM3, a 16-core Xeon host; the default sweep, each
 * workload from its smallest size to a quarter of its host default) at
 * da53a34 on 2026-11-26, docs/results/2026-11-26-issue31/wisdom-h100;
 * for map, reduce and histogram above its last size (16M elements) the
 * lines of a sweep up to the GPU's sizes on the same machine (serial,
 * openmp and cuda, 1K to 256M in steps of 8) at 7d2429d on 2026-11-27,
 * docs/results/2026-11-27-day/wisdom-gpu, where its rung differs: with
 * the copies counted the host stays fastest to 256M, and cuda-best stays
 * the GPU's pick for reduce and histogram; for gemm from 256 on, a sweep
 * of the OpenMP and CUDA rungs at 256, 512, 1024 and 2048 at ebe3dc3
 * (docs/results/2026-11-27-day/wisdom-gemm-h100): the GPU from 1024 with
 * the copies, cuda-dmma (f64) and cuda-pipelined (f32) at 1024, cuBLAS
 * at 512 and 2048 on the device; for the CUDA picks of reduce (f32, f64,
 * i32) and histogram from 1K on, the dispatch sweep of every CUDA rung
 * at 1K to 1G in steps of 4, 20 runs each (23 and 12 for histogram), at
 * 6df345e on 2026-11-27 (docs/results/2026-11-27-sixth.md), by tune's
 * rule (tune_pick): cuda-best unless a rung's median is below its
 * fastest run, which leaves cuda-best everywhere but f64 at 1G
 * (cuda-grid-stride, 0.7% faster) and histogram below 64K (cuda-shared,
 * cuda-fat-interleaved); the sweep of 2026-11-26 (five runs) had given
 * 2M-16M f64 to cuda-tree, 20% slower than cuda-best at 1M and 4M here.
 * A second dispatch sweep at 1c78276 (docs/results/2026-11-27-seventh.md)
 * moved the cells where both sweeps found another rung faster than
 * cuda-best: reduce f64 at 4K and i32 at 16K to cuda-single-pass-fence,
 * histogram from 64K to 1M to cuda-shared (cuda-best from 1M).
 * gemm from 256 on, again after the DMMA rung's tile rule (2026-11-27,
 * eighth session, de6595c's code; docs/results/2026-11-27-eighth/
 * wisdom-gemm-h100, the same sweep as above, and wisdom-gemm-cuda-h100,
 * CUDA alone at 1024-4096): f64 on the device cuda-dmma from 256 but
 * cuBLAS at 1536 (0.95-0.97x there), where cuBLAS had kept 512 and from
 * 2048; f32 unchanged; the best lines (with the copies, the backend's
 * choice) as that sweep wrote them.
 * The build line left out: the defaults of any build and machine, which
 * `kladder tune` replaces with this machine's. A line whose rung this
 * build does not have is skipped (kl_wisdom_note says how many; test
 * wisdom-builtin wants none skipped). */
#include "harness.h"

const char kl__wisdom_builtin[] =
    "kladder-wisdom 1\n"
    "device serial:0 Intel(R) Xeon(R) Processor\n"
    "device openmp:0 Intel(R) Xeon(R) Processor\n"
    "device cuda:0 NVIDIA H100 80GB HBM3\n"
    "best map f32 0 serial serial\n"
    "best map f32 262144 openmp openmp\n"
    "pick map f32 0 serial serial\n"
    "pick map f32 0 openmp openmp\n"
    "pick map f32 0 cuda cuda-grid-stride\n"
    "pick map f32 8 cuda cuda-thread\n"
    "pick map f32 64 cuda cuda-grid-stride\n"
    "pick map f32 512 cuda cuda-thread\n"
    "pick map f32 32768 cuda cuda-vec4\n"
    "pick map f32 262144 cuda cuda-thread\n"
    "pick map f32 2097152 cuda cuda-grid-stride\n"
    "pick map f32 16777216 cuda cuda-vec4\n"
    "best reduce f32 0 serial serial\n"
    "best reduce f32 32768 openmp openmp-partials\n"
    "best reduce f32 2097152 openmp openmp-clause\n"
    "best reduce f32 33554432 openmp openmp-partials\n"
    "best reduce f32 268435456 openmp openmp-clause\n"
    "pick reduce f32 0 serial serial\n"
    "pick reduce f32 0 openmp openmp-partials\n"
    "pick reduce f32 2097152 openmp openmp-clause\n"
    "pick reduce f32 33554432 openmp openmp-partials\n"
    "pick reduce f32 268435456 openmp openmp-clause\n"
    "pick reduce f32 0 cuda cuda-cub\n"
    "pick reduce f32 8 cuda cuda-best\n"
    "pick reduce f32 64 cuda cuda-cub\n"
    "pick reduce f32 1024 cuda cuda-best\n"
    "best reduce f64 0 serial serial\n"
    "best reduce f64 32768 openmp openmp-partials\n"
    "pick reduce f64 0 serial serial\n"
    "pick reduce f64 0 openmp openmp-partials\n"
    "pick reduce f64 0 cuda cuda-best\n"
    "pick reduce f64 64 cuda cuda-cub\n"
    "pick reduce f64 512 cuda cuda-best\n"
    "pick reduce f64 4096 cuda cuda-single-pass-fence\n"
    "pick reduce f64 16384 cuda cuda-best\n"
    "pick reduce f64 1073741824 cuda cuda-grid-stride\n"
    "best reduce i32 0 serial serial\n"
    "best reduce i32 32768 openmp openmp-partials\n"
    "best reduce i32 2097152 openmp openmp-clause\n"
    "best reduce i32 33554432 openmp openmp-partials\n"
    "best reduce i32 268435456 openmp openmp-clause\n"
    "pick reduce i32 0 serial serial\n"
    "pick reduce i32 0 openmp openmp-clause\n"
    "pick reduce i32 8 openmp openmp-partials\n"
    "pick reduce i32 2097152 openmp openmp-clause\n"
    "pick reduce i32 33554432 openmp openmp-partials\n"
    "pick reduce i32 268435456 openmp openmp-clause\n"
    "pick reduce i32 0 cuda cuda-best\n"
    "pick reduce i32 8 cuda cuda-cub\n"
    "pick reduce i32 64 cuda cuda-best\n"
    "pick reduce i32 16384 cuda cuda-single-pass-fence\n"
    "pick reduce i32 65536 cuda cuda-best\n"
    "best histogram u8 0 serial serial\n"
    "best histogram u8 262144 openmp openmp-blocks\n"
    "best histogram u8 33554432 openmp openmp-interleaved\n"
    "best histogram u8 268435456 openmp openmp-blocks\n"
    "pick histogram u8 0 serial serial\n"
    "pick histogram u8 0 openmp openmp-atomic\n"
    "pick histogram u8 4096 openmp openmp-interleaved\n"
    "pick histogram u8 32768 openmp openmp-blocks\n"
    "pick histogram u8 33554432 openmp openmp-interleaved\n"
    "pick histogram u8 268435456 openmp openmp-blocks\n"
    "pick histogram u8 0 cuda cuda-shared\n"
    "pick histogram u8 8 cuda cuda-four-per-thread\n"
    "pick histogram u8 64 cuda cuda-global-atomic\n"
    "pick histogram u8 512 cuda cuda-fat-interleaved\n"
    "pick histogram u8 4096 cuda cuda-shared\n"
    "pick histogram u8 1048576 cuda cuda-best\n"
    "best laplacian f32 0 openmp openmp-streaming\n"
    "best laplacian f32 4 serial serial\n"
    "best laplacian f32 16 openmp openmp-blocked\n"
    "best laplacian f32 64 openmp openmp\n"
    "pick laplacian f32 0 serial serial\n"
    "pick laplacian f32 0 openmp openmp-streaming\n"
    "pick laplacian f32 4 openmp openmp-blocked\n"
    "pick laplacian f32 8 openmp openmp-streaming\n"
    "pick laplacian f32 16 openmp openmp-blocked\n"
    "pick laplacian f32 64 openmp openmp\n"
    "pick laplacian f32 0 cuda cuda-tiled\n"
    "pick laplacian f32 2 cuda cuda-kernel1\n"
    "pick laplacian f32 4 cuda cuda-kernel1-streaming\n"
    "pick laplacian f32 8 cuda cuda-kernel1\n"
    "pick laplacian f32 16 cuda cuda-kernel1-streaming\n"
    "pick laplacian f32 64 cuda cuda-tiled\n"
    "best laplacian f64 0 serial serial\n"
    "best laplacian f64 2 openmp openmp-streaming\n"
    "best laplacian f64 4 serial serial\n"
    "best laplacian f64 32 openmp openmp-blocked\n"
    "best laplacian f64 64 openmp openmp\n"
    "pick laplacian f64 0 serial serial\n"
    "pick laplacian f64 0 openmp openmp-streaming\n"
    "pick laplacian f64 4 openmp openmp\n"
    "pick laplacian f64 8 openmp openmp-streaming\n"
    "pick laplacian f64 16 openmp openmp\n"
    "pick laplacian f64 32 openmp openmp-blocked\n"
    "pick laplacian f64 64 openmp openmp\n"
    "pick laplacian f64 0 cuda cuda-kernel1\n"
    "pick laplacian f64 4 cuda cuda-kernel1-streaming\n"
    "pick laplacian f64 16 cuda cuda-kernel1\n"
    "pick laplacian f64 32 cuda cuda-kernel1-streaming\n"
    "pick laplacian f64 64 cuda cuda-bounded\n"
    "best cg f64 0 serial serial\n"
    "best cg f64 16 openmp openmp\n"
    "pick cg f64 0 serial serial\n"
    "pick cg f64 0 openmp openmp\n"
    "pick cg f64 0 cuda cuda-fused\n"
    "pick cg f64 2 cuda cuda-matrix-free\n"
    "best integrate f32 0 serial serial\n"
    "best integrate f32 343 openmp openmp\n"
    "best integrate f32 16807 cuda cuda-best\n"
    "pick integrate f32 0 serial serial\n"
    "pick integrate f32 0 openmp openmp\n"
    "pick integrate f32 0 cuda cuda-best\n"
    "best integrate f64 0 serial serial\n"
    "best integrate f64 343 openmp openmp\n"
    "best integrate f64 16807 cuda cuda-best\n"
    "pick integrate f64 0 serial serial\n"
    "pick integrate f64 0 openmp openmp\n"
    "pick integrate f64 0 cuda cuda-best\n"
    "best gemm f32 0 serial serial-naive\n"
    "best gemm f32 8 openmp openblas\n"
    "best gemm f32 128 openmp openmp-blocked\n"
    "best gemm f32 1024 cuda cuda-pipelined\n"
    "best gemm f32 2048 cuda cuda-cublas\n"
    "pick gemm f32 0 serial serial-naive\n"
    "pick gemm f32 8 serial serial-loop-order\n"
    "pick gemm f32 0 openmp openblas\n"
    "pick gemm f32 128 openmp openmp-blocked\n"
    "pick gemm f32 2048 openmp openblas\n"
    "pick gemm f32 0 cuda cuda-shared-8\n"
    "pick gemm f32 2 cuda cuda-shared-16\n"
    "pick gemm f32 4 cuda cuda-shared-8\n"
    "pick gemm f32 8 cuda cuda-naive\n"
    "pick gemm f32 16 cuda cuda-shared-8\n"
    "pick gemm f32 128 cuda cuda-naive\n"
    "pick gemm f32 256 cuda cuda-shared-16\n"
    "pick gemm f32 512 cuda cuda-cublas\n"
    "pick gemm f32 1024 cuda cuda-pipelined\n"
    "pick gemm f32 2048 cuda cuda-cublas\n"
    "best gemm f64 0 serial serial-naive\n"
    "best gemm f64 8 openmp openblas\n"
    "best gemm f64 128 openmp openmp-blocked\n"
    "best gemm f64 1024 cuda cuda-dmma\n"
    "best gemm f64 2048 cuda cuda-padded\n"
    "pick gemm f64 0 serial serial-naive\n"
    "pick gemm f64 8 serial serial-loop-order\n"
    "pick gemm f64 0 openmp openblas\n"
    "pick gemm f64 128 openmp openmp-blocked\n"
    "pick gemm f64 1024 openmp openblas\n"
    "pick gemm f64 2048 openmp openmp-blocked\n"
    "pick gemm f64 0 cuda cuda-shared-8\n"
    "pick gemm f64 2 cuda cuda-naive\n"
    "pick gemm f64 4 cuda cuda-shared-8\n"
    "pick gemm f64 16 cuda cuda-shared-16\n"
    "pick gemm f64 256 cuda cuda-dmma\n"
    "pick gemm f64 1536 cuda cuda-cublas\n"
    "pick gemm f64 2048 cuda cuda-dmma\n";
