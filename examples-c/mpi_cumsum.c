/*
 * A distributed reproducible sum and cumulative sum with include/reprosum_mpi.h: each rank
 * holds a block of an array; adn_mpi_sum_f64 gives every rank the sum of the whole array,
 * adn_mpi_cumsum_f64 each rank its block of the whole array's cumulative sum. The bits are the
 * single-process ones for any number of ranks and any split.
 *
 *   mpicc -std=c11 -O2 -ffp-contract=off -Iinclude -Iexamples-c examples-c/mpi_cumsum.c \
 *         target/release/libreprosum.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o mpi_cumsum
 *   mpirun -n 4 ./mpi_cumsum
 *
 * The array is SyclReproSum's "double, 1M wide-range" input, and (float)(x * 1e-9) of it.
 * Every rank generates it, to compare with the single-process results; a real code would
 * hold its block only. For two splits (even blocks; blocks growing as (r/p)^2) rank 0 prints
 *   mpi_cumsum lang=c ranks=P split=NAME sum_f64=HEX sum_f64_k2=HEX sum_f32=HEX
 *              cumsum_f64=HEX cumsum_f32=HEX OK
 * (one line), where a cumulative sum's HEX is the XOR over all elements i (0-based, global)
 * of the element's bits rotated left by i mod 64 (a float's bits zero-extended first), and
 * exits non-zero if any sum or any element differs from the single-process result, or the
 * double sum from the known answer 0x430FC878C605717F. examples-fortran/mpi_sum.f90 prints
 * the same line with lang=fortran; .ci/mpi.sh compares the two.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "mt19937.h"
#include "reprosum_mpi.h"

static void check(adn_status s, const char *what) {
    if (s != ADN_OK) {
        fprintf(stderr, "%s: %s\n", what, adn_status_string(s));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static uint64_t rotl(uint64_t b, size_t i) {
    unsigned s = (unsigned)(i % 64);
    return s ? (b << s) | (b >> (64 - s)) : b;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const size_t n = WIDE_RANGE_LEN;
    double *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    float *xf = malloc(n * sizeof *xf), *wantf = malloc(n * sizeof *wantf), *gotf = malloc(n * sizeof *gotf);
    if (!x || !want || !got || !xf || !wantf || !gotf) MPI_Abort(MPI_COMM_WORLD, 2);
    wide_range_fill(x, n);
    for (size_t i = 0; i < n; i++) xf[i] = (float)(x[i] * 1e-9);

    /* The single-process results. */
    double sum64, sum64k2;
    float sum32;
    check(adn_sum_f64(x, n, &sum64), "sum");
    check(adn_sum_f64_fold(x, n, 2, &sum64k2), "sum k2");
    check(adn_sum_f32(xf, n, &sum32), "sum f32");
    check(adn_cumsum_f64(x, want, n), "cumsum");
    check(adn_cumsum_f32(xf, wantf, n), "cumsum f32");
    int bad = f64_to_bits(sum64) != WIDE_RANGE_SUM_BITS;

    const char *splits[] = {"even", "square"};
    for (int sp = 0; sp < 2; sp++) {
        size_t lo, hi;
        if (sp == 0) {
            lo = n * (size_t)rank / (size_t)size;
            hi = n * (size_t)(rank + 1) / (size_t)size;
        } else { /* boundaries at n (r/p)^2, in integers */
            lo = (size_t)((uint64_t)n * (uint64_t)rank * (uint64_t)rank / ((uint64_t)size * (uint64_t)size));
            hi = (size_t)((uint64_t)n * (uint64_t)(rank + 1) * (uint64_t)(rank + 1) /
                          ((uint64_t)size * (uint64_t)size));
        }
        size_t m = hi - lo;

        /* The distributed ones: this rank passes its block only. */
        double s64, s64k2;
        float s32;
        check(adn_mpi_sum_f64(x + lo, m, 3, &s64, MPI_COMM_WORLD), "adn_mpi_sum_f64");
        check(adn_mpi_sum_f64(x + lo, m, 2, &s64k2, MPI_COMM_WORLD), "adn_mpi_sum_f64 k2");
        check(adn_mpi_sum_f32(xf + lo, m, 3, &s32, MPI_COMM_WORLD), "adn_mpi_sum_f32");
        check(adn_mpi_cumsum_f64(x + lo, got + lo, m, 3, MPI_COMM_WORLD), "adn_mpi_cumsum_f64");
        check(adn_mpi_cumsum_f32(xf + lo, gotf + lo, m, 3, MPI_COMM_WORLD), "adn_mpi_cumsum_f32");

        int ok = f64_to_bits(s64) == f64_to_bits(sum64) && f64_to_bits(s64k2) == f64_to_bits(sum64k2) &&
                 f32_to_bits(s32) == f32_to_bits(sum32);
        uint64_t h[2] = {0, 0}, hall[2];
        for (size_t i = lo; i < hi; i++) {
            ok &= f64_to_bits(got[i]) == f64_to_bits(want[i]) && f32_to_bits(gotf[i]) == f32_to_bits(wantf[i]);
            h[0] ^= rotl(f64_to_bits(got[i]), i);
            h[1] ^= rotl(f32_to_bits(gotf[i]), i);
        }
        int all_ok;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        MPI_Allreduce(h, hall, 2, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
        if (rank == 0)
            printf("mpi_cumsum lang=c ranks=%d split=%s sum_f64=%016" PRIX64 " sum_f64_k2=%016" PRIX64
                   " sum_f32=%08" PRIX32 " cumsum_f64=%016" PRIX64 " cumsum_f32=%016" PRIX64 " %s\n",
                   size, splits[sp], f64_to_bits(s64), f64_to_bits(s64k2), f32_to_bits(s32), hall[0], hall[1],
                   all_ok ? "OK" : "MISMATCH");
        bad |= !all_ok;
    }
    free(x);
    free(want);
    free(got);
    free(xf);
    free(wantf);
    free(gotf);
    MPI_Finalize();
    return bad ? 1 : 0;
}
