# Sourced by the mpi*.sh tests, with kladder and mpiexec set: a
# temporary $dir, Open MPI's settings for root and for more ranks than
# cores, fail, and ranks P ARGS... (kladder run under P ranks, under a
# timeout that fails rather than hangs; $code and $dir/out.txt); for a run
# stopped by a signal (mpi-signals.sh, mpi-hosts.sh), a run $name started
# in the background as $job, each rank under mpi-rank.sh: wait_for,
# finish, rank_codes, no_temporaries and kept.
dir=$(mktemp -d) || exit 1
rank_sh="$(cd "$(dirname "$0")" && pwd)/mpi-rank.sh"
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
# In the sanitizer build: no leak report. Open MPI's components are
# dlopened and closed by MPI_Finalize, so what they keep shows with
# unknown frames that no suppression can name (116 kB in 3337 blocks);
# every other ASan and UBSan check stays on.
[ -z "${ASAN_OPTIONS-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
fail() {
  echo "FAIL: $*"
  [ -f "$dir/out.txt" ] && tail -15 "$dir/out.txt"
  exit 1
}
ranks() {
  p=$1
  shift
  timeout 120 "$mpiexec" -n "$p" "$kladder" run "$@" >"$dir/out.txt" 2>&1
  code=$?
  [ "$code" = 124 ] && fail "$p ranks: no end in 120 s (a hang): $*"
}

# wait_for PATTERN WHAT: until the run's output has a line matching
# PATTERN (60 s at most: then the test fails, naming WHAT).
wait_for() {
  tries=0
  until grep -q "$1" "$dir/out.txt" 2>/dev/null; do
    sleep 0.1
    tries=$((tries + 1))
    [ $tries -lt 600 ] || fail "$2 in 60 s"
  done
}

# finish: the run's end; mpirun's exit status in $code.
finish() {
  wait $job
  code=$?
  [ "$code" = 124 ] && fail "$name: no end in 120 s (a hang)"
}

# rank_codes WANT...: each rank's own exit status is one of WANT, the same
# on both.
rank_codes() {
  for r in 0 1; do
    [ -f "$dir/rank-$r.code" ] ||
      fail "$name: rank $r recorded no exit status (killed before its end)"
  done
  c0=$(cat "$dir/rank-0.code") c1=$(cat "$dir/rank-1.code")
  [ "$c0" = "$c1" ] || fail "$name: the ranks exited $c0 and $c1"
  for want in "$@"; do
    [ "$c0" = "$want" ] && return 0
  done
  fail "$name: the ranks exited $c0, not $*"
}

no_temporaries() {
  left=$(ls "$dir" | grep -F ".tmp-")
  [ -z "$left" ] || fail "$name: temporary files left: $left"
}

# kept: the JSON and the CSV hold the finished rungs, each over 2 ranks
# and passed, every rank's timed runs of each (stopped at one point), and
# say they were interrupted.
kept() {
  [ -f "$dir/$name.json" ] || fail "$name: no JSON written"
  grep -q '"interrupted": true' "$dir/$name.json" ||
    fail "$name: the JSON does not say interrupted"
  rows=$(($(wc -l <"$dir/$name.csv") - 1))
  [ "$rows" -ge 1 ] || fail "$name: no rows in the CSV"
  if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import csv, json, sys
d = json.load(open(sys.argv[1]))
rs = d["results"]
assert d["interrupted"] is True
assert len(rs) == int(sys.argv[2]) >= 1, len(rs)
for r in rs:
    assert r["check"] == "PASS" and r["ranks"] == 2, r
    runs = r["rank_runs"]["runs"]
    assert sorted((u[0], u[1]) for u in runs) == \
        [(k, i) for k in range(2) for i in range(r["timed_runs"])], runs
rows = list(csv.DictReader(open(sys.argv[3])))
assert all(r["interrupted"] == "1" for r in rows), "the CSV says not"
' "$dir/$name.json" "$rows" "$dir/$name.csv" ||
      fail "$name: the JSON or the CSV"
  fi
  grep -q "kladder: interrupted" "$dir/out.txt" || fail "$name: no message"
}

# rank_1_killed: once the run ($name) has finished its first rung, SIGKILL
# to rank 1's group (the rank and mpi-rank.sh, whose pid file says it);
# mpirun must end the job within 15 s, not with exit 0.
rank_1_killed() {
  wait_for "^\[2/" "$name: the first rung did not finish"
  sleep 1
  killed=$(date +%s)
  kill -s KILL -- "-$(cat "$dir/rank-1.pid")"
  finish
  took=$(($(date +%s) - killed))
  [ "$code" != 0 ] || fail "$name: mpirun exited 0"
  [ "$took" -le 15 ] || fail "$name: the job took $took s to end"
}
