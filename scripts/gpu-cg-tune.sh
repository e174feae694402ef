#!/usr/bin/env bash
# On the GPU machine: variants of the cg CUDA kernels' tuning constants
# (-D flags to the CUDA compile), each built in its own folder and run on
# the 201^3 27-point ladder (fixed 100 iterations) beside cusparse.
# Usage: [RUNGS=a,b] bash scripts/gpu-cg-tune.sh NAME="FLAGS" ...; a table
# last. RUNGS (default: csr-stream, graph, matrix-free, cusparse) picks the
# rungs.
set -uo pipefail
final=${OUT:-/tmp/kladder-out}
out=$(mktemp -d)
mkdir -p "$final"
names=()
for spec in "$@"; do
  name=${spec%%=*} flags=${spec#*=}
  names+=("$name")
  (cmake -S . -B "build-$name" -DKL_WERROR=ON -DCMAKE_CUDA_FLAGS="$flags" \
     >"$out/$name-cmake.log" 2>&1 &&
   cmake --build "build-$name" -j 8 --target kladder-cli \
     >>"$out/$name-cmake.log" 2>&1 || echo "$name: build failed") &
done
wait
for name in "${names[@]}"; do
  ./build-$name/kladder run -w cg -b cuda -q -p stencil=27,mode=fixed,maxit=100 \
    -r "${RUNGS:-cuda-csr-stream,cuda-graph,cuda-matrix-free,cusparse}" \
    --reps 10 \
    --csv "$out/$name.csv" >"$out/$name.txt" 2>&1
  echo "== $name: exit $?"
  grep -E "^cg |^stream " "$out/$name.txt" | awk '{printf "%-20s %10s %s %8s %s\n", $2, $7, $8, $13, $15}'
done
tar -czf "$final/cg-tune-logs.tar.gz" -C "$out" . 2>/dev/null
