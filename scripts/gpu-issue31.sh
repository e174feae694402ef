#!/usr/bin/env bash
# On the GPU machine: issue 31's figures, each ladder with its vendor rung
# in one run. Builds like gpu-check.sh where no build is there. Results
# (JSON, text tables, the wisdom file) under $OUT; a short table last.
#   read      reduce, histogram and read at the default sizes, with their
#             ceilings (no percent above 100 but where a note says why)
#   reduce    the library rung against CUB from 1K to 1G elements (x4),
#             sums of f64, f32, i32; min and max of f32 and f64 at 1K, 1M,
#             256M
#   integrate the library rung against CUB, 1K to 1G points (x8)
#   gemm      the best rungs against cuBLAS: square 1024 to 16384, both
#             types; m or n 256 with k 4096; k 256
#   gemm-tiles the DMMA rung's tile configurations (KLADDER_DMMA=0..4, 0 the rule,
#             KL_DMMA_CONFIGS) at the gemm part's shapes, cuBLAS beside
#             each; the pipelined rung on the small squares (split grids)
#   laplacian f32 and f64 at 512^3 against the copy
#   planes    laplacian cuda-zmarch-vector over -p planes=2..8, 512^3 and
#             1024^3, both types, against the copy
#   tune      kladder tune over the GPU and host backends
#   dispatch  reduce (f64, f32, i32) and histogram from 1K to 1G on the
#             CUDA rungs with CUB, sum only: the rung the library
#             dispatches at each size beside the fastest and the vendor
#             (dispatch.md, and the report's rings, report.html)
#   tune-gpu  kladder tune up to the GPU's sizes (1K to 256M, x8) on
#             serial, openmp and cuda, for src/core/wisdom-builtin.c
#             (tune keeps the workloads that finished when the limit,
#             KL_TUNE_GPU_LIMIT, 400 s by default, stops it)
# KL_ISSUE31_ONLY=REGEX runs only the parts whose names match.
set -uo pipefail
out=${OUT:-/tmp/kladder-out}
mkdir -p "$out"
only=${KL_ISSUE31_ONLY:-.}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader |
  tee "$out/gpu.txt"
git log -1 --format='commit %h %s' 2>/dev/null | cut -c1-80 | tee -a "$out/gpu.txt"
. "$(dirname "$0")/gpu-build.sh"
k="./build/kladder run -q"
part() { [[ $1 =~ $only ]]; }
step() { echo "== $1 ($(date +%T))" >&2; }

if part read; then
  step read
  $k -w read,reduce,histogram -b cuda --json "$out/read.json" >"$out/read.txt" 2>&1
fi
if part reduce; then
  step reduce
  for t in f64 f32 i32; do
    $k -w reduce -b cuda -r cuda-best,cuda-single-pass-fence,cuda-cub -t $t \
      -n 1K..1G:x4 --reps 30 --warmup 5 --no-ceiling \
      --json "$out/reduce-sum-$t.json" >"$out/reduce-sum-$t.txt" 2>&1
  done
  for t in f32 f64; do
    $k -w reduce -b cuda -r cuda-best,cuda-cub -t $t -p op=min,max \
      -n 1K,1M,256M --reps 30 --warmup 5 --no-ceiling \
      --json "$out/reduce-minmax-$t.json" >"$out/reduce-minmax-$t.txt" 2>&1
  done
fi
if part integrate; then
  step integrate
  $k -w integrate -b cuda -r cuda-best,cuda-cub -t f64 -n 1K..1G:x8 \
    --reps 20 --warmup 3 --no-ceiling --json "$out/integrate.json" \
    >"$out/integrate.txt" 2>&1
fi
if part gemm; then
  step gemm
  for t in f64 f32; do
    $k -w gemm -b cuda -r cuda-dmma,cuda-pipelined,cuda-cublas -t $t \
      -n 1024,2048,4096,8192,16384 --reps 5 --warmup 2 \
      --json "$out/gemm-square-$t.json" >"$out/gemm-square-$t.txt" 2>&1
    for s in 256x16384x4096 16384x256x4096 8192x8192x256; do
      $k -w gemm -b cuda -r cuda-dmma,cuda-pipelined,cuda-cublas -t $t -s $s \
        --reps 10 --warmup 2 \
        --json "$out/gemm-$s-$t.json" >"$out/gemm-$s-$t.txt" 2>&1
    done
  done
fi
if part gemm-tiles; then
  step gemm-tiles
  for c in ${KL_DMMA_CONFIGS:-0 1 2 3 4}; do
    KLADDER_DMMA=$c $k -w gemm -b cuda -r cuda-dmma,cuda-cublas -t f64 \
      -n 1024,2048,4096,8192 --reps 7 --warmup 2 \
      --json "$out/tiles-$c-square.json" >"$out/tiles-$c-square.txt" 2>&1
    for s in 256x16384x4096 16384x256x4096 8192x8192x256; do
      KLADDER_DMMA=$c $k -w gemm -b cuda -r cuda-dmma,cuda-cublas -t f64 \
        -s $s --reps 7 --warmup 2 \
        --json "$out/tiles-$c-$s.json" >"$out/tiles-$c-$s.txt" 2>&1
    done
  done
  $k -w gemm -b cuda -r cuda-pipelined,cuda-cublas -t f32 -n 512,1024,2048 \
    --reps 10 --warmup 2 --json "$out/tiles-f32-small.json" \
    >"$out/tiles-f32-small.txt" 2>&1
fi
if part laplacian; then
  step laplacian
  for t in f32 f64; do
    $k -w laplacian -b cuda -t $t -n 512 --json "$out/laplacian-$t.json" \
      >"$out/laplacian-$t.txt" 2>&1
  done
fi
# The z-marching vector kernel's planes a chunk (-p planes=), each type at
# 512^3 and 1024^3, with the copy beside each point.
if part planes; then
  step planes
  for t in f32 f64; do
    for n in 512 1024; do
      $k -w laplacian -b cuda -r cuda-zmarch-vector -t $t -n $n \
        -p planes=2,3,4,5,6,8 --reps 20 \
        --json "$out/planes-$t-$n.json" >"$out/planes-$t-$n.txt" 2>&1
    done
  done
fi
if part dispatch; then
  step dispatch
  for t in f64 f32 i32; do
    $k -w reduce -b cuda -t $t -n 1K..1G:x4 --reps 20 --warmup 3 \
      --no-ceiling --json "$out/dispatch-reduce-$t.json" \
      >"$out/dispatch-reduce-$t.txt" 2>&1
  done
  $k -w histogram -b cuda -n 1K..1G:x4 --reps 10 --warmup 2 --no-ceiling \
    --json "$out/dispatch-histogram.json" >"$out/dispatch-histogram.txt" 2>&1
  ./build/kladder report "$out"/dispatch-*.json -o "$out/report.html" ||
    echo "dispatch: the report failed" >&2
  # The table: per size, the fastest rung, the vendor's, the dispatched
  # rung and the fastest's median over the dispatched one's.
  python3 - "$out" >"$out/dispatch.md" <<'PY'
import glob, json, os, sys
print("| workload | type | n | backend | fastest | µs | vendor µs | dispatched | µs | fastest/dispatched |")
print("| --- | --- | ---: | --- | --- | ---: | ---: | --- | ---: | ---: |")
for f in sorted(glob.glob(os.path.join(sys.argv[1], "dispatch-*.json"))):
    rs = [r for r in json.load(open(f))["results"]
          if r.get("median_s") and not r.get("ceiling_only")]
    for key in sorted({(r["workload"], r["type"], r["n"], r["backend"])
                       for r in rs}):
        at = [r for r in rs
              if (r["workload"], r["type"], r["n"], r["backend"]) == key]
        fast = min(at, key=lambda r: r["median_s"])
        ven = [r for r in at if "vendor" in (r.get("flags") or "")]
        d = [r for r in at if r["rung"] == at[0].get("dispatched")]
        print("| %s | %s | %d | %s | %s | %.2f | %s | %s | %s | %s |" % (
            key[0], key[1], key[2], key[3], fast["rung"],
            fast["median_s"] * 1e6,
            "%.2f" % (ven[0]["median_s"] * 1e6) if ven else "-",
            at[0].get("dispatched") or "-",
            "%.2f" % (d[0]["median_s"] * 1e6) if d else "not run",
            "%.3f" % (fast["median_s"] / d[0]["median_s"]) if d else "-"))
PY
  cat "$out/dispatch.md" >&2
fi
if part tune; then
  step tune
  t0=$(date +%s)
  timeout "${KL_TUNE_LIMIT:-150}" ./build/kladder tune -q -o "$out/wisdom" \
    >"$out/tune.txt" 2>&1
  echo "tune: exit $? after $(( $(date +%s) - t0 )) s" >>"$out/tune.txt"
fi
if part tune-gpu; then
  step tune-gpu
  t0=$(date +%s)
  timeout "${KL_TUNE_GPU_LIMIT:-400}" ./build/kladder tune \
    -w reduce,histogram,map -b serial,openmp,cuda -n 1K..256M:x8 \
    -o "$out/wisdom-gpu" >"$out/tune-gpu.txt" 2>&1
  echo "tune-gpu: exit $? after $(( $(date +%s) - t0 )) s" \
    >>"$out/tune-gpu.txt"
fi

# The short table: each result's rung, size, median and rate, the
# vendor's beside it where one ran at the same problem.
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    try:
        rs = json.load(open(f))["results"]
    except Exception as e:
        print(os.path.basename(f), "unreadable:", e); continue
    vendor = {}
    for r in rs:
        if "vendor" in (r.get("flags") or ""):
            vendor[(r["workload"], r["type"], r["shape"], r.get("params", ""))] = r
    print("==", os.path.basename(f))
    for r in rs:
        if r.get("ceiling_only"):
            continue
        v = vendor.get((r["workload"], r["type"], r["shape"], r.get("params", "")))
        ratio = v["median_s"] / r["median_s"] if v and r.get("median_s") else 0
        pc = r.get("percent_ceiling")
        print("%-9s %-24s %-4s %-16s %-14s %11.3e s %10.4g %-7s %6s %s" % (
            r["workload"], r["rung"], r["type"], r["shape"],
            (r.get("params") or "")[:14], r.get("median_s") or 0,
            r.get("rate") or 0, r.get("unit", ""),
            "%.1f%%" % pc if pc else "-",
            "x%.3f" % ratio if ratio else r.get("check", "")))
PY
