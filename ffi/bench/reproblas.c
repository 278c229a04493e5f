/*
 * The C library's sum beside ReproBLAS's (a bench-only baseline, never part of the
 * repository: ffi/bench/reproblas.sh builds this against a ReproBLAS build given by its
 * path) and a plain 16-lane (f64) / 32-lane (f32) sum, on the same data, one thread, rounds
 * interleaved, medians of thread CPU time (the machine is shared: CPU time leaves out the
 * time other processes took). Checks that both libraries give the same bits at every fold
 * timed, and exits 1 if not. Prints G elements/s.
 *
 *   reproblas N [ROUNDS] [FOLDS, e.g. 3,6,8]
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reproBLAS.h"
#include "reprosum.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double plain64(const double *x, size_t n) {
    double l[16] = {0};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; j++) l[j] += x[i + j];
    for (; i < n; i++) l[0] += x[i];
    for (int w = 8; w > 0; w /= 2)
        for (int j = 0; j < w; j++) l[j] += l[j + w];
    return l[0];
}

static float plain32(const float *x, size_t n) {
    float l[32] = {0};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int j = 0; j < 32; j++) l[j] += x[i + j];
    for (; i < n; i++) l[0] += x[i];
    for (int w = 16; w > 0; w /= 2)
        for (int j = 0; j < w; j++) l[j] += l[j + w];
    return l[0];
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2];
}

#define MAXF 8
#define MAXR 101
/* Methods per type: plain, then (reprosum, ReproBLAS) per fold. */
static double t64[1 + 2 * MAXF][MAXR], t32[1 + 2 * MAXF][MAXR];
static volatile double sink;

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)strtod(argv[1], NULL) : 10000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 15;
    int folds[MAXF], nf = 0;
    char *spec = argc > 3 ? argv[3] : "3,6,8";
    for (char *s = strtok(spec, ","); s && nf < MAXF; s = strtok(NULL, ",")) folds[nf++] = atoi(s);
    if (rounds > MAXR) rounds = MAXR;
    if (rounds < 1) rounds = 1;
    /* Enough repetitions per timing that each takes about 20 ms. */
    int reps = n >= 2000000 ? 1 : (int)(2000000 / n);
    double *x = malloc(n * sizeof *x);
    float *y = malloc(n * sizeof *y);
    if (!x || !y) return 2;
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double m = (double)(s >> 11) / 9007199254740992.0 - 0.5;
        int e = (int)((s >> 3) % 24) - 12;
        double v = m;
        for (; e > 0; e--) v *= 2;
        for (; e < 0; e++) v /= 2;
        x[i] = v;
        y[i] = (float)v;
    }
    if (adn_set_num_threads(1) != ADN_OK) return 2;
    int bad = 0;
    for (int f = 0; f < nf; f++) {
        double a, b;
        float c, d;
        adn_sum_f64_fold(x, n, (unsigned)folds[f], &a);
        b = reproBLAS_rdsum(folds[f], (int)n, x, 1);
        adn_sum_f32_fold(y, n, (unsigned)folds[f], &c);
        d = reproBLAS_rssum(folds[f], (int)n, y, 1);
        uint64_t ba, bb;
        uint32_t bc, bd;
        memcpy(&ba, &a, 8), memcpy(&bb, &b, 8), memcpy(&bc, &c, 4), memcpy(&bd, &d, 4);
        printf("fold %d: f64 %016" PRIx64 " %016" PRIx64 " %s, f32 %08" PRIx32 " %08" PRIx32 " %s\n", folds[f],
               ba, bb, ba == bb ? "same" : "DIFFER", bc, bd, bc == bd ? "same" : "DIFFER");
        bad |= ba != bb || bc != bd;
    }
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int i = 0; i < reps; i++) sink = plain64(x, n);
        t64[0][r] = now() - t0;
        t0 = now();
        for (int i = 0; i < reps; i++) sink = plain32(y, n);
        t32[0][r] = now() - t0;
        for (int f = 0; f < nf; f++) {
            double a;
            float c;
            t0 = now();
            for (int i = 0; i < reps; i++) adn_sum_f64_fold(x, n, (unsigned)folds[f], &a), sink = a;
            t64[1 + 2 * f][r] = now() - t0;
            t0 = now();
            for (int i = 0; i < reps; i++) sink = reproBLAS_rdsum(folds[f], (int)n, x, 1);
            t64[2 + 2 * f][r] = now() - t0;
            t0 = now();
            for (int i = 0; i < reps; i++) adn_sum_f32_fold(y, n, (unsigned)folds[f], &c), sink = c;
            t32[1 + 2 * f][r] = now() - t0;
            t0 = now();
            for (int i = 0; i < reps; i++) sink = reproBLAS_rssum(folds[f], (int)n, y, 1);
            t32[2 + 2 * f][r] = now() - t0;
        }
    }
    double g = (double)n * reps / 1e9;
    for (int ty = 0; ty < 2; ty++) {
        double(*t)[MAXR] = ty ? t32 : t64;
        printf("%s N=%zu (G elements/s, median of %d): plain %.2f", ty ? "f32" : "f64", n, rounds,
               g / median(t[0], rounds));
        for (int f = 0; f < nf; f++)
            printf(" | K=%d reprosum %.2f ReproBLAS %.2f", folds[f], g / median(t[1 + 2 * f], rounds),
                   g / median(t[2 + 2 * f], rounds));
        printf("\n");
    }
    return bad;
}
