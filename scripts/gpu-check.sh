#!/usr/bin/env bash
# On the GPU machine: build, run the whole CTest suite (CUDA tests
# included), then the default suite (`make run`), keeping logs under $OUT.
# Prints a short summary last.
set -uo pipefail
out=${OUT:-/tmp/kladder-out}
mkdir -p "$out"
jobs=$(nproc)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
  --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build -DKL_WERROR=ON >"$out/cmake.log" 2>&1 &&
  cmake --build build -j "$jobs" >>"$out/cmake.log" 2>&1 ||
  { tail -30 "$out/cmake.log"; exit 1; }
(cd build && ctest --output-on-failure -j 4 ${CTEST_ARGS:-}) >"$out/ctest.log" 2>&1
ctest_rc=$?
./build/kladder run ${RUN_ARGS:-} --csv "$out/run.csv" --json "$out/run.json" \
  >"$out/run.txt" 2>"$out/run-progress.log"
run_rc=$?
git log -1 --format='commit %H %cd' >"$out/commit.txt" 2>/dev/null
echo "== ctest (exit $ctest_rc)"
grep -E "tests passed|Failed|Skipped|\*\*\*" "$out/ctest.log" | tail -15
echo "== kladder run (exit $run_rc)"
cat "$out/run.txt"
