// C++ tests of reprosum.hpp's batched sums (adn::segmented_sum, sum_rows, sum_by_key,
// segmented_cumsum): the bits of adn::sum / adn::cumsum of each group, and adn::error with the
// status for bad arguments, the output untouched. Prints "N passed, M failed".
//
// Built and run by ffi/tests/c_programs.rs (cargo test).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "reprosum.hpp"

static unsigned long passed, failed;

static void check(bool ok, const char *what) {
    if (ok) {
        passed++;
    } else {
        failed++;
        std::fprintf(stderr, "FAIL %s\n", what);
    }
}

template <typename T>
static bool same(T a, T b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

template <typename T, typename F>
static void throws(F f, adn_status want, const char *what) {
    try {
        f();
        check(false, what);
    } catch (const adn::error &e) {
        check(e.status() == want, what);
    }
}

template <int K, typename T>
static void run() {
    std::vector<T> x(1000);
    for (std::size_t i = 0; i < x.size(); i++)
        x[i] = static_cast<T>((i % 7 == 3 ? 1e6 : 1.0) * (static_cast<double>((i * 7919) % 1000) * 1e-3 - 0.4));
    const std::vector<std::size_t> offsets = {0, 0, 1, 400, 400, 1000};
    const std::size_t nseg = offsets.size() - 1;

    std::vector<T> out(nseg, T(7));
    adn::segmented_sum<K>(x.data(), offsets.data(), nseg, out.data());
    bool ok = true;
    for (std::size_t s = 0; s < nseg; s++)
        ok = ok && same(out[s], adn::sum<K>(x.data() + offsets[s], offsets[s + 1] - offsets[s]));
    check(ok, "segmented_sum");

    std::vector<std::int64_t> keys(x.size());
    for (std::size_t s = 0; s < nseg; s++)
        for (std::size_t i = offsets[s]; i < offsets[s + 1]; i++) keys[i] = static_cast<std::int64_t>(s);
    std::vector<T> rx(x.rbegin(), x.rend());
    std::vector<std::int64_t> rk(keys.rbegin(), keys.rend());
    std::vector<T> by_key(nseg, T(7));
    adn::sum_by_key<K>(rx.data(), rk.data(), rx.size(), nseg, by_key.data());
    ok = true;
    for (std::size_t s = 0; s < nseg; s++) ok = ok && same(by_key[s], out[s]);
    check(ok, "sum_by_key (pairs reversed)");

    std::vector<T> rows(10, T(7));
    adn::sum_rows<K>(x.data(), 10, 90, 100, rows.data());
    ok = true;
    for (std::size_t r = 0; r < 10; r++) ok = ok && same(rows[r], adn::sum<K>(x.data() + r * 100, 90));
    check(ok, "sum_rows");

    std::vector<T> cum(x.size()), want(x.size());
    adn::segmented_cumsum<K>(x.data(), cum.data(), offsets.data(), nseg);
    for (std::size_t s = 0; s < nseg; s++)
        adn::cumsum<K>(x.data() + offsets[s], want.data() + offsets[s], offsets[s + 1] - offsets[s]);
    check(std::memcmp(cum.data(), want.data(), cum.size() * sizeof(T)) == 0, "segmented_cumsum");
    std::vector<T> inplace(x);
    adn::segmented_cumsum<K>(inplace.data(), inplace.data(), offsets.data(), nseg);
    check(std::memcmp(inplace.data(), want.data(), want.size() * sizeof(T)) == 0, "segmented_cumsum in place");

    std::vector<T> poison(nseg, T(7));
    const std::vector<std::size_t> decreasing = {0, 5, 4, 1000};
    throws<T>([&] { adn::segmented_sum<K>(x.data(), decreasing.data(), 3, poison.data()); }, ADN_INVALID_OFFSETS,
              "decreasing offsets");
    throws<T>([&] { adn::sum_rows<K>(x.data(), 2, 11, 10, poison.data()); }, ADN_INVALID_STRIDE, "cols > row_stride");
    keys[999] = static_cast<std::int64_t>(nseg);
    throws<T>([&] { adn::sum_by_key<K>(x.data(), keys.data(), x.size(), nseg, poison.data()); },
              ADN_KEY_OUT_OF_RANGE, "key out of range");
    throws<T>([&] { adn::segmented_cumsum<K>(x.data(), x.data() + 1, offsets.data(), 3); }, ADN_OVERLAP, "overlap");
    ok = true;
    for (T v : poison) ok = ok && same(v, T(7));
    check(ok, "errors write nothing");

    // The accumulator forms: two shards (cut inside segment 3) give the segmented sums.
    std::vector<adn::accumulator<T>> accs(nseg, adn::accumulator<T>(K));
    const std::vector<std::size_t> first = {0, 0, 1, 400, 400, 700}, second = {0, 0, 0, 0, 0, 300};
    adn::add_segments(accs.data(), x.data(), first.data(), nseg);
    adn::add_segments(accs.data(), x.data() + 700, second.data(), nseg);
    ok = true;
    for (std::size_t s = 0; s < nseg; s++) ok = ok && same(accs[s].value(), out[s]);
    check(ok, "add_segments in two shards");
    keys[999] = 0;
    std::vector<adn::accumulator<T>> kaccs(nseg, adn::accumulator<T>(K));
    adn::add_by_key(kaccs.data(), nseg, rx.data(), rk.data(), 500);
    adn::add_by_key(kaccs.data(), nseg, rx.data() + 500, rk.data() + 500, 500);
    ok = true;
    for (std::size_t s = 0; s < nseg; s++) ok = ok && same(kaccs[s].value(), by_key[s]);
    check(ok, "add_by_key in two shards");
    rk[0] = -1;
    throws<T>([&] { adn::add_by_key(kaccs.data(), nseg, rx.data(), rk.data(), rx.size()); }, ADN_KEY_OUT_OF_RANGE,
              "add_by_key: a negative key");
    throws<T>([&] { adn::add_segments(accs.data(), x.data(), decreasing.data(), 3); }, ADN_INVALID_OFFSETS,
              "add_segments: decreasing offsets");
    ok = true;
    for (std::size_t s = 0; s < nseg; s++) ok = ok && same(kaccs[s].value(), by_key[s]) && same(accs[s].value(), out[s]);
    check(ok, "grouped adds: errors change nothing");
}

int main() {
    run<3, double>();
    run<8, double>();
    run<52, double>();
    run<2, float>();
    run<3, float>();
    run<21, float>();
    std::printf("%lu passed, %lu failed\n", passed, failed);
    return failed ? 1 : 0;
}
