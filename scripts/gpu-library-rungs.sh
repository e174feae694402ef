#!/usr/bin/env bash
# On the GPU machine, after a build in ./build: the candidates for each
# workload's library rung on cuda (the hand-written rungs that come close),
# per type and operation, 30 timed runs each, three rounds in one process
# run after another so that drift shows. Prints the median per round and
# the fastest. Used to choose the rungs marked `.library` (test_api pins
# them).
set -uo pipefail
k="./build/kladder run -q -b cuda --reps 30 --warmup 5 --no-ceiling"
row() { # workload type op rungs
  local w=$1 t=$2 op=$3 rungs=$4 extra=()
  [ "$op" != - ] && extra=(-p "op=$op")
  for round in 1 2 3; do
    $k -w "$w" -t "$t" "${extra[@]}" -r "$rungs" 2>/dev/null |
      awk -v r=$round -v w="$w" '$1 == w {print r, $2, w "/" $4, $5, $7, $8}'
  done
}
{
  for t in f64 f32 i32; do
    for op in sum min max; do
      row reduce $t $op cuda-grid-stride,cuda-best,cuda-single-pass-fence
    done
  done
  row map f32 - cuda-grid-stride,cuda-vec4
  for t in f64 f32; do
    row integrate $t - cuda-grid-stride,cuda-partials-device,cuda-best
  done
  row gemm f64 - cuda-pipelined,cuda-dmma
  row gemm f32 - cuda-padded,cuda-pipelined
} >"${OUT:-/tmp}/library-rungs.txt"
echo "== fastest per workload, type and op (median of three round medians)"
python3 - "${OUT:-/tmp}/library-rungs.txt" <<'PY'
import sys, collections, statistics
rows = collections.defaultdict(list)
unit = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6: continue
    rnd, rung, op, typ, t, u = f[:6]
    rows[(typ, op, rung)].append(float(t) * unit.get(u, 1))
best = collections.defaultdict(list)
for (typ, op, rung), ts in rows.items():
    best[(typ, op)].append((statistics.median(ts), rung, ts))
for key in sorted(best):
    cands = sorted(best[key])
    print(key[1], key[0], " ".join(f"{r}={m*1e6:.1f}us" for m, r, _ in cands), "->", cands[0][1])
PY
