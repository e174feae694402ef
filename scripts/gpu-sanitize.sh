#!/usr/bin/env bash
# On a GPU machine: every CUDA rung of every workload under compute-sanitizer's
# memcheck, racecheck, synccheck and initcheck, at small awkward sizes and
# shapes. Exit 0 only when every tool reports zero findings and every check
# passes; 1 otherwise.
#
#   scripts/gpu-sanitize.sh [BUILD_DIR]     (default build-sanitize)
#
# KL_SANITIZE_JOB_LIMIT=SECONDS stops a job that runs longer (exit 124 in
# the summary, which fails the gate); default 3000. KL_SANITIZE_ONLY=REGEX
# runs only the jobs whose names match (a partial gate: the summary says
# so). KL_SANITIZE_SHARDS=N splits each test_rungs job into N processes
# (test_rungs --shard K/N: every N-th case), which run side by side: the
# gate's wall time is its longest job's. Where the machine has several
# GPUs, the jobs are dealt out among them (CUDA_VISIBLE_DEVICES).
#
# What runs under each tool:
#   rungs  test_rungs --random-only over stream, map, reduce and integrate:
#          their own test problems (1 to 1000003 elements), then 1000 and
#          100003: every rung, every type and operation;
#   gemm   test_gemm cuda at 1x1x1, 7x5x3, 67x45x33 (the shape that showed
#          the DMMA rung's overread) and 129x257x65, one job each, each with
#          test_gemm's four variants (leading dimensions equal to the rows,
#          larger and odd, larger and even; beta 0, 0.75, -1 and 1), every
#          rung, both types; under memcheck, initcheck and synccheck also 1541x1415x133
#          (more 128x128 tiles than SMs, k long enough: the last tiles are
#          split along k and summed by atomics);
#   split  under racecheck, whose shared-memory tracking makes the tiled
#          rungs thousands of times slower, only the rungs that split
#          (cuda-dmma, cuda-pipelined) at 1541x1415x133 with odd leading
#          dimensions and beta 0.5, both types;
#   histogram  test_rungs over histogram's own problems: every pattern
#          (random, all-same on 0 and on 255, skewed) at 1 to 1000003
#          bytes, every rung;
#   laplacian  test_rungs over laplacian's own grids (1x1x1 to
#          257x129x65, rows a multiple of the vector width among them),
#          every rung, both types;
#   cg     test_rungs over cg's own problems (grids 1^3 to 64^3, both
#          stencils, tolerance and fixed modes), every rung; under
#          racecheck (cg-race) those up to 20^3 and not the cusparse rung,
#          whose library kernel (csrmv_v3) racecheck reports write-write
#          hazards in: not our code;
#   pipeline  test_rungs over pipeline's, offload's and transfer's own
#          problems (1 to 1000003 points per interval, 1 to 64 intervals,
#          1 to 4 streams; arrays not a multiple of the chunk, a chunk
#          larger than the array, chunks of one element), every rung;
#          under racecheck (pipeline-race), whose shared-memory tracking
#          slows the summing kernels most, those up to 5000;
#   cli    the command line of the issue that found the overread.
# The jobs run side by side on the one GPU, one process each.
# Every buffer is allocated at exactly the size its problem needs: the
# harness asks cudaMalloc for count * element size bytes (a matrix for
# ld * (cols - 1) + rows elements), and compute-sanitizer checks accesses
# against the size asked for, not the allocator's granule.
# Logs go to $OUT (or /tmp/kladder-sanitize) as sanitize-logs.tar.gz; the
# summary is printed last.
set -uo pipefail
build=${1:-build-sanitize}
out=${OUT:-/tmp/kladder-sanitize}
logs=$(mktemp -d)
mkdir -p "$out"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "compute-sanitizer not found"; exit 1; }
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$sanitizer" --version | tail -1
  # A copied tree may carry a stale .git: KL_COMMIT names the commit.
  echo "commit ${KL_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
} | tee "$out/sanitize-env.txt"

# -lineinfo: findings name the source line.
cmake -S . -B "$build" -DKL_WERROR=ON -DCMAKE_CUDA_FLAGS=-lineinfo \
  >"$logs/build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" >>"$logs/build.log" 2>&1 ||
  { tail -30 "$logs/build.log"; exit 1; }

job_limit=${KL_SANITIZE_JOB_LIMIT:-3000}
t="$build/tests"
kl="$build/kladder run -q -b cuda --reps 1 --warmup 0"
declare -A job=(
  [rungs-small]="$t/test_rungs --random-only --workloads stream,map,reduce,integrate cuda"
  [rungs-large]="$t/test_rungs --random-only --workloads stream,map,reduce,integrate cuda 1000 100003"
  [split-f64]="$kl -w gemm -r cuda-dmma,cuda-pipelined -s 1541x1415x133 --ld 1543,135,1542 --beta 0.5"
  [split-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 1541x1415x133 --ld 1543,135,1542 --beta 0.5"
  [cli]="$kl -w gemm -s 67x45x33 --ld 70,50,69 --beta 0.5"
  [histogram]="$t/test_rungs --workloads histogram cuda"
  [laplacian]="$t/test_rungs --workloads laplacian cuda"
  [cg]="$t/test_rungs --workloads cg cuda"
  [cg-race]="$t/test_rungs --workloads cg --no-vendor --max-n 20 cuda"
  [pipeline]="$t/test_rungs --workloads pipeline,offload,transfer cuda"
  [pipeline-race]="$t/test_rungs --workloads pipeline,offload,transfer --max-n 5000 cuda"
)
# One job per gemm shape: under racecheck the four take a minute or two
# each, together longer than everything else.
shapes=(1x1x1 7x5x3 67x45x33 129x257x65)
for s in "${shapes[@]}" 1541x1415x133; do job[gemm-$s]="$t/test_gemm cuda $s"; done
# The test_rungs jobs in shards: name/K for K = 0 .. N-1.
shards=${KL_SANITIZE_SHARDS:-1}
if [ "$shards" -gt 1 ]; then
  for name in "${!job[@]}"; do
    case ${job[$name]} in
    "$t/test_rungs "*)
      for ((k = 0; k < shards; k++)); do
        job[$name/$k]="$t/test_rungs --shard $k/$shards ${job[$name]#"$t/test_rungs "}"
      done
      unset "job[$name]" ;;
    esac
  done
fi
# A job's names: itself, or its shards.
names_of() {
  if [ -n "${job[$1]+set}" ]; then echo "$1"; return; fi
  local k
  for ((k = 0; k < shards; k++)); do echo "$1/$k"; done
}
plan=()
for tool in memcheck initcheck synccheck racecheck; do
  for name in rungs-small rungs-large histogram laplacian cli "${shapes[@]/#/gemm-}"; do
    plan+=("$tool $name")
  done
  if [ $tool = racecheck ]; then plan+=("$tool pipeline-race"); else plan+=("$tool pipeline"); fi
  if [ $tool = racecheck ]; then plan+=("$tool cg-race"); else plan+=("$tool cg"); fi
  if [ $tool = racecheck ]; then
    plan+=("$tool split-f64" "$tool split-f32")
  else
    plan+=("$tool gemm-1541x1415x133")
  fi
done

expanded=()
for entry in "${plan[@]}"; do
  set -- $entry
  for n in $(names_of "$2"); do expanded+=("$1 $n"); done
done
plan=("${expanded[@]}")

if [ -n "${KL_SANITIZE_ONLY:-}" ]; then
  kept=()
  for entry in "${plan[@]}"; do
    name=${entry#* }
    [[ ${name%/*} =~ $KL_SANITIZE_ONLY ]] && kept+=("$entry")
  done
  plan=("${kept[@]}")
  echo "partial gate: only the jobs matching /$KL_SANITIZE_ONLY/ (${#plan[@]})"
fi

gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -ge 1 ] || gpus=1
run_job() { # tool name gpu
  local tool=$1 name=$2 log="$logs/$1-${2//\//-}.log" extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  local started=$(date +%s)
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$3 timeout "$job_limit" "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 \
    --print-limit 50 ${job[$name]} >"$log" 2>&1
  echo "=== exit $? after $(( $(date +%s) - started )) s: ${job[$name]}" >>"$log"
}

started=$(date +%s)
i=0
for entry in "${plan[@]}"; do
  run_job $entry $((i % gpus)) &
  i=$((i + 1))
done
wait

echo "== compute-sanitizer over every CUDA rung ($(( $(date +%s) - started )) s wall)"
printf '%-10s %-18s %4s %8s %5s  %s\n' tool job exit findings secs checks
failed=0
for entry in "${plan[@]}"; do
  set -- $entry
  log="$logs/$1-${2//\//-}.log"
  findings=$(grep -Eo "ERROR SUMMARY: [0-9]+" "$log" | awk '{s += $3} END {print s + 0}')
  hazards=$(grep -Eo "RACECHECK SUMMARY: [0-9]+ hazards" "$log" | awk '{s += $3} END {print s + 0}')
  findings=$((findings + hazards))
  read -r rc secs < <(sed -nE 's/^=== exit ([0-9]+) after ([0-9]+) s.*/\1 \2/p' "$log")
  checks=$(grep -E "^[0-9]+ passed, [0-9]+ failed|gemm cases on|PASS|FAIL" "$log" |
    grep -Eo "^[0-9]+ passed, [0-9]+ failed|[0-9]+ gemm cases on cuda, [0-9]+ failed|(PASS|FAIL)$" |
    sort | uniq -c | tr -s ' ' | tr '\n' ';')
  printf '%-10s %-18s %4s %8s %5s  %s\n' "$1" "$2" "${rc:-?}" "$findings" "${secs:-?}" "$checks"
  [ "${rc:-1}" = 0 ] && [ "$findings" = 0 ] || failed=1
done
if [ $failed != 0 ]; then
  echo "== first findings"
  for entry in "${plan[@]}"; do
    set -- $entry
    grep -E "^========= +(Invalid|Race|Barrier|Uninitialized|Error|Program hit|Leaked|.*hazard)" \
      "$logs/$1-${2//\//-}.log" | grep -v SUMMARY | head -3 | sed "s|^|$1 $2: |"
  done
fi
tar -czf "$out/sanitize-logs.tar.gz" -C "$logs" .
rm -rf "$logs"
echo "sanitize: $([ $failed = 0 ] && echo clean || echo FINDINGS)"
exit $failed
