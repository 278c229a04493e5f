#!/usr/bin/env bash
# The C library's sum beside ReproBLAS 2.1.0's (ffi/bench/reproblas.c), one thread, at
# N = 1e7 and 1e5. ReproBLAS is a bench-only baseline and never part of the repository:
# give the root of a ReproBLAS tree built outside it (its `make`, with
# OPTFLAGS := -O3 -march=native in config.mk for its AVX kernels; see docs/PERFORMANCE.md).
# Without one this prints that it is skipped.
#   bash ffi/bench/reproblas.sh [REPROBLAS_DIR] [ROUNDS] [FOLDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rb=${1:-${REPROBLAS_DIR:-}}
if [ -z "$rb" ] || [ ! -f "$rb/include/reproBLAS.h" ]; then
  echo "reproblas bench skipped: no ReproBLAS build given (bash ffi/bench/reproblas.sh /path/to/ReproBLAS)"
  exit 0
fi
lib=$(find "$rb/build" -path '*src/reproBLAS/obj/libreproblas.a' | head -1)
blas=$(dirname "$(dirname "$(dirname "$lib")")")/binnedBLAS/obj/libbinnedblas.a
binned=$(dirname "$(dirname "$(dirname "$lib")")")/binned/obj/libbinned.a
cargo build -p reprosum-ffi --release --locked --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -std=c11 -O3 -march=native -ffp-contract=off -Iinclude -I"$rb/include" ffi/bench/reproblas.c \
  "${CARGO_TARGET_DIR:-target}/release/libreprosum.a" -Wl,--start-group "$lib" "$blas" "$binned" -Wl,--end-group \
  -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o "$dir/reproblas"
for n in 1e7 1e5; do "$dir/reproblas" "$n" "${2:-15}" "${3:-3,6,8}"; done
