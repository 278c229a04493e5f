#!/usr/bin/env bash
# CI stage for the installed library: ffi/install.sh into a temporary prefix; the installed
# files (the list, the SONAME and its links, the pkg-config and CMake files); then the C, C++
# and Fortran programs of examples-c/consumer/ built against the prefix with CMake
# (find_package) and with pkg-config, shared and static, each run on the known-answer inputs
# of tests/vectors/known_answers.txt and its output bits compared with their sums. Also an
# install built with --features cuda (the same files; its CUDA entry points built in).
# Run from anywhere: bash .ci/install.sh. Installs what it needs (apt).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

# The link line documented in README.md and include/reprosum.h (as .ci/ffi.sh).
DOC_LIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PREFIX=$WORK/prefix
SRC=examples-c/consumer

install_start=$(date +%s)
step() {
  local name=$1; shift
  local t0=$(date +%s)
  echo "--- install: $name"
  "$@"
  echo "--- install: $name done in $(( $(date +%s) - t0 ))s (install total $(( $(date +%s) - install_start ))s)"
}
fail() { echo "FAIL: $*" >&2; exit 1; }

install_tools() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  command -v gfortran >/dev/null || missing+=(gfortran)
  command -v gcc >/dev/null || missing+=(gcc libc6-dev)
  command -v g++ >/dev/null || missing+=(g++)
  command -v readelf >/dev/null || missing+=(binutils)
  command -v perl >/dev/null || missing+=(perl-base)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "apt: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  [ "$(perl -e 'print length pack "Q<", 0')" = 8 ] || fail "perl has no 64-bit integers"
  echo "$(cmake --version | head -1); pkg-config $(pkg-config --version); $(gfortran --version | head -1)"
}

# The version and SONAME as this script expects them: the workspace's version, and cargo-c's
# rule for the SONAME's version part (0.0.z: 0.0.z; 0.y.z: 0.y; x.y.z: x), written out again
# here rather than read from ffi/build.rs.
expectations() {
  VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' Cargo.toml)
  [ -n "$VERSION" ] || fail "no [workspace.package] version in Cargo.toml"
  local major minor patch
  IFS=. read -r major minor patch <<< "$VERSION"
  if [ "$major" = 0 ] && [ "$minor" = 0 ]; then SOVER=0.0.$patch
  elif [ "$major" = 0 ]; then SOVER=0.$minor
  else SOVER=$major; fi
  SONAME=libreprosum.so.$SOVER
  echo "version $VERSION, SONAME $SONAME"
}

# The f64 cases at the default fold whose input is written out in the file (part/set lines;
# not the generated wide_range_1m): one raw little-endian file each, and their sums in order.
known_answer_inputs() {
  mkdir -p "$WORK/in"
  awk -v dir="$WORK/in" '
    function emit(   i, j, k, n, len, f) {
      len = 0
      for (i = 0; i < nparts; i++) {
        n = split(parts[i], w, " ")
        for (k = 0; k < w[2]; k++) for (j = 3; j <= n; j++) v[len++] = w[j]
      }
      for (i = 0; i < nsets; i++) { split(sets[i], w, " "); if (w[1] >= len) exit 3; v[w[1]] = w[2] }
      f = dir "/" name ".hex"
      printf "" > f
      for (i = 0; i < len; i++) print v[i] > f
      close(f)
      print name, sum
    }
    /^#/ { next }
    $1 == "case" { name = $2; ok = ($3 == "f64" && $4 == 3); nparts = 0; nsets = 0; sum = ""; gen = 0; next }
    $1 == "part" { parts[nparts++] = $0; next }
    $1 == "set" { sets[nsets++] = $2 " " $3; next }
    $1 == "sum" { sum = $2; next }
    $1 == "gen" { gen = 1; next }
    $1 == "cumsum" { next }
    $1 == "end" { if (ok && !gen && sum != "") emit(); next }
    { print "unknown line in known_answers.txt: " $0 > "/dev/stderr"; exit 2 }
  ' tests/vectors/known_answers.txt > "$WORK/cases"
  INPUTS=()
  local name sum
  : > "$WORK/expected"
  while read -r name sum; do
    perl -ne 'chomp; print pack("Q<", hex($_))' < "$WORK/in/$name.hex" > "$WORK/in/$name.bin"
    INPUTS+=("$WORK/in/$name.bin")
    echo "sum $sum" >> "$WORK/expected"
  done < "$WORK/cases"
  [ ${#INPUTS[@]} -ge 20 ] || fail "only ${#INPUTS[@]} f64 fold-3 known answers found"
  echo "${#INPUTS[@]} known-answer inputs ($(cat "$WORK/in"/*.bin | wc -c) bytes): $(cut -d' ' -f1 "$WORK/cases" | tr '\n' ' ')"
}

install_lib() { bash ffi/install.sh --prefix "$PREFIX"; }

# What `find` shows of a prefix: type, path, link target.
listing() { (cd "$1" && find . -mindepth 1 \( -type f -printf 'f %P\n' \) -o \( -type l -printf 'l %P -> %l\n' \) | sort); }

installed_files() {
  local p=$1 want=$WORK/want.list f
  {
    for f in include/*; do echo "f $f"; done
    echo "f lib/cmake/reprosum/reprosumConfig.cmake"
    echo "f lib/cmake/reprosum/reprosumConfigVersion.cmake"
    echo "f lib/libreprosum.a"
    echo "l lib/libreprosum.so -> $SONAME"
    [ "$SONAME" = "libreprosum.so.$VERSION" ] || echo "l lib/$SONAME -> libreprosum.so.$VERSION"
    echo "f lib/libreprosum.so.$VERSION"
    echo "f lib/pkgconfig/reprosum-static.pc"
    echo "f lib/pkgconfig/reprosum.pc"
  } | sort > "$want"
  # Every file of include/ is installed (ffi/install.sh's INCLUDE_FILES), unchanged.
  if ! diff -u "$want" <(listing "$p"); then
    fail "the files under $p differ from the expected list (- expected, + installed)"
  fi
  for f in include/*; do cmp "$f" "$p/$f"; done
  local got
  got=$(readelf -d "$p/lib/libreprosum.so.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
  [ "$got" = "$SONAME" ] || fail "SONAME of the installed library: '$got', expected $SONAME"
  echo "$(wc -l < "$want") files as expected; SONAME $got (readelf -d)"
}

# pkg-config on the prefix's files (pkgconf ends its output with a space: dropped).
pkg() { PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config "$@" | sed 's/ *$//'; }

pkg_config_files() {
  local got
  got=$(pkg --modversion reprosum); [ "$got" = "$VERSION" ] || fail "modversion $got"
  got=$(pkg --cflags reprosum); [ "$got" = "-I$PREFIX/include" ] || fail "--cflags: $got"
  got=$(pkg --libs reprosum); [ "$got" = "-L$PREFIX/lib -lreprosum" ] || fail "--libs: $got"
  # rustc's native-static-libs at install time, as the documented link line.
  got=$(pkg --static --libs reprosum)
  [ "$got" = "-L$PREFIX/lib -lreprosum $DOC_LIBS" ] || fail "--static --libs: '$got', expected '-L$PREFIX/lib -lreprosum $DOC_LIBS'"
  got=$(pkg --libs reprosum-static)
  [ "$got" = "$PREFIX/lib/libreprosum.a $DOC_LIBS" ] || fail "reprosum-static --libs: '$got'"
  echo "pkg-config --static --libs reprosum: $(pkg --static --libs reprosum)"
}

# A program's NEEDED entries; shared: it needs the SONAME and loads it from the prefix;
# static: it does not need libreprosum at all.
check_linkage() {
  local exe=$1 kind=$2 needed
  needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' ')
  if [ "$kind" = shared ]; then
    case " $needed" in *" $SONAME "*) ;; *) fail "$exe: NEEDED '$needed' lacks $SONAME" ;; esac
    ldd "$exe" > "$WORK/ldd"
    grep -q "$SONAME => $PREFIX/lib/$SONAME " "$WORK/ldd" || { cat "$WORK/ldd"; fail "$exe does not load $PREFIX/lib/$SONAME"; }
  else
    case $needed in *libreprosum*) fail "$exe (static) needs '$needed'" ;; esac
  fi
}

# Runs a consumer on every input; its "sum" lines must be the known answers, in order.
check_sums() {
  local exe=$1 kind=$2 out=$WORK/out.$$
  check_linkage "$exe" "$kind"
  "$exe" "${INPUTS[@]}" > "$out"
  if ! diff -u "$WORK/expected" <(grep '^sum ' "$out"); then
    fail "$exe ($kind): sums differ from the known answers (- known, + printed)"
  fi
  CHECKED=$((CHECKED + 1))
  echo "  $(basename "$exe") ($kind): ${#INPUTS[@]} sums = known answers"
}

# consumer also prints "version" (checked against the header's macros by the program) and,
# per input, the CUDA entry point's status: ADN_NOT_BUILT (6) from a library built without
# --features cuda; from one built with it, ADN_NO_DEVICE (7) on every input where there is no
# GPU, or the known answers where there is one.
check_c_extras() {
  local exe=$1 want_cuda=$2 out=$WORK/extras.out
  "$exe" "${INPUTS[@]}" > "$out"
  grep -qx "version $VERSION" "$out" || fail "$exe: no 'version $VERSION' line"
  grep '^cuda ' "$out" > "$WORK/cuda.got" || true
  [ "$(wc -l < "$WORK/cuda.got")" = ${#INPUTS[@]} ] || fail "$exe: not one 'cuda' line per input"
  if [ "$want_cuda" = not-built ]; then
    grep -qvx 'cuda 6' "$WORK/cuda.got" && fail "$exe: a 'cuda' line is not 'cuda 6' (ADN_NOT_BUILT)"
    echo "  $(basename "$exe"): version $VERSION; adn_cuda_sum_f64: ADN_NOT_BUILT"
  elif ! grep -qvx 'cuda 7' "$WORK/cuda.got"; then
    echo "  $(basename "$exe"): version $VERSION; adn_cuda_sum_f64 is built in and finds no GPU here (ADN_NO_DEVICE)"
  elif diff -u <(sed 's/^sum /cuda 0 /' "$WORK/expected") "$WORK/cuda.got"; then
    echo "  $(basename "$exe"): version $VERSION; adn_cuda_sum_f64 on the GPU: ${#INPUTS[@]} sums = known answers"
  else
    fail "$exe: the GPU's sums differ from the known answers (- known, + printed)"
  fi
}

cmake_consumers() {
  local kind static
  for kind in shared static; do
    static=OFF; [ "$kind" = static ] && static=ON
    cmake -S "$SRC" -B "$WORK/cmake-$kind" -DCMAKE_PREFIX_PATH="$PREFIX" \
      -DREPROSUM_USE_STATIC_LIBS=$static -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_FLAGS="-Wall -Wextra -Werror -ffp-contract=off" \
      -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror -ffp-contract=off" > "$WORK/cmake-$kind.log" \
      || { cat "$WORK/cmake-$kind.log"; return 1; }
    cmake --build "$WORK/cmake-$kind" -j 2 > "$WORK/cmake-$kind-build.log" \
      || { cat "$WORK/cmake-$kind-build.log"; return 1; }
    echo " CMake, reprosum::reprosum $kind:"
    check_sums "$WORK/cmake-$kind/consumer" "$kind"
    check_sums "$WORK/cmake-$kind/consumer_cpp" "$kind"
    check_c_extras "$WORK/cmake-$kind/consumer" not-built
  done
}

pkg_config_consumers() {
  local d=$WORK/pc libdir
  mkdir -p "$d"
  libdir=$(pkg --variable=libdir reprosum)
  local cflags="-O2 -Wall -Wextra -Werror -ffp-contract=off"
  # shellcheck disable=SC2046 # pkg-config's output is a list of flags
  {
    gcc -std=c11 $cflags $SRC/consumer.c $(pkg --cflags --libs reprosum) -Wl,-rpath,"$libdir" -o "$d/consumer_shared"
    g++ -std=c++17 $cflags $SRC/consumer.cpp $(pkg --cflags --libs reprosum) -Wl,-rpath,"$libdir" -o "$d/consumer_cpp_shared"
    gcc -std=c11 $cflags $SRC/consumer.c $(pkg --cflags --libs reprosum-static) -o "$d/consumer_static"
    g++ -std=c++17 $cflags $SRC/consumer.cpp $(pkg --cflags --libs reprosum-static) -o "$d/consumer_cpp_static"
    # --static of reprosum.pc where only the static library is in the library folder.
    mkdir -p "$d/static-only"
    cp "$libdir/libreprosum.a" "$d/static-only/"
    gcc -std=c11 $cflags $SRC/consumer.c \
      $(pkg --define-variable=libdir="$d/static-only" --static --cflags --libs reprosum) -o "$d/consumer_static_only"
  }
  echo " pkg-config:"
  check_sums "$d/consumer_shared" shared
  check_sums "$d/consumer_cpp_shared" shared
  check_sums "$d/consumer_static" static
  check_sums "$d/consumer_cpp_static" static
  check_sums "$d/consumer_static_only" static
  check_c_extras "$d/consumer_shared" not-built
}

# The Fortran program (examples-c/consumer/consumer.f90: `use reprosum`, st = adn_sum(x, s)),
# with CMake (reprosum::fortran, shared and static) and with pkg-config (the module source
# compiled first, shared and static).
fortran_consumer() {
  local kind static
  for kind in shared static; do
    static=OFF; [ "$kind" = static ] && static=ON
    cmake -S "$SRC" -B "$WORK/cmake-f-$kind" -DCMAKE_PREFIX_PATH="$PREFIX" -DCONSUMER_FORTRAN=ON \
      -DREPROSUM_USE_STATIC_LIBS=$static -DCMAKE_BUILD_TYPE=Release > "$WORK/cmake-f-$kind.log" \
      || { cat "$WORK/cmake-f-$kind.log"; return 1; }
    cmake --build "$WORK/cmake-f-$kind" --target consumer_f > "$WORK/cmake-f-$kind-build.log" \
      || { cat "$WORK/cmake-f-$kind-build.log"; return 1; }
    echo " CMake, reprosum::fortran ($kind):"
    check_sums "$WORK/cmake-f-$kind/consumer_f" "$kind"
  done
  local d=$WORK/pc-f inc libdir
  mkdir -p "$d"
  inc=$(pkg --variable=includedir reprosum)
  libdir=$(pkg --variable=libdir reprosum)
  gfortran -O2 -c "$inc/reprosum.f90" -J "$d" -o "$d/reprosum.o"
  # shellcheck disable=SC2046
  gfortran -O2 -I "$d" $SRC/consumer.f90 "$d/reprosum.o" $(pkg --libs reprosum) -Wl,-rpath,"$libdir" -o "$d/consumer_f_shared"
  # shellcheck disable=SC2046
  gfortran -O2 -I "$d" $SRC/consumer.f90 "$d/reprosum.o" $(pkg --libs reprosum-static) -o "$d/consumer_f_static"
  echo " pkg-config, Fortran:"
  check_sums "$d/consumer_f_shared" shared
  check_sums "$d/consumer_f_static" static
}

# find_package's version checks: 0.y takes 0.y.z with z at least the requested patch only.
cmake_versions() {
  local major minor patch d=$WORK/cmake-versions
  IFS=. read -r major minor patch <<< "$VERSION"
  mkdir -p "$d"
  cat > "$d/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.19)
project(versions LANGUAGES C)
foreach(v IN ITEMS "$VERSION" "$major.$minor" "$major" "$major.$minor...$major.$((minor + 1))"
                   "$major.$((minor + 1))" "$((major + 1))" "$major.$minor.$((patch + 1))")
  find_package(reprosum \${v} CONFIG QUIET)
  message(STATUS "want \${v}: found=\${reprosum_FOUND}")
endforeach()
find_package(reprosum CONFIG QUIET COMPONENTS nonesuch)
message(STATUS "component nonesuch: found=\${reprosum_FOUND}")
CMAKE
  cmake -S "$d" -B "$d/build" -DCMAKE_PREFIX_PATH="$PREFIX" > "$d/log" || { cat "$d/log"; return 1; }
  local got want
  got=$(sed -n 's/^-- \(want .*\|component .*\)$/\1/p' "$d/log")
  if [ "$major" = 0 ]; then
    want="want $VERSION: found=1
want $major.$minor: found=1
want $major: found=1
want $major.$minor...$major.$((minor + 1)): found=1
want $major.$((minor + 1)): found=0
want $((major + 1)): found=0
want $major.$minor.$((patch + 1)): found=0
component nonesuch: found=0"
  else
    fail "cmake_versions: expectations for a version 1.0 or later are not written yet"
  fi
  [ "$got" = "$want" ] || { echo "$got"; fail "find_package's version checks (expected: $want)"; }
  echo "find_package version checks: $(echo "$got" | tr '\n' ';')"
}

# The same install built with --features cuda into a second prefix: the same files, and the C
# consumer's adn_cuda_sum_f64 is built in (no GPU here: ADN_NO_DEVICE; with one: the bits).
cuda_install() {
  local p=$WORK/prefix-cuda
  bash ffi/install.sh --prefix "$p" --features cuda
  installed_files "$p"
  local pc=$p/lib/pkgconfig libdir=$p/lib d=$WORK/cuda
  mkdir -p "$d"
  # shellcheck disable=SC2046
  gcc -std=c11 -O2 -Wall -Wextra -Werror $SRC/consumer.c $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs reprosum) \
    -Wl,-rpath,"$libdir" -o "$d/consumer_shared"
  # shellcheck disable=SC2046
  gcc -std=c11 -O2 -Wall -Wextra -Werror $SRC/consumer.c $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs reprosum-static) \
    -o "$d/consumer_static"
  echo " --features cuda, pkg-config (static libraries: $(PKG_CONFIG_PATH=$pc pkg-config --static --libs-only-l reprosum | sed "s/ *$//")):"
  local save=$PREFIX
  PREFIX=$p
  check_sums "$d/consumer_shared" shared
  check_sums "$d/consumer_static" static
  check_c_extras "$d/consumer_shared" built
  check_c_extras "$d/consumer_static" built
  PREFIX=$save
}

CHECKED=0
step tools install_tools
step expectations expectations
step inputs known_answer_inputs
# The CUDA build first, so that target/release holds the default build afterwards.
step cuda cuda_install
step install install_lib
step installed-files installed_files "$PREFIX"
step pkg-config-files pkg_config_files
step cmake-versions cmake_versions
step cmake cmake_consumers
step pkg-config pkg_config_consumers
step fortran fortran_consumer
echo "--- install: $CHECKED programs x ${#INPUTS[@]} known answers: $CHECKED passed, 0 failed"
echo "--- install: all passed in $(( $(date +%s) - install_start ))s"
