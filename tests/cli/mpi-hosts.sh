#!/bin/sh
# mpi-hosts.sh KLADDER MPIEXEC: the distributed workloads over two hosts.
# The hosts are two network and UTS namespaces of this machine (host a,
# 10.77.0.1, and host b, 10.77.0.2, joined by a veth pair, each with its
# own hostname), each held by a sleeping process; mpirun starts in host a
# and reaches host b through mpi-agent.sh (its rsh agent, nsenter), the
# ranks talking TCP over the pair.
#   1. one rank on each host, each host's own hostname;
#   2. reduce-dist, laplacian-dist and cg-dist on serial and OpenMP: every
#      result passes over 2 ranks, but openmp-shared, which stands aside
#      naming the other host; the table says what one exchange between
#      the ranks costs (a note, and exchange_s in the JSON);
#   3. SIGKILL to the rank on host b: the job ends on both hosts within
#      seconds, no results file or temporary one left;
#   4. SIGINT to mpirun: the ranks stop together, the finished rungs kept.
# Root, unshare, nsenter and ip are needed, and namespaces that a
# container may refuse: without them it skips (exit 77), saying why.
kladder=$1
mpiexec=$2
skip() {
  echo "SKIP: $*"
  exit 77
}
[ -x "$mpiexec" ] || skip "no mpirun ($mpiexec)"
[ "$(id -u)" = 0 ] || skip "not root: network namespaces need root"
for tool in unshare nsenter ip awk; do
  command -v $tool >/dev/null 2>&1 || skip "no $tool"
done
unshare --net --uts true 2>/dev/null ||
  skip "unshare --net --uts fails here (a container without the right)"
. "$(dirname "$0")/mpi-common.sh"
# Open MPI runs its agent by path: an executable copy.
agent="$dir/agent.sh"
cp "$(dirname "$0")/mpi-agent.sh" "$agent" && chmod +x "$agent" ||
  fail "cannot copy mpi-agent.sh"
export OMP_NUM_THREADS=1

# The hosts: a holder process each (bounded by the test's own timeout, so
# that a killed test leaves none for long), and what runs in their
# namespaces ended with them.
holders=
link=kl$$a
own_net=$(readlink /proc/$$/ns/net)
own_uts=$(readlink /proc/$$/ns/uts)
cleanup() {
  for h in $holders; do
    net=$(readlink /proc/$h/ns/net 2>/dev/null) || continue
    for p in /proc/[0-9]*; do
      [ "$(readlink $p/ns/net 2>/dev/null)" = "$net" ] &&
        kill -9 "${p#/proc/}" 2>/dev/null
    done
  done
  ip link del "$link" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# host NAME ADDRESS END: a holder in new namespaces, named NAME, with END
# of the pair at ADDRESS/24; its process id in $held.
host() {
  unshare --net --uts sleep 300 &
  held=$!
  holders="$holders $held"
  # Its own namespaces (not yet this shell's, which it leaves when
  # unshare runs), or the hostname set below would be this machine's.
  tries=0
  while [ "$(readlink /proc/$held/ns/net)" = "$own_net" ] ||
    [ "$(readlink /proc/$held/ns/uts)" = "$own_uts" ]; do
    kill -0 $held 2>/dev/null || skip "unshare --net --uts sleep ended"
    sleep 0.05
    tries=$((tries + 1))
    [ $tries -lt 100 ] || skip "unshare made no namespaces in 5 s"
  done
  nsenter -t $held -u hostname "$1" || fail "hostname $1"
  ip link set "$3" netns $held || fail "the pair's end $3 into host $1"
  nsenter -t $held -n sh -c "ip link set lo up && ip addr add $2/24 \
    dev $3 && ip link set $3 up" || fail "host $1's address $2"
  echo "$2 $held" >>"$dir/hosts"
}
ip link add "$link" type veth peer name kl$$b 2>"$dir/out.txt" ||
  skip "no veth pair here: $(cat "$dir/out.txt")"
host kl-host-a 10.77.0.1 "$link"
a=$held
host kl-host-b 10.77.0.2 kl$$b
b=$held
export KLADDER_TEST_HOSTS="$dir/hosts"

# across COMMAND...: COMMAND under mpirun, one rank on each host, in the
# background ($job) under a timeout; mpirun's process id in
# $dir/mpirun.pid, its output in $dir/out.txt.
across() {
  # The last run's output goes first: a pattern waited for is this run's.
  rm -f "$dir"/rank-* "$dir/mpirun.pid" "$dir/out.txt"
  timeout 120 nsenter -t $a -n -u sh -c 'echo $$ >"$0"; exec "$@"' \
    "$dir/mpirun.pid" "$mpiexec" --mca plm_rsh_agent "$agent" \
    --host 10.77.0.1,10.77.0.2 -n 2 --mca btl tcp,self \
    --mca btl_tcp_if_include 10.77.0.0/24 \
    --mca oob_tcp_if_include 10.77.0.0/24 "$@" >"$dir/out.txt" 2>&1 &
  job=$!
}

name=hostnames
across hostname
finish
[ "$code" = 0 ] || fail "hostname on two hosts: exit $code"
[ "$(sort "$dir/out.txt" | tr '\n' ' ')" = "kl-host-a kl-host-b " ] ||
  fail "hostname on two hosts: $(cat "$dir/out.txt")"
echo "ok: one rank on each host, kl-host-a and kl-host-b"

name=dist
across "$kladder" run -w reduce-dist,laplacian-dist,cg-dist -b serial,openmp \
  -n 11 --reps 3 --warmup 1 --no-ceiling --json "$dir/dist.json"
finish
[ "$code" = 0 ] || fail "the distributed workloads on two hosts: exit $code"
tr '\n' ' ' <"$dir/out.txt" |
  grep -q "openmp-shared: stands aside: .* rank  *1, is on another host" ||
  fail "openmp-shared did not stand aside for host b"
grep -q "^note: one exchange between the 2 ranks .* takes .* us here" \
  "$dir/out.txt" || fail "no note of what one exchange costs"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exchange_s"] > 0, d["exchange_s"]
rs = d["results"]
seen = set()
for r in rs:
    seen.add(r["workload"])
    if r["rung"] == "openmp-shared":
        assert r["check"] == "ASIDE", r
        assert "rank 1, is on another host" in r["error"], r["error"]
        continue
    assert r["check"] == "PASS" and r["ranks"] == 2, r
assert seen == {"reduce-dist", "laplacian-dist", "cg-dist"}, seen
assert "openmp-shared" in [r["rung"] for r in rs]
' "$dir/dist.json" || fail "the distributed workloads on two hosts: the JSON"
echo "ok: reduce-dist, laplacian-dist, cg-dist pass across two hosts;" \
  "openmp-shared stands aside"

# SIGKILL to the rank on host b, while cg-dist's second rung runs.
name=killed
across sh "$rank_sh" "$dir" "$kladder" run -w cg-dist -b openmp -n 16 \
  --reps 1000 --max-time 2 --no-ceiling --json "$dir/killed.json"
rank_1_killed
for h in $a $b; do
  net=$(readlink /proc/$h/ns/net)
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" != "$h" ] &&
      [ "$(readlink $p/ns/net 2>/dev/null)" = "$net" ] &&
      fail "$name: $(cat $p/comm 2>/dev/null) (${p#/proc/}) still runs"
  done
done
[ ! -e "$dir/killed.json" ] || fail "$name: a results file was written"
no_temporaries
echo "ok: SIGKILL to the rank on host b: the job ended on both in $took s"

# SIGINT to mpirun while cg-dist's second rung runs.
name=interrupted
across sh "$rank_sh" "$dir" "$kladder" run -w cg-dist -b openmp -n 16 \
  --reps 1000 --max-time 2 --no-ceiling --json "$dir/$name.json" \
  --csv "$dir/$name.csv"
wait_for "^\[2/" "$name: the first rung did not finish"
sleep 1
kill -s INT "$(cat "$dir/mpirun.pid")"
finish
[ "$code" != 0 ] || fail "$name: mpirun exited 0"
rank_codes 143 130
kept
no_temporaries
echo "ok: SIGINT to mpirun across two hosts: mpirun $code, each rank $c0," \
  "$rows rungs kept"
