#!/usr/bin/env bash
# CI stage for the C library (reprosum-ffi): header freshness, header compile checks, the
# static library, the C tests under AddressSanitizer + UndefinedBehaviorSanitizer, the MPI
# example at 1, 2, 3, 4 and 8 ranks. (miri over the crate's unit tests: .ci/miri.sh.)
# Run from anywhere: bash .ci/ffi.sh. Installs what it needs (apt, cargo install).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

CBINDGEN_VERSION=0.29.4
# The link line documented in README.md and include/reprosum.h.
DOC_LIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
TARGET_DIR=${CARGO_TARGET_DIR:-target}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

ffi_start=$(date +%s)
step() {
  local name=$1; shift
  local t0=$(date +%s)
  echo "--- ffi: $name"
  "$@"
  echo "--- ffi: $name done in $(( $(date +%s) - t0 ))s (ffi total $(( $(date +%s) - ffi_start ))s)"
}

install_tools() {
  local missing=()
  command -v gcc >/dev/null || missing+=(gcc)
  command -v g++ >/dev/null || missing+=(g++)
  command -v mpicc >/dev/null || missing+=(libopenmpi-dev)
  command -v mpirun >/dev/null || missing+=(openmpi-bin)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      gcc g++ libc6-dev libopenmpi-dev openmpi-bin >/dev/null
  fi
  if [ "$(cbindgen --version 2>/dev/null || true)" != "cbindgen $CBINDGEN_VERSION" ]; then
    # Its own target dir (not ours): a cargo install must not share the workspace's.
    env -u CARGO_TARGET_DIR cargo install cbindgen --version "$CBINDGEN_VERSION" --locked --quiet
  fi
}

header_fresh() {
  cbindgen --quiet --config ffi/cbindgen.toml --output "$WORK/reprosum.h" ffi
  if ! diff -u include/reprosum.h "$WORK/reprosum.h"; then
    echo "include/reprosum.h is stale: regenerate it with"
    echo "  cbindgen --quiet --config ffi/cbindgen.toml --output include/reprosum.h ffi"
    return 1
  fi
}

header_compiles() {
  cat > "$WORK/use.c" <<'C'
#include "reprosum.h"
#include "reprosum.h" /* the include guard holds */
int use(const double *x, double *y, const float *f, float *g, size_t n) {
    double s;
    float t;
    adn_status st = adn_sum_f64(x, n, &s);
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    st |= adn_sum(x, n, &s) | adn_sum(f, n, &t) | adn_sum(y, n, &s) | adn_sum(g, n, &t);
    st |= adn_cumsum(x, y, n) | adn_cumsum(f, g, n) | adn_cumsum(y, y, n);
    st |= adn_sum_fold(x, n, 4, &s) | adn_cumsum_fold(f, g, n, 5);
    _Static_assert(sizeof(adn_acc_f64) == 1024 && sizeof(adn_acc_f32) == 512, "sizes");
#else
    (void)f;
    (void)g;
    (void)y;
    (void)t;
#endif
    adn_acc_f64 a;
    st |= adn_acc_f64_init(&a, ADN_DEFAULT_FOLD);
    return (int)st + (adn_status_string(st) != 0);
}
C
  printf '#include "reprosum.hpp"\n#include "reprosum.h"\nint main() { return adn::max_fold<float> == ADN_MAX_FOLD_F32 ? 0 : 1; }\n' > "$WORK/use.cpp"
  local flags="-Wall -Wextra -Werror -pedantic -Iinclude -c"
  for std in c99 c11 c17; do gcc -std=$std $flags "$WORK/use.c" -o "$WORK/use_$std.o"; done
  for std in c++11 c++14; do g++ -std=$std $flags -x c++ "$WORK/use.c" -o "$WORK/use_$std.o"; done
  g++ -std=c++17 $flags "$WORK/use.cpp" -o "$WORK/use_cpp17.o"
  g++ -std=c++20 $flags "$WORK/use.cpp" -o "$WORK/use_cpp20.o"
  echo "reprosum.h compiles as C99/C11/C17 and C++11/14; reprosum.hpp as C++17/20 (-Wall -Wextra -Werror -pedantic)"
}

build_lib() {
  # --print native-static-libs: the system libraries to link, checked against the docs.
  cargo rustc -p reprosum-ffi --release --locked --crate-type staticlib -- --print native-static-libs \
    2> "$WORK/build.log" || { cat "$WORK/build.log"; return 1; }
  NATIVE_LIBS=$(sed -n 's/.*native-static-libs: //p' "$WORK/build.log" | tail -1)
  LIB="$TARGET_DIR/release/libreprosum.a"
  test -f "$LIB"
  echo "static library: $LIB ($(du -h "$LIB" | cut -f1)); native libs: $NATIVE_LIBS"
  # The documented link line is asserted, not warned about.
  if [ "$NATIVE_LIBS" != "$DOC_LIBS" ]; then
    echo "FAIL: rustc's native-static-libs ($NATIVE_LIBS) differ from the documented link line"
    echo "      ($DOC_LIBS): update README.md, ffi/cbindgen.toml, ffi/tests/c_programs.rs,"
    echo "      .ci/ffi.sh and .ci/install.sh"
    return 1
  fi
}

sanitized_tests() {
  local san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
  local common="-Wall -Wextra -Werror -ffp-contract=off -Iinclude -Iexamples-c"
  gcc -std=c11 $san $common ffi/tests/c/test_ffi.c "$LIB" $NATIVE_LIBS -o "$WORK/test_ffi"
  gcc -std=c11 $san $common ffi/tests/c/test_batch.c "$LIB" $NATIVE_LIBS -o "$WORK/test_batch"
  gcc -std=c11 $san $common examples-c/sum.c "$LIB" $NATIVE_LIBS -o "$WORK/sum"
  g++ -std=c++17 $san $common examples-c/sum.cpp "$LIB" $NATIVE_LIBS -o "$WORK/sum_cpp"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  "$WORK/test_ffi" tests/vectors/known_answers.txt tests/vectors/core_vectors.txt | tail -4
  "$WORK/test_batch" | tail -1
  "$WORK/sum" > "$WORK/sum.out"
  "$WORK/sum_cpp" > "$WORK/sum_cpp.out"
  # Both programs print the known answer of the wide-range input.
  grep -q '^case wide_range_1m sum 430FC878C605717F$' "$WORK/sum.out"
  grep -q '^case wide_range_1m sum 430FC878C605717F$' "$WORK/sum_cpp.out"
  echo "sum.c: $(grep -c '^case ' "$WORK/sum.out") lines, sum.cpp: $(grep -c '^case ' "$WORK/sum_cpp.out") lines (bits checked by cargo test)"
}

mpi() {
  mpicc -std=c11 -O2 -Wall -Wextra -Werror -ffp-contract=off -Iinclude -Iexamples-c \
    examples-c/mpi_sum.c "$LIB" $NATIVE_LIBS -o "$WORK/mpi_sum"
  : > "$WORK/mpi.out"
  for n in 1 2 3 4 8; do
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      timeout 120 mpirun --oversubscribe --bind-to none -n "$n" "$WORK/mpi_sum" | tee -a "$WORK/mpi.out"
  done
  # 5 rank counts x 4 splits, each OK, and every line's bits equal the 1-rank lines'.
  local lines ok distinct
  lines=$(grep -c '^mpi ranks=' "$WORK/mpi.out")
  ok=$(grep -c ' OK$' "$WORK/mpi.out" || true)
  distinct=$(sed -n 's/^mpi ranks=[0-9]* split=[a-z-]* //p' "$WORK/mpi.out" | sort -u | wc -l)
  if [ "$lines" != 20 ] || [ "$ok" != 20 ] || [ "$distinct" != 1 ]; then
    echo "MPI: $lines lines, $ok OK, $distinct distinct results (want 20, 20, 1)"
    return 1
  fi
  echo "MPI: 1, 2, 3, 4, 8 ranks x 4 splits: the single-process bits every time"
}

step install install_tools
step header-fresh header_fresh
step header-compiles header_compiles
step static-lib build_lib
step sanitizers sanitized_tests
step mpi mpi
echo "--- ffi: all passed in $(( $(date +%s) - ffi_start ))s"
