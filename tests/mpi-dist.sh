#!/bin/sh
# mpi-dist.sh KLADDER MPIEXEC: the distributed workloads (reduce-dist,
# laplacian-dist, cg-dist) under mpirun on the host backends.
#   1. 1 to 4 ranks, weak and strong scaling: every rung passes, the JSON
#      says how many ranks, which scaling, and each rung's efficiency
#      against rank 0 alone (from 2 ranks);
#   2. exact integer sums and a NaN on one rank's part over 3 ranks;
#   3. bad input (a size the ranks cannot split, a copy-per-rank workload
#      under strong scaling, an unknown scaling): exit 2, one message;
#   4. an error on rank 1 inside a distributed rung: exit 3, its message;
#   5. the GPU rungs (cuda-staged, cuda-aware, cuda-nccl) over 2 ranks:
#      without a GPU (or a build without them) one message saying so,
#      exit 2; with one, every result passes or stands aside saying why
#      (cuda-nccl where the two ranks share a GPU).
# Every mpirun is under a timeout: a hang fails the test. Correctness only
# (Open MPI busy-polls; more ranks than cores here).
kladder=$1
mpiexec=$2
. "$(dirname "$0")/mpi-common.sh"
export OMP_NUM_THREADS=1

for p in 1 2 3 4; do
  for scaling in weak strong; do
    ranks $p -w reduce-dist,laplacian-dist,cg-dist -b serial,openmp -n 11 \
      --reps 2 --warmup 1 \
      --scaling $scaling --json "$dir/r.json"
    [ "$code" = 0 ] || fail "$p ranks, $scaling: exit $code"
    python3 -c '
import json, sys
p, scaling = int(sys.argv[2]), sys.argv[3]
rs = [r for r in json.load(open(sys.argv[1]))["results"]
      if r["workload"].endswith("-dist")]
assert len(rs) == 10, "%d results" % len(rs)
for r in rs:
    assert r["check"] == "PASS", r
    assert r["ranks"] == p, r["ranks"]
    if p > 1:
        assert r["scaling"] == scaling, r.get("scaling")
        assert r["efficiency"] > 0 and r["one_rank_seconds"] > 0, r
        assert [k for k in r["phases"]], r
    else:
        assert "efficiency" not in r or r["efficiency"] is None, r
' "$dir/r.json" $p $scaling || fail "$p ranks, $scaling: the JSON"
  done
  echo "ok: $p ranks, weak and strong"
done

ranks 3 -w reduce-dist -b serial,openmp -t i32 -n 1001 --inputs large \
  --reps 2 --no-ceiling
[ "$code" = 0 ] || fail "an exact int32 sum over 3 ranks: exit $code"
ranks 3 -w reduce-dist -b serial,openmp -t f32 --op max -n 1001 \
  --inputs nan-middle --reps 2 --no-ceiling
[ "$code" = 0 ] || fail "a NaN on rank 1's part: exit $code"
echo "ok: int32 sums exact, a NaN on one rank every rank's max"

ranks 4 -w cg-dist -b openmp -n 7 -p stencil=7 --reps 2 --warmup 1 \
  --no-ceiling
[ "$code" = 0 ] || fail "cg-dist, 7 points, 4 ranks: exit $code"
ranks 3 -w cg-dist -b serial -n 6 -p mode=fixed,maxit=9 --scaling strong \
  --reps 2 --warmup 1 --no-ceiling
[ "$code" = 0 ] || fail "cg-dist, fixed mode, 3 ranks strong: exit $code"
echo "ok: cg-dist's 7-point matrix and fixed mode"

# bad P ARGS... -- WHAT PATTERN: exit 2 and one message matching it.
bad() {
  what=$1 pattern=$2
  shift 2
  ranks "$@"
  [ "$code" = 2 ] || fail "$what: exit $code, not 2"
  n=$(grep -c "^kladder: error" "$dir/out.txt")
  [ "$n" = 1 ] || fail "$what: $n messages, not 1"
  grep -q "$pattern" "$dir/out.txt" || fail "$what: no '$pattern'"
}
bad "fewer elements than ranks" "at least one each" \
  3 -w reduce-dist -n 2 --scaling strong
bad "a grid without an interior" "at least 3" 2 -w laplacian-dist -n 2
bad "an interior the ranks cannot split" "cannot split" \
  2 -w laplacian-dist -n 3 --scaling strong
bad "a copy per rank under strong scaling" "strong scaling is for" \
  2 -w stream -b serial -n 1000 --scaling strong
bad "more ranks than a grid's planes" "cannot split" \
  3 -w cg-dist -n 1 --scaling strong
bad "an unknown scaling" "must be weak or strong" \
  2 -w laplacian-dist --scaling sideways
echo "ok: bad input under mpirun: exit 2, one message"

KLADDER_INJECT_RANK=1 KLADDER_INJECT_ERROR=openmp-overlap \
  ranks 2 -w laplacian-dist -b openmp -n 13 --reps 2 --no-ceiling
[ "$code" = 3 ] || fail "an error on rank 1: exit $code, not 3"
grep -q "^kladder: error: laplacian-dist openmp-overlap: rank 1: " \
  "$dir/out.txt" || fail "rank 1's message not printed by rank 0"
echo "ok: an error on rank 1 in a distributed rung: exit 3, its message"

for rung in cuda-staged cuda-aware cuda-nccl; do
  ranks 2 -w reduce-dist,laplacian-dist -r $rung -n 11 --reps 2 --no-ceiling
  if [ "$code" = 2 ]; then
    n=$(grep -c "^kladder: error" "$dir/out.txt")
    [ "$n" = 1 ] || fail "$rung, no GPU: $n messages, not 1"
    grep -q "not available here\|not built into this library" \
      "$dir/out.txt" || fail "$rung, no GPU: no reason given"
    echo "ok: $rung over 2 ranks, no GPU here: one message, exit 2"
  else
    [ "$code" = 0 ] || fail "$rung over 2 ranks on a GPU: exit $code"
    grep -q "PASS\|one GPU per rank\|takes no device memory" \
      "$dir/out.txt" || fail "$rung over 2 ranks: neither ran nor said why"
    echo "ok: $rung over 2 ranks on a GPU"
  fi
done
