#!/bin/sh
# mpi.sh KLADDER MPIEXEC: the command under mpirun on the host backends.
#   1. 1 to 4 ranks: every rung passes, rank 0 alone prints and writes,
#      the results say how many ranks ran;
#   2. a check spoiled on rank 1 only: exit 1 on every rank, the table
#      names the rank;
#   3. a runtime error on rank 1 only: exit 3, rank 0 prints its message;
#   4. a bad workload name, an unwritable --json: exit 2, one message.
# Every mpirun is under a timeout: a hang fails the test. Correctness only
# (Open MPI busy-polls; more ranks than cores here).
kladder=$1
mpiexec=$2
. "$(dirname "$0")/mpi-common.sh"

for p in 1 2 3 4; do
  ranks $p -w stream,reduce,histogram -b serial,openmp -n 20000 --reps 2 \
    --json "$dir/r$p.json"
  [ "$code" = 0 ] || fail "$p ranks: exit $code"
  headers=$(grep -c "^workload  rung" "$dir/out.txt")
  [ "$headers" = 1 ] || fail "$p ranks: $headers tables printed, not 1"
  if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = int(sys.argv[2])
rs = d["results"]
assert len(rs) >= 7, "%d results" % len(rs)
assert all(r["check"] == "PASS" for r in rs), [r["check"] for r in rs]
assert all(r["ranks"] == p for r in rs), [r["ranks"] for r in rs]
' "$dir/r$p.json" $p || fail "$p ranks: the JSON"
  fi
  if [ $p -gt 1 ]; then
    grep -q "^$p ranks at once" "$dir/out.txt" || fail "$p ranks: no ranks line"
  fi
  echo "ok: $p ranks"
done

export KLADDER_INJECT_RANK=1
# mpirun passes the environment it was started in to local ranks.
KLADDER_INJECT_WRONG=serial ranks 2 -w reduce -b serial -n 1000 --reps 2 \
  --no-ceiling -v
[ "$code" = 1 ] || fail "a check failed on rank 1: exit $code, not 1"
grep -q "the check failed on rank 1" "$dir/out.txt" ||
  fail "the table does not name rank 1"
echo "ok: a check failed on rank 1 only: exit 1, named"

KLADDER_INJECT_ERROR=serial ranks 2 -w reduce -b serial -n 1000 --reps 2 \
  --no-ceiling
[ "$code" = 3 ] || fail "an error on rank 1: exit $code, not 3"
grep -q "^kladder: error: reduce serial: rank 1: .*injected runtime error" \
  "$dir/out.txt" || fail "rank 1's message not printed by rank 0"
echo "ok: an error on rank 1 only: exit 3, its message"
unset KLADDER_INJECT_RANK

# A rung that stands aside at set-up is agreed on at each later step: its
# reason names the rank once (it read "rank 0: rank 0: rank 0:" on the
# H100 machine). The OpenCL rungs without doubles, where PoCL is here.
if "$kladder" list | grep -q '^  opencl *available'; then
  KLADDER_INJECT_NO_FP64=1 ranks 2 -w stream -b opencl -n 1000 --reps 2
  [ "$code" = 0 ] || fail "a rung aside on 2 ranks: exit $code"
  grep -q "stands aside: rank 0: opencl: .*no double precision" \
    "$dir/out.txt" || fail "a rung aside on 2 ranks: no reason"
  ! grep -q "rank [0-9]*: rank [0-9]*:" "$dir/out.txt" ||
    fail "a rung aside on 2 ranks: the rank named twice"
  echo "ok: a rung aside on 2 ranks: its reason names the rank once"
fi

ranks 3 -w nosuch
[ "$code" = 2 ] || fail "a bad name: exit $code, not 2"
n=$(grep -c "unknown workload" "$dir/out.txt")
[ "$n" = 1 ] || fail "a bad name: $n messages, not 1"
ranks 2 -w reduce -b serial -n 1000 --json "$dir/no/such/dir/r.json"
[ "$code" = 2 ] || fail "an unwritable --json: exit $code, not 2"
n=$(grep -c "^kladder: error" "$dir/out.txt")
[ "$n" = 1 ] || fail "an unwritable --json: $n messages, not 1"
echo "ok: bad input under mpirun: exit 2, one message"

# A rank bound to fewer CPUs than its share of the host (Open MPI binds to
# a core at two ranks or fewer): one note from rank 0; none unbound.
if [ "$(nproc)" -gt 1 ]; then
  timeout 120 "$mpiexec" -n 1 --bind-to core "$kladder" run -w reduce \
    -b serial -n 1000 --reps 2 -q >"$dir/out.txt" 2>&1 ||
    fail "bound to a core: exit $?"
  grep -q "^kladder: note: the launcher bound rank 0 to 1 of" "$dir/out.txt" ||
    fail "bound to a core: no note"
  timeout 120 "$mpiexec" -n 1 --bind-to none "$kladder" run -w reduce \
    -b serial -n 1000 --reps 2 -q >"$dir/out.txt" 2>&1 ||
    fail "unbound: exit $?"
  ! grep -q "kladder: note: the launcher bound" "$dir/out.txt" ||
    fail "unbound: a note"
  echo "ok: a rank bound to fewer CPUs than its share: one note"
fi

# The ranks of a host share its CPUs: without OMP_NUM_THREADS each rank's
# OpenMP threads are its share (the host's CPUs, as its cgroup gives them,
# over the ranks, at least one, no more than the rank may run on), said
# once by rank 0; with it, its count. The rank runs unbound, on the CPUs
# this shell may run on (nproc, without the OpenMP variables, which nproc
# obeys); the host's CPUs the note names are at least those and at most
# those online.
mine=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
online=$(getconf _NPROCESSORS_ONLN)
env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT timeout 120 "$mpiexec" -n 2 \
  --bind-to none "$kladder" \
  run -w reduce -b openmp -n 1000 --reps 2 -q --json "$dir/t.json" \
  >"$dir/out.txt" 2>&1 || fail "threads shared: exit $?"
n=$(grep -c "^kladder: note: 2 ranks share this host's" "$dir/out.txt")
[ "$n" = 1 ] || fail "threads shared: $n notes, not 1"
host=$(sed -n "s/^kladder: note: 2 ranks share this host's \([0-9]*\) CPUs.*/\1/p" \
  "$dir/out.txt")
[ -n "$host" ] && [ "$host" -ge "$mine" ] && [ "$host" -le "$online" ] ||
  fail "threads shared: the host's CPUs '$host' not from $mine to $online"
share=$((host / 2))
[ "$share" -le "$mine" ] || share=$mine
[ "$share" -ge 1 ] || share=1
grep -q "\"omp_threads\": $share," "$dir/t.json" ||
  fail "threads shared: omp_threads not $share ($host CPUs, $mine here)"
OMP_NUM_THREADS=3 timeout 120 "$mpiexec" -n 2 --bind-to none "$kladder" \
  run -w reduce -b openmp -n 1000 --reps 2 -q --json "$dir/t.json" \
  >"$dir/out.txt" 2>&1 || fail "OMP_NUM_THREADS=3: exit $?"
! grep -q "kladder: note: 2 ranks share" "$dir/out.txt" ||
  fail "OMP_NUM_THREADS=3: a note"
grep -q '"omp_threads": 3,' "$dir/t.json" ||
  fail "OMP_NUM_THREADS=3: omp_threads not 3"
echo "ok: ranks of a host share its CPUs among their OpenMP threads"
