#!/usr/bin/env bash
# CI stage "miri": the unsafe code under miri (nightly), on small inputs: the C library's unit
# tests (reprosum-ffi --lib), the facade's one unsafe write (the keyed sum's scatter) on two
# threads, and the core's block deposit at every kind of fold on the paths miri runs.
# Run from anywhere: bash .ci/miri.sh. Installs the nightly toolchain with miri if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
t0=$(date +%s)

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal -c miri -c rust-src
fi
cargo +nightly miri setup >/dev/null

miri() {
  # The unit tests in ffi/src (small inputs; the FP-mode test is ignored: miri cannot run
  # the inline assembly). The C-program tests (ffi/tests) cannot run under miri (they start
  # a compiler) and are not part of --lib.
  if ! cargo +nightly miri test -p reprosum-ffi --lib -- --nocapture --test-threads=1 > "$WORK/miri.log" 2>&1; then
    tail -60 "$WORK/miri.log"
    return 1
  fi
  grep -E '^(test |test result)|^miri:' "$WORK/miri.log"
  # The facade's one unsafe write (the threads' scatter of the keyed sum), on two rayon
  # threads. Tree borrows, exposed provenance and leaks allowed: rayon's crossbeam-epoch
  # breaks the stacked-borrows rules and keeps its global state past the end.
  if ! MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
      cargo +nightly miri test -p reprosum --lib keys_are_gathered_by_the_threads > "$WORK/miri-facade.log" 2>&1; then
    tail -60 "$WORK/miri-facade.log"
    return 1
  fi
  grep -E '^(test |test result)' "$WORK/miri-facade.log"
  # The core's block deposit at every kind of fold (an instance per fold, and the one for a
  # run-time fold) on the paths miri runs (portable and scalar), small inputs.
  if ! cargo +nightly miri test -p reprosum-core --lib simd:: -- --test-threads=1 > "$WORK/miri-core.log" 2>&1; then
    tail -60 "$WORK/miri-core.log"
    return 1
  fi
  grep -E '^(test |test result)' "$WORK/miri-core.log"
}

miri
echo "--- miri: all passed in $(( $(date +%s) - t0 ))s"
