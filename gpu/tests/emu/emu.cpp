// CPU emulation of gpu/kernels/reprosum.cu: every block runs with blockDim real threads
// and a real barrier; blocks run one after another. Checks the sum and cumsum kernels
// against a vectors file (tests/vectors/*.txt) at every fold 2..8 present.
// Build: g++ -std=c++20 -O1 -ffp-contract=off -pthread gpu/tests/emu/emu.cpp -o emu
// Run:   ./emu tests/vectors/core_vectors.txt [block ...]
#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

static thread_local unsigned tl_tid;
static unsigned g_bid, g_bdim, g_gdim;
static std::barrier<>* g_bar;
static unsigned char* g_smem;

#define RS_HOST_SHIM 1
#define RS_KERNEL extern "C"
#define RS_DEV static inline
#define RS_TID (tl_tid)
#define RS_BID ((unsigned long long)g_bid)
#define RS_BDIM (g_bdim)
#define RS_GDIM ((unsigned long long)g_gdim)
#define RS_SYNC() g_bar->arrive_and_wait()
#define RS_FENCE() std::atomic_thread_fence(std::memory_order_seq_cst)
#define RS_ATOMIC_ADD_U32(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define RS_DYN_SHARED(name) unsigned char* name = g_smem
#include "../../kernels/portable.h"
#include "../../kernels/reprosum.cu"

static void launch(unsigned grid, unsigned block, size_t smem, const std::function<void()>& body) {
  std::vector<unsigned char> sm(smem + 64);
  g_smem = sm.data();
  g_gdim = grid;
  g_bdim = block;
  for (unsigned b = 0; b < grid; ++b) {
    g_bid = b;
    std::barrier<> bar(block);
    g_bar = &bar;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; ++t) ts.emplace_back([&, t] { tl_tid = t; body(); });
    for (auto& t : ts) t.join();
  }
}

// The host's recursive scan of states (as gpu/src/cuda.rs does it), groups of `g`.
template <typename T, int K>
static void scan_states(T* states, unsigned long long n, unsigned g) {
  const int slots = 2 * K + 1;
  unsigned long long ng = (n + g - 1) / g;
  std::vector<T> totals(ng * slots);
  launch(ng, g, 16 + slots * (g + RS_RAKE) * sizeof(T), [&] { rs_group_scan_body<T, K>(states, n, totals.data()); });
  if (ng > 1) {
    scan_states<T, K>(totals.data(), ng, g);
    launch(ng, g, 16, [&] { rs_add_prefix_body<T, K>(states, n, totals.data()); });
  }
}

struct Case { std::string name, dtype; int fold; std::vector<unsigned long long> in, cum; unsigned long long sum; bool gen = false; };

template <typename T, int K>
static bool run_t(const Case& c, unsigned block, unsigned grid) {
  typedef typename RsF<T>::U U;
  std::vector<T> x(c.in.size() + 1);
  T* xp = x.data() + ((c.in.size() % 2) ? 1 : 0);  // also exercise a misaligned start
  for (size_t i = 0; i < c.in.size(); ++i) xp[i] = rs_from_bits((U)c.in[i]);
  unsigned long long n = c.in.size();
  const int slots = 2 * K + 1;
  std::vector<T> states(grid * slots), result(slots + 1);
  unsigned counter = 0;
  launch(grid, block, 16 + slots * block * sizeof(T), [&] { rs_sum_body<T, K>(xp, n, states.data(), &counter, result.data()); });
  bool ok = true;
  if ((unsigned long long)rs_bits(result[2 * K + 1]) != c.sum) {
    printf("FAIL sum %s block %u grid %u: got %llx want %llx\n", c.name.c_str(), block, grid, (unsigned long long)rs_bits(result[2 * K + 1]), c.sum);
    ok = false;
  }
  if (counter != 0) { printf("FAIL counter not reset\n"); ok = false; }
  if (!c.cum.empty() && n > 0) {
    const unsigned E = RS_TILE_E;
    unsigned long long tile = (unsigned long long)block * E, ntiles = (n + tile - 1) / tile;
    std::vector<T> tiles(ntiles * slots), out(n);
    for (auto& o : out) o = rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull);
    const T* pre = nullptr;
    if (ntiles > 1) {
      launch(ntiles, block, 16 + slots * block * sizeof(T), [&] { rs_tile_reduce_body<T, K, E>(xp, n, tiles.data()); });
      scan_states<T, K>(tiles.data(), ntiles, 4);  // groups of 4: several levels
      pre = tiles.data();
    }
    launch(ntiles, block, 16 + slots * (block + RS_RAKE) * sizeof(T) + (tile + block) * sizeof(T), [&] { rs_tile_scan_body<T, K, E>(xp, out.data(), n, pre); });
    for (size_t i = 0; i < n; ++i)
      if ((unsigned long long)rs_bits(out[i]) != c.cum[i]) {
        printf("FAIL cumsum %s block %u at %zu: got %llx want %llx\n", c.name.c_str(), block, i, (unsigned long long)rs_bits(out[i]), c.cum[i]);
        ok = false;
        break;
      }
  }
  return ok;
}

template <typename T>
static int run_fold(const Case& c, unsigned block, unsigned grid) {
  switch (c.fold) {
    case 2: return run_t<T, 2>(c, block, grid);
    case 3: return run_t<T, 3>(c, block, grid);
    case 4: return run_t<T, 4>(c, block, grid);
    case 5: return run_t<T, 5>(c, block, grid);
    case 6: return run_t<T, 6>(c, block, grid);
    case 7: return run_t<T, 7>(c, block, grid);
    case 8: return run_t<T, 8>(c, block, grid);
  }
  return -1;
}

int main(int argc, char** argv) {
  std::ifstream f(argv[1]);
  std::vector<unsigned> blocks;
  for (int i = 2; i < argc; ++i) blocks.push_back((unsigned)atoi(argv[i]));
  if (blocks.empty()) blocks = {1, 3, 32, 64};
  std::string line;
  Case c;
  int pass = 0, fail = 0, skip = 0;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    std::string w;
    ss >> w;
    if (w == "case") { c = Case(); ss >> c.name >> c.dtype >> c.fold; }
    else if (w == "part") { int r; ss >> r; std::vector<unsigned long long> v; std::string h; while (ss >> h) v.push_back(std::stoull(h, nullptr, 16)); for (int i = 0; i < r; ++i) c.in.insert(c.in.end(), v.begin(), v.end()); }
    else if (w == "set") { size_t i; std::string h; ss >> i >> h; c.in[i] = std::stoull(h, nullptr, 16); }
    else if (w == "gen") c.gen = true;
    else if (w == "sum") { std::string h; ss >> h; c.sum = std::stoull(h, nullptr, 16); }
    else if (w == "cumsum") { std::string h; while (ss >> h) c.cum.push_back(std::stoull(h, nullptr, 16)); }
    else if (w == "end") {
      if (c.gen || c.fold > 8 || c.in.size() > 200000) { ++skip; continue; }
      for (unsigned b : blocks)
        for (unsigned g : {1u, 3u}) {
          int r = c.dtype == "f64" ? run_fold<double>(c, b, g) : run_fold<float>(c, b, g);
          if (r > 0) ++pass; else ++fail;
        }
    }
  }
  printf("emu: %d passed, %d failed, %d cases skipped (generated, fold > 8 or long)\n", pass, fail, skip);
  return fail ? 1 : 0;
}
