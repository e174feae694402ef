#!/bin/sh
# mpi-agent.sh HOST COMMAND...: Open MPI's remote shell for mpi-hosts.sh
# (--mca plm_rsh_agent): runs COMMAND, a line for a shell as ssh would
# take it, inside HOST's network and UTS namespaces, entered through the
# process that holds them. $KLADDER_TEST_HOSTS names a file of lines
# "ADDRESS PID", one a host.
host=$1
shift
pid=$(awk -v h="$host" '$1 == h { print $2 }' "$KLADDER_TEST_HOSTS")
if [ -z "$pid" ]; then
  echo "mpi-agent.sh: no host $host in $KLADDER_TEST_HOSTS" >&2
  exit 1
fi
exec nsenter -t "$pid" -n -u sh -c "$*"
