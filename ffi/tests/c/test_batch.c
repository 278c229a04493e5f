/*
 * C tests of the segmented, row, keyed and segmented cumulative sums (adn_segmented_sum_*,
 * adn_sum_rows_*, adn_sum_by_key_*, adn_segmented_cumsum_*): every result compared by bits
 * with adn_sum_*_fold / adn_cumsum_*_fold of its group alone, at several folds and thread
 * counts; every bad argument's status, with every output untouched. Prints
 * "N passed, M failed" and exits non-zero on any failure.
 *
 * Built and run by ffi/tests/c_programs.rs (cargo test).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reprosum.h"

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

static uint64_t b64(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static uint32_t b32(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static double poison64(void) {
    double d;
    memcpy(&d, &POISON64, sizeof d);
    return d;
}
static float poison32(void) {
    float f;
    memcpy(&f, &POISON32, sizeof f);
    return f;
}
static void fill64(double *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = poison64();
}
static void fill32(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = poison32();
}
static int poisoned64(const double *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (b64(x[i]) != POISON64) return 0;
    return 1;
}
static int poisoned32(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (b32(x[i]) != POISON32) return 0;
    return 1;
}

static uint64_t state = 88172645463325252ull;
static uint64_t rnd(uint64_t m) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return m ? state % m : 0;
}

/* Values of mixed signs and magnitudes, some huge and cancelling. */
static double value(size_t i) {
    double m = 1.0 + (double)rnd(1u << 20) / (double)(1u << 20);
    int e = (int)rnd(60) - 30;
    double x = (rnd(2) ? m : -m) * ldexp(1.0, e);
    if (i % 11 == 5) x = (x < 0 ? -1e15 : 1e15);
    return x;
}

#define N 200000
#define NSEG 2000

static double x[N], y[N], out[N], want[N];
static float xf[N], yf[N], outf[N], wantf[N];
static size_t offsets[NSEG + 2];
static int64_t keys[N];

static void results(unsigned fold, unsigned threads) {
    /* float folds stop at ADN_MAX_FOLD_F32. */
    unsigned ff = fold > ADN_MAX_FOLD_F32 ? ADN_MAX_FOLD_F32 : fold;
    size_t nseg = 0;
    offsets[0] = 0;
    /* Segments: empty ones, single values, small ones, one huge one. */
    while (offsets[nseg] < N && nseg < NSEG) {
        size_t len = nseg == 7 ? 100000 : (rnd(4) == 0 ? 0 : rnd(rnd(2) ? 3 : 200));
        size_t next = offsets[nseg] + len;
        offsets[++nseg] = next < N ? next : N;
    }
    offsets[nseg] = N;
    for (size_t i = 0; i < N; i++) {
        x[i] = value(i);
        xf[i] = (float)x[i];
    }
    /* NaN in one segment, Inf of both signs in another. */
    x[offsets[3]] = NAN;
    x[offsets[5]] = INFINITY;
    x[offsets[5] + 1] = -INFINITY;
    xf[offsets[3]] = NAN;
    xf[offsets[5]] = INFINITY;

    /* Segmented sums against adn_sum_*_fold of each segment. */
    fill64(out, nseg);
    fill32(outf, nseg);
    CHECK_STATUS(adn_segmented_sum_f64(x, offsets, nseg, fold, out), ADN_OK);
    CHECK_STATUS(adn_segmented_sum_f32(xf, offsets, nseg, ff, outf), ADN_OK);
    int ok = 1, okf = 1;
    for (size_t s = 0; s < nseg; s++) {
        double w;
        float wf;
        size_t a = offsets[s], n = offsets[s + 1] - a;
        ok &= adn_sum_f64_fold(x + a, n, fold, &w) == ADN_OK && b64(w) == b64(out[s]);
        okf &= adn_sum_f32_fold(xf + a, n, ff, &wf) == ADN_OK && b32(wf) == b32(outf[s]);
    }
    CHECK(ok, "segmented_sum_f64 fold %u threads %u", fold, threads);
    CHECK(okf, "segmented_sum_f32 fold %u threads %u", fold, threads);

    /* The same groups as keys, the pairs shuffled: the same bits. */
    for (size_t s = 0; s < nseg; s++)
        for (size_t i = offsets[s]; i < offsets[s + 1]; i++) keys[i] = (int64_t)s;
    memcpy(y, x, sizeof x);
    memcpy(yf, xf, sizeof xf);
    for (size_t i = N - 1; i > 0; i--) {
        size_t j = (size_t)rnd(i + 1);
        double t = y[i];
        y[i] = y[j];
        y[j] = t;
        float tf = yf[i];
        yf[i] = yf[j];
        yf[j] = tf;
        int64_t tk = keys[i];
        keys[i] = keys[j];
        keys[j] = tk;
    }
    memcpy(want, out, nseg * sizeof *out);
    memcpy(wantf, outf, nseg * sizeof *outf);
    fill64(out, nseg + 1);
    fill32(outf, nseg + 1);
    CHECK_STATUS(adn_sum_by_key_f64(y, keys, N, nseg + 1, fold, out), ADN_OK);
    CHECK_STATUS(adn_sum_by_key_f32(yf, keys, N, nseg + 1, ff, outf), ADN_OK);
    CHECK(memcmp(out, want, nseg * sizeof *out) == 0 && b64(out[nseg]) == 0,
          "sum_by_key_f64 shuffled fold %u threads %u", fold, threads);
    CHECK(memcmp(outf, wantf, nseg * sizeof *outf) == 0 && b32(outf[nseg]) == 0,
          "sum_by_key_f32 shuffled fold %u threads %u", ff, threads);

    /* Rows of 37 values in a stride of 40 (the padding, NaN, is never read). */
    size_t rows = N / 40, cols = 37, stride = 40;
    memcpy(y, x, sizeof x);
    memcpy(yf, xf, sizeof xf);
    for (size_t i = 0; i < N; i++)
        if (i % stride >= cols) {
            y[i] = NAN;
            yf[i] = NAN;
        }
    fill64(out, rows);
    fill32(outf, rows);
    CHECK_STATUS(adn_sum_rows_f64(y, rows, cols, stride, fold, out), ADN_OK);
    CHECK_STATUS(adn_sum_rows_f32(yf, rows, cols, stride, ff, outf), ADN_OK);
    ok = okf = 1;
    for (size_t r = 0; r < rows; r++) {
        double w;
        float wf;
        ok &= adn_sum_f64_fold(y + r * stride, cols, fold, &w) == ADN_OK && b64(w) == b64(out[r]);
        okf &= adn_sum_f32_fold(yf + r * stride, cols, ff, &wf) == ADN_OK && b32(wf) == b32(outf[r]);
    }
    CHECK(ok, "sum_rows_f64 fold %u threads %u", fold, threads);
    CHECK(okf, "sum_rows_f32 fold %u threads %u", fold, threads);

    /* Segmented cumulative sums, out of place and in place. */
    for (size_t s = 0; s < nseg; s++) {
        size_t a = offsets[s], n = offsets[s + 1] - a;
        adn_cumsum_f64_fold(x + a, want + a, n, fold);
        adn_cumsum_f32_fold(xf + a, wantf + a, n, ff);
    }
    fill64(out, N);
    fill32(outf, N);
    CHECK_STATUS(adn_segmented_cumsum_f64(x, out, offsets, nseg, fold), ADN_OK);
    CHECK_STATUS(adn_segmented_cumsum_f32(xf, outf, offsets, nseg, ff), ADN_OK);
    CHECK(memcmp(out, want, sizeof out) == 0, "segmented_cumsum_f64 fold %u threads %u", fold, threads);
    CHECK(memcmp(outf, wantf, sizeof outf) == 0, "segmented_cumsum_f32 fold %u threads %u", fold, threads);
    memcpy(y, x, sizeof x);
    memcpy(yf, xf, sizeof xf);
    CHECK_STATUS(adn_segmented_cumsum_f64(y, y, offsets, nseg, fold), ADN_OK);
    CHECK_STATUS(adn_segmented_cumsum_f32(yf, yf, offsets, nseg, ff), ADN_OK);
    CHECK(memcmp(y, want, sizeof y) == 0, "segmented_cumsum_f64 in place fold %u", fold);
    CHECK(memcmp(yf, wantf, sizeof yf) == 0, "segmented_cumsum_f32 in place fold %u", fold);
}

static void bad_inputs(void) {
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float vf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double o[8];
    float of[8];
    size_t good[3] = {0, 2, 8};
    int64_t k[8] = {0, 1, 2, 0, 1, 2, 0, 1};
    fill64(o, 8);
    fill32(of, 8);

    /* Segmented sums. */
    CHECK_STATUS(adn_segmented_sum_f64(v, NULL, 2, 3, o), ADN_NULL_POINTER);
    CHECK_STATUS(adn_segmented_sum_f64(NULL, good, 2, 3, o), ADN_NULL_POINTER);
    CHECK_STATUS(adn_segmented_sum_f64(v, good, 2, 3, NULL), ADN_NULL_POINTER);
    CHECK_STATUS(adn_segmented_sum_f64(v, good, 2, 1, o), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_segmented_sum_f64(v, good, 2, 53, o), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_segmented_sum_f32(vf, good, 2, 22, of), ADN_INVALID_FOLD);
    size_t decreasing[4] = {0, 5, 4, 8}, nonzero[3] = {1, 2, 8};
    CHECK_STATUS(adn_segmented_sum_f64(v, decreasing, 3, 3, o), ADN_INVALID_OFFSETS);
    CHECK_STATUS(adn_segmented_sum_f32(vf, nonzero, 2, 3, of), ADN_INVALID_OFFSETS);
    size_t huge[2] = {0, SIZE_MAX};
    CHECK_STATUS(adn_segmented_sum_f64(v, huge, 1, 3, o), ADN_CAPACITY_EXCEEDED);
    CHECK_STATUS(adn_segmented_sum_f64(v, good, 2, 3, v + 1), ADN_OVERLAP);
    CHECK_STATUS(adn_segmented_sum_f64(v, good, 2, 3, (double *)(void *)good), ADN_OVERLAP);
    CHECK_STATUS(adn_segmented_sum_f64(v, (const size_t *)((const char *)good + 1), 1, 3, o), ADN_MISALIGNED);
    CHECK(poisoned64(o, 8) && poisoned32(of, 8), "segmented_sum: outputs untouched");
    CHECK(v[1] == 2 && good[0] == 0 && good[1] == 2 && good[2] == 8, "segmented_sum: inputs untouched");
    size_t zero[1] = {0};
    CHECK_STATUS(adn_segmented_sum_f64(NULL, zero, 0, 3, NULL), ADN_OK);

    /* Rows. */
    CHECK_STATUS(adn_sum_rows_f64(NULL, 2, 4, 4, 3, o), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_rows_f64(v, 2, 4, 4, 3, NULL), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_rows_f64(v, 2, 4, 4, 0, o), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_sum_rows_f32(vf, 2, 4, 4, 22, of), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_sum_rows_f64(v, 2, 5, 4, 3, o), ADN_INVALID_STRIDE);
    CHECK_STATUS(adn_sum_rows_f32(vf, 2, 5, 4, 3, of), ADN_INVALID_STRIDE);
    CHECK_STATUS(adn_sum_rows_f64(v, 3, 1, SIZE_MAX, 3, o), ADN_CAPACITY_EXCEEDED);
    CHECK_STATUS(adn_sum_rows_f64(v, 2, 4, 4, 3, v + 7), ADN_OVERLAP);
    CHECK(poisoned64(o, 8) && poisoned32(of, 8), "sum_rows: outputs untouched");
    CHECK_STATUS(adn_sum_rows_f64(NULL, 0, 4, 4, 3, NULL), ADN_OK);

    /* Keyed sums: the bad key is the last one, found before anything is written. */
    CHECK_STATUS(adn_sum_by_key_f64(NULL, k, 8, 3, 3, o), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_by_key_f64(v, NULL, 8, 3, 3, o), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_by_key_f64(v, k, 8, 3, 3, NULL), ADN_NULL_POINTER);
    CHECK_STATUS(adn_sum_by_key_f64(v, k, 8, 3, 99, o), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_sum_by_key_f32(vf, k, 8, 3, 22, of), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_sum_by_key_f64(v, k, 8, 2, 3, o), ADN_KEY_OUT_OF_RANGE);
    k[7] = -1;
    CHECK_STATUS(adn_sum_by_key_f64(v, k, 8, 3, 3, o), ADN_KEY_OUT_OF_RANGE);
    k[7] = INT64_MIN;
    CHECK_STATUS(adn_sum_by_key_f32(vf, k, 8, 3, 3, of), ADN_KEY_OUT_OF_RANGE);
    k[7] = 1;
    CHECK_STATUS(adn_sum_by_key_f64(v, k, 8, 3, 3, v + 6), ADN_OVERLAP);
    CHECK_STATUS(adn_sum_by_key_f64(v, k, 8, 3, 3, (double *)(void *)(k + 1)), ADN_OVERLAP);
    CHECK(poisoned64(o, 8) && poisoned32(of, 8), "sum_by_key: outputs untouched");
    CHECK_STATUS(adn_sum_by_key_f64(NULL, NULL, 0, 0, 3, NULL), ADN_OK);
    CHECK_STATUS(adn_sum_by_key_f64(NULL, NULL, 0, 2, 3, o), ADN_OK);
    CHECK(b64(o[0]) == 0 && b64(o[1]) == 0 && b64(o[2]) == POISON64, "sum_by_key: no values gives +0.0");
    fill64(o, 8);

    /* Segmented cumulative sums. */
    CHECK_STATUS(adn_segmented_cumsum_f64(v, o, NULL, 2, 3), ADN_NULL_POINTER);
    CHECK_STATUS(adn_segmented_cumsum_f64(NULL, o, good, 2, 3), ADN_NULL_POINTER);
    CHECK_STATUS(adn_segmented_cumsum_f64(v, NULL, good, 2, 3), ADN_NULL_POINTER);
    CHECK_STATUS(adn_segmented_cumsum_f64(v, o, good, 2, 1), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_segmented_cumsum_f32(vf, of, good, 2, 22), ADN_INVALID_FOLD);
    CHECK_STATUS(adn_segmented_cumsum_f64(v, o, decreasing, 3, 3), ADN_INVALID_OFFSETS);
    CHECK_STATUS(adn_segmented_cumsum_f32(vf, of, nonzero, 2, 3), ADN_INVALID_OFFSETS);
    CHECK_STATUS(adn_segmented_cumsum_f64(v, o, huge, 1, 3), ADN_CAPACITY_EXCEEDED);
    size_t four[2] = {0, 4};
    CHECK_STATUS(adn_segmented_cumsum_f64(v, v + 1, four, 1, 3), ADN_OVERLAP);
    CHECK_STATUS(adn_segmented_cumsum_f64(v + 1, v, four, 1, 3), ADN_OVERLAP);
    size_t offs[4] = {0, 1, 2, 3};
    CHECK_STATUS(adn_segmented_cumsum_f64(v, (double *)(void *)(offs + 1), offs, 1, 3), ADN_OVERLAP);
    CHECK(poisoned64(o, 8) && poisoned32(of, 8), "segmented_cumsum: outputs untouched");
    CHECK(v[0] == 1 && v[1] == 2 && v[4] == 5 && offs[1] == 1 && offs[3] == 3, "segmented_cumsum: inputs untouched");
    /* In place, and nothing at all. */
    size_t two[3] = {0, 2, 5};
    CHECK_STATUS(adn_segmented_cumsum_f64(v, v, two, 2, 3), ADN_OK);
    CHECK(v[0] == 1 && v[1] == 3 && v[2] == 3 && v[3] == 7 && v[4] == 12 && v[5] == 6, "in place");
    size_t none[2] = {0, 0};
    CHECK_STATUS(adn_segmented_cumsum_f64(NULL, NULL, none, 1, 3), ADN_OK);

    /* The new codes' texts. */
    CHECK(strstr(adn_status_string(ADN_KEY_OUT_OF_RANGE), "key") != NULL, "ADN_KEY_OUT_OF_RANGE text");
    CHECK(strstr(adn_status_string(ADN_INVALID_OFFSETS), "offsets") != NULL, "ADN_INVALID_OFFSETS text");
    CHECK(strstr(adn_status_string(ADN_INVALID_STRIDE), "stride") != NULL, "ADN_INVALID_STRIDE text");
    CHECK(ADN_KEY_OUT_OF_RANGE == ADN_MPI_ERROR + 1, "ADN_KEY_OUT_OF_RANGE follows ADN_MPI_ERROR");
}

/* The accumulator forms: shards added call after call give each group's whole state (the
 * same bytes as one add of everything) and the sums' bits; bad input changes nothing. */
#define NK 64
/* Keys for the buckets of keys (more than 4096 keys, at least 65536 values per call). */
#define NKB 10007
static adn_acc_f64 accs[NSEG + 1], accs2[NSEG + 1];
static adn_acc_f32 accsf[NKB], accsf2[NKB];

static void accumulators(void) {
    size_t nseg = 0;
    offsets[0] = 0;
    while (offsets[nseg] < N && nseg < NSEG) {
        size_t len = nseg == 3 ? 50000 : (rnd(4) == 0 ? 0 : rnd(300));
        size_t next = offsets[nseg] + len;
        offsets[++nseg] = next < N ? next : N;
    }
    offsets[nseg] = N;
    for (size_t i = 0; i < N; i++) {
        x[i] = value(i);
        xf[i] = (float)x[i];
        keys[i] = (int64_t)(rnd(NK) * rnd(NK) / NK);
    }
    for (size_t s = 0; s < nseg; s++) {
        CHECK_STATUS(adn_acc_f64_init(&accs[s], 5), ADN_OK);
        accs2[s] = accs[s];
    }
    CHECK_STATUS(adn_acc_f64_add_segments(accs, x, offsets, nseg), ADN_OK);
    /* Three shards, cut inside segments, with offsets relative to each shard. */
    size_t cuts[4] = {0, 777, 123457, N};
    static size_t local[NSEG + 2];
    for (int c = 0; c < 3; c++) {
        for (size_t s = 0; s <= nseg; s++) {
            size_t o = offsets[s] < cuts[c] ? cuts[c] : offsets[s] > cuts[c + 1] ? cuts[c + 1] : offsets[s];
            local[s] = o - cuts[c];
        }
        CHECK_STATUS(adn_acc_f64_add_segments(accs2, x + cuts[c], local, nseg), ADN_OK);
    }
    CHECK_STATUS(adn_segmented_sum_f64(x, offsets, nseg, 5, want), ADN_OK);
    int ok = 1;
    for (size_t s = 0; s < nseg; s++) {
        double v1, v2;
        ok &= adn_acc_f64_value(&accs[s], &v1) == ADN_OK && adn_acc_f64_value(&accs2[s], &v2) == ADN_OK;
        ok &= b64(v1) == b64(want[s]) && b64(v2) == b64(want[s]);
        ok &= memcmp(&accs[s], &accs2[s], sizeof accs[s]) == 0;
    }
    CHECK(ok, "add_segments: shards give the whole segments' states and sums");

    /* Keys, f32, fold 7: the pairs in two shards, the second one reversed; 64 keys, then
     * 10007 (by buckets of keys: both shards have more than 65536 pairs). */
    const size_t nks[2] = {NK, NKB};
    for (int pass = 0; pass < 2; pass++) {
        const size_t nk = nks[pass];
        if (pass) {
            for (size_t i = 0; i < N; i++) keys[i] = (int64_t)(rnd(nk) * rnd(nk) / nk);
        }
        for (size_t k = 0; k < nk; k++) {
            CHECK_STATUS(adn_acc_f32_init(&accsf[k], 7), ADN_OK);
            accsf2[k] = accsf[k];
        }
        CHECK_STATUS(adn_acc_f32_add_by_key(accsf, nk, xf, keys, N), ADN_OK);
        static float rxf[N];
        static int64_t rkeys[N];
        size_t half = N / 3;
        for (size_t i = half; i < N; i++) {
            rxf[i - half] = xf[N - 1 - (i - half)];
            rkeys[i - half] = keys[N - 1 - (i - half)];
        }
        CHECK_STATUS(adn_acc_f32_add_by_key(accsf2, nk, xf, keys, half), ADN_OK);
        CHECK_STATUS(adn_acc_f32_add_by_key(accsf2, nk, rxf, rkeys, N - half), ADN_OK);
        CHECK_STATUS(adn_sum_by_key_f32(xf, keys, N, nk, 7, wantf), ADN_OK);
        ok = 1;
        for (size_t k = 0; k < nk; k++) {
            float v1, v2;
            ok &= adn_acc_f32_value(&accsf[k], &v1) == ADN_OK && adn_acc_f32_value(&accsf2[k], &v2) == ADN_OK;
            ok &= b32(v1) == b32(wantf[k]) && b32(v2) == b32(wantf[k]);
            /* The canonical encodings (the structs' own bytes hold states not renormalised,
             * which differ with the order of a key's few values). */
            uint8_t e1[ADN_ACC_ENCODED_MAX], e2[ADN_ACC_ENCODED_MAX];
            size_t l1 = 0, l2 = 0;
            ok &= adn_acc_f32_to_bytes(&accsf[k], e1, sizeof e1, &l1) == ADN_OK;
            ok &= adn_acc_f32_to_bytes(&accsf2[k], e2, sizeof e2, &l2) == ADN_OK;
            ok &= l1 == l2 && memcmp(e1, e2, l1) == 0;
        }
        CHECK(ok, pass ? "add_by_key, 10007 keys: shards in any order give the whole keys' states and sums"
                       : "add_by_key: shards in any order give the whole keys' states and sums");
    }

    /* Bad input: nothing changes. */
    memcpy(accs2, accs, sizeof accs);
    size_t good[3] = {0, 2, 8}, decreasing[4] = {0, 5, 4, 8};
    int64_t k8[8] = {0, 1, 2, 1, 0, 1, 2, 3};
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_STATUS(adn_acc_f64_add_segments(NULL, v, good, 2), ADN_NULL_POINTER);
    CHECK_STATUS(adn_acc_f64_add_segments(accs, NULL, good, 2), ADN_NULL_POINTER);
    CHECK_STATUS(adn_acc_f64_add_segments(accs, v, NULL, 2), ADN_NULL_POINTER);
    CHECK_STATUS(adn_acc_f64_add_segments(accs, v, decreasing, 3), ADN_INVALID_OFFSETS);
    CHECK_STATUS(adn_acc_f64_add_segments((adn_acc_f64 *)(void *)((char *)accs + 4), v, good, 2), ADN_MISALIGNED);
    CHECK_STATUS(adn_acc_f64_add_segments(accs, (double *)(void *)&accs[1], good, 2), ADN_OVERLAP);
    CHECK_STATUS(adn_acc_f64_add_by_key(accs, 3, v, k8, 8), ADN_KEY_OUT_OF_RANGE);
    CHECK_STATUS(adn_acc_f64_add_by_key(accs, 4, NULL, k8, 8), ADN_NULL_POINTER);
    CHECK_STATUS(adn_acc_f64_add_by_key(accs, 4, v, NULL, 8), ADN_NULL_POINTER);
    CHECK_STATUS(adn_acc_f64_add_by_key(NULL, 4, v, k8, 8), ADN_NULL_POINTER);
    CHECK_STATUS(adn_acc_f64_add_by_key(accs, 4, (double *)(void *)&accs[2], k8, 8), ADN_OVERLAP);
    /* One accumulator not set up, among set-up ones (the last): found before any add. */
    adn_acc_f64 raw[4];
    memcpy(raw, accs, 3 * sizeof raw[0]);
    memset(&raw[3], 0, sizeof raw[3]);
    adn_acc_f64 before[4];
    memcpy(before, raw, sizeof raw);
    CHECK_STATUS(adn_acc_f64_add_by_key(raw, 4, v, k8, 8), ADN_NOT_INITIALIZED);
    CHECK(memcmp(raw, before, sizeof raw) == 0, "add_by_key: nothing added before the bad accumulator is found");
    CHECK(memcmp(accs2, accs, sizeof accs) == 0, "grouped adds: accumulators unchanged on error");
    CHECK_STATUS(adn_acc_f64_add_segments(NULL, NULL, (size_t[1]){0}, 0), ADN_OK);
    CHECK_STATUS(adn_acc_f64_add_by_key(NULL, 0, NULL, NULL, 0), ADN_OK);
}

int main(void) {
    bad_inputs();
    accumulators();
    const unsigned threads[] = {1, 2, 3, 8};
    const unsigned folds[] = {2, 3, 8, ADN_MAX_FOLD_F32, ADN_MAX_FOLD_F64};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        CHECK_STATUS(adn_set_num_threads(threads[t]), ADN_OK);
        for (size_t f = 0; f < sizeof folds / sizeof *folds; f++) results(folds[f], threads[t]);
    }
    CHECK_STATUS(adn_set_num_threads(0), ADN_OK);
    printf("%lu passed, %lu failed\n", passed, failed);
    return failed ? 1 : 0;
}
