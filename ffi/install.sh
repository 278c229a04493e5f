#!/usr/bin/env bash
# Installs libreprosum under a prefix for C, C++ and Fortran programs, with its pkg-config and
# CMake files:
#
#   bash ffi/install.sh --prefix DIR [--features cuda]     (features: cuda, hip, "cuda hip")
#
#   DIR/lib/libreprosum.a
#   DIR/lib/libreprosum.so.X.Y.Z           the shared library; its SONAME (ffi/build.rs) is
#   DIR/lib/libreprosum.so.SOVER -> it     libreprosum.so.0.Y while X is 0 (cargo-c's rule),
#   DIR/lib/libreprosum.so -> SOVER link   libreprosum.so.X after
#   DIR/include/...                        INCLUDE_FILES below
#   DIR/lib/pkgconfig/reprosum.pc          -lreprosum (the shared library); --static adds the
#                                          system libraries of the static one
#   DIR/lib/pkgconfig/reprosum-static.pc   the static library by its path, and those libraries
#   DIR/lib/cmake/reprosum/reprosumConfig.cmake, reprosumConfigVersion.cmake
#                                          find_package(reprosum CONFIG): reprosum::reprosum,
#                                          reprosum::shared, reprosum::static, reprosum::fortran
#
# It builds with cargo (release, --locked, CARGO_TARGET_DIR respected), copies the two
# libraries and the headers, and fills in the templates of ffi/dist/ with the version, the
# SONAME and the system libraries rustc reports for the static library (--print
# native-static-libs). Installing again over the same prefix replaces the files. A build with
# --features cuda installs the same files; its adn_cuda_* entry points then work.
# Why a script and not cargo-c: README.md, "Installing".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# The files of include/ that are installed, one a line. .ci/install.sh fails when include/
# holds a file that is not listed here.
INCLUDE_FILES=(
  reprosum.h
  reprosum.hpp
  reprosum_mpi.h
  reprosum.f90
)

usage() {
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-0}"
}

PREFIX=
FEATURES=
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || usage 2; PREFIX=$2; shift 2 ;;
    --prefix=*) PREFIX=${1#--prefix=}; shift ;;
    --features) [ $# -ge 2 ] || usage 2; FEATURES=$2; shift 2 ;;
    --features=*) FEATURES=${1#--features=}; shift ;;
    -h | --help) usage 0 ;;
    *) echo "install.sh: unknown argument '$1'" >&2; usage 2 ;;
  esac
done
[ -n "$PREFIX" ] || { echo "install.sh: --prefix DIR is required" >&2; usage 2; }
case $PREFIX in
  *[[:cntrl:]]* | *'|'* | *'@'*) echo "install.sh: the prefix has a character these files cannot hold: '$PREFIX'" >&2; exit 2 ;;
esac
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)

cd "$ROOT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The version (the workspace's, which the crate inherits): "path+file:///...#reprosum-ffi@X.Y.Z".
VERSION=$(cargo pkgid -p reprosum-ffi --locked | sed 's/.*[#@]//')
case $VERSION in
  [0-9]*.[0-9]*.[0-9]*) ;;
  *) echo "install.sh: cannot read the version (cargo pkgid: '$VERSION')" >&2; exit 1 ;;
esac

# Both library types in one build; the note rustc prints names the system libraries.
echo "install.sh: building libreprosum $VERSION (release${FEATURES:+, features: $FEATURES})"
if ! cargo rustc -p reprosum-ffi --release --locked ${FEATURES:+--features "$FEATURES"} \
  --crate-type staticlib --crate-type cdylib --message-format=json-render-diagnostics \
  -- --print native-static-libs > "$WORK/build.json" 2> "$WORK/build.log"; then
  cat "$WORK/build.log" >&2
  exit 1
fi
artifact() { grep '"reason":"compiler-artifact"' "$WORK/build.json" | grep -o "\"[^\"]*/$1\"" | tr -d '"' | tail -1; }
STATIC=$(artifact libreprosum.a)
SHARED=$(artifact libreprosum.so)
NATIVE_LIBS=$(sed -n 's/.*native-static-libs: //p' "$WORK/build.log" | tail -1)
[ -f "$STATIC" ] && [ -f "$SHARED" ] || { echo "install.sh: cargo reported no libreprosum.a / libreprosum.so" >&2; cat "$WORK/build.log" >&2; exit 1; }
[ -n "$NATIVE_LIBS" ] || { echo "install.sh: rustc printed no native-static-libs" >&2; cat "$WORK/build.log" >&2; exit 1; }

SONAME=$(readelf -d "$SHARED" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
SOVER=${SONAME#libreprosum.so.}
if [ "$SONAME" = "$SOVER" ] || { [ "$VERSION" != "$SOVER" ] && [ "${VERSION#"$SOVER".}" = "$VERSION" ]; }; then
  echo "install.sh: $SHARED has SONAME '$SONAME', not libreprosum.so.<part of $VERSION> (ffi/build.rs)" >&2
  exit 1
fi
POINTER_BITS=$(${RUSTC:-rustc} --print cfg | sed -n 's/^target_pointer_width="\(.*\)"$/\1/p')
NATIVE_LIBS_CMAKE=
for w in $NATIVE_LIBS; do NATIVE_LIBS_CMAKE="$NATIVE_LIBS_CMAKE${NATIVE_LIBS_CMAKE:+ }${w#-l}"; done

lib=$PREFIX/lib
install -d "$lib/pkgconfig" "$lib/cmake/reprosum" "$PREFIX/include"
install -m 644 "$STATIC" "$lib/libreprosum.a"
install -m 755 "$SHARED" "$lib/libreprosum.so.$VERSION"
[ "$SONAME" = "libreprosum.so.$VERSION" ] || ln -sfn "libreprosum.so.$VERSION" "$lib/$SONAME"
ln -sfn "$SONAME" "$lib/libreprosum.so"
for f in "${INCLUDE_FILES[@]}"; do
  install -m 644 "include/$f" "$PREFIX/include/$f"
done

# The templates' @NAME@ fields. None of the values can hold '|' (checked above).
fill() {
  sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" -e "s|@SONAME@|$SONAME|g" \
    -e "s|@NATIVE_LIBS@|$NATIVE_LIBS|g" -e "s|@NATIVE_LIBS_CMAKE@|$NATIVE_LIBS_CMAKE|g" \
    -e "s|@POINTER_BYTES@|$((POINTER_BITS / 8))|g" "ffi/dist/$1" > "$WORK/out"
  if grep -n '@[A-Z_]*@' "$WORK/out"; then echo "install.sh: unfilled field in ffi/dist/$1" >&2; exit 1; fi
  install -m 644 "$WORK/out" "$2"
}
fill reprosum.pc.in "$lib/pkgconfig/reprosum.pc"
fill reprosum-static.pc.in "$lib/pkgconfig/reprosum-static.pc"
fill reprosumConfig.cmake.in "$lib/cmake/reprosum/reprosumConfig.cmake"
fill reprosumConfigVersion.cmake.in "$lib/cmake/reprosum/reprosumConfigVersion.cmake"

echo "install.sh: installed libreprosum $VERSION (SONAME $SONAME) under $PREFIX"
echo "  static library's system libraries: $NATIVE_LIBS"
echo "  pkg-config: PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --cflags --libs reprosum"
echo "  CMake:      cmake -DCMAKE_PREFIX_PATH=$PREFIX ...  find_package(reprosum CONFIG REQUIRED)"
