/*
 * The C library's sum on 1 and 2 threads beside a plain 16-lane sum on 1 and 2 threads
 * (pthreads, each thread 16 independent partial sums over its half), the same data, rounds
 * interleaved, medians. Prints G elements/s and each method's 2-thread / 1-thread ratio.
 * Built and run by ffi/bench/run.sh; see docs/PERFORMANCE.md for the figures.
 *
 *   threads N [ROUNDS]
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reprosum.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct part {
    const double *x;
    size_t n;
    double s;
};

/* 16 independent lanes (the compiler vectorises them), added pairwise at the end. */
static void *plain16(void *arg) {
    struct part *p = arg;
    double l[16] = {0};
    size_t i = 0;
    for (; i + 16 <= p->n; i += 16)
        for (int j = 0; j < 16; j++) l[j] += p->x[i + j];
    for (; i < p->n; i++) l[0] += p->x[i];
    for (int w = 8; w > 0; w /= 2)
        for (int j = 0; j < w; j++) l[j] += l[j + w];
    p->s = l[0];
    return NULL;
}

static double plain(const double *x, size_t n, int threads) {
    struct part parts[2] = {{x, n / 2, 0}, {x + n / 2, n - n / 2, 0}};
    if (threads == 1) {
        struct part all = {x, n, 0};
        plain16(&all);
        return all.s;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, plain16, &parts[1]) != 0) exit(3);
    plain16(&parts[0]);
    pthread_join(t, NULL);
    return parts[0].s + parts[1].s;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)strtod(argv[1], NULL) : 10000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 15;
    if (rounds < 1 || rounds > 1000) rounds = 15;
    double *x = malloc(n * sizeof *x);
    if (!x) return 2;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) { /* mixed signs, magnitudes 2^-13..2^11 */
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double m = 1.0 + (double)(s >> 12) / 4503599627370496.0;
        int e = (int)(s % 25) - 13;
        x[i] = (s & 1 ? -m : m) * (double)((e >= 0) ? (1u << e) : 1) / (double)(e < 0 ? (1u << -e) : 1);
    }
    /* t[method][threads-1][round] */
    double *t = malloc(sizeof(double) * 4 * (size_t)rounds);
    if (!t) return 2;
    uint64_t first = 0;
    volatile double sink = 0;
    for (int r = 0; r < rounds; r++) {
        for (int th = 1; th <= 2; th++) {
            if (adn_set_num_threads((unsigned)th) != ADN_OK) return 4;
            double v, t0 = now();
            if (adn_sum_f64(x, n, &v) != ADN_OK) return 5;
            t[(0 * 2 + th - 1) * rounds + r] = now() - t0;
            uint64_t b;
            memcpy(&b, &v, sizeof b);
            if (r == 0 && th == 1) first = b;
            if (b != first) {
                fprintf(stderr, "bits differ: %016" PRIX64 " vs %016" PRIX64 "\n", b, first);
                return 1;
            }
            t0 = now();
            sink += plain(x, n, th);
            t[(1 * 2 + th - 1) * rounds + r] = now() - t0;
        }
    }
    (void)sink;
    double med[2][2];
    for (int m = 0; m < 2; m++)
        for (int th = 0; th < 2; th++) {
            double *row = t + (m * 2 + th) * rounds;
            qsort(row, (size_t)rounds, sizeof *row, cmp);
            med[m][th] = (double)n / row[rounds / 2] / 1e9;
        }
    printf("N %.0e f64 rounds %d (medians, G elements/s); reprosum bits %016" PRIX64 " on 1 and 2 threads\n",
           (double)n, rounds, first);
    printf("| method | 1 thread | 2 threads | ratio |\n|---|---|---|---|\n");
    printf("| reprosum adn_sum_f64 (K = 3) | %.2f | %.2f | %.2fx |\n", med[0][0], med[0][1], med[0][1] / med[0][0]);
    printf("| plain 16-lane | %.2f | %.2f | %.2fx |\n", med[1][0], med[1][1], med[1][1] / med[1][0]);
    free(t);
    free(x);
    return 0;
}
