#!/usr/bin/env bash
# Prints the path of a venv holding the pinned pip CUDA 13.0 compiler and runtime
# (gpu/scripts/build-fatbin.sh's), creating it first if needed. Used by .ci/gpu.sh,
# .ci/gpu-binaries.sh and .ci/tools.sh; everything else it prints goes to stderr.
set -euo pipefail
venv=/tmp/reprosum-cuda-venv
if [ ! -x "$venv/bin/nvcc-ok" ]; then
  python3 -m venv "$venv" 2>/dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    python3 -m venv "$venv"
  } >&2
  "$venv/bin/pip" install -q --disable-pip-version-check nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96 >&2
  touch "$venv/bin/nvcc-ok"
fi
echo "$venv"
