#!/usr/bin/env bash
# CI stage "package": reprosum-core is ready to publish (`cargo package` builds the packaged
# crate from its .crate file alone), and the README's two ways of adding it before it is on
# crates.io work: `cargo add --path` and `cargo add --git`, each into a new crate that then
# builds for the host and for a Cortex-M4F.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "--- package: cargo package -p reprosum-core"
cargo package -p reprosum-core --locked --target-dir "$work/package-target"
files=$(cargo package -p reprosum-core --locked --list)
for f in Cargo.toml README.md src/lib.rs; do
  grep -qx "$f" <<<"$files" || { echo "the package lacks $f"; exit 1; }
done

try_add() {
  local name=$1; shift
  echo "--- package: cargo add reprosum-core $*"
  (
    cd "$work"
    cargo new --quiet --lib "$name"
    cd "$name"
    cargo add --quiet reprosum-core "$@"
    cat > src/lib.rs <<'RS'
#![no_std]
pub fn total(x: &[f32]) -> f32 {
    reprosum_core::sum(x).unwrap_or(f32::NAN)
}
RS
    cargo build --quiet --target-dir "$work/add-target"
    cargo build --quiet --release --target thumbv7em-none-eabihf --target-dir "$work/add-target"
  )
}
try_add by-path --path "$root/core"
# A git dependency on this very commit, through a file URL: what `--git URL` does.
try_add by-git --git "file://$root" --rev "$(git rev-parse HEAD)"
echo "--- package: done"
