/*
 * Tests of include/reprosum_mpi.h, run by .ci/mpi.sh at 1, 2, 3, 4 and 8 ranks:
 *
 *   mpicc -std=c11 -O1 -Wall -Wextra -Werror -ffp-contract=off -Iinclude -Iexamples-c \
 *         ffi/tests/c/test_mpi.c target/release/libreprosum.a \
 *         -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o test_mpi
 *   mpirun -n 4 ./test_mpi
 *
 * Every rank computes the one-process results of the whole array (adn_sum_f64_fold,
 * adn_cumsum_f64_fold) and compares the distributed ones with them bit for bit: sums on every
 * rank, every element of every rank's cumulative-sum slice (into a fresh output and in place),
 * f64 and f32, folds 2, 3, 5, 8 and the largest, for splits with uneven and empty shards, on
 * two data sets (wide exponent range; NaN, infinities, overflow, subnormals). Then the bad
 * arguments (each status equal to the one-process function's for the same arguments, on every
 * rank, output untouched), one rank's bad argument or fold seen by all, the capacity of all
 * ranks together, MPI errors, the datatypes and operations used directly (MPI_Allreduce,
 * MPI_Scan), the poisoning of failed merges, sub-communicators, and that MPI_Finalize frees
 * the cached handles. Rank 0 prints "test_mpi ranks=P: N passed, 0 failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test_util.h"

/* The distributed sums and cumulative sums of one data set against the one-process ones. */
static void check_data(const char *set, const double *x, const float *y, size_t n) {
    const unsigned folds64[] = {2, 3, 5, 8, ADN_MAX_FOLD_F64}, folds32[] = {2, 3, 5, 8, ADN_MAX_FOLD_F32};
    double *want64 = malloc(n * sizeof *want64), *got64 = malloc(n * sizeof *got64);
    float *want32 = malloc(n * sizeof *want32), *got32 = malloc(n * sizeof *got32);
    char what[200];
    size_t where = 0;
    for (int fi = 0; fi < 5; fi++) {
        unsigned k64 = folds64[fi], k32 = folds32[fi];
        double sum64, s;
        float sum32, t;
        expect(adn_sum_f64_fold(x, n, k64, &sum64) == ADN_OK, "one-process sum f64", k64);
        expect(adn_sum_f32_fold(y, n, k32, &sum32) == ADN_OK, "one-process sum f32", k32);
        expect(adn_cumsum_f64_fold(x, want64, n, k64) == ADN_OK, "one-process cumsum f64", k64);
        expect(adn_cumsum_f32_fold(y, want32, n, k32) == ADN_OK, "one-process cumsum f32", k32);
        /* The last prefix is the sum (NaN aside: a NaN's bits are the library's one NaN). */
        expect(f64_to_bits(want64[n - 1]) == f64_to_bits(sum64), "cumsum f64 ends at the sum", k64);
        for (int sp = 0; sp < NSPLITS; sp++) {
            size_t lo, hi;
            block(sp, n, rank, nranks, &lo, &hi);
            size_t m = hi - lo;
            snprintf(what, sizeof what, "%s split=%s fold=%u/%u", set, split_names[sp], k64, k32);

            s = -1.0;
            adn_status st = adn_mpi_sum_f64(x + lo, m, k64, &s, MPI_COMM_WORLD);
            expect(st == ADN_OK && f64_to_bits(s) == f64_to_bits(sum64), what, st);
            t = -1.0f;
            st = adn_mpi_sum_f32(y + lo, m, k32, &t, MPI_COMM_WORLD);
            expect(st == ADN_OK && f32_to_bits(t) == f32_to_bits(sum32), what, st);

            /* A NULL array when empty, as the one-process functions allow. */
            const double *xs = m ? x + lo : NULL;
            for (size_t i = 0; i < m; i++) got64[lo + i] = -7.0;
            st = adn_mpi_cumsum_f64(xs, m ? got64 + lo : NULL, m, k64, MPI_COMM_WORLD);
            expect(st == ADN_OK && same_bits64(got64 + lo, want64 + lo, m, &where), what, st ? (long)st : (long)(lo + where));
            for (size_t i = 0; i < m; i++) got32[lo + i] = -7.0f;
            st = adn_mpi_cumsum_f32(y + lo, got32 + lo, m, k32, MPI_COMM_WORLD);
            expect(st == ADN_OK && same_bits32(got32 + lo, want32 + lo, m, &where), what, st ? (long)st : (long)(lo + where));

            /* In place. */
            memcpy(got64 + lo, x + lo, m * sizeof *x);
            st = adn_mpi_cumsum_f64(got64 + lo, got64 + lo, m, k64, MPI_COMM_WORLD);
            expect(st == ADN_OK && same_bits64(got64 + lo, want64 + lo, m, &where), what, st ? (long)st : (long)(lo + where));
            memcpy(got32 + lo, y + lo, m * sizeof *y);
            st = adn_mpi_cumsum_f32(got32 + lo, got32 + lo, m, k32, MPI_COMM_WORLD);
            expect(st == ADN_OK && same_bits32(got32 + lo, want32 + lo, m, &where), what, st ? (long)st : (long)(lo + where));
        }
    }
    free(want64);
    free(got64);
    free(want32);
    free(got32);
}

/* Bad arguments on every rank: the one-process function's status, outputs untouched. */
static void check_bad_arguments(const double *x, const float *y) {
    /* Buffers for misaligned pointers (char storage at an odd offset) and overlaps. */
    static double buf[64];
    static float buff[64];
    const double *mis = (const double *)(const void *)((const char *)buf + 1);
    const float *misf = (const float *)(const void *)((const char *)buff + 2);
    double *mis_out = (double *)(void *)((char *)buf + 3);
    double out, sentinel = -123.5;
    float outf;
    size_t huge = (size_t)PTRDIFF_MAX / 4; /* n * 8 overflows isize */
    struct sum_case {
        const char *name;
        const double *x;
        size_t n;
        unsigned fold;
        double *out;
    } sums[] = {
        {"out NULL", x, 4, 3, NULL},
        {"out misaligned", x, 4, 3, mis_out},
        {"fold 0", x, 4, 0, &out},
        {"fold 1", x, 4, 1, &out},
        {"fold 53", x, 4, 53, &out},
        {"x NULL", NULL, 4, 3, &out},
        {"x misaligned", mis, 4, 3, &out},
        {"n past the capacity", x, (size_t)ADN_CAPACITY_F64 + 1, 3, &out},
        {"n bytes past isize", x, huge, 3, &out},
        {"n bytes wrap the address space", (const double *)(uintptr_t)(UINTPTR_MAX - 7), 2, 3, &out},
        {"out NULL and fold 0 (out first)", x, 4, 0, NULL},
        {"fold 0 and x NULL (fold first)", NULL, 4, 0, &out},
    };
    char what[200];
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        double o1 = sentinel, o2 = sentinel;
        struct sum_case c = sums[i];
        double *o_lib = c.out == &out ? &o1 : c.out, *o_mpi = c.out == &out ? &o2 : c.out;
        adn_status lib = adn_sum_f64_fold(c.x, c.n, c.fold, o_lib);
        adn_status st = adn_mpi_sum_f64(c.x, c.n, c.fold, o_mpi, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "sum f64 %s: library %d", c.name, lib);
        expect(lib != ADN_OK, what, lib);
        expect_all(st, lib, what);
        expect(f64_to_bits(o2) == f64_to_bits(sentinel), "sum output untouched", 0);
        /* The device variant checks the host-side arguments the same way. */
        st = adn_mpi_cuda_sum_f64(c.x, c.n, c.fold, o_mpi, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "cuda sum f64 %s", c.name);
        expect_all(st, lib, what);
    }
    /* f32: fold 22, and n past the f32 capacity (a length an array could have). */
    struct {
        const char *name;
        const float *x;
        size_t n;
        unsigned fold;
        float *out;
    } sums32[] = {
        {"fold 22", y, 4, 22, &outf},
        {"n past the capacity", y, (size_t)ADN_CAPACITY_F32 + 1, 3, &outf},
        {"x misaligned", misf, 4, 3, &outf},
        {"out NULL", y, 4, 3, NULL},
    };
    for (size_t i = 0; i < sizeof sums32 / sizeof sums32[0]; i++) {
        adn_status lib = adn_sum_f32_fold(sums32[i].x, sums32[i].n, sums32[i].fold, sums32[i].out);
        adn_status st = adn_mpi_sum_f32(sums32[i].x, sums32[i].n, sums32[i].fold, sums32[i].out, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "sum f32 %s: library %d", sums32[i].name, lib);
        expect(lib != ADN_OK, what, lib);
        expect_all(st, lib, what);
        st = adn_mpi_cuda_sum_f32(sums32[i].x, sums32[i].n, sums32[i].fold, sums32[i].out, MPI_COMM_WORLD);
        expect_all(st, lib, what);
    }

    /* Cumulative sums. buf[0..8) holds values, outputs at other offsets of buf overlap. */
    for (int i = 0; i < 64; i++) buf[i] = i;
    double *o = buf + 32;
    struct cumsum_case {
        const char *name;
        const double *in;
        double *out;
        size_t n;
        unsigned fold;
    } cums[] = {
        {"in NULL", NULL, o, 4, 3},
        {"out NULL", buf, NULL, 4, 3},
        {"fold 1", buf, o, 4, 1},
        {"fold 53", buf, o, 4, 53},
        {"in misaligned", mis, o, 4, 3},
        {"out misaligned", buf, mis_out + 32, 4, 3},
        {"overlap, out after in", buf, buf + 1, 4, 3},
        {"overlap, out before in", buf + 2, buf, 4, 3},
        {"n past the capacity", buf, o, (size_t)ADN_CAPACITY_F64 + 1, 3},
        {"n bytes past isize", buf, o, huge, 3},
        {"out NULL and fold 1 (NULL first)", buf, NULL, 4, 1},
        {"fold 1 and in misaligned (fold first)", mis, o, 4, 1},
        {"in misaligned and overlap (alignment first)", mis, buf, 4, 3},
    };
    for (size_t i = 0; i < sizeof cums / sizeof cums[0]; i++) {
        struct cumsum_case c = cums[i];
        double snapshot[64];
        memcpy(snapshot, buf, sizeof buf);
        adn_status lib = adn_cumsum_f64_fold(c.in, c.out, c.n, c.fold);
        adn_status st = adn_mpi_cumsum_f64(c.in, c.out, c.n, c.fold, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "cumsum f64 %s: library %d", c.name, lib);
        expect(lib != ADN_OK, what, lib);
        expect_all(st, lib, what);
        expect(memcmp(snapshot, buf, sizeof buf) == 0, "cumsum output untouched", (long)i);
        st = adn_mpi_cuda_cumsum_f64(c.in, c.out, c.n, c.fold, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "cuda cumsum f64 %s", c.name);
        expect_all(st, lib, what);
        expect(memcmp(snapshot, buf, sizeof buf) == 0, "cuda cumsum output untouched", (long)i);
    }
    {
        float *of = buff + 32;
        adn_status lib = adn_cumsum_f32_fold(buff, buff + 1, 4, 3);
        expect(lib == ADN_OVERLAP, "cumsum f32 overlap: library", lib);
        expect_all(adn_mpi_cumsum_f32(buff, buff + 1, 4, 3, MPI_COMM_WORLD), lib, "cumsum f32 overlap");
        lib = adn_cumsum_f32_fold(buff, of, 4, 22);
        expect(lib == ADN_INVALID_FOLD, "cumsum f32 fold 22: library", lib);
        expect_all(adn_mpi_cumsum_f32(buff, of, 4, 22, MPI_COMM_WORLD), lib, "cumsum f32 fold 22");
        lib = adn_cumsum_f32_fold(misf, of, 4, 3);
        expect(lib == ADN_MISALIGNED, "cumsum f32 misaligned: library", lib);
        expect_all(adn_mpi_cumsum_f32(misf, of, 4, 3, MPI_COMM_WORLD), lib, "cumsum f32 misaligned");
        expect_all(adn_mpi_cuda_cumsum_f32(misf, of, 4, 3, MPI_COMM_WORLD), lib, "cuda cumsum f32 misaligned");
    }
    /* Empty arrays with NULL pointers are fine, as for one process. */
    out = -1.0;
    expect_all(adn_mpi_sum_f64(NULL, 0, 3, &out, MPI_COMM_WORLD), ADN_OK, "empty sum everywhere");
    expect(f64_to_bits(out) == 0, "the empty sum is +0.0", 0);
    expect_all(adn_mpi_cumsum_f64(NULL, NULL, 0, 3, MPI_COMM_WORLD), ADN_OK, "empty cumsum everywhere");
}

/* One rank's bad argument, different folds, the capacity of all ranks together. */
static void check_agreement(const double *x, const float *y) {
    double out = -1.0, sentinel = -1.0, cum[8];
    adn_status st;
    if (nranks < 2) {
        /* One rank: n past the f32 capacity is a local error; nothing else to agree on. */
        st = adn_mpi_sum_f32(y, (size_t)ADN_CAPACITY_F32 + 1, 3, (float *)(void *)&out, MPI_COMM_WORLD);
        expect_all(st, ADN_CAPACITY_EXCEEDED, "one rank past the capacity");
        return;
    }
    int last = nranks - 1;
    /* The last rank passes NULL for out: every rank returns ADN_NULL_POINTER. */
    st = adn_mpi_sum_f64(x, 4, 3, rank == last ? NULL : &out, MPI_COMM_WORLD);
    expect_all(st, ADN_NULL_POINTER, "the last rank's NULL out");
    expect(f64_to_bits(out) == f64_to_bits(sentinel), "no output on the good ranks", 0);
    /* Rank 0 an invalid fold (3), the last rank a NULL (1): the smaller code everywhere. */
    st = adn_mpi_sum_f64(x, 4, rank == 0 ? 99 : 3, rank == last ? NULL : &out, MPI_COMM_WORLD);
    expect_all(st, ADN_NULL_POINTER, "two bad ranks: the smaller status");
    st = adn_mpi_cumsum_f64(x, rank == last ? (double *)(uintptr_t)x + 1 : cum, 4, rank == 0 ? 99 : 3,
                            MPI_COMM_WORLD);
    expect_all(st, ADN_INVALID_FOLD, "cumsum: fold (3) and overlap (4): fold");
    /* Valid but different folds. */
    st = adn_mpi_sum_f64(x, 4, rank == last ? 4 : 3, &out, MPI_COMM_WORLD);
    expect_all(st, ADN_FOLD_MISMATCH, "different folds");
    st = adn_mpi_cumsum_f32(y, (float *)(void *)cum, 4, rank == 0 ? 2 : 3, MPI_COMM_WORLD);
    expect_all(st, ADN_FOLD_MISMATCH, "cumsum: different folds");
    st = adn_mpi_cuda_sum_f64(x, 4, rank == last ? 4 : 3, &out, MPI_COMM_WORLD);
    /* Without CUDA the device step fails first (on every rank alike). */
    expect(st == ADN_FOLD_MISMATCH || st == ADN_NOT_BUILT || st == ADN_NO_DEVICE, "cuda: different folds", st);
    expect_all(st, st, "cuda: different folds");
    /* Each rank's length within the f32 capacity, their total past it: every rank refuses
     * before reading anything (the lengths are not backed by memory). */
    size_t part = (size_t)(ADN_CAPACITY_F32 / (uint64_t)nranks) + 1;
    float f = -1.0f;
    st = adn_mpi_sum_f32(y, part, 3, &f, MPI_COMM_WORLD);
    expect_all(st, ADN_CAPACITY_EXCEEDED, "the ranks together past the capacity");
    expect(f == -1.0f, "no output past the capacity", 0);
    /* In place (no overlap check), so only the total is wrong. */
    static float big[1];
    st = adn_mpi_cumsum_f32(big, big, part, 3, MPI_COMM_WORLD);
    expect_all(st, ADN_CAPACITY_EXCEEDED, "cumsum: the ranks together past the capacity");
}

/* MPI errors: MPI_COMM_NULL, an intercommunicator (with MPI_ERRORS_RETURN). */
static void check_mpi_errors(const double *x) {
    double out = 1.0, cum[4];
    expect(adn_mpi_sum_f64(x, 4, 3, &out, MPI_COMM_NULL) == ADN_MPI_ERROR, "MPI_COMM_NULL sum", 0);
    expect(adn_mpi_cumsum_f64(x, cum, 4, 3, MPI_COMM_NULL) == ADN_MPI_ERROR, "MPI_COMM_NULL cumsum", 0);
    expect(adn_mpi_cuda_sum_f64(x, 4, 3, &out, MPI_COMM_NULL) == ADN_MPI_ERROR, "MPI_COMM_NULL cuda sum", 0);
    expect(out == 1.0, "no output on an MPI error", 0);
    expect(strcmp(adn_status_string(ADN_MPI_ERROR), "an MPI call failed") == 0, "ADN_MPI_ERROR's text", 0);
    if (nranks >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
        expect(adn_mpi_sum_f64(x, 4, 3, &out, inter) == ADN_MPI_ERROR, "intercommunicator sum", 0);
        expect(adn_mpi_cumsum_f32(NULL, NULL, 0, 3, inter) == ADN_MPI_ERROR, "intercommunicator cumsum", 0);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
}

/* The handles used directly, the user function's poisoning. */
static void check_handles(const double *x, const float *y, size_t n) {
    MPI_Datatype t64 = adn_mpi_type_acc_f64(), t32 = adn_mpi_type_acc_f32();
    MPI_Op op64 = adn_mpi_op_acc_f64(), op32 = adn_mpi_op_acc_f32();
    int size = 0, commute = 0;
    expect(adn_mpi_setup() == ADN_OK, "setup again", 0);
    expect(t64 != MPI_DATATYPE_NULL && t32 != MPI_DATATYPE_NULL, "datatypes", 0);
    expect(op64 != MPI_OP_NULL && op32 != MPI_OP_NULL, "operations", 0);
    expect(t64 == adn_mpi_type_acc_f64() && op32 == adn_mpi_op_acc_f32(), "cached", 0);
    MPI_Type_size(t64, &size);
    expect(size == (int)sizeof(adn_acc_f64) && size == 1024, "f64 datatype size", size);
    MPI_Type_size(t32, &size);
    expect(size == (int)sizeof(adn_acc_f32) && size == 512, "f32 datatype size", size);
    MPI_Op_commutative(op64, &commute);
    expect(commute, "commutative", 0);

    /* MPI_Allreduce of two accumulators (folds 3 and 6) per rank, and MPI_Scan, by round-robin
     * values: any assignment of values to ranks gives the one-process bits. */
    adn_acc_f64 mine[2], all[2], scan;
    adn_acc_f32 minef, allf;
    adn_acc_f64_init(&mine[0], 3);
    adn_acc_f64_init(&mine[1], 6);
    adn_acc_f32_init(&minef, 4);
    for (size_t i = (size_t)rank; i < n; i += (size_t)nranks) {
        adn_acc_f64_add(&mine[0], x[i]);
        adn_acc_f64_add(&mine[1], x[i]);
        adn_acc_f32_add(&minef, y[i]);
    }
    MPI_Allreduce(mine, all, 2, t64, op64, MPI_COMM_WORLD);
    MPI_Allreduce(&minef, &allf, 1, t32, op32, MPI_COMM_WORLD);
    double v, w, v6, w6;
    float vf, wf;
    uint64_t count = 0;
    expect(adn_mpi_acc_f64_status(&all[0]) == ADN_OK && adn_mpi_acc_f32_status(&allf) == ADN_OK, "valid results", 0);
    adn_acc_f64_value(&all[0], &v);
    adn_acc_f64_value(&all[1], &v6);
    adn_acc_f32_value(&allf, &vf);
    adn_acc_f64_count(&all[0], &count);
    adn_sum_f64_fold(x, n, 3, &w);
    adn_sum_f64_fold(x, n, 6, &w6);
    adn_sum_f32_fold(y, n, 4, &wf);
    expect(f64_to_bits(v) == f64_to_bits(w) && f64_to_bits(v6) == f64_to_bits(w6), "Allreduce f64", 0);
    expect(f32_to_bits(vf) == f32_to_bits(wf), "Allreduce f32", 0);
    expect(count == n, "count", (long)count);
    /* Inclusive scan of contiguous blocks: rank r's result is the prefix sum up to its end. */
    size_t lo, hi;
    block(SKEWED, n, rank, nranks, &lo, &hi);
    adn_acc_f64_init(&mine[0], 3);
    adn_acc_f64_add_array(&mine[0], x + lo, hi - lo);
    MPI_Scan(&mine[0], &scan, 1, t64, op64, MPI_COMM_WORLD);
    adn_acc_f64_value(&scan, &v);
    if (hi > 0) {
        double *cum = malloc(hi * sizeof *cum);
        adn_cumsum_f64(x, cum, hi);
        expect(f64_to_bits(v) == f64_to_bits(cum[hi - 1]), "MPI_Scan", (long)hi);
        free(cum);
    } else {
        expect(f64_to_bits(v) == 0, "MPI_Scan of nothing", 0);
    }

    /* Poisoning: merges that fail inside the operation. */
    adn_acc_f64 a, b, zero;
    memset(&zero, 0, sizeof zero);
    adn_acc_f64_init(&a, 3);
    adn_acc_f64_add(&a, 1.5);
    adn_acc_f64_init(&b, 4);
    int one = 1;
    MPI_Datatype dt = t64;
    adn_acc_f64 c = a;
    adn_mpi_merge_acc_f64(&b, &c, &one, &dt); /* folds 3 and 4 */
    expect(adn_mpi_acc_f64_status(&c) == ADN_FOLD_MISMATCH, "poisoned by a fold mismatch", adn_mpi_acc_f64_status(&c));
    expect(adn_acc_f64_value(&c, &v) == ADN_NOT_INITIALIZED, "the library refuses a poisoned accumulator", 0);
    adn_acc_f64 d = a;
    adn_mpi_merge_acc_f64(&zero, &d, &one, &dt);
    expect(adn_mpi_acc_f64_status(&d) == ADN_NOT_INITIALIZED, "poisoned by an uninitialised input", 0);
    adn_acc_f64 e = a;
    adn_mpi_merge_acc_f64(&d, &e, &one, &dt); /* a poison (13) into a valid one */
    expect(adn_mpi_acc_f64_status(&e) == ADN_NOT_INITIALIZED, "a poisoned input poisons", 0);
    adn_mpi_merge_acc_f64(&c, &e, &one, &dt); /* poisons 11 and 13: 11 */
    expect(adn_mpi_acc_f64_status(&e) == ADN_FOLD_MISMATCH, "two poisons: the smaller", adn_mpi_acc_f64_status(&e));
    adn_mpi_merge_acc_f64(&d, &e, &one, &dt); /* 13 into 11: still 11 */
    expect(adn_mpi_acc_f64_status(&e) == ADN_FOLD_MISMATCH, "two poisons, other order", 0);
    expect(adn_mpi_acc_f64_status(&zero) == ADN_NOT_INITIALIZED, "a zeroed struct is not a poison", 0);
    expect(adn_mpi_acc_f64_status(NULL) == ADN_NULL_POINTER, "status of NULL", 0);
    /* An unaligned inout buffer (MPI's temporary buffers need not be aligned). */
    {
        static uint64_t raw[2 * 128 + 2];
        char *p = (char *)raw + 3;
        adn_acc_f64 r, two;
        adn_acc_f64_init(&two, 3);
        adn_acc_f64_add(&two, 2.25);
        memcpy(p, &a, sizeof a);
        adn_mpi_merge_acc_f64(&two, p, &one, &dt);
        memcpy(&r, p, sizeof r);
        expect(adn_acc_f64_value(&r, &v) == ADN_OK && v == 3.75, "unaligned inout merge", 0);
        adn_acc_f32 af, bf, rf;
        MPI_Datatype dtf = t32;
        adn_acc_f32_init(&af, 3);
        adn_acc_f32_add(&af, 0.5f);
        adn_acc_f32_init(&bf, 3);
        adn_acc_f32_add(&bf, 0.25f);
        memcpy(p, &af, sizeof af);
        adn_mpi_merge_acc_f32(&bf, p, &one, &dtf);
        memcpy(&rf, p, sizeof rf);
        expect(adn_acc_f32_value(&rf, &vf) == ADN_OK && vf == 0.75f, "unaligned inout merge f32", 0);
        adn_acc_f32_init(&bf, 5);
        adn_mpi_merge_acc_f32(&bf, &af, &one, &dtf);
        expect(adn_mpi_acc_f32_status(&af) == ADN_FOLD_MISMATCH, "f32 poison", 0);
    }
    /* Through MPI: the last rank's accumulator has another fold; every rank's result is
     * poisoned with ADN_FOLD_MISMATCH. */
    if (nranks >= 2) {
        adn_acc_f64 m, r;
        adn_acc_f64_init(&m, rank == nranks - 1 ? 5 : 3);
        adn_acc_f64_add(&m, (double)rank);
        MPI_Allreduce(&m, &r, 1, t64, op64, MPI_COMM_WORLD);
        expect_all(adn_mpi_acc_f64_status(&r), ADN_FOLD_MISMATCH, "Allreduce of different folds");
    }
}

/* Sub-communicators: the ranks of each parity sum their even-split blocks. */
static void check_subcomm(const double *x, size_t n) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    double *cat = malloc(n * sizeof *cat), *cum = malloc(n * sizeof *cum), *want = malloc(n * sizeof *want);
    size_t len = 0, mylo = 0, lo, hi;
    for (int r = rank % 2; r < nranks; r += 2) {
        block(EVEN, n, r, nranks, &lo, &hi);
        if (r == rank) mylo = len;
        memcpy(cat + len, x + lo, (hi - lo) * sizeof *x);
        len += hi - lo;
    }
    block(EVEN, n, rank, nranks, &lo, &hi);
    double s, w;
    adn_sum_f64_fold(cat, len, 3, &w);
    adn_cumsum_f64_fold(cat, want, len, 3);
    expect(adn_mpi_sum_f64(x + lo, hi - lo, 3, &s, half) == ADN_OK && f64_to_bits(s) == f64_to_bits(w),
           "sub-communicator sum", 0);
    size_t where = 0;
    expect(adn_mpi_cumsum_f64(x + lo, cum, hi - lo, 3, half) == ADN_OK &&
               same_bits64(cum, want + mylo, hi - lo, &where),
           "sub-communicator cumsum", (long)where);
    MPI_Comm_free(&half);
    free(cat);
    free(cum);
    free(want);
}

/* Keyed and segmented sums across ranks: each rank adds its round-robin share of the
 * (key, value) pairs, and its block of a segmented array (offsets relative to the block),
 * into arrays of accumulators; one MPI_Allreduce of each array gives every group the state
 * of all its values: the one-process adn_sum_by_key / adn_segmented_sum bits. */
#define GROUPS 97
static void check_groups(const double *x, const float *y, size_t n) {
    static adn_acc_f64 mine[GROUPS], all[GROUPS];
    static adn_acc_f32 minef[GROUPS], allf[GROUPS];
    double want[GROUPS], got;
    float wantf[GROUPS], gotf;
    int64_t *keys = malloc(n * sizeof *keys);
    double *sx = malloc(n * sizeof *sx);
    float *sy = malloc(n * sizeof *sy);
    int64_t *sk = malloc(n * sizeof *sk);
    for (size_t i = 0; i < n; i++) keys[i] = (int64_t)((i * i + 7 * i) % GROUPS);
    size_t m = 0;
    for (size_t i = (size_t)rank; i < n; i += (size_t)nranks, m++) {
        sx[m] = x[i];
        sy[m] = y[i];
        sk[m] = keys[i];
    }
    for (int g = 0; g < GROUPS; g++) {
        adn_acc_f64_init(&mine[g], 5);
        adn_acc_f32_init(&minef[g], 3);
    }
    expect(adn_acc_f64_add_by_key(mine, GROUPS, sx, sk, m) == ADN_OK, "add_by_key f64", 0);
    expect(adn_acc_f32_add_by_key(minef, GROUPS, sy, sk, m) == ADN_OK, "add_by_key f32", 0);
    MPI_Allreduce(mine, all, GROUPS, adn_mpi_type_acc_f64(), adn_mpi_op_acc_f64(), MPI_COMM_WORLD);
    MPI_Allreduce(minef, allf, GROUPS, adn_mpi_type_acc_f32(), adn_mpi_op_acc_f32(), MPI_COMM_WORLD);
    adn_sum_by_key_f64(x, keys, n, GROUPS, 5, want);
    adn_sum_by_key_f32(y, keys, n, GROUPS, 3, wantf);
    int ok = 1;
    for (int g = 0; g < GROUPS; g++) {
        ok &= adn_acc_f64_value(&all[g], &got) == ADN_OK && f64_to_bits(got) == f64_to_bits(want[g]);
        ok &= adn_acc_f32_value(&allf[g], &gotf) == ADN_OK && f32_to_bits(gotf) == f32_to_bits(wantf[g]);
    }
    expect(ok, "keyed sums across ranks", 0);
    /* Segments of growing length (some empty), the ranks' blocks cutting through them. */
    size_t offsets[GROUPS + 1], local[GROUPS + 1];
    offsets[0] = 0;
    for (int g = 0; g < GROUPS; g++) {
        size_t next = offsets[g] + (g % 5 == 0 ? 0 : (size_t)g * (size_t)g * 3);
        offsets[g + 1] = next < n ? next : n;
    }
    offsets[GROUPS] = n;
    size_t lo, hi;
    block(SKEWED, n, rank, nranks, &lo, &hi);
    for (int g = 0; g <= GROUPS; g++) local[g] = (offsets[g] < lo ? lo : offsets[g] > hi ? hi : offsets[g]) - lo;
    for (int g = 0; g < GROUPS; g++) adn_acc_f64_init(&mine[g], 3);
    expect(adn_acc_f64_add_segments(mine, x + lo, local, GROUPS) == ADN_OK, "add_segments f64", 0);
    MPI_Allreduce(mine, all, GROUPS, adn_mpi_type_acc_f64(), adn_mpi_op_acc_f64(), MPI_COMM_WORLD);
    adn_segmented_sum_f64(x, offsets, GROUPS, 3, want);
    ok = 1;
    for (int g = 0; g < GROUPS; g++)
        ok &= adn_acc_f64_value(&all[g], &got) == ADN_OK && f64_to_bits(got) == f64_to_bits(want[g]);
    expect(ok, "segmented sums across ranks", 0);
    free(keys);
    free(sx);
    free(sy);
    free(sk);
}

int main(int argc, char **argv) {
    double out = 5.0;
    expect(adn_mpi_setup() == ADN_MPI_ERROR, "setup before MPI_Init", 0);
    expect(adn_mpi_sum_f64(NULL, 0, 3, &out, MPI_COMM_WORLD) == ADN_MPI_ERROR && out == 5.0, "sum before MPI_Init", 0);
    expect(adn_mpi_type_acc_f64() == MPI_DATATYPE_NULL, "no datatype before MPI_Init", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    double *x = malloc(N_WIDE * sizeof *x);
    float *y = malloc(N_WIDE * sizeof *y);
    fill_wide(x, y, N_WIDE);
    check_data("wide", x, y, N_WIDE);
    double *xs = malloc(N_SPECIAL * sizeof *xs);
    float *ys = malloc(N_SPECIAL * sizeof *ys);
    fill_special(xs, ys, N_SPECIAL);
    check_data("special", xs, ys, N_SPECIAL);
    {
        double s;
        adn_sum_f64(xs, N_SPECIAL, &s);
        expect(isnan(s), "the special set sums to NaN", 0);
    }
    check_bad_arguments(x, y);
    check_agreement(x, y);
    check_mpi_errors(x);
    check_handles(x, y, N_WIDE);
    check_subcomm(x, N_WIDE);
    check_groups(x, y, N_WIDE);

    long counts[2] = {passed, failed}, total[2];
    MPI_Reduce(counts, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int was_ready = adn_mpi_cache_get_()->ready;
    MPI_Finalize();
    /* The MPI_COMM_SELF attribute's delete callback freed the handles. */
    expect(was_ready && !adn_mpi_cache_get_()->ready, "MPI_Finalize freed the handles", was_ready);
    expect(adn_mpi_sum_f64(NULL, 0, 3, &out, MPI_COMM_WORLD) == ADN_MPI_ERROR, "sum after MPI_Finalize", 0);
    if (rank == 0) {
        /* Rank 0's checks after MPI_Finalize are added locally. */
        total[0] += passed - counts[0];
        total[1] += failed - counts[1];
        printf("test_mpi ranks=%d: %ld passed, %ld failed\n", nranks, total[0], total[1]);
    } else if (failed != counts[1]) {
        printf("rank %d: failed after MPI_Finalize\n", rank);
    }
    free(x);
    free(y);
    free(xs);
    free(ys);
    int bad = rank == 0 ? total[1] != 0 : failed != 0;
    return bad ? 1 : 0;
}
