# Sourced by scripts/gpu.sh and scripts/gpu-bytes.sh: gpu_here ME sets
# gpu_missing to why there is no NVIDIA GPU here (no nvidia-smi, or it
# fails or lists none; empty where one is) and, where there is none,
# exits 2 with one line naming ME, unless KL_GPU_ANYWAY=1 (the caller
# then says it goes on without one).
# shellcheck shell=bash
gpu_here() {
  local smi
  gpu_missing=
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    gpu_missing="nvidia-smi not found"
  elif ! smi=$(nvidia-smi -L 2>&1); then
    gpu_missing="nvidia-smi -L failed${smi:+: $(printf '%s\n' "$smi" | head -1)}"
  elif ! [[ $smi =~ (^|$'\n')GPU\ [0-9] ]]; then
    gpu_missing="nvidia-smi -L lists none"
  fi
  if [ -n "$gpu_missing" ] && [ "${KL_GPU_ANYWAY:-0}" != 1 ]; then
    echo "$1: no NVIDIA GPU: $gpu_missing (KL_GPU_ANYWAY=1 goes on without one)" >&2
    exit 2
  fi
}
