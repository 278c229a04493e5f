// The C++17 twin of consumer.c, through reprosum.hpp (adn::sum; errors throw adn::error).
//
//   consumer_cpp FILE...      prints "sum HEX" per file of raw little-endian doubles
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include <reprosum.hpp>

static std::vector<double> read_doubles(const char *path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot open ") + path);
    std::vector<unsigned char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (b.size() % 8 != 0) throw std::runtime_error(std::string(path) + ": not a whole number of doubles");
    std::vector<double> x(b.size() / 8);
    for (std::size_t k = 0; k < x.size(); k++) {
        std::uint64_t u = 0;
        for (int i = 7; i >= 0; i--) u = (u << 8) | b[8 * k + i];
        std::memcpy(&x[k], &u, sizeof u);
    }
    return x;
}

int main(int argc, char **argv) {
    try {
        for (int i = 1; i < argc; i++) {
            std::vector<double> x = read_doubles(argv[i]);
            double s = adn::sum(x.data(), x.size());
            std::uint64_t u;
            std::memcpy(&u, &s, sizeof u);
            std::printf("sum %016" PRIX64 "\n", u);
        }
    } catch (const adn::error &e) {
        std::fprintf(stderr, "adn::error %d: %s\n", static_cast<int>(e.status()), e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}
