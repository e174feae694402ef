#!/usr/bin/env bash
# On the GPU machine: build, then for each phase named: `test` (every gemm
# rung on CUDA at the test shapes, then CTest without the 2^31-element
# tests), `ladder` (every CUDA rung at 4096^3, float and double) or
# `figures` (the issue's sizes: double at 8192, 4096, 16384, 1000 and 4097,
# float at 8192, and the DMMA rung's tensor-pipe use under ncu). Logs under
# $OUT; a short summary last.
set -uo pipefail
out=${OUT:-/tmp/kladder-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit \
  --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build -DKL_WERROR=ON >"$out/build.log" 2>&1 &&
  cmake --build build -j "$(nproc)" >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
k="./build/kladder run -q -w gemm -b cuda"
row() { grep -E "^gemm" | awk '{printf "%-20s %-4s %15s %10s %9s %-8s %7s %9s %s\n",$2,$5,$6,$7,$13,$14,$15,$17,$18}'; }
for phase in "$@"; do
  case $phase in
  test)
    ./build/tests/test_gemm cuda >"$out/test-gemm.log" 2>&1
    echo "== test_gemm cuda (exit $?)"
    grep -E "FAIL|cases" "$out/test-gemm.log" | head -20
    (cd build && ctest -E big -j 4) >"$out/ctest.log" 2>&1
    echo "== ctest -E big (exit $?)"
    grep -E "tests passed|\*\*\*Failed|Not Run" "$out/ctest.log" | head ;;
  ladder)
    echo "== every CUDA rung, 4096^3"
    for t in f32 f64; do $k -n 4096 -t $t --reps 3 --max-time 5 2>&1 | row; done ;;
  figures)
    echo "== figures (rung type size median rate %cublas abs-err check)"
    $k -r cuda-dmma,cuda-pipelined,cuda-cublas -n 8192 --reps 20 --csv "$out/f64-8192.csv" 2>&1 | row
    for i in 2 3; do $k -r cuda-dmma,cuda-cublas -n 8192 --reps 20 2>&1 | row; done
    $k -r cuda-pipelined,cuda-padded,cuda-cublas -n 8192 -t f32 --reps 20 --csv "$out/f32-8192.csv" 2>&1 | row
    $k -r cuda-pipelined,cuda-cublas -n 8192 -t f32 --reps 20 2>&1 | row
    for s in 4096 16384 1000 4097; do
      $k -r cuda-dmma,cuda-pipelined,cuda-cublas -n $s --reps 10 2>&1 | row
    done
    M=sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active
    /usr/local/cuda/bin/ncu --kernel-name regex:"dmma_kernel|gemm_f64" --launch-count 2 --metrics $M \
      $k -r cuda-dmma -n 4096 --reps 1 --warmup 0 >"$out/ncu.txt" 2>&1
    echo "== ncu, 4096^3: tensor pipe busy"
    grep -E "dmma_kernel<|xmma|sm__" "$out/ncu.txt" | sed -E 's/\(kl__gemm.*//; s/_execute_kernel.*//' | awk '{print $1, $2, $NF}' ;;
  esac
done
