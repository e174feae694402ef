#!/usr/bin/env bash
# On the GPU machine: build, then for each phase named: `test` (every gemm
# rung on CUDA at the test shapes, then CTest without the 2^31-element
# tests), `ladder` (every CUDA rung at 4096^3, float and double) or
# `figures` (the issue's sizes: double at 8192, 4096, 16384, 1000 and 4097,
# float at 8192, and the DMMA rung's tensor-pipe use under ncu), `issue31`
# (issue 31's gemm shapes, each fast rung against cuBLAS in the same run,
# KL_GEMM_ROUNDS times, default 2: the ratio table) or `shortk` (ncu's
# time, tensor pipe, stalls and DRAM bytes of cuda-dmma's kernels and
# cuBLAS's at the short-k shapes 4096x4096x128 and 2000x1800x180). Logs
# under $OUT; a short summary last.
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
  issue31)
    # cuBLAS's median over the rung's, a run each shape, type and round.
    for r in $(seq "${KL_GEMM_ROUNDS:-2}"); do
      for t in f64 f32; do
        rung=cuda-dmma; [ $t = f32 ] && rung=cuda-pipelined
        for s in 1000x1000x1000 1536x1536x1536 2048x2048x2048 \
          4096x4096x4096 8192x8192x8192 16384x16384x16384 \
          256x16384x4096 16384x256x4096 8192x8192x256 8192x8192x128 \
          4096x4096x128 2000x1800x180; do
          $k -r $rung,cuda-cublas -t $t -s $s --reps 7 --warmup 2 \
            --json "$out/i31-$t-$s-$r.json" >/dev/null 2>&1 ||
            echo "$t $s: exit $?"
        done
      done
    done
    echo "== issue 31's shapes: cuBLAS's time over the rung's, each round"
    python3 - "$out" <<'PY'
import glob, json, os, sys, collections
ratios = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(sys.argv[1], "i31-*.json"))):
    rs = [r for r in json.load(open(f))["results"] if r.get("median_s")]
    ven = [r for r in rs if r["rung"] == "cuda-cublas"]
    for r in rs:
        if r["rung"] != "cuda-cublas" and ven:
            ratios[(r["type"], r["shape"], r["rung"])].append(
                "%.3f%s" % (ven[0]["median_s"] / r["median_s"],
                            "" if r["check"] == "PASS" else " " + r["check"]))
for k in sorted(ratios):
    print("%s %-18s %-15s %s" % (k[0], k[1], k[2], " ".join(ratios[k])))
PY
    ;;
  shortk)
    M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,sm__warps_active.avg.pct_of_peak_sustained_active
    for s in 4096x4096x128 2000x1800x180; do
      for r in cuda-dmma cuda-cublas; do
        /usr/local/cuda/bin/ncu --metrics $M --kernel-name regex:"gemm|dmma|xmma" \
          --launch-count 6 $k -r $r -t f64 -s $s --reps 1 --warmup 0 \
          >"$out/ncu-$s-$r.txt" 2>&1
        echo "== ncu $s $r (exit $?)"
        grep -E "^  [a-zA-Z_]|^    [a-z]" "$out/ncu-$s-$r.txt" | cut -c1-150
      done
    done ;;
  esac
done
