#!/usr/bin/env bash
# On a machine with two GPUs or more: ncu's time, DRAM bytes, registers
# and active warps of cg's matrix-free sweeps, the plain ones (cg
# cuda-matrix-free, one GPU) against the layered ones (cg-dist
# cuda-nccl-batched, two ranks, a GPU each, a box a rank), at 256^3 a
# GPU. Issue 37: the layered sweeps took 1.16-1.75x the plain ones' time
# for the same bytes (docs/results/2026-11-27-issue37-h100x2.md).
#   gpu-cg-sweeps.sh [MODULE_DIR...]
# Each MODULE_DIR holds a libkladder-cuda.so (a build of the GPU module,
# KLADDER_MODULE_DIR), so that variants built elsewhere are compared in
# one call; none: the build's own module. The plain sweeps are timed with
# the first module only (the variants compared are the layered ones').
# KL_SWEEPS_N: the grid (256).
# The table last; the CSV of each run under $OUT.
set -uo pipefail
dest=${OUT:-/tmp/kladder-out}
mkdir -p "$dest"
k=${KLADDER:-./build/kladder}
n=${KL_SWEEPS_N:-256}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0
command -v ncu >/dev/null || { echo "gpu-cg-sweeps.sh: no ncu here"; exit 2; }
ncu="ncu --csv --kernel-name-base demangled --metrics gpu__time_duration.sum,dram__bytes.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active"
[ $# -gt 0 ] || set -- ""
first=1
for dir in "$@"; do
  name=$(basename "${dir:-build}")
  export KLADDER_MODULE_DIR=${dir:+$(cd "$dir" && pwd)}
  [ -n "$dir" ] || unset KLADDER_MODULE_DIR
  if [ "$first" = 1 ]; then
    timeout 150 $ncu --kernel-name regex:stencil_kernel --launch-skip 30 \
      --launch-count 4 $k run -q -w cg -r cuda-matrix-free -n "$n" \
      -p mode=fixed --reps 1 --warmup 1 --no-ceiling \
      >"$dest/plain-$name.csv" 2>&1
    echo "== $name plain: exit $?" >&2
  fi
  first=0
  # Only the layered instances: LAYERED (the third template argument) 1,
  # or where the sweeps are split, TILES (the fourth) 1, 2 or 3 (both).
  timeout 200 mpirun --bind-to none -np 2 $ncu \
    --kernel-name 'regex:stencil_kernel.*(1>|2>|3>|true>)' --launch-skip 30 \
    --launch-count 12 $k run -q -w cg-dist -r cuda-nccl-batched -n "$n" \
    -p mode=fixed --reps 1 --warmup 1 --no-ceiling \
    >"$dest/layered-$name.csv" 2>&1
  echo "== $name layered: exit $?" >&2
done
python3 - "$dest" <<'EOF' | tee "$dest/sweeps.txt"
import csv, glob, io, os, statistics, sys
modes = {"0": "start", "1": "A", "2": "residual", "3": "update"}
tiles = {"0": "plain", "1": "inner", "2": "edge", "3": "both"}
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    kind, name = os.path.basename(f)[:-4].split("-", 1)
    text = "".join(l for l in open(f) if l.startswith('"'))
    for r in csv.DictReader(io.StringIO(text)):
        k = r.get("Kernel Name", "")
        if "stencil_kernel<" not in k:
            continue
        args = [x.split(")")[-1].strip() for x in
                k.split("<")[1].split(">")[0].split(",")]
        mode = modes.get(args[0], "?")
        shown = kind  # the run's: plain or layered
        if len(args) == 4:  # split sweeps: plain, inner or edge tiles
            shown = tiles.get(args[3], "?")
        v = float(r["Metric Value"].replace(",", ""))
        rows.setdefault((name, shown, mode), {}).setdefault(
            r["Metric Name"], []).append(v)
print(f"{'module':14} {'sweep':9} {'kind':8} {'time us':>8} {'DRAM MB':>8} "
      f"{'regs':>5} {'warps %':>8}")
for (name, kind, mode), m in sorted(rows.items()):
    med = lambda key: statistics.median(m.get(key, [0]))
    print(f"{name:14} {mode:9} {kind:8} "
          f"{med('gpu__time_duration.sum') / 1e3:8.1f} "
          f"{med('dram__bytes.sum') / 1e6:8.1f} "
          f"{med('launch__registers_per_thread'):5.0f} "
          f"{med('sm__warps_active.avg.pct_of_peak_sustained_active'):8.1f}")
EOF
