#!/usr/bin/env bash
# Installs every tool the CI stages use, so that .ci/run can start its stages side by side
# without two of them installing at once (apt and rustup each take a lock; a second apt-get
# fails at once). Every stage script still installs what it needs when run alone.
#
#   bash .ci/tools.sh rustup   the toolchain parts (components, targets, nightly with miri)
#   bash .ci/tools.sh rest     Debian's packages in one apt-get call, the pinned CUDA 13.0
#                              compiler in a venv, cbindgen, cargo-fuzz, miri's sysroot
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

# Debian's packages of every stage: ffi, mpi, install (C, MPI, Fortran, CMake), python (venv),
# cross (qemu, cross linkers), gpu (g++ for the emulator), hip (hipcc, ROCm 5.2).
APT_PACKAGES=(gcc g++ gfortran libc6-dev libopenmpi-dev openmpi-bin cmake pkg-config binutils
  perl-base python3 python3-venv python3-pip
  qemu-system-arm qemu-system-misc qemu-user-static
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross
  hipcc)
# The Rust targets of the no_std build and the cross stage.
TARGETS=(thumbv7em-none-eabihf thumbv7em-none-eabi thumbv6m-none-eabi
  riscv32imac-unknown-none-elf riscv32imc-unknown-none-elf
  aarch64-unknown-linux-gnu s390x-unknown-linux-gnu)
CBINDGEN_VERSION=0.29.4   # as .ci/ffi.sh
CARGO_FUZZ_VERSION=0.13.2 # as .ci/fuzz.sh

rustup_parts() {
  rustup component add rustfmt clippy llvm-tools
  rustup target add "${TARGETS[@]}"
  if ! cargo +nightly miri --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal -c miri -c rust-src
  fi
}

rest() {
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "apt: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  # The pinned pip CUDA compiler of gpu/scripts/build-fatbin.sh.
  bash .ci/cuda-venv.sh >/dev/null
  # Their own target dirs (not the workspace's): a cargo install must not share it.
  if [ "$(cbindgen --version 2>/dev/null || true)" != "cbindgen $CBINDGEN_VERSION" ]; then
    env -u CARGO_TARGET_DIR cargo install cbindgen --version "$CBINDGEN_VERSION" --locked --quiet
  fi
  if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    env -u CARGO_TARGET_DIR cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --quiet
  fi
  cargo +nightly miri setup >/dev/null
  echo "tools: apt, the CUDA 13.0 venv, cbindgen $CBINDGEN_VERSION, cargo-fuzz, miri's sysroot ready"
}

case "${1:-}" in
  rustup) rustup_parts ;;
  rest) rest ;;
  *) echo "usage: bash .ci/tools.sh rustup|rest" >&2; exit 2 ;;
esac
