#!/usr/bin/env bash
# On the GPU machine: build, then `test` (the whole CTest suite, CUDA tests
# included) or `run` (the default suite, as `make run` runs it, and the
# reduce and integrate figures the issues name). Logs under $OUT; a short
# summary last.
set -uo pipefail
phase=${1:-test}
out=${OUT:-/tmp/kladder-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
  --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build -DKL_WERROR=ON >"$out/cmake.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >>"$out/cmake.log" 2>&1 ||
  { tail -30 "$out/cmake.log"; exit 1; }
if [ "$phase" = test ]; then
  (cd build && ctest --output-on-failure -j 4) >"$out/ctest.log" 2>&1
  echo "== ctest (exit $?)"
  grep -E "Test +#" "$out/ctest.log" | grep -E "rungs|Failed|checks|api" | cut -c1-80
  grep -E "tests passed|\*\*\*" "$out/ctest.log" | tail -12
  exit 0
fi
k="./build/kladder run -q"
./build/kladder run --csv "$out/run.csv" --json "$out/run.json" \
  >"$out/run.txt" 2>"$out/run-progress.log"
echo "== kladder run (exit $?)"
{
  $k -w reduce -b cuda -t f64 -n 256M --reps 30
  $k -w reduce -b cuda -t f32 -n 512M --reps 30
  for t in f64 i32 f32; do $k -w reduce -b cuda -t $t -n 1M --reps 100 --warmup 10 --no-ceiling; done
  for t in f64 f32; do $k -w integrate -b cuda -t $t; done
} >"$out/figures.txt" 2>&1
grep -E "^(stream|map|reduce|integrate)" "$out/run.txt" | grep -E "memcpy|triad|vec4|best|cub|fast|openmp" |
  awk '{printf "%-10s %-24s %-4s %-4s %10s %9s %-3s %8s %-6s %7s %s\n",$1,$2,$4,$5,$6,$7,$8,$13,$14,$15,$18}'
echo "== figures"
grep -E "^(stream|reduce|integrate)" "$out/figures.txt" | grep -E "memcpy|best|cub|fast" |
  awk '{printf "%-10s %-24s %-4s %-4s %10s %9s %-3s %8s %-6s %7s %s\n",$1,$2,$4,$5,$6,$7,$8,$13,$14,$15,$18}'
