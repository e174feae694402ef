#!/usr/bin/env bash
# On a GPU machine with two GPUs or more: issue 37's distributed GPU rungs,
# a rank per GPU. Builds like gpu-check.sh where no build is there.
#   gates  tests/mpi-dist.sh's GPU part (KL_DIST_GPU: its workloads)
#   cg     cg-dist's GPU rungs, weak 256^3 a GPU at 2 GPUs and at all of
#          them, strong 512^3 at all of them (fixed mode, 100 iterations)
#   lap    laplacian-dist's GPU rungs, weak 512^3 a GPU and strong 1024^3,
#          at all the GPUs
# Each figure against rank 0 alone in the same mpirun (the efficiency),
# with the phases a rung reports. Results (JSON, tables) tarred into
# $OUT/results.tgz; the table last.
# KL_ISSUE_ONLY=REGEX: only the parts whose names match; KL_ISSUE_LIMIT:
# each command's limit in seconds (default 300: cg-dist at 4 ranks and
# 256^3 a GPU, its four rungs, their checks and rank 0's runs alone, took
# more than 150 s on a fresh machine, 2026-11-27).
set -uo pipefail
dest=${OUT:-/tmp/kladder-out}
out=$(mktemp -d)
mkdir -p "$dest"
# shellcheck disable=SC2034 # gpu-parts.sh reads it
only=${KL_ISSUE_ONLY:-.}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader |
  tee "$out/gpu.txt"
echo "commit ${KLADDER_BUILD_COMMIT:-$(git log -1 --format=%h 2>/dev/null)}" |
  tee -a "$out/gpu.txt"
. "$(dirname "$0")/gpu-build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0
gpus=$(nvidia-smi -L | grep -c '^GPU')
[ "$gpus" -ge 2 ] || { echo "gpu-issue37.sh: $gpus GPU, needs 2 or more"; exit 2; }
lim=${KL_ISSUE_LIMIT:-300}
mpi="timeout $lim mpirun --bind-to none"
kr="./build/kladder run -q"
. "$(dirname "$0")/gpu-parts.sh"
if part gates; then
  step gates
  t0=$(date +%s)
  timeout 900 sh tests/mpi-dist.sh ./build/kladder mpirun >"$out/gates.txt" 2>&1
  echo "   mpi-dist.sh: exit $? in $(( $(date +%s) - t0 )) s" >&2
  grep -E '^(ok|FAIL|fail)' "$out/gates.txt" | tail -12 >&2
  save
fi
if part cg; then
  step cg
  for p in 2 "$gpus"; do
    run cg-weak-$p $mpi -np "$p" $kr -w cg-dist -b cuda -n 256 \
      -p mode=fixed --scaling weak --reps 10
    [ "$gpus" = 2 ] && break
  done
  run cg-strong-$gpus $mpi -np "$gpus" $kr -w cg-dist -b cuda -n 512 \
    -p mode=fixed --scaling strong --reps 5
fi
if part lap; then
  step lap
  run lap-weak-$gpus $mpi -np "$gpus" $kr -w laplacian-dist -b cuda \
    -n 512 --scaling weak --reps 20
  run lap-strong-$gpus $mpi -np "$gpus" $kr -w laplacian-dist -b cuda \
    -n 1024 --scaling strong --reps 20
fi
save
# The table: a line a rung and run.
python3 - "$out" <<'EOF' | tee "$dest/table.txt"
import glob, json, os, sys
print(f"{'run':16} {'rung':22} {'ranks':>5} {'median':>10} {'alone':>10} "
      f"{'eff':>5}  phases (us, the slowest rank's)")
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    try:
        rs = json.load(open(f))["results"]
    except (OSError, ValueError, KeyError):
        continue
    name = os.path.basename(f)[:-5]
    for r in rs:
        if r.get("efficiency") is None or r.get("check") == "ASIDE":
            continue
        it = (r.get("counts") or {}).get("iterations") or 1
        ph = " ".join(f"{k} {v / it * 1e6:.1f}"
                      for k, v in (r.get("phases") or {}).items())
        eff = r.get("efficiency")
        print(f"{name:16} {r['rung']:22} {r['ranks']:>5} "
              f"{r['median_s'] / it * 1e6:>8.1f}us "
              f"{(r.get('one_rank_seconds') or 0) / it * 1e6:>8.1f}us "
              f"{eff if eff is None else round(eff, 3)!s:>5}  "
              f"{r['check']} {ph}")
EOF
