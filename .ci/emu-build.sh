#!/usr/bin/env bash
# Builds the kernel emulator (gpu/tests/emu/emu.cpp, which includes gpu/kernels/reprosum.cu)
# and prints its path. With RS_EMU set (.ci/run sets it for one run), the binary there is
# built once and reused by the gpu and hip stages of that run.
set -euo pipefail
cd "$(dirname "$0")/.."
emu="${RS_EMU:-$(mktemp -d)/emu}"
if [ ! -x "$emu" ]; then
  command -v g++ >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends g++ >/dev/null; } >&2
  mkdir -p "$(dirname "$emu")"
  g++ -std=c++20 -O1 -ffp-contract=off -pthread -Wall -Wextra -Wno-unknown-pragmas -Werror \
    gpu/tests/emu/emu.cpp -o "$emu.tmp" >&2
  mv "$emu.tmp" "$emu"
fi
echo "$emu"
