#!/bin/sh
# mpi-rank.sh DIR COMMAND...: one rank under mpirun, for mpi-signals.sh and
# mpi-hosts.sh. Records this rank's process group (DIR/rank-N.pid: Open
# MPI's launcher makes each rank a group of its own, this shell its
# leader), runs COMMAND, and records its exit status (DIR/rank-N.code),
# which it also returns. A SIGINT or SIGTERM to the group reaches COMMAND;
# this shell waits for COMMAND and records its status rather than dying.
# Once one rank has ended with a non-zero status, mpirun kills the others
# at once: so each waits (2 s at most) for every rank's status before it
# ends.
dir=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-0}
size=${OMPI_COMM_WORLD_SIZE:-1}
echo $$ >"$dir/rank-$rank.pid"
trap ':' INT TERM
"$@"
code=$?
echo $code >"$dir/rank-$rank.code"
tries=0
while [ "$(ls "$dir" | grep -c '^rank-.*\.code$')" -lt "$size" ] &&
  [ $tries -lt 40 ]; do
  sleep 0.05
  tries=$((tries + 1))
done
exit $code
