// reprosum from C++17 (include/reprosum.hpp): adn::sum, adn::cumsum, adn::accumulator.
//
//   c++ -std=c++17 -ffp-contract=off -Iinclude -Iexamples-c examples-c/sum.cpp
//       target/release/libreprosum.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o sum_cpp
//
// Prints "case NAME sum HEX" / "case NAME cumsum HEX..." lines for known-answer inputs
// (checked by ffi/tests/c_programs.rs) and "error ..." lines for the exceptions.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "mt19937.h"
#include "reprosum.hpp"

static std::uint64_t bits(double d) { return f64_to_bits(d); }
static std::uint32_t bits(float f) { return f32_to_bits(f); }

int main() {
    // SyclReproSum's README example: 5 x {1e16, -1e16} then 10000 ones.
    std::vector<double> x;
    for (int i = 0; i < 5; i++) {
        x.push_back(1e16);
        x.push_back(-1e16);
    }
    x.insert(x.end(), 10000, 1.0);
    double s = adn::sum(x.data(), x.size());
    std::printf("case readme_example sum %016" PRIX64 "\n", bits(s));

    // Fold as a template parameter, type deduced.
    const double tie[3] = {1.0, -1.0, bits_to_f64(0x3A14000000000000ull)};
    std::printf("case tie_fold_2 sum %016" PRIX64 "\n", bits(adn::sum<2>(tie, 3)));
    std::printf("case tie_fold_4 sum %016" PRIX64 "\n", bits(adn::sum<4>(tie, 3)));
    std::printf("case tie_fold_52 sum %016" PRIX64 "\n", bits(adn::sum<52>(tie, 3)));
    const float k[5] = {1e20f, -1e20f, 3.5f, -2.0f, 0.25f};
    std::printf("case f32_k3_limit sum %08" PRIX32 "\n", bits(adn::sum(k, 5)));
    std::printf("case f32_k_limit_fold_6 sum %08" PRIX32 "\n", bits(adn::sum<6>(k, 5)));
    std::printf("case f32_k_limit_fold_21 sum %08" PRIX32 "\n", bits(adn::sum<21>(k, 5)));

    // Cumulative sum, separate output and in place.
    std::vector<double> c = {1e16, 1.0, -1e16, 3.0, -2.0, bits_to_f64(0x16687E92154EF7ACull),
                             bits_to_f64(0x96687E92154EF7ACull), 0.25};
    std::vector<double> out(c.size());
    adn::cumsum(c.data(), out.data(), c.size());
    adn::cumsum(c.data(), c.data(), c.size());
    if (std::memcmp(c.data(), out.data(), c.size() * sizeof(double)) != 0) return 1;
    std::printf("case cumsum_example cumsum");
    for (double v : out) std::printf(" %016" PRIX64, bits(v));
    std::printf("\n");

    // The wide-range input through accumulators and their encoding.
    std::vector<double> w(WIDE_RANGE_LEN);
    wide_range_fill(w.data(), w.size());
    adn::accumulator<double> a, b;
    a.add(w.data(), w.size() / 2);
    for (std::size_t i = w.size() / 2; i < w.size(); i++) b.add(w[i]);
    auto bytes = b.to_bytes();
    a.merge(adn::accumulator<double>::from_bytes(bytes.data(), bytes.size()));
    std::printf("case wide_range_1m sum %016" PRIX64 "\n", bits(a.value()));
    if (a.count() != WIDE_RANGE_LEN) return 1;

    // Limits, as in SyclReproSum.
    static_assert(adn::max_reproducible_count<float> == 4294966784ull);
    static_assert(adn::max_reproducible_count<double> == 9223372036854773760ull);
    std::printf("max_reproducible_count float %" PRIu64 " double %" PRIu64 "\n",
                adn::max_reproducible_count<float>, adn::max_reproducible_count<double>);

    // Errors are exceptions carrying the status.
    int caught = 0;
    try {
        adn::sum(static_cast<const double *>(nullptr), 5);
    } catch (const adn::error &e) {
        std::printf("error %d %s\n", static_cast<int>(e.status()), e.what());
        caught += e.status() == ADN_NULL_POINTER;
    }
    try {
        adn::sum(k, static_cast<std::size_t>(adn::max_reproducible_count<float>) + 1);
    } catch (const std::runtime_error &e) { // adn::error is a std::runtime_error
        std::printf("error %s\n", e.what());
        caught += dynamic_cast<const adn::error &>(e).status() == ADN_CAPACITY_EXCEEDED;
    }
    try {
        adn::cumsum(out.data(), out.data() + 1, 4);
    } catch (const adn::error &e) {
        std::printf("error %d %s\n", static_cast<int>(e.status()), e.what());
        caught += e.status() == ADN_OVERLAP;
    }
    try {
        adn::accumulator<float> f(22);
    } catch (const adn::error &e) {
        std::printf("error %d %s\n", static_cast<int>(e.status()), e.what());
        caught += e.status() == ADN_INVALID_FOLD;
    }
    return caught == 4 ? 0 : 1;
}
