#!/bin/sh
# compare_quality.sh KLADDER: how often `kladder compare` says what is
# true, on simulated timers. Each trial writes two results files of one
# rung, 10 timed runs a side, each run 1 ms times exp(s z) (z a standard
# normal, s = 2%: a quiet GPU's spread), its ceiling's rate beside it, and
# reads compare's exit code (1: a regression) and verdict:
#   planted  NEW 5% slower (the default threshold): flagged slower in at
#            least 95 of 100 trials;
#   same     NEW as BASE: slower in fewer than 1 of 100;
#   machine  NEW and its ceiling both 8% slower (the machine moved): never
#            a regression, `machine` in at least 95 of 100.
# The trials are seeded: the counts are the same on every run.
set -u
kl=${1:?usage: compare_quality.sh KLADDER}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-compare-quality-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

# side FILE SEED SLOW CEILING_SLOW: a results file of one rung.
side() {
  awk -v seed="$2" -v slow="$3" -v cslow="$4" '
  # Park and Miller'"'"'s minimal standard generator, exact in any awk'"'"'s
  # doubles: the same stream under mawk, gawk and busybox.
  function uniform() { state = (16807 * state) % 2147483647; return state / 2147483647 }
  BEGIN {
    state = seed % 2147483646 + 1
    for (w = 0; w < 10; w++) uniform()
    printf "{\"format\": \"kladder-results-2\", \"started\": \"\", "
    printf "\"kladder\": \"sim\", \"interrupted\": false, \"machine\": "
    printf "{\"cpu\": \"sim\"}, \"results\": [{\"workload\": \"map\", "
    printf "\"rung\": \"sim\", \"backend\": \"serial\", \"type\": \"f32\", "
    printf "\"n\": 1000, \"check\": \"PASS\", \"status\": \"success\", "
    printf "\"times_s\": ["
    for (i = 0; i < 10; i++) {
      # Box-Muller: a standard normal from two uniforms.
      u = uniform(); v = uniform(); if (u < 1e-12) u = 1e-12
      z = sqrt(-2 * log(u)) * cos(6.283185307179586 * v)
      t[i] = 1e-3 * slow * exp(0.02 * z)
      printf "%s%.9g", i ? ", " : "", t[i]
    }
    # The median, as kladder writes it.
    for (i = 0; i < 10; i++) for (j = i + 1; j < 10; j++)
      if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
    printf "], \"median_s\": %.9g, \"rate\": %.9g, \"ceiling\": %.9g, ",
      (t[4] + t[5]) / 2, 1 / ((t[4] + t[5]) / 2), 1000 / cslow
    printf "\"percent_ceiling\": %.9g}]}\n",
      100 * (1 / ((t[4] + t[5]) / 2)) / (1000 / cslow)
  }' > "$1"
}

# trials KIND SLOW CEILING_SLOW: "SLOWER MACHINE" counts over 100 trials.
trials() {
  slower=0 machine=0 k=1
  while [ $k -le 100 ]; do
    side "$tmp/base.json" $((k * 2)) 1 1
    side "$tmp/new.json" $((k * 2 + 1)) "$2" "$3"
    "$kl" compare "$tmp/base.json" "$tmp/new.json" > "$tmp/out" 2>&1
    rc=$?
    case $rc in
      0) ;;
      1) slower=$((slower + 1)) ;;
      *) cat "$tmp/out"; fail "$1: compare exited $rc" ;;
    esac
    grep -q ' machine$' "$tmp/out" && machine=$((machine + 1))
    k=$((k + 1))
  done
  echo "$1: $slower of 100 slower, $machine machine"
}

# run KIND SLOW CEILING_SLOW: the trials' line shown, its two counts in $1 $2.
run() {
  line=$(trials "$@") || { echo "$line"; exit 1; }
  echo "$line"
}
set -- $(run planted 1.05 1 | tee "$tmp/line" | awk '{print $2, $6}')
cat "$tmp/line"
[ "$1" -ge 95 ] || fail "a planted 5% slowdown flagged in $1 of 100, not 95"
set -- $(run same 1 1 | tee "$tmp/line" | awk '{print $2, $6}')
cat "$tmp/line"
[ "$1" -lt 1 ] || fail "identical timers flagged slower in $1 of 100"
set -- $(run machine 1.08 1.08 | tee "$tmp/line" | awk '{print $2, $6}')
cat "$tmp/line"
[ "$1" -eq 0 ] || fail "a machine 8% slower flagged as a regression $1 times"
[ "$2" -ge 95 ] || fail "a machine 8% slower said machine in $2 of 100"
echo "compare on simulated timers: ok"
