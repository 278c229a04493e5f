/*
 * The memory kinds and sizes users pass to the CUDA entry points (issue 16, item 4), checked
 * bit for bit against the CPU entry points. Needs a GPU, the CUDA runtime and a libreprosum
 * built with the cuda feature:
 *
 *   cargo build --release -p reprosum-ffi --features cuda
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude -I/usr/local/cuda/include \
 *      examples-c/cuda_memory.c target/release/libreprosum.a -L/usr/local/cuda/lib64 -lcudart \
 *      -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o cuda_memory
 *   ./cuda_memory small        (the default: under a minute, about 1 GB of device memory)
 *   ./cuda_memory large        (2 to 4 minutes: about 70 GB of host, 105 GB of device memory)
 *   ./cuda_memory capacity     (the f32 capacity part of large alone: 35 GB host, 35 GB device)
 *   ./cuda_memory 2147483647   (the f64 part of large at the sizes given)
 *
 * Every result is compared with the CPU's on the same values: a sum's bits (memcmp), an
 * accumulator's encoding (adn_acc_*_to_bytes), every element of a cumulative sum.
 * small:
 *  - Memory kinds: cudaMalloc (device), cudaMallocManaged (managed), cudaMallocHost (pinned)
 *    and malloc (pageable); f64 and f32; n = 1, 1000, 4097, 1000003; folds 2, 3, 8. Input and
 *    output of one kind: adn_cuda_sum_*_fold, _stream (and adn_cuda_sum_* at fold 3) against
 *    adn_sum_*_fold; adn_cuda_acc_*_add_array into an empty accumulator, then _stream of the
 *    last two thirds onto it, against adn_acc_*_add_array; adn_cuda_cumsum_*_fold, _stream
 *    (and adn_cuda_cumsum_* at fold 3) into an output poisoned with 0xA5 bytes, and in place,
 *    against adn_cumsum_*_fold; adn_cuda_cumsum_*_from (fold 8: _from_stream) of the last two
 *    thirds from the CPU accumulator of the first third, the first third left poisoned; the
 *    input unchanged.
 *  - Mixed memories (n = 4097 and 1000003, fold 3, every pair of different kinds, cumsum
 *    _fold, _stream, plain and _from): the library uses device and managed memory in place
 *    on the device that holds it and copies pinned and pageable memory (gpu/src/cuda.rs,
 *    memory_of: the driver's CU_POINTER_ATTRIBUTE_MEMORY_TYPE), and a cumulative sum's
 *    output must live where its input lives (include/reprosum.h). So input and output both
 *    device/managed, or both pinned/pageable: ADN_OK and the CPU's bits; one of each:
 *    ADN_INVALID_POINTER, the output untouched (still poisoned).
 *  - Two devices, when there are: device 1's memory used in place while device 0 is
 *    current (device 0 current again afterwards); input and output on different devices:
 *    ADN_INVALID_POINTER, the output untouched.
 *  - f32 past its capacity (ADN_CAPACITY_F32 = 4,294,966,784 = 2^32 - 512 values; the f64
 *    capacity, about 9.2e18, cannot be reached), without allocating that many floats:
 *    * an accumulator filled on the GPU with 63 adds of one device array of 2^26 floats and
 *      one of 2^26 - 512 (folds 3 and 8) holds exactly the capacity, with the encoding of
 *      the same adds on the CPU; one more value, from each memory kind, _add_array and
 *      _stream: ADN_CAPACITY_EXCEEDED, the accumulator unchanged (the CPU refuses too);
 *    * from a start 10 values short of the capacity, adn_cuda_cumsum_f32_from of 10 values
 *      (each kind) gives the CPU's adn_cumsum_f32_from; 11 values, or 1 from the full
 *      accumulator, and in place: ADN_CAPACITY_EXCEEDED, the output untouched;
 *    * n = capacity + 1 in managed and in pageable memory (virtual allocations of 17 GB of
 *      which only the poisoned first and last 16 KiB are ever touched): every sum,
 *      add_array, cumsum (also in place) and cumsum_from entry point refuses it, the scalar
 *      output, the accumulator and the poisoned ends unchanged.
 * large:
 *  - f64 at N = 2^31 - 1, 2(2^31 - 1) and 2^32 + 1 (CUB's reproducible reduce is wrong at
 *    exactly k(2^31 - 1)), one array of 2^32 + 1 values (34.4 GB) of which each N is a
 *    prefix: adn_cuda_sum_f64_fold at folds 2, 3, 8 and the pageable-host sum (copied) at
 *    fold 3 against adn_sum_f64_fold of the N values; adn_cuda_acc_f64_add_array against
 *    adn_acc_f64_add_array; adn_cuda_cumsum_f64_fold into a poisoned device output and
 *    adn_cuda_cumsum_f64_stream in place, every one of the N elements against
 *    adn_cumsum_f64_fold of the longest array (element i depends on x[0..=i] only; its
 *    element N - 1 is the CPU's sum of the N values), the 1024 elements after the N-th left
 *    poisoned. Host memory: the input and the CPU's cumsum, 2 x 34.4 GB; device: the input
 *    and the output, 2 x 34.4 GB, and the library's staging buffer for the copied sum,
 *    34.4 GB. Each step's time is printed.
 *  - f32 at its capacity, then past it: capacity + 1 floats (17.2 GB) in device memory and
 *    in pinned host memory: at n = capacity the device sums (folds 3, 8), the pinned sum
 *    (copied), add_array and the cumsum into a poisoned output (every element) against the
 *    CPU; at capacity + 1, every sum, add_array, cumsum (also in place) and cumsum_from
 *    entry point: ADN_CAPACITY_EXCEEDED, with the scalar output and the accumulator
 *    unchanged, the poisoned output still poisoned and the in-place input unchanged (all
 *    17.2 GB compared).
 * Prints "N passed, M failed" and exits 1 on any failure; 2 when a CUDA call or an
 * allocation fails (or the library lacks the cuda feature); 77, with a SKIP line saying why,
 * when there is no CUDA device (nothing is checked then).
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reprosum.h"

static int passed, failed;
static char ctx[200];

static void expect(int ok, const char *what) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s: %s\n", ctx, what);
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
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Prints the time since t0 beside a step's name; returns the time now. */
static double step(double t0, const char *what) {
    double t = now();
    printf("  %8.3f s  %s\n", t - t0, what);
    return t;
}

/* ------------------------------------------------------------------------------------ */
/* Values: mixed signs and magnitudes 2^-30..2^30, one in 1000 near 1e12 (cancellation),
 * as in cuda_from.c, but each a function of its index, so that the large arrays fill in
 * parallel and a shorter array is a prefix of a longer one. */

static double pow2[61];

static uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double value(uint64_t seed, uint64_t i) {
    uint64_t r = mix(seed ^ mix(i));
    if (i % 1000 == 7) return r & 2 ? 1e12 : -1e12;
    double v = (1.0 + (double)(r >> 12) * 0x1p-52) * pow2[r % 61];
    return r & 1 ? -v : v;
}

struct fill_job {
    void *x;
    size_t lo, hi;
    uint64_t seed;
    int f32;
};

static void *fill_part(void *arg) {
    const struct fill_job *j = arg;
    if (j->f32) {
        float *x = j->x;
        for (size_t i = j->lo; i < j->hi; i++) x[i] = (float)value(j->seed, i);
    } else {
        double *x = j->x;
        for (size_t i = j->lo; i < j->hi; i++) x[i] = value(j->seed, i);
    }
    return NULL;
}

static void fill(void *x, size_t n, uint64_t seed, int f32) {
    enum { MAX_THREADS = 64 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int t = n < (1u << 22) || cores < 2 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
    struct fill_job jobs[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    for (int i = 0; i < t; i++) {
        size_t part = n / (size_t)t;
        jobs[i] = (struct fill_job){x, part * (size_t)i, i == t - 1 ? n : part * (size_t)(i + 1), seed, f32};
        if (i > 0 && pthread_create(&threads[i], NULL, fill_part, &jobs[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(2);
        }
    }
    fill_part(&jobs[0]);
    for (int i = 1; i < t; i++) pthread_join(threads[i], NULL);
}

static void fill_f64(void *x, size_t n, uint64_t seed) { fill(x, n, seed, 0); }
static void fill_f32(void *x, size_t n, uint64_t seed) { fill(x, n, seed, 1); }

/* ------------------------------------------------------------------------------------ */
/* Memory kinds. */

enum { DEVICE, MANAGED, PINNED, PAGEABLE, KINDS };
static const char *const kind_name[KINDS] = {"device", "managed", "pinned", "pageable"};

/* Where the library runs on the memory: device and managed in place, the others copied. */
static int in_place(int k) { return k == DEVICE || k == MANAGED; }

static void *kind_alloc(int k, size_t bytes) {
    void *p = NULL;
    switch (k) {
    case DEVICE: CUDA(cudaMalloc(&p, bytes)); break;
    case MANAGED: CUDA(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)); break;
    case PINNED: CUDA(cudaMallocHost(&p, bytes)); break;
    default: p = xmalloc(bytes);
    }
    return p;
}

static void kind_free(int k, void *p) {
    switch (k) {
    case DEVICE:
    case MANAGED: CUDA(cudaFree(p)); break;
    case PINNED: CUDA(cudaFreeHost(p)); break;
    default: free(p);
    }
}

/* Copies between any two kinds (unified addressing). */
static void copy(void *dst, const void *src, size_t bytes) {
    if (bytes) CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
}

static void poison(int k, void *p, size_t bytes) {
    if (!bytes) return;
    if (k == DEVICE || k == MANAGED) {
        CUDA(cudaMemset(p, 0xA5, bytes));
        CUDA(cudaDeviceSynchronize());
    } else {
        memset(p, 0xA5, bytes);
    }
}

/* Comparisons of memory of any kind with host memory, through a pinned staging buffer. */
#define STAGE ((size_t)64 << 20)
static unsigned char *stage, *poison_block;

static void staging(void) {
    if (!stage) {
        CUDA(cudaMallocHost((void **)&stage, STAGE));
        poison_block = xmalloc(STAGE);
        memset(poison_block, 0xA5, STAGE);
    }
}

/* Whether `bytes` bytes at p (any kind) equal those at h (host; NULL: the poison byte). */
static int equals(const void *p, const void *h, size_t bytes) {
    staging();
    for (size_t o = 0; o < bytes; o += STAGE) {
        size_t c = bytes - o < STAGE ? bytes - o : STAGE;
        copy(stage, (const char *)p + o, c);
        if (memcmp(stage, h ? (const char *)h + o : (const char *)poison_block, c) != 0) return 0;
    }
    return 1;
}

static int poisoned(const void *p, size_t bytes) { return equals(p, NULL, bytes); }

/* ------------------------------------------------------------------------------------ */
/* The entry points of both types behind one table. */

/* The variants of an entry point: the CPU's, the GPU's (_fold), _stream, and the plain one
 * at fold 3 (sums and cumsums); the names' suffixes for sums and cumsums, and for add_array
 * and cumsum_from. */
enum { CPU, FOLD, STREAM, PLAIN };
static const char *const sfx[] = {"(cpu)", "_fold", "_stream", ""};
static const char *const sfx_acc[] = {"(cpu)", "", "_stream", ""};

typedef union {
    adn_acc_f64 d;
    adn_acc_f32 f;
} acc_t;

typedef union {
    double d;
    float f;
} scalar_t;

typedef struct {
    const char *name;
    size_t size;
    void (*fill)(void *x, size_t n, uint64_t seed);
    /* CPU: adn_sum_*_fold; FOLD, STREAM, PLAIN: adn_cuda_sum_*_fold, _stream, adn_cuda_sum_*. */
    adn_status (*sum)(const void *x, size_t n, unsigned fold, scalar_t *out, int v, cudaStream_t st);
    adn_status (*cumsum)(const void *in, void *out, size_t n, unsigned fold, int v, cudaStream_t st);
    adn_status (*init)(acc_t *a, unsigned fold);
    adn_status (*add)(acc_t *a, const void *x, size_t n, int v, cudaStream_t st);
    adn_status (*from)(const acc_t *a, const void *in, void *out, size_t n, int v, cudaStream_t st);
    adn_status (*bytes)(const acc_t *a, uint8_t *buf, size_t cap, size_t *len);
    adn_status (*count)(const acc_t *a, uint64_t *n);
} type_ops;

#define OPS(T, F, M)                                                                              \
    static adn_status sum_##F(const void *x, size_t n, unsigned fold, scalar_t *out, int v,      \
                              cudaStream_t st) {                                                  \
        switch (v) {                                                                              \
        case CPU: return adn_sum_##F##_fold(x, n, fold, &out->M);                                 \
        case FOLD: return adn_cuda_sum_##F##_fold(x, n, fold, &out->M);                           \
        case STREAM: return adn_cuda_sum_##F##_stream(x, n, fold, &out->M, st);                   \
        default: return adn_cuda_sum_##F(x, n, &out->M);                                          \
        }                                                                                         \
    }                                                                                             \
    static adn_status cumsum_##F(const void *in, void *out, size_t n, unsigned fold, int v,      \
                                 cudaStream_t st) {                                               \
        switch (v) {                                                                              \
        case CPU: return adn_cumsum_##F##_fold(in, out, n, fold);                                 \
        case FOLD: return adn_cuda_cumsum_##F##_fold(in, out, n, fold);                           \
        case STREAM: return adn_cuda_cumsum_##F##_stream(in, out, n, fold, st);                   \
        default: return adn_cuda_cumsum_##F(in, out, n);                                          \
        }                                                                                         \
    }                                                                                             \
    static adn_status init_##F(acc_t *a, unsigned fold) { return adn_acc_##F##_init(&a->M, fold); } \
    static adn_status add_##F(acc_t *a, const void *x, size_t n, int v, cudaStream_t st) {        \
        switch (v) {                                                                              \
        case CPU: return adn_acc_##F##_add_array(&a->M, x, n);                                    \
        case STREAM: return adn_cuda_acc_##F##_add_array_stream(&a->M, x, n, st);                 \
        default: return adn_cuda_acc_##F##_add_array(&a->M, x, n);                                \
        }                                                                                         \
    }                                                                                             \
    static adn_status from_##F(const acc_t *a, const void *in, void *out, size_t n, int v,       \
                               cudaStream_t st) {                                                 \
        switch (v) {                                                                              \
        case CPU: return adn_cumsum_##F##_from(&a->M, in, out, n);                                \
        case STREAM: return adn_cuda_cumsum_##F##_from_stream(&a->M, in, out, n, st);             \
        default: return adn_cuda_cumsum_##F##_from(&a->M, in, out, n);                            \
        }                                                                                         \
    }                                                                                             \
    static adn_status bytes_##F(const acc_t *a, uint8_t *buf, size_t cap, size_t *len) {          \
        return adn_acc_##F##_to_bytes(&a->M, buf, cap, len);                                      \
    }                                                                                             \
    static adn_status count_##F(const acc_t *a, uint64_t *n) { return adn_acc_##F##_count(&a->M, n); } \
    static const type_ops ops_##F = {#F, sizeof(T), fill_##F, sum_##F, cumsum_##F, init_##F,     \
                                     add_##F, from_##F, bytes_##F, count_##F};

OPS(double, f64, d)
OPS(float, f32, f)

static int same_acc(const type_ops *t, const acc_t *a, const acc_t *b) {
    uint8_t ea[ADN_ACC_ENCODED_MAX], eb[ADN_ACC_ENCODED_MAX];
    size_t la = 0, lb = 0;
    return t->bytes(a, ea, sizeof ea, &la) == ADN_OK && t->bytes(b, eb, sizeof eb, &lb) == ADN_OK &&
           la == lb && memcmp(ea, eb, la) == 0;
}

static int has_count(const type_ops *t, const acc_t *a, uint64_t want) {
    uint64_t c = 0;
    return t->count(a, &c) == ADN_OK && c == want;
}

static char *at(const void *p, size_t i, const type_ops *t) { return (char *)p + i * t->size; }

/* "call: rest", the call's name made from `call` (a format taking the type's name and the
 * variant's suffix). */
static char what[256];
static const char *named(const char *call, const char *type, const char *const *suffix, int v,
                         const char *rest) {
    char c[80];
    snprintf(c, sizeof c, call, type, suffix[v]);
    snprintf(what, sizeof what, "%s: %s", c, rest);
    return what;
}

/* ------------------------------------------------------------------------------------ */
/* small: input and output of one kind. */

static void kinds(const type_ops *t, int k, cudaStream_t st) {
    const size_t sizes[] = {1, 1000, 4097, 1000003};
    const unsigned folds[] = {2, 3, 8};
    int p0 = passed, f0 = failed;
    double t0 = now();
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si], bytes = n * t->size, m = n / 3;
        char *x = xmalloc(bytes), *want = xmalloc(bytes), *tail = xmalloc(bytes);
        t->fill(x, n, n);
        char *in = kind_alloc(k, bytes), *out = kind_alloc(k, bytes);
        copy(in, x, bytes);
        for (size_t fi = 0; fi < sizeof folds / sizeof folds[0]; fi++) {
            unsigned fold = folds[fi];
            snprintf(ctx, sizeof ctx, "%s %s n %zu fold %u", t->name, kind_name[k], n, fold);
            /* Sums. */
            scalar_t cpu, gpu;
            expect(t->sum(x, n, fold, &cpu, CPU, NULL) == ADN_OK, "cpu sum");
            for (int v = FOLD; v <= PLAIN; v++) {
                if (v == PLAIN && fold != ADN_DEFAULT_FOLD) continue;
                memset(&gpu, 0xA5, sizeof gpu);
                expect(t->sum(in, n, fold, &gpu, v, st) == ADN_OK && memcmp(&gpu, &cpu, t->size) == 0,
                       named("adn_cuda_sum_%s%s", t->name, sfx, v, "the CPU's bits"));
            }
            /* Accumulators: everything, then the last two thirds again onto it. */
            acc_t ac, ag;
            expect(t->init(&ac, fold) == ADN_OK && t->init(&ag, fold) == ADN_OK, "init");
            expect(t->add(&ac, x, n, CPU, NULL) == ADN_OK, "cpu add_array");
            expect(t->add(&ag, in, n, FOLD, NULL) == ADN_OK && same_acc(t, &ac, &ag),
                   named("adn_cuda_acc_%s_add_array%s", t->name, sfx_acc, FOLD, "the CPU's encoding"));
            expect(t->add(&ac, at(x, m, t), n - m, CPU, NULL) == ADN_OK, "cpu add_array");
            expect(t->add(&ag, at(in, m, t), n - m, STREAM, st) == ADN_OK && same_acc(t, &ac, &ag) &&
                       has_count(t, &ag, 2 * n - m),
                   named("adn_cuda_acc_%s_add_array%s", t->name, sfx_acc, STREAM,
                         "onto a non-empty accumulator, the CPU's encoding"));
            /* Cumulative sums into a poisoned output, and in place. */
            expect(t->cumsum(x, want, n, fold, CPU, NULL) == ADN_OK, "cpu cumsum");
            expect(memcmp(at(want, n - 1, t), &cpu, t->size) == 0, "the cpu cumsum's last element is the cpu sum");
            for (int v = FOLD; v <= PLAIN; v++) {
                if (v == PLAIN && fold != ADN_DEFAULT_FOLD) continue;
                poison(k, out, bytes);
                expect(t->cumsum(in, out, n, fold, v, st) == ADN_OK && equals(out, want, bytes),
                       named("adn_cuda_cumsum_%s%s", t->name, sfx, v,
                             "into a poisoned output, every element the CPU's"));
            }
            copy(out, in, bytes);
            int v = fold == 8 ? STREAM : FOLD;
            expect(t->cumsum(out, out, n, fold, v, st) == ADN_OK && equals(out, want, bytes),
                   named("adn_cuda_cumsum_%s%s", t->name, sfx, v, "in place, every element the CPU's"));
            /* From the CPU accumulator of the first third: the rest; the first third untouched. */
            acc_t start, keep;
            expect(t->init(&start, fold) == ADN_OK && t->add(&start, x, m, CPU, NULL) == ADN_OK, "start");
            keep = start;
            expect(t->from(&start, at(x, m, t), tail, n - m, CPU, NULL) == ADN_OK &&
                       memcmp(tail, at(want, m, t), (n - m) * t->size) == 0,
                   "cpu cumsum_from is the cumsum's tail");
            poison(k, out, bytes);
            expect(t->from(&start, at(in, m, t), at(out, m, t), n - m, v, st) == ADN_OK &&
                       equals(at(out, m, t), at(want, m, t), (n - m) * t->size),
                   named("adn_cuda_cumsum_%s_from%s", t->name, sfx_acc, v,
                         "from the CPU's accumulator, every element the CPU's"));
            expect(poisoned(out, m * t->size), "cumsum_from wrote nothing before its output");
            expect(memcmp(&keep, &start, sizeof start) == 0, "cumsum_from left its start unchanged");
            expect(equals(in, x, bytes), "the input unchanged");
        }
        kind_free(k, in);
        kind_free(k, out);
        free(x);
        free(want);
        free(tail);
    }
    printf("%s %-8s: sum, add_array, cumsum (poisoned output, in place), cumsum_from; n 1, 1000, 4097, "
           "1000003; folds 2, 3, 8: %d passed, %d failed (%.2f s)\n",
           t->name, kind_name[k], passed - p0, failed - f0, now() - t0);
}

/* small: input of one kind, output of another. */
static void mixed(const type_ops *t, cudaStream_t st) {
    const size_t sizes[] = {4097, 1000003};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si], bytes = n * t->size, m = n / 3;
        char *x = xmalloc(bytes), *want = xmalloc(bytes);
        t->fill(x, n, n + 1);
        expect(t->cumsum(x, want, n, 3, CPU, NULL) == ADN_OK, "cpu cumsum");
        acc_t start;
        expect(t->init(&start, 3) == ADN_OK && t->add(&start, x, m, CPU, NULL) == ADN_OK, "start");
        for (int ki = 0; ki < KINDS; ki++) {
            for (int ko = 0; ko < KINDS; ko++) {
                if (ki == ko) continue;
                int p0 = passed, f0 = failed;
                adn_status want_st = in_place(ki) == in_place(ko) ? ADN_OK : ADN_INVALID_POINTER;
                snprintf(ctx, sizeof ctx, "%s input %s, output %s, n %zu fold 3", t->name, kind_name[ki],
                         kind_name[ko], n);
                char *in = kind_alloc(ki, bytes), *out = kind_alloc(ko, bytes);
                copy(in, x, bytes);
                /* Cases 0-2: adn_cuda_cumsum_*_fold, _stream, plain; 3-4: _from, _from_stream. */
                for (int c = 0; c < 5; c++) {
                    int v = c < 3 ? FOLD + c : FOLD + c - 3, whole = c < 3;
                    poison(ko, out, bytes);
                    adn_status s = whole ? t->cumsum(in, out, n, 3, v, st)
                                         : t->from(&start, at(in, m, t), at(out, m, t), n - m, v, st);
                    char status[120];
                    snprintf(status, sizeof status, "status %d (%s), want %d", s, adn_status_string(s), want_st);
                    expect(s == want_st, whole ? named("adn_cuda_cumsum_%s%s", t->name, sfx, v, status)
                                               : named("adn_cuda_cumsum_%s_from%s", t->name, sfx_acc, v, status));
                    if (want_st == ADN_OK && whole) {
                        expect(equals(out, want, bytes), "every element");
                    } else if (want_st == ADN_OK) {
                        expect(equals(at(out, m, t), at(want, m, t), (n - m) * t->size), "every element");
                        expect(poisoned(out, m * t->size), "nothing written before the output");
                    } else {
                        expect(poisoned(out, bytes), "the output untouched");
                    }
                }
                expect(equals(in, x, bytes), "the input unchanged");
                printf("%s input %-8s output %-8s n %7zu: %s expected (%s), %d passed, %d failed\n", t->name,
                       kind_name[ki], kind_name[ko], n, want_st == ADN_OK ? "ADN_OK" : "ADN_INVALID_POINTER",
                       want_st == ADN_OK ? "the CPU's bits" : "output untouched", passed - p0, failed - f0);
                kind_free(ki, in);
                kind_free(ko, out);
            }
        }
        free(x);
        free(want);
    }
}

/* small: memory of a second device. */
static void two_devices(int devices) {
    if (devices < 2) {
        printf("one CUDA device: the cases with memory on a second device are not checked\n");
        return;
    }
    const type_ops *t = &ops_f64;
    size_t n = 4097, bytes = n * t->size;
    snprintf(ctx, sizeof ctx, "f64 n %zu, devices 0 and 1", n);
    char *x = xmalloc(bytes), *want = xmalloc(bytes);
    t->fill(x, n, 17);
    scalar_t cpu, gpu;
    expect(t->sum(x, n, 3, &cpu, CPU, NULL) == ADN_OK && t->cumsum(x, want, n, 3, CPU, NULL) == ADN_OK, "cpu");
    char *d0, *d1, *o1;
    CUDA(cudaMalloc((void **)&d0, bytes));
    CUDA(cudaSetDevice(1));
    CUDA(cudaMalloc((void **)&d1, bytes));
    CUDA(cudaMalloc((void **)&o1, bytes));
    CUDA(cudaSetDevice(0));
    copy(d0, x, bytes);
    copy(d1, x, bytes);
    int cur = -1;
    expect(t->sum(d1, n, 3, &gpu, FOLD, NULL) == ADN_OK && memcmp(&gpu, &cpu, t->size) == 0,
           "device 1's memory summed in place while device 0 is current");
    expect(cudaGetDevice(&cur) == cudaSuccess && cur == 0, "device 0 current again");
    CUDA(cudaSetDevice(1));
    poison(DEVICE, o1, bytes);
    CUDA(cudaSetDevice(0));
    expect(t->cumsum(d1, o1, n, 3, FOLD, NULL) == ADN_OK && equals(o1, want, bytes),
           "cumsum on device 1 while device 0 is current");
    expect(cudaGetDevice(&cur) == cudaSuccess && cur == 0, "device 0 current again");
    CUDA(cudaSetDevice(1));
    poison(DEVICE, o1, bytes);
    CUDA(cudaSetDevice(0));
    expect(t->cumsum(d0, o1, n, 3, FOLD, NULL) == ADN_INVALID_POINTER && poisoned(o1, bytes),
           "input on device 0, output on device 1: ADN_INVALID_POINTER, the output untouched");
    printf("two devices: device 1's memory in place, and input and output on different devices refused\n");
    CUDA(cudaFree(d0));
    CUDA(cudaFree(d1));
    CUDA(cudaFree(o1));
    free(x);
    free(want);
}

/* ------------------------------------------------------------------------------------ */
/* small: f32 past its capacity, by accumulators, and with virtual allocations. */

#define CAP ((size_t)ADN_CAPACITY_F32)

static void capacity_by_accumulators(cudaStream_t st) {
    const type_ops *t = &ops_f32;
    const size_t b = (size_t)1 << 26;
    _Static_assert(ADN_CAPACITY_F32 == 64ull * (1ull << 26) - 512, "the f32 capacity is 64 x 2^26 - 512");
    int p0 = passed, f0 = failed;
    double t0 = now();
    float *x = xmalloc(b * sizeof *x), *dx;
    t->fill(x, b, 31);
    CUDA(cudaMalloc((void **)&dx, b * sizeof *x));
    copy(dx, x, b * sizeof *x);
    /* Small buffers of every kind: the input's first 11 values, an output. */
    float *kin[KINDS], *kout[KINDS], want[11], got[11];
    for (int k = 0; k < KINDS; k++) {
        kin[k] = kind_alloc(k, 11 * sizeof(float));
        kout[k] = kind_alloc(k, 11 * sizeof(float));
        copy(kin[k], x, 11 * sizeof(float));
    }
    const unsigned folds[] = {3, 8};
    for (size_t fi = 0; fi < 2; fi++) {
        unsigned fold = folds[fi];
        snprintf(ctx, sizeof ctx, "f32 at the capacity %zu, fold %u", CAP, fold);
        acc_t ac, ag;
        expect(t->init(&ac, fold) == ADN_OK && t->init(&ag, fold) == ADN_OK, "init");
        for (int i = 0; i < 63; i++) {
            expect(t->add(&ac, x, b, CPU, NULL) == ADN_OK, "cpu add_array");
            expect(t->add(&ag, dx, b, i % 2 ? STREAM : FOLD, st) == ADN_OK, "adn_cuda_acc_f32_add_array");
        }
        expect(t->add(&ac, x, b - 522, CPU, NULL) == ADN_OK && t->add(&ag, dx, b - 522, FOLD, NULL) == ADN_OK,
               "add_array to 10 short of the capacity");
        expect(same_acc(t, &ac, &ag) && has_count(t, &ag, CAP - 10), "10 short of the capacity: the CPU's encoding");
        acc_t near = ac;
        expect(t->add(&ac, x + b - 522, 10, CPU, NULL) == ADN_OK && t->add(&ag, dx + b - 522, 10, FOLD, NULL) == ADN_OK,
               "add_array to the capacity");
        expect(same_acc(t, &ac, &ag) && has_count(t, &ag, CAP), "at the capacity: the CPU's encoding");
        acc_t keep = ac;
        expect(t->add(&ac, x, 1, CPU, NULL) == ADN_CAPACITY_EXCEEDED && memcmp(&keep, &ac, sizeof ac) == 0,
               "cpu: one more value refused, the accumulator unchanged");
        keep = ag;
        for (int k = 0; k < KINDS; k++) {
            for (int v = FOLD; v <= STREAM; v++) {
                char msg[160];
                snprintf(msg, sizeof msg, "one more value (%s) refused with ADN_CAPACITY_EXCEEDED, unchanged",
                         kind_name[k]);
                expect(t->add(&ag, kin[k], 1, v, st) == ADN_CAPACITY_EXCEEDED && memcmp(&keep, &ag, sizeof ag) == 0,
                       named("adn_cuda_acc_%s_add_array%s", "f32", sfx_acc, v, msg));
            }
            expect(t->add(&ag, kin[k], 0, FOLD, NULL) == ADN_OK && memcmp(&keep, &ag, sizeof ag) == 0,
                   "adding no values to a full accumulator: ADN_OK, unchanged");
        }
        /* Cumulative sums from 10 short of the capacity: 10 values fit, 11 do not. */
        expect(t->from(&near, x, want, 10, CPU, NULL) == ADN_OK, "cpu cumsum_from 10");
        expect(t->from(&near, x, got, 11, CPU, NULL) == ADN_CAPACITY_EXCEEDED, "cpu cumsum_from 11 refused");
        acc_t keep_near = near;
        for (int k = 0; k < KINDS; k++) {
            for (int v = FOLD; v <= STREAM; v++) {
                char msg[160];
                const size_t b11 = 11 * sizeof(float);
                poison(k, kout[k], b11);
                snprintf(msg, sizeof msg, "%s: 10 values to the capacity, the CPU's bits, the 11th untouched",
                         kind_name[k]);
                expect(t->from(&near, kin[k], kout[k], 10, v, st) == ADN_OK &&
                           equals(kout[k], want, 10 * sizeof(float)) && poisoned(kout[k] + 10, sizeof(float)),
                       named("adn_cuda_cumsum_%s_from%s", "f32", sfx_acc, v, msg));
                poison(k, kout[k], b11);
                snprintf(msg, sizeof msg, "%s: 11 values refused, the output untouched", kind_name[k]);
                expect(t->from(&near, kin[k], kout[k], 11, v, st) == ADN_CAPACITY_EXCEEDED && poisoned(kout[k], b11),
                       named("adn_cuda_cumsum_%s_from%s", "f32", sfx_acc, v, msg));
                snprintf(msg, sizeof msg, "%s: 1 value from the full accumulator refused, the output untouched",
                         kind_name[k]);
                expect(t->from(&ag, kin[k], kout[k], 1, v, st) == ADN_CAPACITY_EXCEEDED && poisoned(kout[k], b11),
                       named("adn_cuda_cumsum_%s_from%s", "f32", sfx_acc, v, msg));
                snprintf(msg, sizeof msg, "%s: 11 values in place refused, the input unchanged", kind_name[k]);
                expect(t->from(&near, kin[k], kin[k], 11, v, st) == ADN_CAPACITY_EXCEEDED && equals(kin[k], x, b11),
                       named("adn_cuda_cumsum_%s_from%s", "f32", sfx_acc, v, msg));
            }
        }
        expect(memcmp(&keep_near, &near, sizeof near) == 0 && memcmp(&keep, &ag, sizeof ag) == 0,
               "the starts unchanged");
    }
    printf("f32 capacity by accumulators (63 x 2^26 + 2^26 - 512 values, folds 3 and 8; one more, "
           "and cumsum_from past it, from every kind): %d passed, %d failed (%.2f s)\n",
           passed - p0, failed - f0, now() - t0);
    for (int k = 0; k < KINDS; k++) {
        kind_free(k, kin[k]);
        kind_free(k, kout[k]);
    }
    CUDA(cudaFree(dx));
    free(x);
}

/* The refusals of n = capacity + 1 (ADN_CAPACITY_EXCEEDED) by every f32 entry point, with
 * the scalar output, an accumulator and the poisoned output untouched. `check_in` and
 * `check_out` say whether the input (in place) and the output are still as they were. */
static void refuse_past_capacity(const char *where, float *in, float *out, cudaStream_t st,
                                 int (*check_in)(void), int (*check_out)(void)) {
    const type_ops *t = &ops_f32;
    size_t n = CAP + 1;
    snprintf(ctx, sizeof ctx, "f32 n = capacity + 1 = %zu, %s", n, where);
    for (int v = FOLD; v <= PLAIN; v++) {
        scalar_t s;
        memset(&s, 0xA5, sizeof s);
        expect(t->sum(in, n, 3, &s, v, st) == ADN_CAPACITY_EXCEEDED && poisoned(&s, sizeof s),
               named("adn_cuda_sum_%s%s", "f32", sfx, v, "ADN_CAPACITY_EXCEEDED, out untouched"));
    }
    acc_t a, keep;
    expect(t->init(&a, 3) == ADN_OK, "init");
    keep = a;
    for (int v = FOLD; v <= STREAM; v++) {
        expect(t->add(&a, in, n, v, st) == ADN_CAPACITY_EXCEEDED && memcmp(&keep, &a, sizeof a) == 0,
               named("adn_cuda_acc_%s_add_array%s", "f32", sfx_acc, v, "ADN_CAPACITY_EXCEEDED, unchanged"));
    }
    for (int v = FOLD; v <= PLAIN; v++) {
        expect(t->cumsum(in, out, n, 3, v, st) == ADN_CAPACITY_EXCEEDED,
               named("adn_cuda_cumsum_%s%s", "f32", sfx, v, "ADN_CAPACITY_EXCEEDED"));
        expect(t->cumsum(in, in, n, 3, v, st) == ADN_CAPACITY_EXCEEDED,
               named("adn_cuda_cumsum_%s%s", "f32", sfx, v, "in place, ADN_CAPACITY_EXCEEDED"));
    }
    for (int v = FOLD; v <= STREAM; v++) {
        expect(t->from(&a, in, out, n, v, st) == ADN_CAPACITY_EXCEEDED,
               named("adn_cuda_cumsum_%s_from%s", "f32", sfx_acc, v, "ADN_CAPACITY_EXCEEDED"));
        expect(t->from(&a, in, in, n, v, st) == ADN_CAPACITY_EXCEEDED,
               named("adn_cuda_cumsum_%s_from%s", "f32", sfx_acc, v, "in place, ADN_CAPACITY_EXCEEDED"));
    }
    expect(check_out(), "the output untouched after the refusals");
    expect(check_in(), "the input unchanged after the in-place refusals");
}

/* Virtual allocations of capacity + 1 floats: only their first and last 16 KiB are touched. */
#define ENDS ((size_t)16 << 10)
static int lazy_kind;
static char *lazy_in, *lazy_out;
static size_t lazy_bytes;
static void poison_ends(char *p) {
    poison(lazy_kind, p, ENDS);
    poison(lazy_kind, p + lazy_bytes - ENDS, ENDS);
}
static int ends_poisoned(const char *p) { return poisoned(p, ENDS) && poisoned(p + lazy_bytes - ENDS, ENDS); }
static int lazy_in_ok(void) { return ends_poisoned(lazy_in); }
static int lazy_out_ok(void) { return ends_poisoned(lazy_out); }

static void capacity_by_virtual_buffers(cudaStream_t st) {
    const int kinds[] = {MANAGED, PAGEABLE};
    for (int i = 0; i < 2; i++) {
        int p0 = passed, f0 = failed;
        lazy_kind = kinds[i];
        lazy_bytes = (CAP + 1) * sizeof(float);
        lazy_in = kind_alloc(lazy_kind, lazy_bytes);
        lazy_out = kind_alloc(lazy_kind, lazy_bytes);
        poison_ends(lazy_in);
        poison_ends(lazy_out);
        refuse_past_capacity(kind_name[lazy_kind], (float *)lazy_in, (float *)lazy_out, st, lazy_in_ok, lazy_out_ok);
        printf("f32 n = capacity + 1 in %s memory (%.1f GB, not touched): every entry point refuses it: "
               "%d passed, %d failed\n",
               kind_name[lazy_kind], 1e-9 * (double)lazy_bytes, passed - p0, failed - f0);
        kind_free(lazy_kind, lazy_in);
        kind_free(lazy_kind, lazy_out);
    }
}

/* ------------------------------------------------------------------------------------ */
/* large: f64 at the sizes given (prefixes of one array). */

static void need_device_memory(size_t bytes, const char *what) {
    size_t free_b = 0, total = 0;
    CUDA(cudaMemGetInfo(&free_b, &total));
    printf("%s: needs about %.1f GB of device memory; %.1f of %.1f GB free\n", what, 1e-9 * (double)bytes,
           1e-9 * (double)free_b, 1e-9 * (double)total);
    if (free_b < bytes) {
        fprintf(stderr, "%s: not enough device memory\n", what);
        exit(2);
    }
}

static void large_f64(const size_t *ns, int count, cudaStream_t st) {
    const type_ops *t = &ops_f64;
    const size_t guard = 1024;
    size_t max = 0;
    for (int i = 0; i < count; i++) max = ns[i] > max ? ns[i] : max;
    size_t bytes = max * sizeof(double);
    printf("f64 large: N up to %zu; host memory %.1f GB (input, the CPU's cumsum)\n", max, 2e-9 * (double)bytes);
    need_device_memory(3 * bytes + guard * sizeof(double),
                       "f64 large (input, output, and the library's staging buffer for the copied sum)");
    double tm = now(), t0 = tm;
    double *x = xmalloc(bytes), *want = xmalloc(bytes), *dx, *dout;
    CUDA(cudaMalloc((void **)&dx, bytes));
    CUDA(cudaMalloc((void **)&dout, bytes + guard * sizeof(double)));
    tm = step(tm, "allocate");
    fill_f64(x, max, 2026);
    tm = step(tm, "fill the input (threads)");
    copy(dx, x, bytes);
    tm = step(tm, "copy it to the device");
    snprintf(ctx, sizeof ctx, "f64 N %zu", max);
    expect(adn_cumsum_f64_fold(x, want, max, 3) == ADN_OK, "cpu cumsum");
    tm = step(tm, "cpu adn_cumsum_f64_fold of the longest array, fold 3");
    for (int i = 0; i < count; i++) {
        size_t n = ns[i], nb = n * sizeof(double);
        int p0 = passed, f0 = failed;
        printf("f64 N = %zu:\n", n);
        snprintf(ctx, sizeof ctx, "f64 N %zu", n);
        const unsigned folds[] = {2, 3, 8};
        scalar_t cpu3 = {0};
        for (int fi = 0; fi < 3; fi++) {
            unsigned fold = folds[fi];
            char msg[120];
            scalar_t cpu, gpu;
            expect(t->sum(x, n, fold, &cpu, CPU, NULL) == ADN_OK, "cpu sum");
            snprintf(msg, sizeof msg, "cpu adn_sum_f64_fold, fold %u", fold);
            tm = step(tm, msg);
            memset(&gpu, 0xA5, sizeof gpu);
            snprintf(msg, sizeof msg, "adn_cuda_sum_f64_fold (device), fold %u: the CPU's bits", fold);
            expect(t->sum(dx, n, fold, &gpu, FOLD, NULL) == ADN_OK && memcmp(&gpu, &cpu, sizeof gpu) == 0, msg);
            tm = step(tm, msg);
            if (fold == 3) cpu3 = cpu;
        }
        expect(memcmp(want + n - 1, &cpu3, sizeof cpu3) == 0, "the CPU cumsum's element N - 1 is the CPU's sum");
        scalar_t gpu;
        memset(&gpu, 0xA5, sizeof gpu);
        expect(t->sum(x, n, 3, &gpu, STREAM, st) == ADN_OK && memcmp(&gpu, &cpu3, sizeof gpu) == 0,
               "adn_cuda_sum_f64_stream (pageable host, copied): the CPU's bits");
        tm = step(tm, "adn_cuda_sum_f64_stream (pageable host, copied), fold 3: the CPU's bits");
        acc_t ac, ag;
        expect(t->init(&ac, 3) == ADN_OK && t->init(&ag, 3) == ADN_OK && t->add(&ac, x, n, CPU, NULL) == ADN_OK,
               "cpu acc");
        tm = step(tm, "cpu adn_acc_f64_add_array, fold 3");
        expect(t->add(&ag, dx, n, FOLD, NULL) == ADN_OK && same_acc(t, &ac, &ag) && has_count(t, &ag, n),
               "adn_cuda_acc_f64_add_array (device): the CPU's encoding");
        tm = step(tm, "adn_cuda_acc_f64_add_array (device): the CPU's encoding");
        poison(DEVICE, dout, nb + guard * sizeof(double));
        tm = step(tm, "poison the output");
        expect(t->cumsum(dx, dout, n, 3, FOLD, NULL) == ADN_OK, "adn_cuda_cumsum_f64_fold");
        tm = step(tm, "adn_cuda_cumsum_f64_fold (device to device), fold 3");
        expect(equals(dout, want, nb), "adn_cuda_cumsum_f64_fold: every element the CPU's");
        expect(poisoned(dout + n, guard * sizeof(double)), "nothing written past N");
        tm = step(tm, "compare every element, and the 1024 after them");
        copy(dout, dx, nb);
        tm = step(tm, "copy the input for the in-place cumsum");
        expect(t->cumsum(dout, dout, n, 3, STREAM, st) == ADN_OK, "adn_cuda_cumsum_f64_stream in place");
        tm = step(tm, "adn_cuda_cumsum_f64_stream in place, fold 3");
        expect(equals(dout, want, nb), "adn_cuda_cumsum_f64_stream in place: every element the CPU's");
        tm = step(tm, "compare every element");
        printf("f64 N = %zu: sums (folds 2, 3, 8; device and pageable host), add_array, cumsum into a "
               "poisoned output and in place (every element): %d passed, %d failed\n",
               n, passed - p0, failed - f0);
    }
    CUDA(cudaFree(dx));
    CUDA(cudaFree(dout));
    free(x);
    free(want);
    step(t0, "f64 large, total");
}

/* large: f32 at its capacity and one past it, device and pinned memory. */
static float *cap_x, *cap_dx, *cap_dout;
static int cap_in_ok(void) { return equals(cap_dx, cap_x, (CAP + 1) * sizeof(float)); }
static int cap_out_ok(void) { return poisoned(cap_dout, (CAP + 1) * sizeof(float)); }
static int nothing(void) { return 1; }

static void capacity_f32_large(cudaStream_t st) {
    const type_ops *t = &ops_f32;
    size_t n1 = CAP + 1, bytes = n1 * sizeof(float);
    int p0 = passed, f0 = failed;
    printf("f32 at the capacity (%zu values) and one past it: host memory %.1f GB (pinned input, the CPU's cumsum)\n",
           CAP, 2e-9 * (double)bytes);
    need_device_memory(3 * bytes, "f32 capacity (input, output, and the library's staging buffer for the copied sum)");
    double tm = now(), t0 = tm;
    float *want = xmalloc(CAP * sizeof(float));
    cap_x = kind_alloc(PINNED, bytes);
    CUDA(cudaMalloc((void **)&cap_dx, bytes));
    CUDA(cudaMalloc((void **)&cap_dout, bytes));
    tm = step(tm, "allocate (pinned input, device input and output)");
    fill_f32(cap_x, n1, 2027);
    tm = step(tm, "fill the input (threads)");
    copy(cap_dx, cap_x, bytes);
    tm = step(tm, "copy it to the device");
    snprintf(ctx, sizeof ctx, "f32 n = capacity = %zu", CAP);
    const unsigned folds[] = {3, 8};
    scalar_t cpu3 = {0};
    for (int fi = 0; fi < 2; fi++) {
        char msg[120];
        scalar_t cpu, gpu;
        expect(t->sum(cap_x, CAP, folds[fi], &cpu, CPU, NULL) == ADN_OK, "cpu sum");
        snprintf(msg, sizeof msg, "cpu adn_sum_f32_fold, fold %u", folds[fi]);
        tm = step(tm, msg);
        memset(&gpu, 0xA5, sizeof gpu);
        snprintf(msg, sizeof msg, "adn_cuda_sum_f32_fold (device), fold %u: the CPU's bits", folds[fi]);
        expect(t->sum(cap_dx, CAP, folds[fi], &gpu, FOLD, NULL) == ADN_OK && memcmp(&gpu, &cpu, sizeof(float)) == 0,
               msg);
        tm = step(tm, msg);
        if (folds[fi] == 3) cpu3 = cpu;
    }
    scalar_t gpu;
    memset(&gpu, 0xA5, sizeof gpu);
    expect(t->sum(cap_x, CAP, 3, &gpu, PLAIN, NULL) == ADN_OK && memcmp(&gpu, &cpu3, sizeof(float)) == 0,
           "adn_cuda_sum_f32 (pinned host, copied): the CPU's bits");
    tm = step(tm, "adn_cuda_sum_f32 (pinned host, copied): the CPU's bits");
    acc_t ac, ag;
    expect(t->init(&ac, 3) == ADN_OK && t->init(&ag, 3) == ADN_OK && t->add(&ac, cap_x, CAP, CPU, NULL) == ADN_OK,
           "cpu acc");
    tm = step(tm, "cpu adn_acc_f32_add_array");
    expect(t->add(&ag, cap_dx, CAP, STREAM, st) == ADN_OK && same_acc(t, &ac, &ag) && has_count(t, &ag, CAP),
           "adn_cuda_acc_f32_add_array_stream (device): the CPU's encoding, count = capacity");
    tm = step(tm, "adn_cuda_acc_f32_add_array_stream (device): the CPU's encoding");
    expect(t->cumsum(cap_x, want, CAP, 3, CPU, NULL) == ADN_OK, "cpu cumsum");
    expect(memcmp(want + CAP - 1, &cpu3, sizeof(float)) == 0, "the CPU cumsum's last element is the CPU's sum");
    tm = step(tm, "cpu adn_cumsum_f32_fold");
    poison(DEVICE, cap_dout, bytes);
    expect(t->cumsum(cap_dx, cap_dout, CAP, 3, FOLD, NULL) == ADN_OK, "adn_cuda_cumsum_f32_fold");
    tm = step(tm, "adn_cuda_cumsum_f32_fold (device to device)");
    expect(equals(cap_dout, want, CAP * sizeof(float)) && poisoned(cap_dout + CAP, sizeof(float)),
           "adn_cuda_cumsum_f32_fold: every element the CPU's, nothing written past the capacity");
    tm = step(tm, "compare every element");
    free(want);
    /* One past the capacity. */
    scalar_t s;
    snprintf(ctx, sizeof ctx, "f32 n = capacity + 1, cpu");
    expect(t->sum(cap_x, n1, 3, &s, CPU, NULL) == ADN_CAPACITY_EXCEEDED, "cpu adn_sum_f32_fold refuses it too");
    poison(DEVICE, cap_dout, bytes);
    tm = step(tm, "poison the output");
    refuse_past_capacity("device", cap_dx, cap_dout, st, cap_in_ok, cap_out_ok);
    tm = step(tm, "device memory: every entry point refuses it (input and output compared in full)");
    refuse_past_capacity("pinned", cap_x, cap_x, st, cap_in_ok, nothing);
    tm = step(tm, "pinned memory: every entry point refuses it (input compared in full)");
    printf("f32 capacity: sums, add_array and cumsum (every element) at the capacity; every entry point "
           "refuses one past it: %d passed, %d failed\n",
           passed - p0, failed - f0);
    kind_free(PINNED, cap_x);
    CUDA(cudaFree(cap_dx));
    CUDA(cudaFree(cap_dout));
    step(t0, "f32 capacity, total");
}

/* ------------------------------------------------------------------------------------ */

static void usage(void) {
    fprintf(stderr, "usage: cuda_memory [small | large | capacity | N ...]  (N: f64 sizes, as in large)\n");
    exit(2);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int e = 0; e < 61; e++) pow2[e] = ldexp(1.0, e - 30);
    enum { MAX_N = 16 };
    int small = argc < 2, large = 0, cap = 0, count = 0;
    size_t ns[MAX_N];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "small") == 0) {
            small = 1;
        } else if (strcmp(argv[i], "large") == 0) {
            large = 1;
        } else if (strcmp(argv[i], "capacity") == 0) {
            cap = 1;
        } else {
            char *end;
            double d = strtod(argv[i], &end);
            if (*end || !(d >= 1 && d <= 1e13) || d != floor(d) || count == MAX_N) usage();
            ns[count++] = (size_t)d;
        }
    }
    /* No device: say so and skip (status 77); nothing is claimed. */
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices < 1) {
        double one = 1.0, s;
        adn_status st = adn_cuda_sum_f64(&one, 1, &s);
        printf("SKIP: no CUDA device (cudaGetDeviceCount: %s, %d devices; adn_cuda_sum_f64 returns %d, %s): "
               "nothing checked\n",
               e == cudaSuccess ? "no error" : cudaGetErrorString(e), devices, st, adn_status_string(st));
        return 77;
    }
    CUDA(cudaSetDevice(0));
    struct cudaDeviceProp prop;
    CUDA(cudaGetDeviceProperties(&prop, 0));
    int managed = 0;
    CUDA(cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, 0));
    printf("device 0 of %d: %s (sm_%d%d, %.1f GB, concurrent managed access %s); libreprosum %s\n", devices,
           prop.name, prop.major, prop.minor, 1e-9 * (double)prop.totalGlobalMem, managed ? "yes" : "no",
           adn_version());
    {
        double one = 1.0, s = 0;
        adn_status st = adn_cuda_sum_f64(&one, 1, &s);
        if (st != ADN_OK || s != 1.0) {
            fprintf(stderr, "adn_cuda_sum_f64 of one value: status %d (%s)%s\n", st, adn_status_string(st),
                    st == ADN_NOT_BUILT ? ": build the library with --features cuda" : "");
            return 2;
        }
    }
    cudaStream_t st;
    CUDA(cudaStreamCreate(&st));
    double t0 = now();
    if (small) {
        for (int k = 0; k < KINDS; k++) kinds(&ops_f64, k, st);
        for (int k = 0; k < KINDS; k++) kinds(&ops_f32, k, st);
        mixed(&ops_f64, st);
        mixed(&ops_f32, st);
        two_devices(devices);
        capacity_by_accumulators(st);
        capacity_by_virtual_buffers(st);
    }
    if (large) {
        const size_t big[] = {2147483647u, 2 * (size_t)2147483647u, ((size_t)1 << 32) + 1};
        large_f64(big, 3, st);
    }
    if (count) large_f64(ns, count, st);
    if (large || cap) capacity_f32_large(st);
    CUDA(cudaStreamDestroy(st));
    printf("%d passed, %d failed (%.1f s)\n", passed, failed, now() - t0);
    return failed != 0;
}
