#!/usr/bin/env bash
# CI stage "fuzz": every cargo-fuzz target of fuzz/ for a bounded time (FUZZ_SECONDS in all,
# default 60, split evenly), starting from its committed corpus. New inputs go to a
# temporary directory, so the committed corpora stay small. Needs a nightly toolchain
# (libFuzzer's instrumentation); without one it says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
total=${FUZZ_SECONDS:-60}

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "--- fuzz: SKIPPED: no nightly toolchain (rustup toolchain install nightly), which cargo-fuzz needs"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "--- fuzz: installing cargo-fuzz"
  env -u CARGO_TARGET_DIR cargo install cargo-fuzz --version 0.13.2 --locked --quiet
fi

targets=$(cd fuzz && cargo +nightly fuzz list)
n=$(wc -w <<<"$targets")
[ "$n" -gt 0 ] || { echo "fuzz: no targets"; exit 1; }
each=$(( (total + n - 1) / n ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

t0=$(date +%s)
(cd fuzz && cargo fmt -- --check)
(cd fuzz && cargo +nightly fuzz build)
# cargo-fuzz has no --locked: the committed lock file must not have needed a change.
git diff --exit-code --stat -- fuzz/Cargo.lock
echo "--- fuzz: built $n targets in $(( $(date +%s) - t0 ))s; ${each}s each"
for t in $targets; do
  mkdir -p "$work/$t"
  echo "--- fuzz: $t (${each}s, corpus fuzz/corpus/$t)"
  if ! (cd fuzz && cargo +nightly fuzz run "$t" "$work/$t" "corpus/$t" -- \
        -max_total_time="$each" -print_final_stats=1) >"$work/$t.log" 2>&1; then
    tail -n 60 "$work/$t.log"
    echo "fuzz: $t failed (a crashing input is under fuzz/artifacts/$t/)"
    exit 1
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb" "$work/$t.log" | sed 's/^/    /'
done
echo "--- fuzz: all targets ran clean in $(( $(date +%s) - t0 ))s"
