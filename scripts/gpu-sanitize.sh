#!/usr/bin/env bash
# On a GPU machine: every CUDA rung of every workload under compute-sanitizer's
# memcheck, racecheck, synccheck and initcheck, at small awkward sizes and
# shapes. Exit 0 only when every tool reports zero findings and every check
# passes; 1 otherwise.
#
#   scripts/gpu-sanitize.sh [BUILD_DIR]     (default build-sanitize)
#
# What runs under each tool (the four tools run side by side, one process
# each, on the one GPU):
#   - test_rungs --random-only cuda at 1, 2, 3, 31, 33, 65, 1000 and 100003
#     elements: every rung of every workload without shapes, every type and
#     operation;
#   - test_gemm cuda at 1x1x1, 7x5x3, 67x45x33 (the shape that showed the
#     DMMA rung's overread), 129x257x65 and 1541x1415x133 (more 128x128
#     tiles than SMs and k long enough: the tail tiles are split along k),
#     each with the four alpha/beta and leading-dimension variants of
#     test_gemm (leading dimensions equal to the rows, larger and odd,
#     larger and even; beta 0, 0.75, -1 and 1), every rung, both types;
#   - the command line of the issue that found the overread.
# Every buffer is allocated at exactly the size its problem needs: the
# harness asks cudaMalloc for count * element size bytes (a matrix for
# ld * (cols - 1) + rows elements), and compute-sanitizer checks accesses
# against the size asked for, not the allocator's granule.
# Logs go to $OUT (or /tmp/kladder-sanitize); the summary is printed last.
set -uo pipefail
build=${1:-build-sanitize}
out=${OUT:-/tmp/kladder-sanitize}
mkdir -p "$out"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "compute-sanitizer not found"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
"$sanitizer" --version | tail -1 | tee -a "$out/gpu.txt"
git rev-parse --short HEAD 2>/dev/null | sed 's/^/commit /' | tee -a "$out/gpu.txt"

# -lineinfo: findings name the source line.
cmake -S . -B "$build" -DKL_WERROR=ON -DCMAKE_CUDA_FLAGS=-lineinfo \
  >"$out/build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }

sizes="1 2 3 31 33 65 1000 100003"
shapes="1x1x1 7x5x3 67x45x33 129x257x65 1541x1415x133"
run_tool() {
  local tool=$1 log="$out/$1.log" extra=()
  case $tool in
  memcheck) extra=(--leak-check full) ;;
  esac
  : >"$log"
  local status=0
  for cmd in "$build/tests/test_rungs --random-only cuda $sizes" \
    "$build/tests/test_gemm cuda $shapes" \
    "$build/kladder run -q -b cuda -w gemm -s 67x45x33 --ld 70,50,69 --beta 0.5 --reps 1 --warmup 0"; do
    echo "=== $tool: $cmd" >>"$log"
    # shellcheck disable=SC2086
    "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 \
      --print-limit 50 $cmd >>"$log" 2>&1
    local rc=$?
    echo "=== exit $rc" >>"$log"
    [ $rc = 0 ] || status=1
  done
  return $status
}

started=$(date +%s)
pids=()
for tool in memcheck racecheck synccheck initcheck; do
  run_tool $tool &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done

echo "== compute-sanitizer over every CUDA rung ($(( $(date +%s) - started )) s)"
printf '%-10s %-9s %-10s %s\n' tool programs findings "checks (passed, failed)"
for tool in memcheck racecheck synccheck initcheck; do
  log="$out/$tool.log"
  findings=$(grep -Eo "ERROR SUMMARY: [0-9]+" "$log" | awk '{s += $3} END {print s + 0}')
  exits=$(grep -c "^=== exit 0$" "$log")
  checks=$(grep -E "^[0-9]+ passed, [0-9]+ failed|gemm cases on" "$log" | tr '\n' ';')
  printf '%-10s %-9s %-10s %s\n' "$tool" "$exits/3 ok" "$findings" "$checks"
  [ "$findings" = 0 ] || failed=1
done
if [ $failed != 0 ]; then
  echo "FINDINGS (first of each log):"
  for tool in memcheck racecheck synccheck initcheck; do
    grep -m 5 -E "^========= (Invalid|Race|Barrier|Uninitialized|Error|Program hit|.*hazard)" \
      "$out/$tool.log" | sed "s/^/$tool: /"
    grep -E "FAIL" "$out/$tool.log" | head -5 | sed "s/^/$tool: /"
  done
fi
echo "sanitize: $([ $failed = 0 ] && echo clean || echo FINDINGS)"
exit $failed
