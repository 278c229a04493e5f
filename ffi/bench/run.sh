#!/usr/bin/env bash
# The C threads bench: builds libreprosum.a (release) and ffi/bench/threads.c (-O3
# -march=native), then runs it at N = 1e7 and 1e8. Figures go to docs/PERFORMANCE.md.
#   bash ffi/bench/run.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -p reprosum-ffi --release --locked --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -std=c11 -O3 -march=native -ffp-contract=off -Iinclude ffi/bench/threads.c \
  "${CARGO_TARGET_DIR:-target}/release/libreprosum.a" -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc \
  -o "$dir/threads"
for n in 1e7 1e8; do "$dir/threads" "$n" "${1:-15}"; done
