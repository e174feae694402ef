#!/usr/bin/env bash
# On the GPU machine: issue 32's and 33's figures and tests. Builds like
# gpu-check.sh where no build is there, with the OpenCL headers carried in
# .cl-headers/ where the machine has none (see below). Results (JSON, text
# tables) under $OUT, tarred into one file; a short table last.
#   tests   the CUDA tests of the workloads with distributed rungs, the
#           OpenCL rungs on NVIDIA's OpenCL, the MPI tests
#   mpi1    1 rank: cg-dist against cg (OpenMP on the host's 16 cores),
#           laplacian-dist cuda-staged and cuda-nccl (no NCCL call on one
#           rank) against laplacian cuda-zmarch-vector (the same kernel),
#           reduce-dist cuda-best and cuda-nccl against reduce's
#   mpi2    2 ranks sharing the GPU: the same, weak and strong (cuda-nccl
#           stands aside: one GPU per rank); the faces' exchange phase
#           against transfer's pinned copies
#   gpus    where the machine has 2 GPUs or more, a rank per GPU: the
#           distributed GPU rungs, NCCL's among them, weak and strong,
#           int32 sums and a NaN on one rank's part
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0, which the library sets
# too).
#   opencl  NVIDIA's OpenCL beside CUDA: stream, map, reduce f64 256M,
#           histogram, laplacian 512^3
# KL_ISSUE_ONLY=REGEX runs only the parts whose names match.
# The OpenCL headers: where /usr/include/CL/cl.h is missing, copy them
# here first (cp -r /usr/include/CL .cl-headers/) and carry .cl-headers.
set -uo pipefail
out=${OUT:-/tmp/kladder-out}
mkdir -p "$out"
only=${KL_ISSUE_ONLY:-.}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader |
  tee "$out/gpu.txt"
git log -1 --format='commit %h %s' 2>/dev/null | cut -c1-80 | tee -a "$out/gpu.txt"
if [ ! -f /usr/include/CL/cl.h ] && [ -f .cl-headers/CL/cl.h ]; then
  export KL_GPU_CMAKE_EXTRA="-DKL_OPENCL_INCLUDE=$PWD/.cl-headers"
fi
. "$(dirname "$0")/gpu-build.sh"
# NVIDIA's OpenCL: the machine lists only PoCL; a folder with its ICD.
mkdir -p /tmp/kl-icd
echo libnvidia-opencl.so.1 >/tmp/kl-icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/kl-icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0
k="./build/kladder run -q"
part() { [[ $1 =~ $only ]]; }
step() { echo "== $1 ($(date +%T))" >&2; }
./build/kladder list >"$out/list.txt" 2>&1
grep -A2 '^  opencl' "$out/list.txt" >&2

if part tests; then
  step tests
  (cd build && ctest -R 'rungs-cuda-(reduce|laplacian)$|opencl|mpi' \
    --timeout 500 >"$out/ctest.txt" 2>&1)
  tail -5 "$out/ctest.txt" >&2
fi
if part mpi1; then
  step mpi1
  mpirun -np 1 $k -w cg-dist,cg -b openmp -n 128 --reps 5 \
    --json "$out/mpi1-cg.json" >"$out/mpi1-cg.txt" 2>&1
  mpirun -np 1 $k -w laplacian-dist,laplacian -b cuda \
    -r cuda-staged,cuda-nccl,cuda-zmarch-vector -n 512 --reps 20 \
    --json "$out/mpi1-lap.json" >"$out/mpi1-lap.txt" 2>&1
  mpirun -np 1 $k -w reduce-dist,reduce -b cuda -r cuda-best,cuda-nccl \
    -n 256M --reps 20 --json "$out/mpi1-reduce.json" \
    >"$out/mpi1-reduce.txt" 2>&1
fi
if part mpi2; then
  step mpi2
  for s in weak strong; do
    mpirun -np 2 $k -w laplacian-dist -b cuda -n 514 --scaling $s --reps 20 \
      --json "$out/mpi2-lap-$s.json" >"$out/mpi2-lap-$s.txt" 2>&1
    mpirun -np 2 $k -w reduce-dist -b cuda -n 128M --scaling $s --reps 20 \
      --json "$out/mpi2-reduce-$s.json" >"$out/mpi2-reduce-$s.txt" 2>&1
    mpirun -np 2 $k -w cg-dist -b openmp -n 128 --scaling $s --reps 5 \
      --json "$out/mpi2-cg-$s.json" >"$out/mpi2-cg-$s.txt" 2>&1
  done
  $k -w transfer -b cuda -n 2M --reps 20 --json "$out/transfer.json" \
    >"$out/transfer.txt" 2>&1
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if part gpus && [ "$gpus" -ge 2 ]; then
  step "gpus ($gpus)"
  r=cuda-staged,cuda-aware,cuda-nccl,cuda-best
  for s in weak strong; do
    mpirun -np "$gpus" $k -w laplacian-dist -b cuda -r $r -n 514 \
      --scaling $s --reps 20 --json "$out/gpus-lap-$s.json" \
      >"$out/gpus-lap-$s.txt" 2>&1
    mpirun -np "$gpus" $k -w reduce-dist -b cuda -r $r -n 128M \
      --scaling $s --reps 20 --json "$out/gpus-reduce-$s.json" \
      >"$out/gpus-reduce-$s.txt" 2>&1
  done
  mpirun -np "$gpus" $k -w reduce-dist -b cuda -r cuda-best,cuda-nccl \
    -t i32 --inputs large -n 16M --reps 5 --no-ceiling \
    --json "$out/gpus-reduce-i32.json" >"$out/gpus-reduce-i32.txt" 2>&1
  mpirun -np "$gpus" $k -w reduce-dist -b cuda -r cuda-best,cuda-nccl \
    -t f32 --op max --inputs nan-middle -n 16M --reps 5 --no-ceiling \
    --json "$out/gpus-reduce-nan.json" >"$out/gpus-reduce-nan.txt" 2>&1
fi
if part opencl; then
  step opencl
  $k -w stream -b cuda,opencl -r cuda-memcpy,opencl-copy,cuda-triad,opencl-triad \
    --reps 20 --json "$out/cl-stream.json" >"$out/cl-stream.txt" 2>&1
  $k -w map -b cuda,opencl -r cuda-vec4,opencl-vec4,opencl-thread --reps 20 \
    --json "$out/cl-map.json" >"$out/cl-map.txt" 2>&1
  $k -w reduce -b cuda,opencl -r cuda-cub,cuda-best,opencl-tree,opencl-one-pass \
    -t f64 -n 256M --reps 20 --json "$out/cl-reduce.json" \
    >"$out/cl-reduce.txt" 2>&1
  $k -w histogram -b cuda,opencl -r cuda-cub,cuda-best,opencl-local \
    --reps 20 --json "$out/cl-histogram.json" >"$out/cl-histogram.txt" 2>&1
  $k -w laplacian -b cuda,opencl -r cuda-zmarch-vector,opencl-point,opencl-zmarch \
    -n 512 --reps 20 --json "$out/cl-laplacian.json" \
    >"$out/cl-laplacian.txt" 2>&1
fi
tar -C "$out" -czf "$out/results.tgz" --exclude results.tgz . 2>/dev/null
# The short table: every result's rate, %ceil, efficiency where there.
python3 - "$out" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    try:
        rs = json.load(open(f))["results"]
    except Exception as e:
        print(os.path.basename(f), "unreadable:", e)
        continue
    for r in rs:
        if r.get("ceiling_only"):
            continue
        eff = r.get("efficiency")
        print("%-18s %-15s %-20s %10s %9.4g %-6s %6s %s" % (
            os.path.basename(f)[:-5], r["workload"], r["rung"],
            r.get("shape", ""), r.get("rate") or 0, r.get("unit", ""),
            "%.3g" % eff if eff else "-", r.get("check")))
PY
