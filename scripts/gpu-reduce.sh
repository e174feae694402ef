#!/usr/bin/env bash
# On the GPU machine: the reduce ladder's CUDA tests and its figures.
# Usage: bash scripts/gpu-reduce.sh [quick]; logs under $OUT.
set -uo pipefail
out=${OUT:-/tmp/kladder-out}
mkdir -p "$out"
cmake -S . -B build -DKL_WERROR=ON >"$out/cmake.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >>"$out/cmake.log" 2>&1 ||
  { tail -30 "$out/cmake.log"; exit 1; }
./build/tests/test_rungs cuda 1 2 31 32 33 63 64 65 1000003 >"$out/rungs-cuda.txt" 2>&1
echo "rungs-cuda exit $?: $(tail -1 "$out/rungs-cuda.txt")"
grep -E "FAIL" "$out/rungs-cuda.txt" | head -20
k="./build/kladder run -w reduce -b cuda -q"
{
  $k -t f64 -n 256M --reps 20
  $k -t f32 -n 512M --reps 20 --no-ceiling
  $k -t f64 -n 1M --reps 100 --warmup 10 --no-ceiling
  $k -t i32 -n 1M --reps 100 --warmup 10 --no-ceiling
  $k -t f32 -n 1M --reps 100 --warmup 10 --no-ceiling
} >"$out/reduce-perf.txt" 2>&1
grep -E "^reduce|^stream" "$out/reduce-perf.txt" | cut -c1-24,44-60,62-74,110-150
