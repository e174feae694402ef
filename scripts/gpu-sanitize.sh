#!/usr/bin/env bash
# On a GPU machine: every CUDA rung of every workload under compute-sanitizer's
# memcheck, racecheck, synccheck and initcheck, at small awkward sizes and
# shapes. Exit 0 only when every tool reports zero findings, every check
# passes and every job finished; 1 otherwise.
#
#   scripts/gpu-sanitize.sh [BUILD_DIR]     (default build-sanitize)
#
# The work is cut into shards of about KL_SANITIZE_SHARD_CASES cases
# (default 24; test_rungs and test_gemm --shard K/N), and a pool of
# KL_SANITIZE_WORKERS processes (default: the cores) takes them, the
# slowest kinds first, dealt out among the GPUs (CUDA_VISIBLE_DEVICES).
# KL_SANITIZE_DEADLINE=SECONDS (default 540) bounds the whole gate: a shard
# still running then is stopped (exit 124) and one not started is reported
# as such; either fails the gate. KL_SANITIZE_ONLY=REGEX runs only the
# groups whose names match (a partial gate: the summary says so).
# Every process runs one OpenMP thread that sleeps when it waits: the
# references and checks are OpenMP loops, and sixteen processes of
# spinning threads on sixteen cores made every shard several times slower.
#
# What runs under each tool (the names of the summary):
#   rungs    test_rungs --random-only --pairs over stream, read, map, reduce and
#            integrate: their own test problems (1 to 1000003 elements),
#            every rung, every type and operation on every problem and
#            every pair of the two on some problem (--pairs: the memory a
#            rung touches depends on the type and the size, not on the
#            operation's arithmetic);
#   rungs-large  the same at 1000 and 100003 elements;
#   histogram  test_rungs --random-only over histogram's own problems: its
#            patterns (all-same on 0 and on 255, skewed: the problems set
#            them) at 1 to 1000003 bytes and unaligned starts, every rung;
#   laplacian  its own grids (1x1x1 to 257x129x65, rows a multiple of the
#            vector width among them, the tiled rungs' m), every rung, both
#            types;
#   cg       its own problems up to 33^3 (both stencils, tolerance and
#            fixed modes), every rung; under racecheck those up to 20^3
#            and not the cusparse rung, whose library kernel (csrmv_v3)
#            racecheck reports write-write hazards in: not our code;
#   pipeline  pipeline's, offload's and transfer's own problems up to
#            100003 points (1 to 64 intervals, 1 to 4 streams; arrays not a
#            multiple of the chunk, a chunk larger than the array, chunks
#            of one element), every rung; under racecheck up to 5000;
#   gemm-SHAPE  test_gemm cuda at 1x1x1, 7x5x3, 67x45x33 (the shape that
#            showed the DMMA rung's overread), 129x257x65 and 132x70x40
#            (m a multiple of 4 and n past a tile: the edge tiles move
#            back inside the matrices in both fast rungs), each with
#            test_gemm's four variants (leading dimensions equal to the
#            rows, larger and odd, larger and even; beta 0, 0.75, -1 and 1),
#            every rung, both types; under memcheck, initcheck and synccheck
#            also 1541x1415x133 (more tiles than a wave: the pipelined
#            rung splits its last tiles along k and sums them by atomics,
#            the DMMA rung runs persistent blocks);
#   split    under racecheck, whose shared-memory tracking makes the tiled
#            rungs thousands of times slower, the two fast rungs
#            (cuda-dmma, cuda-pipelined) at 1541x1415x133 with odd leading
#            dimensions and beta 0.5, both types;
#   gemm-wide, split-wide-*, edge-wide-*
#            the same with the fast rungs' large tiles forced
#            (KLADDER_DMMA=1: 128x128; KLADDER_PIPELINED=2: 256x128), which
#            they take on their own only at sizes too slow under the tools:
#            test_gemm at 129x257x65 and 132x70x40 (gemm-wide: edge and
#            moved-back tiles, every rung and variant) under memcheck,
#            initcheck and synccheck; the split tails of those tiles by the
#            two rungs alone at 1541x1415x133 (float's 256x128 tiles:
#            2052x2180x133), odd leading dimensions (split-wide-f64, -f32)
#            and, but under racecheck, 1540x1415x133 (2052x2180x133) with A
#            and C exactly m rows apart and B's columns 134 (136) long
#            (16-byte copies up to the buffers' ends: split-wide-vec2-*); under
#            racecheck edge-wide-* at 132x70x40, the two rungs alone;
#   persist-f64, persist-odd-f64
#            the DMMA rung's persistent blocks (short k, more 64x64 tiles
#            than a wave: 399 at 1344x1215x72 on an H100's 132 SMs, three
#            blocks taking a second tile), exact 16-byte-aligned and odd
#            leading dimensions;
#   split-early-f64
#            the DMMA rung's split tail with its whole tiles launched
#            early beside it (programmatic dependent launch): 1541x1415x232,
#            575 64x64 tiles, the last 179 split in two k-ranges, odd
#            leading dimensions;
#   cli      the command line of the issue that found the overread.
# Every buffer is allocated at exactly the size its problem needs: the
# harness asks cudaMalloc for count * element size bytes (a matrix for
# ld * (cols - 1) + rows elements), and compute-sanitizer checks accesses
# against the size asked for, not the allocator's granule.
# Logs go to $OUT (or /tmp/kladder-sanitize) as sanitize-logs.tar.gz; the
# summary, one line per tool and group, is printed last.
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
if [ ! -x "$build/tests/test_rungs" ]; then
  cmake -S . -B "$build" -DKL_WERROR=ON -DCMAKE_CUDA_FLAGS=-lineinfo \
    >"$logs/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" >>"$logs/build.log" 2>&1 ||
    { tail -30 "$logs/build.log"; exit 1; }
fi

deadline=${KL_SANITIZE_DEADLINE:-540}
workers=${KL_SANITIZE_WORKERS:-$(nproc)}
per_shard=${KL_SANITIZE_SHARD_CASES:-24}
t="$build/tests"
kl="$build/kladder run -q -b cuda --reps 1 --warmup 0"
rungs_mix="--random-only --pairs --workloads stream,read,map,reduce,integrate"
pipes="--workloads pipeline,offload,transfer"
declare -A group=(
  [rungs]="$t/test_rungs $rungs_mix cuda"
  [rungs-large]="$t/test_rungs $rungs_mix cuda 1000 100003"
  [histogram]="$t/test_rungs --random-only --workloads histogram cuda"
  [laplacian]="$t/test_rungs --random-only --workloads laplacian cuda"
  [cg]="$t/test_rungs --workloads cg --max-n 33 cuda"
  [cg-race]="$t/test_rungs --workloads cg --no-vendor --max-n 20 cuda"
  [pipeline]="$t/test_rungs $pipes --max-n 100003 cuda"
  [pipeline-race]="$t/test_rungs $pipes --max-n 5000 cuda"
  [split-f64]="$kl -w gemm -r cuda-dmma,cuda-pipelined -s 1541x1415x133 --ld 1543,135,1542 --beta 0.5"
  [split-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 1541x1415x133 --ld 1543,135,1542 --beta 0.5"
  [cli]="$kl -w gemm -s 67x45x33 --ld 70,50,69 --beta 0.5"
)
shapes=(1x1x1 7x5x3 67x45x33 129x257x65 132x70x40 1541x1415x133)
for s in "${shapes[@]}"; do group[gemm-$s]="$t/test_gemm cuda $s"; done
# The groups that force the fast rungs' large tiles, and their environment.
wide_tiles="KLADDER_DMMA=1 KLADDER_PIPELINED=2"
group[gemm-wide]="$t/test_gemm cuda 129x257x65 132x70x40"
group[split-wide-f64]=${group[split-f64]}
group[split-wide-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 2052x2180x133 --ld 2055,135,2054 --beta 0.5"
group[split-wide-vec2-f64]="$kl -w gemm -r cuda-dmma,cuda-pipelined -s 1540x1415x133 --ld 1540,134,1540 --beta 0.5"
group[split-wide-vec2-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 2052x2180x133 --ld 2052,136,2052 --beta 0.5"
group[persist-f64]="$kl -w gemm -r cuda-dmma -s 1344x1215x72 --ld 1344,72,1344 --beta 0.5"
group[persist-odd-f64]="$kl -w gemm -r cuda-dmma -s 1343x1215x72 --ld 1345,73,1344 --beta 0.5"
group[split-early-f64]="$kl -w gemm -r cuda-dmma -s 1541x1415x232 --ld 1543,235,1542 --beta 0.5"
group[edge-wide-f64]="$kl -w gemm -r cuda-dmma,cuda-pipelined -s 132x70x40 --ld 135,45,133 --beta 0.5"
group[edge-wide-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 132x70x40 --ld 135,45,133 --beta 0.5"
declare -A group_env=()
for g in gemm-wide split-wide-f64 split-wide-f32 split-wide-vec2-f64 \
  split-wide-vec2-f32 edge-wide-f64 edge-wide-f32; do
  group_env[$g]=$wide_tiles
done

# The groups under each tool, the slowest kinds first: the pool then ends
# on short shards.
groups_of() {
  case $1 in
  racecheck) echo cg-race pipeline-race split-f64 split-f32 split-wide-f64 \
    split-wide-f32 gemm-129x257x65 edge-wide-f64 edge-wide-f32 persist-f64 \
    persist-odd-f64 split-early-f64 histogram \
    laplacian gemm-132x70x40 gemm-67x45x33 rungs rungs-large gemm-7x5x3 \
    gemm-1x1x1 cli ;;
  *) echo cg pipeline gemm-1541x1415x133 split-wide-f64 split-wide-vec2-f64 \
    persist-f64 persist-odd-f64 split-early-f64 \
    split-wide-f32 split-wide-vec2-f32 gemm-129x257x65 gemm-wide histogram \
    laplacian gemm-132x70x40 rungs gemm-67x45x33 rungs-large gemm-7x5x3 \
    gemm-1x1x1 cli ;;
  esac
}

# A group's shards: "K/N" for a test program that takes --shard, "-" for a
# command that runs whole.
shards_of() {
  local cmd=${group[$1]} cases n k
  case $cmd in
  "$t/test_rungs "* | "$t/test_gemm "*)
    cases=$(${cmd%% *} --list ${cmd#* } | tail -1 | cut -d' ' -f1)
    n=$(( (cases + per_shard - 1) / per_shard ))
    [ "$n" -ge 1 ] || n=1
    for ((k = 0; k < n; k++)); do echo "$k/$n"; done ;;
  *) echo - ;;
  esac
}

plan=()
for tool in racecheck memcheck initcheck synccheck; do
  for g in $(groups_of $tool); do
    if [ -n "${KL_SANITIZE_ONLY:-}" ] && ! [[ $g =~ $KL_SANITIZE_ONLY ]]; then
      continue
    fi
    for s in $(shards_of "$g"); do plan+=("$tool $g $s"); done
  done
done
[ -n "${KL_SANITIZE_ONLY:-}" ] &&
  echo "partial gate: only the groups matching /$KL_SANITIZE_ONLY/"
echo "${#plan[@]} shards, $workers at a time, deadline ${deadline} s"

gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -ge 1 ] || gpus=1
log_of() { echo "$logs/$1-$2-${3//\//of}.log"; }
run_shard() { # tool group shard gpu limit
  local tool=$1 g=$2 s=$3 log extra=() cmd=${group[$2]}
  local envs=(${group_env[$2]:-})
  log=$(log_of "$1" "$2" "$3")
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  # --shard goes right after the program's name.
  [ "$s" != - ] && cmd="${cmd%% *} --shard $s ${cmd#* }"
  local started=$(date +%s)
  # shellcheck disable=SC2086
  env "${envs[@]}" OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive \
    CUDA_VISIBLE_DEVICES=$4 timeout "$5" "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 \
    --print-limit 50 $cmd >"$log" 2>&1
  echo "=== exit $? after $(( $(date +%s) - started )) s: ${envs[*]} $cmd" >>"$log"
}

started=$(date +%s)
end=$((started + deadline))
i=0
for entry in "${plan[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$workers" ]; do wait -n; done
  left=$((end - $(date +%s)))
  set -- $entry
  if [ "$left" -le 5 ]; then
    echo "=== not started: the deadline" >"$(log_of "$@")"
    continue
  fi
  run_shard "$@" $((i % gpus)) "$left" &
  i=$((i + 1))
done
wait
wall=$(( $(date +%s) - started ))

# One line per tool and group: shards finished of all, findings, the
# slowest shard's seconds, the checks' tallies; kept in $out as well.
summary=$out/sanitize-summary.txt
{ cat "$out/sanitize-env.txt"; echo "${#plan[@]} shards, $workers at a time, $wall s wall, deadline $deadline s"; } >"$summary"
printf '%-10s %-18s %7s %8s %7s  %s\n' tool group shards findings slowest checks |
  tee -a "$summary"
failed=0
declare -A seen=()
for entry in "${plan[@]}"; do
  set -- $entry
  key="$1 $2"
  [ -n "${seen[$key]+x}" ] && continue
  seen[$key]=1
  done_=0 total=0 findings=0 slowest=0 passed=0 bad=0 cases=0
  for e in "${plan[@]}"; do
    set -- $e
    [ "$1 $2" = "$key" ] || continue
    log=$(log_of "$@")
    total=$((total + 1))
    f=$(grep -Eo "ERROR SUMMARY: [0-9]+" "$log" | awk '{s += $3} END {print s + 0}')
    h=$(grep -Eo "RACECHECK SUMMARY: [0-9]+ hazards" "$log" | awk '{s += $3} END {print s + 0}')
    findings=$((findings + f + h))
    read -r rc secs < <(sed -nE 's/^=== exit ([0-9]+) after ([0-9]+) s.*/\1 \2/p' "$log")
    [ "${rc:-x}" = 0 ] && done_=$((done_ + 1))
    [ "${secs:-0}" -gt "$slowest" ] && slowest=$secs
    read -r p b < <(grep -Eo "^[0-9]+ passed, [0-9]+ failed|[0-9]+ gemm cases on cuda, [0-9]+ failed" "$log" |
      awk '{p += $1; b += $(NF - 1)} END {print p + 0, b + 0}')
    passed=$((passed + p)) bad=$((bad + b))
    passed=$((passed + $(grep -cE " PASS$" "$log"))) bad=$((bad + $(grep -cE " FAIL$" "$log")))
    rc= secs=
  done
  set -- $key
  printf '%-10s %-18s %3s/%-3s %8s %7s  %s passed, %s failed\n' "$1" "$2" \
    "$done_" "$total" "$findings" "$slowest" "$passed" "$bad" | tee -a "$summary"
  [ "$done_" = "$total" ] && [ "$findings" = 0 ] && [ "$bad" = 0 ] || failed=1
done
if [ $failed != 0 ]; then
  echo "== first findings, failures and unfinished shards"
  for entry in "${plan[@]}"; do
    set -- $entry
    log=$(log_of "$@")
    grep -E "^========= +(Invalid|Race|Barrier|Uninitialized|Error|Program hit|Leaked|.*hazard)| FAIL|^FAIL" \
      "$log" | grep -v SUMMARY | head -3 | sed "s|^|$1 $2 $3: |"
    grep -qE "^=== exit 0 " "$log" || echo "$1 $2 $3: $(grep -E '^=== ' "$log" | cut -c1-60)"
  done | head -60
fi
tar -czf "$out/sanitize-logs.tar.gz" -C "$logs" .
rm -rf "$logs"
echo "sanitize: ${wall} s wall, $([ $failed = 0 ] && echo clean || echo FINDINGS OR UNFINISHED)" |
  tee -a "$summary"
exit $failed
