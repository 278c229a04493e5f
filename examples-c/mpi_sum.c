/*
 * A distributed reproducible sum with MPI: each rank adds its part of an array to an
 * accumulator, and MPI_Allreduce merges the accumulators with a user operation. Every rank
 * count and every split of the array gives the bits of the single-process sum.
 *
 *   mpicc -std=c11 -O2 -ffp-contract=off -Iinclude -Iexamples-c examples-c/mpi_sum.c \
 *         target/release/libreprosum.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o mpi_sum
 *   mpirun -n 4 ./mpi_sum
 *
 * The array is SyclReproSum's "double, 1M wide-range" input (every rank generates it; a
 * real code would read its own part). For each split (even blocks, blocks of very
 * different sizes, all on the last rank, round-robin) rank 0 prints one line
 *   mpi ranks=P split=NAME f64=HEX f64_k2=HEX f32=HEX bytes_route=HEX OK
 * and the program exits non-zero if any result differs from the single-process sum or
 * from the known answer 0x430FC878C605717F.
 */
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt19937.h"
#include "reprosum.h"

static void die(adn_status s, const char *what) {
    fprintf(stderr, "%s: %s\n", what, adn_status_string(s));
    MPI_Abort(MPI_COMM_WORLD, 2);
}

#define CALL(x)                                   \
    do {                                          \
        adn_status s_ = (x);                      \
        if (s_ != ADN_OK) die(s_, #x);            \
    } while (0)

/* The reduction: inout[i] += in[i], for each of the len accumulators. Merging is exact,
 * so the operation is commutative and associative, and MPI may use any reduction tree. */
static void merge_f64(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    adn_acc_f64 *a = inout;
    const adn_acc_f64 *b = in;
    for (int i = 0; i < *len; i++) CALL(adn_acc_f64_merge(&a[i], &b[i]));
}

static void merge_f32(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    adn_acc_f32 *a = inout;
    const adn_acc_f32 *b = in;
    for (int i = 0; i < *len; i++) CALL(adn_acc_f32_merge(&a[i], &b[i]));
}

enum split { EVEN, SKEWED, LAST_ONLY, ROUND_ROBIN, NSPLITS };
static const char *split_names[NSPLITS] = {"even", "skewed", "last-only", "round-robin"};

/* The block [lo, hi) of rank r of p for a contiguous split of n. */
static void block(enum split s, size_t n, int r, int p, size_t *lo, size_t *hi) {
    if (s == EVEN) { /* sizes differ by at most one; n need not divide */
        *lo = n * (size_t)r / (size_t)p;
        *hi = n * (size_t)(r + 1) / (size_t)p;
    } else if (s == SKEWED) { /* boundaries at n * (r/p)^3: rank 0 tiny, the last huge */
        double a = (double)r / p, b = (double)(r + 1) / p;
        *lo = (size_t)((double)n * a * a * a);
        *hi = r + 1 == p ? n : (size_t)((double)n * b * b * b);
    } else { /* LAST_ONLY */
        *lo = r + 1 == p ? 0 : n;
        *hi = n;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const size_t n = WIDE_RANGE_LEN;
    double *x = malloc(n * sizeof *x);
    float *xf = malloc(n * sizeof *xf);
    if (!x || !xf) MPI_Abort(MPI_COMM_WORLD, 2);
    wide_range_fill(x, n);
    for (size_t i = 0; i < n; i++) xf[i] = (float)(x[i] * 1e-9); /* a float input too */

    /* The accumulators travel as opaque bytes: one element of a contiguous byte type, so
     * no reduction ever splits one. */
    MPI_Datatype t64, t32;
    MPI_Type_contiguous((int)sizeof(adn_acc_f64), MPI_BYTE, &t64);
    MPI_Type_contiguous((int)sizeof(adn_acc_f32), MPI_BYTE, &t32);
    MPI_Type_commit(&t64);
    MPI_Type_commit(&t32);
    MPI_Op op64, op32;
    MPI_Op_create(merge_f64, 1 /* commutative */, &op64);
    MPI_Op_create(merge_f32, 1, &op32);

    /* The single-process answers. */
    double want64, want64k2;
    float want32;
    CALL(adn_sum_f64(x, n, &want64));
    CALL(adn_sum_f64_fold(x, n, 2, &want64k2));
    CALL(adn_sum_f32(xf, n, &want32));
    int bad = f64_to_bits(want64) != WIDE_RANGE_SUM_BITS;

    for (int s = 0; s < NSPLITS; s++) {
        /* Two double accumulators (folds 3 and 2) in one reduction of count 2. */
        adn_acc_f64 acc[2], res[2];
        adn_acc_f32 accf, resf;
        CALL(adn_acc_f64_init(&acc[0], 3));
        CALL(adn_acc_f64_init(&acc[1], 2));
        CALL(adn_acc_f32_init(&accf, 3));
        if (s == ROUND_ROBIN) { /* every size-th value, one at a time */
            for (size_t i = (size_t)rank; i < n; i += (size_t)size) {
                CALL(adn_acc_f64_add(&acc[0], x[i]));
                CALL(adn_acc_f64_add(&acc[1], x[i]));
                CALL(adn_acc_f32_add(&accf, xf[i]));
            }
        } else {
            size_t lo, hi;
            block((enum split)s, n, rank, size, &lo, &hi);
            CALL(adn_acc_f64_add_array(&acc[0], x + lo, hi - lo));
            CALL(adn_acc_f64_add_array(&acc[1], x + lo, hi - lo));
            CALL(adn_acc_f32_add_array(&accf, xf + lo, hi - lo));
        }
        MPI_Allreduce(acc, res, 2, t64, op64, MPI_COMM_WORLD);
        MPI_Allreduce(&accf, &resf, 1, t32, op32, MPI_COMM_WORLD);
        double got64, got64k2;
        float got32;
        CALL(adn_acc_f64_value(&res[0], &got64));
        CALL(adn_acc_f64_value(&res[1], &got64k2));
        CALL(adn_acc_f32_value(&resf, &got32));

        /* The portable route: gather each rank's byte encoding on rank 0 and merge there. */
        uint8_t mine[ADN_ACC_ENCODED_MAX];
        size_t len;
        CALL(adn_acc_f64_to_bytes(&acc[0], mine, sizeof mine, &len));
        uint8_t *all = rank == 0 ? malloc(len * (size_t)size) : NULL;
        MPI_Gather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
        double got_bytes = 0;
        if (rank == 0) {
            adn_acc_f64 total, part;
            CALL(adn_acc_f64_init(&total, 3));
            for (int r = size - 1; r >= 0; r--) {
                CALL(adn_acc_f64_from_bytes(&part, all + (size_t)r * len, len));
                CALL(adn_acc_f64_merge(&total, &part));
            }
            CALL(adn_acc_f64_value(&total, &got_bytes));
            free(all);
        }

        int ok = f64_to_bits(got64) == f64_to_bits(want64) && f64_to_bits(got64k2) == f64_to_bits(want64k2) &&
                 f32_to_bits(got32) == f32_to_bits(want32) &&
                 (rank != 0 || f64_to_bits(got_bytes) == f64_to_bits(want64));
        int all_ok;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("mpi ranks=%d split=%s f64=%016" PRIX64 " f64_k2=%016" PRIX64 " f32=%08" PRIX32
                   " bytes_route=%016" PRIX64 " %s\n",
                   size, split_names[s], f64_to_bits(got64), f64_to_bits(got64k2), f32_to_bits(got32),
                   f64_to_bits(got_bytes), all_ok ? "OK" : "MISMATCH");
            if (!all_ok)
                printf("  expected f64=%016" PRIX64 " f64_k2=%016" PRIX64 " f32=%08" PRIX32 "\n",
                       f64_to_bits(want64), f64_to_bits(want64k2), f32_to_bits(want32));
        }
        bad |= !all_ok;
    }
    if (rank == 0 && f64_to_bits(want64) != WIDE_RANGE_SUM_BITS)
        printf("single-process sum %016" PRIX64 " is not the known answer %016" PRIX64 "\n",
               f64_to_bits(want64), WIDE_RANGE_SUM_BITS);

    MPI_Op_free(&op64);
    MPI_Op_free(&op32);
    MPI_Type_free(&t64);
    MPI_Type_free(&t32);
    free(x);
    free(xf);
    MPI_Finalize();
    return bad ? 1 : 0;
}
