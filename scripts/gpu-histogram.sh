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
# Registers, shared memory and spills of every kernel, from the binary.
cuobjdump --dump-resource-usage build/libkladder.so 2>/dev/null |
  grep -A1 -E "Function .*(histogram|persistent_kernel|shared_kernel|cluster_kernel|global_atomic|four_per_thread)" |
  grep -Eo "Function [^ ]+|REG:[0-9]+|STACK:[0-9]+|SHARED:[0-9]+|LOCAL:[0-9]+" |
  paste -sd' ' | sed 's/ Function /\nFunction /g' >"$out/resources.txt"
k="./build/kladder run -w histogram -b cuda -q -n 512M --reps 20"
for inputs in random all-same skewed; do
  $k --inputs "$inputs" --csv "$out/histogram-$inputs.csv" \
    >"$out/histogram-$inputs.txt" 2>&1
  echo "== $inputs: exit $?"
  grep -E "^(histogram|stream)" "$out/histogram-$inputs.txt" | cut -c1-150
  # The best hand-written rung against CUB, from the same run.
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { rate[$col["rung"]] = $col["rate"] }
    END { best = 0; for (r in rate) if (r != "cuda-cub" && r ~ /^cuda/ && rate[r] > best) { best = rate[r]; name = r }
          if (rate["cuda-cub"] > 0) printf "best %s %.1f GB/s = %.3fx cuda-cub (%.1f GB/s)\n", name, best, best / rate["cuda-cub"], rate["cuda-cub"] }' \
    "$out/histogram-$inputs.csv"
done
