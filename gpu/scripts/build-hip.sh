#!/usr/bin/env bash
# Builds gpu/kernels/reprosum.hipfb, the HIP code-object bundle, from gpu/kernels/reprosum.cu
# (the same kernel source as the CUDA fatbin) with Debian bookworm's hipcc (ROCm 5.2.3,
# clang 15): `apt-get install hipcc`. One clang offload bundle with a code object (v4) for
# each target; hipModuleLoadData picks the one matching the device.
#
#   gfx906  Vega 20 (MI50/MI60, Radeon VII)   wave64
#   gfx908  CDNA1 (MI100)                      wave64
#   gfx90a  CDNA2 (MI200)                      wave64
#   gfx1030 RDNA2 (W6800, V620, RX 6800/6900)  wave32
#
# These are the targets ROCm 5.2 supports. IEEE arithmetic only: -ffp-contract=off (clang's
# HIP default would contract a*b+c into an FMA, and HIP's __dadd_rn is a plain `+`),
# -fno-gpu-flush-denormals-to-zero (the default on these targets, made explicit), no fast
# math. --offload-arch is always explicit (never the build machine's GPU).
#
# Usage: gpu/scripts/build-hip.sh [OUTPUT]      (default gpu/kernels/reprosum.hipfb)
#        gpu/scripts/build-hip.sh --audit DIR   (also writes the LLVM IR and the disassembly
#                                                of each target to DIR and checks them)
# A newer ROCm (6.x/7.x, clang 17+) builds gfx942 (MI300), gfx1100 (RDNA3) etc. by
# RS_HIP_ARCHS="gfx90a gfx942 gfx1030 gfx1100" HIPCC=/opt/rocm/bin/hipcc gpu/scripts/build-hip.sh;
# CI's byte comparison applies to the default list with Debian's hipcc only.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
audit=""
if [ "${1:-}" = "--audit" ]; then audit="$2"; shift 2; fi
out="${1:-$here/kernels/reprosum.hipfb}"
HIPCC="${HIPCC:-hipcc}"
command -v "$HIPCC" >/dev/null || { echo "build-hip: hipcc not found (apt-get install hipcc, or set HIPCC)" >&2; exit 2; }
archs="${RS_HIP_ARCHS:-gfx906 gfx908 gfx90a gfx1030}"
offload=()
for a in $archs; do offload+=("--offload-arch=$a"); done
flags=(-O3 -std=c++17 -ffp-contract=off -fno-gpu-flush-denormals-to-zero -fno-fast-math
       -Wall -Wextra -Werror)
bundler="${CLANG_OFFLOAD_BUNDLER:-$(command -v clang-offload-bundler-15 || command -v clang-offload-bundler || true)}"
[ -n "$bundler" ] || { echo "build-hip: clang-offload-bundler not found" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# One code object per target, compiled in parallel (clang 15 has no -parallel-jobs for
# HIP), then bundled in the order of the list, after an empty host entry, as hipcc does.
# Each job leaves its exit status in a file: `wait PID` can fail for a job that `jobs` has
# already reported done (bash forgets it), which would stop the build while others run.
for a in $archs; do
  ( rc=0
    "$HIPCC" --genco --no-gpu-bundle-output "--offload-arch=$a" "${flags[@]}" \
      -o "$tmp/$a.o" "$here/kernels/reprosum.cu" || rc=$?
    echo "$rc" >"$tmp/$a.rc" ) &
  while [ "$(jobs -rp | wc -l)" -ge "${RS_JOBS:-2}" ]; do sleep 0.2; done
done
wait
for a in $archs; do
  [ "$(cat "$tmp/$a.rc" 2>/dev/null)" = 0 ] || { echo "build-hip: hipcc failed for $a" >&2; exit 1; }
done
targets="host-x86_64-unknown-linux"
inputs=("-input=/dev/null")
for a in $archs; do
  targets="$targets,hipv4-amdgcn-amd-amdhsa--$a"
  inputs+=("-input=$tmp/$a.o")
done
"$bundler" -type=o "-targets=$targets" "${inputs[@]}" "-output=$out"
head -c 24 "$out" | grep -q "__CLANG_OFFLOAD_BUNDLE__" || { echo "build-hip: $out is not an offload bundle" >&2; exit 1; }
if [ -n "$audit" ]; then
  mkdir -p "$audit"
  for a in $archs; do
    cp "$tmp/$a.o" "$audit/$a.o"
    llvm-objdump-15 -d "--mcpu=$a" "$tmp/$a.o" >"$audit/$a.s"
    "$HIPCC" --genco --no-gpu-bundle-output "--offload-arch=$a" "${flags[@]}" -emit-llvm -S \
      -o "$audit/$a.ll" "$here/kernels/reprosum.cu"
  done
  python3 "$here/scripts/hip-audit.py" "$audit" $archs
fi
echo "build-hip: wrote $out ($(wc -c <"$out") bytes) for: $archs"
