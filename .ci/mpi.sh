#!/usr/bin/env bash
# CI stage for the MPI layer and the Fortran module: include/reprosum_mpi.h compiled as
# C99/C11/C17 and C++11/14/17/20 without warnings, its tests (ffi/tests/c/test_mpi.c) at 1, 2,
# 3, 4 and 8 ranks, the CUDA variant's test (ffi/tests/c/test_mpi_cuda.c, which says why it
# skips the device checks here), include/reprosum.f90 checked against reprosum.h (every
# constant and every function bound, no binding to a missing one), its tests
# (ffi/tests/fortran/test_reprosum.f90), and examples-fortran/mpi_sum.f90 against
# examples-c/mpi_cumsum.c at 1 to 4 ranks, bit for bit.
# Run from anywhere: bash .ci/mpi.sh. Installs what it needs (apt).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

# The link line documented in README.md and include/reprosum.h.
LIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
TARGET_DIR=${CARGO_TARGET_DIR:-target}
LIB="$TARGET_DIR/release/libreprosum.a"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One library thread per rank: the ranks already fill the machine's cores (README, "MPI").
MPIRUN=(timeout 300 mpirun --oversubscribe --bind-to none -x ADN_NUM_THREADS=1)

mpi_start=$(date +%s)
step() {
  local name=$1; shift
  local t0=$(date +%s)
  echo "--- mpi: $name"
  "$@"
  echo "--- mpi: $name done in $(( $(date +%s) - t0 ))s (mpi total $(( $(date +%s) - mpi_start ))s)"
}

install_tools() {
  local missing=()
  command -v gcc >/dev/null || missing+=(gcc)
  command -v g++ >/dev/null || missing+=(g++)
  command -v gfortran >/dev/null || missing+=(gfortran)
  command -v mpicc >/dev/null || missing+=(libopenmpi-dev)
  command -v mpirun >/dev/null || missing+=(openmpi-bin)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      gcc g++ gfortran libc6-dev libopenmpi-dev openmpi-bin >/dev/null
  fi
  gfortran --version | head -1
  mpirun --version | head -1
}

build_lib() {
  cargo build -p reprosum-ffi --release --locked --quiet
  test -f "$LIB"
}

header_compiles() {
  cat > "$WORK/use.c" <<'C'
#include "reprosum_mpi.h"
#include "reprosum_mpi.h" /* the include guard holds */
int use(const double *x, double *y, const float *f, float *g, size_t n, MPI_Comm comm);
int use(const double *x, double *y, const float *f, float *g, size_t n, MPI_Comm comm) {
    double s;
    float t;
    adn_acc_f64 a;
    adn_acc_f32 b;
    adn_status st = adn_mpi_setup();
    st |= adn_mpi_sum_f64(x, n, 3, &s, comm) | adn_mpi_sum_f32(f, n, 3, &t, comm);
    st |= adn_mpi_cumsum_f64(x, y, n, 3, comm) | adn_mpi_cumsum_f32(f, g, n, 3, comm);
    st |= adn_mpi_cuda_sum_f64(x, n, 3, &s, comm) | adn_mpi_cuda_sum_f32(f, n, 3, &t, comm);
    st |= adn_mpi_cuda_cumsum_f64(x, y, n, 3, comm) | adn_mpi_cuda_cumsum_f32(f, g, n, 3, comm);
    st |= adn_mpi_acc_f64_status(&a) | adn_mpi_acc_f32_status(&b);
    MPI_Op ops[2] = {adn_mpi_op_acc_f64(), adn_mpi_op_acc_f32()};
    MPI_Datatype types[2] = {adn_mpi_type_acc_f64(), adn_mpi_type_acc_f32()};
    MPI_User_function *merge[2] = {adn_mpi_merge_acc_f64, adn_mpi_merge_acc_f32};
    return (int)st + (ops[0] == ops[1]) + (types[0] == types[1]) + (merge[0] == merge[1]);
}
C
  local flags="-Wall -Wextra -Werror -pedantic -Iinclude -c"
  for std in c99 c11 c17; do mpicc -std=$std $flags "$WORK/use.c" -o "$WORK/use_$std.o"; done
  # Open MPI's mpi.h pulls in its removed MPI-2 C++ bindings unless told not to; they warn
  # (-Wcast-function-type) in mpi.h itself.
  for std in c++11 c++14 c++17 c++20; do
    mpicxx -std=$std -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1 $flags -x c++ "$WORK/use.c" -o "$WORK/use_$std.o"
  done
  echo "reprosum_mpi.h compiles as C99/C11/C17 and C++11/14/17/20 (-Wall -Wextra -Werror -pedantic)"
}

# Runs "$@" at each rank count in $RANKS; each run must exit 0 and print "ranks=P: N passed,
# 0 failed" with N > 0.
run_ranks() {
  local exe=$1 name
  name=$(basename "$exe")
  for n in $RANKS; do
    "${MPIRUN[@]}" -n "$n" "$exe" > "$WORK/$name.$n.out" 2>&1 || { cat "$WORK/$name.$n.out"; return 1; }
    grep -E "^$name ranks=$n: [1-9][0-9]* passed, 0 failed$" "$WORK/$name.$n.out" \
      || { cat "$WORK/$name.$n.out"; return 1; }
    grep "SKIPPED" "$WORK/$name.$n.out" || true
  done
}

mpi_tests() {
  local flags="-std=c11 -O1 -Wall -Wextra -Werror -pedantic -ffp-contract=off -Iinclude -Iexamples-c"
  flags="$flags -fsanitize=undefined -fno-sanitize-recover=all"
  mpicc $flags ffi/tests/c/test_mpi.c "$LIB" $LIBS -o "$WORK/test_mpi"
  RANKS="1 2 3 4 8" run_ranks "$WORK/test_mpi"
  # The library's thread pool inside ranks: two threads each.
  timeout 300 mpirun --oversubscribe --bind-to none -x ADN_NUM_THREADS=2 -n 2 "$WORK/test_mpi" \
    | grep -E "^test_mpi ranks=2: [1-9][0-9]* passed, 0 failed$"
}

mpi_cuda_variant() {
  # Without a CUDA build the program checks that every rank gets ADN_NOT_BUILT from every
  # entry point, and says that it skipped the device checks.
  mpicc -std=c11 -O1 -Wall -Wextra -Werror -pedantic -ffp-contract=off -Iinclude -Iexamples-c \
    ffi/tests/c/test_mpi_cuda.c "$LIB" $LIBS -o "$WORK/test_mpi_cuda"
  RANKS="1 3" run_ranks "$WORK/test_mpi_cuda"
  grep -q "SKIPPED device checks: libreprosum built without --features cuda" "$WORK/test_mpi_cuda.3.out"
}

fortran_bindings() {
  # Every numeric ADN_ constant of reprosum.h is a parameter of the module, with its value.
  grep -E '^#define ADN_[A-Z0-9_]+ [0-9]+(ull)?$' include/reprosum.h \
    | sed -E 's/^#define (ADN_[A-Z0-9_]+) ([0-9]+)(ull)?$/\1 \2/' | sort > "$WORK/h.const"
  grep -E 'parameter, public :: ADN_' include/reprosum.f90 \
    | sed -E 's/.*:: (ADN_[A-Z0-9_]+) = ([0-9]+)(_c_int64_t)?$/\1 \2/' | sort > "$WORK/f.const"
  if ! diff -u "$WORK/h.const" "$WORK/f.const"; then
    echo "include/reprosum.f90's constants differ from include/reprosum.h's (- header, + module)"
    return 1
  fi
  # Every function of reprosum.h has a bind(C) interface, and every binding names one.
  grep -oE '^[a-z][a-z_ ]*\*?(adn_[a-z0-9_]+)\(' include/reprosum.h \
    | sed -E 's/.*(adn_[a-z0-9_]+)\($/\1/' | sort -u > "$WORK/h.fn"
  grep -oE 'bind\(C, name="adn_[a-z0-9_]+"\)' include/reprosum.f90 \
    | sed -E 's/.*"(adn_[a-z0-9_]+)".*/\1/' | sort -u > "$WORK/f.fn"
  if ! diff -u "$WORK/h.fn" "$WORK/f.fn"; then
    echo "include/reprosum.f90's bind(C) interfaces differ from include/reprosum.h's functions"
    echo "(- declared in the header but not bound, + bound but not declared)"
    return 1
  fi
  echo "reprosum.f90: $(wc -l < "$WORK/f.const") constants and $(wc -l < "$WORK/f.fn") functions, as reprosum.h"
}

fortran_tests() {
  mkdir -p "$WORK/mod"
  local flags="-std=f2008 -O2 -Wall -Wextra -Werror -pedantic -ffp-contract=off -J $WORK/mod"
  gfortran $flags include/reprosum.f90 examples-fortran/mt19937.f90 ffi/tests/fortran/test_reprosum.f90 \
    "$LIB" $LIBS -o "$WORK/test_reprosum"
  ADN_NUM_THREADS=2 "$WORK/test_reprosum" | tee "$WORK/test_reprosum.out" | tail -3
  grep -qE '^test_reprosum: [1-9][0-9]* passed, 0 failed$' "$WORK/test_reprosum.out"
}

fortran_mpi() {
  mkdir -p "$WORK/mpimod"
  # -Wno-unused-dummy-argument: an MPI user function's datatype argument is not needed.
  mpif90 -std=f2008 -O2 -Wall -Wextra -Werror -Wno-unused-dummy-argument -ffp-contract=off -J "$WORK/mpimod" \
    include/reprosum.f90 examples-fortran/mt19937.f90 examples-fortran/mpi_sum.f90 "$LIB" $LIBS \
    -o "$WORK/mpi_sum_f"
  mpicc -std=c11 -O2 -Wall -Wextra -Werror -ffp-contract=off -Iinclude -Iexamples-c \
    examples-c/mpi_cumsum.c "$LIB" $LIBS -o "$WORK/mpi_cumsum"
  : > "$WORK/f.out"
  : > "$WORK/c.out"
  for n in 1 2 3 4; do
    "${MPIRUN[@]}" -n "$n" "$WORK/mpi_sum_f" | tee -a "$WORK/f.out"
    "${MPIRUN[@]}" -n "$n" "$WORK/mpi_cumsum" | tee -a "$WORK/c.out"
  done
  # 4 rank counts x 2 splits in each language, all OK, the two languages' lines equal, and
  # one result for every rank count and split: the one-process bits, with the known sum.
  local lines ok distinct
  lines=$(cat "$WORK/f.out" "$WORK/c.out" | grep -c '^mpi_cumsum lang=')
  ok=$(cat "$WORK/f.out" "$WORK/c.out" | grep -c ' OK$' || true)
  distinct=$(sed -E 's/^mpi_cumsum lang=[a-z]+ ranks=[0-9]+ split=[a-z]+ //' "$WORK/f.out" "$WORK/c.out" | sort -u | wc -l)
  if [ "$lines" != 16 ] || [ "$ok" != 16 ] || [ "$distinct" != 1 ]; then
    echo "Fortran/C MPI: $lines lines, $ok OK, $distinct distinct results (want 16, 16, 1)"
    return 1
  fi
  if ! diff <(sed 's/ lang=fortran / /' "$WORK/f.out") <(sed 's/ lang=c / /' "$WORK/c.out"); then
    echo "examples-fortran/mpi_sum.f90 and examples-c/mpi_cumsum.c printed different bits"
    return 1
  fi
  grep -q ' sum_f64=430FC878C605717F ' "$WORK/f.out"
  echo "Fortran and C, 1 to 4 ranks, 2 splits: the same bits, the single-process ones"
}

step install install_tools
step static-lib build_lib
step header-compiles header_compiles
step mpi-tests mpi_tests
step mpi-cuda-variant mpi_cuda_variant
step fortran-bindings fortran_bindings
step fortran-tests fortran_tests
step fortran-mpi fortran_mpi
echo "--- mpi: all passed in $(( $(date +%s) - mpi_start ))s"
