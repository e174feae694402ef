#!/usr/bin/env bash
# On a GPU machine (issue 28, core v3): the tree before core v3 and this
# tree, side by side. Builds both (the old one from a tarball of its
# sources, BEFORE=path.tar.gz, default .dev/before-69dfd4a.tar.gz: make it
# with `git archive --format=tar.gz -o .dev/before-69dfd4a.tar.gz
# 69dfd4a`) and this tree's sanitizer build (build-sanitize, -lineinfo,
# for scripts/gpu-sanitize.sh next), then each tree's GPU default suite
# (`kladder run -b cuda` over every workload but offload, whose default
# takes half the host's memory, with SUITE_OPTS, default
# "--reps 5 --warmup 1 --max-time 5" to fit a device session) and this
# tree's CUDA tests; the two trees at once on two GPUs where the machine
# has two, then this tree across both devices (-b cuda:0,cuda:1). Logs
# and CSVs under $OUT; the side-by-side table last.
set -uo pipefail
out=${OUT:-/tmp/kladder-core3}
before=${BEFORE:-.dev/before-69dfd4a.tar.gz}
opts=${SUITE_OPTS:---reps 5 --warmup 1 --max-time 5}
workloads=stream,transfer,map,reduce,histogram,laplacian,cg,integrate,pipeline,gemm
mkdir -p "$out"
gpus=$(nvidia-smi -L | wc -l)
cores=$(nproc)
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm \
    --format=csv,noheader
  echo "after: ${KL_COMMIT:-?}; before: $before; $gpus GPUs, $cores cores"
} | tee "$out/env.txt"

old=/tmp/kladder-before
rm -rf "$old" && mkdir -p "$old" && tar -xzf "$before" -C "$old" ||
  { echo "no $before"; exit 1; }
build() { # SOURCE DIR LOG [CMAKE ARGS]
  local src=$1 dir=$2 log=$3
  shift 3
  cmake -S "$src" -B "$dir" -DKL_WERROR=ON "$@" >"$log" 2>&1 &&
    cmake --build "$dir" -j $((cores / 3 + 1)) >>"$log" 2>&1 ||
    echo "BUILD FAILED" >>"$log"
}
t0=$(date +%s)
build "$old" "$old/build" "$out/build-before.log" &
build . build "$out/build-after.log" &
build . build-sanitize "$out/build-sanitize.log" -DCMAKE_CUDA_FLAGS=-lineinfo &
wait
for t in before after sanitize; do
  grep -q "BUILD FAILED" "$out/build-$t.log" && { tail -20 "$out/build-$t.log"; exit 1; }
done
echo "== built the three trees in $(( $(date +%s) - t0 )) s"

suite() { # NAME KLADDER GPU
  local t0=$(date +%s)
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$3 timeout 240 "$2" run -b cuda -w $workloads $opts \
    --csv "$out/suite-$1.csv" >"$out/suite-$1.txt" 2>"$out/suite-$1.err"
  echo "suite $1: exit $? after $(( $(date +%s) - t0 )) s"
}
tests() { # GPU REGEX LOG
  local t0=$(date +%s)
  (cd build && CUDA_VISIBLE_DEVICES=$1 timeout 230 ctest -j 4 -R "$2" \
     --timeout 220) >"$out/$3" 2>&1
  echo "ctest $3: exit $? after $(( $(date +%s) - t0 )) s"
}
cuda_tests='^rungs-cuda-[a-z]+$|gemm-cuda|gpu-memcheck|racy|beyond-device|tiled-m|^api|threads|^model$'
if [ "$gpus" -ge 2 ]; then
  { suite after ./build/kladder 0; tests 0 "$cuda_tests" ctest-after.log; } &
  { suite before "$old/build/kladder" 1
    t0=$(date +%s)
    CUDA_VISIBLE_DEVICES=1 timeout 230 build/tests/test_rungs --quick --big cuda \
      >"$out/rungs-cuda-big.log" 2>&1
    echo "rungs-cuda-big (test_rungs --quick --big cuda): exit $? after $(( $(date +%s) - t0 )) s"
    tail -1 "$out/rungs-cuda-big.log"; } &
  wait
else
  suite before "$old/build/kladder" 0
  suite after ./build/kladder 0
  tests 0 "$cuda_tests|rungs-cuda-big" ctest-after.log
fi
for log in ctest-after.log; do
  [ -f "$out/$log" ] || continue
  echo "== $log"
  grep -E "tests passed|\*\*\*Failed|Timeout|Not Run|Test +#.*(Failed|Passed)" "$out/$log" |
    sed -E 's/ +/ /g' | head -20
done

if [ "$gpus" -ge 2 ]; then
  echo "== two devices: contexts on cuda:0 and cuda:1 in one run"
  ./build/kladder list --all | grep -E "^ +cuda:"
  ./build/kladder run -q -b cuda:0,cuda:1 -w stream,reduce -r cuda-memcpy,cuda-best \
    -n 64M --reps 5 --csv "$out/two-devices.csv" >"$out/two-devices.txt" 2>&1
  echo "exit $?"
  grep -E "^(stream|reduce) " "$out/two-devices.txt"
fi

echo "== the GPU default suite, before and after (rate; after/before)"
python3 - "$out/suite-before.csv" "$out/suite-after.csv" "$out/side-by-side.csv" <<'EOF'
import csv, sys
def rows(path):
    try:
        return list(csv.DictReader(open(path)))
    except OSError:
        return []
before, after = rows(sys.argv[1]), rows(sys.argv[2])
def key(r):
    # laplacian's tiled rungs became one rung with -p m= (default 4)
    rung = r["rung"]
    for k in ("tiled", "reordered", "bounded", "streaming"):
        if rung == "cuda-%s-m4" % k:
            rung = "cuda-" + k
    return (r["workload"], rung, r["type"], r["op"], r["shape"])
b = {key(r): r for r in before}
w = csv.writer(open(sys.argv[3], "w"))
w.writerow(["workload", "rung", "type", "op", "shape", "unit", "before_rate",
            "before_percent", "before_check", "after_rate", "after_percent",
            "after_check", "after_over_before"])
ratios = []
for r in after:
    k = key(r)
    o = b.get(k, {})
    br, ar = o.get("rate", ""), r["rate"]
    ratio = float(ar) / float(br) if br and ar and float(br) > 0 else None
    if ratio: ratios.append(ratio)
    w.writerow(list(k) + [r["unit"], br, o.get("percent_ceiling", ""),
               o.get("check", ""), ar, r["percent_ceiling"], r["check"],
               "%.3f" % ratio if ratio else ""])
    print("%-9s %-24s %-4s %-4s %-13s %9s %9s %6s %s" % (
        k[0], k[1], k[2], k[3] or "-", k[4][:13], br or "-", ar or "-",
        "%.3f" % ratio if ratio else "-", r["check"]))
ratios.sort()
if ratios:
    print("%d rungs in both; after/before: median %.3f, min %.3f, max %.3f"
          % (len(ratios), ratios[len(ratios) // 2], ratios[0], ratios[-1]))
print("before only:", sorted(set(b) - set(key(r) for r in after)))
print("after, not passed:", [key(r) for r in after
                             if r["check"] not in ("PASS", "WRONG(expected)")])
EOF
