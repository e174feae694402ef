#!/usr/bin/env bash
# On the GPU machine: the pipeline, offload and transfer ladders' CUDA
# tests and figures, each ladder in one run with its ceiling beside it.
# Usage: bash scripts/gpu-pipeline.sh [tests|seed|chunks|big|all]
# (default all); logs, CSVs and traces under $OUT as one archive,
# pipeline-logs.tar.gz.
#   tests   test_rungs over the three workloads' own problems, test_api,
#           and a trace of the seed ladder checked by tests/check_trace.py
#   seed    the seed's ladder at its size (8 intervals of 1e8 points) and
#           at a small one (1e6), with a trace
#   chunks  the chunked ladder at the default size (the largest the host
#           holds) and at 2^28 elements, transfer beside it, with a trace
#   big     the problems past 2^31 (test_rungs --big)
set -uo pipefail
final=${OUT:-/tmp/kladder-out}
mode=${1:-all}
mkdir -p "$final"
out=$(mktemp -d)
trap 'tar czf "$final/pipeline-logs.tar.gz" -C "$out" .' EXIT
if [ ! -x build/kladder ] || [ "${KL_REBUILD:-1}" = 1 ]; then
  cmake -S . -B build -DKL_WERROR=ON >"$out/cmake.log" 2>&1 &&
    cmake --build build -j "$(nproc)" >>"$out/cmake.log" 2>&1 ||
    { tail -30 "$out/cmake.log"; exit 1; }
fi
t=./build/tests
k=./build/kladder
summary() { # csv
  python3 - "$1" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    rate = float(r["rate"] or 0)
    print(f'{r["workload"]:9s} {r["rung"]:24s} {float(r["median_s"] or 0)*1e3:10.3f} ms '
          f'{rate:9.2f} {r["unit"]:5s} {r["percent_ceiling"] or "-":>7s}% '
          f'overlap {r.get("overlap") or "-":>6s} {r["check"]}')
PY
}
if [ "$mode" = tests ] || [ "$mode" = all ]; then
  $t/test_rungs --workloads pipeline,offload,transfer cuda >"$out/rungs-cuda.txt" 2>&1
  echo "rungs-cuda exit $?: $(tail -1 "$out/rungs-cuda.txt")"
  grep -E "FAIL|error" "$out/rungs-cuda.txt" | head -20
  $t/test_api >"$out/api.txt" 2>&1
  echo "test_api exit $?: $(tail -1 "$out/api.txt")"
  $k run -w pipeline -b cuda -q -n 1M --reps 3 --csv "$out/trace-check.csv" \
    --trace "$out/trace-check.json" >"$out/trace-check.txt" 2>&1
  echo "trace run exit $?"
  python3 tests/check_trace.py "$out/trace-check.json" "$out/trace-check.csv"
  echo "check_trace exit $?"
fi
if [ "$mode" = seed ] || [ "$mode" = all ]; then
  for n in 1M 100000000; do
    $k run -w pipeline -b cuda -q -n $n --reps 10 --warmup 2 \
      --csv "$out/seed-$n.csv" --trace "$out/seed-$n.json" >"$out/seed-$n.txt" 2>&1
    echo "== seed ladder n=$n: exit $?"
    summary "$out/seed-$n.csv"
    grep -A1 "last run" "$out/seed-$n.txt" | grep -v "^--" | head -20
  done
fi
if [ "$mode" = chunks ] || [ "$mode" = all ]; then
  for n in 268435456 default; do
    size=(); [ "$n" = default ] || size=(-n "$n")
    rungs=(); [ "$n" = default ] && [ -n "${KL_CHUNK_RUNGS:-}" ] && rungs=(-r "$KL_CHUNK_RUNGS")
    $k run -w offload -b cuda -q "${size[@]}" "${rungs[@]}" --reps ${KL_CHUNK_REPS:-5} --warmup 1 \
      --csv "$out/chunks-$n.csv" --trace "$out/chunks-$n.json" >"$out/chunks-$n.txt" 2>&1
    echo "== chunked ladder n=$n: exit $?"
    grep -i "instead of\|note" "$out/chunks-$n.txt" | head -3
    summary "$out/chunks-$n.csv"
    grep "last run" "$out/chunks-$n.txt" | head -20
  done
  $k run -w transfer -b cuda -q --reps 10 --csv "$out/transfer.csv" >"$out/transfer.txt" 2>&1
  echo "== transfer: exit $?"
  summary "$out/transfer.csv"
fi
if [ "$mode" = big ] || [ "$mode" = all ]; then
  $t/test_rungs --big --workloads pipeline,offload cuda >"$out/big.txt" 2>&1
  echo "big exit $?: $(tail -1 "$out/big.txt")"
  grep -E "FAIL|error" "$out/big.txt" | head
fi
