#!/usr/bin/env bash
# CI stage "cross": installs qemu, the cross linkers and the Rust targets, checks the
# cross crates' formatting and lints, builds the core for the Cortex-M0 and riscv32imc,
# runs the no-panic check (cross/nopanic/check.sh), then cross/run-all.sh: the core on
# Cortex-M4F, Cortex-M4 (soft float), Cortex-M0, riscv32imac, riscv32imc, aarch64 and
# s390x under qemu, the force-fail self-checks and the firmware facts. Prints each step's
# time; fails on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

t_start=$(date +%s)
step() {
  local name=$1 t0
  shift
  t0=$(date +%s)
  echo "--- cross: $name"
  "$@"
  echo "--- cross: $name done in $(($(date +%s) - t0))s"
}

PACKAGES=(qemu-system-arm qemu-system-misc qemu-user-static
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross)
TARGETS=(thumbv7em-none-eabihf thumbv7em-none-eabi thumbv6m-none-eabi
  riscv32imac-unknown-none-elf riscv32imc-unknown-none-elf
  aarch64-unknown-linux-gnu s390x-unknown-linux-gnu)

install() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  rustup target add "${TARGETS[@]}"
  rustup component add llvm-tools rustfmt clippy
}

lint() {
  (
    cd cross
    cargo fmt --all -- --check
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../target/cross}"
    # The bare-metal crates for Cortex-M and RISC-V, the std entry for a Linux target.
    # One package at a time: the probes turn off reprosum-baremetal's panic handler.
    cargo clippy --locked -q --target thumbv7em-none-eabihf -p reprosum-cross --all-targets -- -D warnings
    cargo clippy --locked -q --target thumbv7em-none-eabihf -p reprosum-facts --all-targets -- -D warnings
    cargo clippy --locked -q --target riscv32imac-unknown-none-elf -p reprosum-cross --all-targets -- -D warnings
    # The Cortex-M0 build runs a smaller suite (cfg reprosum_small).
    cargo clippy --locked -q --target thumbv6m-none-eabi -p reprosum-cross --all-targets -- -D warnings
    cargo clippy --locked -q --target aarch64-unknown-linux-gnu -p reprosum-cross --all-targets -- -D warnings
    cargo clippy --locked -q --target thumbv7em-none-eabihf -p reprosum-nopanic --all-targets -- -D warnings
    # (release: a no_std program on a std target needs panic = abort, which dev lacks)
    cargo clippy --locked -q --release --target x86_64-unknown-linux-gnu -p reprosum-nopanic --all-targets -- -D warnings
  )
}

step install install
# The core alone, as a firmware build uses it, for the targets without atomic
# compare-and-swap (Cortex-M0, riscv32imc).
core_builds() {
  cargo build --locked -q -p reprosum-core --release --target thumbv6m-none-eabi
  cargo build --locked -q -p reprosum-core --release --target riscv32imc-unknown-none-elf
}

step lint lint
step core-m0-riscv32imc core_builds
# The core never panics: a program calling every public API links with a panic handler that
# references an undefined symbol (opt-level s and 3, fat LTO, Cortex-M4F and x86-64).
step nopanic bash cross/nopanic/check.sh
step run-all bash cross/run-all.sh
echo "--- cross: all done in $(($(date +%s) - t_start))s"
