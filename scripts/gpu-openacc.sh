#!/usr/bin/env bash
# On the GPU machine: the OpenACC backend's tests and figures, each OpenACC
# rung in the same run as the CUDA rung that does its work.
# Usage: bash scripts/gpu-openacc.sh [tests|figures|all] (default all)
# The programs come built (KL_ACC_BIN, default build-acc-bin/: kladder,
# test_rungs, test_api), with the libgomp.so.1 and libgomp-plugin-nvptx.so.1
# of the GCC that built them beside them: GCC's nvptx offload compiler is
# on the machine that builds (Debian's gcc-12-offload-nvptx), not
# necessarily on this one. scripts/openacc-bin.sh gathers them.
# Logs, CSVs and the PTX notes under $OUT as one archive,
# openacc-logs.tar.gz; a short table last.
set -uo pipefail
bin=${KL_ACC_BIN:-build-acc-bin}
mode=${1:-all}
final=${OUT:-/tmp/kladder-out}
mkdir -p "$final"
out=$(mktemp -d)
trap 'tar czf "$final/openacc-logs.tar.gz" -C "$out" .' EXIT
export LD_LIBRARY_PATH=$PWD/$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
k=$bin/kladder
$k list >"$out/list.txt" 2>&1
grep -E "^  (cuda|openacc) " "$out/list.txt"
summary() { # csv
  python3 - "$1" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    rate = float(r["rate"] or 0)
    extra = r.get("op") or ""
    print(f'{r["workload"]:9s} {r["rung"]:22s} {r["type"]:4s} {extra:4s} '
          f'{float(r["median_s"] or 0)*1e3:10.4f} ms {rate:9.2f} {r["unit"]:5s} '
          f'{r["percent_ceiling"] or "-":>7s}% {r["check"]}')
PY
}
if [ "$mode" = tests ] || [ "$mode" = all ]; then
  $bin/test_rungs openacc >"$out/rungs-openacc.txt" 2>&1
  echo "rungs openacc (device) exit $?: $(tail -1 "$out/rungs-openacc.txt")"
  grep -E "FAIL|error" "$out/rungs-openacc.txt" | head -20
  ACC_DEVICE_TYPE=host $bin/test_rungs openacc >"$out/rungs-openacc-host.txt" 2>&1
  echo "rungs openacc (ACC_DEVICE_TYPE=host) exit $?: $(tail -1 "$out/rungs-openacc-host.txt")"
  grep -E "FAIL|error" "$out/rungs-openacc-host.txt" | head -20
  $bin/test_api >"$out/api.txt" 2>&1
  echo "test_api exit $?: $(tail -1 "$out/api.txt")"
fi
run() { # name, kladder run options...
  local name=$1
  shift
  $k run -q "$@" --csv "$out/$name.csv" >"$out/$name.txt" 2>&1
  echo "== $name: exit $?"
  summary "$out/$name.csv"
}
if [ "$mode" = figures ] || [ "$mode" = all ]; then
  run stream -w stream -b cuda,openacc
  run stream-f32 -w stream -b cuda,openacc -t f32
  run map -w map -b cuda,openacc
  run reduce-f64 -w reduce -b cuda,openacc -o sum -t f64 \
    -r cuda-best,cuda-cub,openacc-clause,openacc-gangs
  run reduce-f32-min -w reduce -b cuda,openacc -o min -t f32 \
    -r cuda-best,cuda-cub,openacc-clause,openacc-gangs
  run laplacian -w laplacian -b cuda,openacc \
    -r cuda-kernel1,cuda-tiled,cuda-zmarch-vector,openacc,openacc-tiled -p m=4
  # The seed's lesson at 100^3 (27M nonzeros): the copying rungs move the
  # matrix on every matvec, so a few runs.
  run cg-lesson -w cg -n 100 --reps 3 --warmup 1 \
    -r openmp,openacc-waxpby,openacc-waxpby-dot,openacc-copied,openacc-data,openacc-tuned,cuda-copied,cuda-resident
  grep -E "iterations|last run" "$out/cg-lesson.txt"
  run cg-201 -w cg -n 201 \
    -r openacc-data,openacc-tuned,cuda-resident,cuda-csr-vector,cuda-graph,cusparse
  grep -E "iterations|last run" "$out/cg-201.txt"
  # What a pageable copy moves per second, one direction at a time.
  run transfer -w transfer -b cuda -n 64M
fi
