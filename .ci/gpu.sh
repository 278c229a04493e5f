#!/usr/bin/env bash
# CI stage for the CUDA back end (reprosum-gpu, feature cuda). Host side only: no GPU or
# driver is needed, and the device tests print why they skip.
#  1. clippy and test the crate with --features cuda;
#  2. run the kernel source on the CPU (gpu/tests/emu: real barriers, several block sizes)
#     against the vectors (tests/vectors) and cumulative sums from start states (the core's
#     bits, written by examples/emu_from_cases.rs);
#  3. build examples-c/cuda_memory.c against the pip CUDA 13.0 headers and runtime and the
#     C library with --features cuda (-Wall -Wextra -Werror), and run it: with no GPU it must
#     say so and exit 77 (skipped), never pass.
# The committed fatbin is checked against the source by .ci/gpu-binaries.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "--- gpu: clippy, tests (feature cuda)"
cargo clippy -p reprosum-gpu --features cuda --all-targets --locked -- -D warnings
log="$(mktemp)"
cargo test -p reprosum-gpu --features cuda --locked -- --nocapture 2>&1 | tee "$log"
if ! grep -qE "SKIP |device 0:" "$log"; then
  echo "gpu: the device tests printed neither a skip reason nor a device" >&2
  exit 1
fi

echo "--- gpu: kernel source on the CPU (emulated blocks) against the vectors (tests/vectors)"
emu=$(bash .ci/emu-build.sh)
"$emu" tests/vectors/known_answers.txt 1 3 32 33
"$emu" tests/vectors/core_vectors.txt 7 32 100
# Generated long inputs (many tiles): the fixed-window tile kernels and their fallbacks.
"$emu" --random 1 tests/vectors/known_answers.txt 1 33 128
# The segmented and row sums (generated layouts; each group against the one-at-a-time
# definition): real threads, fibers at wave 32 and 64 in every order, and every barrier of the
# segmented kernels removed in turn (each removal must be caught).
"$emu" --segmented 1 1 3 32 64 128
"$emu" --segmented 2 --warp 32 --sched rand 7 32
"$emu" --segmented 3 --warp 64 --sched desc 64 128
"$emu" --segmented 5 --warp 32 --mutate-syncs 7 33 | tail -n 1
# Cumulative sums continued from start states (empty, small, carries, huge, higher and lower
# windows, NaN and Inf flags, a count near the capacity with large carries; splits of one
# input), with every output's bits from reprosum-core (examples/emu_from_cases.rs).
from="$(mktemp -d)/from.txt"
cargo run -q -p reprosum-gpu --example emu_from_cases --locked -- 1 >"$from"
"$emu" "$from" 33 128
# The cases see the start on every path: the fixed-window scan, the general scan, tile 0 (the
# side stream's launch), the single-pass kernel. Given a null start instead, each must fail.
for path in fixed general tile0 lookback; do
  "$emu" --warp 32 --ignore-start "$path" --expect-fail "$from" 33 128 | tail -n 2
done

venv=$(bash .ci/cuda-venv.sh)

echo "--- gpu: examples-c/cuda_memory.c builds against the pip CUDA runtime; without a GPU it skips (77)"
cargo build -p reprosum-ffi --release --features cuda --locked
cu="$(ls -d "$venv"/lib/python3*/site-packages/nvidia/cu13)"
exe="$(mktemp -d)/cuda_memory"
# The wheel has libcudart.so.13 but no libcudart.so link: -l: names the file.
gcc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude -I"$cu/include" examples-c/cuda_memory.c \
  "${CARGO_TARGET_DIR:-target}/release/libreprosum.a" -L"$cu/lib" -l:libcudart.so.13 -Wl,-rpath,"$cu/lib" \
  -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o "$exe"
rc=0
"$exe" small >"$exe.out" 2>&1 || rc=$?
cat "$exe.out"
if [ "$rc" != 77 ] || ! grep -q '^SKIP: no CUDA device' "$exe.out"; then
  echo "gpu: cuda_memory without a GPU exited $rc (want 77 and a SKIP line)" >&2
  exit 1
fi
