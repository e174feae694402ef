#!/bin/sh
# gpu_memcheck.sh KLADDER ARGS...: runs `KLADDER ARGS` under
# compute-sanitizer's memcheck and passes when it exits 0 with zero
# findings. Skips (exit 77) without a CUDA GPU or without compute-sanitizer.
# scripts/gpu-sanitize.sh is the full gate; this keeps the cases that once
# failed it in the CTest suite of every GPU machine.
kladder=$1
shift
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if ! "$kladder" list | grep -Eq "^  cuda +available"; then
  echo "SKIP: no cuda here"; exit 77
fi
[ -x "$sanitizer" ] || { echo "SKIP: no compute-sanitizer"; exit 77; }
log=$(mktemp)
"$sanitizer" --tool memcheck --error-exitcode 99 "$kladder" "$@" >"$log" 2>&1
got=$?
cat "$log"
if [ $got != 0 ] || ! grep -q "ERROR SUMMARY: 0 errors" "$log"; then
  rm -f "$log"
  echo "FAILED: exit $got or memcheck findings"
  exit 1
fi
rm -f "$log"
echo "ok: memcheck clean"
