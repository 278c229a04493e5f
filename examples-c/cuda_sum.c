/*
 * reprosum's CUDA entry points from C, checked against the CPU entry points bit for bit.
 * Needs a GPU, the CUDA runtime and a libreprosum built with the cuda feature:
 *
 *   cargo build --release -p reprosum-ffi --features cuda
 *   cc -std=c11 -Wall -Iinclude -Iexamples-c -I/usr/local/cuda/include examples-c/cuda_sum.c \
 *      target/release/libreprosum.a -L/usr/local/cuda/lib64 -lcudart \
 *      -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o cuda_sum
 *
 * Device pointers (used in place), host pointers (copied), streams, folds 2..8, 12 and 21
 * (the run-time-fold kernels), f32 and f64, cumulative sums into poisoned outputs (and in
 * place), and the refusals (host input with device output, a fold past ADN_MAX_FOLD_GPU). Prints "N passed, M failed".
 */
#include <cuda_runtime.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt19937.h"
#include "reprosum.h"

static int passed, failed;

static void expect(int ok, const char *what) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s\n", what);
    }
}

#define CUDA(call)                                                                          \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                     \
            exit(2);                                                                        \
        }                                                                                   \
    } while (0)

/* Values of every magnitude and both signs, from a fixed seed. */
static void fill(double *x, float *y, size_t n, uint32_t seed) {
    mt19937 g;
    mt19937_seed(&g, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t b = ((uint64_t)mt19937_next(&g) << 32) | mt19937_next(&g);
        int e = (int)(b % 120) - 60;
        double m = (double)(b >> 11) / 9007199254740992.0 - 0.5;
        x[i] = ldexp(m, e);
        y[i] = (float)ldexp(m, e / 3);
    }
}

int main(void) {
    const size_t sizes[] = {1, 1000, 4097, 1000003};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        double *x = malloc(n * sizeof *x), *cx = malloc(n * sizeof *x), *gx = malloc(n * sizeof *x);
        float *y = malloc(n * sizeof *y), *cy = malloc(n * sizeof *y), *gy = malloc(n * sizeof *y);
        fill(x, y, n, (uint32_t)(n + 7));
        double *dx, *dcx;
        float *dy, *dcy;
        CUDA(cudaMalloc((void **)&dx, n * sizeof *x));
        CUDA(cudaMalloc((void **)&dcx, n * sizeof *x));
        CUDA(cudaMalloc((void **)&dy, n * sizeof *y));
        CUDA(cudaMalloc((void **)&dcy, n * sizeof *y));
        CUDA(cudaMemcpy(dx, x, n * sizeof *x, cudaMemcpyHostToDevice));
        CUDA(cudaMemcpy(dy, y, n * sizeof *y, cudaMemcpyHostToDevice));
        cudaStream_t st;
        CUDA(cudaStreamCreate(&st));
        char what[160];
        static const unsigned folds[] = {2, 3, 4, 5, 6, 7, 8, 12, 21};
        for (size_t fi = 0; fi < sizeof folds / sizeof folds[0]; fi++) {
            const unsigned k = folds[fi];
            double cpu, dev, host, strm;
            float cpuf, devf, hostf, strmf;
            expect(adn_sum_f64_fold(x, n, k, &cpu) == ADN_OK, "cpu sum f64");
            expect(adn_cuda_sum_f64_fold(dx, n, k, &dev) == ADN_OK, "cuda sum f64 device ptr");
            expect(adn_cuda_sum_f64_fold(x, n, k, &host) == ADN_OK, "cuda sum f64 host ptr");
            expect(adn_cuda_sum_f64_stream(dx, n, k, &strm, st) == ADN_OK, "cuda sum f64 stream");
            snprintf(what, sizeof what, "f64 n=%zu k=%u sum bits", n, k);
            expect(f64_to_bits(cpu) == f64_to_bits(dev) && f64_to_bits(cpu) == f64_to_bits(host) &&
                       f64_to_bits(cpu) == f64_to_bits(strm),
                   what);
            expect(adn_sum_f32_fold(y, n, k, &cpuf) == ADN_OK, "cpu sum f32");
            expect(adn_cuda_sum_f32_fold(dy, n, k, &devf) == ADN_OK, "cuda sum f32 device ptr");
            expect(adn_cuda_sum_f32_fold(y, n, k, &hostf) == ADN_OK, "cuda sum f32 host ptr");
            expect(adn_cuda_sum_f32_stream(dy, n, k, &strmf, st) == ADN_OK, "cuda sum f32 stream");
            snprintf(what, sizeof what, "f32 n=%zu k=%u sum bits", n, k);
            expect(f32_to_bits(cpuf) == f32_to_bits(devf) && f32_to_bits(cpuf) == f32_to_bits(hostf) &&
                       f32_to_bits(cpuf) == f32_to_bits(strmf),
                   what);

            /* Cumulative sums: device to device into a poisoned output, host to host, in place. */
            expect(adn_cumsum_f64_fold(x, cx, n, k) == ADN_OK, "cpu cumsum f64");
            CUDA(cudaMemset(dcx, 0xA5, n * sizeof *x));
            expect(adn_cuda_cumsum_f64_stream(dx, dcx, n, k, st) == ADN_OK, "cuda cumsum f64 device");
            CUDA(cudaMemcpy(gx, dcx, n * sizeof *x, cudaMemcpyDeviceToHost));
            snprintf(what, sizeof what, "f64 n=%zu k=%u cumsum device", n, k);
            expect(memcmp(gx, cx, n * sizeof *x) == 0, what);
            memset(gx, 0xA5, n * sizeof *x);
            expect(adn_cuda_cumsum_f64_fold(x, gx, n, k) == ADN_OK, "cuda cumsum f64 host");
            snprintf(what, sizeof what, "f64 n=%zu k=%u cumsum host", n, k);
            expect(memcmp(gx, cx, n * sizeof *x) == 0, what);
            CUDA(cudaMemcpy(dcx, x, n * sizeof *x, cudaMemcpyHostToDevice));
            expect(adn_cuda_cumsum_f64_fold(dcx, dcx, n, k) == ADN_OK, "cuda cumsum f64 in place");
            CUDA(cudaMemcpy(gx, dcx, n * sizeof *x, cudaMemcpyDeviceToHost));
            snprintf(what, sizeof what, "f64 n=%zu k=%u cumsum in place", n, k);
            expect(memcmp(gx, cx, n * sizeof *x) == 0, what);

            expect(adn_cumsum_f32_fold(y, cy, n, k) == ADN_OK, "cpu cumsum f32");
            CUDA(cudaMemset(dcy, 0xA5, n * sizeof *y));
            expect(adn_cuda_cumsum_f32_fold(dy, dcy, n, k) == ADN_OK, "cuda cumsum f32 device");
            CUDA(cudaMemcpy(gy, dcy, n * sizeof *y, cudaMemcpyDeviceToHost));
            snprintf(what, sizeof what, "f32 n=%zu k=%u cumsum device", n, k);
            expect(memcmp(gy, cy, n * sizeof *y) == 0, what);
        }
        /* Refusals: nothing written. */
        double keep = -1.0;
        expect(adn_cuda_sum_f64_fold(dx, n, ADN_MAX_FOLD_GPU + 1, &keep) == ADN_INVALID_FOLD && keep == -1.0,
               "fold past ADN_MAX_FOLD_GPU refused");
        expect(adn_cuda_cumsum_f64(x, dcx, n) == ADN_INVALID_POINTER, "host input, device output refused");
        expect(adn_cuda_sum_f64(dx, n, NULL) == ADN_NULL_POINTER, "NULL out refused");
        CUDA(cudaStreamDestroy(st));
        CUDA(cudaFree(dx));
        CUDA(cudaFree(dcx));
        CUDA(cudaFree(dy));
        CUDA(cudaFree(dcy));
        free(x), free(cx), free(gx), free(y), free(cy), free(gy);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
