#!/usr/bin/env bash
# Builds and runs the reprosum cross-target suite on every target under qemu, checks that a
# deliberate failure fails the run, and measures the firmware facts. Exits non-zero on any
# failure. Needs the tools .ci/cross.sh installs (qemu, cross linkers, rustup targets,
# llvm-tools); run that script on a fresh machine.
#
#   bash cross/run-all.sh              everything
#   bash cross/run-all.sh TARGET...    only the suite on these targets
#
# CARGO_TARGET_DIR defaults to <repo>/target/cross.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$here"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/cross}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
PROFILE=cross-test
RUN_TIMEOUT=600

ALL_TARGETS=(thumbv7em-none-eabihf thumbv7em-none-eabi thumbv6m-none-eabi
  riscv32imac-unknown-none-elf riscv32imc-unknown-none-elf
  aarch64-unknown-linux-gnu s390x-unknown-linux-gnu)

# qemu-user binaries are qemu-ARCH-static (Debian's qemu-user-static) or qemu-ARCH.
qemu_user() {
  if command -v "qemu-$1-static" >/dev/null; then echo "qemu-$1-static"; else echo "qemu-$1"; fi
}

# Sets RUN to the command that runs binary $2 of target $1; $3 = 1: the force-fail self-check.
runner() {
  local semi="enable=on,target=native"
  local ff=()
  if [ "${3:-0}" = 1 ]; then semi="$semi,arg=reprosum-cross,arg=force-fail"; ff=(--force-fail); fi
  case "$1" in
    thumbv7em-*) RUN=(qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic -monitor none
      -semihosting-config "$semi" -kernel "$2") ;;
    # The micro:bit: an nRF51822 with a Cortex-M0, 256 KiB of flash, 16 KiB of RAM.
    thumbv6m-*) RUN=(qemu-system-arm -machine microbit -nographic -monitor none
      -semihosting-config "$semi" -kernel "$2") ;;
    # The generic rv32 CPU without A, F and D: an atomic or FP instruction would trap.
    riscv32imc-*) RUN=(qemu-system-riscv32 -machine virt -cpu rv32,a=false,f=false,d=false -bios none
      -nographic -monitor none -semihosting-config "$semi" -kernel "$2") ;;
    riscv32*) RUN=(qemu-system-riscv32 -machine virt -bios none -nographic -monitor none
      -semihosting-config "$semi" -kernel "$2") ;;
    aarch64-unknown-linux-gnu) RUN=("$(qemu_user aarch64)" -L /usr/aarch64-linux-gnu "$2" "${ff[@]}") ;;
    s390x-unknown-linux-gnu) RUN=("$(qemu_user s390x)" -L /usr/s390x-linux-gnu "$2" "${ff[@]}") ;;
    *) echo "no runner for $1" >&2; return 1 ;;
  esac
}

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

failures=0
summary=()
fail() { echo "CROSS FAILURE: $*"; failures=$((failures + 1)); summary+=("FAILED: $*"); }

build() { # target, package, profile
  cargo build --locked -q --profile "$3" --target "$1" -p "$2"
}

run_suite() { # target
  local t=$1 t0 t1 t2 bin log rc line
  echo "--- $t"
  t0=$(now)
  if ! build "$t" reprosum-cross "$PROFILE"; then fail "$t: build"; return; fi
  t1=$(now)
  bin="$CARGO_TARGET_DIR/$t/$PROFILE/reprosum-cross"
  runner "$t" "$bin"
  log="$CARGO_TARGET_DIR/$t-suite.log"
  set +e
  timeout "$RUN_TIMEOUT" "${RUN[@]}" >"$log" 2>&1
  rc=$?
  set -e
  t2=$(now)
  cat "$log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
  echo "--- $t: exit status $rc; build $(secs "$t0" "$t1") s, run $(secs "$t1" "$t2") s"
  if [ "$rc" -ne 0 ] || [ -z "$line" ] || ! [[ "$line" =~ \ 0\ failed$ ]]; then
    fail "$t: exit status $rc, '${line:-no summary line}'"
  else
    summary+=("$t: $line (build $(secs "$t0" "$t1") s, run $(secs "$t1" "$t2") s)")
  fi
}

# A run with one corrupted expected bit must fail, through the same exit-status path.
self_check() { # target
  local t=$1 bin log rc
  bin="$CARGO_TARGET_DIR/$t/$PROFILE/reprosum-cross"
  runner "$t" "$bin" 1
  log="$CARGO_TARGET_DIR/$t-force-fail.log"
  set +e
  timeout "$RUN_TIMEOUT" "${RUN[@]}" >"$log" 2>&1
  rc=$?
  set -e
  echo "$t, expected to fail: $(tail -n 1 "$log")"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -qE '^[0-9]+ passed, [1-9][0-9]* failed$' "$log"; then
    summary+=("$t force-fail self-check: exit status $rc as it should ($(tail -n 1 "$log"))")
  else
    fail "$t: the force-fail run exited $rc: a failure would not fail CI"
  fi
}

# Code size of sum::<f32> / sum::<f64> (K = 3), stack and instructions per element.
facts() {
  local sysroot bin_dir size nm t d
  sysroot=$(rustc --print sysroot)
  bin_dir="$sysroot/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
  size="$bin_dir/llvm-size"; nm="$bin_dir/llvm-nm"
  [ -x "$size" ] || size=llvm-size
  [ -x "$nm" ] || nm=llvm-nm
  for t in thumbv7em-none-eabihf thumbv7em-none-eabi; do
    echo "--- firmware facts, $t (release: opt-level s, fat LTO, codegen-units 1, panic abort)"
    if ! build "$t" reprosum-facts release; then fail "$t: facts build"; continue; fi
    d="$CARGO_TARGET_DIR/$t/release"
    local base f32 f64
    base=$("$size" -A "$d/size-base" | awk '$1 == "Total" { print $2 }')
    f32=$("$size" -A "$d/size-f32" | awk '$1 == "Total" { print $2 }')
    f64=$("$size" -A "$d/size-f64" | awk '$1 == "Total" { print $2 }')
    "$size" "$d/size-base" "$d/size-f32" "$d/size-f64"
    echo "code size of sum::<f32> (K = 3): $((f32 - base)) bytes (size-f32 - size-base, all sections)"
    echo "code size of sum::<f64> (K = 3): $((f64 - base)) bytes (size-f64 - size-base, all sections)"
    summary+=("$t: sum::<f32> $((f32 - base)) bytes, sum::<f64> $((f64 - base)) bytes of code")
    for p in f32 f64; do
      echo "the 12 largest symbols of size-$p, by size (address, size, type, name; the sum is inlined into __reprosum_baremetal_main):"
      "$nm" --print-size --size-sort --radix=d -C "$d/size-$p" | tail -n 12 | sed 's/^/  /'
    done
    set +e
    timeout 120 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic -monitor none \
      -semihosting-config enable=on,target=native -icount shift=0 -kernel "$d/facts"
    local rc=$?
    set -e
    [ "$rc" -eq 0 ] || fail "$t: facts exited $rc"
  done
}

if [ "$#" -gt 0 ]; then
  targets=("$@")
  do_extra=0
else
  targets=("${ALL_TARGETS[@]}")
  do_extra=1
fi

start=$(now)
for t in "${targets[@]}"; do run_suite "$t"; done
if [ "$do_extra" = 1 ]; then
  echo "--- force-fail self-checks (one expected bit flipped: the run must exit non-zero)"
  self_check thumbv7em-none-eabihf
  self_check thumbv6m-none-eabi
  self_check riscv32imac-unknown-none-elf
  self_check riscv32imc-unknown-none-elf
  self_check s390x-unknown-linux-gnu
  t0=$(now)
  facts
  echo "--- firmware facts done in $(secs "$t0" "$(now)") s"
fi

echo "=== cross summary ($(secs "$start" "$(now)") s)"
for s in "${summary[@]}"; do echo "  $s"; done
if [ "$failures" -ne 0 ]; then
  echo "=== cross: $failures failure(s)"
  exit 1
fi
echo "=== cross: all passed"
