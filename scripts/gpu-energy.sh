#!/usr/bin/env bash
# On the GPU machine: issue 34's figures, kladder run --energy on the
# CUDA ladders. Builds like the other gpu-*.sh scripts where no build is
# there (gpu-build.sh), runs the energy tests (fake NVML and RAPL, and the
# no-energy path), then the stream, map, reduce, laplacian, cg and gemm
# ladders on cuda with --energy, each into NAME.json and NAME.txt, all
# tarred into $OUT/results.tgz; a short table last: per rung its rate,
# mean watts, pJ per byte or flop, the sampled power and the cross-check,
# and per ladder the rung of the least energy per unit beside the
# fastest. About 4-6 minutes after the build on an H100.
# KL_ENERGY_ONLY=REGEX runs only the ladders whose names match;
# KL_ENERGY_REPS (default 10) the timed runs; KL_ENERGY_LIMIT each
# command's limit in seconds (default 150).
set -uo pipefail
dest=${OUT:-/tmp/kladder-out}
out=$(mktemp -d)
mkdir -p "$dest"
only=${KL_ENERGY_ONLY:-.}
reps=${KL_ENERGY_REPS:-10}
lim=${KL_ENERGY_LIMIT:-150}
nvidia-smi --query-gpu=name,driver_version,power.limit,power.draw,clocks.max.sm \
  --format=csv | tee "$out/gpu.txt"
git log -1 --format='commit %h %s' 2>/dev/null | cut -c1-80 | tee -a "$out/gpu.txt"
. "$(dirname "$0")/gpu-build.sh"
step() { echo "== $1 ($(date +%T))" >&2; }
# ladder NAME ARGS...: the ladder on cuda with --energy.
ladder() {
  local name=$1
  shift
  [[ $name =~ $only ]] || return 0
  step "$name"
  timeout "$lim" ./build/kladder run -q -b cuda --energy --reps "$reps" \
    --max-time 5 "$@" --json "$out/$name.json" >"$out/$name.txt" 2>&1
  echo "   $name: exit $?" >&2
  grep -h '^note:\|energy (nvml)\|least energy' "$out/$name.txt" | head -3 >&2
}
step tests
(cd build && timeout 120 ctest -R '^energy|cli-energy' --timeout 60 \
  >"$out/ctest.txt" 2>&1)
tail -3 "$out/ctest.txt" >&2
ladder stream -w stream
ladder map -w map
ladder reduce -w reduce -t f64 -n 256M
ladder laplacian -w laplacian -n 512
ladder cg -w cg -n 128
ladder gemm -w gemm -s 4096x4096x4096
tar -C "$out" -czf "$dest/results.tgz" . 2>/dev/null
python3 - "$out" <<'PY' | tee "$dest/table.txt"
import glob, json, os, sys
def num(v, fmt):
    return fmt % v if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"
print("%-10s %-22s %10s %-7s %7s %7s %10s %7s %s" % (
    "ladder", "rung", "rate", "unit", "W", "idle W", "pJ/unit", "sampled", "check"))
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    name = os.path.basename(f)[:-5]
    try:
        rs = json.load(open(f))["results"]
    except Exception as e:
        print(name, "unreadable:", e)
        continue
    best = fastest = None
    for r in rs:
        if r.get("ceiling_only"):
            continue
        flag = " MISMATCH" if r.get("energy_mismatch") else ""
        print("%-10s %-22s %10s %-7s %7s %7s %10s %7s %s%s" % (
            name[:10], r["rung"][:22], num(r.get("rate"), "%.4g"),
            r.get("unit", ""), num(r.get("energy_w"), "%.1f"),
            num(r.get("idle_w"), "%.1f"),
            num(r.get("energy_pj"), "%.4g") + (" " + r["energy_per"] if r.get("energy_per") else ""),
            num(r.get("sampled_w"), "%.1f"), r.get("check", "")[:5], flag))
        if r.get("check") != "PASS" or not r.get("rate"):
            continue
        if r.get("energy_pj") and (best is None or r["energy_pj"] < best["energy_pj"]):
            best = r
        if fastest is None or r["rate"] > fastest["rate"]:
            fastest = r
    if best and fastest:
        print("%-10s least energy: %s (%.4g %s), fastest: %s%s" % (
            name, best["rung"], best["energy_pj"], best["energy_per"],
            fastest["rung"], " (the same)" if best is fastest else ""))
    elif fastest:
        print("%-10s no energy: %s" % (name, json.load(open(f)).get("notes", "")))
PY
