/*
 * Tests of the CUDA variants of include/reprosum_mpi.h (adn_mpi_cuda_sum_f64 and its
 * siblings) on shards in device memory, on a GPU machine with a libreprosum built with
 * `--features cuda`:
 *
 *   cargo build -p reprosum-ffi --release --features cuda
 *   mpicc -std=c11 -O1 -Wall -Wextra -Werror -ffp-contract=off -Iinclude -Iexamples-c \
 *         ffi/tests/c/test_mpi_cuda.c target/release/libreprosum.a \
 *         -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o test_mpi_cuda
 *   mpirun -n 4 ./test_mpi_cuda
 *
 * Device memory comes from the CUDA runtime or driver opened at run time (dlopen of
 * libcudart, else libcuda), so the program builds anywhere; rank r uses device r mod (number
 * of devices). Every rank compares with the one-process CPU results (adn_sum_f64_fold,
 * adn_cumsum_f64_fold) bit for bit: sums, every element of every cumulative-sum slice (into
 * device memory, and in place on the device), folds 2, 3, 5, 8 and ADN_MAX_FOLD_F32 (21, the
 * run-time-fold kernels; the largest fold of both types), f64 and
 * f32, the splits and data sets of test_mpi.c, shards in device memory and in host memory;
 * then a fold past ADN_MAX_FOLD_GPU (refused by the device on every rank alike) and a host
 * input with a device output (ADN_INVALID_POINTER, on the ranks whose slice is not empty: the
 * one status the ranks do not agree on).
 *
 * Without a CUDA build (ADN_NOT_BUILT) or a GPU (ADN_NO_DEVICE), it checks that
 * every rank gets that same status from every entry point, prints
 *   test_mpi_cuda ranks=P: SKIPPED device checks: REASON
 * and exits 0; else it prints "test_mpi_cuda ranks=P: N passed, 0 failed".
 */
#include <dlfcn.h>

#include "mpi_test_util.h"

/* Device memory through the CUDA runtime (libcudart) or, without it, the driver API
 * (libcuda, the primary context of the device, as libreprosum uses), looked up at run time. */
static struct {
    const char *api;
    int (*rt_malloc)(void **, size_t);
    int (*rt_free)(void *);
    int (*rt_memcpy)(void *, const void *, size_t, int);
    int (*rt_device_count)(int *);
    int (*rt_set_device)(int);
    int (*cu_init)(unsigned);
    int (*cu_device_count)(int *);
    int (*cu_device_get)(int *, int);
    int (*cu_primary_ctx_retain)(void **, int);
    int (*cu_ctx_set_current)(void *);
    int (*cu_mem_alloc)(unsigned long long *, size_t);
    int (*cu_mem_free)(unsigned long long);
    int (*cu_memcpy_htod)(unsigned long long, const void *, size_t);
    int (*cu_memcpy_dtoh)(void *, unsigned long long, size_t);
} cuda;
enum { H2D = 1, D2H = 2 };

/* POSIX: a dlsym result converts to a function pointer; memcpy keeps ISO C quiet. */
static int sym(void *h, const char *name, void *fp, size_t size) {
    void *f = dlsym(h, name);
    if (!f) return 0;
    memcpy(fp, &f, size);
    return 1;
}
#define SYM(h, name, field) sym((h), (name), &cuda.field, sizeof cuda.field)

static int load_cuda(void) {
    const char *rt[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof rt / sizeof rt[0] && !h; i++) h = dlopen(rt[i], RTLD_NOW);
    if (h && SYM(h, "cudaMalloc", rt_malloc) && SYM(h, "cudaFree", rt_free) && SYM(h, "cudaMemcpy", rt_memcpy) &&
        SYM(h, "cudaGetDeviceCount", rt_device_count) && SYM(h, "cudaSetDevice", rt_set_device)) {
        cuda.api = "the CUDA runtime (libcudart)";
        return 1;
    }
    h = dlopen("libcuda.so.1", RTLD_NOW);
    if (h && SYM(h, "cuInit", cu_init) && SYM(h, "cuDeviceGetCount", cu_device_count) &&
        SYM(h, "cuDeviceGet", cu_device_get) && SYM(h, "cuDevicePrimaryCtxRetain", cu_primary_ctx_retain) &&
        SYM(h, "cuCtxSetCurrent", cu_ctx_set_current) && SYM(h, "cuMemAlloc_v2", cu_mem_alloc) &&
        SYM(h, "cuMemFree_v2", cu_mem_free) && SYM(h, "cuMemcpyHtoD_v2", cu_memcpy_htod) &&
        SYM(h, "cuMemcpyDtoH_v2", cu_memcpy_dtoh) && cuda.cu_init(0) == 0) {
        cuda.api = "the CUDA driver API (libcuda)";
        return 1;
    }
    return 0;
}

static int device_count(void) {
    int n = 0;
    if (cuda.rt_malloc ? cuda.rt_device_count(&n) : cuda.cu_device_count(&n)) return 0;
    return n;
}

static int set_device(int d) {
    if (cuda.rt_malloc) return cuda.rt_set_device(d) == 0;
    int dev;
    void *ctx;
    return cuda.cu_device_get(&dev, d) == 0 && cuda.cu_primary_ctx_retain(&ctx, dev) == 0 &&
           cuda.cu_ctx_set_current(ctx) == 0;
}

static void *dev_alloc(size_t bytes) {
    void *p = NULL;
    unsigned long long d = 0;
    int e = cuda.rt_malloc ? cuda.rt_malloc(&p, bytes ? bytes : 1) : cuda.cu_mem_alloc(&d, bytes ? bytes : 1);
    if (e != 0) {
        fprintf(stderr, "rank %d: device allocation of %zu bytes failed (%d)\n", rank, bytes, e);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return cuda.rt_malloc ? p : (void *)(uintptr_t)d;
}

static void dev_free(void *p) {
    if (cuda.rt_malloc)
        cuda.rt_free(p);
    else
        cuda.cu_mem_free((unsigned long long)(uintptr_t)p);
}

static void copy(void *dst, const void *src, size_t bytes, int kind) {
    int e = 0;
    if (bytes == 0) return;
    if (cuda.rt_malloc)
        e = cuda.rt_memcpy(dst, src, bytes, kind);
    else if (kind == H2D)
        e = cuda.cu_memcpy_htod((unsigned long long)(uintptr_t)dst, src, bytes);
    else
        e = cuda.cu_memcpy_dtoh(dst, (unsigned long long)(uintptr_t)src, bytes);
    if (e != 0) {
        fprintf(stderr, "rank %d: device copy failed (%d)\n", rank, e);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Every entry point gives `want` on every rank (the no-device case). */
static void expect_everywhere(adn_status want, const double *x, const float *y) {
    double s, out[4];
    float t, outf[4];
    expect_all(adn_mpi_cuda_sum_f64(x, 4, 3, &s, MPI_COMM_WORLD), want, "cuda sum f64");
    expect_all(adn_mpi_cuda_sum_f32(y, 4, 3, &t, MPI_COMM_WORLD), want, "cuda sum f32");
    expect_all(adn_mpi_cuda_cumsum_f64(x, out, 4, 3, MPI_COMM_WORLD), want, "cuda cumsum f64");
    expect_all(adn_mpi_cuda_cumsum_f32(y, outf, 4, 3, MPI_COMM_WORLD), want, "cuda cumsum f32");
    /* An empty shard on some ranks changes nothing. */
    expect_all(adn_mpi_cuda_sum_f64(x, (size_t)(rank % 2) * 4, 3, &s, MPI_COMM_WORLD), want, "cuda sum, empty shards");
}

/* The device sums and cumulative sums of one data set against the CPU's. */
static void check_data(const char *set, const double *x, const float *y, size_t n, int device_memory) {
    const unsigned folds[] = {2, 3, 5, 8, ADN_MAX_FOLD_F32};
    double *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    float *wantf = malloc(n * sizeof *wantf), *gotf = malloc(n * sizeof *gotf);
    double *dx = device_memory ? dev_alloc(n * sizeof *dx) : NULL, *dout = device_memory ? dev_alloc(n * sizeof *dout) : NULL;
    float *dy = device_memory ? dev_alloc(n * sizeof *dy) : NULL, *douty = device_memory ? dev_alloc(n * sizeof *douty) : NULL;
    char what[200];
    size_t where = 0;
    for (int fi = 0; fi < (int)(sizeof folds / sizeof folds[0]); fi++) {
        unsigned k = folds[fi];
        double sum64, s;
        float sum32, t;
        adn_sum_f64_fold(x, n, k, &sum64);
        adn_sum_f32_fold(y, n, k, &sum32);
        adn_cumsum_f64_fold(x, want, n, k);
        adn_cumsum_f32_fold(y, wantf, n, k);
        for (int sp = 0; sp < NSPLITS; sp++) {
            size_t lo, hi;
            block(sp, n, rank, nranks, &lo, &hi);
            size_t m = hi - lo;
            snprintf(what, sizeof what, "%s %s split=%s fold=%u", set, device_memory ? "device" : "host", split_names[sp], k);
            /* The shard: device memory (copied there) or host memory. */
            const double *in = x + lo;
            const float *inf = y + lo;
            double *out = got + lo;
            float *outf = gotf + lo;
            if (device_memory) {
                copy(dx, x + lo, m * sizeof *x, H2D);
                copy(dy, y + lo, m * sizeof *y, H2D);
                in = dx;
                inf = dy;
                out = dout;
                outf = douty;
            }
            s = -1.0;
            adn_status st = adn_mpi_cuda_sum_f64(in, m, k, &s, MPI_COMM_WORLD);
            expect(st == ADN_OK && f64_to_bits(s) == f64_to_bits(sum64), what, st);
            t = -1.0f;
            st = adn_mpi_cuda_sum_f32(inf, m, k, &t, MPI_COMM_WORLD);
            expect(st == ADN_OK && f32_to_bits(t) == f32_to_bits(sum32), what, st);

            for (size_t i = 0; i < m; i++) got[lo + i] = -7.0;
            st = adn_mpi_cuda_cumsum_f64(in, out, m, k, MPI_COMM_WORLD);
            if (device_memory) copy(got + lo, dout, m * sizeof *got, D2H);
            expect(st == ADN_OK && same_bits64(got + lo, want + lo, m, &where), what, st ? (long)st : (long)(lo + where));
            for (size_t i = 0; i < m; i++) gotf[lo + i] = -7.0f;
            st = adn_mpi_cuda_cumsum_f32(inf, outf, m, k, MPI_COMM_WORLD);
            if (device_memory) copy(gotf + lo, douty, m * sizeof *gotf, D2H);
            expect(st == ADN_OK && same_bits32(gotf + lo, wantf + lo, m, &where), what, st ? (long)st : (long)(lo + where));

            /* In place (on the device: the shard copied to dout first). */
            if (device_memory) {
                copy(dout, x + lo, m * sizeof *x, H2D);
                st = adn_mpi_cuda_cumsum_f64(dout, dout, m, k, MPI_COMM_WORLD);
                copy(got + lo, dout, m * sizeof *got, D2H);
            } else {
                memcpy(got + lo, x + lo, m * sizeof *x);
                st = adn_mpi_cuda_cumsum_f64(got + lo, got + lo, m, k, MPI_COMM_WORLD);
            }
            expect(st == ADN_OK && same_bits64(got + lo, want + lo, m, &where), what, st ? (long)st : (long)(lo + where));
        }
    }
    /* A fold past ADN_MAX_FOLD_GPU: every rank gets the device's ADN_INVALID_FOLD, even those
     * with an empty shard (the agreement). */
    {
        size_t lo, hi;
        double s = -1.0;
        block(EVEN, n, rank, nranks, &lo, &hi);
        if (device_memory) copy(dx, x + lo, (hi - lo) * sizeof *x, H2D);
        expect_all(adn_mpi_cuda_sum_f64(device_memory ? dx : x + lo, hi - lo, ADN_MAX_FOLD_GPU + 1, &s, MPI_COMM_WORLD), ADN_INVALID_FOLD,
                   "a fold past ADN_MAX_FOLD_GPU");
        expect(s == -1.0, "no output for that fold", 0);
        expect_all(adn_mpi_cuda_cumsum_f64(device_memory ? dx : x + lo, device_memory ? dout : got, hi - lo, ADN_MAX_FOLD_GPU + 1,
                                           MPI_COMM_WORLD),
                   ADN_INVALID_FOLD, "cumsum: a fold past ADN_MAX_FOLD_GPU");
        /* Host input, device output: found by the last, local step only. */
        if (device_memory) {
            block(LAST_ONLY, n, rank, nranks, &lo, &hi);
            adn_status st = adn_mpi_cuda_cumsum_f64(x + lo, dout, hi - lo, 3, MPI_COMM_WORLD);
            expect(st == (hi > lo ? ADN_INVALID_POINTER : ADN_OK), "host input, device output", st);
        }
    }
    if (device_memory) {
        dev_free(dx);
        dev_free(dout);
        dev_free(dy);
        dev_free(douty);
    }
    free(want);
    free(got);
    free(wantf);
    free(gotf);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    double *x = malloc(N_WIDE * sizeof *x), *xs = malloc(N_SPECIAL * sizeof *xs);
    float *y = malloc(N_WIDE * sizeof *y), *ys = malloc(N_SPECIAL * sizeof *ys);
    fill_wide(x, y, N_WIDE);
    fill_special(xs, ys, N_SPECIAL);

    /* What the library says of a small host-memory sum decides what can run. */
    double probe;
    adn_status st = adn_cuda_sum_f64(x, 4, &probe);
    int ok_all, ok = st == ADN_OK;
    MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    const char *skip = NULL;
    char reason[200];
    if (!ok_all) {
        /* Every rank must agree on the failure too. */
        expect_all(st, st, "the probe's status");
        expect_everywhere(st, x, y);
        snprintf(reason, sizeof reason, "%s (status %d: %s)",
                 st == ADN_NOT_BUILT ? "libreprosum built without --features cuda"
                 : st == ADN_NO_DEVICE ? "no usable CUDA device" : "the CUDA probe failed",
                 st, adn_status_string(st));
        skip = reason;
    } else {
        check_data("wide", x, y, N_WIDE, 0);
        check_data("special", xs, ys, N_SPECIAL, 0);
        int ndev = load_cuda() ? device_count() : 0;
        int have = ndev > 0 && set_device(rank % ndev), all_have;
        MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (all_have) {
            if (rank == 0) printf("test_mpi_cuda: device memory from %s, %d device(s)\n", cuda.api, ndev);
            check_data("wide", x, y, N_WIDE, 1);
            check_data("special", xs, ys, N_SPECIAL, 1);
        } else {
            snprintf(reason, sizeof reason, "host-memory shards checked; neither libcudart nor libcuda gave device memory");
            skip = reason;
        }
    }

    long counts[2] = {passed, failed}, total[2];
    MPI_Reduce(counts, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (skip) printf("test_mpi_cuda ranks=%d: SKIPPED device checks: %s\n", nranks, skip);
        printf("test_mpi_cuda ranks=%d: %ld passed, %ld failed\n", nranks, total[0], total[1]);
    }
    free(x);
    free(y);
    free(xs);
    free(ys);
    MPI_Finalize();
    return rank == 0 && total[1] != 0 ? 1 : 0;
}
