/*
 * What ffi/tests/c/test_mpi.c and test_mpi_cuda.c share: the check counters, the data sets
 * and the splits of an array over the ranks. Static functions of one test program each.
 */
#ifndef REPROSUM_MPI_TEST_UTIL_H
#define REPROSUM_MPI_TEST_UTIL_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt19937.h"
#include "reprosum_mpi.h"

static int rank, nranks;
static long passed, failed;

static void expect(int ok, const char *what, long detail) {
    if (ok) {
        passed++;
    } else {
        failed++;
        if (failed <= 40) printf("rank %d: FAIL %s (%ld)\n", rank, what, detail);
    }
}

#define N_WIDE 30011u
#define N_SPECIAL 517u

/* The data sets: values of every magnitude (as examples-c/cuda_sum.c), and one with specials. */
static void fill_wide(double *x, float *y, size_t n) {
    mt19937 g;
    mt19937_seed(&g, 12345);
    for (size_t i = 0; i < n; i++) {
        uint64_t b = ((uint64_t)mt19937_next(&g) << 32) | mt19937_next(&g);
        int e = (int)(b % 160) - 80;
        double m = (double)(b >> 11) / 9007199254740992.0 - 0.5;
        x[i] = ldexp(m, e);
        y[i] = (float)ldexp(m, e / 3);
    }
}

static void fill_special(double *x, float *y, size_t n) {
    mt19937 g;
    mt19937_seed(&g, 777);
    for (size_t i = 0; i < n; i++) {
        uint32_t r = mt19937_next(&g);
        double m = (double)(mt19937_next(&g) >> 8) / 16777216.0 - 0.5;
        switch (r % 16) {
        case 0: x[i] = 1.7e308 * (m < 0 ? -1 : 1); y[i] = 3.3e38f * (m < 0 ? -1.0f : 1.0f); break;
        case 1: x[i] = m * 4.9e-324 * 7; y[i] = (float)(m * 1.4e-45 * 7); break;
        case 2: x[i] = -0.0; y[i] = -0.0f; break;
        default: x[i] = ldexp(m, (int)(r % 200) - 100); y[i] = (float)ldexp(m, (int)(r % 60) - 30);
        }
    }
    /* One +Inf and, later, one NaN (the cumulative sum changes at each). */
    x[n / 3] = INFINITY;
    y[n / 3] = INFINITY;
    x[2 * n / 3] = NAN;
    y[2 * n / 3] = NAN;
}

/* The splits: the block [lo, hi) of rank r of p. */
enum { EVEN, SKEWED, LAST_ONLY, FIRST_ONLY, ODD_EMPTY, ONE_EACH, NSPLITS };
static const char *split_names[NSPLITS] = {"even", "skewed", "last-only", "first-only", "odd-empty", "one-each"};

static void block(int s, size_t n, int r, int p, size_t *lo, size_t *hi) {
    switch (s) {
    case EVEN: /* sizes differ by one at most */
        *lo = n * (size_t)r / (size_t)p;
        *hi = n * (size_t)(r + 1) / (size_t)p;
        break;
    case SKEWED: { /* boundaries at n (r/p)^2: rank 0 small, the last large */
        double a = (double)r / p, b = (double)(r + 1) / p;
        *lo = (size_t)((double)n * a * a);
        *hi = r + 1 == p ? n : (size_t)((double)n * b * b);
        break;
    }
    case LAST_ONLY:
        *lo = r + 1 == p ? 0 : n;
        *hi = n;
        break;
    case FIRST_ONLY:
        *lo = 0;
        *hi = r == 0 ? n : 0;
        break;
    case ODD_EMPTY: { /* odd ranks empty, the even ranks share evenly */
        int evens = (p + 1) / 2, e = r / 2;
        *lo = *hi = 0;
        if (r % 2 == 0) {
            *lo = n * (size_t)e / (size_t)evens;
            *hi = n * (size_t)(e + 1) / (size_t)evens;
        } else {
            *lo = *hi = n * (size_t)(e + 1) / (size_t)evens;
        }
        break;
    }
    default: /* ONE_EACH: rank r holds only value r; the last rank the rest */
        *lo = (size_t)r < n ? (size_t)r : n;
        *hi = r + 1 == p ? n : *lo + 1;
        break;
    }
}

static int same_bits64(const double *a, const double *b, size_t n, size_t *where) {
    for (size_t i = 0; i < n; i++)
        if (f64_to_bits(a[i]) != f64_to_bits(b[i])) {
            *where = i;
            return 0;
        }
    return 1;
}

static int same_bits32(const float *a, const float *b, size_t n, size_t *where) {
    for (size_t i = 0; i < n; i++)
        if (f32_to_bits(a[i]) != f32_to_bits(b[i])) {
            *where = i;
            return 0;
        }
    return 1;
}

/* The status every rank returns must be the same: the smallest and the largest agree. */
static void expect_all(adn_status st, adn_status want, const char *what) {
    int mm[2] = {st, -st}, all[2];
    MPI_Allreduce(mm, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    expect(st == want, what, st);
    expect(all[0] == -all[1], "the same status on every rank", all[0]);
}

#endif
