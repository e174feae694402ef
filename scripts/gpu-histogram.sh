#!/usr/bin/env bash
# On the GPU machine: the histogram ladder's CUDA tests and its figures,
# each pattern's ladder in one run with CUB and the copy ceiling beside it.
# Usage: bash scripts/gpu-histogram.sh [quick]; logs and CSVs under $OUT.
set -uo pipefail
out=${OUT:-/tmp/kladder-out}
mkdir -p "$out"
cmake -S . -B build -DKL_WERROR=ON >"$out/cmake.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >>"$out/cmake.log" 2>&1 ||
  { tail -30 "$out/cmake.log"; exit 1; }
t=./build/tests
# Every rung on every test problem (lengths 1 to 1000003, each pattern,
# all-same on 0 and 255), then one past 2^32 bytes: 64-bit counts.
$t/test_rungs --workloads histogram cuda >"$out/rungs-cuda.txt" 2>&1
echo "rungs-cuda exit $?: $(tail -1 "$out/rungs-cuda.txt")"
grep -E "FAIL" "$out/rungs-cuda.txt" | head -20
if [ "${1:-}" != quick ]; then
  $t/test_rungs --big --workloads histogram cuda >"$out/rungs-cuda-big.txt" 2>&1
  echo "rungs-cuda-big exit $?: $(tail -1 "$out/rungs-cuda-big.txt")"
  grep -E "FAIL" "$out/rungs-cuda-big.txt" | head -20
fi
# A real file (the library itself), whole and in chunks (a memory limit
# that holds a fraction of it): every rung's counts checked against the
# file. --reps 2: the timed runs re-read each chunk.
f=build/libkladder.so
for limit in none 4M; do
  log="$out/file-$limit.txt"
  if [ $limit = none ]; then
    ./build/kladder run -w histogram -b cuda --reps 2 --warmup 0 --input "$f" >"$log" 2>&1
  else
    KLADDER_MEMORY_LIMIT=$limit ./build/kladder run -w histogram -b cuda \
      --reps 2 --warmup 0 --input "$f" >"$log" 2>&1
  fi
  echo "file $f, memory limit $limit: exit $?, $(grep -c 'PASS' "$log") rungs passed $(grep -Eo 'runs in [0-9]+ chunks of [0-9]+' "$log" | head -1)"
done
# Registers, shared memory and spills of every kernel, from the binary.
cuobjdump --dump-resource-usage build/libkladder.so 2>/dev/null |
  grep -A1 -E "Function .*(histogram|persistent_kernel|shared_kernel|cluster_kernel|global_atomic|four_per_thread)" |
  grep -Eo "Function [^ ]+|REG:[0-9]+|STACK:[0-9]+|SHARED:[0-9]+|LOCAL:[0-9]+" |
  paste -sd' ' | sed 's/ Function /\nFunction /g' >"$out/resources.txt"
# The best rung's machine code (32-bit counts): its loads, shared atomics,
# barriers and any local memory.
cuobjdump -sass -fun '_Z17persistent_kernelIjLi2ELi2EEvPKhlPT_' build/libkladder.so \
  >"$out/best-sass.txt" 2>&1
echo "best rung SASS: $(grep -Eo 'LDG[.A-Z0-9]*|ATOMS[.A-Z0-9]*|BAR[.A-Z]*|LDL|STL' "$out/best-sass.txt" |
  sort | uniq -c | tr -s ' ' | paste -sd,)"
k="./build/kladder run -w histogram -b cuda -q -n 512M --reps 20"
for inputs in random all-same skewed; do
  $k --inputs "$inputs" --csv "$out/histogram-$inputs.csv" \
    >"$out/histogram-$inputs.txt" 2>&1
  echo "== $inputs: exit $?"
  grep -E "^(histogram|stream)" "$out/histogram-$inputs.txt" | cut -c1-150
  # The best hand-written rung against CUB, from the same run.
  python3 - "$out/histogram-$inputs.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["workload"] == "histogram"]
rate = {r["rung"]: float(r["rate"] or 0) for r in rows}
hand = {k: v for k, v in rate.items() if k.startswith("cuda") and k != "cuda-cub"}
best = max(hand, key=hand.get)
cub = rate.get("cuda-cub", 0)
if cub:
    print(f"best {best} {hand[best]:.1f} GB/s = {hand[best] / cub:.3f}x cuda-cub ({cub:.1f} GB/s)")
PY
done
# Few files come back from the device: the logs in one archive.
tar -czf "$out/histogram-logs.tar.gz" -C "$out" --exclude histogram-logs.tar.gz . 2>/dev/null
