#!/usr/bin/env bash
# The OpenCL backend against OpenMP on this host, in one run per workload
# (issue 33: each memory-bound OpenCL rung at 0.8x the OpenMP rung of the
# same work or better, PoCL on a CPU). Results (JSON) under $OUT; a table
# last: each OpenCL rung's rate, its OpenMP twin's (openmp-copy for
# opencl-copy) or else the fastest OpenMP rung's but a vendor library's,
# and their ratio.
set -uo pipefail
out=${OUT:-/tmp/kladder-host-opencl}
mkdir -p "$out"
k="./build/kladder run -q -b openmp,opencl"
r="--reps ${KL_REPS:-10}"
$k -w stream,read,map -n 64M $r --json "$out/memory.json" >/dev/null 2>&1
$k -w reduce -n 64M -t f64 $r --json "$out/reduce-f64.json" >/dev/null 2>&1
$k -w reduce -n 64M -t f32 $r --json "$out/reduce-f32.json" >/dev/null 2>&1
$k -w histogram -n 256M $r --json "$out/histogram.json" >/dev/null 2>&1
$k -w laplacian -n 256 $r --json "$out/laplacian.json" >/dev/null 2>&1
# cg at 64^3 (2-3 ms an iteration on 2 cores) pays about 0.2 ms an
# iteration for PoCL's commands (ten, two of them waited for; ~30 us a
# round trip); at 128^3 (fixed, 50 iterations) that is under 1%.
$k -w cg -n 64 $r --json "$out/cg.json" >/dev/null 2>&1
$k -w cg -n 128 -p mode=fixed,maxit=50 --reps 3 --json "$out/cg-128.json" \
  >/dev/null 2>&1
$k -w gemm -n 1024 --reps 3 --json "$out/gemm.json" >/dev/null 2>&1
python3 - "$out" <<'PY'
import glob, json, os, sys
print("%-10s %-5s %-11s %-17s %11s %-22s %11s %6s" % (
    "workload", "type", "shape", "opencl rung", "rate", "best openmp rung",
    "rate", "ratio"))
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    rs = [r for r in json.load(open(f))["results"]
          if r.get("check") == "PASS" and not r.get("ceiling_only")]
    for w in sorted({r["workload"] for r in rs}):
        mine = [r for r in rs if r["workload"] == w]
        # The OpenMP rung of the same work (openmp-copy for opencl-copy),
        # else the fastest OpenMP rung that is not a vendor library's.
        omp = [r for r in mine if r["backend"] == "openmp"
               and "vendor" not in (r.get("flags") or "")]
        if not omp:
            continue
        for r in mine:
            if r["backend"] != "opencl":
                continue
            twin = [o for o in omp
                    if o["rung"].split("-", 1)[-1] == r["rung"].split("-", 1)[-1]
                    and "-" in r["rung"]]
            best = twin[0] if twin else max(omp, key=lambda o: o["rate"])
            print("%-10s %-5s %-11s %-17s %7.2f %-3s %-22s %7.2f %-3s %6.2f" % (
                w, r["type"], str(r.get("shape", ""))[:11], r["rung"],
                r["rate"], r["unit"][:3],
                best["rung"], best["rate"], best["unit"][:3],
                r["rate"] / best["rate"]))
PY
