#!/usr/bin/env bash
# On the GPU machine: build, then `test` (every gemm rung on CUDA at the
# test shapes, and the CUDA subset of CTest), `tune` (the DMMA variants,
# KLADDER_DMMA=0..6, against cuBLAS at 8192) or `figures` (the issue's
# sizes). Logs under $OUT; a short summary last.
set -uo pipefail
out=${OUT:-/tmp/kladder-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit \
  --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build -DKL_WERROR=ON >"$out/build.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
k="./build/kladder run -q -w gemm -b cuda"
row() { grep -E "^gemm" | awk '{printf "%-22s %-4s %15s %10s %12s %8s %9s %s\n",$2,$5,$6,$7,$10,$12,$14,$15}'; }
for phase in "$@"; do
  case $phase in
  test)
    ./build/tests/test_gemm cuda >"$out/test-gemm.log" 2>&1
    echo "== test_gemm cuda (exit $?)"
    grep -E "FAIL|cases" "$out/test-gemm.log" | head -20
    (cd build && ctest -R "gemm-cuda|checks|api|cli-gemm" -j 4) >"$out/ctest.log" 2>&1
    echo "== ctest gemm subset (exit $?)"
    grep -E "tests passed|\*\*\*Failed" "$out/ctest.log" | head ;;
  tune)
    echo "== dmma variants, f64 8192^3 (variant: dmma vs cublas)"
    for v in 0 1 2 3 4 5 6; do
      KLADDER_DMMA=$v $k -r cuda-dmma,cuda-cublas -n 8192 --reps 5 >"$out/tune-$v.txt" 2>&1
      echo "-- variant $v"; row <"$out/tune-$v.txt"
    done ;;
  simt)
    echo "== SIMT rungs, 4096^3 f32 and f64"
    for t in f32 f64; do $k -n 4096 -t $t --reps 3 --max-time 5 2>&1 | row; done ;;
  figures)
    echo "== figures"
    for s in 8192 4096 16384 1000 4097; do
      $k -r cuda-dmma,cuda-pipelined,cuda-cublas -n $s --reps 5 2>&1 | row
    done
    $k -r cuda-pipelined,cuda-cublas -n 8192 -t f32 --reps 5 2>&1 | row ;;
  esac
done
