#!/bin/sh
# The sanitizer gate's launch log (tools/launch_log.c) without a GPU:
#   registration  preloaded into `kladder list`, which loads
#                 libkladder-cuda.so: every kernel of the module listed,
#                 from that file, known ones among them by name and by
#                 function; test_rungs --list (libkladder.a's kernels,
#                 registered as the program starts) lists the same;
#   launches      preloaded into the probe (tools/launch_log_probe.c,
#                 against a stand-in runtime): each way of launching
#                 counted, at its grid and block, under the case named;
#                 a launch of an unregistered function apart; the SM
#                 count; nothing written without KL_LAUNCH_LOG.
# Usage: launch_log.sh SHIM KLADDER TEST_RUNGS PROBE, or `none` where the
# CUDA backend is not built (skipped).
shim=$1 kladder=$2 test_rungs=$3 probe=$4
if [ "$shim" = none ]; then
  echo "SKIP: the CUDA backend is not built (no launch log)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

KL_LAUNCH_LOG=$tmp/list.log LD_PRELOAD=$shim "$kladder" list >/dev/null 2>&1 ||
  fail "kladder list under the shim"
[ -f "$tmp/list.log" ] || fail "kladder list wrote no log"
head -1 "$tmp/list.log" | grep -q "^P	[0-9]" || fail "no first line"
registered=$(grep -c "^R	" "$tmp/list.log")
echo "kladder list: $registered kernels registered"
[ "$registered" -ge 100 ] || fail "only $registered kernels registered"
others=$(grep "^R	" "$tmp/list.log" | cut -f5 | grep -vc "^libkladder-cuda.so$")
[ "$others" = 0 ] || fail "$others kernels not from libkladder-cuda.so"
# name (template arguments kept) and function, one of each kind: a
# template, a plain kernel, a CUB kernel our files instantiate, and the
# two functions named shared_kernel told apart.
for want in "copy_kernel<float>	copy_kernel" "matvec_kernel	matvec_kernel" \
  "dmma_kernel<64, 64, 16, 32, 32, 4, 2, 3, false, true>	dmma_kernel" \
  "cub::.*DeviceReduceSingleTileKernel<.*	cub::.*DeviceReduceSingleTileKernel" \
  "shared_kernel<double, 16>	shared_kernel(kl__gemm_shape, " \
  "shared_kernel<unsigned int, false>	shared_kernel(unsigned int const\*, "; do
  grep -q "^R	$want" "$tmp/list.log" || fail "no kernel '$want'"
done
grep "^R	" "$tmp/list.log" | cut -f2 | sort -u >"$tmp/module"
echo "$(wc -l <"$tmp/module") kernels by name, $(grep "^R	" "$tmp/list.log" |
  cut -f3 | sort -u | wc -l) functions"

KL_LAUNCH_LOG=$tmp/rungs.log LD_PRELOAD=$shim "$test_rungs" --list cuda \
  >/dev/null 2>&1 || fail "test_rungs --list under the shim"
grep "^R	" "$tmp/rungs.log" | cut -f2 | sort -u >"$tmp/static"
cmp -s "$tmp/module" "$tmp/static" ||
  fail "test_rungs registers other kernels: $(diff "$tmp/module" "$tmp/static" | head -5)"

out=$(KL_LAUNCH_LOG=$tmp/probe.log KL_LAUNCH_LOG_CASE="first case" \
  LD_PRELOAD=$shim "$probe") || fail "probe: $out"
log=$tmp/probe.log
grep -q "^S	132$" "$log" || fail "no SM count"
[ "$(grep -c "^R	" "$log")" = 3 ] || fail "not 3 kernels registered"
expect() { # count grid block function-prefix name case
  grep -q "^L	$1	$2	$3	$4[^	]*	$5	$6$" "$log" ||
    fail "no launch record '$*': $(grep "^L" "$log")"
}
expect 3 300,1,1 256,1,1 copy_kernel "copy_kernel<float>" "probe copy f32 - n=1000003"
expect 1 1,1,1 256,1,1 copy_kernel "copy_kernel<float>" "probe copy f32 - n=1000003"
expect 1 12,13,2 256,1,1 "shared_kernel(kl__gemm_shape" "shared_kernel<double, 16>" \
  "probe copy f32 - n=1000003"
expect 1 1,1,1 256,1,1 "shared_kernel(unsigned int const\*" \
  "shared_kernel<unsigned int, false>" "probe shared u8 - n=64"
[ "$(grep -c "^L	" "$log")" = 4 ] || fail "not 4 launch records"
grep -q "^U	1	" "$log" || fail "the unregistered launch not apart"

LD_PRELOAD=$shim "$probe" >/dev/null || fail "probe without a log"
echo "launch log: registration, launches, cases and the SM count as expected"
