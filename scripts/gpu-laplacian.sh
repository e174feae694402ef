#!/usr/bin/env bash
# On the GPU machine: the laplacian ladder's CUDA tests and its figures,
# every ladder in one run with the copy ceiling beside it.
# Usage: bash scripts/gpu-laplacian.sh [quick|figures]; logs and CSVs
# under $OUT. quick: the tests and the 512^3 ladders; figures: the
# ladders at every size, no tests. Each ladder's tiled rungs run at every
# m, the points per thread along y (-p m=1 to 16).
set -uo pipefail
# Few files come back from the device: the logs go to a folder of their
# own and reach $OUT as one archive.
final=${OUT:-/tmp/kladder-out}
out=$(mktemp -d)
mode=${1:-all}
mkdir -p "$final"
cmake -S . -B build -DKL_WERROR=ON >"$out/cmake.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >>"$out/cmake.log" 2>&1 ||
  { tail -30 "$out/cmake.log"; exit 1; }
t=./build/tests
if [ "$mode" != figures ]; then
  # Every rung, both types, on every test grid; then the big test: more
  # than 2^31 points.
  $t/test_rungs --workloads laplacian cuda >"$out/rungs-cuda.txt" 2>&1
  echo "rungs-cuda exit $?: $(tail -1 "$out/rungs-cuda.txt")"
  grep -E "FAIL" "$out/rungs-cuda.txt" | head -20
  if [ "$mode" != quick ]; then
    # More than 2^31 points (2048 x 1024 x 1040 = 2.18e9, f32: 8.7 GB an
    # array): 64-bit indexing in the seed's kernels and ours, every point
    # checked.
    ./build/kladder run -w laplacian -b cuda -t f32 -s 2048x1024x1040 \
      -r cuda-kernel1,cuda-zmarch,cuda-zmarch-shared,cuda-zmarch-vector \
      --reps 2 --warmup 1 --no-ceiling >"$out/big.txt" 2>&1
    echo "big 2048x1024x1040 f32: exit $?, $(grep -c PASS "$out/big.txt") PASS, $(grep -c FAIL "$out/big.txt") FAIL"
  fi
  # Registers, spills and shared memory of every kernel, from the binary.
  cuobjdump --dump-resource-usage build/libkladder.so 2>/dev/null |
    grep -A1 -E "Function .*(point_kernel|tiled_kernel|bounded_kernel|zmarch)" |
    grep -Eo "Function [^ ]+|REG:[0-9]+|STACK:[0-9]+|SHARED:[0-9]+|LOCAL:[0-9]+" |
    paste -sd' ' | sed 's/ Function /\nFunction /g' >"$out/resources.txt"
  # The loads and stores of each kernel's machine code.
  for fn in $(grep -Eo "Function [^ ]+" "$out/resources.txt" | cut -d' ' -f2 | tr -d ':'); do
    echo "$fn $(cuobjdump -sass -fun "$fn" build/libkladder.so 2>/dev/null |
      grep -Eo 'LDG[.A-Z0-9]*|STG[.A-Z0-9]*|LDS[.A-Z0-9]*|STS[.A-Z0-9]*|LDL|STL|BAR[.A-Z]*' |
      sort | uniq -c | tr -s ' ' | paste -sd,)"
  done >"$out/sass.txt"
  grep -E "zmarch_vector" "$out/resources.txt" "$out/sass.txt" | cut -c1-200
fi
# One ladder: every CUDA rung (or the ones given) with the copy beside it,
# and any further options (-p m=M) after the rungs.
ladder() { # name type shape [rungs [options...]]
  local name=$1 type=$2 shape=$3 rungs=${4:-}
  shift $(($# < 4 ? $# : 4))
  ./build/kladder run -w laplacian -b cuda -q -t "$type" -s "$shape" --reps 20 \
    ${rungs:+-r "$rungs"} "$@" --csv "$out/$name.csv" >"$out/$name.txt" 2>&1
  echo "== $name ($type $shape${1:+ $*}): exit $?"
  python3 - "$out/$name.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["workload"] == "stream":
        print(f'{r["rung"]:30s} {float(r["rate"] or 0):8.1f} GB/s  (ceiling)')
lap = [r for r in rows if r["workload"] == "laplacian"]
base = next((float(r["rate"]) for r in lap if r["rung"] == "cuda-kernel1"), 0)
for r in lap:
    rate = float(r["rate"] or 0)
    up = f"{rate / base:5.2f}x" if base else "   -  "
    print(f'{r["rung"]:30s} {rate:8.1f} GB/s {up} {r["percent_ceiling"]:>6s}% {r["status"]}')
PY
}
# The rungs that read no m, and the four tiled ones (kernels 2 and 3,
# bounded, streaming), which run at every m (-p m=, the points per thread
# along y) beside kernel 1, the base of "vs kernel 1".
untiled=cuda-kernel1,cuda-kernel1-streaming,cuda-zmarch,cuda-zmarch-shared,cuda-zmarch-vector
tiled=cuda-kernel1,cuda-tiled,cuda-reordered,cuda-bounded,cuda-streaming
both() { # name shape: the ladder, then the m sweep, in f64 and f32
  local type m
  for type in f64 f32; do
    ladder "$type-$1" "$type" "$2" "$untiled"
    for m in 1 2 4 8 16; do
      ladder "$type-$1-m$m" "$type" "$2" "$tiled" -p "m=$m"
    done
  done
}
both 512 512x512x512
if [ "$mode" != quick ]; then
  both 256 256x256x256
  both odd 257x129x65
  # 1024^3: the seed's best, its part-3 forms and ours (the host check of
  # 2^30 points takes seconds a rung): kernel 2 at m = 2 and 4, the others
  # at m = 8.
  big=cuda-kernel1,cuda-zmarch,cuda-zmarch-shared,cuda-zmarch-vector
  for type in f64 f32; do
    ladder "$type-1024" "$type" 1024x1024x1024 "$big"
    ladder "$type-1024-m2" "$type" 1024x1024x1024 cuda-tiled -p m=2
    ladder "$type-1024-m4" "$type" 1024x1024x1024 cuda-tiled -p m=4
    ladder "$type-1024-m8" "$type" 1024x1024x1024 \
      cuda-reordered,cuda-bounded,cuda-streaming -p m=8
  done
fi
tar -czf "$final/laplacian-logs.tar.gz" -C "$out" . 2>/dev/null
