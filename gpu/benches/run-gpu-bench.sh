#!/usr/bin/env bash
# The whole GPU bench in one run, on a machine with an NVIDIA GPU, nvcc and torch:
# reprosum's bench binary (built elsewhere: cargo bench -p reprosum-gpu --features cuda
# --no-run), the CUB baselines (compiled here against CCCL 3.5 headers from the
# nvidia-cuda-cccl wheel) and the torch baselines; then one combined table.
#
# Usage: gpu/benches/run-gpu-bench.sh BENCH_BIN CCCL_WHEEL_OR_INCLUDE_DIR [SIZES...]
# With REPROSUM_LIB=path/to/libreprosum.a (built with --features cuda) it also builds and
# runs memory_kinds.cu (sum and cumsum from device, managed, pinned and pageable memory)
# at REPROSUM_MEMORY_SIZES (default 1e8).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bench="$1"; cccl="$2"; shift 2
sizes=("$@")
work="$(mktemp -d)"
if [ -f "$cccl" ]; then
  python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$cccl" "$work/cccl"
  cccl="$work/cccl/nvidia/cu13/include/cccl"
fi
nvcc --version | tail -2
nvcc -O3 -std=c++17 -arch=sm_90 -I"$cccl" "$here/cub_baselines.cu" -o "$work/cub_baselines"
{
  "$bench" "${sizes[@]}"
  "$work/cub_baselines" "${sizes[@]}"
  PYTHONUNBUFFERED=1 python3 "$here/torch_baselines.py" "${sizes[@]}"
  if [ -n "${REPROSUM_LIB:-}" ]; then
    nvcc -O3 -std=c++17 -arch=sm_90 -I"$here/../../include" "$here/memory_kinds.cu" "$REPROSUM_LIB" \
      -lpthread -ldl -lm -lrt -lutil -lgcc_s -o "$work/memory_kinds"
    # shellcheck disable=SC2086
    "$work/memory_kinds" ${REPROSUM_MEMORY_SIZES:-1e8}
  fi
} | tee "$work/rows.csv"
python3 "$here/bench_table.py" "$work/rows.csv"
