#!/usr/bin/env bash
# CI stage for the HIP back end (reprosum-gpu, feature hip). No AMD GPU and no ROCm driver
# here: everything is host-side, and the device tests print why they skip.
#  1. install Debian's hipcc (ROCm 5.2.3, clang 15; it also brings libamdhip64.so.5);
#  2. clippy and test the crate with --features hip, once with the runtime present
#     (no device: NoHipDevice) and once with no runtime (NoHipRuntime);
#  3. run the kernel text on the CPU (gpu/tests/emu, fiber engine: no implicit
#     synchronisation, poisoned shared memory) at wave widths 32 and 64, blocks 64, 256 and
#     1024, in several thread orders, against both vectors files and cumulative sums from
#     start states (examples/emu_from_cases.rs); then the self-checks:
#     every barrier removed in turn must be detected, the warp-synchronous tail must fail at
#     both widths, the kWarp = 32 shuffle reduction must fail at wave64 and pass at wave32,
#     and the warpSize shuffle reduction (the control) must pass at both.
# The committed code-object bundle is rebuilt, audited and compared by .ci/gpu-binaries.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
lap() { echo "--- hip: $1 done in $(( $(date +%s) - t0 ))s (stage total)"; }

echo "--- hip: install hipcc"
need=()
command -v hipcc >/dev/null || need+=(hipcc)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
lap "install"

work="$(mktemp -d)"

echo "--- hip: clippy, tests (feature hip)"
cargo clippy -p reprosum-gpu --features hip --all-targets --locked -- -D warnings
for lib in "" /nonexistent/libamdhip64.so; do
  log="$(mktemp)"
  REPROSUM_HIP_LIBRARY="$lib" cargo test -p reprosum-gpu --features hip --locked --test hip -- --nocapture 2>&1 | tee "$log"
  grep -q "test result: ok" "$log" || { echo "hip: tests failed" >&2; exit 1; }
  if ! grep -qE "SKIP |device 0:" "$log"; then
    echo "hip: the device tests printed neither a skip reason nor a device" >&2
    exit 1
  fi
done
lap "crate"

echo "--- hip: kernel source on the CPU at wave32 and wave64 against the vectors (tests/vectors)"
emu=$(bash .ci/emu-build.sh)
for v in tests/vectors/known_answers.txt tests/vectors/core_vectors.txt; do
  "$emu" --warp 32 --sched asc "$v" 64 256 1024
  "$emu" --warp 64 --sched desc "$v" 64 256 1024
  "$emu" --warp 64 --sched rand "$v" 1 33 100
done
"$emu" --warp 32 --sched asc --random 2 tests/vectors/known_answers.txt 64 128
"$emu" --warp 64 --sched rand --random 3 tests/vectors/known_answers.txt 33 128
# Cumulative sums continued from start states, the core's bits (examples/emu_from_cases.rs).
cargo run -q -p reprosum-gpu --example emu_from_cases --locked -- 2 >"$work/from.txt"
"$emu" --warp 32 --sched asc "$work/from.txt" 7 64
"$emu" --warp 64 --sched rand "$work/from.txt" 33 256
lap "emulation"

echo "--- hip: the emulation catches a missing barrier and a wave-width assumption"
# The last barrier of rs_block_exclusive_scan guards S against a later reuse whose first
# accesses would touch other threads' slots; no caller makes one (the prefix kernel's next
# group starts with each thread's own slot), so its removal cannot be observed (allowed, by
# its line).
keep="$(awk '/^RS_DEV void rs_block_exclusive_scan/{f=1} f&&/RS_SYNC\(\)/{l=NR} f&&/^}/{print l; exit}' gpu/kernels/reprosum.cu)"
# The barrier between two listed tiles of the general tile kernels is likewise defensive: a tile
# body touches only the calling thread's own shared slots before its first barrier and after
# its last one, so the next tile's first writes cannot race the previous tile's last reads.
allow=(--allow-undetected "$keep")
for l in $(grep -n 'RS_SYNC();  // the next tile reuses the shared memory' gpu/kernels/reprosum.cu | cut -d: -f1); do
  allow+=(--allow-undetected "$l")
done
# Folds up to 12: the kernels built for each fold and, from 9, the run-time-fold kernels (the
# same barrier lines; the larger folds only lengthen the run).
"$emu" --warp 64 --mutate-syncs --max-fold 12 "${allow[@]}" --random 4 tests/vectors/core_vectors.txt 64 256
ka=tests/vectors/known_answers.txt
"$emu" --warp 32 --variant warpsync-tail --expect-fail "$ka" 64 256 1024
"$emu" --warp 64 --variant warpsync-tail --expect-fail "$ka" 64 256 1024
"$emu" --warp 64 --variant shfl-kwarp32 --expect-fail "$ka" 64 256 1024
"$emu" --warp 32 --variant shfl-kwarp32 "$ka" 64 256 1024
"$emu" --warp 32 --variant shfl-warpsize "$ka" 64 256 1024
"$emu" --warp 64 --variant shfl-warpsize "$ka" 64 256 1024
lap "self-checks"
