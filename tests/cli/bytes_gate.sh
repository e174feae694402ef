#!/bin/sh
# scripts/gpu-bytes.sh without a GPU:
#   --plan      its table of rungs, each found in this build's `kladder list
#               --json`; a table (KL_BYTES_TABLE) naming a rung, a type, a
#               parameter and a LESSONS.md that are not there refused;
#   refusals    without ncu (NCU naming none, KL_GPU_ANYWAY=1) and, where
#               this machine has no nvidia-smi, without a GPU: exit 2 and
#               one line;
#   --analyze   the table over made-up runs: ncu's --csv --page raw output
#               (thousands separators, base and scaled units, two kernels
#               of a range, ==PROF== lines) and --page details, results
#               files with one and two timed runs: ok, explained (inside
#               its band), off, and errors (no ncu output, a failed check,
#               ncu's error and no kernel); then the ok rows alone pass.
# Exit 77 (skipped) without python3, which the script reads its JSON with.
# Usage: bytes_gate.sh SCRIPT BUILD_DIR
script=$1 build=$2
command -v python3 >/dev/null || { echo "SKIP: no python3 here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# A row's last column: found, and in a build without CUDA, not built here.
yes=' yes( \(not built in this build\))?$'

# ---- the plan
out=$(bash "$script" --plan "$build" 2>&1) || fail "--plan: $out"
for want in "^stream +cuda-copy +f64 +-n 128M +$yes" "^stream +cuda-triad " \
  "^reduce +cuda-best " "^histogram +cuda-best +u8 " "^laplacian +cuda-zmarch-vector " \
  "^cg +cuda-graph +f64 +-n 201 -p mode=fixed,maxit=4 +yes" \
  "^every rung found in .kladder list --json."; do
  echo "$out" | grep -Eq "$want" || fail "--plan: no /$want/: $out"
done
n=$(echo "$out" | grep -Ec "$yes")
[ "$n" -ge 13 ] || fail "--plan: $n rungs found, want 13 or more: $out"
echo "$out" | tail -1

cat >"$tmp/table" <<'EOF'
# a comment, then rows
stream    | cuda-copy          | f64 | -n 1M | -
stream    | cuda-nope          | f64 | -n 1M | -
map       | cuda-vec4          | f64 | -     | -
cg        | cuda-graph         | f64 | -p mode=fixed,maxiter=4 | -
stream    | openmp-copy        | f64 | -     | -
laplacian | cuda-kernel1       | f64 | -n 64 | 1.05..1.3 src/workloads/laplacian/LESSONS.md: L2 keeps the halo re-reads
laplacian | cuda-zmarch        | f64 | -n 64 | 1.05..1.3 src/workloads/laplacian/NOTES.md: no such file
EOF
out=$(KL_BYTES_TABLE=$tmp/table bash "$script" --plan "$build" 2>&1) &&
  fail "--plan passed a table of unknown names: $out"
for want in "^stream +cuda-copy .*$yes" "NO: no rung cuda-nope in stream$" \
  "NO: cuda-vec4 takes no f64 \(types f32\)$" "NO: cg has no parameter maxiter$" \
  "NO: openmp-copy runs on openmp, not cuda$" "^laplacian +cuda-kernel1 .*$yes" \
  "NO: explained names no file src/workloads/laplacian/NOTES.md$" \
  "^5 rows name what .kladder list --json. does not have$"; do
  echo "$out" | grep -Eq "$want" || fail "--plan, bad table: no /$want/: $out"
done
out=$(KL_BYTES_ONLY='^cg ' bash "$script" --plan "$build" 2>&1) || fail "--plan, only cg: $out"
n=$(echo "$out" | grep -Ec "$yes")
[ "$n" = 2 ] || fail "--plan, KL_BYTES_ONLY='^cg ': $n rows, want 2: $out"

# ---- the refusals: exit 2, one line
out=$(KL_GPU_ANYWAY=1 NCU="$tmp/no-ncu" OUT="$tmp/out" bash "$script" "$build" 2>&1)
rc=$?
[ $rc = 2 ] || fail "no ncu: exit $rc, want 2: $out"
[ "$(echo "$out" | wc -l)" = 1 ] || fail "no ncu: more than one line: $out"
echo "$out" | grep -q "ncu not found: NCU=$tmp/no-ncu" || fail "no ncu: $out"
echo "$out"
if ! command -v nvidia-smi >/dev/null 2>&1; then
  out=$(env -u KL_GPU_ANYWAY OUT="$tmp/out" bash "$script" "$build" 2>&1)
  rc=$?
  [ $rc = 2 ] || fail "no GPU: exit $rc, want 2: $out"
  [ "$(echo "$out" | wc -l)" = 1 ] || fail "no GPU: more than one line: $out"
  echo "$out" | grep -q "no NVIDIA GPU: nvidia-smi not found" || fail "no GPU: $out"
  echo "$out"
fi
[ ! -e "$tmp/out" ] || fail "a refusal wrote into OUT"

# ---- a whole run on stand-ins: nvidia-smi, ncu (the CSV of one kernel a
# range, 0.6 GB read and 0.4 GB written, after running the command) and
# kladder (its list with the cuda backend available; a run writes a result
# of 1 GB): every row of the table ok, each profiled in its own range; then
# an ncu whose injection is refused: exit 2 and one line.
bin=$tmp/bin fake=$tmp/build
mkdir "$bin" "$fake"
"$build/kladder" list --json >"$tmp/list.json" || fail "kladder list --json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["backends"]:
    if b["name"] == "cuda":
        b["available"] = True
json.dump(d, open(sys.argv[2], "w"))' "$tmp/list.json" "$fake/list.json" || fail "list.json"
cat >"$bin/nvidia-smi" <<'EOF'
#!/bin/sh
case $1 in
-L) echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)" ;;
*) echo "NVIDIA H200, 999.99, 143771 MiB" ;;
esac
EOF
cat >"$bin/ncu" <<'EOF'
#!/bin/sh
log= range= metrics=
while [ $# -gt 0 ]; do
  case $1 in
  --version) echo "NVIDIA (R) Nsight Compute Command Line Profiler"; echo "Version 0.0 (stand-in)"; exit 0 ;;
  --log-file) log=$2; shift 2 ;;
  --nvtx-include) range=$2; shift 2 ;;
  --metrics) metrics=$2; shift 2 ;;
  --clock-control | --page | --print-units | --launch-count) shift 2 ;;
  --csv | --nvtx) shift ;;
  *) break ;;
  esac
done
"$@"
rc=$?
{
  echo "==PROF== Connected to process 1 ($1)"
  if [ "${FAKE_NCU:-}" = refused ]; then
    echo "==ERROR== Failed to load the injection library: LibraryNotLoaded"
  elif [ "$metrics" = dram__bytes_read.sum,dram__bytes_write.sum ]; then
    echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","dram__bytes_write.sum"'
    echo '"","","","","","","","","","","","byte","byte"'
    echo "\"0\",\"1\",\"kladder\",\"h\",\"${range:-preflight}\",\"1\",\"7\",\"(256, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"600,000,000\",\"400,000,000\""
  fi
} >"$log"
exit $rc
EOF
cat >"$fake/kladder" <<'EOF'
#!/bin/sh
case $1 in
--version) echo "kladder 0.0 (stand-in)" ;;
list) cat "$(dirname "$0")/list.json" ;;
run)
  w= r= json=
  while [ $# -gt 0 ]; do
    case $1 in -w) w=$2 ;; -r) r=$2 ;; --json) json=$2 ;; esac
    shift
  done
  printf '{"results": [{"workload": "%s", "rung": "%s", "ceiling_only": false, "shape": "1", "bytes": 1000000000, "timed_runs": 1, "checked_timed": 0, "check": "PASS", "status": "success"}]}\n' "$w" "$r" >"$json" ;;
esac
EOF
chmod +x "$bin/nvidia-smi" "$bin/ncu" "$fake/kladder"
out=$(env -u KL_GPU_ANYWAY -u NCU PATH="$bin:$PATH" OUT="$tmp/run" bash "$script" "$fake" 2>&1) ||
  fail "a run on stand-ins: $out"
for want in "^gpu: NVIDIA H200" "^== ncu reads the counters \(Version 0.0 \(stand-in\)\)$" \
  "^stream +cuda-copy +1 +1\.000 +0\.600 +0\.400 +1\.000 +1\.000 +1  ok$" \
  "^cg +cuda-graph .*  ok$" "^bytes: 13 rungs, 13 ok, 0 explained, 0 off, 0 errors .*: PASS$"; do
  echo "$out" | grep -Eq "$want" || fail "a run on stand-ins: no /$want/: $out"
done
for f in '01-stream-cuda-copy "stream cuda-copy/"' '13-cg-cuda-graph "cg cuda-graph/"'; do
  grep -q "${f#* }" "$tmp/run/${f%% *}.csv" ||
    fail "${f%% *}: not profiled in its range: $(cat "$tmp/run/${f%% *}.csv")"
done
out=$(env -u KL_GPU_ANYWAY -u NCU KL_BYTES_ONLY='^cg ' KL_BYTES_DEADLINE=0 \
  PATH="$bin:$PATH" OUT="$tmp/run" bash "$script" "$fake" 2>&1) &&
  fail "a run past its deadline passed: $out"
for want in "^cg cuda-graph: error: .*not started: the deadline" \
  "^bytes: 2 rungs, 0 ok, 0 explained, 0 off, 2 errors .*; partial gate: only /\^cg /: FAIL$"; do
  echo "$out" | grep -Eq "$want" || fail "a run past its deadline: no /$want/: $out"
done
out=$(env -u KL_GPU_ANYWAY -u NCU FAKE_NCU=refused PATH="$bin:$PATH" OUT="$tmp/run" bash "$script" "$fake" 2>&1)
rc=$?
[ $rc = 2 ] || fail "ncu refused: exit $rc, want 2: $out"
line=$(echo "$out" | grep -Ev '^(gpu|ncu|kladder): ')
[ "$(echo "$line" | wc -l)" = 1 ] || fail "ncu refused: more than one line: $out"
echo "$line" | grep -q "ncu cannot read this GPU's counters: .*LibraryNotLoaded" ||
  fail "ncu refused: $out"
echo "$line"

# ---- the analysis over made-up runs
runs=$tmp/runs
mkdir "$runs"
tab=$(printf '\t')
cat >"$runs/plan.txt" <<EOF
# tolerance 0.10
01-stream-cuda-copy${tab}stream${tab}cuda-copy${tab}f64${tab}-n 128M${tab}-
02-laplacian-cuda-kernel1${tab}laplacian${tab}cuda-kernel1${tab}f64${tab}-n 512${tab}1.05..1.3 src/workloads/laplacian/LESSONS.md: L2 keeps the halo re-reads
03-reduce-cuda-best${tab}reduce${tab}cuda-best${tab}f64${tab}-n 128M${tab}-
04-cg-cuda-graph${tab}cg${tab}cuda-graph${tab}f64${tab}-n 201 -p mode=fixed,maxit=4${tab}-
05-map-cuda-vec4${tab}map${tab}cuda-vec4${tab}f32${tab}-n 256M${tab}-
06-read-cuda-read${tab}read${tab}cuda-read${tab}f64${tab}-n 128M${tab}-
07-histogram-cuda-best${tab}histogram${tab}cuda-best${tab}u8${tab}-n 512M${tab}-
EOF
result() { # KEY WORKLOAD RUNG SHAPE BYTES TIMED_RUNS CHECK
  printf '{"format": "kladder-results-2", "results": [{"workload": "%s", "rung": "%s", "backend": "cuda", "ceiling_only": false, "shape": "%s", "n": 1, "bytes": %s, "timed_runs": %s, "checked_timed": 0, "check": "%s", "status": "success", "error": null}]}\n' \
    "$2" "$3" "$4" "$5" "$6" "$7" >"$runs/$1.json"
}
head='"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","dram__bytes_write.sum"'
units() { printf '"","","","","","","","","","","","%s","%s"\n' "$1" "$2"; }
kernel() { # ID NAME READ WRITE
  printf '"%s","4242","kladder","host","%s","1","13","(256, 1, 1)","(524288, 1, 1)","0","9.0","%s","%s"\n' "$@"
}
# ok: 2,143,741,824 of 2 GiB, base units.
result 01-stream-cuda-copy stream cuda-copy 134217728 2147483648 1 PASS
{
  echo '==PROF== Connected to process 4242 (kladder)'
  echo "$head"; units byte byte
  kernel 0 'void copy_kernel<double>(const T1 *, T1 *, long)' 1,073,741,824 1,070,000,000
  echo '==PROF== Disconnected from process 4242'
} >"$runs/01-stream-cuda-copy.csv"
# explained: two kernels in Mbyte and Gbyte, 2.3 GB of 2 GB (1.15).
result 02-laplacian-cuda-kernel1 laplacian cuda-kernel1 512x512x512 2000000000 1 PASS
{
  echo "$head"; units Mbyte Gbyte
  kernel 0 'void point_kernel<double, false>(...)' 1,200.4 0.1496
  kernel 1 'void point_kernel<double, false>(...)' 0 0.95
} >"$runs/02-laplacian-cuda-kernel1.csv"
# off: 1.5 GB of 1 GB.
result 03-reduce-cuda-best reduce cuda-best 134217728 1000000000 1 PASS
{ echo "$head"; units byte byte; kernel 0 best_kernel 1500000000 0; } >"$runs/03-reduce-cuda-best.csv"
# errors: no ncu output; a failed check; ncu's error and no kernel.
result 04-cg-cuda-graph cg cuda-graph 201 16800000000 1 PASS
result 05-map-cuda-vec4 map cuda-vec4 268435456 2147483648 1 FAIL
{ echo "$head"; units byte byte; kernel 0 vec4_kernel 1073741824 1073741824; } >"$runs/05-map-cuda-vec4.csv"
result 06-read-cuda-read read cuda-read 134217728 1073741824 1 PASS
printf '==PROF== Connected to process 1 (kladder)\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0.\n' \
  >"$runs/06-read-cuda-read.csv"
# ok, --page details and two timed runs: (2 x 268 MB + 2 x 1 KB) / 2.
result 07-histogram-cuda-best histogram cuda-best 536870912 536870912 2 PASS
{
  echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
  for id in 0 1; do
    echo "\"$id\",\"1\",\"kladder\",\"h\",\"hist\",\"1\",\"13\",\"(1024, 1, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"dram__bytes_read.sum\",\"Mbyte\",\"536.87\""
    echo "\"$id\",\"1\",\"kladder\",\"h\",\"hist\",\"1\",\"13\",\"(1024, 1, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"dram__bytes_write.sum\",\"Kbyte\",\"1.02\""
  done
} >"$runs/07-histogram-cuda-best.csv"

out=$(bash "$script" --analyze "$runs" 2>&1) && fail "--analyze passed what it should not: $out"
for want in "^stream +cuda-copy +134217728 +2\.147 +1\.074 +1\.070 +2\.144 +0\.998 +1  ok$" \
  "^laplacian +cuda-kernel1 +512x512x512 +2\.000 +1\.200 +1\.100 +2\.300 +1\.150 +2  explained$" \
  "^reduce +cuda-best .* 1\.500 +1 +off$" \
  "^histogram +cuda-best +536870912 +0\.537 +0\.537 +0\.000 +0\.537 +1\.000 +2  ok$" \
  "^cg +cuda-graph .* error$" "^map +cuda-vec4 .* error$" "^read +cuda-read .* error$" \
  "^laplacian cuda-kernel1: explained, 1\.150 in 1\.05\.\.1\.3 src/workloads/laplacian/LESSONS\.md" \
  "^reduce cuda-best: off: ncu counted 1\.500x the declared bytes" \
  "^cg cuda-graph: error: no ncu output \\(04-cg-cuda-graph\\.csv\\)$" "^map cuda-vec4: error: its check: FAIL" \
  "^read cuda-read: error: ncu profiled no kernel in the range: ==ERROR== ERR_NVGPUCTRPERM" \
  "^bytes: 7 rungs, 2 ok, 1 explained, 1 off, 3 errors .*: FAIL$"; do
  echo "$out" | grep -Eq "$want" || fail "--analyze: no /$want/: $out"
done
grep -q "^01-stream-cuda-copy${tab}stream${tab}cuda-copy${tab}134217728${tab}2147483648${tab}1073741824${tab}1070000000${tab}2143741824${tab}0.9983${tab}1${tab}ok$" \
  "$runs/bytes.tsv" || fail "bytes.tsv: $(cat "$runs/bytes.tsv")"
[ "$(tail -1 "$runs/bytes-table.txt")" = "$(echo "$out" | tail -1)" ] ||
  fail "bytes-table.txt: $(cat "$runs/bytes-table.txt")"

grep -E '^(#|0[12]-)' "$runs/plan.txt" >"$runs/plan.ok" && mv "$runs/plan.ok" "$runs/plan.txt"
out=$(bash "$script" --analyze "$runs" 2>&1) || fail "--analyze, ok and explained: $out"
echo "$out" | tail -1 | grep -q "^bytes: 2 rungs, 1 ok, 1 explained, 0 off, 0 errors .*: PASS$" ||
  fail "--analyze, ok and explained: $out"
echo "bytes gate: the plan, the refusals and the table as expected"
