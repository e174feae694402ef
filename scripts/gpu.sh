#!/usr/bin/env bash
# The one entry point on a machine with an NVIDIA GPU:
#
#   scripts/gpu.sh check                 configure BUILD with warnings as
#                                        errors, build it, run `kladder list`
#                                        and the default `kladder run` once;
#                                        PASS or FAIL last (FAIL too where the
#                                        cuda backend is not available)
#   scripts/gpu.sh test [CTEST ARGS...]  build, then the whole CTest suite
#                                        (the big tests included) with
#                                        -j JOBS --output-on-failure, timed
#   scripts/gpu.sh sanitize [--plan]     build, then scripts/gpu-sanitize.sh
#                                        BUILD: every CUDA rung under
#                                        compute-sanitizer's tools (logs in
#                                        $OUT, default /tmp/kladder-sanitize;
#                                        its own KL_SANITIZE_* settings
#                                        apply); --plan prints its shards only
#   scripts/gpu.sh bytes [--plan]        build, then scripts/gpu-bytes.sh
#                                        BUILD: each memory-bound
#                                        workload's headline CUDA rung (and
#                                        its naive one) once under Nsight
#                                        Compute, the DRAM bytes it counts
#                                        against the bytes the cost model
#                                        declares, within 10% (the table
#                                        and ncu's CSV in $OUT, default
#                                        /tmp/kladder-bytes; its own
#                                        KL_BYTES_* and NCU settings apply;
#                                        exit 2 without ncu or its
#                                        counters); --plan prints its rungs
#                                        only
#   scripts/gpu.sh bench W [OPTS...]     build, then `kladder run -w W --json
#                                        FILE OPTS...` on every backend here
#                                        (OPTS: any of `kladder run --help`)
#
# bench's JSON: FILE is $KL_OUT where set, else results-HOST-W.json in the
# current directory (HOST: `hostname -s`; characters of W other than
# letters, digits and . , _ - become _).
#
# The build: BUILD (default build-gpu; a relative path is taken from the
# repository's root, as make's BUILD is) configured with -DKL_WERROR=ON and
# -DCMAKE_CUDA_FLAGS=-lineinfo (source lines in the sanitizer's findings;
# one build serves every command), then CMAKE_FLAGS (more cmake options,
# words); built with JOBS jobs (default: the cores). Its log is
# BUILD/gpu-build.log, whose last lines are shown when it fails.
#
# Environment set for every command (only where not set already):
#   NCCL_NVLS_ENABLE=0                 NCCL's NVLink multicast (NVLS) off
#   OMPI_ALLOW_RUN_AS_ROOT=1, OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
#                                      as root: Open MPI's mpirun runs (the
#                                      MPI tests and rungs)
#   OCL_ICD_VENDORS=BUILD/opencl-vendors
#                                      where no ICD file in
#                                      /etc/OpenCL/vendors names NVIDIA's
#                                      library and libnvidia-opencl.so.1 is
#                                      here: a folder holding the registered
#                                      ICD files and a one-line nvidia.icd,
#                                      so that the OpenCL backend sees the
#                                      GPU
#
# Without an NVIDIA GPU (no nvidia-smi, or it lists none) one line says so
# and the exit code is 2, before anything is built; KL_GPU_ANYWAY=1 goes on
# without one (the GPU parts then skip or fail as they would).
# Exit: 0 PASS; 1 FAIL (the build, a check, a test); 2 bad usage or no GPU;
# bench, sanitize and bytes exit as kladder run, gpu-sanitize.sh and
# gpu-bytes.sh do.
set -uo pipefail

me=gpu.sh
usage() {
  echo "usage: scripts/gpu.sh check | test [CTEST ARGS...] | sanitize [--plan] | bytes [--plan]" >&2
  echo "       | bench W [kladder run options...]" >&2
  echo "       (scripts/gpu.sh --help: the whole text)" >&2
  exit 2
}
[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
-h | --help | help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
check) [ $# -eq 0 ] || usage ;;
test) ;;
sanitize | bytes) [ $# -eq 0 ] || { [ $# -eq 1 ] && [ "$1" = --plan ]; } || usage ;;
bench)
  if [ $# -lt 1 ] || [ -z "$1" ]; then
    echo "$me: bench needs a workload (W)" >&2
    usage
  fi
  workload=$1
  shift ;;
*) echo "$me: unknown command '$cmd'" >&2; usage ;;
esac

# The caller's directory (bench's results) before moving to the root.
caller=$PWD
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2

# ---- a GPU here ----------------------------------------------------------
# shellcheck source=scripts/gpu-here.sh
. "$root/scripts/gpu-here.sh"
gpu_here "$me"
if [ -n "$gpu_missing" ]; then
  echo "== no NVIDIA GPU ($gpu_missing); going on: KL_GPU_ANYWAY=1"
else
  echo "== $(nvidia-smi -L | wc -l) GPU(s):"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total \
    --format=csv,noheader | sed 's/^/   /'
fi

# ---- settings and environment --------------------------------------------
BUILD=${BUILD:-build-gpu}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$BUILD" || exit 1

export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
set_env="NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
  export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
  set_env="$set_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
fi
# NVIDIA's OpenCL: its ICD where none registered names it.
nvidia_ocl() {
  { ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl\.so\.1'; } ||
    ls /usr/lib/*/libnvidia-opencl.so.1 /usr/lib64/libnvidia-opencl.so.1 \
      >/dev/null 2>&1
}
if [ -z "${OCL_ICD_VENDORS:-}" ] &&
  ! grep -qs nvidia /etc/OpenCL/vendors/*.icd && nvidia_ocl; then
  icd=$BUILD/opencl-vendors
  rm -rf "$icd" && mkdir -p "$icd" || exit 1
  for f in /etc/OpenCL/vendors/*.icd; do
    [ ! -f "$f" ] || cp "$f" "$icd/"
  done
  echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
  export OCL_ICD_VENDORS=$icd
  set_env="$set_env OCL_ICD_VENDORS=$icd"
fi
echo "== environment: $set_env"

# ---- the build -----------------------------------------------------------
build() {
  local t0 log=$BUILD/gpu-build.log
  t0=$(date +%s)
  echo "== build: $BUILD (-DKL_WERROR=ON -DCMAKE_CUDA_FLAGS=-lineinfo${CMAKE_FLAGS:+ $CMAKE_FLAGS}), $JOBS jobs"
  # shellcheck disable=SC2086 # CMAKE_FLAGS: words of cmake options
  if ! { cmake -S "$root" -B "$BUILD" -DKL_WERROR=ON \
    -DCMAKE_CUDA_FLAGS=-lineinfo ${CMAKE_FLAGS:-} &&
    cmake --build "$BUILD" -j "$JOBS"; } >"$log" 2>&1; then
    tail -30 "$log"
    echo "== build failed after $(( $(date +%s) - t0 )) s (log: $log)"
    return 1
  fi
  echo "== built in $(( $(date +%s) - t0 )) s"
}
verdict() { # rc what
  if [ "$1" = 0 ]; then echo "$me $cmd: PASS"; else echo "$me $cmd: FAIL ($2)"; fi
}

build || { verdict 1 "the build"; exit 1; }
kladder=$BUILD/kladder

case $cmd in
check)
  echo "== kladder list"
  list=$("$kladder" list 2>&1)
  rc=$?
  printf '%s\n' "$list"
  [ $rc = 0 ] || { verdict 1 "kladder list: exit $rc"; exit 1; }
  if ! printf '%s\n' "$list" | grep -qE '^ +cuda +available'; then
    if [ "${KL_GPU_ANYWAY:-0}" != 1 ]; then
      verdict 1 "the cuda backend is not available: nvcc not found at configure time, or no device"
      exit 1
    fi
    echo "== the cuda backend is not available (KL_GPU_ANYWAY=1: not a failure)"
  fi
  echo "== kladder run"
  t0=$(date +%s)
  "$kladder" run
  rc=$?
  echo "== kladder run: exit $rc after $(( $(date +%s) - t0 )) s"
  verdict $rc "kladder run: exit $rc"
  [ $rc = 0 ] || exit 1 ;;
test)
  t0=$(date +%s)
  (cd "$BUILD" && ctest --output-on-failure -j "$JOBS" "$@")
  rc=$?
  echo "== ctest: exit $rc after $(( $(date +%s) - t0 )) s"
  verdict $rc "ctest: exit $rc"
  [ $rc = 0 ] || exit 1 ;;
sanitize)
  "$root/scripts/gpu-sanitize.sh" "$@" "$BUILD"
  rc=$?
  verdict $rc "gpu-sanitize.sh: exit $rc"
  exit $rc ;;
bytes)
  "$root/scripts/gpu-bytes.sh" "$@" "$BUILD"
  rc=$?
  verdict $rc "gpu-bytes.sh: exit $rc"
  exit $rc ;;
bench)
  if [ -n "${KL_OUT:-}" ]; then
    case $KL_OUT in /*) json=$KL_OUT ;; *) json=$caller/$KL_OUT ;; esac
  else
    host=$(hostname -s 2>/dev/null || hostname)
    json=$caller/results-$host-$(printf '%s' "$workload" | tr -c 'A-Za-z0-9.,_-' '_').json
  fi
  echo "== kladder run -w $workload --json $json $*"
  "$kladder" run -w "$workload" --json "$json" "$@"
  rc=$?
  [ $rc -ge 2 ] || echo "== results: $json"
  verdict $rc "kladder run: exit $rc"
  exit $rc ;;
esac
