/*
 * Threads through the C library (run by ffi/tests/c_programs.rs, built with -fopenmp):
 *
 *   test_threads EXPECTED_DEFAULT
 *
 * 1. adn_get_num_threads() is EXPECTED_DEFAULT (the test sets ADN_NUM_THREADS or the CPU
 *    affinity and passes what it implies);
 * 2. for 1, 2, 3, 4 and 8 threads, the sum, cumulative sum (separate and in place),
 *    cumulative sum from an accumulator and accumulator state (its byte encoding) of a
 *    wide-range input have the bits of the one-thread results;
 * 3. every thread of an OpenMP parallel region (8 threads) calls the sums at once, with a
 *    pool of 2 threads: every result has the one-thread bits, and the process has no more
 *    threads than the region's, the pool's and the main thread (no thread per caller);
 * 4. with a pool of 1 thread, calls from the region run on their own threads;
 * 5. a child made by fork() after the pool started sums on a pool of its own.
 * Prints "threads OK ..." lines; exits non-zero (with a message) on any difference. An
 * alarm ends it if anything deadlocks.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, alarm */
#include <dirent.h>
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reprosum.h"

#define N (3u << 18) /* 786,432 values: well above the size handed to the pool */
#define CUT 100003u

static int failures = 0;

#define CHECK(cond, ...)                              \
    do {                                              \
        if (!(cond)) {                                \
            fprintf(stderr, "FAIL: " __VA_ARGS__);    \
            fprintf(stderr, "\n");                    \
            failures++;                               \
        }                                             \
    } while (0)

#define OK(x) CHECK((x) == ADN_OK, "%s: %s", #x, adn_status_string(x))

static uint64_t bits(double v) {
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* Finite values of both signs: most within 2^+-40 of 1, every seventh anywhere from 2^-1000
 * to 2^900 (large cancellations, no overflow); xorshift, the same on every run. */
static void fill(double *x, size_t n) {
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int e = i % 7 ? (int)(s % 81) - 40 : (int)(s % 1901) - 1000;
        uint64_t b = (s & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(1023 + e) << 52);
        memcpy(&x[i], &b, sizeof b);
    }
}

/* What one setting gives: sum, cumsum, in-place cumsum, cumsum from the accumulator of
 * x[0..CUT) over x[CUT..N), and the encoding of the accumulator of all of x (add_array). */
struct results {
    uint64_t sum;
    double *cum, *inplace, *from;
    unsigned char bytes[ADN_ACC_ENCODED_MAX];
    size_t len;
};

static void compute(const double *x, struct results *r, unsigned fold) {
    double s;
    OK(adn_sum_f64_fold(x, N, fold, &s));
    r->sum = bits(s);
    OK(adn_cumsum_f64_fold(x, r->cum, N, fold));
    memcpy(r->inplace, x, N * sizeof *x);
    OK(adn_cumsum_f64_fold(r->inplace, r->inplace, N, fold));
    adn_acc_f64 a;
    OK(adn_acc_f64_init(&a, fold));
    OK(adn_acc_f64_add_array(&a, x, CUT));
    OK(adn_cumsum_f64_from(&a, x + CUT, r->from, N - CUT));
    OK(adn_acc_f64_add_array(&a, x + CUT, N - CUT));
    OK(adn_acc_f64_to_bytes(&a, r->bytes, sizeof r->bytes, &r->len));
}

static void alloc(struct results *r) {
    r->cum = malloc(N * sizeof(double));
    r->inplace = malloc(N * sizeof(double));
    r->from = malloc(N * sizeof(double));
    if (!r->cum || !r->inplace || !r->from) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
}

static int same(const struct results *a, const struct results *b) {
    return a->sum == b->sum && memcmp(a->cum, b->cum, N * sizeof(double)) == 0 &&
           memcmp(a->inplace, b->inplace, N * sizeof(double)) == 0 &&
           memcmp(a->from, b->from, (N - CUT) * sizeof(double)) == 0 && a->len == b->len &&
           memcmp(a->bytes, b->bytes, a->len) == 0;
}

static int task_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_threads EXPECTED_DEFAULT\n");
        return 2;
    }
    alarm(120);
    unsigned expected = (unsigned)strtoul(argv[1], NULL, 10);
    CHECK(adn_get_num_threads() == expected, "default threads %u, expected %u", adn_get_num_threads(), expected);
    printf("threads default %u\n", adn_get_num_threads());

    double *x = malloc(N * sizeof *x);
    if (!x) return 2;
    fill(x, N);
    struct results one, r;
    alloc(&one);
    alloc(&r);
    OK(adn_set_num_threads(1));
    CHECK(adn_get_num_threads() == 1, "set 1");
    compute(x, &one, 3);
    /* The cumulative sum's last element is the sum; the one from the accumulator ends there too. */
    CHECK(bits(one.cum[N - 1]) == one.sum && bits(one.from[N - CUT - 1]) == one.sum, "last prefix is the sum");
    static const unsigned counts[] = {2, 3, 4, 8};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        OK(adn_set_num_threads(counts[i]));
        CHECK(adn_get_num_threads() == counts[i], "set %u: get %u", counts[i], adn_get_num_threads());
        compute(x, &r, 3);
        CHECK(same(&one, &r), "%u threads: results differ from one thread's", counts[i]);
    }
    printf("threads OK counts 1 2 3 4 8 sum %016" PRIX64 "\n", one.sum);

    /* Every thread of a parallel region calls at once, on a pool of 2. */
    OK(adn_set_num_threads(2));
    /* The pools replaced above end their threads asynchronously: wait for them (5 s at most). */
    for (int i = 0; i < 500 && task_count() > 1 + 2; i++) {
        struct timespec ms10 = {0, 10000000};
        nanosleep(&ms10, NULL);
    }
    int before = task_count();
    int most = 0, bad = 0;
    omp_set_dynamic(0);
#pragma omp parallel num_threads(8) reduction(+ : bad) reduction(max : most)
    {
        double s;
        for (int rep = 0; rep < 3; rep++) {
            if (adn_sum_f64_fold(x, N, 3, &s) != ADN_OK || bits(s) != one.sum) bad++;
            adn_acc_f64 a;
            if (adn_acc_f64_init(&a, 3) != ADN_OK || adn_acc_f64_add_array(&a, x, N) != ADN_OK) bad++;
            if (adn_acc_f64_value(&a, &s) != ADN_OK || bits(s) != one.sum) bad++;
            int t = task_count();
            if (t > most) most = t;
        }
    }
    CHECK(bad == 0, "%d results inside the parallel region differ", bad);
    /* main (the region's thread 0) + 7 more region threads + the pool's 2. */
    CHECK(most <= 8 + 2, "%d threads while 8 OpenMP threads called with a pool of 2 (before: %d)", most, before);
    printf("threads OK openmp callers 8 pool 2 most-threads %d\n", most);

    /* A pool of 1: every caller computes on its own thread. */
    OK(adn_set_num_threads(1));
    bad = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad)
    {
        double s;
        if (adn_sum_f64_fold(x, N, 3, &s) != ADN_OK || bits(s) != one.sum) bad++;
    }
    CHECK(bad == 0, "%d results with a pool of 1 differ", bad);
    /* 0 restores the default. */
    OK(adn_set_num_threads(0));
    CHECK(adn_get_num_threads() == expected, "set 0: get %u, expected %u", adn_get_num_threads(), expected);
    printf("threads OK openmp callers 4 pool 1\n");

    /* fork() with a running pool: the child has none of its threads and starts its own. */
    OK(adn_set_num_threads(2));
    double s2;
    OK(adn_sum_f64(x, N, &s2));
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        alarm(60); /* not inherited: a hung child ends too */
        double c;
        int good = adn_sum_f64(x, N, &c) == ADN_OK && bits(c) == one.sum && adn_get_num_threads() == 2;
        _exit(good ? 0 : 1);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the forked child's sum failed (status %d)", status);
    printf("threads OK fork\n");
    free(x);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    return 0;
}
