#!/usr/bin/env bash
# Builds gpu/kernels/reprosum.fatbin from gpu/kernels/reprosum.cu with pip's CUDA 13.0 nvcc:
# SASS for sm_75, sm_80, sm_86, sm_89, sm_90 (86 and 89 from compute_80's PTX) and PTX for
# compute_75 (JIT on anything newer).
# IEEE arithmetic only: no FMA contraction, no flush to zero, IEEE division and sqrt.
#
# Usage: gpu/scripts/build-fatbin.sh [OUTPUT]   (default gpu/kernels/reprosum.fatbin)
# Needs: pip install nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 \
#        nvidia-cuda-runtime==13.0.96      (or NVCC=/path/to/nvcc 13.0)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/kernels/reprosum.fatbin}"
if [ -z "${NVCC:-}" ]; then
  NVCC="$(python3 -c 'import nvidia, os; [print(os.path.join(p, "cu13", "bin", "nvcc")) for p in nvidia.__path__]' 2>/dev/null | while read -r c; do [ -x "$c" ] && echo "$c" && break; done)"
fi
[ -n "${NVCC:-}" ] && [ -x "$NVCC" ] || { echo "build-fatbin: nvcc not found (pip install the pinned nvidia-cuda-* 13.0 wheels, or set NVCC)" >&2; exit 2; }
ver="$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
[ "$ver" = "13.0" ] || { echo "build-fatbin: need nvcc 13.0, found $ver" >&2; exit 2; }
# RS_ARCHS narrows the SASS targets for development builds only; the committed fatbin
# is always built with the default list.
archs="${RS_ARCHS:-75 80 86 89 90}"
# sm_86 and sm_89 are compiled from compute_80's PTX: the kernels use nothing those virtual
# architectures add, and one front-end run (cicc, about 60% of a target's compile time) then
# serves sm_80, sm_86 and sm_89; each still gets SASS of its own (ptxas).
virtual() { case "$1" in 86 | 89) echo 80 ;; *) echo "$1" ;; esac; }
gencode=()
for v in $(for a in $archs; do virtual "$a"; done | sort -un); do
  codes=""
  for a in $archs; do [ "$(virtual "$a")" = "$v" ] && codes="${codes:+$codes,}sm_$a"; done
  gencode+=(-gencode "arch=compute_$v,code=[$codes]")
done
"$NVCC" -fatbin -O3 -std=c++17 --threads "${RS_NVCC_THREADS:-2}" \
  -fmad=false -ftz=false -prec-div=true -prec-sqrt=true \
  -Xfatbin=-compress-all \
  "${gencode[@]}" \
  -gencode arch=compute_75,code=compute_75 \
  -o "$out" "$here/kernels/reprosum.cu"
echo "build-fatbin: wrote $out ($(wc -c <"$out") bytes) with nvcc $ver"
