#!/usr/bin/env bash
# On a GPU machine: the bytes each memory-bound workload's cost model says
# one repetition moves, against the DRAM bytes Nsight Compute counts over
# that repetition's kernels. For stream (copy and triad), read, map,
# reduce, histogram, laplacian and cg: the headline CUDA rung (the fastest
# on docs/performance.md) and, where it is cheap, the naive one (the first
# that keeps its data and is not known-wrong), each run once at a size
# past the L2, in the table below; `scripts/gpu.sh bytes` builds and runs
# it. Exit 0 when every rung is ok or explained; 1 otherwise (a rung off,
# a run or its check failed, ncu counted no kernel of it, a rung stopped
# by the deadline), or where the build on a GPU has no cuda backend or
# the table names what the build lacks; 2 bad usage, or the tools
# missing: no NVIDIA GPU, no ncu, an ncu that cannot read the GPU's
# counters, no BUILD_DIR/kladder (one line says why).
#
#   scripts/gpu-bytes.sh [BUILD_DIR]          (default build-gpu, from the
#                                             repository's root)
#   scripts/gpu-bytes.sh --plan [BUILD_DIR]   the rungs and their options,
#                                             each checked against
#                                             BUILD_DIR's `kladder list
#                                             --json` (the workload, a
#                                             CUDA rung of it, not
#                                             known-wrong, of that type, its
#                                             -p names); nothing runs, no
#                                             GPU needed; exit 1 where a
#                                             name is not there
#   scripts/gpu-bytes.sh --analyze DIR        the table again from a run's
#                                             files (its $OUT): no GPU
#                                             needed
#
# A rung runs as
#   ncu --clock-control none --nvtx --nvtx-include "W RUNG/"
#       --metrics dram__bytes_read.sum,dram__bytes_write.sum
#       --csv --page raw --print-units base --log-file OUT/KEY.csv
#     BUILD_DIR/kladder run -q -w W -b cuda -r RUNG -t TYPE OPTIONS
#       --reps 1 --warmup 0 --max-time 0 --no-ceiling --cache warm
#       --json OUT/KEY.json
# The harness wraps each rung's batch of timed runs in an NVTX push/pop
# range "W RUNG" (src/core/measure.c, timed_batch), so ncu profiles the
# timed repetition's kernels alone: not the checked run, the warm-ups, the
# launch floor's empty kernels or another rung's. Inside the range the
# harness's resets and the cold runs' scrub are copies and memsets, which
# ncu does not profile (and --cache warm makes no scrub). ncu flushes
# every cache before each kernel (its default --cache-control all), so
# each kernel reads cold, as the cost models count. Measured: the sum of
# dram__bytes_read.sum and dram__bytes_write.sum over the range's
# kernels, over the result's timed runs (1); ratio: measured over the
# result's `bytes`; ok within KL_BYTES_TOLERANCE of 1 (default 0.10).
# What ncu cannot count: a kernel's writes still in the L2 when it ends
# (written back by the next flush, outside any kernel's counters), up to
# the L2 (60 MB on the H200) a kernel; so every array here is 1 GiB
# (histogram: its 512 MiB of bytes, read only; cg: 201^3, a 2.7 GB
# matrix) and the writes ncu misses stay a few percent of a rung's bytes.
# cg runs in fixed mode for 4 iterations: one repetition is a whole solve,
# and its kernels, cuda-graph's batch of 16 iterations launched whole (the
# 12 past maxit return at once), stay under a hundred.
#
# The table: a row a rung, `|` between the columns: workload, rung, type,
# options (more of kladder run's, words), explained. Explained is -, or
# "LO..HI FILE: REASON": the rung's LESSONS.md accounts for a ratio from
# LO to HI (an L2 that keeps a halo's re-reads, a pass the model leaves
# out); a ratio outside the tolerance but inside that band is
# `explained`, outside both `off`. KL_BYTES_TABLE=FILE reads the table from
# FILE (the same columns; # starts a comment); KL_BYTES_ONLY=REGEX runs the
# rows whose "workload rung" matches (a partial gate: the summary says so).
#
# Settings: NCU (the ncu to run, a name or a path; default ncu on PATH, else
# $CUDA_HOME/bin/ncu or /usr/local/cuda/bin/ncu), OUT (default
# /tmp/kladder-bytes), KL_BYTES_TIMEOUT (seconds a rung may take under ncu,
# default 300), KL_BYTES_DEADLINE (seconds for the whole gate from the
# preflight on, default 480: a rung still running then is stopped, one not
# started is reported so; either is an error), KL_BYTES_TOLERANCE (0.10),
# KL_GPU_ANYWAY=1 (go on without an NVIDIA GPU, as scripts/gpu.sh does).
#
# Before the rungs, a preflight: stream cuda-copy at 1M under ncu,
# profiling its first kernel: where the run passes and ncu gives no row
# (counters not readable: ERR_NVGPUCTRPERM without the rights; its
# injection refused, as under gVisor: LibraryNotLoaded), one line with
# ncu's first error, exit 2.
#
# Files in $OUT: for each rung KEY (NN-W-RUNG) KEY.csv (ncu's output: its
# ==PROF== lines and the CSV), KEY.json (the results), KEY.log (kladder's
# output and the exit); plan.txt (the rows run, tab-separated, read by
# --analyze), env.txt (the GPU, ncu's and kladder's versions),
# bytes-table.txt (the table as printed) and bytes.tsv (its figures in
# bytes).
set -uo pipefail
me=gpu-bytes.sh
root=$(cd "$(dirname "$0")/.." && pwd)
mode=run
analyze_dir=
while [ $# -gt 0 ]; do
  case $1 in
  --plan) mode=plan; shift ;;
  --analyze)
    [ $# -ge 2 ] || { echo "$me: --analyze needs a run's folder (its \$OUT)" >&2; exit 2; }
    mode=analyze analyze_dir=$2
    shift 2 ;;
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "$me: unknown option $1 (--plan, --analyze DIR, --help)" >&2; exit 2 ;;
  *) break ;;
  esac
done
[ $# -le 1 ] || { echo "$me: one build folder at most, not: $*" >&2; exit 2; }
build=${1:-$root/build-gpu}
out=${OUT:-/tmp/kladder-bytes}
tolerance=${KL_BYTES_TOLERANCE:-0.10}
limit=${KL_BYTES_TIMEOUT:-300}
deadline=${KL_BYTES_DEADLINE:-480}
only=${KL_BYTES_ONLY:-}
command -v python3 >/dev/null 2>&1 || { echo "$me: python3 not found (it reads the JSON and ncu's CSV)" >&2; exit 2; }

# ---- the rungs -----------------------------------------------------------------
# workload | rung | type | options | explained. The headlines are the
# fastest CUDA rung of each workload on the H100 (docs/performance.md);
# the naive ones the first not known-wrong (reduce: cuda-racy is; cg:
# cuda-copied copies its arrays over PCIe every call, so cuda-resident).
# Sizes: 1 GiB an array (stream 128M f64, read and reduce 128M f64, map 256M
# f32, laplacian 512^3 f64), histogram's default 512 MiB, cg's default
# 201^3; the slow naive rungs stay under a second (reduce cuda-atomic:
# one atomic an element at about 0.57 G/s; histogram cuda-global-atomic:
# about 4 GB/s on random bytes).
table='
stream    | cuda-copy          | f64 | -n 128M                      | -
stream    | cuda-triad         | f64 | -n 128M                      | -
read      | cuda-read          | f64 | -n 128M                      | -
map       | cuda-thread        | f32 | -n 256M                      | -
map       | cuda-vec4          | f32 | -n 256M                      | -
reduce    | cuda-atomic        | f64 | -n 128M                      | -
reduce    | cuda-best          | f64 | -n 128M                      | -
histogram | cuda-global-atomic | u8  | -n 512M                      | -
histogram | cuda-best          | u8  | -n 512M                      | -
laplacian | cuda-kernel1       | f64 | -n 512                       | -
laplacian | cuda-zmarch-vector | f64 | -n 512                       | -
cg        | cuda-resident      | f64 | -n 201 -p mode=fixed,maxit=4 | 1.8..2.3 src/workloads/cg/LESSONS.md: a thread a row: the matrix read from DRAM about twice
cg        | cuda-graph         | f64 | -n 201 -p mode=fixed,maxit=4 | -
'
if [ -n "${KL_BYTES_TABLE:-}" ]; then
  table=$(cat "$KL_BYTES_TABLE") || { echo "$me: cannot read KL_BYTES_TABLE=$KL_BYTES_TABLE" >&2; exit 2; }
fi

# plan_rows: the table's rows as KEY<tab>W<tab>RUNG<tab>TYPE<tab>OPTIONS<tab>EXPLAINED,
# those KL_BYTES_ONLY leaves out dropped; a malformed row is an error.
plan_rows() {
  local line i=0 w r t o e extra
  while IFS= read -r line; do
    line=${line%%#*}
    [[ $line =~ [^[:space:]] ]] || continue
    IFS='|' read -r w r t o e extra <<<"$line"
    read -r w <<<"$w"; read -r r <<<"$r"; read -r t <<<"$t"
    read -r o <<<"$o"; read -r e <<<"$e"
    if [ -z "$w" ] || [ -z "$r" ] || [ -z "$t" ] || [ -z "$e" ] || [ -n "$extra" ]; then
      echo "$me: a row of the table is not 'workload | rung | type | options | explained': $line" >&2
      return 1
    fi
    [ -n "$o" ] || o=-
    i=$((i + 1))
    if [ -n "$only" ] && ! [[ "$w $r" =~ $only ]]; then continue; fi
    printf '%02d-%s-%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$w" "$r" "$w" "$r" "$t" "$o" "$e"
  done <<<"$table"
}

# ---- the Python parts ---------------------------------------------------------
# check_plan LIST_JSON PLAN: each row against `kladder list --json`; prints
# the plan, exit 1 where a row names what the build does not have.
check_plan() {
  python3 - "$1" "$2" "$root" <<'PY'
import json, os, sys
list_path, plan_path, root = sys.argv[1:4]
try:
    with open(list_path) as f:
        listing = json.load(f)
except (OSError, ValueError) as e:
    print(f"gpu-bytes.sh: cannot read `kladder list --json`: {e}")
    sys.exit(1)
workloads = {w["name"]: w for w in listing.get("workloads", [])}
problems = notes = 0
fmt = "{:<10} {:<19} {:<4} {:<30} {}"
print(fmt.format("workload", "rung", "type", "options", "found"))
for line in open(plan_path):
    key, w, r, t, opts, explained = line.rstrip("\n").split("\t")
    words = [] if opts == "-" else opts.split()
    why = []
    wl = workloads.get(w)
    rung = None
    if wl is None:
        why.append(f"no workload {w}")
    else:
        rung = next((x for x in wl["rungs"] if x["name"] == r), None)
        if rung is None:
            why.append(f"no rung {r} in {w}")
        elif rung["backend"] != "cuda":
            why.append(f"{r} runs on {rung['backend']}, not cuda")
        else:
            if rung.get("known_wrong"):
                why.append(f"{r} is known-wrong")
            if t not in rung.get("types", []):
                why.append(f"{r} takes no {t} (types {','.join(rung.get('types', []))})")
        names = {p["name"] for p in wl["params"]}
        for i, word in enumerate(words):
            if word in ("-p", "--param") and i + 1 < len(words):
                for item in words[i + 1].split(","):
                    name = item.split("=", 1)[0]
                    if "=" in item and name not in names:
                        why.append(f"{w} has no parameter {name}")
            elif word in ("-t", "--type", "-w", "-b", "-r", "--json"):
                why.append(f"{word} is the script's, not an option of the table")
    if explained != "-":
        parts = explained.split(" ", 2)
        try:
            lo, hi = (float(x) for x in parts[0].split(".."))
            if not lo < hi or len(parts) < 3 or not parts[1].endswith(":"):
                raise ValueError
            if not os.path.isfile(os.path.join(root, parts[1][:-1])):
                why.append(f"explained names no file {parts[1][:-1]}")
        except ValueError:
            why.append(f"explained is not 'LO..HI FILE: REASON': {explained}")
    found = "yes"
    if why:
        found = "NO: " + "; ".join(why)
        problems += 1
    elif rung is not None and not rung.get("built", True):
        found = "yes (not built in this build)"
        notes += 1
    print(fmt.format(w, r, t, opts, found))
    if explained != "-":
        print(f"{'':<10} explained: {explained}")
if problems:
    print(f"{problems} rows name what `kladder list --json` does not have")
    sys.exit(1)
print("every rung found in `kladder list --json`"
      + (f" ({notes} not built here)" if notes else ""))
PY
}

# analyze DIR: the table from DIR's plan.txt and each rung's JSON and CSV;
# exit 0 when every row is ok or explained.
analyze() {
  python3 - "$1" <<'PY'
import csv, json, math, os, sys

folder = sys.argv[1]
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
SCALE = {"byte": 1, "bytes": 1, "B": 1,
         "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
         "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
         "Kibyte": 2**10, "Mibyte": 2**20, "Gibyte": 2**30, "Tibyte": 2**40,
         "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def number(text, unit):
    """A value of ncu's CSV in bytes: thousands separators dropped, scaled
    by its unit; None where it is not a number (n/a)."""
    if unit not in SCALE:
        return None
    try:
        v = float(text.strip().replace(",", ""))
    except ValueError:
        return None
    return v * SCALE[unit] if math.isfinite(v) else None


def parse_ncu(path):
    """(kernels, read, write, problem) from ncu's --csv output: --page raw
    (a column a metric, a units row under the header) or --page details
    (a row a metric). Lines of ncu's own (==PROF==, ==WARNING==,
    ==ERROR==) are left out; the first error is the problem where no
    kernel came."""
    try:
        with open(path, newline="", errors="replace") as f:
            text = f.read().splitlines()
    except OSError:
        return 0, 0.0, 0.0, f"no ncu output ({os.path.basename(path)})"
    said = [l for l in text if l.startswith("==ERROR==")] or \
           [l for l in text if l.startswith("==WARNING==")]
    rows = list(csv.reader(l for l in text if l and not l.startswith("==")))
    kernels, total, bad = set(), {m: 0.0 for m in METRICS}, []
    for h, head in enumerate(rows):
        if "ID" not in head:
            continue
        if all(m in head for m in METRICS):                 # --page raw
            col = {m: head.index(m) for m in METRICS}
            idc = head.index("ID")
            units = {m: "byte" for m in METRICS}
            body = rows[h + 1:]
            if body and len(body[0]) == len(head) and body[0][idc] == "":
                units = {m: body[0][col[m]] for m in METRICS}
                body = body[1:]
            for row in body:
                if len(row) != len(head) or not row[idc].strip().isdigit():
                    continue
                kernels.add(row[idc])
                for m in METRICS:
                    v = number(row[col[m]], units[m])
                    if v is None:
                        bad.append(f"{m} = {row[col[m]]!r} {units[m]}")
                    else:
                        total[m] += v
            break
        if all(c in head for c in ("Metric Name", "Metric Unit", "Metric Value")):
            c = {k: head.index(k) for k in ("ID", "Metric Name", "Metric Unit", "Metric Value")}
            for row in rows[h + 1:]:                        # --page details
                if len(row) != len(head) or row[c["Metric Name"]] not in METRICS:
                    continue
                kernels.add(row[c["ID"]])
                m = row[c["Metric Name"]]
                v = number(row[c["Metric Value"]], row[c["Metric Unit"]])
                if v is None:
                    bad.append(f"{m} = {row[c['Metric Value']]!r} {row[c['Metric Unit']]}")
                else:
                    total[m] += v
            break
    problem = None
    if bad:
        problem = f"ncu gave no number: {bad[0]}"
    elif not kernels:
        problem = "ncu profiled no kernel in the range" + (f": {said[0]}" if said else "")
    return len(kernels), total[METRICS[0]], total[METRICS[1]], problem


def last_line(path):
    """What the run's log says went wrong: kladder's first error, else
    its last line (the script's '=== exit N after S s')."""
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
    except OSError:
        return "no log"
    errors = [l for l in lines if "error:" in l]
    return (errors[:1] or lines[-1:] or ["empty log"])[0][:160]


try:
    with open(os.path.join(folder, "plan.txt")) as f:
        plan = [l.rstrip("\n") for l in f if l.strip()]
except OSError as e:
    print(f"gpu-bytes.sh: no plan in {folder}: {e}")
    sys.exit(2)
tolerance, partial = 0.10, ""
rows = []
for line in plan:
    if line.startswith("# tolerance "):
        tolerance = float(line.split()[2])
    elif line.startswith("# only "):
        partial = line[len("# only "):]
    elif not line.startswith("#"):
        rows.append(line.split("\t"))

gb = lambda b: f"{b / 1e9:.3f}"
fmt = "{:<10} {:<19} {:>11} {:>9} {:>9} {:>9} {:>9} {:>6} {:>7}  {}"
lines = [fmt.format("workload", "rung", "size", "declared", "dram rd", "dram wr",
                    "measured", "ratio", "kernels", "verdict"),
         fmt.format("", "", "", "GB", "GB", "GB", "GB", "", "", "")]
tsv = ["key\tworkload\trung\tsize\tdeclared_bytes\tdram_read_bytes\t"
       "dram_write_bytes\tmeasured_bytes\tratio\tkernels\tverdict"]
notes, tally = [], {"ok": 0, "explained": 0, "off": 0, "error": 0}
for key, w, r, t, opts, explained in rows:
    problem, result = None, None
    try:
        with open(os.path.join(folder, key + ".json")) as f:
            doc = json.load(f)
        result = next((x for x in doc.get("results", [])
                       if x.get("workload") == w and x.get("rung") == r
                       and not x.get("ceiling_only")), None)
        if result is None:
            problem = "no result of it in KEY.json: " + last_line(os.path.join(folder, key + ".log"))
    except (OSError, ValueError):
        problem = "no results: " + last_line(os.path.join(folder, key + ".log"))
    size = "-"
    declared = reps = 0
    if result is not None:
        size = str(result.get("shape") or result.get("n") or "-")
        declared = float(result.get("bytes") or 0)
        reps = int(result.get("timed_runs") or 0)
        if result.get("status") != "success":
            problem = f"the run failed: {result.get('status')}: {result.get('error')}"
        elif result.get("check") != "PASS":
            problem = f"its check: {result.get('check')}"
        elif result.get("checked_timed"):
            problem = "the checked run was its timed run (outside the range)"
        elif reps < 1:
            problem = "no timed run"
        elif declared <= 0:
            problem = "no bytes declared"
    kernels, rd, wr, ncu_problem = parse_ncu(os.path.join(folder, key + ".csv"))
    problem = problem or ncu_problem
    measured = (rd + wr) / reps if reps else 0.0
    ratio = measured / declared if declared > 0 and not problem else float("nan")
    if problem:
        verdict = "error"
        notes.append(f"{w} {r}: error: {problem}")
    elif abs(ratio - 1) <= tolerance:
        verdict = "ok"
    else:
        verdict = "off"
        try:
            lo, hi = (float(x) for x in explained.split(" ", 1)[0].split(".."))
        except ValueError:
            lo = hi = float("nan")
        if explained != "-":
            if lo <= ratio <= hi:
                verdict = "explained"
                notes.append(f"{w} {r}: explained, {ratio:.3f} in {explained}")
        if verdict == "off":
            notes.append(f"{w} {r}: off: ncu counted {ratio:.3f}x the declared bytes"
                         + (f", outside {explained}" if explained != "-" else "")
                         + f" (reads {gb(rd / reps)} GB, writes {gb(wr / reps)} GB)")
    if kernels > 200:
        notes.append(f"{w} {r}: {kernels} kernels profiled: a smaller problem would replay fewer")
    tally[verdict] += 1
    show = lambda v: gb(v) if not problem else "-"
    lines.append(fmt.format(w, r, size, gb(declared) if declared else "-",
                            show(rd / reps if reps else rd), show(wr / reps if reps else wr),
                            show(measured), f"{ratio:.3f}" if not problem else "-",
                            kernels, verdict))
    tsv.append("\t".join(str(x) for x in (
        key, w, r, size, int(declared), int(rd / reps) if reps else int(rd),
        int(wr / reps) if reps else int(wr), int(measured),
        f"{ratio:.4f}" if not problem else "", kernels, verdict)))

failed = tally["off"] + tally["error"] > 0 or not rows
lines = [l.rstrip() for l in lines] + notes
summary = (f"bytes: {len(rows)} rungs, {tally['ok']} ok, {tally['explained']} explained, "
           f"{tally['off']} off, {tally['error']} errors (ok: within {tolerance:.0%} of the "
           f"declared bytes)")
if partial:
    summary += f"; partial gate: only /{partial}/"
lines.append(summary + (": FAIL" if failed else ": PASS"))
print("\n".join(lines))
try:
    with open(os.path.join(folder, "bytes-table.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "bytes.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")
except OSError as e:
    print(f"gpu-bytes.sh: cannot write the table into {folder}: {e}")
sys.exit(1 if failed else 0)
PY
}

if [ "$mode" = analyze ]; then
  [ -d "$analyze_dir" ] || { echo "$me: no folder $analyze_dir" >&2; exit 2; }
  analyze "$analyze_dir"
  exit $?
fi

# ---- the plan --------------------------------------------------------------------
case $build in /*) ;; *) build=$PWD/$build ;; esac
kladder=$build/kladder
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-bytes.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
plan_rows >"$tmp/plan.tsv" || exit 2
[ -s "$tmp/plan.tsv" ] || { echo "$me: no row of the table${only:+ matches KL_BYTES_ONLY=$only}" >&2; exit 2; }
plan_ok() {
  "$kladder" list --json >"$tmp/list.json" 2>"$tmp/list.err" ||
    { echo "$me: $kladder list --json failed: $(head -1 "$tmp/list.err")"; return 1; }
  check_plan "$tmp/list.json" "$tmp/plan.tsv"
}

if [ "$mode" = plan ]; then
  [ -n "$only" ] && echo "partial gate: only the rows matching /$only/"
  if [ ! -x "$kladder" ]; then
    awk -F'\t' '{printf "%-10s %-19s %-4s %s\n", $2, $3, $4, $5}' "$tmp/plan.tsv"
    echo "rungs not checked: no $kladder (build it first)"
    exit 0
  fi
  plan_ok
  exit $?
fi

# ---- the tools -------------------------------------------------------------------
# shellcheck source=scripts/gpu-here.sh
. "$root/scripts/gpu-here.sh"
gpu_here "$me"

if [ -n "${NCU:-}" ]; then
  ncu=$(command -v "$NCU" 2>/dev/null) || { echo "$me: ncu not found: NCU=$NCU" >&2; exit 2; }
else
  ncu=$(command -v ncu 2>/dev/null)
  for c in ${CUDA_HOME:+"$CUDA_HOME/bin/ncu"} /usr/local/cuda/bin/ncu; do
    [ -n "$ncu" ] || { [ -x "$c" ] && ncu=$c; }
  done
  [ -n "$ncu" ] || { echo "$me: ncu not found (Nsight Compute: not on PATH, nor in \$CUDA_HOME/bin or /usr/local/cuda/bin; NCU=PATH names one)" >&2; exit 2; }
fi
[ -x "$kladder" ] || { echo "$me: no $kladder: build it first (scripts/gpu.sh bytes builds and runs this)" >&2; exit 2; }

if [ -n "$gpu_missing" ]; then
  echo "== no NVIDIA GPU ($gpu_missing); going on: KL_GPU_ANYWAY=1"
fi
plan_ok >"$tmp/plan.txt" || { cat "$tmp/plan.txt"; echo "$me: the table names what this build does not have"; exit 1; }
cuda=$(python3 -c '
import json, sys
b = [x for x in json.load(open(sys.argv[1]))["backends"] if x["name"] == "cuda"]
print("yes" if b and b[0]["available"] else (b[0]["info"] if b else "not in this build"))' "$tmp/list.json" 2>&1)
if [ "$cuda" != yes ]; then
  echo "$me: the cuda backend is not available: $cuda"
  [ -n "$gpu_missing" ] && exit 2
  exit 1
fi

mkdir -p "$out" || { echo "$me: cannot make OUT=$out" >&2; exit 2; }
rm -f "$out"/[0-9][0-9]-*.csv "$out"/[0-9][0-9]-*.json "$out"/[0-9][0-9]-*.log \
  "$out"/plan.txt "$out"/bytes-table.txt "$out"/bytes.tsv "$out"/preflight.*
ncu_version=$("$ncu" --version 2>&1)
ncu_version=$(printf '%s\n' "$ncu_version" | tail -1)
{
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
  echo "ncu: $ncu ($ncu_version)"
  echo "kladder: $kladder ($("$kladder" --version 2>&1 | head -1))"
} >"$out/env.txt"
cat "$out/env.txt"

# The flags every profile takes (LC_ALL=C: no locale's separators).
metrics=dram__bytes_read.sum,dram__bytes_write.sum
ncu_flags=(--clock-control none --metrics "$metrics" --csv --page raw
  --print-units base)
run_flags=(--reps 1 --warmup 0 --max-time 0 --no-ceiling --cache warm)

# The preflight: can ncu read the counters at all?
end=$(( $(date +%s) + deadline ))
pre=$out/preflight
LC_ALL=C timeout -k 10 "$limit" "$ncu" "${ncu_flags[@]}" --launch-count 1 \
  --log-file "$pre.csv" "$kladder" run -q -w stream -b cuda -r cuda-copy \
  -n 1M "${run_flags[@]}" --json "$pre.json" </dev/null >"$pre.log" 2>&1
rc=$?
ran=$(python3 -c '
import json, sys
try:
    r = json.load(open(sys.argv[1]))["results"]
    print("yes" if any(x.get("status") == "success" for x in r) else "no")
except Exception:
    print("no")' "$pre.json")
rows=$(grep -cE '^"?[0-9]' "$pre.csv" 2>/dev/null)
if [ "${rows:-0}" -lt 1 ]; then
  said=$(grep -h -m1 '==ERROR==' "$pre.csv" "$pre.log" 2>/dev/null | head -1 | cut -c1-200)
  if [ "$ran" = yes ]; then
    echo "$me: ncu cannot read this GPU's counters: ${said:-no kernel profiled} (exit $rc; $pre.csv)"
    exit 2
  fi
  echo "$me: the preflight under ncu failed (exit $rc): ${said:-$(tail -1 "$pre.log" | cut -c1-200)} ($pre.log)"
  exit 1
fi
echo "== ncu reads the counters ($ncu_version)"

# ---- the rungs, one after another --------------------------------------------------
{
  echo "# tolerance $tolerance"
  [ -z "$only" ] || echo "# only $only"
  cat "$tmp/plan.tsv"
} >"$out/plan.txt"
cat "$tmp/plan.txt"
started=$(date +%s)
while IFS=$'\t' read -r key w r t o _; do
  opts=()
  [ "$o" = - ] || read -ra opts <<<"$o"
  t0=$(date +%s)
  left=$((end - t0))
  if [ "$left" -le 5 ]; then
    echo "=== not started: the deadline (KL_BYTES_DEADLINE=$deadline s)" >"$out/$key.log"
    echo "== $w $r: not started (the deadline)"
    continue
  fi
  [ "$left" -lt "$limit" ] || left=$limit
  LC_ALL=C timeout -k 10 "$left" "$ncu" "${ncu_flags[@]}" --nvtx \
    --nvtx-include "$w $r/" --log-file "$out/$key.csv" \
    "$kladder" run -q -w "$w" -b cuda -r "$r" -t "$t" "${opts[@]}" \
    "${run_flags[@]}" --json "$out/$key.json" </dev/null >"$out/$key.log" 2>&1
  rc=$?
  echo "=== exit $rc after $(( $(date +%s) - t0 )) s" >>"$out/$key.log"
  echo "== $w $r: exit $rc after $(( $(date +%s) - t0 )) s"
done <"$tmp/plan.tsv"
echo "== $(wc -l <"$tmp/plan.tsv") rungs in $(( $(date +%s) - started )) s; files in $out"
analyze "$out"
