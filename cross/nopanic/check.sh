#!/usr/bin/env bash
# The no-panic check (see src/main.rs): builds the program that calls every public API of
# reprosum-core, whose panic handler calls an undefined symbol, for the Cortex-M4F and for
# x86-64 Linux at opt-level "s" (profile release) and 3 (profile nopanic-o3), fat LTO: each
# must link. Each binary is then run (qemu for the M4F, natively for x86-64) and must exit 0.
# Then the self-check: with one deliberate `xs[i]` (feature deliberate-index) the link must
# fail on that undefined symbol, so a panic path really fails CI. Exits non-zero on any
# failure; prints each part's time.
#
#   bash cross/nopanic/check.sh
#
# Needs the thumbv7em-none-eabihf target and qemu-system-arm (.ci/cross.sh installs them).
# CARGO_TARGET_DIR defaults to <repo>/target/cross.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cross="$(cd "$here/.." && pwd)"
root="$(cd "$cross/.." && pwd)"
cd "$cross" # cargo reads cross/.cargo/config.toml from the current directory
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/cross}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

SYMBOL=reprosum_nopanic_a_panic_path_survived
TARGETS=(thumbv7em-none-eabihf x86_64-unknown-linux-gnu)

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
failures=0
fail() { echo "NOPANIC FAILURE: $*"; failures=$((failures + 1)); }

build() { # target profile features...
  local t=$1 p=$2
  shift 2
  cargo build --locked -q --profile "$p" --target "$t" -p reprosum-nopanic --features "$*"
}

run() { # target binary
  case "$1" in
    thumbv7em-*) timeout 120 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic \
      -monitor none -semihosting-config enable=on,target=native -kernel "$2" ;;
    x86_64-unknown-linux-gnu) timeout 120 "$2" ;;
  esac
}

start=$(now)
for t in "${TARGETS[@]}"; do
  for p in release nopanic-o3; do
    t0=$(now)
    if ! build "$t" "$p"; then
      fail "$t $p: does not link: a panic path survives (see the undefined $SYMBOL above)"
      continue
    fi
    t1=$(now)
    set +e
    run "$t" "$CARGO_TARGET_DIR/$t/$p/reprosum-nopanic"
    rc=$?
    set -e
    echo "$t $p: links (no panic path); run exit status $rc; build $(secs "$t0" "$t1") s, run $(secs "$t1" "$(now)") s"
    [ "$rc" -eq 0 ] || fail "$t $p: the program exited $rc"
  done
done

# The check must be able to fail: one index that the optimiser cannot prove in bounds.
for t in "${TARGETS[@]}"; do
  t0=$(now)
  log="$CARGO_TARGET_DIR/nopanic-deliberate-$t.log"
  set +e
  build "$t" nopanic-o3 deliberate-index >"$log" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 0 ] && grep -qE "undefined (symbol: |reference to .)$SYMBOL" "$log"; then
    echo "$t, deliberate xs[i]: the link fails as it should ($(grep -m1 -oE "undefined (symbol: |reference to .)$SYMBOL" "$log"); $(secs "$t0" "$(now)") s)"
  else
    cat "$log"
    fail "$t: with a deliberate xs[i] the build exited $rc without the undefined-symbol error: the check cannot fail"
  fi
done

echo "=== nopanic ($(secs "$start" "$(now)") s)"
if [ "$failures" -ne 0 ]; then
  echo "=== nopanic: $failures failure(s)"
  exit 1
fi
echo "=== nopanic: every build links, every run exits 0, the deliberate panic path fails the link"
