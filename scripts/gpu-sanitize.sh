#!/usr/bin/env bash
# On a GPU machine: every CUDA rung of every workload under compute-sanitizer's
# memcheck, racecheck, synccheck and initcheck, at small awkward sizes and
# shapes, and a check that every kernel of kladder's CUDA objects ran under
# every tool at two blocks an SM or more and with a part block. Exit 0 only
# when every tool reports zero findings, every check passes, every job
# finished and every kernel is covered; 1 otherwise.
#
#   scripts/gpu-sanitize.sh [BUILD_DIR]            (default build-sanitize)
#   scripts/gpu-sanitize.sh --plan [BUILD_DIR]     the shards, their expected
#                                                  seconds and the critical
#                                                  path; nothing runs (no GPU
#                                                  needed; KL_SANITIZE_PLAN_ONLY=1
#                                                  too)
#   scripts/gpu-sanitize.sh --analyze LOGS         the summary again from an
#                                                  unpacked sanitize-logs.tar.gz
#
# Planning. scripts/gpu-sanitize-times.txt holds each group's seconds under
# each tool (the work of its cases on one H200 shared by 16 processes: the
# file says where its figures come from) and what a process costs under
# each tool to start and end. A
# group is cut into shards (test_rungs and test_gemm --shard K/N) of about
# KL_SANITIZE_SHARD_SECONDS each (default: a third of the total work a
# worker, at least 30 s and at most a third of the deadline), a command
# that runs whole is one shard, and the pool of KL_SANITIZE_WORKERS
# processes (default: the cores) takes them longest first, dealt out among
# the GPUs (CUDA_VISIBLE_DEVICES). The plan, printed first, says each
# group's shards and seconds and the critical path: the busiest worker's
# seconds when the shards are dealt so. KL_SANITIZE_DEADLINE=SECONDS
# (default 480) bounds the whole gate: a shard still running then is
# stopped (exit 124) and one not started is reported as such; either fails
# the gate. KL_SANITIZE_ONLY=REGEX runs only the groups whose names match
# (a partial gate: the summary says so, and the coverage check only
# counts its problems). KL_SANITIZE_SMS=N gives the SM count where no
# launch could (the launch log asks the device at the first launch).
# Every process runs one OpenMP thread that sleeps when it waits:
# the references and checks are OpenMP loops, and sixteen processes of
# spinning threads on sixteen cores made every shard several times slower.
# A run writes its measured seconds in the table's format to
# $OUT/sanitize-times.txt, to plan the next run on the same kind of machine.
#
# What runs under each tool (the names of the summary):
#   rungs    test_rungs --random-only --pairs over stream, read, map, reduce
#            and integrate: their own test problems (1 to 1000003
#            elements), every rung, every type and operation on every
#            problem and every pair of the two on some problem (--pairs:
#            the memory a rung touches depends on the type and the size,
#            not on the operation's arithmetic);
#   rungs-large  the same at 1000 and 100003 elements;
#   histogram  test_rungs --random-only over histogram's own problems: its
#            patterns (all-same on 0 and on 255, skewed: the problems set
#            them) at 1 to 1000003 bytes and unaligned starts, every rung;
#   laplacian  its own grids (1x1x1 to 257x129x65, rows a multiple of the
#            vector width among them, the tiled rungs' m), every rung, both
#            types;
#   cg-tol   cg's and cg-dist's own problems up to 3^3, in tolerance
#            mode, both stencils, every rung: the tolerance mode's stops
#            (cuda-pipelined's true residual in place of its recurrences',
#            the device-scalar rungs' batches ending past convergence), in
#            a few iterations (10^3's tens of iterations run the same
#            kernels: left to cg-fixed's fixed mode);
#   cg-fixed their problems from 12^3 to 64^3 in fixed mode for 4 or 5
#            iterations (test_rungs --fixed-iterations 4: each problem's
#            parity of its own count kept; checked against a reference
#            solve of as many iterations): the same kernels run at every
#            iteration, and 64^3 (262144 rows) has more than two blocks of
#            rows an SM for the kernels of a thread a row (an even count:
#            cuda-matrix-free's last step on x after the loop there too),
#            264 tiles for the matrix-free sweeps. Under racecheck
#            cuSPARSE's own kernels are left unchecked
#            (--kernel-name-exclude): racecheck reports write-write hazards
#            in its csrmv_v3, which is not our code to mend; the cusparse
#            rung's kernels of ours are checked;
#   pipeline  pipeline's, offload's and transfer's own problems up to
#            100003 points (1 to 64 intervals, 1 to 4 streams; arrays not a
#            multiple of the chunk, a chunk larger than the array, chunks
#            of one element), every rung; under racecheck up to 5000
#            (pipeline-race);
#   gemm-SHAPE  test_gemm cuda at 1x1x1, 7x5x3, 67x45x33 (the shape that
#            showed the DMMA rung's overread), 129x257x65 and 132x70x40
#            (m a multiple of 4 and n past a tile: the edge tiles move
#            back inside the matrices in both fast rungs), each with
#            test_gemm's four variants (leading dimensions equal to the rows,
#            larger and odd, larger and even; beta 0, 0.75, -1 and 1),
#            every rung, both types; under memcheck, initcheck and synccheck
#            also 1541x1415x133 (more tiles than a wave: the pipelined
#            rung splits its last tiles along k and sums them by atomics,
#            the DMMA rung runs persistent blocks), and 1x1x1, which
#            racecheck leaves to 7x5x3: at both every tiled kernel runs one
#            part tile in m, n and k, each thread filling its slot of the
#            shared tile (zero past the edge) and reading the tile after
#            the barrier, the same shared accesses, other values;
#   split    under racecheck, whose shared-memory tracking makes the tiled
#            rungs thousands of times slower, the two fast rungs
#            (cuda-dmma, cuda-pipelined) at 1541x1415x133 with odd leading
#            dimensions and beta 0.5, both types;
#   gemm-wide, split-wide-*, edge-wide-*
#            the same with the fast rungs' large tiles forced
#            (-p dmma_tile=128x128,pipelined_tile=256x128), which
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
#   cli      the command line that found the DMMA rung's overread (its
#            shared accesses are gemm-67x45x33's: not under racecheck);
#   gemm-big cuda-cublas at 4097x4097x65: inputs of more than 2^24
#            elements, made on the GPU (gemm-curand.cu), and more than
#            2^30 multiply-adds, whose check takes cuBLAS's reference, on
#            the magnitudes too (gemm-cublas.cu's absolute): the two
#            kernels no smaller problem launches;
#   gemm-grid-race-f64, -f32
#            under racecheck, where the gemm shapes above stop at
#            129x257x65, every rung at 2049x2177x3: more tiles than two an
#            SM for every tile size (306 of 128x128), m and n one past a
#            128 tile, k inside the first slice (little work a tile).
# Every buffer is allocated at exactly the size its problem needs: the
# harness asks cudaMalloc for count * element size bytes (a matrix for
# ld * (cols - 1) + rows elements), and compute-sanitizer checks accesses
# against the size asked for, not the allocator's granule.
#
# Coverage. Every process runs with tests/tools/launch_log.c preloaded: it
# lists the kernels the CUDA objects register as they load, and counts
# every launch of them by grid, block and case (test_rungs and test_gemm
# name each case to it; a command's one problem comes from its -s or -n). The
# preload goes in through `sh -c 'LD_PRELOAD=...; exec PROGRAM'` inside
# compute-sanitizer, ahead of whatever LD_PRELOAD the tool gives its
# target, so that neither replaces the other; `kladder list` runs so under
# memcheck before the shards, and the gate stops there where the log does
# not load, and a shard whose log lacks the shim's first line fails the
# check. The unit is the __global__ function
# (its template instantiations, which differ in element type, operator or
# tile constants, share its code; each instantiation's launches are
# listed in sanitize-kernels.txt). `kladder list`, which loads
# libkladder-cuda.so, under the shim gives the functions of our objects.
# Under every tool each must have run
#   launched  at least once;
#   blocks    in some launch at least 2 x the SMs blocks (the grid's);
#   tail      in some launch of more than one block, in a case with an odd
#             extent (n, a grid's edge nx, ny, nz, or gemm's m, n or k):
#             every block here covers a multiple of 32 threads' elements
#             along its axes (a power of two of them per thread, or a
#             power-of-two tile), so an odd extent is no whole number of
#             blocks and its last block, or a grid-stride loop's last
#             sweep, is partly past the data.
# Rules of kernel_rules below take some functions out: one-block (a grid
# fixed by design: the blocks and tail rules do not apply), one-wave (a
# split tail's grid, under a wave by design: the blocks rule does not
# apply) and ranks (they run only between ranks, under mpirun, some on
# GPUs of their own: not required here; reported where they run). CUB's
# kernels that our files instantiate count where a rung launches them
# (under any tool, then under every tool); their grids are CUB's.
#
# Logs go to $OUT (or /tmp/kladder-sanitize) as sanitize-logs.tar.gz; the
# summary, one line per tool and group, the coverage table and a verdict,
# is printed last and kept in $OUT/sanitize-summary.txt, the instantiations
# in $OUT/sanitize-kernels.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=run
analyze_dir=
while [ $# -gt 0 ]; do
  case $1 in
  --plan) mode=plan; shift ;;
  --analyze)
    [ $# -ge 2 ] || { echo "--analyze needs the logs' folder"; exit 2; }
    mode=analyze analyze_dir=$2
    shift 2 ;;
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "unknown option $1 (--plan, --analyze LOGS, --help)"; exit 2 ;;
  *) break ;;
  esac
done
[ "${KL_SANITIZE_PLAN_ONLY:-0}" = 1 ] && [ "$mode" = run ] && mode=plan
build=${1:-build-sanitize}
out=${OUT:-/tmp/kladder-sanitize}
deadline=${KL_SANITIZE_DEADLINE:-480}
workers=${KL_SANITIZE_WORKERS:-$(nproc)}
tools=(racecheck memcheck initcheck synccheck)

# ---- the groups ----------------------------------------------------------------
t="$build/tests/unit"
kl="$build/kladder run -q -b cuda --reps 1 --warmup 0"
bytes_file=${TMPDIR:-/tmp}/kladder-sanitize-bytes-$$.bin
rungs_mix="--random-only --pairs --workloads stream,read,map,reduce,integrate"
pipes="--workloads pipeline,offload,transfer"
declare -A group=(
  [rungs]="$t/test_rungs $rungs_mix cuda"
  [rungs-large]="$t/test_rungs $rungs_mix cuda 1000 100003"
  [histogram]="$t/test_rungs --random-only --workloads histogram cuda"
  [laplacian]="$t/test_rungs --random-only --workloads laplacian cuda"
  [cg-tol]="$t/test_rungs --workloads cg --max-n 3 cuda"
  [cg-fixed]="$t/test_rungs --workloads cg --min-n 11 --fixed-iterations 4 cuda"
  [pipeline]="$t/test_rungs $pipes --max-n 100003 cuda"
  [pipeline-race]="$t/test_rungs $pipes --max-n 5000 cuda"
  [split-f64]="$kl -w gemm -r cuda-dmma,cuda-pipelined -s 1541x1415x133 --ld 1543,135,1542 --beta 0.5"
  [split-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 1541x1415x133 --ld 1543,135,1542 --beta 0.5"
  [cli]="$kl -w gemm -s 67x45x33 --ld 70,50,69 --beta 0.5"
  [gemm-big]="$kl -w gemm -r cuda-cublas -s 4097x4097x65 --ld 4099,67,4098 --beta 0.5"
  [gemm-grid-race-f64]="$kl -w gemm -s 2049x2177x3 --ld 2051,5,2050 --beta 0.5"
  [gemm-grid-race-f32]="$kl -t f32 -w gemm -s 2049x2177x3 --ld 2051,5,2050 --beta 0.5"
  # Grids of two blocks an SM and more with a part block, for kernels the
  # groups above launch only on smaller grids: map's vector kernel past a
  # million elements, laplacian's vector z-marches (rows a multiple of the
  # vector width, ny odd), cg's matrix-free rung past a thousand blocks of
  # rows, three iterations (an odd count: its last step on x after the
  # loop).
  [map-large]="$t/test_rungs --random-only --workloads map cuda 2000003"
  [laplacian-vector-f64]="$kl -w laplacian -r cuda-zmarch-vector,cuda-zmarch-prefetch -s 512x255x34"
  [laplacian-vector-f32]="$kl -t f32 -w laplacian -r cuda-zmarch-vector,cuda-zmarch-prefetch -s 512x255x34"
  [cg-free]="$kl -w cg -r cuda-matrix-free -n 65 -p mode=fixed,maxit=3"
  # cuda-pipelined's residual replacement (every solve in tolerance mode
  # makes one where its recurrences say it converged) past a thousand
  # blocks of rows, an odd grid.
  [cg-replace]="$kl -w cg -r cuda-pipelined -n 65 -p tol=0.1"
  # kl_cg on device data with x 8 bytes past a 16-byte boundary and an
  # odd row count: the fused vector kernels' single-element form, which
  # the plan's own (aligned) buffers never take.
  [cg-unaligned]="$t/test_stream"
  # cuda-sell's setup past two blocks of slices an SM, the last block in
  # part (130^3: 68657 slices of 32 rows, 269 blocks of 256 threads), and
  # its one-block scan of the slices' widths in runs of 68 a thread.
  [cg-sell]="$kl -w cg -r cuda-sell -n 130 -p mode=fixed,maxit=3"
  # The CUB histogram's counts added over chunks (add_counts): an input
  # file in chunks, the device's memory capped below the file's size.
  [histogram-chunks]="$kl -w histogram -r cuda-cub -i $bytes_file"
)
shapes=(1x1x1 7x5x3 67x45x33 129x257x65 132x70x40 1541x1415x133)
for s in "${shapes[@]}"; do group[gemm-$s]="$t/test_gemm cuda $s"; done
# The groups that force the fast rungs' large tiles (their tunings).
wide="dmma_tile=128x128,pipelined_tile=256x128"
group[gemm-wide]="$t/test_gemm --params $wide cuda 129x257x65 132x70x40"
group[split-wide-f64]="${group[split-f64]} -p $wide"
group[split-wide-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 2052x2180x133 --ld 2055,135,2054 --beta 0.5 -p $wide"
group[split-wide-vec2-f64]="$kl -w gemm -r cuda-dmma,cuda-pipelined -s 1540x1415x133 --ld 1540,134,1540 --beta 0.5 -p $wide"
group[split-wide-vec2-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 2052x2180x133 --ld 2052,136,2052 --beta 0.5 -p $wide"
group[persist-f64]="$kl -w gemm -r cuda-dmma -s 1344x1215x72 --ld 1344,72,1344 --beta 0.5"
group[persist-odd-f64]="$kl -w gemm -r cuda-dmma -s 1343x1215x72 --ld 1345,73,1344 --beta 0.5"
group[split-early-f64]="$kl -w gemm -r cuda-dmma -s 1541x1415x232 --ld 1543,235,1542 --beta 0.5"
group[edge-wide-f64]="$kl -w gemm -r cuda-dmma,cuda-pipelined -s 132x70x40 --ld 135,45,133 --beta 0.5 -p $wide"
group[edge-wide-f32]="$kl -t f32 -w gemm -r cuda-pipelined -s 132x70x40 --ld 135,45,133 --beta 0.5 -p $wide"
declare -A group_env=()
group_env[histogram-chunks]="KLADDER_MEMORY_LIMIT=48M"

# The groups under each tool (the planner orders the shards by time).
groups_of() {
  case $1 in
  racecheck) echo cg-tol cg-fixed pipeline-race split-f64 split-f32 \
    split-wide-f64 split-wide-f32 gemm-129x257x65 edge-wide-f64 edge-wide-f32 \
    persist-f64 persist-odd-f64 split-early-f64 histogram laplacian \
    gemm-132x70x40 gemm-67x45x33 rungs rungs-large gemm-7x5x3 gemm-big \
    gemm-grid-race-f64 gemm-grid-race-f32 map-large laplacian-vector-f64 \
    laplacian-vector-f32 cg-free cg-replace cg-unaligned cg-sell \
    histogram-chunks ;;
  *) echo cg-tol cg-fixed pipeline gemm-1541x1415x133 split-wide-f64 \
    split-wide-vec2-f64 persist-f64 persist-odd-f64 split-early-f64 \
    split-wide-f32 split-wide-vec2-f32 gemm-129x257x65 gemm-wide histogram \
    laplacian gemm-132x70x40 rungs gemm-67x45x33 rungs-large gemm-7x5x3 \
    gemm-1x1x1 cli gemm-big gemm-grid-race-f64 gemm-grid-race-f32 map-large \
    laplacian-vector-f64 laplacian-vector-f32 cg-free cg-replace cg-unaligned \
    cg-sell histogram-chunks ;;
  esac
}

# compute-sanitizer's options beyond the tool: memcheck's leak check;
# racecheck without cuSPARSE's kernels (see cg-fixed above).
tool_options() {
  case $1 in
  memcheck) echo --leak-check full ;;
  racecheck) echo --kernel-name-exclude kns=cusparse,kns=csrmv ;;
  esac
}

# ---- the kernels' rules (Coverage, above) -----------------------------------------
# function, a tab, rule, a tab, why. A function named here is as the
# launch log names it.
kernel_rules() {
  cat <<'EOF'
info_kernel(double*, double const*)	one-block	cg: {k, |r|/|b|} from the device scalars, one thread
info_kernel(double*, double, double)	one-block	cg cusparse: {k, |r|/|b|} from the host, one thread
info_values_kernel	one-block	cg: {k, |r|/|b|} from the host, one thread
totals_kernel	one-block	cg: the one block that sums a reduction's partials
finish_start_kernel	one-block	cg: the device scalars' start, one block over the partials
finish_pap_kernel	one-block	cg: alpha, one block over the partials
finish_rr_kernel	one-block	cg: beta and the stop, one block over the partials
sell_scan_kernel	one-block	cg sell: the slices' offsets, one block's scan in setup
pipe_finish_start_kernel	one-block	cg pipelined: the start's scalars, one block
pipe_decide_kernel	one-block	cg pipelined: the iteration's scalars, one block
pipe_resume_kernel	one-block	cg pipelined: after the true vectors, one thread
kl__empty_kernel	one-block	the launch floor: an empty kernel of one thread
kl__hold_kernel	one-block	what stands ahead of a timed run: one thread spinning on its clock
set_identity	one-block	reduce: the result's identity, one thread
sum_partials_kernel	one-block	reduce: the one block that sums the warps' partials
integrate_scale	one-block	integrate: the sum times h, one thread
integrate_sum_partials	one-block	integrate, pipeline: the one block that sums the partials
add_counts	one-block	histogram cub: a block of 256 bins
edges_kernel	one-block	histogram: the head and tail bytes, one block
kl__gemm_scale_tiles	one-wave	gemm: beta over the split tail's tiles, fewer than a wave
pack_kernel	ranks	cg-dist: p's halo packed, only between ranks (mpirun)
unpack_kernel	ranks	cg-dist: the halo unpacked, only between ranks (mpirun)
dist_scalars_kernel	ranks	cg-dist: the ranks' scalars, only between ranks (mpirun)
start_scalars_kernel	ranks	cg-dist cuda-nccl: only between ranks on GPUs of their own
alpha_kernel	ranks	cg-dist cuda-nccl: only between ranks on GPUs of their own
beta_kernel	ranks	cg-dist cuda-nccl: only between ranks on GPUs of their own
rr_kernel	ranks	cg-dist cuda-nccl: only between ranks on GPUs of their own
plane_kernel	ranks	laplacian-dist: a face packed, only between ranks (mpirun)
to_pair	ranks	reduce-dist cuda-nccl: only between ranks on GPUs of their own
from_pair	ranks	reduce-dist cuda-nccl: only between ranks on GPUs of their own
EOF
}

# ---- the machine and the build ----------------------------------------------------
shim="$build/tests/tools/libkl_launch_log.so"
logs=
if [ "$mode" = run ]; then
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
  cp "$out/sanitize-env.txt" "$logs/env.txt"
  # histogram-chunks' input: 100000003 bytes, over twice the memory that
  # group's cap leaves.
  head -c 100000003 /dev/urandom >"$bytes_file"
  trap 'rm -f "$bytes_file"' EXIT
  # -lineinfo: findings name the source line.
  if [ ! -x "$build/tests/unit/test_rungs" ] || [ ! -f "$shim" ]; then
    if ! { cmake -S . -B "$build" -DKL_WERROR=ON -DCMAKE_CUDA_FLAGS=-lineinfo &&
      cmake --build "$build" -j "$(nproc)"; } >"$logs/build.log" 2>&1; then
      tail -30 "$logs/build.log"
      exit 1
    fi
  fi
  [ -f "$shim" ] || { echo "no $shim: the launch log is built with CUDA"; exit 1; }
  # Absolute: the preload is read where the target starts.
  shim=$(cd "$(dirname "$shim")" && pwd)/$(basename "$shim")
fi

# ---- the plan ------------------------------------------------------------------
declare -A start_s=() work_s=()
times=$here/gpu-sanitize-times.txt
if [ -f "$times" ]; then
  while read -r kind tool g secs _; do
    case $kind in
    start) start_s[$tool]=$secs ;;
    work) work_s["$tool $g"]=$secs ;;
    esac
  done < <(grep -v '^#' "$times")
else
  echo "no $times: every group planned at 60 s"
fi

# A group's cases: "K/N" shards for a test program (its --list), 1 for a
# command that runs whole; 0 where the program is not built.
cases_of() {
  local cmd=${group[$1]}
  case $cmd in
  "$t/test_rungs "* | "$t/test_gemm "*)
    [ -x "${cmd%% *}" ] || { echo 0; return; }
    local n
    # shellcheck disable=SC2086 # the group's words
    n=$(${cmd%% *} --list ${cmd#* } 2>/dev/null | tail -1 | cut -d' ' -f1)
    [[ $n =~ ^[0-9]+$ ]] && echo "$n" || echo 0 ;;
  *) echo 1 ;;
  esac
}

only=${KL_SANITIZE_ONLY:-}
unknown_cases=0
declare -A cases_n=()
planned=$(mktemp)
{
  total=0
  for tool in "${tools[@]}"; do
    for g in $(groups_of "$tool"); do
      if [ -n "$only" ] && ! [[ $g =~ $only ]]; then continue; fi
      w=${work_s["$tool $g"]:-60}
      total=$((total + w))
      [ -n "${cases_n[$g]+x}" ] || cases_n[$g]=$(cases_of "$g")
    done
  done
  target=${KL_SANITIZE_SHARD_SECONDS:-$(( total / (3 * workers) ))}
  [ "$target" -ge 30 ] || target=30
  [ "$target" -le $((deadline / 3)) ] || target=$((deadline / 3))
  echo "target $target $total"
  for tool in "${tools[@]}"; do
    for g in $(groups_of "$tool"); do
      if [ -n "$only" ] && ! [[ $g =~ $only ]]; then continue; fi
      w=${work_s["$tool $g"]:-60}
      c=${cases_n[$g]}
      case ${group[$g]} in
      "$t/test_rungs "* | "$t/test_gemm "*) split=1 ;;
      *) split=0 ;;
      esac
      n=$(( (w + target - 1) / target ))
      [ "$n" -ge 1 ] || n=1
      [ "$split" = 1 ] || n=1
      [ "$c" -gt 0 ] && [ "$n" -gt "$c" ] && n=$c
      [ "$c" = 0 ] && unknown_cases=1
      each=$(( (w + n - 1) / n + ${start_s[$tool]:-5} ))
      for ((k = 0; k < n; k++)); do
        if [ "$split" = 1 ]; then s="$k/$n"; else s=whole; fi
        echo "shard $each $tool $g $s $c"
      done
    done
  done
} >"$planned"
read -r _ target _ < <(grep '^target ' "$planned")
# The shards, longest first: "seconds tool group shard".
mapfile -t plan < <(grep '^shard ' "$planned" | cut -d' ' -f2-5 | sort -k1,1nr -s)

# Each group's line, then the shards dealt longest first to the least
# loaded of the workers: the critical path is the busiest one's load.
print_plan() {
  grep '^shard ' "$planned" | awk -v workers="$workers" -v target="$target" \
    -v deadline="$deadline" '
    { key = $3 " " $4; if (!(key in n)) { order[++groups] = key; cases[key] = $6 }
      n[key]++; each[key] = $2; secs[++shards] = $2; name[shards] = $3 " " $4 " " $5 }
    END {
      printf "%-10s %-20s %6s %6s %9s\n", "tool", "group", "cases", "shards", "s a shard"
      for (i = 1; i <= groups; i++) {
        split(order[i], f, " ")
        printf "%-10s %-20s %6s %6d %9d\n", f[1], f[2], cases[order[i]] ? cases[order[i]] : "?", n[order[i]], each[order[i]]
      }
      # Longest first, each to the least loaded worker.
      for (i = 1; i <= shards; i++) idx[i] = i
      for (i = 2; i <= shards; i++) {
        v = idx[i]; j = i - 1
        while (j >= 1 && secs[idx[j]] < secs[v]) { idx[j + 1] = idx[j]; j-- }
        idx[j + 1] = v
      }
      for (w = 1; w <= workers; w++) load[w] = 0
      for (i = 1; i <= shards; i++) {
        best = 1
        for (w = 2; w <= workers; w++) if (load[w] < load[best]) best = w
        load[best] += secs[idx[i]]; took[best] = took[best] " " name[idx[i]] " (" secs[idx[i]] " s);"
        sum += secs[idx[i]]
      }
      busiest = 1
      for (w = 2; w <= workers; w++) if (load[w] > load[busiest]) busiest = w
      printf "%d shards, %d at a time, %d s of work (shards of about %d s): %d s a worker\n", shards, workers, sum, target, sum / workers
      printf "critical path: %d s planned, deadline %d s; the busiest worker takes%s\n", load[busiest], deadline, took[busiest]
      if (load[busiest] > deadline) printf "PLAN OVER THE DEADLINE by %d s\n", load[busiest] - deadline
    }'
}

if [ "$mode" = plan ]; then
  [ -n "$only" ] && echo "partial gate: only the groups matching /$only/"
  [ "$unknown_cases" = 1 ] &&
    echo "cases unknown (no $t/test_rungs or test_gemm built): shards from the times alone"
  print_plan
  rm -f "$planned"
  exit 0
fi

# ---- the run -------------------------------------------------------------------
if [ "$mode" = run ]; then
  [ -n "$only" ] && echo "partial gate: only the groups matching /$only/"
  print_plan | tee "$logs/plan-table.txt"
  printf '%s\n' "${plan[@]}" >"$logs/plan.txt"
  echo "$only" >"$logs/only.txt"
  kernel_rules >"$logs/kernel-rules.txt"
  # The kernels of our objects: the module's, registered as it loads.
  KL_LAUNCH_LOG=$logs/registered.launch LD_PRELOAD=$shim "$build/kladder" list \
    >/dev/null 2>&1
  grep -q '^R' "$logs/registered.launch" 2>/dev/null ||
    echo "no kernels registered under the shim: the coverage check will fail"
  # The same under the tool, the way every shard starts, before the
  # deadline's clock: a preload the tool drops would fail the whole check
  # at the end.
  # shellcheck disable=SC2016 # $0 and LD_PRELOAD are sh's
  KL_LAUNCH_LOG=$logs/preflight.launch "$sanitizer" --tool memcheck \
    --target-processes all sh -c \
    'LD_PRELOAD="$0${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"' "$shim" \
    "$build/kladder" list >"$logs/preflight.log" 2>&1
  if ! grep -q '^R' "$logs/preflight.launch" 2>/dev/null; then
    echo "the launch log did not load under compute-sanitizer (LD_PRELOAD):"
    tail -5 "$logs/preflight.log"
    exit 1
  fi

  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  [ "$gpus" -ge 1 ] || gpus=1
fi
log_of() { echo "$logs/$1-$2-${3//\//of}.log"; }
launch_of() { echo "$logs/$1-$2-${3//\//of}.launch"; }

run_shard() { # tool group shard gpu limit
  local tool=$1 g=$2 s=$3 log launch extra cmd=${group[$2]} problem=-
  # shellcheck disable=SC2206 # NAME=VALUE words
  local envs=(${group_env[$2]:-})
  log=$(log_of "$1" "$2" "$3")
  launch=$(launch_of "$1" "$2" "$3")
  read -ra extra < <(tool_options "$tool")
  # --shard goes right after the program's name.
  [ "$s" != whole ] && cmd="${cmd%% *} --shard $s ${cmd#* }"
  # A command's one problem, for the launch log: its -s, or its -n.
  if [[ $cmd == *" -s "* ]]; then
    problem="kladder $(sed -E 's/.* -s ([^ ]+).*/\1/' <<<"$cmd")"
  elif [[ $cmd == *" -n "* ]]; then
    problem="kladder $(sed -E 's/.* -n ([0-9]+).*/n=\1/' <<<"$cmd")"
  fi
  local started
  started=$(date +%s)
  # The launch log's preload inside the tool, ahead of the tool's own.
  # shellcheck disable=SC2016,SC2086 # $0 and LD_PRELOAD are sh's; $cmd's words
  env "${envs[@]}" OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive \
    CUDA_VISIBLE_DEVICES="$4" KL_LAUNCH_LOG="$launch" \
    KL_LAUNCH_LOG_CASE="$problem" timeout "$5" "$sanitizer" --tool "$tool" \
    "${extra[@]}" --target-processes all --error-exitcode 99 --print-limit 50 \
    sh -c 'LD_PRELOAD="$0${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"' "$shim" \
    $cmd >"$log" 2>&1
  echo "=== exit $? after $(( $(date +%s) - started )) s: ${envs[*]} $cmd" >>"$log"
}

if [ "$mode" = run ]; then
  started=$(date +%s)
  end=$((started + deadline))
  i=0
  for entry in "${plan[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$workers" ]; do wait -n; done
    left=$((end - $(date +%s)))
    read -r _ tool g s <<<"$entry"
    if [ "$left" -le 5 ]; then
      echo "=== not started: the deadline" >"$(log_of "$tool" "$g" "$s")"
      continue
    fi
    run_shard "$tool" "$g" "$s" $((i % gpus)) "$left" &
    i=$((i + 1))
  done
  wait
  wall=$(( $(date +%s) - started ))
else
  logs=$analyze_dir
  [ -f "$logs/plan.txt" ] || { echo "no plan.txt in $logs"; exit 2; }
  mapfile -t plan <"$logs/plan.txt"
  [ -f "$logs/kernel-rules.txt" ] || kernel_rules >"$logs/kernel-rules.txt"
  read -r _ wall workers deadline <"$logs/wall.txt" 2>/dev/null
  only=$(cat "$logs/only.txt" 2>/dev/null)
  wall=${wall:-0}
  mkdir -p "$out"
  cp "$logs/env.txt" "$out/sanitize-env.txt" 2>/dev/null
fi
rm -f "$planned"
echo "wall $wall $workers $deadline" >"$logs/wall.txt"

# ---- the summary -----------------------------------------------------------------
# One line per tool and group: shards finished of all, findings, the
# slowest shard's seconds and all of them, the checks' tallies; kept in
# $out as well.
summary=$out/sanitize-summary.txt
{
  cat "$out/sanitize-env.txt" 2>/dev/null
  critical=$(sed -nE 's/^critical path: ([0-9]+) s planned.*/\1/p' "$logs/plan-table.txt" 2>/dev/null)
  echo "${#plan[@]} shards, $workers at a time, $wall s wall (${critical:-?} s planned), deadline $deadline s"
} >"$summary"
printf '%-10s %-20s %7s %8s %7s %6s  %s\n' tool group shards findings slowest total checks |
  tee -a "$summary"
failed=0
declare -A seen=()
measured=$out/sanitize-times.txt
{
  echo "# Measured by scripts/gpu-sanitize.sh: $(head -1 "$out/sanitize-env.txt" 2>/dev/null),"
  echo "# $workers at a time; each group's seconds less its shards' starts."
  echo "# kind      tool       group                  seconds"
  for tool in "${tools[@]}"; do
    printf 'start       %-10s %-22s %s\n' "$tool" - "${start_s[$tool]:-5}"
  done
} >"$measured"
started_shards=0 unlogged=0
# The groups by tool, each tool's in the plan's order (longest first).
keys=()
for tool in "${tools[@]}"; do
  for entry in "${plan[@]}"; do
    read -r _ t2 g _ <<<"$entry"
    if [ "$t2" != "$tool" ] || [ -n "${seen[$tool $g]+x}" ]; then continue; fi
    seen[$tool $g]=1
    keys+=("$tool $g")
  done
done
for key in "${keys[@]}"; do
  read -r tool g <<<"$key"
  done_=0 total=0 findings=0 slowest=0 sum=0 passed=0 bad=0
  for e in "${plan[@]}"; do
    read -r _ t2 g2 s2 <<<"$e"
    [ "$t2 $g2" = "$key" ] || continue
    log=$(log_of "$t2" "$g2" "$s2")
    total=$((total + 1))
    f=$(grep -Eo "ERROR SUMMARY: [0-9]+" "$log" 2>/dev/null | awk '{s += $3} END {print s + 0}')
    h=$(grep -Eo "RACECHECK SUMMARY: [0-9]+ hazards" "$log" 2>/dev/null | awk '{s += $3} END {print s + 0}')
    findings=$((findings + f + h))
    rc='' secs=''
    read -r rc secs < <(sed -nE 's/^=== exit ([0-9]+) after ([0-9]+) s.*/\1 \2/p' "$log" 2>/dev/null)
    [ "${rc:-x}" = 0 ] && done_=$((done_ + 1))
    if [ -n "${rc:-}" ]; then
      started_shards=$((started_shards + 1))
      grep -q '^P' "$(launch_of "$t2" "$g2" "$s2")" 2>/dev/null ||
        unlogged=$((unlogged + 1))
    fi
    [ "${secs:-0}" -gt "$slowest" ] && slowest=$secs
    sum=$((sum + ${secs:-0}))
    read -r p b < <(grep -Eo "^[0-9]+ passed, [0-9]+ failed|[0-9]+ gemm cases on cuda, [0-9]+ failed" "$log" 2>/dev/null |
      awk '{p += $1; b += $(NF - 1)} END {print p + 0, b + 0}')
    passed=$((passed + p)) bad=$((bad + b))
    passed=$((passed + $(grep -cE " PASS$" "$log" 2>/dev/null))) bad=$((bad + $(grep -cE " FAIL$" "$log" 2>/dev/null)))
  done
  printf '%-10s %-20s %3s/%-3s %8s %7s %6s  %s passed, %s failed\n' "$tool" "$g" \
    "$done_" "$total" "$findings" "$slowest" "$sum" "$passed" "$bad" | tee -a "$summary"
  [ "$done_" = "$total" ] && [ "$findings" = 0 ] && [ "$bad" = 0 ] || failed=1
  if [ "$done_" = "$total" ]; then
    w=$((sum - total * ${start_s[$tool]:-5}))
    [ "$w" -ge 1 ] || w=1
    printf 'work        %-10s %-22s %s\n' "$tool" "$g" "$w" >>"$measured"
  fi
done
if [ $failed != 0 ]; then
  echo "== first findings, failures and unfinished shards"
  for entry in "${plan[@]}"; do
    read -r _ tool g s <<<"$entry"
    log=$(log_of "$tool" "$g" "$s")
    grep -E "^========= +(Invalid|Race|Barrier|Uninitialized|Error|Program hit|Leaked|.*hazard)| FAIL|^FAIL" \
      "$log" 2>/dev/null | grep -v SUMMARY | head -3 | sed "s|^|$tool $g $s: |"
    grep -qE "^=== exit 0 " "$log" 2>/dev/null ||
      echo "$tool $g $s: $(grep -E '^=== ' "$log" 2>/dev/null | cut -c1-60)"
  done | head -60
fi

# ---- the coverage ----------------------------------------------------------------
# The launch logs of the shards, by tool (their names start with it), and
# the module's registrations: the table and the problems, then a last line
# "coverage FAILURES" for this script.
coverage=$logs/coverage.txt
kernels=$out/sanitize-kernels.txt
launch_files=()
for f in "$logs"/*-*.launch; do [ -f "$f" ] && launch_files+=("$f"); done
awk -F'\t' -v tools="${tools[*]}" -v kernels="$kernels" \
  -v partial="${only:+1}" -v sms_given="${KL_SANITIZE_SMS:-0}" '
  function odd_extent(c,   t, i, n, v, p, m, j) {
    n = split(c, t, /[ ,]/)
    for (i = 1; i <= n; i++) {
      if (t[i] ~ /^(n|nx|ny|nz|m|k)=[0-9]+$/) {
        v = substr(t[i], index(t[i], "=") + 1) + 0
        if (v > 1 && v % 2 == 1) return 1
      } else if (t[i] ~ /^[0-9]+(x[0-9]+)+$/) {
        m = split(t[i], p, "x")
        for (j = 1; j <= m; j++) if (p[j] + 0 > 1 && p[j] % 2 == 1) return 1
      }
    }
    return 0
  }
  function short(f) {
    sub(/^cub::CUB_[0-9]+_SM_[0-9]+::detail::/, "cub::", f)
    return length(f) > 44 ? substr(f, 1, 43) "~" : f
  }
  BEGIN { nt = split(tools, tool, " "); sms = sms_given + 0 }
  FILENAME ~ /kernel-rules\.txt$/ { rule[$1] = $2; why[$1] = $3; next }
  FILENAME ~ /registered\.launch$/ {
    # An instantiation: its function and name (two functions without
    # template arguments may share a name: the two info_kernel of cg).
    if ($1 == "R") {
      if (!($3 in fun)) { fun[$3] = 1; funs[++nf] = $3 }
      ik = $3 "\t" $2
      if (!(ik in inst)) { inst[ik] = $3; insts[++ni] = ik; ninst[$3]++ }
    }
    next
  }
  {
    file = FILENAME; sub(/.*\//, "", file); tl = file; sub(/-.*/, "", tl)
    if ($1 == "S" && $2 + 0 > sms && sms_given + 0 == 0) sms = $2 + 0
    else if ($1 == "U") unreg[tl] += $2
    else if ($1 == "D") dropped[tl] += $2
    else if ($1 == "L") {
      split($3, g, ","); b = g[1] * g[2] * g[3]
      k = tl SUBSEP $5
      launches[k] += $2
      if (b > maxb[k]) maxb[k] = b
      if (b > 1 && odd_extent($7)) tail[k] = 1
      ik = $5 "\t" $6
      ki = tl SUBSEP ik
      ilaunch[ki] += $2
      if (b > imaxb[ki]) imaxb[ki] = b
      anywhere[$5] = 1
      if (!(ik in inst)) { inst[ik] = $5; insts[++ni] = ik; ninst[$5]++; unregistered_inst[ik] = 1 }
      if (!($5 in fun)) { fun[$5] = 1; funs[++nf] = $5 }
    }
  }
  END {
    need = 2 * sms
    printf "%-44s %-9s %5s", "kernel (function)", "rule", "inst"
    for (i = 1; i <= nt; i++) printf " %21s", tool[i] " n/blocks/tail"
    printf "\n"
    # Sorted by name.
    for (i = 1; i <= nf; i++) idx[i] = funs[i]
    for (i = 2; i <= nf; i++) { v = idx[i]; j = i - 1; while (j >= 1 && idx[j] > v) { idx[j + 1] = idx[j]; j-- } idx[j + 1] = v }
    for (i = 1; i <= ni; i++) {
      every = 1
      for (x = 1; x <= nt; x++) if (!((tool[x] SUBSEP insts[i]) in ilaunch)) every = 0
      if (every) inst_every[inst[insts[i]]]++
    }
    for (i = 1; i <= nf; i++) {
      f = idx[i]; r = (f in rule) ? rule[f] : "-"
      cub = f ~ /^(cub|thrust)::/
      if (cub) r = "cub"
      printf "%-44s %-9s %2d/%-2d", short(f), r, inst_every[f], ninst[f]
      for (x = 1; x <= nt; x++) {
        k = tool[x] SUBSEP f
        if (k in launches)
          printf " %9d %9d %1s", launches[k], maxb[k], (k in tail) ? "y" : "n"
        else
          printf " %21s", "-"
      }
      printf "\n"
      if (r == "ranks") {
        if (!(f in anywhere)) notes[++nn] = short(f) ": ranks only, not required here (" why[f] ")"
        continue
      }
      if (cub && !(f in anywhere)) { notes[++nn] = short(f) ": CUB, not launched by any rung"; continue }
      for (x = 1; x <= nt; x++) {
        k = tool[x] SUBSEP f
        if (!(k in launches)) { problems[++np] = "MISSING   " tool[x] ": " f; continue }
        if (cub || r == "one-block") continue
        if (r != "one-wave" && maxb[k] < need)
          problems[++np] = "FEW BLOCKS " tool[x] ": " f " (at most " maxb[k] " blocks, want " need ")"
        if (!(k in tail)) problems[++np] = "NO TAIL   " tool[x] ": " f
      }
    }
    for (x = 1; x <= nt; x++) {
      nfun = 0; nins = 0
      for (i = 1; i <= nf; i++) if ((tool[x] SUBSEP funs[i]) in launches) nfun++
      for (i = 1; i <= ni; i++) if ((tool[x] SUBSEP insts[i]) in ilaunch) nins++
      printf "%s launched %d functions, %d instantiations", tool[x], nfun, nins
      if (unreg[tool[x]]) printf "; %d launches of functions registered by no object of ours", unreg[tool[x]]
      if (dropped[tool[x]]) printf "; %d launches past the log'"'"'s table, not counted", dropped[tool[x]]
      printf "\n"
    }
    every = 0; none = 0
    for (i = 1; i <= ni; i++) {
      seen_by = 0
      for (x = 1; x <= nt; x++) if ((tool[x] SUBSEP insts[i]) in ilaunch) seen_by++
      if (seen_by == nt) every++
      if (seen_by == 0) none++
    }
    printf "instantiations: %d, %d launched under every tool, %d under none (sanitize-kernels.txt)\n", ni, every, none
    printf "SM count %s: two blocks an SM is %d blocks\n", sms ? sms : "unknown", need
    if (!sms) problems[++np] = "NO SM COUNT: no launch said it (KL_SANITIZE_SMS=N gives it)"
    for (i = 1; i <= nn; i++) print "note: " notes[i]
    if (partial) printf "partial gate: %d coverage problems not checked\n", np
    else for (i = 1; i <= np; i++) print problems[i]
    # Every instantiation, for the reader: launches and most blocks a tool.
    printf "# function\tinstantiation" > kernels
    for (x = 1; x <= nt; x++) printf "\t%s launches\t%s blocks", tool[x], tool[x] > kernels
    printf "\n" > kernels
    for (i = 1; i <= ni; i++) {
      printf "%s", insts[i] > kernels
      for (x = 1; x <= nt; x++) {
        ki = tool[x] SUBSEP insts[i]
        printf "\t%d\t%d", ilaunch[ki], imaxb[ki] > kernels
      }
      printf "%s\n", (insts[i] in unregistered_inst) ? "\tnot in the module" : "" > kernels
    }
    print "coverage " (partial ? 0 : np + 0)
  }' "$logs/kernel-rules.txt" "$logs/registered.launch" "${launch_files[@]}" \
  >"$coverage" 2>&1
echo "== kernels: launches, most blocks of a launch, a part block (y/n), under each tool" |
  tee -a "$summary"
grep -v '^coverage ' "$coverage" | tee -a "$summary"
problems=$(sed -nE 's/^coverage ([0-9]+)$/\1/p' "$coverage")
[ -n "$problems" ] || { echo "the coverage check did not run"; problems=1; }
if [ "$unlogged" -gt 0 ]; then
  echo "$unlogged of $started_shards shards that ran have no launch log: the shim did not load" |
    tee -a "$summary"
  [ -n "$only" ] || problems=$((problems + 1))
fi
[ "$problems" = 0 ] || failed=1

if [ "$mode" = run ]; then
  tar -czf "$out/sanitize-logs.tar.gz" -C "$logs" .
  rm -rf "$logs"
fi
if [ $failed = 0 ]; then
  verdict=clean
elif [ "$problems" != 0 ]; then
  verdict="FINDINGS, FAILURES, UNFINISHED SHARDS OR KERNELS NOT COVERED ($problems coverage problems)"
else
  verdict="FINDINGS, FAILURES OR UNFINISHED SHARDS"
fi
echo "sanitize: ${wall} s wall, $verdict" | tee -a "$summary"
exit $failed
