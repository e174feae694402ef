#!/usr/bin/env bash
# On the GPU machine: the cg ladder's CUDA tests and its figures, every
# ladder in one run with the copy ceiling beside it.
# Usage: bash scripts/gpu-cg.sh [tests|figures|big|all] (default all);
# logs and CSVs under $OUT as one archive. tests: test_rungs over cg's own
# problems and test_api; figures: the 201^3 ladders, 27-point (tolerance
# and the seed's fixed 100 iterations) and 7-point (fixed 100); big: more
# than 2^31 nonzeros (431^3, 27-point, a few fixed iterations).
set -uo pipefail
final=${OUT:-/tmp/kladder-out}
out=$(mktemp -d)
mode=${1:-all}
mkdir -p "$final"
cmake -S . -B build -DKL_WERROR=ON >"$out/cmake.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >>"$out/cmake.log" 2>&1 ||
  { tail -30 "$out/cmake.log"; exit 1; }
t=./build/tests
if [ "$mode" = tests ] || [ "$mode" = all ]; then
  $t/test_rungs --workloads cg cuda >"$out/rungs-cuda.txt" 2>&1
  echo "rungs-cuda exit $?: $(tail -1 "$out/rungs-cuda.txt")"
  grep -E "FAIL|error" "$out/rungs-cuda.txt" | head -20
  $t/test_api >"$out/api.txt" 2>&1
  echo "test_api exit $?: $(tail -1 "$out/api.txt")"
  grep -v "^ok" "$out/api.txt" | grep -iE "fail|error" | head -10
fi
# One ladder: every GPU rung and the OpenMP one, the copy beside each.
ladder() { # name params [rungs]
  local name=$1 params=$2 rungs=${3:-}
  ./build/kladder run -w cg -b cuda -q -p "$params" --reps 10 --warmup 2 \
    --max-time 30 ${rungs:+-r "$rungs"} --csv "$out/$name.csv" >"$out/$name.txt" 2>&1
  echo "== $name ($params): exit $?"
  python3 - "$out/$name.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["workload"] == "stream":
        print(f'{r["rung"]:22s} {float(r["rate"] or 0):8.1f} GB/s  (ceiling)')
cg = [r for r in rows if r["workload"] == "cg"]
ref = next((r for r in cg if r["rung"] == "cusparse" and r["median_s"]), None)
def per_it(r):
    counts = dict(kv.split("=") for kv in r["counts"].split(";") if "=" in kv)
    k = float(counts.get("iterations", 0) or 0)
    return float(r["median_s"]) / k if k and r["median_s"] else 0, k
ref_it = per_it(ref)[0] if ref else 0
print(f'{"rung":22s} {"ms/it":>8s} {"its":>5s} {"GB/s":>8s} {"%ceil":>6s} {"x cusparse":>10s} {"residual":>9s} check')
for r in cg:
    it, k = per_it(r)
    up = f"{ref_it / it:9.2f}x" if it and ref_it else "        -"
    print(f'{r["rung"]:22s} {it * 1e3:8.4f} {k:5.0f} {float(r["rate"] or 0):8.1f} '
          f'{r["percent_ceiling"] or "-":>6s} {up} {r["abs_error"] or "-":>9s} {r["check"]} {r["error"][:60]}')
PY
}
if [ "$mode" = figures ] || [ "$mode" = all ]; then
  ladder p27-tol "stencil=27"
  ladder p27-fixed "stencil=27,mode=fixed,maxit=100"
  ladder p7-fixed "stencil=7,mode=fixed,maxit=100"
fi
if [ "$mode" = big ] || [ "$mode" = all ]; then
  # 431^3 27-point: 2.15e9 nonzeros, 26 GB of matrix; int64 offsets.
  ./build/kladder run -w cg -b cuda -n 431 -p stencil=27,mode=fixed,maxit=3 \
    -r cuda-resident,cuda-device-scalars,cuda-graph,cusparse --reps 1 \
    --warmup 0 --no-ceiling >"$out/big.txt" 2>&1
  echo "big 431^3 (2.15e9 nonzeros): exit $?, $(grep -c ' PASS' "$out/big.txt") PASS, $(grep -c FAIL "$out/big.txt") FAIL"
  grep -E "^cg " "$out/big.txt" | cut -c1-160
fi
tar -czf "$final/cg-logs.tar.gz" -C "$out" . 2>/dev/null
