/*
 * C tests of libreprosum: the version, every status code, the outputs-only-on-success rule,
 * and every known answer of the vectors files given on the command line (reprosum-testkit's
 * format), each also under a hostile floating-point mode (round-down, and FTZ/DAZ on x86). Prints
 * "N passed, M failed" and exits non-zero on any failure.
 *
 *   test_ffi tests/vectors/known_answers.txt tests/vectors/core_vectors.txt
 *
 * Built by ffi/tests/c_programs.rs (cargo test) and, with AddressSanitizer and
 * UndefinedBehaviorSanitizer, by .ci/ffi.sh. Compile with -ffp-contract=off (the
 * wide-range generator must not contract).
 */
#define _POSIX_C_SOURCE 200809L
#include <fenv.h>
#include <inttypes.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

#include "mt19937.h"
#include "reprosum.h"

_Static_assert(sizeof(adn_acc_f64) == 1024, "adn_acc_f64 is 1024 bytes");
_Static_assert(sizeof(adn_acc_f32) == 512, "adn_acc_f32 is 512 bytes");
_Static_assert(alignof(adn_acc_f64) >= alignof(uint64_t), "adn_acc_f64 alignment");
_Static_assert(sizeof(adn_status) == 4, "adn_status is int32_t");

static unsigned long passed, failed;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) {                                                        \
            passed++;                                                      \
        } else {                                                           \
            failed++;                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

#define CHECK_STATUS(call, want)                                                           \
    do {                                                                                   \
        adn_status s_ = (call);                                                            \
        CHECK(s_ == (want), "%s: got %d (%s), expected %s", #call, (int)s_,                \
              adn_status_string(s_), #want);                                              \
    } while (0)

static const uint64_t POISON64 = 0x7FF4DEADBEEF0001ull;
static const uint32_t POISON32 = 0x7FA0BEEFu;

/* ---- the hostile floating-point mode ---------------------------------------------------- */

typedef struct fpmode {
    int round;
#ifdef HAVE_MXCSR
    unsigned csr;
#endif
} fpmode;

static fpmode fp_save(void) {
    fpmode m;
    m.round = fegetround();
#ifdef HAVE_MXCSR
    m.csr = _mm_getcsr();
#endif
    return m;
}

static void fp_restore(fpmode m) {
    fesetround(m.round);
#ifdef HAVE_MXCSR
    _mm_setcsr(m.csr);
#endif
}

/* Round toward minus infinity; on x86 also flush-to-zero (bit 15) and denormals-are-zero
 * (bit 6). */
static void fp_hostile(void) {
    fesetround(FE_DOWNWARD);
#ifdef HAVE_MXCSR
    _mm_setcsr(_mm_getcsr() | 0x8040u);
#endif
}

/* Whether the hostile mode is still set (the library must restore the caller's mode). */
static int fp_is_hostile(void) {
    int ok = fegetround() == FE_DOWNWARD;
#ifdef HAVE_MXCSR
    ok = ok && (_mm_getcsr() & 0x8040u) == 0x8040u && (_mm_getcsr() & 0x6000u) == 0x2000u;
#endif
    return ok;
}

/* ---- the vectors file ------------------------------------------------------------------- */

typedef struct u64vec {
    uint64_t *v;
    size_t n, cap;
} u64vec;

static void push(u64vec *a, uint64_t x) {
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        if (!a->v) {
            perror("realloc");
            exit(2);
        }
    }
    a->v[a->n++] = x;
}

/* Appends every hex number of the string s. */
static void parse_hex_list(const char *s, u64vec *out) {
    for (;;) {
        char *end;
        uint64_t v = strtoull(s, &end, 16);
        if (end == s) break;
        push(out, v);
        s = end;
    }
}

typedef struct vcase {
    char name[160];
    int f64;
    unsigned fold;
    u64vec in, sets, cum, bytes;
    uint64_t sum;
    int has_sum, has_cum, has_bytes;
} vcase;

static void case_reset(vcase *c) {
    c->in.n = c->sets.n = c->cum.n = c->bytes.n = 0;
    c->has_sum = c->has_cum = c->has_bytes = 0;
    c->name[0] = 0;
}

/* ---- one case --------------------------------------------------------------------------- */

static int bits_equal_f64(const double *x, const u64vec *want) {
    for (size_t i = 0; i < want->n; i++)
        if (f64_to_bits(x[i]) != want->v[i]) return 0;
    return 1;
}

static int bits_equal_f32(const float *x, const u64vec *want) {
    for (size_t i = 0; i < want->n; i++)
        if (f32_to_bits(x[i]) != (uint32_t)want->v[i]) return 0;
    return 1;
}

static void run_f64(const vcase *c, const char *mode) {
    size_t n = c->in.n;
    double *x = malloc((n ? n : 1) * sizeof *x);
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!x || !y) exit(2);
    for (size_t i = 0; i < n; i++) x[i] = bits_to_f64(c->in.v[i]);
    const char *nm = c->name;

    double out = bits_to_f64(POISON64);
    CHECK_STATUS(adn_sum_f64_fold(x, n, c->fold, &out), ADN_OK);
    CHECK(f64_to_bits(out) == c->sum, "%s %s: sum %016" PRIX64 ", expected %016" PRIX64, mode, nm,
          f64_to_bits(out), c->sum);
    if (c->fold == 3) {
        out = bits_to_f64(POISON64);
        CHECK_STATUS(adn_sum_f64(x, n, &out), ADN_OK);
        CHECK(f64_to_bits(out) == c->sum, "%s %s: adn_sum_f64", mode, nm);
        out = bits_to_f64(POISON64);
        CHECK_STATUS(adn_sum(x, n, &out), ADN_OK);
        CHECK(f64_to_bits(out) == c->sum, "%s %s: adn_sum (_Generic)", mode, nm);
    }

    /* Accumulators: a third by add_array, a third value by value, the rest by add_array in
     * another accumulator; merged in a different order. */
    adn_acc_f64 a, b, d;
    size_t t1 = n / 3, t2 = 2 * n / 3;
    CHECK_STATUS(adn_acc_f64_init(&a, c->fold), ADN_OK);
    CHECK_STATUS(adn_acc_f64_init(&b, c->fold), ADN_OK);
    CHECK_STATUS(adn_acc_f64_init(&d, c->fold), ADN_OK);
    CHECK_STATUS(adn_acc_f64_add_array(&a, x, t1), ADN_OK);
    int add_ok = 1;
    for (size_t i = t1; i < t2; i++) add_ok &= adn_acc_f64_add(&b, x[i]) == ADN_OK;
    CHECK(add_ok, "%s %s: adn_acc_f64_add", mode, nm);
    CHECK_STATUS(adn_acc_f64_add_array(&d, x + t2, n - t2), ADN_OK);
    CHECK_STATUS(adn_acc_f64_merge(&d, &a), ADN_OK);
    CHECK_STATUS(adn_acc_f64_merge(&b, &d), ADN_OK);
    out = bits_to_f64(POISON64);
    CHECK_STATUS(adn_acc_f64_value(&b, &out), ADN_OK);
    CHECK(f64_to_bits(out) == c->sum, "%s %s: accumulator %016" PRIX64, mode, nm, f64_to_bits(out));
    uint64_t count = 0;
    CHECK_STATUS(adn_acc_f64_count(&b, &count), ADN_OK);
    CHECK(count == n, "%s %s: count", mode, nm);

    uint8_t buf[ADN_ACC_ENCODED_MAX];
    size_t len = 0;
    CHECK_STATUS(adn_acc_f64_to_bytes(&b, buf, sizeof buf, &len), ADN_OK);
    CHECK(len == 20 + 16 * (size_t)c->fold, "%s %s: encoding length %zu", mode, nm, len);
    if (c->has_bytes) {
        int same = c->bytes.n == len;
        for (size_t i = 0; same && i < len; i++) same = buf[i] == c->bytes.v[i];
        CHECK(same, "%s %s: encoding differs from the vectors file", mode, nm);
    }
    adn_acc_f64 e;
    memset(&e, 0xA5, sizeof e);
    CHECK_STATUS(adn_acc_f64_from_bytes(&e, buf, len), ADN_OK);
    out = bits_to_f64(POISON64);
    CHECK_STATUS(adn_acc_f64_value(&e, &out), ADN_OK);
    CHECK(f64_to_bits(out) == c->sum, "%s %s: decoded accumulator", mode, nm);
    /* A struct copy is a working accumulator (what MPI does with the bytes). */
    adn_acc_f64 f = b;
    CHECK_STATUS(adn_acc_f64_merge(&f, &e), ADN_OK);
    CHECK_STATUS(adn_acc_f64_count(&f, &count), ADN_OK);
    CHECK(count == 2 * (uint64_t)n, "%s %s: copied accumulator count", mode, nm);

    if (c->has_cum) {
        for (size_t i = 0; i < n; i++) y[i] = bits_to_f64(POISON64);
        CHECK_STATUS(adn_cumsum_f64_fold(x, y, n, c->fold), ADN_OK);
        CHECK(c->cum.n == n && bits_equal_f64(y, &c->cum), "%s %s: cumsum", mode, nm);
        memcpy(y, x, n * sizeof *y);
        CHECK_STATUS(adn_cumsum_f64_fold(y, y, n, c->fold), ADN_OK);
        CHECK(bits_equal_f64(y, &c->cum), "%s %s: in-place cumsum", mode, nm);
        if (c->fold == 3) {
            for (size_t i = 0; i < n; i++) y[i] = bits_to_f64(POISON64);
            CHECK_STATUS(adn_cumsum(x, y, n), ADN_OK);
            CHECK(bits_equal_f64(y, &c->cum), "%s %s: adn_cumsum (_Generic)", mode, nm);
        }
    }
    free(x);
    free(y);
}

static void run_f32(const vcase *c, const char *mode) {
    size_t n = c->in.n;
    float *x = malloc((n ? n : 1) * sizeof *x);
    float *y = malloc((n ? n : 1) * sizeof *y);
    if (!x || !y) exit(2);
    for (size_t i = 0; i < n; i++) x[i] = bits_to_f32((uint32_t)c->in.v[i]);
    const char *nm = c->name;
    uint32_t want = (uint32_t)c->sum;

    float out = bits_to_f32(POISON32);
    CHECK_STATUS(adn_sum_f32_fold(x, n, c->fold, &out), ADN_OK);
    CHECK(f32_to_bits(out) == want, "%s %s: sum %08" PRIX32 ", expected %08" PRIX32, mode, nm,
          f32_to_bits(out), want);
    if (c->fold == 3) {
        out = bits_to_f32(POISON32);
        CHECK_STATUS(adn_sum_f32(x, n, &out), ADN_OK);
        CHECK(f32_to_bits(out) == want, "%s %s: adn_sum_f32", mode, nm);
        out = bits_to_f32(POISON32);
        CHECK_STATUS(adn_sum(x, n, &out), ADN_OK);
        CHECK(f32_to_bits(out) == want, "%s %s: adn_sum (_Generic)", mode, nm);
    }

    adn_acc_f32 a, b;
    size_t t1 = n / 2;
    CHECK_STATUS(adn_acc_f32_init(&a, c->fold), ADN_OK);
    CHECK_STATUS(adn_acc_f32_init(&b, c->fold), ADN_OK);
    CHECK_STATUS(adn_acc_f32_add_array(&a, x, t1), ADN_OK);
    int add_ok = 1;
    for (size_t i = t1; i < n; i++) add_ok &= adn_acc_f32_add(&b, x[i]) == ADN_OK;
    CHECK(add_ok, "%s %s: adn_acc_f32_add", mode, nm);
    CHECK_STATUS(adn_acc_f32_merge(&b, &a), ADN_OK);
    out = bits_to_f32(POISON32);
    CHECK_STATUS(adn_acc_f32_value(&b, &out), ADN_OK);
    CHECK(f32_to_bits(out) == want, "%s %s: accumulator", mode, nm);

    uint8_t buf[ADN_ACC_ENCODED_MAX];
    size_t len = 0;
    CHECK_STATUS(adn_acc_f32_to_bytes(&b, buf, sizeof buf, &len), ADN_OK);
    CHECK(len == 20 + 8 * (size_t)c->fold, "%s %s: encoding length %zu", mode, nm, len);
    if (c->has_bytes) {
        int same = c->bytes.n == len;
        for (size_t i = 0; same && i < len; i++) same = buf[i] == c->bytes.v[i];
        CHECK(same, "%s %s: encoding differs from the vectors file", mode, nm);
    }
    adn_acc_f32 e;
    memset(&e, 0x5A, sizeof e);
    CHECK_STATUS(adn_acc_f32_from_bytes(&e, buf, len), ADN_OK);
    out = bits_to_f32(POISON32);
    CHECK_STATUS(adn_acc_f32_value(&e, &out), ADN_OK);
    CHECK(f32_to_bits(out) == want, "%s %s: decoded accumulator", mode, nm);

    if (c->has_cum) {
        for (size_t i = 0; i < n; i++) y[i] = bits_to_f32(POISON32);
        CHECK_STATUS(adn_cumsum_f32_fold(x, y, n, c->fold), ADN_OK);
        CHECK(c->cum.n == n && bits_equal_f32(y, &c->cum), "%s %s: cumsum", mode, nm);
        memcpy(y, x, n * sizeof *y);
        CHECK_STATUS(adn_cumsum_f32_fold(y, y, n, c->fold), ADN_OK);
        CHECK(bits_equal_f32(y, &c->cum), "%s %s: in-place cumsum", mode, nm);
        if (c->fold == 3) {
            for (size_t i = 0; i < n; i++) y[i] = bits_to_f32(POISON32);
            CHECK_STATUS(adn_cumsum(x, y, n), ADN_OK);
            CHECK(bits_equal_f32(y, &c->cum), "%s %s: adn_cumsum (_Generic)", mode, nm);
        }
    }
    free(x);
    free(y);
}

static void run_case(vcase *c) {
    /* `set` lines overwrite elements after the parts. */
    for (size_t i = 0; i + 1 < c->sets.n; i += 2) {
        CHECK(c->sets.v[i] < c->in.n, "%s: set index in range", c->name);
        if (c->sets.v[i] < c->in.n) c->in.v[c->sets.v[i]] = c->sets.v[i + 1];
    }
    CHECK(c->has_sum, "%s: has a sum line", c->name);
    if (!c->has_sum) return;
    fpmode saved = fp_save();
    c->f64 ? run_f64(c, "normal") : run_f32(c, "normal");
    fp_hostile();
    c->f64 ? run_f64(c, "hostile-fp") : run_f32(c, "hostile-fp");
    int still = fp_is_hostile();
    fp_restore(saved);
    CHECK(still, "%s: the caller's floating-point mode was not restored", c->name);
}

/* Runs every case of a vectors file; returns the number of cases. */
static unsigned run_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        failed++;
        return 0;
    }
    vcase c;
    memset(&c, 0, sizeof c);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    unsigned cases = 0, lineno = 0;
    int in_case = 0;
    while ((got = getline(&line, &cap, f)) != -1) {
        lineno++;
        if (got > 0 && line[got - 1] == '\n') line[--got] = 0;
        if (!in_case) {
            if (line[0] == 0 || line[0] == '#') continue;
            char ty[8] = {0};
            unsigned fold = 0;
            case_reset(&c);
            if (sscanf(line, "case %159s %7s %u", c.name, ty, &fold) != 3 ||
                (strcmp(ty, "f64") && strcmp(ty, "f32"))) {
                CHECK(0, "%s:%u: cannot read '%s'", path, lineno, line);
                break;
            }
            c.f64 = strcmp(ty, "f64") == 0;
            c.fold = fold;
            in_case = 1;
        } else if (strcmp(line, "end") == 0) {
            run_case(&c);
            cases++;
            in_case = 0;
        } else if (strncmp(line, "part ", 5) == 0) {
            char *rest;
            unsigned long rep = strtoul(line + 5, &rest, 10);
            u64vec vals = {0};
            parse_hex_list(rest, &vals);
            for (unsigned long r = 0; r < rep; r++)
                for (size_t i = 0; i < vals.n; i++) push(&c.in, vals.v[i]);
            free(vals.v);
        } else if (strncmp(line, "set ", 4) == 0) {
            char *rest;
            unsigned long at = strtoul(line + 4, &rest, 10);
            push(&c.sets, at);
            push(&c.sets, strtoull(rest, NULL, 16));
        } else if (strcmp(line, "gen wide_range_1m") == 0) {
            double *w = malloc(WIDE_RANGE_LEN * sizeof *w);
            if (!w) exit(2);
            wide_range_fill(w, WIDE_RANGE_LEN);
            for (size_t i = 0; i < WIDE_RANGE_LEN; i++) push(&c.in, f64_to_bits(w[i]));
            free(w);
        } else if (strncmp(line, "gen ", 4) == 0) {
            CHECK(0, "%s: unknown generator '%s'", c.name, line + 4);
        } else if (strncmp(line, "sum ", 4) == 0) {
            c.sum = strtoull(line + 4, NULL, 16);
            c.has_sum = 1;
        } else if (strncmp(line, "cumsum ", 7) == 0) {
            parse_hex_list(line + 7, &c.cum);
            c.has_cum = 1;
        } else if (strncmp(line, "bytes ", 6) == 0) {
            const char *h = line + 6;
            for (size_t i = 0; h[i] && h[i + 1]; i += 2) {
                char two[3] = {h[i], h[i + 1], 0};
                push(&c.bytes, strtoull(two, NULL, 16));
            }
            c.has_bytes = 1;
        } else {
            CHECK(0, "%s:%u: unknown line '%.40s'", path, lineno, line);
        }
    }
    CHECK(!in_case, "%s: the last case has no end line", path);
    free(line);
    free(c.in.v);
    free(c.sets.v);
    free(c.cum.v);
    free(c.bytes.v);
    fclose(f);
    return cases;
}

/* ---- status codes ----------------------------------------------------------------------- */

/* A version-1 encoding (no checksum; still read) of a NaN-only accumulator that holds
 * `count` values. */
static size_t full_encoding(uint8_t *e, int f64, uint64_t count) {
    size_t len = 16 + 2 * 3 * (f64 ? 8 : 4);
    memset(e, 0, len);
    memcpy(e, "ADNB", 4);
    e[4] = 1;
    e[5] = f64 ? 2 : 1;
    e[6] = 3;
    e[7] = 1;
    for (int i = 0; i < 8; i++) e[8 + i] = (uint8_t)(count >> (8 * i));
    return len;
}

static void test_statuses(void) {
    static const struct {
        adn_status code;
        const char *name;
    } codes[] = {
        {ADN_OK, "ADN_OK"},
        {ADN_NULL_POINTER, "ADN_NULL_POINTER"},
        {ADN_CAPACITY_EXCEEDED, "ADN_CAPACITY_EXCEEDED"},
        {ADN_INVALID_FOLD, "ADN_INVALID_FOLD"},
        {ADN_OVERLAP, "ADN_OVERLAP"},
        {ADN_BAD_ENCODING, "ADN_BAD_ENCODING"},
        {ADN_NOT_BUILT, "ADN_NOT_BUILT"},
        {ADN_NO_DEVICE, "ADN_NO_DEVICE"},
        {ADN_DEVICE_ERROR, "ADN_DEVICE_ERROR"},
        {ADN_OUT_OF_MEMORY, "ADN_OUT_OF_MEMORY"},
        {ADN_INTERNAL_ERROR, "ADN_INTERNAL_ERROR"},
        {ADN_FOLD_MISMATCH, "ADN_FOLD_MISMATCH"},
        {ADN_BUFFER_TOO_SMALL, "ADN_BUFFER_TOO_SMALL"},
        {ADN_NOT_INITIALIZED, "ADN_NOT_INITIALIZED"},
        {ADN_MISALIGNED, "ADN_MISALIGNED"},
        {ADN_INVALID_POINTER, "ADN_INVALID_POINTER"},
        {ADN_MPI_ERROR, "ADN_MPI_ERROR"},
        {ADN_KEY_OUT_OF_RANGE, "ADN_KEY_OUT_OF_RANGE"},
        {ADN_INVALID_OFFSETS, "ADN_INVALID_OFFSETS"},
        {ADN_INVALID_STRIDE, "ADN_INVALID_STRIDE"},
    };
    size_t ncodes = sizeof codes / sizeof codes[0];
    const char *unknown = adn_status_string(-1);
    CHECK(unknown && strcmp(unknown, "unknown status code") == 0, "unknown code text");
    CHECK(adn_status_string(INT32_MAX) == unknown || strcmp(adn_status_string(INT32_MAX), unknown) == 0,
          "INT32_MAX is unknown");
    CHECK(strcmp(adn_status_string((adn_status)ncodes), unknown) == 0, "the next code is unknown");
    for (size_t i = 0; i < ncodes; i++) {
        const char *t = adn_status_string(codes[i].code);
        CHECK(codes[i].code == (adn_status)i, "%s is %zu", codes[i].name, i);
        CHECK(t && t[0] && strcmp(t, unknown) != 0, "%s has a text", codes[i].name);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(t, adn_status_string(codes[j].code)) != 0, "%s and %s texts differ",
                  codes[i].name, codes[j].name);
    }

    const double x[4] = {1.0, 2.0, 3.0, 4.0};
    const float xf[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    double out = bits_to_f64(POISON64);
    float outf = bits_to_f32(POISON32);

    /* ADN_NULL_POINTER */
    CHECK_STATUS(adn_sum_f64(NULL, 4, &out), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_f64(x, 4, NULL), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_f32(xf, 4, NULL), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_f32_fold(NULL, 1, 3, &outf), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_f64(x, 0, NULL), ADN_NULL_POINTER);
    double cum[4] = {0};
    CHECK_STATUS(adn_cumsum_f64(NULL, cum, 4), ADN_NULL_POINTER);
    CHECK_STATUS(adn_cumsum_f64(x, NULL, 4), ADN_NULL_POINTER);
    CHECK_STATUS(adn_acc_f64_init(NULL, 3), ADN_NULL_POINTER);
    CHECK_STATUS(adn_acc_f32_add(NULL, 1.0f), ADN_NULL_POINTER);
    /* NULL with n == 0 is fine: the empty sum is +0.0 */
    CHECK_STATUS(adn_sum_f64(NULL, 0, &out), ADN_OK);
    CHECK(f64_to_bits(out) == 0, "empty sum is +0.0");
    CHECK_STATUS(adn_sum_f32(NULL, 0, &outf), ADN_OK);
    CHECK(f32_to_bits(outf) == 0, "empty float sum is +0.0");
    CHECK_STATUS(adn_cumsum_f64(NULL, NULL, 0), ADN_OK);
    CHECK_STATUS(adn_cumsum_f32(NULL, NULL, 0), ADN_OK);

    /* ADN_CAPACITY_EXCEEDED: refused before anything is read (x has 4 elements). */
    out = bits_to_f64(POISON64);
    outf = bits_to_f32(POISON32);
    CHECK_STATUS(adn_sum_f64(x, SIZE_MAX, &out), ADN_CAPACITY_EXCEEDED);
    CHECK_STATUS(adn_sum_f64(x, (size_t)ADN_CAPACITY_F64 + 1, &out), ADN_CAPACITY_EXCEEDED);
    CHECK_STATUS(adn_sum_f32(xf, (size_t)ADN_CAPACITY_F32 + 1, &outf), ADN_CAPACITY_EXCEEDED);
    CHECK_STATUS(adn_cumsum_f32(xf, (float *)cum, (size_t)ADN_CAPACITY_F32 + 1), ADN_CAPACITY_EXCEEDED);
    CHECK(f64_to_bits(out) == POISON64 && f32_to_bits(outf) == POISON32, "not written on error");
    {
        uint8_t e[ADN_ACC_ENCODED_MAX];
        adn_acc_f64 a, one;
        size_t len = full_encoding(e, 1, ADN_CAPACITY_F64);
        CHECK_STATUS(adn_acc_f64_from_bytes(&a, e, len), ADN_OK);
        CHECK_STATUS(adn_acc_f64_add(&a, 1.0), ADN_CAPACITY_EXCEEDED);
        CHECK_STATUS(adn_acc_f64_add_array(&a, x, 1), ADN_CAPACITY_EXCEEDED);
        CHECK_STATUS(adn_acc_f64_init(&one, 3), ADN_OK);
        CHECK_STATUS(adn_acc_f64_add(&one, 1.0), ADN_OK);
        CHECK_STATUS(adn_acc_f64_merge(&one, &a), ADN_CAPACITY_EXCEEDED);
        CHECK_STATUS(adn_acc_f64_value(&one, &out), ADN_OK);
        CHECK(out == 1.0, "unchanged after a refused merge");
        adn_acc_f32 b;
        len = full_encoding(e, 0, ADN_CAPACITY_F32);
        CHECK_STATUS(adn_acc_f32_from_bytes(&b, e, len), ADN_OK);
        CHECK_STATUS(adn_acc_f32_add(&b, 1.0f), ADN_CAPACITY_EXCEEDED);
        /* One past the capacity is not a valid encoding. */
        len = full_encoding(e, 0, ADN_CAPACITY_F32 + 1);
        CHECK_STATUS(adn_acc_f32_from_bytes(&b, e, len), ADN_BAD_ENCODING);
    }

    /* ADN_INVALID_FOLD */
    out = bits_to_f64(POISON64);
    CHECK_STATUS(adn_sum_f64_fold(x, 4, 1, &out), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_sum_f64_fold(x, 4, 53, &out), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_sum_f32_fold(xf, 4, 22, &outf), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_cumsum_f64_fold(x, cum, 4, 0), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_cumsum_f32_fold(xf, (float *)cum, 4, 100), ADN_INVALID_FOLD);
    {
        adn_acc_f32 a;
        CHECK_STATUS(adn_acc_f32_init(&a, 22), ADN_INVALID_FOLD);
        CHECK_STATUS(adn_acc_f32_init(&a, ADN_MAX_FOLD_F32), ADN_OK);
        adn_acc_f64 b;
        CHECK_STATUS(adn_acc_f64_init(&b, ADN_MAX_FOLD_F64 + 1), ADN_INVALID_FOLD);
        CHECK_STATUS(adn_acc_f64_init(&b, ADN_MIN_FOLD), ADN_OK);
    }
    CHECK(f64_to_bits(out) == POISON64, "not written on error");
    CHECK_STATUS(adn_sum_f64_fold(x, 4, ADN_MAX_FOLD_F64, &out), ADN_OK);
    CHECK(out == 10.0, "fold 52 sum");

    /* ADN_OVERLAP: shifted by one either way; in place is fine. */
    {
        double buf[5] = {1, 2, 3, 4, 5};
        CHECK_STATUS(adn_cumsum_f64(buf, buf + 1, 4), ADN_OVERLAP);
        CHECK_STATUS(adn_cumsum_f64(buf + 1, buf, 4), ADN_OVERLAP);
        CHECK_STATUS(adn_cumsum_f64_fold(buf, buf + 3, 4, 5), ADN_OVERLAP);
        CHECK(buf[0] == 1 && buf[1] == 2 && buf[2] == 3 && buf[3] == 4 && buf[4] == 5,
              "nothing written on overlap");
        CHECK_STATUS(adn_cumsum_f64(buf, buf + 2, 2), ADN_OK); /* adjacent */
        CHECK(buf[2] == 1 && buf[3] == 3, "adjacent cumsum");
        CHECK_STATUS(adn_cumsum_f64(buf, buf, 5), ADN_OK);
        CHECK(buf[4] == 1 + 2 + 1 + 3 + 5, "in-place cumsum");
        float fb[3] = {1, 2, 3};
        CHECK_STATUS(adn_cumsum_f32(fb, fb + 1, 2), ADN_OVERLAP);
        adn_acc_f64 a;
        CHECK_STATUS(adn_acc_f64_init(&a, 3), ADN_OK);
        CHECK_STATUS(adn_acc_f64_add_array(&a, (const double *)&a + 8, 4), ADN_OVERLAP);
    }

    /* ADN_BAD_ENCODING */
    {
        adn_acc_f64 a;
        uint8_t e[ADN_ACC_ENCODED_MAX];
        size_t len = 0;
        CHECK_STATUS(adn_acc_f64_init(&a, 3), ADN_OK);
        CHECK_STATUS(adn_acc_f64_add_array(&a, x, 4), ADN_OK);
        CHECK_STATUS(adn_acc_f64_to_bytes(&a, e, sizeof e, &len), ADN_OK);
        adn_acc_f64 b;
        CHECK_STATUS(adn_acc_f64_init(&b, 4), ADN_OK);
        CHECK_STATUS(adn_acc_f64_from_bytes(&b, e, len - 1), ADN_BAD_ENCODING);
        CHECK_STATUS(adn_acc_f64_from_bytes(&b, e, 0), ADN_BAD_ENCODING);
        CHECK_STATUS(adn_acc_f64_from_bytes(&b, NULL, 0), ADN_BAD_ENCODING);
        CHECK_STATUS(adn_acc_f64_from_bytes(&b, NULL, len), ADN_NULL_POINTER);
        adn_acc_f32 f;
        CHECK_STATUS(adn_acc_f32_from_bytes(&f, e, len), ADN_BAD_ENCODING); /* wrong type */
        int all_refused = 1;
        for (size_t i = 0; i < 8; i++) { /* magic, version, type, fold, flags flipped */
            e[i] ^= 0x40;
            all_refused &= adn_acc_f64_from_bytes(&b, e, len) == ADN_BAD_ENCODING;
            e[i] ^= 0x40;
        }
        CHECK(all_refused, "a flipped header byte is refused");
        e[16 + 7] ^= 0x80; /* primary 0 negative */
        CHECK_STATUS(adn_acc_f64_from_bytes(&b, e, len), ADN_BAD_ENCODING);
        e[16 + 7] ^= 0x80;
        uint64_t cnt = 99;
        CHECK_STATUS(adn_acc_f64_count(&b, &cnt), ADN_OK);
        CHECK(cnt == 0, "unchanged after refused encodings");
        CHECK_STATUS(adn_acc_f64_from_bytes(&b, e, len), ADN_OK);
        CHECK_STATUS(adn_acc_f64_value(&b, &out), ADN_OK);
        CHECK(out == 10.0, "decoded value");

        /* ADN_BUFFER_TOO_SMALL */
        uint8_t small[40];
        memset(small, 0xEE, sizeof small);
        size_t l2 = 777;
        CHECK_STATUS(adn_acc_f64_to_bytes(&a, small, sizeof small, &l2), ADN_BUFFER_TOO_SMALL);
        CHECK(l2 == 777 && small[0] == 0xEE && small[39] == 0xEE, "not written when too small");
        CHECK_STATUS(adn_acc_f64_to_bytes(&a, e, len, &l2), ADN_OK);
        CHECK(l2 == len, "exact capacity");
        CHECK_STATUS(adn_acc_f64_to_bytes(&a, NULL, 0, &l2), ADN_NULL_POINTER);
        CHECK_STATUS(adn_acc_f64_to_bytes(&a, e, sizeof e, NULL), ADN_NULL_POINTER);

        /* ADN_FOLD_MISMATCH */
        adn_acc_f64 k5;
        CHECK_STATUS(adn_acc_f64_init(&k5, 5), ADN_OK);
        CHECK_STATUS(adn_acc_f64_merge(&k5, &a), ADN_FOLD_MISMATCH);
        CHECK_STATUS(adn_acc_f64_merge(&a, &k5), ADN_FOLD_MISMATCH);
    }

    /* ADN_NOT_BUILT: every GPU entry point of a build without GPU back ends. */
    {
        double c1[1] = {0};
        float c2[1] = {0};
        out = bits_to_f64(POISON64);
        adn_status st[16] = {
            adn_cuda_sum_f64(x, 4, &out),
            adn_cuda_sum_f32(xf, 4, &outf),
            adn_cuda_sum_f64_fold(x, 4, 3, &out),
            adn_cuda_sum_f32_fold(xf, 4, 3, &outf),
            adn_cuda_cumsum_f64(x, c1, 1),
            adn_cuda_cumsum_f32(xf, c2, 1),
            adn_cuda_cumsum_f64_fold(x, c1, 1, 3),
            adn_cuda_cumsum_f32_fold(xf, c2, 1, 3),
            adn_hip_sum_f64(x, 4, &out),
            adn_hip_sum_f32(xf, 4, &outf),
            adn_hip_sum_f64_fold(x, 4, 3, &out),
            adn_hip_sum_f32_fold(xf, 4, 3, &outf),
            adn_hip_cumsum_f64(x, c1, 1),
            adn_hip_cumsum_f32(xf, c2, 1),
            adn_hip_cumsum_f64_fold(x, c1, 1, 3),
            adn_hip_cumsum_f32_fold(xf, c2, 1, 3),
        };
        for (int i = 0; i < 16; i++) CHECK(st[i] == ADN_NOT_BUILT, "GPU entry point %d: %d", i, (int)st[i]);
        CHECK(f64_to_bits(out) == POISON64 && c1[0] == 0 && c2[0] == 0, "GPU stubs write nothing");
    }

    /* ADN_NOT_INITIALIZED: zeroed and garbage structs. */
    {
        adn_acc_f64 z;
        memset(&z, 0, sizeof z);
        uint64_t cnt;
        CHECK_STATUS(adn_acc_f64_add(&z, 1.0), ADN_NOT_INITIALIZED);
        CHECK_STATUS(adn_acc_f64_add_array(&z, x, 4), ADN_NOT_INITIALIZED);
        CHECK_STATUS(adn_acc_f64_value(&z, &out), ADN_NOT_INITIALIZED);
        CHECK_STATUS(adn_acc_f64_count(&z, &cnt), ADN_NOT_INITIALIZED);
        adn_acc_f64 g;
        mt19937 m;
        mt19937_seed(&m, 7);
        uint32_t *w = (uint32_t *)(void *)&g;
        for (size_t i = 0; i < sizeof g / 4; i++) w[i] = mt19937_next(&m);
        CHECK_STATUS(adn_acc_f64_add(&g, 1.0), ADN_NOT_INITIALIZED);
        adn_acc_f64 ok;
        CHECK_STATUS(adn_acc_f64_init(&ok, 3), ADN_OK);
        CHECK_STATUS(adn_acc_f64_merge(&ok, &g), ADN_NOT_INITIALIZED);
        CHECK_STATUS(adn_acc_f64_merge(&g, &ok), ADN_NOT_INITIALIZED);
        adn_acc_f32 zf;
        memset(&zf, 0, sizeof zf);
        CHECK_STATUS(adn_acc_f32_add(&zf, 1.0f), ADN_NOT_INITIALIZED);
        /* A float accumulator's bytes are not a double accumulator. */
        adn_acc_f32 f;
        CHECK_STATUS(adn_acc_f32_init(&f, 3), ADN_OK);
        memset(&z, 0, sizeof z);
        memcpy(&z, &f, sizeof f);
        CHECK_STATUS(adn_acc_f64_add(&z, 1.0), ADN_NOT_INITIALIZED);
        /* A refused init leaves the struct as it was. */
        memset(&z, 0, sizeof z);
        CHECK_STATUS(adn_acc_f64_init(&z, 99), ADN_INVALID_FOLD);
        CHECK_STATUS(adn_acc_f64_add(&z, 1.0), ADN_NOT_INITIALIZED);
    }

    /* ADN_MISALIGNED */
    {
        _Alignas(8) unsigned char raw[64] = {0};
        const double *mis = (const double *)(const void *)(raw + 1);
        CHECK_STATUS(adn_sum_f64(mis, 2, &out), ADN_MISALIGNED);
        CHECK_STATUS(adn_sum_f64(x, 4, (double *)(void *)(raw + 4)), ADN_MISALIGNED);
        CHECK_STATUS(adn_cumsum_f64(x, (double *)(void *)(raw + 4), 2), ADN_MISALIGNED);
        CHECK_STATUS(adn_sum_f64(mis, 0, &out), ADN_OK); /* nothing read */
        _Alignas(8) unsigned char rawacc[sizeof(adn_acc_f64) + 8];
        adn_acc_f64 *ma = (adn_acc_f64 *)(void *)(rawacc + 4);
        CHECK_STATUS(adn_acc_f64_init(ma, 3), ADN_MISALIGNED);
        /* `other` of a merge may be unaligned (an MPI reduction buffer). */
        adn_acc_f64 a, b;
        CHECK_STATUS(adn_acc_f64_init(&a, 3), ADN_OK);
        CHECK_STATUS(adn_acc_f64_init(&b, 3), ADN_OK);
        CHECK_STATUS(adn_acc_f64_add_array(&b, x, 4), ADN_OK);
        memcpy(rawacc + 4, &b, sizeof b);
        CHECK_STATUS(adn_acc_f64_merge(&a, ma), ADN_OK);
        CHECK_STATUS(adn_acc_f64_value(&a, &out), ADN_OK);
        CHECK(out == 10.0, "merge of an unaligned copy");
    }

    /* Merging an accumulator with itself doubles it. */
    {
        adn_acc_f32 a;
        CHECK_STATUS(adn_acc_f32_init(&a, 3), ADN_OK);
        CHECK_STATUS(adn_acc_f32_add_array(&a, xf, 4), ADN_OK);
        CHECK_STATUS(adn_acc_f32_merge(&a, &a), ADN_OK);
        CHECK_STATUS(adn_acc_f32_value(&a, &outf), ADN_OK);
        CHECK(outf == 20.0f, "self merge");
    }
}

/* The header's version macros are the library's version string (the same build). */
static void test_version(void) {
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", ADN_VERSION_MAJOR, ADN_VERSION_MINOR,
             ADN_VERSION_PATCH);
    const char *got = adn_version();
    CHECK(got != NULL, "adn_version() is not NULL");
    if (got != NULL) {
        CHECK(strcmp(got, want) == 0, "adn_version() \"%s\", header %s", got, want);
        CHECK(adn_version() == got, "adn_version() returns the same static text");
    }
    printf("version %s\n", got ? got : "(null)");
}

int main(int argc, char **argv) {
    test_version();
    test_statuses();
    unsigned long after_status = passed + failed;
    unsigned cases = 0;
    for (int i = 1; i < argc; i++) {
        unsigned k = run_file(argv[i]);
        printf("%s: %u cases\n", argv[i], k);
        CHECK(k > 0, "%s has cases", argv[i]);
        cases += k;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s VECTORS_FILE...\n", argv[0]);
        failed++;
    }
    printf("status checks: %lu; vectors: %u cases\n", after_status, cases);
    printf("%lu passed, %lu failed\n", passed, failed);
    return failed ? 1 : 0;
}
