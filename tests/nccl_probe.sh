#!/bin/sh
# nccl_probe (nccl_probe.c): its bad input on any machine; over two ranks,
# a GPU each, where the host has two GPUs or more (else exit 77: skipped).
# Usage: nccl_probe.sh PROBE MPIEXEC
probe=$1
mpiexec=$2
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A face that is not a whole number of doubles: one line, exit 2, before
# any GPU or NCCL call.
out=$("$probe" 12 2>&1)
code=$?
[ "$code" = 2 ] || fail "face of 12 bytes: exit $code, want 2: $out"
echo "$out" | grep -q "FACE_BYTES must be a multiple of 8" ||
  fail "face of 12 bytes: no message: $out"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${gpus:-0}" -lt 2 ]; then
  echo "SKIP: fewer than 2 GPUs here"
  exit 77
fi
out=$(NCCL_NVLS_ENABLE=0 timeout 240 "$mpiexec" --bind-to none -np 2 \
  "$probe" 2>&1)
code=$?
echo "$out"
[ "$code" = 0 ] || fail "two ranks: exit $code"
# Every figure there and positive.
n=$(echo "$out" | grep -c '^allreduce .* busbw  *[0-9]*\.[0-9][0-9] GB/s')
[ "$n" = 4 ] || fail "want 4 all-reduce lines, got $n"
# One double's all-reduce, back to back and waited for.
echo "$out" | grep -q '^allreduce  *8 bytes  *[0-9]*\.[0-9][0-9] us back to back, [0-9]*\.[0-9][0-9] us started together' ||
  fail "no one-double all-reduce line"
# Back to back, waited for, and waited for after each of the two pauses.
n=$(echo "$out" | grep -c '^exchange .* [0-9]*\.[0-9][0-9] GB/s each way')
[ "$n" = 4 ] || fail "want 4 exchange lines, got $n"
# The exchange against the all-reduce of the face's size (issue 37).
echo "$out" | grep -q '^exchange against the all-reduce at [0-9]* bytes: a face [0-9]*\.[0-9][0-9]x, a GPU.s 1 face [0-9]*\.[0-9][0-9]x' ||
  fail "no exchange-to-all-reduce line"
echo "$out" | grep -q ' 0\.00 GB/s' && fail "a bandwidth of zero"
exit 0
