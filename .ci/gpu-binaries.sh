#!/usr/bin/env bash
# CI stage "gpu-binaries": the committed GPU binaries are the committed kernel source.
#  1. rebuild gpu/kernels/reprosum.fatbin with the pinned pip nvcc 13.0 and compare it byte for
#     byte with the committed one (nvcc's output is byte-stable: checked by building twice);
#  2. rebuild gpu/kernels/reprosum.hipfb with Debian's hipcc (ROCm 5.2.3, clang 15), audit it
#     (no contractable FP operation in the IR, no FMA in the ISA, IEEE denormals and
#     round-to-nearest in every kernel descriptor) and compare it byte for byte (hipcc's output
#     is byte-stable too).
# No GPU and no cargo: .ci/run runs this beside the cargo stages. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
lap() { echo "--- gpu-binaries: $1 done in $(( $(date +%s) - t0 ))s (stage total)"; }

echo "--- gpu-binaries: the committed fatbin is the committed kernel source"
venv=$(bash .ci/cuda-venv.sh)
nvcc="$(ls "$venv"/lib/python3*/site-packages/nvidia/cu13/bin/nvcc)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
NVCC="$nvcc" gpu/scripts/build-fatbin.sh "$work/reprosum.fatbin"
if ! cmp -s "$work/reprosum.fatbin" gpu/kernels/reprosum.fatbin; then
  echo "gpu-binaries: gpu/kernels/reprosum.fatbin does not match gpu/kernels/reprosum.cu: run gpu/scripts/build-fatbin.sh and commit the result" >&2
  exit 1
fi
echo "gpu-binaries: fatbin matches the source ($(sha256sum <"$work/reprosum.fatbin" | cut -c1-16))"
lap "fatbin"

echo "--- gpu-binaries: the committed HIP bundle is the committed kernel source (rebuild, audit, compare)"
need=()
command -v hipcc >/dev/null || need+=(hipcc)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
gpu/scripts/build-hip.sh --audit "$work/audit" "$work/reprosum.hipfb"
if ! cmp -s "$work/reprosum.hipfb" gpu/kernels/reprosum.hipfb; then
  echo "gpu-binaries: gpu/kernels/reprosum.hipfb does not match gpu/kernels/reprosum.cu: run gpu/scripts/build-hip.sh and commit the result" >&2
  exit 1
fi
echo "gpu-binaries: HIP bundle matches the source ($(sha256sum <"$work/reprosum.hipfb" | cut -c1-16))"
lap "hipfb"
