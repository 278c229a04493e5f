#!/usr/bin/env bash
# CI stage for the Python package (python/, PyO3 + maturin, its own Cargo.lock, outside the
# cargo workspace): rustfmt and clippy of the crate (also with --features cuda), then in a
# fresh virtual environment in /tmp: pip installs maturin, pytest, hypothesis and numpy,
# `pip install ./python` (the command the README gives), and runs the tests (python/tests:
# the vectors of tests/vectors, bad input, properties, pickles across processes; the GPU
# file prints why it skips). Prints each step's time.
# Run from anywhere: bash .ci/python.sh. Needs python3 (installs python3-venv if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# The crate is its own workspace, with the same versions of the shared crates in its lock as
# the root Cargo.lock: built in the repository's target dir, it reuses what earlier stages built.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

py_start=$(date +%s)
step() {
  local name=$1; shift
  local t0=$(date +%s)
  echo "--- python: $name"
  "$@"
  echo "--- python: $name done in $(( $(date +%s) - t0 ))s (python total $(( $(date +%s) - py_start ))s)"
}

VENV=$(mktemp -d /tmp/reprosum-py.XXXXXX)
trap 'rm -rf "$VENV"' EXIT

lint() {
  cargo fmt --manifest-path python/Cargo.toml -- --check
  cargo clippy --manifest-path python/Cargo.toml --all-targets --locked -- -D warnings
  cargo clippy --manifest-path python/Cargo.toml --all-targets --locked --features cuda -- -D warnings
}

venv() {
  if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv python3-pip >/dev/null
    python3 -m venv "$VENV"
  fi
  "$VENV/bin/pip" install -q --disable-pip-version-check maturin pytest hypothesis numpy
}

install() {
  # Exactly what a user runs; the build backend (maturin) comes from the registry.
  "$VENV/bin/pip" install -q --disable-pip-version-check ./python
}

tests() {
  local log
  log=$(mktemp)
  # From the repository root with the venv's pytest (not `python -m`, which would put the
  # working directory first on sys.path): `import reprosum` is the installed package.
  HYPOTHESIS_STORAGE_DIRECTORY="$VENV/hypothesis" \
    "$VENV/bin/pytest" -q -rs -p no:cacheprovider python/tests 2>&1 | tee "$log"
  # CI has no GPU: the GPU file must have said why it skipped.
  grep -qE "^SKIPPED \[[0-9]+\] python/tests/test_gpu.py:[0-9]+: ." "$log" || {
    echo "python: the GPU tests neither ran nor said why they skipped" >&2
    return 1
  }
  rm -f "$log"
}

step lint lint
step venv venv
step install install
step tests tests
echo "--- python: all done in $(( $(date +%s) - py_start ))s"
