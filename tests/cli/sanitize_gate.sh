#!/bin/sh
# scripts/gpu-sanitize.sh without a GPU:
#   --plan      the shards of every tool's groups, from this build's case
#               lists and the times table, and a critical path;
#   --analyze   the summary and the kernel coverage check over made-up
#               logs of four shards (one a tool): a function covered
#               everywhere, one missing under synccheck, one whose
#               launches stay under two blocks an SM, one never in a case
#               of an odd extent, the rules' exceptions (a one-block and a
#               one-wave kernel, one of ranks only, CUB's kernel that no
#               rung launches); then the same mended (clean), and a shard
#               without its launch log.
# Usage: sanitize_gate.sh SCRIPT BUILD_DIR
script=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$(KL_SANITIZE_WORKERS=16 bash "$script" --plan "$build" 2>&1) ||
  fail "--plan: $out"
for want in "critical path: [0-9]+ s planned, deadline 480 s" \
  "^racecheck +cg-fixed " "^memcheck +gemm-big " "^initcheck +rungs " \
  "^synccheck +histogram " "16 at a time"; do
  echo "$out" | grep -Eq "$want" || fail "--plan: no /$want/: $out"
done
echo "$out" | grep -E "^[0-9]+ shards|^critical path" | cut -c1-100

logs=$tmp/logs
mkdir "$logs"
tab=$(printf '\t')
cat >"$logs/registered.launch" <<EOF
P${tab}1
R${tab}copy_kernel<float>${tab}copy_kernel${tab}_Z1a${tab}libkladder-cuda.so
R${tab}matvec_kernel${tab}matvec_kernel${tab}_Z1b${tab}libkladder-cuda.so
R${tab}narrow_kernel${tab}narrow_kernel${tab}_Z1c${tab}libkladder-cuda.so
R${tab}waxpby_kernel${tab}waxpby_kernel${tab}_Z1d${tab}libkladder-cuda.so
R${tab}totals_kernel${tab}totals_kernel${tab}_Z1e${tab}libkladder-cuda.so
R${tab}kl__gemm_scale_tiles<double, 64, 64>${tab}kl__gemm_scale_tiles${tab}_Z1f${tab}libkladder-cuda.so
R${tab}pack_kernel<0>${tab}pack_kernel${tab}_Z1g${tab}libkladder-cuda.so
R${tab}cub::CUB_1_SM_900::detail::EmptyKernel<void>${tab}cub::CUB_1_SM_900::detail::EmptyKernel${tab}_Z1h${tab}libkladder-cuda.so
EOF
: >"$logs/plan.txt"
echo "wall 100 16 480" >"$logs/wall.txt"
# launches TOOL: the shard's launch log; WHAT: broken or mended.
launches() {
  printf 'P\t1\nS\t132\n'
  printf 'L\t3\t300,1,1\t256,1,1\tcopy_kernel\tcopy_kernel<float>\tstream cuda-copy f32 - n=1000003\n'
  [ "$1 $2" = "synccheck broken" ] ||
    printf 'L\t1\t269,1,1\t256,1,1\tmatvec_kernel\tmatvec_kernel\tcg cuda-copied f64 stencil=27 n=41\n'
  if [ "$2" = broken ]; then
    printf 'L\t1\t100,1,1\t256,1,1\tnarrow_kernel\tnarrow_kernel\tcg cusparse f64 stencil=7 n=33\n'
    printf 'L\t1\t1024,1,1\t256,1,1\twaxpby_kernel\twaxpby_kernel\tcg cuda-copied f64 stencil=27 n=64\n'
  else
    printf 'L\t1\t1025,1,1\t256,1,1\tnarrow_kernel\tnarrow_kernel\tcg cusparse f64 stencil=7 n=33\n'
    printf 'L\t1\t270,1,1\t256,1,1\twaxpby_kernel\twaxpby_kernel\tgemm x f64 7x64x3 m=7\n'
  fi
  printf 'L\t9\t1,1,1\t1024,1,1\ttotals_kernel\ttotals_kernel\tcg cuda-fused f64 stencil=27 n=2\n'
  printf 'L\t2\t10,2,1\t128,1,1\tkl__gemm_scale_tiles\tkl__gemm_scale_tiles<double, 64, 64>\tkladder gemm 1541x1415x133\n'
}
shards() { # broken | mended
  for tool in racecheck memcheck initcheck synccheck; do
    echo "100 $tool rungs 0/1" >>"$logs/plan.txt"
    printf '========= ERROR SUMMARY: 0 errors\n7 passed, 0 failed, 0 skipped\n=== exit 0 after 90 s: x\n' \
      >"$logs/$tool-rungs-0of1.log"
    launches "$tool" "$1" >"$logs/$tool-rungs-0of1.launch"
  done
}

shards broken
out=$(OUT=$tmp/out bash "$script" --analyze "$logs" 2>&1) &&
  fail "--analyze passed what it should not: $out"
for want in "^MISSING +synccheck: matvec_kernel$" \
  "^FEW BLOCKS racecheck: narrow_kernel \(at most 100 blocks, want 264\)$" \
  "^NO TAIL +memcheck: waxpby_kernel$" \
  "^note: pack_kernel: ranks only" "^note: cub::EmptyKernel: CUB, not launched" \
  "^SM count 132" "9 coverage problems\)$"; do
  echo "$out" | grep -Eq "$want" || fail "--analyze: no /$want/: $out"
done
n=$(echo "$out" | grep -Ec "^(MISSING|FEW BLOCKS|NO TAIL)")
[ "$n" = 9 ] || fail "--analyze: $n problems, want 9: $out"
grep -q "^copy_kernel	copy_kernel<float>	3	300" "$tmp/out/sanitize-kernels.txt" ||
  fail "no instantiation list: $(cat "$tmp/out/sanitize-kernels.txt")"
grep -q "^work        racecheck  rungs                  82$" \
  "$tmp/out/sanitize-times.txt" || fail "no measured times: $(cat "$tmp/out/sanitize-times.txt")"

: >"$logs/plan.txt"
shards mended
out=$(OUT=$tmp/out bash "$script" --analyze "$logs" 2>&1) ||
  fail "--analyze, mended: $out"
echo "$out" | tail -1 | grep -q "sanitize: 100 s wall, clean$" ||
  fail "--analyze, mended: not clean: $out"

rm "$logs/memcheck-rungs-0of1.launch"
out=$(OUT=$tmp/out bash "$script" --analyze "$logs" 2>&1) &&
  fail "--analyze passed a shard without its launch log: $out"
echo "$out" | grep -q "1 of 4 shards that ran have no launch log" ||
  fail "--analyze: the missing launch log not said: $out"
echo "sanitize gate: the plan, the coverage check's problems and exceptions as expected"
