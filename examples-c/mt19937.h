/*
 * std::mt19937 and the "double, 1M wide-range" input of SyclReproSum's README, in C, for
 * the examples and tests: std::mt19937 gen(1), then per value two draws g1, g2 and
 * u = (g1 + g2 * 2^32) / 2^64 (rounded once to double), x = u * 2e12 - 1e12 (no FMA:
 * compile with -ffp-contract=off). The K = 3 sum of the 1,000,000 values is
 * 0x430FC878C605717F. The same generator as reprosum-testkit's mt.rs.
 */
#ifndef REPROSUM_EXAMPLES_MT19937_H
#define REPROSUM_EXAMPLES_MT19937_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WIDE_RANGE_LEN 1000000u
#define WIDE_RANGE_SUM_BITS UINT64_C(0x430FC878C605717F)

typedef struct mt19937 {
    uint32_t state[624];
    unsigned index;
} mt19937;

static inline void mt19937_seed(mt19937 *m, uint32_t seed) {
    m->state[0] = seed;
    for (unsigned i = 1; i < 624; i++) {
        uint32_t prev = m->state[i - 1];
        m->state[i] = 1812433253u * (prev ^ (prev >> 30)) + i;
    }
    m->index = 624;
}

static inline uint32_t mt19937_next(mt19937 *m) {
    if (m->index >= 624) {
        for (unsigned i = 0; i < 624; i++) {
            uint32_t y = (m->state[i] & 0x80000000u) | (m->state[(i + 1) % 624] & 0x7fffffffu);
            uint32_t v = m->state[(i + 397) % 624] ^ (y >> 1);
            if (y & 1u) v ^= 0x9908b0dfu;
            m->state[i] = v;
        }
        m->index = 0;
    }
    uint32_t y = m->state[m->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

static inline double bits_to_f64(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static inline uint64_t f64_to_bits(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static inline float bits_to_f32(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline uint32_t f32_to_bits(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* Fills x[0..n) with the first n values of the wide-range input (n <= WIDE_RANGE_LEN). */
static inline void wide_range_fill(double *x, size_t n) {
    mt19937 m;
    mt19937_seed(&m, 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t g1 = mt19937_next(&m);
        uint64_t g2 = mt19937_next(&m);
        double u = (double)(g1 + (g2 << 32)) / 18446744073709551616.0;
        if (u >= 1.0) u = bits_to_f64(0x3FEFFFFFFFFFFFFFull); /* the largest double below 1 */
        x[i] = u * 2e12 - 1e12;
    }
}

#endif
