/*
 * reprosum from C: sums, cumulative sums and accumulators, with the bits printed.
 *
 *   cc -std=c11 -ffp-contract=off -Iinclude -Iexamples-c examples-c/sum.c \
 *      target/release/libreprosum.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o sum
 *
 * Each line is "case NAME sum HEX", "case NAME cumsum HEX...", or "case NAME bytes HEX"
 * for inputs that are cases of tests/vectors/known_answers.txt; ffi/tests/c_programs.rs
 * checks every line against that file and against reprosum-core.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "mt19937.h"
#include "reprosum.h"

/* Exits with the status's message if a call failed. */
static void check(adn_status s, const char *what) {
    if (s != ADN_OK) {
        fprintf(stderr, "%s: %s\n", what, adn_status_string(s));
        exit(1);
    }
}

int main(void) {
    /* 1. A sum in any order gives the same bits: 1e16 + 1 - 1e16 ... plus 10000 ones. */
    static double x[10010];
    for (int i = 0; i < 5; i++) {
        x[2 * i] = 1e16;
        x[2 * i + 1] = -1e16;
    }
    for (int i = 10; i < 10010; i++) x[i] = 1.0;
    double s;
    check(adn_sum(x, 10010, &s), "adn_sum"); /* C11 _Generic: adn_sum_f64 */
    printf("case readme_example sum %016" PRIX64 "\n", f64_to_bits(s));

    /* 2. A cumulative sum: out[i] has the bits of the sum of x[0..i]. */
    const double c[8] = {1e16, 1.0, -1e16, 3.0, -2.0, bits_to_f64(0x16687E92154EF7ACull),
                         bits_to_f64(0x96687E92154EF7ACull), 0.25};
    double out[8];
    check(adn_cumsum_f64(c, out, 8), "adn_cumsum_f64");
    printf("case cumsum_example cumsum");
    for (int i = 0; i < 8; i++) printf(" %016" PRIX64, f64_to_bits(out[i]));
    printf("\n");
    check(adn_cumsum(out, out, 8), "adn_cumsum"); /* in place is allowed */
    check(adn_sum_f64(c, 8, &s), "adn_sum_f64");
    printf("case cumsum_example sum %016" PRIX64 "\n", f64_to_bits(s));

    /* 3. floats: converted in double, rounded to float once. */
    const float f[4] = {bits_to_f32(0xC2647FCCu), bits_to_f32(0xB031E33Au), bits_to_f32(0x4B09A513u),
                        bits_to_f32(0xBF3A1761u)};
    float fs;
    check(adn_sum(f, 4, &fs), "adn_sum (float)");
    printf("case f32_double_rounding sum %08" PRIX32 "\n", f32_to_bits(fs));
    check(adn_sum_f32_fold(f, 4, 2, &fs), "adn_sum_f32_fold");
    printf("case f32_double_rounding_fold_2 sum %08" PRIX32 "\n", f32_to_bits(fs));

    /* 4. A larger fold is more accurate. */
    const float k[5] = {1e20f, -1e20f, 3.5f, -2.0f, 0.25f};
    check(adn_sum_f32_fold(k, 5, 6, &fs), "adn_sum_f32_fold");
    printf("case f32_k_limit_fold_6 sum %08" PRIX32 "\n", f32_to_bits(fs));

    /* 5. SyclReproSum's "double, 1M wide-range" input, whole and split over accumulators. */
    double *w = malloc(WIDE_RANGE_LEN * sizeof *w);
    if (!w) return 1;
    wide_range_fill(w, WIDE_RANGE_LEN);
    check(adn_sum_f64(w, WIDE_RANGE_LEN, &s), "adn_sum_f64");
    printf("case wide_range_1m sum %016" PRIX64 "\n", f64_to_bits(s));
    adn_acc_f64 total, part;
    check(adn_acc_f64_init(&total, ADN_DEFAULT_FOLD), "init");
    for (size_t at = WIDE_RANGE_LEN; at > 0;) { /* uneven parts, last to first */
        size_t len = at < 77777 ? at : 77777;
        at -= len;
        check(adn_acc_f64_init(&part, ADN_DEFAULT_FOLD), "init");
        check(adn_acc_f64_add_array(&part, w + at, len), "add_array");
        check(adn_acc_f64_merge(&total, &part), "merge");
    }
    check(adn_acc_f64_value(&total, &s), "value");
    printf("case wide_range_1m sum %016" PRIX64 "\n", f64_to_bits(s));
    free(w);

    /* 6. The portable encoding of an accumulator. */
    adn_acc_f64 acc;
    uint8_t buf[ADN_ACC_ENCODED_MAX];
    size_t len;
    check(adn_acc_f64_init(&acc, 3), "init");
    for (int i = 0; i < 10010; i++) check(adn_acc_f64_add(&acc, x[i]), "add");
    check(adn_acc_f64_to_bytes(&acc, buf, sizeof buf, &len), "to_bytes");
    printf("case readme_example bytes ");
    for (size_t i = 0; i < len; i++) printf("%02X", buf[i]);
    printf("\n");

    /* 7. Errors are status codes; outputs are untouched. */
    adn_status st = adn_cumsum_f64(out, out + 1, 4); /* overlapping: refused */
    printf("status %d %s\n", (int)st, adn_status_string(st));
    return st == ADN_OVERLAP ? 0 : 1;
}
