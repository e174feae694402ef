#!/bin/sh
# mpi-dist.sh KLADDER MPIEXEC: the distributed workloads (reduce-dist,
# laplacian-dist, cg-dist) under mpirun on the host backends, and
# their GPU rungs where there is a CUDA device.
#   1. 1 to 4 ranks, weak and strong scaling: every rung passes, the JSON
#      says how many ranks, which scaling, the grid of ranks, and each
#      rung's efficiency against rank 0 alone (from 2 ranks);
#   2. exact integer sums and a NaN on one rank's part over 3 ranks;
#   3. bad input (a size the ranks cannot split, a copy-per-rank workload
#      under strong scaling, an unknown scaling): exit 2, one message;
#   4. an error on rank 1 inside a distributed rung: exit 3, its message;
#   5. where there is a CUDA device: cg-dist's and laplacian-dist's GPU
#      rungs over 2 to 4 ranks pass (cuda-aware may stand aside, and the
#      NCCL rungs where ranks share a GPU).
#   5b. a neighbour on another host (KLADDER_INJECT_HOSTS=2): openmp-shared
#      stands aside on every rank, saying why, over 2 and 4 ranks;
#   6. the trace over 2 ranks (laplacian-dist and cg-dist on OpenMP): a
#      process per rank holding each timed run with its phases nested,
#      checked by check_trace.py; the same in the trace the report's page
#      carries (kladder report, from the JSON's rank_runs).
#   7. the GPU rungs (cuda-staged, cuda-aware, cuda-nccl; laplacian-dist's
#      cuda-mapped, cuda-shared and cuda-nccl-overlap) of reduce-dist,
#      laplacian-dist and cg-dist over 2 ranks:
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
assert len(rs) == 11, "%d results" % len(rs)
for r in rs:
    assert r["check"] == "PASS", r
    assert r["ranks"] == p, r["ranks"]
    if p > 1:
        assert r["scaling"] == scaling, r.get("scaling")
        assert r["efficiency"] > 0 and r["one_rank_seconds"] > 0, r
        assert [k for k in r["phases"]], r
        # The timed runs of every rank, gathered at rank 0 (rank_runs)
        runs = r["rank_runs"]["runs"]
        assert len(runs) == p * r["timed_runs"], (len(runs), r["timed_runs"])
        assert sorted((u[0], u[1]) for u in runs) == \
            [(k, i) for k in range(p) for i in range(r["timed_runs"])], runs
        for u in runs:
            assert 0 <= u[2] <= u[3], u
            assert list(u[4]) == list(r["phases"]), (u, r["phases"])
        # The grid of ranks of a 3D split (kl__rank_grid): slabs along z
        # when weak; 1 x 2 x 2 for 4 ranks over 11^3 when strong; none for
        # reduce-dist.
        want = None
        if r["workload"] != "reduce-dist":
            want = "1x1x%d" % p
            if scaling == "strong" and p == 4:
                want = "1x2x2"
        assert r["rank_grid"] == want, (r["workload"], r["rank_grid"], want)
    else:
        assert "efficiency" not in r or r["efficiency"] is None, r
        assert r["rank_runs"] is None, r["rank_runs"]
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

# The GPU rungs, where this machine has a CUDA device (the GPU machine's
# ctest): cg-dist's over 2 to 4 ranks sharing it, weak and strong, both
# stencils, and fixed mode with an odd count (x's last step); each result
# passes, but cuda-aware, which stands aside where MPI is not CUDA-aware,
# and cuda-nccl (where built), which stands aside where ranks share a GPU.
# Where the host has a GPU for each rank (issue 37's machines), cuda-nccl
# must run and pass, not stand aside.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# gpu_results JSON P RUNGS...: the run's results are RUNGS (sorted; the
# NCCL rungs, cuda-nccl*, only where built) and each passed on P ranks,
# but cuda-aware and, where the ranks outnumber the GPUs, the NCCL rungs,
# which may stand aside.
gpu_results() {
  gr_json=$1 gr_ranks=$2
  shift 2
  python3 -c '
import json, sys
p, gpus, want = int(sys.argv[2]), int(sys.argv[3]), sorted(sys.argv[4:])
rs = json.load(open(sys.argv[1]))["results"]
rungs = sorted(r["rung"] for r in rs)
assert rungs in (want, [w for w in want if not w.startswith("cuda-nccl")]), \
    rungs
for r in rs:
    aside = r["rung"] == "cuda-aware" or (r["rung"].startswith("cuda-nccl")
                                          and p > gpus)
    if aside and r["check"] == "ASIDE":
        continue
    assert r["check"] == "PASS" and r["ranks"] == p, r
' "$gr_json" "$gr_ranks" "${gpus:-0}" "$@"
}
# KL_DIST_GPU (a regex, default every one) picks the GPU part's workloads
# on the GPU machine: cg-dist, laplacian-dist.
gpu_part() {
  [ "$cuda" = 1 ] && echo "$1" | grep -Eq "${KL_DIST_GPU:-.}"
}
cuda=0
"$kladder" list 2>/dev/null | grep -q '^  cuda  *available' && cuda=1
if gpu_part cg-dist; then
  # 9 points: every tile of the matrix-free sweeps reads past its box;
  # 70: tiles inside the box too (30 x 16 x 3 points a tile).
  for p in 2 3 4; do
    for scaling in weak strong; do
      for case in 9:stencil=27 9:stencil=7 9:stencil=27,mode=fixed,maxit=7 \
        70:stencil=27; do
        params=${case#*:}
        ranks $p -w cg-dist -b cuda -n ${case%%:*} -p $params --reps 2 \
          --warmup 1 --scaling $scaling --no-ceiling --json "$dir/g.json"
        what="cg-dist cuda, $p ranks, $scaling, $case"
        [ "$code" = 0 ] || fail "$what: exit $code"
        gpu_results "$dir/g.json" $p cuda-staged cuda-aware cuda-nccl \
          cuda-nccl-batched cuda-nccl-overlap || fail "$what: the JSON"
      done
    done
    echo "ok: cg-dist's GPU rungs, $p ranks, weak and strong"
  done
fi
# laplacian-dist's GPU rungs over 2 to 4 ranks on shapes whose boxes
# differ along every axis (the overlapped rung's interior and shell with
# neighbours on one side, both or none), both types.
if gpu_part laplacian-dist; then
  for p in 2 3 4; do
    for scaling in weak strong; do
      for shape in 33:ny=17,nz=9 6:ny=40,nz=21; do
        for type in f64 f32; do
          ranks $p -w laplacian-dist -b cuda -n ${shape%%:*} \
            -p ${shape#*:} -t $type \
            --reps 2 --warmup 1 --scaling $scaling --no-ceiling \
            --json "$dir/g.json"
          what="laplacian-dist cuda, $p ranks, $scaling, $shape, $type"
          [ "$code" = 0 ] || fail "$what: exit $code"
          gpu_results "$dir/g.json" $p cuda-staged cuda-mapped cuda-shared \
            cuda-aware cuda-nccl cuda-nccl-overlap || fail "$what: the JSON"
        done
      done
    done
    echo "ok: laplacian-dist's GPU rungs, $p ranks, weak and strong"
  done
fi

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

# A neighbour on another host (the test hook KLADDER_INJECT_HOSTS=2: rank r
# on pretend host r % 2): openmp-shared stands aside on every rank, saying
# why, the shared memory given back by all (no rank left waiting), and the
# rung after it runs.
for p in 2 4; do
  KLADDER_INJECT_HOSTS=2 ranks $p -w laplacian-dist \
    -r openmp-shared,openmp -n 9 --reps 2 --no-ceiling --json "$dir/h.json"
  [ "$code" = 0 ] || fail "openmp-shared across pretend hosts, $p ranks: exit $code"
  grep -q "is on another host; the ranks share memory on one host only" \
    "$dir/out.txt" || fail "openmp-shared across pretend hosts: no reason"
  python3 -c '
import json, sys
rs = {r["rung"]: r["check"] for r in json.load(open(sys.argv[1]))["results"]}
assert rs == {"openmp-shared": "ASIDE", "openmp": "PASS"}, rs
' "$dir/h.json" || fail "openmp-shared across pretend hosts, $p ranks: the JSON"
done
echo "ok: a neighbour on another host: openmp-shared stands aside, saying why"

ranks 2 -w laplacian-dist,cg-dist -b openmp -n 9 --reps 3 --warmup 1 \
  --no-ceiling -q --trace "$dir/trace.json" --csv "$dir/trace.csv" \
  --json "$dir/trace-results.json"
[ "$code" = 0 ] || fail "the trace over 2 ranks: exit $code"
python3 "$(dirname "$0")/check_trace.py" "$dir/trace.json" "$dir/trace.csv" \
  --ranks 2 >"$dir/out.txt" || fail "the trace over 2 ranks"
"$kladder" report "$dir/trace-results.json" -o "$dir/trace.html" \
  >"$dir/out.txt" 2>&1 || fail "the report of the trace over 2 ranks"
python3 -c '
import base64, json, re, sys
page = open(sys.argv[1]).read()
link = re.search(r"data:application/json;base64,([A-Za-z0-9+/=]+)", page)
trace = json.loads(base64.b64decode(link.group(1)))["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in trace if e["ph"] == "M"}
ranks = [p for p, n in names.items() if n.startswith("rank ")]
assert len(ranks) == 2, names
for p in ranks:
    runs = [e for e in trace if e["pid"] == p and e.get("cat") == "run"]
    phases = [e for e in trace if e["pid"] == p and e.get("cat") not in
              (None, "run")]
    assert len(runs) == 7 * 3 and phases, (len(runs), len(phases))
' "$dir/trace.html" || fail "the report page's trace over 2 ranks"
echo "ok: the trace over 2 ranks: a track per rank, runs and their phases"
for rung in cuda-staged cuda-mapped cuda-shared cuda-aware cuda-nccl \
  cuda-nccl-overlap cuda-nccl-batched; do
  ranks 2 -w reduce-dist,laplacian-dist,cg-dist -r $rung -n 11 --reps 2 \
    --no-ceiling
  if [ "$code" = 2 ]; then
    n=$(grep -c "^kladder: error" "$dir/out.txt")
    [ "$n" = 1 ] || fail "$rung, no GPU: $n messages, not 1"
    grep -q "not available here\|not built into this library" \
      "$dir/out.txt" || fail "$rung, no GPU: no reason given"
    echo "ok: $rung over 2 ranks, no GPU here: one message, exit 2"
  else
    [ "$code" = 0 ] || fail "$rung over 2 ranks on a GPU: exit $code"
    if [ "$rung" = cuda-nccl ] && [ "${gpus:-0}" -ge 2 ]; then
      n=$(grep -c "PASS" "$dir/out.txt")
      [ "$n" -ge 3 ] || fail "cuda-nccl over 2 ranks on 2 GPUs: $n passed"
    fi
    grep -q "PASS\|one GPU per rank\|takes no device memory" \
      "$dir/out.txt" || fail "$rung over 2 ranks: neither ran nor said why"
    echo "ok: $rung over 2 ranks on a GPU"
  fi
done
