#!/bin/sh
# mpi-signals.sh KLADDER MPIEXEC: a run over 2 ranks stopped by a signal.
#   1. SIGINT to mpirun while a rung runs: mpirun sends the ranks SIGTERM
#      (Open MPI; SIGKILL a second later); they stop together, rank 0
#      writes the finished rungs (JSON and CSV whole, "interrupted" set),
#      each rank exits 143 (130 where the launcher passes SIGINT on), no
#      temporary file is left;
#   2. SIGTERM to mpirun: the same, each rank 143;
#   3. SIGINT to rank 1 alone (as a terminal gives it to a process group):
#      rank 0 stops at the same repetition by the ranks' agreement, writes
#      the finished rungs, and both ranks and mpirun exit 130;
#   4. SIGKILL to rank 1: the job ends within seconds, neither a results
#      file nor a temporary one left (rank 0's neither).
# Each rank runs under mpi-rank.sh, which records its exit status (mpirun's
# own is Open MPI's: 1 once mpirun itself was signalled). Every mpirun is
# under a timeout: a hang fails the test.
kladder=$1
mpiexec=$2
. "$(dirname "$0")/mpi-common.sh"
export OMP_NUM_THREADS=1

# start NAME: cg-dist's OpenMP rungs over 2 ranks in the background (a
# repetition of tens of milliseconds, each rung up to 2 s), its results in
# $dir/NAME.json and .csv; mpirun's process id in $dir/mpirun.pid.
start() {
  name=$1
  # The last run's output goes first: a pattern waited for is this run's.
  rm -f "$dir"/rank-* "$dir/mpirun.pid" "$dir/out.txt"
  timeout 120 sh -c 'echo $$ >"$0"; exec "$@"' "$dir/mpirun.pid" \
    "$mpiexec" -n 2 sh "$rank_sh" "$dir" \
    "$kladder" run -w cg-dist -b openmp -n 16 --reps 1000 --max-time 2 \
    --no-ceiling --json "$dir/$name.json" --csv "$dir/$name.csv" \
    >"$dir/out.txt" 2>&1 &
  job=$!
}

for sig in INT TERM; do
  start mpirun-$sig
  # Rung 1 finished; rung 2 starts with rank 0's run alone (SIGINT), or
  # is in its runs over both ranks (SIGTERM, a second later).
  wait_for "^\[2/" "$name: the first rung did not finish"
  [ $sig = TERM ] && sleep 1
  kill -s $sig "$(cat "$dir/mpirun.pid")"
  finish
  [ "$code" != 0 ] || fail "$name: mpirun exited 0"
  if [ $sig = INT ]; then rank_codes 143 130; else rank_codes 143; fi
  kept
  no_temporaries
  echo "ok: SIG$sig to mpirun: mpirun $code, each rank $c0, $rows rungs kept"
done

# SIGINT to rank 1's process group alone, while rung 2 runs over both.
start rank1-INT
wait_for "^\[2/" "$name: the first rung did not finish"
sleep 1
kill -s INT -- "-$(cat "$dir/rank-1.pid")"
finish
rank_codes 130
[ "$code" = 130 ] || fail "$name: mpirun exited $code, not 130"
kept
no_temporaries
echo "ok: SIGINT to rank 1 alone: both ranks stop, mpirun and each rank 130"

# SIGKILL to rank 1 (its group: the rank and mpi-rank.sh): mpirun ends
# the job.
start rank1-KILL
rank_1_killed
! kill -0 -- "-$(cat "$dir/rank-0.pid")" 2>/dev/null ||
  fail "$name: rank 0 still runs"
[ ! -e "$dir/$name.json" ] && [ ! -e "$dir/$name.csv" ] ||
  fail "$name: a results file was written"
no_temporaries
echo "ok: SIGKILL to rank 1: the job ended in $took s (mpirun $code), nothing left"
