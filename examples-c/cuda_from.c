/*
 * Device data into accumulators and cumulative sums from an accumulator, on a CUDA GPU,
 * checked bit for bit against the CPU entry points (the evidence of docs/EQUIVALENCE.md).
 * Needs a GPU, the CUDA runtime and a libreprosum built with the cuda feature:
 *
 *   cargo build --release -p reprosum-ffi --features cuda
 *   cc -std=c11 -O2 -Wall -Iinclude -I/usr/local/cuda/include examples-c/cuda_from.c \
 *      target/release/libreprosum.a -L/usr/local/cuda/lib64 -lcudart \
 *      -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o cuda_from
 *   ./cuda_from 1e8 2.5e9
 *
 * For each size N, f64 then f32:
 *  - adn_cuda_acc_*_add_array on three uneven pieces of a device array (then one piece again
 *    from host memory, one on a stream), chained into one accumulator, against
 *    adn_acc_*_add_array on the CPU: the encodings (adn_acc_*_to_bytes) are equal after every
 *    piece;
 *  - adn_cuda_cumsum_*_from on each piece, from the CPU accumulator of everything before it,
 *    into a poisoned device output (and once in place), against the CPU's one-call
 *    adn_cumsum_*_fold of the whole array: every element's bits are equal;
 * Folds 3, 8 and 21 (the run-time-fold kernels) up to 1e6 values, 3 and 8 up to 1e8, fold 3
 * above. Prints "N passed, M failed".
 */
#include <cuda_runtime.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reprosum.h"

static int passed, failed;

static void expect(int ok, const char *what, size_t n, unsigned fold) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s (n %zu, fold %u)\n", what, n, fold);
    }
}

#define CUDA(call)                                                                      \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                 \
            exit(2);                                                                    \
        }                                                                               \
    } while (0)

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

/* Mixed signs and magnitudes 2^-30..2^30, one value in 1000 near 1e12 (cancellation). */
static uint64_t next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#define DEFINE(T, SUF, ACC)                                                       \
    static void fill_##SUF(T *x, size_t n) {                                                       \
        uint64_t s = 0x9E3779B97F4A7C15ull ^ n;                                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint64_t r = next(&s);                                                                 \
            double m = 1.0 + (double)(r >> 12) / 4503599627370496.0;                               \
            int e = (int)(r % 61) - 30;                                                            \
            double v = (r & 1 ? -m : m) * (e >= 0 ? (double)(1ull << e) : 1.0 / (double)(1ull << -e)); \
            x[i] = (T)(i % 1000 == 7 ? (r & 2 ? 1e12 : -1e12) : v);                                \
        }                                                                                          \
    }                                                                                              \
    static int same_##SUF(const ACC *a, const ACC *b) {                                            \
        unsigned char ea[ADN_ACC_ENCODED_MAX], eb[ADN_ACC_ENCODED_MAX];                            \
        size_t la = 0, lb = 0;                                                                     \
        return adn_##SUF##_to_bytes(a, ea, sizeof ea, &la) == ADN_OK &&                            \
               adn_##SUF##_to_bytes(b, eb, sizeof eb, &lb) == ADN_OK && la == lb &&                \
               memcmp(ea, eb, la) == 0;                                                            \
    }                                                                                              \
    static void run_##SUF(size_t n) {                                                              \
        const char *type = #T;                                                                     \
        T *x = xmalloc(n * sizeof *x), *want = xmalloc(n * sizeof *x), *got = xmalloc(n * sizeof *x); \
        fill_##SUF(x, n);                                                                          \
        T *dx, *dout;                                                                              \
        CUDA(cudaMalloc((void **)&dx, n * sizeof *x));                                             \
        CUDA(cudaMalloc((void **)&dout, n * sizeof *x));                                           \
        CUDA(cudaMemcpy(dx, x, n * sizeof *x, cudaMemcpyHostToDevice));                            \
        cudaStream_t st;                                                                           \
        CUDA(cudaStreamCreate(&st));                                                               \
        const size_t cut[4] = {0, n / 7, n / 2 + 3, n};                                            \
        unsigned folds[3] = {3, 8, 21};                                                            \
        int nfolds = n <= 1000000u ? 3 : n <= 100000000u ? 2 : 1;                                  \
        for (int fi = 0; fi < nfolds; fi++) {                                                      \
            unsigned k = folds[fi];                                                                \
            ACC cpu, gpu;                                                                          \
            expect(adn_##SUF##_init(&cpu, k) == ADN_OK && adn_##SUF##_init(&gpu, k) == ADN_OK,    \
                   "init", n, k);                                                                  \
            for (int p = 0; p < 3; p++) {                                                          \
                size_t m = cut[p + 1] - cut[p];                                                    \
                expect(adn_##SUF##_add_array(&cpu, x + cut[p], m) == ADN_OK, "cpu add_array", m, k); \
                expect(adn_cuda_##SUF##_add_array(&gpu, dx + cut[p], m) == ADN_OK, "cuda add_array", m, k); \
                expect(same_##SUF(&cpu, &gpu), "accumulator state after a device piece", m, k);   \
            }                                                                                      \
            /* Again: a piece from host memory, one on a stream. */                               \
            size_t m = cut[1];                                                                     \
            expect(adn_##SUF##_add_array(&cpu, x, m) == ADN_OK, "cpu add_array", m, k);           \
            expect(adn_cuda_##SUF##_add_array(&gpu, x, m) == ADN_OK, "cuda add_array host", m, k); \
            expect(same_##SUF(&cpu, &gpu), "accumulator state after a host piece", m, k);         \
            expect(adn_##SUF##_add_array(&cpu, x + cut[1], m) == ADN_OK, "cpu add_array", m, k);  \
            expect(adn_cuda_##SUF##_add_array_stream(&gpu, dx + cut[1], m, st) == ADN_OK,          \
                   "cuda add_array stream", m, k);                                                 \
            expect(same_##SUF(&cpu, &gpu), "accumulator state after a stream piece", m, k);       \
            uint64_t c = 0;                                                                        \
            expect(adn_##SUF##_count(&gpu, &c) == ADN_OK && c == n + 2 * m, "count", n, k);       \
            /* Cumulative sums of each piece from the CPU accumulator before it. */               \
            expect(adn_cumsum_##T##_fold_wrap(x, want, n, k) == ADN_OK, "cpu cumsum", n, k);      \
            ACC start;                                                                             \
            expect(adn_##SUF##_init(&start, k) == ADN_OK, "init", n, k);                          \
            for (int p = 0; p < 3; p++) {                                                          \
                size_t len = cut[p + 1] - cut[p];                                                  \
                CUDA(cudaMemset(dout + cut[p], 0xA5, len * sizeof *x));                            \
                int st_ok = (p == 1 ? adn_cuda_cumsum_##T##_from_stream_wrap(&start, dx + cut[p], dout + cut[p], len, st) \
                                    : adn_cuda_cumsum_##T##_from_wrap(&start, dx + cut[p], dout + cut[p], len)) == ADN_OK; \
                expect(st_ok, "cuda cumsum_from", len, k);                                         \
                expect(adn_##SUF##_add_array(&start, x + cut[p], len) == ADN_OK, "start", len, k);\
            }                                                                                      \
            CUDA(cudaMemcpy(got, dout, n * sizeof *x, cudaMemcpyDeviceToHost));                    \
            expect(memcmp(got, want, n * sizeof *x) == 0, "every cumsum_from element", n, k);     \
            /* In place on the device, the last piece, from the accumulator before it. */         \
            ACC before;                                                                            \
            expect(adn_##SUF##_init(&before, k) == ADN_OK &&                                       \
                   adn_##SUF##_add_array(&before, x, cut[2]) == ADN_OK, "start", cut[2], k);      \
            CUDA(cudaMemcpy(dout, dx, n * sizeof *x, cudaMemcpyDeviceToDevice));                   \
            expect(adn_cuda_cumsum_##T##_from_wrap(&before, dout + cut[2], dout + cut[2], n - cut[2]) == ADN_OK, \
                   "cuda cumsum_from in place", n - cut[2], k);                                    \
            CUDA(cudaMemcpy(got, dout + cut[2], (n - cut[2]) * sizeof *x, cudaMemcpyDeviceToHost)); \
            expect(memcmp(got, want + cut[2], (n - cut[2]) * sizeof *x) == 0, "in-place cumsum_from elements", n, k); \
            printf("%s n %zu fold %u: accumulator states and cumsum_from elements checked\n", type, n, k); \
            fflush(stdout);                                                                        \
        }                                                                                          \
        CUDA(cudaStreamDestroy(st));                                                               \
        CUDA(cudaFree(dx));                                                                        \
        CUDA(cudaFree(dout));                                                                      \
        free(x);                                                                                   \
        free(want);                                                                                \
        free(got);                                                                                 \
    }

/* The type-named entry points behind one macro. */
#define adn_cumsum_double_fold_wrap adn_cumsum_f64_fold
#define adn_cumsum_float_fold_wrap adn_cumsum_f32_fold
#define adn_cuda_cumsum_double_from_wrap adn_cuda_cumsum_f64_from
#define adn_cuda_cumsum_float_from_wrap adn_cuda_cumsum_f32_from
#define adn_cuda_cumsum_double_from_stream_wrap adn_cuda_cumsum_f64_from_stream
#define adn_cuda_cumsum_float_from_stream_wrap adn_cuda_cumsum_f32_from_stream

DEFINE(double, acc_f64, adn_acc_f64)
DEFINE(float, acc_f32, adn_acc_f32)

int main(int argc, char **argv) {
    for (int i = 1; i < argc || i == 1; i++) {
        size_t n = argc > 1 ? (size_t)strtod(argv[i], NULL) : 100000000u;
        run_acc_f64(n);
        run_acc_f32(n);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
