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
. "$(dirname "$0")/gpu-build.sh"
if [ "$phase" = test ]; then
  # KL_CTEST_LIMIT bounds the whole suite (default 540 s), KL_CTEST_JOBS
  # the tests side by side (default 8); every test must end inside 180 s.
  t0=$(date +%s)
  (cd build && timeout "${KL_CTEST_LIMIT:-540}" ctest --output-on-failure \
    -j "${KL_CTEST_JOBS:-8}" --timeout 300 ${KL_CTEST_ARGS:-}) \
    >"$out/ctest.log" 2>&1
  rc=$?
  echo "== ctest: exit $rc after $(( $(date +%s) - t0 )) s (124: the limit)"
  echo "== the slowest tests (seconds)"
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+ *([^0-9]*[^ ]) +([0-9.]+) sec$/\3 \1 \2/p' \
    "$out/ctest.log" | sort -rn | head -16
  over=$(sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+.* ([0-9.]+) sec$/\2 \1/p' \
    "$out/ctest.log" | awk '$1 > 180' | wc -l)
  echo "tests over 180 s: $over"
  grep -E "tests passed|\*\*\*(Failed|Timeout)|Exception" "$out/ctest.log" | tail -12
  exit $rc
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
