#!/usr/bin/env bash
# For the GPU machine (Python with torch and CuPy, no pip access, no Rust): installs the
# abi3 wheel built elsewhere with `maturin build --release --features cuda` (carried in
# .devbin/, which git ignores) without touching the machine's packages, then runs the GPU
# tests (python/tests/test_gpu.py, with the vectors and bad-input files on this build) and
# the bench (CPU and GPU).
#   bash python/bench/gpu_run.sh [WHEEL]
# pytest comes from the machine, else from wheels carried in .devbin/wheels/.
set -euo pipefail
cd "$(dirname "$0")/../.."
wheel=${1:-$(ls .devbin/reprosum-*-abi3-*.whl | head -n 1)}
site=$(mktemp -d /tmp/reprosum-site.XXXXXX)
python3 -m pip install -q --no-deps --no-index --target "$site" "$wheel"
if ! python3 -c "import pytest" 2>/dev/null; then
  python3 -m pip install -q --no-index --find-links .devbin/wheels --target "$site" pytest
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
python3 -c "import reprosum, numpy, sys; print('reprosum', reprosum.__version__, reprosum.built_backends(), 'from', reprosum.__file__, 'numpy', numpy.__version__, 'python', sys.version.split()[0])"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
t0=$(date +%s)
python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_gpu.py python/tests/test_vectors.py python/tests/test_errors.py
echo "--- tests done in $(( $(date +%s) - t0 ))s"
t0=$(date +%s)
python3 python/bench/bench.py
echo "--- bench done in $(( $(date +%s) - t0 ))s"
