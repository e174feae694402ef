#!/usr/bin/env bash
# On a GPU machine (issue 28, core v3): the tree before core v3 and this
# tree, side by side. Builds both (the old one from a tarball of its
# sources, BEFORE=path.tar.gz, default .dev/before-69dfd4a.tar.gz: make
# it with `git archive --format=tar.gz -o .dev/before-69dfd4a.tar.gz
# 69dfd4a`), then on each its GPU default suite (`kladder run -b cuda`,
# the default sizes and options) and its CTest suite, the two trees at
# once on two GPUs where the machine has two (else one after the other on
# one); then, with two GPUs, this tree across both devices (test_api's
# two contexts and `-b cuda:0,cuda:1`). Logs and CSVs under $OUT; the
# side-by-side table last.
#
#   scripts/gpu-core3.sh            (LIMIT=seconds per phase, default 300)
set -uo pipefail
out=${OUT:-/tmp/kladder-core3}
before=${BEFORE:-.dev/before-69dfd4a.tar.gz}
limit=${LIMIT:-300}
mkdir -p "$out"
gpus=$(nvidia-smi -L | wc -l)
cores=$(nproc)
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm \
    --format=csv,noheader
  echo "after: ${KL_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}; before: $before; $gpus GPUs, $cores cores"
} | tee "$out/env.txt"

old=/tmp/kladder-before
rm -rf "$old" && mkdir -p "$old" && tar -xzf "$before" -C "$old" ||
  { echo "no $before"; exit 1; }
build() { # SOURCE DIR LOG
  cmake -S "$1" -B "$2" -DKL_WERROR=ON >"$3" 2>&1 &&
    cmake --build "$2" -j $((cores / 2)) >>"$3" 2>&1
}
started=$(date +%s)
build "$old" "$old/build" "$out/build-before.log" &
build . build "$out/build-after.log" &
wait
for t in before after; do
  grep -qE "error|Error" "$out/build-$t.log" && { tail -20 "$out/build-$t.log"; exit 1; }
done
echo "== built both in $(( $(date +%s) - started )) s"

# One tree's suite then its tests, on one GPU.
phase() { # NAME KLADDER BUILD GPU
  local name=$1 kl=$2 dir=$3 gpu=$4 t0
  t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=$gpu timeout "$limit" "$kl" run -b cuda --csv "$out/suite-$name.csv" \
    >"$out/suite-$name.txt" 2>"$out/suite-$name.err"
  echo "suite $name exit $? after $(( $(date +%s) - t0 )) s" >"$out/phase-$name.txt"
  t0=$(date +%s)
  (cd "$dir" && CUDA_VISIBLE_DEVICES=$gpu timeout "$limit" ctest -j 6 -E "fuzz|install" \
     --timeout 280) >"$out/ctest-$name.log" 2>&1
  echo "ctest $name exit $? after $(( $(date +%s) - t0 )) s" >>"$out/phase-$name.txt"
}
if [ "$gpus" -ge 2 ]; then
  phase before "$old/build/kladder" "$old/build" 1 &
  phase after ./build/kladder build 0 &
  wait
else
  phase before "$old/build/kladder" "$old/build" 0
  phase after ./build/kladder build 0
fi
cat "$out/phase-before.txt" "$out/phase-after.txt"
for t in before after; do
  echo "== ctest $t"
  grep -E "tests passed|\*\*\*Failed|Timeout|Not Run" "$out/ctest-$t.log" | head -12
done

if [ "$gpus" -ge 2 ]; then
  echo "== two devices"
  ./build/kladder list | grep -E "^ +cuda:"
  ./build/kladder run -q -b cuda:0,cuda:1 -w stream,reduce -r cuda-memcpy,cuda-best \
    -n 64M --reps 5 --csv "$out/two-devices.csv" >"$out/two-devices.txt" 2>&1
  echo "kladder -b cuda:0,cuda:1: exit $?"
  grep -E "^(stream|reduce) " "$out/two-devices.txt"
  build/tests/test_api 2>&1 | grep -E "two devices|passed,"
fi

echo "== the GPU default suite, before and after (rate, %ceil)"
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
out = csv.writer(open(sys.argv[3], "w"))
out.writerow(["workload", "rung", "type", "op", "shape", "unit",
              "before_rate", "before_percent", "after_rate", "after_percent",
              "after_over_before"])
shown = 0
for r in after:
    k = key(r)
    o = b.get(k)
    br = float(o["rate"]) if o and o["rate"] else None
    ar = float(r["rate"]) if r["rate"] else None
    ratio = ar / br if br and ar else None
    out.writerow(list(k) + [r["unit"], o["rate"] if o else "",
                 o["percent_ceiling"] if o else "", r["rate"],
                 r["percent_ceiling"], "%.3f" % ratio if ratio else ""])
    print("%-9s %-24s %-4s %-4s %-14s %10s %7s %10s %7s %7s" % (
        k[0], k[1], k[2], k[3] or "-", k[4],
        o["rate"] if o else "-", o["percent_ceiling"] if o else "-",
        r["rate"] or "-", r["percent_ceiling"] or "-",
        "%.3f" % ratio if ratio else "-"))
    shown += 1
ratios = sorted(float(x) for x in [
    (float(r["rate"]) / float(b[key(r)]["rate"]))
    for r in after if key(r) in b and r["rate"] and b[key(r)]["rate"]
    and float(b[key(r)]["rate"]) > 0])
if ratios:
    print("%d rungs in both; after/before: median %.3f, min %.3f, max %.3f" % (
        len(ratios), ratios[len(ratios) // 2], ratios[0], ratios[-1]))
print("before only:", sorted(set(b) - set(key(r) for r in after)))
EOF
