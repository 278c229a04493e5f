// CPU emulation of gpu/kernels/reprosum.cu. Checks the sum and cumsum kernels against a
// vectors file (tests/vectors/*.txt) at every fold present, by bits: folds 2..8 on the
// kernels built for that fold, the larger ones (f64 9..52, f32 9..21) on the run-time-fold
// kernels (K = -52, -21), which the hosts run on the general path only, as here.
//
// Two engines run the blocks (one after another):
//   threads (default): blockDim real threads per block and a real barrier (std::barrier).
//   fibers (--warp W): blockDim fibers per block on one OS thread, scheduled
//     deterministically. There is NO implicit synchronisation between threads: each runs
//     until it reaches a block barrier (or a warp operation), in the order --sched picks
//     (asc, desc, or a seeded random permutation at every phase), so a missing barrier lets
//     a thread read shared memory its neighbours have not written yet (shared memory is
//     poisoned with 0xA5 before every block). A barrier not reached by every thread of the
//     block (divergent control flow) is reported as an error. Warps are W lanes wide
//     (tid / W); warp operations (the shuffle of the harness's variants) synchronise the
//     lanes of one warp and follow HIP's __shfl_down: a source lane outside the warp gives
//     the caller's own value.
//   --variant V (fibers) replaces the kernels' block reduction by a deliberately broken (or a
//     control) variant, to show that the emulation catches the bug (see variants below);
//     --drop-sync LINE removes the barrier at that line of reprosum.cu; --mutate-syncs
//     removes each barrier in turn and fails unless every removal is detected.
//
// Build: g++ -std=c++20 -O1 -ffp-contract=off -pthread gpu/tests/emu/emu.cpp -o emu
// Run:   ./emu [--warp 32|64] [--sched asc|desc|rand] [--variant V] [--drop-sync LINE]
//            [--mutate-syncs [--allow-undetected LINE]] [--expect-fail] [--random SEED] [--max-fold K]
//            tests/vectors/core_vectors.txt [block ...]
//   --random SEED adds generated long cases (see gen_case) to the file's cases.
//   --max-fold K skips the cases of larger folds (the barrier-removal run: folds 2..12 take
//   both the kernels built for each fold and, from 9, the run-time-fold ones).
//   A case with a `start` field (the kernels' layout of a state: K primaries, K carries,
//   the flags slot; written with reprosum-core's expected bits by the example
//   emu_from_cases) is a cumulative sum continued from that state: the scan kernels get it
//   as `start`, and every output is checked. --ignore-start fixed|general|tile0|lookback
//   passes null instead to that launch (with --expect-fail: a self-check that the cases see
//   each path's start).
//   The single-pass cumsum (rs_cumsum_lookback_body, folds 2..8) runs on every case too, in
//   three modes: every tile publishes its inclusive prefix (blocks run in order here, so the
//   look-back finds it at once); only every third tile does (the others publish their
//   aggregate only, so the look-back merges aggregates, up to two, before an inclusive
//   prefix); only tile 0 does (every look-back merges every aggregate before it). The last
//   mode runs in place (the output is the input). Each call takes a new epoch, and the
//   counter must be left at zero.
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

// ---- engine state --------------------------------------------------------------------

static thread_local unsigned tl_tid;
static unsigned g_bid, g_bdim, g_gdim;
static std::barrier<>* g_bar;
static unsigned char* g_smem;

static bool g_fibers = false;   // engine
static unsigned g_warp = 32;     // warp width (fibers)
static int g_sched = 0;          // 0 asc, 1 desc, 2 random
static unsigned long long g_rng = 0x9E3779B97F4A7C15ull;
static int g_drop_line = -1;     // barrier removed (variant)
static std::set<int> g_sync_lines;
static bool g_engine_error = false;  // divergent barrier and the like
static bool g_quiet = false;
// How many tiles the fixed-window kernels listed for the general ones, per case, block size
// and kernel, as the unmodified kernels list them (recorded while no barrier is dropped). A
// missing barrier whose only effect is to send tiles down the general path (still correct
// results, lost speed) shows as a different count.
static std::map<std::string, unsigned> g_listed;

static bool same_listing(const std::string& key, unsigned listed) {
  if (g_drop_line < 0) {
    g_listed[key] = listed;
    return true;
  }
  auto it = g_listed.find(key);
  if (it == g_listed.end() || it->second == listed) return true;
  if (!g_quiet) printf("FAIL %s: %u tiles listed, the unmodified kernels list %u\n", key.c_str(), listed, it->second);
  return false;
}
enum Variant { V_NONE, V_WARPSYNC_TAIL, V_SHFL_KWARP32, V_SHFL_WARPSIZE };
// The launch that gets a null start instead of the case's (--ignore-start).
enum IgnoreStart { IS_NONE, IS_FIXED, IS_GENERAL, IS_TILE0, IS_LOOKBACK };
static IgnoreStart g_ignore_start = IS_NONE;
static Variant g_variant = V_NONE;

enum FState { RUNNABLE, AT_BARRIER, AT_SHFL, DONE };
struct Fiber {
  ucontext_t ctx;
  FState st;
  int line;                         // barrier line
  unsigned delta;                   // shuffle
  std::vector<unsigned long long> in, out;  // shuffle words
};
static std::vector<Fiber> g_f;
static std::vector<std::vector<char>> g_stacks;
static ucontext_t g_sched_ctx;
static unsigned g_cur;  // current fiber's thread index
static const std::function<void()>* g_body;

static unsigned rs_emu_tid() { return g_fibers ? g_cur : tl_tid; }

static void rs_emu_yield(FState s) {
  g_f[g_cur].st = s;
  swapcontext(&g_f[g_cur].ctx, &g_sched_ctx);
}

static void rs_emu_sync(int line) {
  {
    // Threads mode runs every thread of a block at once: the set needs a lock.
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    g_sync_lines.insert(line);
  }
  if (line == g_drop_line) return;
  if (!g_fibers) {
    g_bar->arrive_and_wait();
    return;
  }
  g_f[g_cur].line = line;
  rs_emu_yield(AT_BARRIER);
}

// __shfl_down over `words` 64-bit words (fibers only): returns lane (tid % W) + delta's
// words, or the caller's own when that lane is outside the warp or the block.
static void rs_emu_shfl_down(unsigned long long* w, int words, unsigned delta) {
  Fiber& f = g_f[g_cur];
  f.in.assign(w, w + words);
  f.delta = delta;
  rs_emu_yield(AT_SHFL);
  std::memcpy(w, g_f[g_cur].out.data(), words * sizeof(unsigned long long));
}

#define RS_HOST_SHIM 1
#define RS_KERNEL extern "C"
#define RS_DEV static inline
#define RS_TID (rs_emu_tid())
#define RS_BID ((unsigned long long)g_bid)
#define RS_BDIM (g_bdim)
#define RS_GDIM ((unsigned long long)g_gdim)
#define RS_SYNC() rs_emu_sync(__LINE__)
#define RS_FENCE() std::atomic_thread_fence(std::memory_order_seq_cst)
#define RS_ATOMIC_ADD_U32(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define RS_ATOMIC_ADD_U64(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
static inline unsigned long long rs_emu_cas_u64(unsigned long long* p, unsigned long long cmp, unsigned long long v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;  // the old word (cmp is overwritten with it when the swap fails)
}
#define RS_ATOMIC_CAS_U64(p, cmp, v) rs_emu_cas_u64((p), (cmp), (v))
static inline unsigned rs_emu_max_u32(unsigned* p, unsigned v) {
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
#define RS_ATOMIC_MAX_U32(p, v) rs_emu_max_u32((p), (v))
#define RS_ATOMIC_OR_U32(p, v) __atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)
#define RS_DYN_SHARED(name) unsigned char* name = g_smem
// Small groups in the tiles' prefix tree, so that short inputs cross many groups (the
// kernels' default is 256).
#define RS_GROUP 4
// The look-back kernel's tiles (but tile 0) that publish their inclusive prefix: every
// g_lb_every-th (0: none), so that the look-back's aggregate path runs.
static unsigned g_lb_every = 1;
// The single-pass cumsum's control words and epoch, kept from call to call as on a device.
static unsigned g_lb_ctl[3] = {0, 0, 0};
static unsigned g_lb_epoch = 0;
static bool rs_emu_publish_inclusive(unsigned long long t) { return g_lb_every != 0 && t % g_lb_every == 0; }
#define RS_LB_PUBLISH_INCLUSIVE(t) rs_emu_publish_inclusive(t)
// The keyed sums' shared-memory counts for up to 64 keys (the kernels' default is 4096), so
// that short inputs take both paths.
#define RS_KEY_LOCAL 64
// Tables of 8 slots and 2 probes for the many-keys passes (the kernels' defaults are 2048 and
// 8), so that tiles fill them and keys take both the table and their own atomic adds.
#define RS_KEY_TS_LOG2 3
#define RS_KEY_PROBES 2
// Key-range partition tiles of 2 values a thread and accumulation rounds of 3 (the kernels'
// defaults are 8 and 8), so that short inputs cross many tiles and rounds.
#define RS_KR_U 2
#define RS_KR_ACC_U 3
#include "../../kernels/portable.h"
#include "../../kernels/reprosum.cu"

// ---- variants of the block reduction -------------------------------------------------
//
// The kernels' calls `rs_block_reduce(a, S)` are dependent calls, resolved where the kernel
// bodies are instantiated (in this file, below): these non-template overloads win over the
// template, and route to rs_emu_block_reduce, which runs the kernel text's own
// rs_block_reduce unless a variant is selected.
//   warpsync-tail: the classic warp-synchronous tail: no barrier after the steps with
//     s <= 32 (only threads < 32, "one warp", are active), relying on implicit lockstep.
//     Broken under any model without implicit warp synchronisation (CUDA since Volta; any
//     compiler that reorders the shared-memory accesses): must fail at both widths.
//   shfl-kwarp32: a shuffle reduction within each warp with `kWarp = 32` hard-coded in the
//     shuffle tree, while lanes and warps come from the run-time warp size (the seed's
//     mistake 1): right at wave32, loses lanes 32..63 at wave64: must fail at 64 only.
//   shfl-warpsize: the same with the run-time warp size throughout (the control): must
//     pass at both widths, showing that the warp model itself is right.

template <typename T, int K>
static void rs_emu_shfl_state(RsAcc<T, K>& o, const RsAcc<T, K>& a, unsigned delta) {
  unsigned long long w[2 * K + 1];
  for (int j = 0; j < K; ++j) {
    w[j] = (unsigned long long)rs_bits(a.p[j]);
    w[K + j] = (unsigned long long)rs_bits(a.c[j]);
  }
  w[2 * K] = a.flags;
  rs_emu_shfl_down(w, 2 * K + 1, delta);
  typedef typename RsF<T>::U U;
  for (int j = 0; j < K; ++j) {
    o.p[j] = rs_from_bits((U)w[j]);
    o.c[j] = rs_from_bits((U)w[K + j]);
  }
  o.flags = (rs_u32)w[2 * K];
  o.pending = 0;
}

template <typename T, int K>
static void rs_emu_block_reduce(RsAcc<T, K>& a, T* S) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  if (g_variant == V_NONE) {
    rs_block_reduce<T, K>(a, S);
    return;
  }
  if (g_variant == V_WARPSYNC_TAIL) {
    unsigned p2 = 1;
    while (p2 < B) p2 <<= 1;
    rs_renorm(a);
    a.pending = 0;
    rs_store(S, tid, B, a);
    RS_SYNC();
    for (unsigned s = p2 >> 1; s > 0; s >>= 1) {
      if (tid < s && tid + s < B) {
        RsAcc<T, K> o;
        rs_load(S, tid + s, B, o);
        rs_merge_renormed(a, o);
        rs_store(S, tid, B, a);
      }
      if (s > 32) RS_SYNC();
    }
    RS_SYNC();
    return;
  }
  // Shuffle variants.
  const unsigned W = g_warp;
  const unsigned kw = g_variant == V_SHFL_KWARP32 ? 32u : W;
  const unsigned lane = tid % W, warp = tid / W, nw = (B + W - 1) / W;
  rs_renorm(a);
  a.pending = 0;
  for (unsigned off = kw / 2; off > 0; off >>= 1) {
    RsAcc<T, K> o;
    rs_emu_shfl_state(o, a, off);
    if (lane + off < kw && tid + off < B) rs_merge_renormed(a, o);
  }
  if (lane == 0) rs_store(S, warp, nw, a);
  RS_SYNC();
  if (tid == 0) {
    for (unsigned w = 1; w < nw; ++w) {
      RsAcc<T, K> o;
      rs_load(S, w, nw, o);
      rs_merge_renormed(a, o);
    }
  }
  RS_SYNC();
}

#define RS_EMU_OVERLOAD(T, K) \
  static inline void rs_block_reduce(RsAcc<T, K>& a, T* S) { rs_emu_block_reduce<T, K>(a, S); }
RS_EMU_OVERLOAD(double, 2)
RS_EMU_OVERLOAD(double, 3)
RS_EMU_OVERLOAD(double, 4)
RS_EMU_OVERLOAD(double, 5)
RS_EMU_OVERLOAD(double, 6)
RS_EMU_OVERLOAD(double, 7)
RS_EMU_OVERLOAD(double, 8)
RS_EMU_OVERLOAD(float, 2)
RS_EMU_OVERLOAD(float, 3)
RS_EMU_OVERLOAD(float, 4)
RS_EMU_OVERLOAD(float, 5)
RS_EMU_OVERLOAD(float, 6)
RS_EMU_OVERLOAD(float, 7)
RS_EMU_OVERLOAD(float, 8)

// ---- launches --------------------------------------------------------------------------

static void fiber_entry() {
  (*g_body)();
  g_f[g_cur].st = DONE;
  swapcontext(&g_f[g_cur].ctx, &g_sched_ctx);
}

static unsigned long long rng() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

// Runs one block on fibers; false on an engine error (divergent barrier).
static bool run_block_fibers(unsigned block, const std::function<void()>& body) {
  const size_t stack = 64 * 1024;
  if (g_stacks.size() < block) g_stacks.resize(block);
  g_f.assign(block, Fiber());
  g_body = &body;
  for (unsigned t = 0; t < block; ++t) {
    if (g_stacks[t].empty()) g_stacks[t].resize(stack);
    getcontext(&g_f[t].ctx);
    g_f[t].ctx.uc_stack.ss_sp = g_stacks[t].data();
    g_f[t].ctx.uc_stack.ss_size = stack;
    g_f[t].ctx.uc_link = nullptr;
    makecontext(&g_f[t].ctx, fiber_entry, 0);
    g_f[t].st = RUNNABLE;
  }
  std::vector<unsigned> order(block);
  for (;;) {
    for (unsigned i = 0; i < block; ++i) order[i] = g_sched == 1 ? block - 1 - i : i;
    if (g_sched == 2)
      for (unsigned i = block; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
    for (unsigned t : order) {
      if (g_f[t].st != RUNNABLE) continue;
      g_cur = t;
      swapcontext(&g_sched_ctx, &g_f[t].ctx);
    }
    // Warp operations: a warp whose live lanes all wait at a shuffle exchanges.
    bool progressed = false;
    for (unsigned w0 = 0; w0 < block; w0 += g_warp) {
      const unsigned w1 = w0 + g_warp < block ? w0 + g_warp : block;
      bool any = false, all = true;
      for (unsigned t = w0; t < w1; ++t) {
        if (g_f[t].st == AT_SHFL) any = true;
        else if (g_f[t].st != DONE) all = false;
      }
      if (!any) continue;
      if (!all) continue;  // the other lanes have not arrived yet (they wait at a barrier: error below)
      for (unsigned t = w0; t < w1; ++t) {
        if (g_f[t].st != AT_SHFL) continue;
        const unsigned src = t + g_f[t].delta;
        const bool ok = (t - w0) + g_f[t].delta < g_warp && src < w1 && g_f[src].st == AT_SHFL;
        g_f[t].out = ok ? g_f[src].in : g_f[t].in;
      }
      for (unsigned t = w0; t < w1; ++t)
        if (g_f[t].st == AT_SHFL) g_f[t].st = RUNNABLE;
      progressed = true;
    }
    if (progressed) continue;
    unsigned done = 0, bar = 0, other = 0;
    std::set<int> lines;
    for (auto& f : g_f) {
      if (f.st == DONE) ++done;
      else if (f.st == AT_BARRIER) { ++bar; lines.insert(f.line); }
      else ++other;
    }
    if (done == block) return true;
    if (bar == block && lines.size() == 1) {
      for (auto& f : g_f) f.st = RUNNABLE;
      continue;
    }
    if (!g_quiet) printf("ENGINE ERROR block %u of %u threads: %u finished, %u at barriers (lines", g_bid, block, done, bar);
    if (!g_quiet) for (int l : lines) printf(" %d", l);
    if (!g_quiet) printf("), %u at warp operations: a barrier not reached by every thread\n", other);
    return false;
  }
}

// Blocks run in reverse order when set (the kernels may not depend on the order).
static bool g_reverse = false;
// The byte that fills shared memory before every block: unwritten shared memory reads as
// garbage. The keyed sums' tables take 0 (see run_key_case).
static unsigned char g_smem_poison = 0xA5;

static void launch(unsigned grid, unsigned block, size_t smem, const std::function<void()>& body) {
  std::vector<unsigned char> sm(smem + 64);
  g_smem = sm.data();
  g_gdim = grid;
  g_bdim = block;
  for (unsigned bi = 0; bi < grid; ++bi) {
    const unsigned b = g_reverse ? grid - 1 - bi : bi;
    g_bid = b;
    std::memset(sm.data(), g_smem_poison, sm.size());
    if (g_fibers) {
      if (!run_block_fibers(block, body)) {
        g_engine_error = true;
        return;
      }
      continue;
    }
    std::barrier<> bar(block);
    g_bar = &bar;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; ++t) ts.emplace_back([&, t] { tl_tid = t; body(); });
    for (auto& t : ts) t.join();
  }
}

// `state`: for generated cases, the whole renormalised state of the sum (rs_store's 2K + 1
// words), which the sum kernel's result must match word for word (a finer check than the
// value: a deposit into a window one binade too low can leave the value's bits alone).
struct Case { std::string name, dtype; int fold; std::vector<unsigned long long> in, cum, start, state; unsigned long long sum; bool gen = false; };



// K > 0: the kernels of fold K; K < 0: the run-time-fold kernels at c.fold (<= -K).
template <typename T, int K>
static bool run_t(const Case& c, unsigned block, unsigned grid) {
  typedef typename RsF<T>::U U;
  const RsFold<K> fold(c.fold);
  const int k = fold.get();
  constexpr bool fixed_window = K > 0;
  std::vector<T> x(c.in.size() + 1);
  T* xp = x.data() + ((c.in.size() % 2) ? 1 : 0);  // also exercise a misaligned start
  for (size_t i = 0; i < c.in.size(); ++i) xp[i] = rs_from_bits((U)c.in[i]);
  unsigned long long n = c.in.size();
  const int slots = 2 * k + 1;
  std::vector<T> states(grid * slots), result(slots + 1);
  for (auto& r : result) r = rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull);
  unsigned counter = 0;
  g_engine_error = false;
  launch(grid, block, 16 + slots * block * sizeof(T), [&] { rs_sum_body<T, K>(xp, n, states.data(), &counter, result.data(), fold); });
  bool ok = !g_engine_error;
  if ((unsigned long long)rs_bits(result[2 * k + 1]) != c.sum) {
    if (!g_quiet) printf("FAIL sum %s block %u grid %u: got %llx want %llx\n", c.name.c_str(), block, grid, (unsigned long long)rs_bits(result[2 * k + 1]), c.sum);
    ok = false;
  }
  for (size_t j = 0; j < c.state.size(); ++j)
    if ((unsigned long long)rs_bits(result[j]) != c.state[j]) {
      if (!g_quiet) printf("FAIL sum state %s block %u grid %u: word %zu got %llx want %llx\n", c.name.c_str(), block, grid, j, (unsigned long long)rs_bits(result[j]), c.state[j]);
      ok = false;
      break;
    }
  if (counter != 0) { if (!g_quiet) printf("FAIL counter not reset\n"); ok = false; }
  // The cumsum twice: as gpu/src/cuda.rs does it (the reduce pass hands its per-thread sums
  // of pieces to the scan pass), blocks in order; and without the handed sums (the scan pass
  // takes every tile's pieces), blocks in reverse order and the prefix kernel with 3
  // threads. Tile 0 is scanned alone by the general kernel (on the GPU, beside the other
  // passes). The control words are zeroed once, as the host does when it allocates them:
  // the kernels leave them ready for the next call.
  unsigned ctl[3] = {0, 0, 0};
  // The start state (a `start` field: a cumulative sum continued from it), else none.
  std::vector<T> start_state;
  if (!c.start.empty()) {
    if (c.start.size() != (size_t)slots) {
      if (!g_quiet) printf("FAIL %s: start has %zu words, want %d\n", c.name.c_str(), c.start.size(), slots);
      return false;
    }
    for (unsigned long long w : c.start) start_state.push_back(rs_from_bits((U)w));
  }
  const T* sp = start_state.empty() ? nullptr : start_state.data();
  const T* sp_fixed = g_ignore_start == IS_FIXED ? nullptr : sp;
  const T* sp_general = g_ignore_start == IS_GENERAL ? nullptr : sp;
  const T* sp_tile0 = g_ignore_start == IS_TILE0 ? nullptr : sp;
  const T* sp_lookback = g_ignore_start == IS_LOOKBACK ? nullptr : sp;
  // The single-pass cumsum (the kernels built for one fold only), as the hosts launch it: a
  // block per tile, the states and status words in the workspace, a new epoch per call.
  if constexpr (fixed_window) {
    if (!c.cum.empty() && n > 0 && c.cum.size() == n) {
      const unsigned E = RsF<T>::TILE_E;
      const unsigned long long tile = (unsigned long long)block * E, ntiles = (n + tile - 1) / tile;
      const size_t smem = rs_lb_smem_bytes<T, K, E>(block);
      const size_t smem_general = 16 + slots * (block + RS_RAKE) * sizeof(T) + (tile + block) * sizeof(T);
      const unsigned long long ng = rs_groups(ntiles);
      std::vector<T> lstates(2 * ntiles * slots, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull));
      std::vector<T> lpre((ntiles + ng) * slots, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull));
      std::vector<unsigned> status(ntiles, 0), llist(ntiles, 0xA5A5A5A5u);
      const unsigned modes[3] = {1u, 3u, 0u};
      for (unsigned mi = 0; mi < 3; ++mi) {
        g_lb_every = modes[mi];
        const bool in_place = mi == 2;
        std::vector<T> buf(x.size());
        T* io = buf.data() + (xp - x.data());  // the input's alignment
        if (in_place) {
          for (size_t i = 0; i < n; ++i) io[i] = xp[i];
        } else {
          for (size_t i = 0; i < n; ++i) io[i] = rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull);
        }
        const T* in = in_place ? io : xp;
        g_lb_epoch = g_lb_epoch + 1 < (1u << 30) ? g_lb_epoch + 1 : 1u;
        const unsigned ep = g_lb_epoch;
        unsigned* lctl = g_lb_ctl;
        g_engine_error = false;
        launch(ntiles, block, smem, [&] { rs_cumsum_lookback_body<T, K, E>(in, io, n, sp_lookback, ntiles, lstates.data(), status.data(), lctl, lpre.data(), llist.data(), ep); });
        g_lb_every = 1;
        const unsigned listed = lctl[1 + (ep & 1)];
        if (lctl[0] != 0 || lctl[1 + ((ep + 1) & 1)] != 0 || listed > ntiles) {
          if (!g_quiet) printf("FAIL lookback %s: control words left at %u %u %u\n", c.name.c_str(), lctl[0], lctl[1], lctl[2]);
          ok = false;
        }
        if (!same_listing(c.name + " block " + std::to_string(block) + " lookback " + std::to_string(mi), listed)) ok = false;
        // The listed tiles: the general kernel from their stored prefixes (a null start).
        if (!g_engine_error) launch(ntiles < 3 ? ntiles : 3, block, smem_general, [&] { rs_tile_scan_body<T, K, E>(in, io, n, lpre.data(), nullptr, ntiles, &lctl[1 + (ep & 1)], llist.data(), fold); });
        if (g_engine_error) ok = false;
        for (size_t i = 0; i < n; ++i)
          if ((unsigned long long)rs_bits(io[i]) != c.cum[i]) {
            if (!g_quiet) printf("FAIL cumsum lookback (inclusive every %u%s) %s block %u at %zu: got %llx want %llx\n", modes[mi], in_place ? ", in place" : "", c.name.c_str(), block, i, (unsigned long long)rs_bits(io[i]), c.cum[i]);
            ok = false;
            break;
          }
        if (g_engine_error) break;
      }
    }
  }
  // The run-time-fold kernels: once, the general kernels over every tile (as the hosts).
  for (int reuse = fixed_window ? 1 : 0; reuse >= 0 && !c.cum.empty() && n > 0; --reuse) {
    const unsigned E = RsF<T>::TILE_E;
    unsigned long long tile = (unsigned long long)block * E, ntiles = (n + tile - 1) / tile;
    const unsigned long long ng = rs_groups(ntiles);
    std::vector<T> tiles((ntiles + ng) * slots, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull)), out(n);
    for (auto& o : out) o = rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull);
    const T* pre = nullptr;
    std::vector<T> parts(reuse ? ntiles * k * block : 0, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull));
    std::vector<unsigned> tops(reuse ? ntiles : 0, 0xA5A5A5A5u);
    T* pp = reuse ? parts.data() : nullptr;
    unsigned* tp = reuse ? tops.data() : nullptr;
    const std::string mode = reuse ? " handed" : "";
    g_engine_error = false;
    g_reverse = !reuse;
    // The fixed-window kernels' shared memory (see rs_fixed_smem): a header, padded rows of K
    // doubles and the raking slots, magnitudes, a state, 16 bytes of alignment, the tile in
    // the run layout.
    const size_t smem_general = 16 + slots * (block + RS_RAKE) * sizeof(T) + (tile + block) * sizeof(T);
    const size_t smem_fixed = 16 + k * sizeof(double) * (rs_part_row(block) + RS_RAKE) + sizeof(T) * (block + RS_RAKE) + slots * sizeof(T) + 16 + block * E * sizeof(T);
    if (ntiles > 1) {
      if (ctl[0] != 0 || ctl[2] != 0) { if (!g_quiet) printf("FAIL %s: control words not reset (%u, %u)\n", c.name.c_str(), ctl[0], ctl[2]); ok = false; }
      if constexpr (fixed_window) {
        // As gpu/src/cuda.rs: the fixed-window kernel over every tile, then the general kernel
        // over the tiles it listed.
        std::vector<unsigned> rlist(ntiles, 0xA5A5A5A5u);
        launch(ntiles, block, smem_fixed, [&] { rs_tile_reduce_fixed_body<T, K, E>(xp, n, tiles.data(), &ctl[0], rlist.data(), pp, tp); });
        if (ctl[0] > ntiles) { if (!g_quiet) printf("FAIL reduce %s: %u tiles listed of %llu\n", c.name.c_str(), ctl[0], ntiles); ok = false; }
        if (!same_listing(c.name + " block " + std::to_string(block) + mode + " reduce", ctl[0])) ok = false;
        launch(2, block, 16 + slots * block * sizeof(T), [&] { rs_tile_reduce_body<T, K, E>(xp, n, tiles.data(), &ctl[0], rlist.data(), fold); });
      } else {
        // The general kernel over every tile (no list: block b takes tile b).
        launch(ntiles, block, 16 + slots * block * sizeof(T), [&] { rs_tile_reduce_body<T, K, E>(xp, n, tiles.data(), &ctl[0], nullptr, fold); });
      }
      ctl[1] = 0xA5A5A5A5u;  // left by the last call: the prefix kernel zeroes it
      const unsigned pblock = reuse ? block : 3;
      launch(ng < 3 ? ng : 3, pblock, 16 + slots * (pblock + RS_RAKE) * sizeof(T), [&] { rs_tile_prefixes_body<T, K>(tiles.data(), ntiles, ctl, fold); });
      if (ctl[0] != 0 || ctl[1] != 0 || ctl[2] != 0) { if (!g_quiet) printf("FAIL %s: prefix kernel left control words (%u, %u, %u)\n", c.name.c_str(), ctl[0], ctl[1], ctl[2]); ok = false; }
      pre = tiles.data();
    }
    // As gpu/src/cuda.rs: the fixed-window kernel over every tile, then the general kernel
    // over the tiles it listed (a small grid, grid-stride); one tile: the general kernel.
    if (ntiles > 1 && fixed_window) {
      if constexpr (fixed_window) {
        std::vector<unsigned> list(ntiles, 0xA5A5A5A5u);
        launch(ntiles, block, smem_fixed, [&] { rs_tile_scan_fixed_body<T, K, E>(xp, out.data(), n, pre, sp_fixed, ntiles, &ctl[1], list.data(), pp, tp); });
        if (ctl[1] > ntiles) { if (!g_quiet) printf("FAIL cumsum %s: %u tiles listed of %llu\n", c.name.c_str(), ctl[1], ntiles); ok = false; }
        if (!same_listing(c.name + " block " + std::to_string(block) + mode + " scan", ctl[1])) ok = false;
        if (!g_engine_error) launch(3, block, smem_general, [&] { rs_tile_scan_body<T, K, E>(xp, out.data(), n, pre, sp_general, ntiles, &ctl[1], list.data(), fold); });
        // Tile 0 (without a list, block b takes tile b; no tiles before it: its prefix is the
        // start, or empty).
        if (!g_engine_error) launch(1, block, smem_general, [&] { rs_tile_scan_body<T, K, E>(xp, out.data(), n, nullptr, sp_tile0, ntiles, &ctl[1], nullptr, fold); });
      }
    } else {
      launch(ntiles, block, smem_general, [&] { rs_tile_scan_body<T, K, E>(xp, out.data(), n, pre, sp_general, ntiles, &ctl[1], nullptr, fold); });
    }
    g_reverse = false;
    if (g_engine_error) ok = false;
    if (c.cum.size() != n) {
      if (!g_quiet) printf("FAIL %s: %zu cumsum values for %llu inputs\n", c.name.c_str(), c.cum.size(), n);
      return false;
    }
    for (size_t i = 0; i < n; ++i)
      if ((unsigned long long)rs_bits(out[i]) != c.cum[i]) {
        if (!g_quiet) printf("FAIL cumsum%s %s block %u at %zu: got %llx want %llx\n", mode.c_str(), c.name.c_str(), block, i, (unsigned long long)rs_bits(out[i]), c.cum[i]);
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
  constexpr int kmax = sizeof(T) == 8 ? 52 : 21;  // the run-time-fold kernels (RS_INSTANTIATE_GENERAL)
  if (c.fold >= 9 && c.fold <= kmax) return run_t<T, -kmax>(c, block, grid);
  return -1;
}

static std::vector<Case> read_cases(const char* path) {
  std::ifstream f(path);
  if (!f) { fprintf(stderr, "emu: cannot read %s\n", path); exit(2); }
  std::vector<Case> out;
  std::string line;
  Case c;
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
    else if (w == "start") { std::string h; while (ss >> h) c.start.push_back(std::stoull(h, nullptr, 16)); }
    else if (w == "end") out.push_back(c);
  }
  return out;
}

// Generated cases (--random SEED): long inputs whose cumulative sums cross many tiles, so the
// fixed-window tile scan runs, and patterns that make it fall back or move carries: uniform
// values, mixed signs and magnitudes, values near the top of the window (carries move often),
// growing magnitudes (the window rises in later tiles; "binades" through many bins, one
// binade at a time), a NaN late on, and specials early (a NaN, then an -Inf every 997 values:
// most tiles go to the general kernels, several per block). The expected bits are the
// kernels' own element-by-element definition (rs_add_one, then the value), which the shared
// vectors tie to the core.
template <typename T, int K>
static Case gen_case(const char* pattern, unsigned long long seed, size_t n) {
  typedef typename RsF<T>::U U;
  unsigned long long s = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&]() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
  auto unit = [&]() { return (double)(next() >> 11) / 9007199254740992.0; };
  Case c;
  c.name = std::string("random_") + pattern + "_" + (sizeof(T) == 8 ? "f64" : "f32") + "_k" + std::to_string(K);
  c.dtype = sizeof(T) == 8 ? "f64" : "f32";
  c.fold = K;
  std::string p = pattern;
  for (size_t i = 0; i < n; ++i) {
    double v;
    if (p == "uniform") v = unit();
    else if (p == "mixed") v = (unit() - 0.5) * std::ldexp(1.0, (int)(next() % 24) - 12);
    else if (p == "near_top") v = 0.99 + 0.01 * unit();  // all the same sign and size: carries move
    else if (p == "growing") v = (unit() + 0.5) * std::ldexp(1.0, (int)(i / 700));
    // One binade up every 64 values across several bins (f64 bins are 40 binades, f32 13):
    // a thread's later chunk is the first to reach each new bin, often by one binade only
    // (the window thresholds' edges).
    else if (p == "binades") v = (unit() - 0.25) * std::ldexp(1.0, (int)(i / 64) - 40);
    // Magnitudes that step up (down) by several binades every 300 values, so that the tiles'
    // windows differ (the look-back merges states of different windows): f64 10 binades a
    // step (a bin is 40), f32 3 (a bin is 13).
    else if (p == "steps_up" || p == "steps_down") {
      const int step = sizeof(T) == 8 ? 10 : 3, steps = (int)(n / 300);
      const int at = (int)(i / 300);
      v = (unit() - 0.25) * std::ldexp(1.0, step * (p == "steps_up" ? at : steps - at) - step * steps / 2);
    }
    else if (p == "nan_late") v = i == n - 900 ? std::nan("") : unit() - 0.25;
    else v = i == 100 ? std::nan("") : i % 997 == 500 ? -INFINITY : unit();  // "specials_early"
    T t = (T)v;
    c.in.push_back((unsigned long long)rs_bits(t));
  }
  RsAcc<T, K> a;
  rs_clear(a);
  for (size_t i = 0; i < n; ++i) {
    rs_add_one(a, rs_from_bits((U)c.in[i]));
    RsAcc<T, K> b = a;
    rs_renorm(b);
    c.cum.push_back((unsigned long long)rs_bits(rs_value(b)));
  }
  RsAcc<T, K> b = a;
  rs_renorm(b);
  c.sum = (unsigned long long)rs_bits(rs_value(b));
  std::vector<T> st(2 * K + 1);
  rs_store(st.data(), 0, 1, b);
  for (T w : st) c.state.push_back((unsigned long long)rs_bits(w));
  return c;
}

static void add_generated(std::vector<Case>& cs, unsigned long long seed) {
  const char* patterns[] = {"uniform",    "mixed",      "near_top", "growing",       "binades",
                            "steps_up",   "steps_down", "nan_late", "specials_early"};
  for (const char* p : patterns) {
    const size_t n = 5000 + (size_t)(seed % 7) * 531;
    cs.push_back(gen_case<double, 3>(p, seed, n));
    cs.push_back(gen_case<float, 3>(p, seed + 1, n));
  }
  cs.push_back(gen_case<double, 2>("mixed", seed + 2, 4500));
  cs.push_back(gen_case<double, 8>("near_top", seed + 3, 4500));
  cs.push_back(gen_case<float, 2>("near_top", seed + 4, 4500));
  cs.push_back(gen_case<float, 8>("mixed", seed + 5, 4500));
  // The slot-by-slot deposit (fold 4 on) and the run-time-fold kernels (past 8) as the window
  // rises bin after bin.
  cs.push_back(gen_case<double, 8>("binades", seed + 6, 4500));
  cs.push_back(gen_case<float, 6>("binades", seed + 7, 4500));
  cs.push_back(gen_case<double, 12>("binades", seed + 8, 4500));
  cs.push_back(gen_case<float, 12>("binades", seed + 9, 4500));
}

// The largest fold of the cases run (--max-fold: a shorter run that still takes the
// run-time-fold kernels, from fold 9).
static int g_max_fold = 64;

// Runs every usable case at every block size, grids 1 and 3; returns (passed, failed, skipped).
static void run_all(const std::vector<Case>& cs, const std::vector<unsigned>& blocks, int& pass, int& fail, int& skip) {
  pass = fail = skip = 0;
  for (const Case& c : cs) {
    if (c.gen || c.in.size() > 200000 || c.fold > g_max_fold) { ++skip; continue; }
    for (unsigned b : blocks)
      for (unsigned g : {1u, 3u}) {
        // The grid changes only the sum kernel's launch; a case with a start is there for
        // its cumsum, which one grid runs.
        if (g != 1 && !c.start.empty()) continue;
        int r = c.dtype == "f64" ? run_fold<double>(c, b, g) : run_fold<float>(c, b, g);
        if (r > 0) ++pass; else ++fail;
      }
  }
}


// ---- Segmented sums (--segmented SEED) ----------------------------------------------------
// Generated layouts (segments with empty, single, short and tile-crossing groups; rows with
// and without gaps between them), run as the hosts run them: rs_seg_prep, rs_seg_sum over
// every tile, rs_seg_join on a small grid. Each group's expected bits are the kernels' own
// one-at-a-time definition over the group alone (rs_add_one, then the value), which the
// vectors tie to the core; every output slot is checked, and bad offsets must be reported.
struct SegCase {
  std::string name;
  std::vector<unsigned long long> off;  // empty: rows
  unsigned long long nseg, stride, cols, span;
};

// Runs the segmented kernels over `x` as the hosts do: `out` gets the groups' sums. False
// (and a message) when rs_seg_prep reports good offsets bad or the engine fails.
// Short groups that sparse chunks took, and chunks that were not sparse, in the sparse_mix
// layout (checked at the end of --segmented).
static unsigned long long g_seg_sparse_short = 0, g_seg_dense_chunks = 0;

template <typename T, int K>
static bool seg_kernels(const SegCase& c, const T* x, unsigned block, int fold_arg, std::vector<T>& out) {
  typedef typename RsF<T>::U U;
  const RsFold<K> fold(fold_arg);
  const int k = fold.get();
  const unsigned long long st = 2 * k + 1;
  const unsigned E = RsF<T>::SEG_E;
  const unsigned long long tile = (unsigned long long)block * E;
  const unsigned long long ntiles = c.span == 0 ? 1 : (c.span + tile - 1) / tile;
  const rs_u64* off = c.off.empty() ? nullptr : c.off.data();
  std::vector<rs_u64> tile_first(ntiles, 0xA5A5A5A5A5A5A5A5ull);
  unsigned err[2] = {0, 0};
  const unsigned long long cap = sizeof(T) == 8 ? 2048ull * ((1ull << 52) - 1) : 512ull * ((1ull << 23) - 1);
  g_engine_error = false;
  launch(2, block, 0, [&] { rs_seg_prep(off, c.nseg, c.stride, c.cols, c.span, cap, tile, ntiles, tile_first.data(), err); });
  if (err[0] || err[1]) {
    if (!g_quiet) printf("FAIL seg %s: good offsets reported bad (%u, %u)\n", c.name.c_str(), err[0], err[1]);
    return false;
  }
  std::vector<T> heads(ntiles * st, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull)), tails(heads);
  out.assign(c.nseg, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull));
  const size_t smem = 16 + 8 * block + sizeof(T) * (st * (block + RS_RAKE) + (size_t)block * (E + 1)) + 4 * (block + RS_RAKE);
  // The long groups (more positions than a tile) on rs_seg_long, in chunks of m tiles (the
  // hosts take 1 to 256, from the input and the device; small ones here so that groups
  // cross chunks) with blocks of another size (any size is correct), on a grid smaller
  // than the chunks (grid-stride).
  const unsigned long long lmin = tile + 1, m = 1 + (block % 3) * 3;
  const unsigned lblock = block > 2 ? block - 1 : block;
  const unsigned long long nchunks = (c.span + m * tile - 1) / (m * tile);
  std::vector<T> lheads(nchunks * st + 1, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull)), ltails(lheads);
  const RsGroups G = rs_seg_groups_long(off, c.nseg, c.stride, c.cols, lmin, tile_first.data(), ntiles, tile, m);
  // The tiles with short groups listed (on a small grid), then rs_seg_sum over the list on
  // fewer blocks than tiles (each block takes several in turn).
  unsigned count = 0;
  std::vector<rs_u32> list(ntiles, 0xA5A5A5A5u);
  // With the verdict (good here) to read, as the hosts pass it for offsets in device memory.
  launch(2, 3, 0, [&] { rs_seg_list(off, c.nseg, c.stride, c.cols, lmin, c.span, tile, ntiles, m, tile_first.data(), &count, list.data(), off ? err : nullptr); });
  const unsigned sgrid = ntiles > 2 ? (unsigned)(ntiles / 2) : 1u;
  launch(sgrid, block, smem, [&] { rs_seg_sum_tiles<T, K, RsF<T>::SEG_E>(x, G, c.span, tile_first.data(), ntiles, &count, list.data(), heads.data(), tails.data(), out.data(), fold); });
  if (c.name == "sparse_mix" && m >= 2) {
    // Counted for the run's end: the layout must reach sparse chunks with short groups in
    // them beside chunks that are not sparse, or it tests nothing of the sparse chunks.
    for (unsigned long long g = 0; g < c.nseg; ++g)
      g_seg_sparse_short += G.begin(g) < c.span && !G.is_long(g) && G.is_block(g, G.begin(g) / (m * tile));
    for (unsigned long long ch = 0; ch < nchunks; ++ch) g_seg_dense_chunks += !G.sparse(ch);
  }
  const unsigned lgrid = nchunks > 3 ? (unsigned)(nchunks - 2) : 1u;
  launch(lgrid, lblock, 16 + sizeof(T) * st * lblock + 48 * (m + 1), [&] { rs_seg_long_body<T, K>(x, G, c.span, tile_first.data(), ntiles, tile, m, lheads.data(), ltails.data(), out.data(), fold); });
  launch(3, block, 16 + sizeof(T) * st * block, [&] { rs_seg_join_body<T, K>(G, c.span, tile_first.data(), ntiles, tile, m, heads.data(), tails.data(), lheads.data(), ltails.data(), out.data(), fold); });
  return !g_engine_error;
}

// The dense path of segments (the hosts take it for segments of many positions on average;
// any layout is correct), as the hosts run it: rs_seg_dense (the offsets' check, then the
// adds) over chunks of the merge path, with a segment's end counting w positions and chunks
// of about eight vectors per thread, half a tile (so that groups cross many chunks, and some joins are
// block-wide), on a grid of 3 blocks (grid-stride over the chunks), then rs_seg_dense_join on a
// small grid. Blocks of an odd size pass the span as ~0, read from the last offset as the
// kernels do (rs_dense_span). TEAMS: rs_seg_dense_teams' walk over a chunk's pieces instead. `out` gets the
// groups' sums; false (and a message) when the check reports good offsets bad or the engine
// fails.
template <typename T, int K, bool TEAMS>
static bool seg_dense_kernels(const SegCase& c, const T* x, unsigned block, int fold_arg, std::vector<T>& out) {
  typedef typename RsF<T>::U U;
  const RsFold<K> fold(fold_arg);
  const unsigned long long st = 2 * fold.get() + 1;
  const T junk = rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull);
  const unsigned long long w = 1 + (block % 7) * 5;
  const unsigned long long total = c.span + w * c.nseg;
  const unsigned long long nchunks = (total + 8 * block * RsF<T>::VEC + w - 1) / (8 * block * RsF<T>::VEC + w);
  std::vector<rs_u64> pos(nchunks + 1, 0xA5A5A5A5A5A5A5A5ull), first(nchunks, 0xA5A5A5A5A5A5A5A5ull);
  std::vector<T> slots(c.nseg * st, junk), lheads(nchunks * st, junk), ltails(lheads);
  std::vector<rs_u32> whole(c.nseg, 0xA5A5A5A5u);
  unsigned err[2] = {0, 0};
  const unsigned long long cap = sizeof(T) == 8 ? 2048ull * ((1ull << 52) - 1) : 512ull * ((1ull << 23) - 1);
  const unsigned grid = nchunks > 3 ? 3u : 1u;
  g_engine_error = false;
  launch(grid, block, 16 + sizeof(T) * st * block + 24, [&] {
    const unsigned long long span = rs_dense_span(c.off.data(), c.nseg, block % 2 ? ~0ull : c.span);
    rs_seg_check(c.off.data(), c.nseg, span, cap, err);
    rs_seg_dense_body<T, K, TEAMS>(x, c.off.data(), c.nseg, span, cap, w, nchunks, pos.data(), first.data(), slots.data(), whole.data(), lheads.data(), ltails.data(), fold);
  });
  if (err[0] || err[1]) {
    if (!g_quiet) printf("FAIL seg %s (dense): good offsets reported bad (%u, %u)\n", c.name.c_str(), err[0], err[1]);
    return false;
  }
  out.assign(c.nseg, junk);
  launch(3, block, 16 + sizeof(T) * st * block, [&] { rs_seg_dense_join_body<T, K>(c.off.data(), c.nseg, nchunks, pos.data(), first.data(), slots.data(), whole.data(), lheads.data(), ltails.data(), out.data(), fold); });
  return !g_engine_error;
}

template <typename T, int K>
static bool run_seg_case(const SegCase& c, const std::vector<T>& x, unsigned block, int fold_arg) {
  const RsFold<K> fold(fold_arg);
  const int k = fold.get();
  std::vector<T> out;
  bool ok = seg_kernels<T, K>(c, x.data(), block, fold_arg, out);
  // The same values one element past a 16-byte boundary (each piece's values before its
  // first boundary are added one at a time).
  std::vector<T> shifted(x.size() + 1), mout;
  std::copy(x.begin(), x.end(), shifted.begin() + 1);
  ok = seg_kernels<T, K>(c, shifted.data() + 1, block, fold_arg, mout) && ok;
  const RsGroups G = rs_seg_groups(c.off.empty() ? nullptr : c.off.data(), c.nseg, c.stride, c.cols);
  // Rows also through rs_rows_short and rs_rows_long (the hosts take them for many short
  // rows and many long ones; any length is correct), one thread per row and one team per
  // row, on grids of fewer threads or teams than rows (grid-stride).
  std::vector<T> alone, teams, dense, dense_teams;
  if (!c.off.empty()) {
    // Aligned only: the pieces' adds are rs_seg_long's (rs_block_add_range), whose values
    // before a 16-byte boundary the misaligned runs above check. Not the layout of thousands
    // of one-value segments: a block merge for each (the dense path's cost per group, which
    // the mixed layouts reach too) would take most of the run.
    if (c.nseg <= 1000) {
      ok = seg_dense_kernels<T, K, false>(c, x.data(), block, fold_arg, dense) && ok;
      ok = seg_dense_kernels<T, K, true>(c, x.data(), block, fold_arg, dense_teams) && ok;
    }
  }
  if (c.off.empty()) {
    typedef typename RsF<T>::U U;
    alone.assign(c.nseg, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull));
    teams = alone;
    const unsigned C = RS_UNROLL * RsF<T>::VEC;
    launch(2, block, 16 + sizeof(T) * block * (C + 1), [&] { rs_rows_short_body<T, K>(x.data(), c.nseg, c.cols, c.stride, alone.data(), fold); });
    ok = ok && !g_engine_error;
    launch(2, block, 16 + sizeof(T) * block * (2 * k + 1), [&] { rs_rows_long_body<T, K>(x.data(), c.nseg, c.cols, c.stride, teams.data(), fold); });
    ok = ok && !g_engine_error;
  }
  for (unsigned long long g = 0; g < c.nseg && ok; ++g) {
    RsAcc<T, K> a(fold);
    rs_clear(a);
    for (unsigned long long p = G.begin(g); p < G.end_all(g); ++p) rs_add_one(a, x[p]);
    const T want = rs_finish(a);
    const std::vector<T>* forms[4] = {&out, &mout, alone.empty() ? &dense : &alone, alone.empty() ? &dense_teams : &teams};
    const int nforms = !alone.empty() ? 4 : dense.empty() ? 2 : 4;
    const char* names[4] = {"", " (misaligned)", alone.empty() ? " (dense)" : " (rs_rows_short)", alone.empty() ? " (dense teams)" : " (rs_rows_long)"};
    for (int form = 0; form < nforms; ++form) {
      const T got = (*forms[form])[g];
      if (rs_bits(got) != rs_bits(want)) {
        if (!g_quiet) printf("FAIL seg %s%s %s k%d block %u group %llu [%llu, %llu): got %llx want %llx\n", c.name.c_str(), names[form], sizeof(T) == 8 ? "f64" : "f32", k, block, g, G.begin(g), G.end_all(g),
                             (unsigned long long)rs_bits(got), (unsigned long long)rs_bits(want));
        ok = false;
      }
    }
  }
  return ok;
}

// The segmented sum's kernels after rs_seg_prep (f64, fold 3), given its verdict `err`, as
// the hosts launch them: with bad offsets (rs_seg_bad) each must return at once, so that
// `out` and the list's count stay as they were. False when anything was written.
static bool seg_kernels_after_bad(const std::vector<unsigned long long>& off, unsigned long long n,
                                  const unsigned* err, unsigned block) {
  const unsigned long long nseg = off.size() - 1, st = 7, tile = (unsigned long long)block * RsF<double>::SEG_E;
  const unsigned long long ntiles = n == 0 ? 1 : (n + tile - 1) / tile, lmin = tile + 1, m = 1;
  const unsigned long long nchunks = (n + m * tile - 1) / (m * tile);
  std::vector<double> x(n + 1, 1.0), heads(ntiles * st), tails(heads), lheads(nchunks * st + 1), ltails(lheads);
  std::vector<double> out(nseg, -7.0);
  std::vector<rs_u64> tf(ntiles, 0);
  std::vector<rs_u32> list(ntiles, 0);
  unsigned count = 0;
  const size_t smem = 16 + 8 * block + 8 * (st * (block + RS_RAKE) + (size_t)block * (RsF<double>::SEG_E + 1)) + 4 * (block + RS_RAKE);
  launch(1, block, 0, [&] { rs_seg_list(off.data(), nseg, 0, 0, lmin, n, tile, ntiles, m, tf.data(), &count, list.data(), err); });
  launch(1, block, smem, [&] { rs_seg_sum_f64_k3(x.data(), off.data(), nseg, 0, 0, lmin, n, tf.data(), ntiles, m, &count, list.data(), heads.data(), tails.data(), out.data(), err, 3); });
  launch(1, block, 16 + 8 * st * block + 48 * (m + 1), [&] { rs_seg_long_f64_k3(x.data(), off.data(), nseg, 0, 0, lmin, n, tf.data(), ntiles, tile, m, lheads.data(), ltails.data(), out.data(), err, 3); });
  launch(1, block, 16 + 8 * st * block, [&] { rs_seg_join_f64_k3(off.data(), nseg, 0, 0, lmin, n, tf.data(), ntiles, tile, m, heads.data(), tails.data(), lheads.data(), ltails.data(), out.data(), err, 3); });
  bool ok = count == 0 && !g_engine_error;
  for (double v : out) ok = ok && rs_bits(v) == rs_bits(-7.0);
  return ok;
}

// Bad offsets: rs_seg_prep must report each (err[0]), and a segment past the capacity (err[1]);
// the kernels after it must then write nothing.
static bool run_seg_bad(unsigned block) {
  struct Bad { std::vector<unsigned long long> off; unsigned long long n, cap; int want; };
  const std::vector<Bad> bads = {
      {{1, 5}, 5, 100, 0}, {{0, 3, 2, 5}, 5, 100, 0}, {{0, 4}, 5, 100, 0}, {{0, 2, 6}, 5, 100, 0},
      {{0, 2, 104}, 104, 100, 1}, {{0, 101}, 101, 100, 1}, {{0, 0, 0}, 0, 100, -1}, {{0, 100}, 100, 100, -1}};
  bool ok = true;
  for (const Bad& b : bads) {
    unsigned err[2] = {0, 0};
    const unsigned long long nseg = b.off.size() - 1;
    std::vector<rs_u64> tf(1);
    launch(1, block, 0, [&] { rs_seg_prep(b.off.data(), nseg, 0, 0, b.n, b.cap, 1u << 20, 1, tf.data(), err); });
    const bool good = b.want < 0 ? (!err[0] && !err[1]) : err[b.want] != 0;
    if (!good) {
      if (!g_quiet) printf("FAIL seg prep: offsets case with %llu segments: err (%u, %u), want %d\n", nseg, err[0], err[1], b.want);
      ok = false;
    }
    if (good && b.want >= 0 && !seg_kernels_after_bad(b.off, b.n, err, block)) {
      if (!g_quiet) printf("FAIL seg: a kernel after rs_seg_prep wrote with bad offsets (%llu segments, block %u)\n", nseg, block);
      ok = false;
    }
    // The dense path: rs_seg_dense and rs_seg_dense_teams give the same verdict (their adds
    // stay within the values, x[0..n) here with one more at the end), with the span passed
    // and (where the last offset is n) read, and rs_seg_dense_join hands it on with the last
    // offset and then writes nothing.
    for (int mode = 0; mode < 4; ++mode) {
      const bool teams = mode & 1, read = mode & 2;
      if (read && b.off[nseg] != b.n) continue;
      const unsigned long long span = read ? ~0ull : b.n;
      unsigned derr[2] = {0, 0};
      const unsigned long long w = 1 + block % 4, nchunks = 3;
      std::vector<double> x(b.n + 1, 1.0), slots(nseg * 7), lh(nchunks * 7), lt(lh), out(nseg, -7.0);
      std::vector<rs_u64> pos(nchunks + 1), first(nchunks);
      std::vector<rs_u32> whole(nseg);
      launch(2, block, 16 + 8 * 7 * block + 24, [&] {
        if (teams)
          rs_seg_dense_teams_f64_k3(x.data(), b.off.data(), nseg, span, b.cap, w, nchunks, pos.data(), first.data(), slots.data(), whole.data(), lh.data(), lt.data(), derr, 3);
        else
          rs_seg_dense_f64_k3(x.data(), b.off.data(), nseg, span, b.cap, w, nchunks, pos.data(), first.data(), slots.data(), whole.data(), lh.data(), lt.data(), derr, 3);
      });
      // The join hands the verdict on (0 or 1 each) and zeroes the next call's pair.
      alignas(8) unsigned verdict[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
      unsigned clear[2] = {5u, 5u};
      launch(2, block, 16 + 8 * 7 * block, [&] { rs_seg_dense_join_f64_k3(b.off.data(), nseg, nchunks, pos.data(), first.data(), slots.data(), whole.data(), lh.data(), lt.data(), out.data(), derr, verdict, clear, 3); });
      bool dgood = (derr[0] == err[0] && derr[1] == err[1]) && !g_engine_error;
      dgood = dgood && verdict[0] == (derr[0] != 0 ? 1u : 0u) && verdict[1] == (derr[1] != 0 ? 1u : 0u);
      dgood = dgood && clear[0] == 0 && clear[1] == 0;
      unsigned long long last;
      std::memcpy(&last, verdict + 2, 8);
      dgood = dgood && last == b.off[nseg];
      for (double v : out) dgood = dgood && (b.want < 0 ? true : rs_bits(v) == rs_bits(-7.0));
      if (!dgood) {
        if (!g_quiet) printf("FAIL seg dense%s%s: offsets case with %llu segments: err (%u, %u) against rs_seg_prep's (%u, %u), last offset handed on %llu, or written with bad offsets (block %u)\n", teams ? " teams" : "", read ? " (span read)" : "", nseg, derr[0], derr[1], err[0], err[1], last, block);
        ok = false;
      }
    }
  }
  return ok;
}

static unsigned long long g_seg_rng = 1;
static unsigned long long seg_next() {
  g_seg_rng ^= g_seg_rng << 13;
  g_seg_rng ^= g_seg_rng >> 7;
  g_seg_rng ^= g_seg_rng << 17;
  return g_seg_rng;
}

// The layouts for tiles of `tile` positions.
static std::vector<SegCase> seg_layouts(unsigned long long tile) {
  std::vector<SegCase> cs;
  auto segs = [&](const std::string& name, const std::vector<unsigned long long>& lens) {
    SegCase c;
    c.name = name;
    c.off.push_back(0);
    for (unsigned long long l : lens) c.off.push_back(c.off.back() + l);
    c.nseg = lens.size();
    c.stride = c.cols = 0;
    c.span = c.off.back();
    cs.push_back(c);
  };
  auto rows = [&](const std::string& name, unsigned long long r, unsigned long long cols, unsigned long long stride) {
    SegCase c;
    c.name = name;
    c.nseg = r;
    c.stride = stride;
    c.cols = cols;
    c.span = r == 0 ? 0 : (r - 1) * stride + cols;
    cs.push_back(c);
  };
  std::vector<unsigned long long> mixed;
  for (int i = 0; i < 300; ++i) {
    const unsigned long long u = seg_next() % 10;
    mixed.push_back(u < 2 ? 0 : u < 4 ? 1 : u < 8 ? 1 + seg_next() % 40 : seg_next() % (3 * tile));
  }
  segs("mixed", mixed);
  segs("one", {5 * tile + 7});
  segs("one_exact", {2 * tile});
  segs("edges", {tile - 1, 1, tile, 0, 0, tile + 1, 2, tile - 2, 3 * tile});
  segs("all_empty", {0, 0, 0});
  segs("empty_ends", {0, 0, 3, tile, 0, 0});
  segs("single", {1});
  std::vector<unsigned long long> ones(3 * tile + 5, 1);
  segs("ones", ones);
  // Long groups (more positions than a tile) among short ones: pieces of several long groups
  // in one chunk, long groups across chunks, a long group at each end.
  std::vector<unsigned long long> longs;
  longs.push_back(2 * tile + 3);
  for (int i = 0; i < 40; ++i) {
    const unsigned long long u = seg_next() % 6;
    longs.push_back(u == 0 ? 0 : u == 1 ? 1 + seg_next() % tile : tile + 1 + seg_next() % (7 * tile));
  }
  longs.push_back(tile + 1);
  segs("long_mix", longs);
  // Few groups a chunk (sparse chunks: rs_seg_long adds their short groups too) beside runs
  // of many tiny groups (chunks that are not sparse), so that short groups cross from one
  // kind of chunk into the other.
  std::vector<unsigned long long> sparse;
  for (int run = 0; run < 3; ++run) {
    for (int i = 0; i < 12; ++i) {
      const unsigned long long u = seg_next() % 4;
      sparse.push_back(u == 0 ? 1 + seg_next() % tile : u == 1 ? tile / 2 + seg_next() % tile : 2 * tile + seg_next() % (2 * tile));
    }
    for (int i = 0; i < 30; ++i) sparse.push_back(seg_next() % 8);
  }
  segs("sparse_mix", sparse);
  rows("rows_dense", 37, 3 * tile / 7 + 1, 3 * tile / 7 + 1);
  rows("rows_gap", 9, tile / 2 + 3, tile + 11);
  rows("rows_wide", 3, 2 * tile + 9, 2 * tile + 100);
  rows("rows_empty", 5, 0, 7);
  rows("rows_narrow", 500, 3, 5);
  rows("rows_long", 7, 3 * tile / 2 + 1, 3 * tile / 2 + 1);
  rows("rows_long_gap", 6, tile + 5, 2 * tile + 3);
  return cs;
}

template <typename T, int K>
static void run_seg_fold(int fold, const std::vector<unsigned>& blocks, int& pass, int& fail) {
  typedef typename RsF<T>::U U;
  for (unsigned b : blocks) {
    for (const SegCase& c : seg_layouts((unsigned long long)b * RsF<T>::SEG_E)) {
      std::vector<T> x(c.span + 1);
      for (unsigned long long i = 0; i < c.span; ++i) {
        const unsigned long long r = seg_next();
        double v = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * std::ldexp(1.0, (int)(seg_next() % 40) - 20);
        if (r % 4099 == 7) v = std::nan("");
        if (r % 5003 == 11) v = -INFINITY;
        x[i] = (T)v;
      }
      x[c.span] = rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull);
      if (run_seg_case<T, K>(c, x, b, fold)) ++pass; else ++fail;
    }
  }
}

// ---- Segmented cumsums (part of --segmented) ------------------------------------------
// The hosts' sequence: rs_seg_prep, rs_segcs_reduce over every tile, rs_segcs_carry on one
// block (of `cblock` threads: any size), rs_segcs_scan over every tile, out of place and in
// place. Every position's expected bits are the one-at-a-time running sum of its segment
// alone (rs_add_one, then the value); every output slot is checked.
template <typename T, int K>
static bool run_segcs_case(const SegCase& c, const std::vector<T>& x, unsigned block, unsigned cblock, bool in_place, int fold_arg) {
  typedef typename RsF<T>::U U;
  const RsFold<K> fold(fold_arg);
  const int k = fold.get();
  const unsigned long long st = 2 * k + 1, n = c.span;
  const unsigned E = RsF<T>::SEG_E;
  const unsigned long long tile = (unsigned long long)block * E;
  const unsigned long long ntiles = n == 0 ? 1 : (n + tile - 1) / tile;
  std::vector<rs_u64> tile_first(ntiles, 0xA5A5A5A5A5A5A5A5ull);
  unsigned err[2] = {0, 0};
  const unsigned long long cap = sizeof(T) == 8 ? 2048ull * ((1ull << 52) - 1) : 512ull * ((1ull << 23) - 1);
  g_engine_error = false;
  std::vector<T> out(n + 1, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull));
  if (in_place) std::copy(x.begin(), x.begin() + n, out.begin());
  const T* in = in_place ? out.data() : x.data();
  if (n > 0) {  // the hosts launch nothing for no values
    launch(2, block, 0, [&] { rs_seg_prep(c.off.data(), c.nseg, 0, 0, n, cap, tile, ntiles, tile_first.data(), err); });
    if (err[0] || err[1]) {
      if (!g_quiet) printf("FAIL segcs %s: good offsets reported bad (%u, %u)\n", c.name.c_str(), err[0], err[1]);
      return false;
    }
    const RsGroups G = rs_seg_groups(c.off.data(), c.nseg, 0, 0);
    std::vector<T> tails(ntiles * st, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull));
    std::vector<rs_u32> cuts(ntiles, 0xA5A5A5A5u);
    launch(ntiles, block, 16 + sizeof(T) * st * block, [&] { rs_segcs_reduce_body<T, K, RsF<T>::SEG_E>(in, G, n, tails.data(), cuts.data(), fold); });
    launch(1, cblock, 16 + (sizeof(T) * st + 4) * (cblock + RS_RAKE), [&] { rs_segcs_carry_body<T, K>(tails.data(), cuts.data(), ntiles, fold); });
    const size_t smem = 16 + sizeof(T) * (st * (block + RS_RAKE) + (size_t)block * (E + 1)) + 4 * (block + RS_RAKE) + (size_t)block * E;
    launch(ntiles, block, smem, [&] { rs_segcs_scan_body<T, K, RsF<T>::SEG_E>(in, out.data(), G, n, tile_first.data(), ntiles, tails.data(), fold); });
  }
  bool ok = !g_engine_error;
  if (rs_bits(out[n]) != (U)0xA5A5A5A5A5A5A5A5ull) {
    if (!g_quiet) printf("FAIL segcs %s: the slot past the end was written\n", c.name.c_str());
    ok = false;
  }
  for (unsigned long long g = 0; g < c.nseg && ok; ++g) {
    RsAcc<T, K> a(fold);
    rs_clear(a);
    for (unsigned long long p = c.off[g]; p < c.off[g + 1] && ok; ++p) {
      rs_add_one(a, x[p]);
      const T want = rs_finish(a);
      if (rs_bits(out[p]) != rs_bits(want)) {
        if (!g_quiet) printf("FAIL segcs %s %s k%d block %u carry block %u%s group %llu position %llu: got %llx want %llx\n", c.name.c_str(), sizeof(T) == 8 ? "f64" : "f32", k, block, cblock,
                             in_place ? " in place" : "", g, p, (unsigned long long)rs_bits(out[p]), (unsigned long long)rs_bits(want));
        ok = false;
      }
    }
  }
  return ok;
}

template <typename T, int K>
static void run_segcs_fold(int fold, const std::vector<unsigned>& blocks, int& pass, int& fail) {
  typedef typename RsF<T>::U U;
  for (unsigned b : blocks) {
    for (const SegCase& c : seg_layouts((unsigned long long)b * RsF<T>::SEG_E)) {
      if (c.off.empty()) continue;  // rows: no cumsum form
      std::vector<T> x(c.span + 1);
      for (unsigned long long i = 0; i < c.span; ++i) {
        const unsigned long long r = seg_next();
        double v = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * std::ldexp(1.0, (int)(seg_next() % 40) - 20);
        if (r % 4099 == 7) v = std::nan("");
        if (r % 5003 == 11) v = -INFINITY;
        if (r % 7001 == 13) v = std::ldexp(1.0, sizeof(T) == 8 ? 1000 : 120);  // a new top window
        x[i] = (T)v;
      }
      x[c.span] = rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull);
      const unsigned cb = b == 1 ? 3 : b / 2;
      for (bool ip : {false, true})
        if (run_segcs_case<T, K>(c, x, b, ip ? b : cb, ip, fold)) ++pass; else ++fail;
    }
  }
}

// ---- Keyed sums (part of --segmented) -------------------------------------------------
// The hosts' sequence: rs_key_count, the three integer scans (the last also filling the
// cursors), rs_key_scatter, then the segmented kernels over the gathered values. Each key's
// expected bits are the one-at-a-time sum of its values in input order; the offsets must be
// the counts' prefix sums and every cursor must end at its segment's end. Few keys take the
// shared-memory counts (nkeys <= RS_KEY_LOCAL), more keys the global atomics; bad keys must
// be reported, on both paths.
template <typename T, int K>
static bool run_key_case(const char* name, const std::vector<T>& x, const std::vector<rs_i64>& keys, unsigned long long nkeys,
                         unsigned block, unsigned grid, int fold_arg) {
  typedef typename RsF<T>::U U;
  const unsigned long long n = x.size();
  const bool local = nkeys <= RS_KEY_LOCAL;
  std::vector<rs_u64> counts(nkeys + 1, 0), cursor(nkeys + 1, 0xA5A5A5A5A5A5A5A5ull);
  std::vector<rs_u32> hist(local ? grid * nkeys : 0, 0xA5A5A5A5u);
  unsigned err[2] = {0, 0};
  g_engine_error = false;
  // The many-keys tables' garbage reads as key 0 with count 0 (a slot that key 0 can take
  // as its own), so that a thread inserting before the table is cleared is seen; the
  // few-keys counts' garbage must be nonzero instead.
  g_smem_poison = local ? 0xA5 : 0x00;
  launch(grid, block, local ? 4 * nkeys : 12 * RS_KEY_TS, [&] { rs_key_count(keys.data(), n, nkeys, counts.data(), local ? hist.data() : nullptr, err); });
  g_smem_poison = 0xA5;
  bool want_bad = false;
  for (rs_i64 k : keys) want_bad |= k < 0 || (unsigned long long)k >= nkeys;
  if (err[0] != (want_bad ? 1u : 0u) || g_engine_error) {
    if (!g_quiet) printf("FAIL key %s (%s): err %u, want %d\n", name, local ? "local" : "global", err[0], want_bad);
    return false;
  }
  if (want_bad) return true;
  const unsigned long long tile = (unsigned long long)block * RS_SCAN_E, words = nkeys + 1;
  const unsigned long long nparts = (words + tile - 1) / tile;
  std::vector<rs_u64> part(nparts, 0xA5A5A5A5A5A5A5A5ull);
  const size_t ssm = 8 * ((size_t)block + 1);
  launch(2, block, ssm, [&] { rs_u64_scan_up(counts.data(), words, part.data()); });
  launch(1, block, ssm, [&] { rs_u64_scan_parts(part.data(), nparts); });
  launch(2, block, ssm, [&] { rs_u64_scan_down(counts.data(), words, part.data(), cursor.data()); });
  std::vector<unsigned long long> want_off(words, 0);
  for (rs_i64 k : keys) ++want_off[k + 1];
  for (unsigned long long k = 1; k < words; ++k) want_off[k] += want_off[k - 1];
  std::vector<T> sorted(n + 1, rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull));
  g_smem_poison = local ? 0xA5 : 0x00;
  launch(grid, block, local ? 12 * nkeys : 20 * RS_KEY_TS, [&] { rs_key_scatter_body<T>(x.data(), keys.data(), n, nkeys, cursor.data(), local ? hist.data() : nullptr, sorted.data()); });
  g_smem_poison = 0xA5;
  bool ok = !g_engine_error;
  for (unsigned long long k = 0; k < words && ok; ++k) {
    if (counts[k] != want_off[k] || (k < nkeys && cursor[k] != want_off[k + 1])) {
      if (!g_quiet) printf("FAIL key %s (%s): key %llu offset %llu cursor %llu, want %llu and %llu\n", name, local ? "local" : "global", k, counts[k], cursor[k], want_off[k], k < nkeys ? want_off[k + 1] : 0);
      ok = false;
    }
  }
  if (!ok) return false;
  SegCase c;
  c.name = name;
  c.off.assign(counts.begin(), counts.end());
  c.nseg = nkeys;
  c.stride = c.cols = 0;
  c.span = n;
  std::vector<T> out;
  if (!seg_kernels<T, K>(c, sorted.data(), block, fold_arg, out)) return false;
  const RsFold<K> fold(fold_arg);
  for (unsigned long long k = 0; k < nkeys && ok; ++k) {
    RsAcc<T, K> a(fold);
    rs_clear(a);
    for (unsigned long long i = 0; i < n; ++i)
      if ((unsigned long long)keys[i] == k) rs_add_one(a, x[i]);
    const T want = rs_finish(a);
    if (rs_bits(out[k]) != rs_bits(want)) {
      if (!g_quiet) printf("FAIL key %s (%s) %s k%d block %u grid %u key %llu: got %llx want %llx\n", name, local ? "local" : "global", sizeof(T) == 8 ? "f64" : "f32", fold.get(), block, grid, k,
                           (unsigned long long)rs_bits(out[k]), (unsigned long long)rs_bits(want));
      ok = false;
    }
  }
  return ok;
}

// The key-range path's sequence (the hosts' for many keys): rs_kr_count, the integer scans,
// one partition pass (ranges of at most 2^dbits) or two (by the high digit, then within each
// high digit's segment by the low one, after rs_kr_plan over the high digits), rs_kr_plan
// over the ranges, rs_kr_acc and rs_kr_merge. Ranges of 2^s keys and accumulation tiles of
// `tile` values, both small here, so that ranges take one tile or several. Each key's bits
// must be the one-at-a-time sum of its values; every other output word untouched on a bad
// key; each range's pairs, after the partition, exactly its keys' values.
static unsigned long long ceil_log2(unsigned long long v) {
  unsigned long long b = 0;
  while ((1ull << b) < v) ++b;
  return b;
}

template <typename T, int K>
static bool run_kr_case(const char* name, const std::vector<T>& x, const std::vector<rs_i64>& keys, unsigned long long nkeys,
                        unsigned block, unsigned grid, int fold_arg, unsigned long long s, unsigned long long dbits,
                        unsigned long long tile) {
  typedef typename RsF<T>::U U;
  const unsigned long long n = x.size(), L = 1ull << s, nr = (nkeys + L - 1) / L;
  const RsFold<K> fold(fold_arg);
  const int k = fold.get();
  const T poison = rs_from_bits((U)0xA5A5A5A5A5A5A5A5ull);
  std::vector<rs_u64> start(nr + 1, 0), curA(nr + 1, 0xA5A5A5A5A5A5A5A5ull), curB(nr + 1, 0xA5A5A5A5A5A5A5A5ull);
  std::vector<T> out(nkeys + 1, poison);
  unsigned err[2] = {0, 0};
  g_engine_error = false;
  const char* ty = sizeof(T) == 8 ? "f64" : "f32";
  auto fail = [&](const char* what, unsigned long long a, unsigned long long b) {
    if (!g_quiet) printf("FAIL kr %s %s k%d block %u grid %u s %llu: %s %llu %llu\n", name, ty, k, block, grid, s, what, a, b);
    return false;
  };
  launch(grid, block, 4 * nr, [&] { rs_kr_count(keys.data(), n, nkeys, s, nr, start.data() + 1, err); });
  bool want_bad = false;
  for (rs_i64 kk : keys) want_bad |= kk < 0 || (unsigned long long)kk >= nkeys;
  if (err[0] != (want_bad ? 1u : 0u) || g_engine_error) return fail("err", err[0], want_bad);
  if (want_bad) return true;
  const unsigned long long words = nr + 1, stile = (unsigned long long)block * RS_SCAN_E;
  const unsigned long long nparts = (words + stile - 1) / stile;
  std::vector<rs_u64> sp(nparts, 0xA5A5A5A5A5A5A5A5ull);
  const size_t ssm = 8 * ((size_t)block + 1);
  launch(2, block, ssm, [&] { rs_u64_scan_up(start.data(), words, sp.data()); });
  launch(1, block, ssm, [&] { rs_u64_scan_parts(sp.data(), nparts); });
  launch(2, block, ssm, [&] { rs_u64_scan_down(start.data(), words, sp.data(), curA.data()); });
  const unsigned long long TP = (unsigned long long)block * RS_KR_U, tb = ceil_log2(nr);
  std::vector<T> xa(n + 1, poison), xb(n + 1, poison);
  std::vector<rs_u32> ka(n + 1, 0xA5A5A5A5u), kb(n + 1, 0xA5A5A5A5u);
  auto part_smem = [&](unsigned long long D) { return 8 * D + TP * (sizeof(T) + 4) + 4 * (2 * D + 16); };
  const T* xr = xa.data();
  const rs_u32* kr = ka.data();
  if (tb <= dbits) {
    const unsigned long long D = 1ull << tb;
    launch(grid, block, part_smem(D), [&] { rs_kr_part_body<T, rs_i64>(x.data(), keys.data(), n, s, 0, D, nullptr, 0, 0, nullptr, 0, curA.data(), xa.data(), ka.data()); });
  } else {
    const unsigned long long d2 = tb / 2, d1 = tb - d2, nseg = (nr + (1ull << d2) - 1) >> d2;
    launch(grid, block, part_smem(1ull << d1), [&] { rs_kr_part_body<T, rs_i64>(x.data(), keys.data(), n, s, d2, 1ull << d1, nullptr, 0, 0, nullptr, 0, curA.data(), xa.data(), ka.data()); });
    std::vector<rs_u64> first(nseg + 1, 0xA5A5A5A5A5A5A5A5ull);
    launch(1, block, ssm, [&] { rs_kr_plan(start.data(), nseg, 1ull << d2, nr, TP, 0, first.data(), nullptr, curB.data()); });
    const unsigned g2 = (unsigned)((n + TP - 1) / TP + nseg);
    launch(g2, block, part_smem(1ull << d2), [&] { rs_kr_part_body<T, rs_u32>(xa.data(), ka.data(), 0, s, 0, 1ull << d2, start.data(), 1ull << d2, nr, first.data(), nseg, curB.data(), xb.data(), kb.data()); });
    xr = xb.data();
    kr = kb.data();
  }
  if (g_engine_error) return fail("engine", 0, 0);
  // Each range's pairs: its keys' values, as a multiset.
  for (unsigned long long r = 0; r < nr; ++r) {
    std::vector<std::pair<rs_u64, U>> got, want;
    for (unsigned long long i = start[r]; i < start[r + 1]; ++i) got.push_back({kr[i], rs_bits(xr[i])});
    for (unsigned long long i = 0; i < n; ++i)
      if ((unsigned long long)keys[i] >> s == r) want.push_back({(rs_u64)keys[i], rs_bits(x[i])});
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    if (got != want) return fail("range pairs", r, got.size());
  }
  std::vector<rs_u64> first(nr + 1, 0xA5A5A5A5A5A5A5A5ull), multi(nr + 1, 0xA5A5A5A5A5A5A5A5ull);
  launch(1, block, ssm, [&] { rs_kr_plan(start.data(), nr, 1, nr, tile, 1, first.data(), multi.data(), nullptr); });
  std::vector<T> partial((multi[nr] + 1) * L * (2 * k + 1), poison);
  const unsigned ga = (unsigned)((n + tile - 1) / tile + nr);
  launch(ga, block, L * (sizeof(T) * k + 12) + 4, [&] { rs_kr_acc_body<T, K>(xr, kr, start.data(), first.data(), multi.data(), nr, s, nkeys, tile, out.data(), partial.data(), fold); });
  launch(grid, block, 0, [&] { rs_kr_merge_body<T, K>(first.data(), multi.data(), s, nkeys, partial.data(), out.data(), fold); });
  if (g_engine_error) return fail("engine", 0, 0);
  if (rs_bits(out[nkeys]) != rs_bits(poison)) return fail("wrote past the keys", nkeys, 0);
  for (unsigned long long key = 0; key < nkeys; ++key) {
    RsAcc<T, K> a(fold);
    rs_clear(a);
    for (unsigned long long i = 0; i < n; ++i)
      if ((unsigned long long)keys[i] == key) rs_add_one(a, x[i]);
    const T want = rs_finish(a);
    if (rs_bits(out[key]) != rs_bits(want)) return fail("key got/want bits", (unsigned long long)rs_bits(out[key]), (unsigned long long)rs_bits(want));
  }
  return true;
}

template <typename T, int K>
static void run_key_fold(int fold, const std::vector<unsigned>& blocks, int& pass, int& fail) {
  for (unsigned b : blocks) {
    const unsigned long long tile = (unsigned long long)b * RsF<T>::SEG_E;
    struct KC { const char* name; unsigned long long n, nkeys; int kind; };
    // kind: 0 uniform, 1 skewed (most values on key 0), 2 every other key empty, 3 one bad key
    const std::vector<KC> kcs = {
        {"uniform_few", 3 * tile + 5, 7, 0}, {"skewed_few", 2 * tile + 3, 40, 1}, {"sparse_few", tile + 9, 64, 2},
        {"uniform_many", 2 * tile + 1, 3 * RS_KEY_LOCAL + 1, 0}, {"skewed_many", tile, 5 * RS_KEY_LOCAL, 1},
        {"one_key", 2 * tile + 7, 1, 0}, {"no_values", 0, 9, 0}, {"no_values_many", 0, 2 * RS_KEY_LOCAL, 0},
        {"two_values", 2, 3, 0}, {"bad_few", tile, 5, 3}, {"bad_many", tile, 2 * RS_KEY_LOCAL, 3}};
    for (const KC& kc : kcs) {
      std::vector<T> x(kc.n);
      std::vector<rs_i64> keys(kc.n);
      for (unsigned long long i = 0; i < kc.n; ++i) {
        const unsigned long long r = seg_next();
        double v = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * std::ldexp(1.0, (int)(seg_next() % 40) - 20);
        if (r % 4099 == 7) v = std::nan("");
        // Some values in the top bins (the compressed first slot), zeros, subnormals and
        // infinities.
        if (r % 97 == 3) v = std::ldexp(v < 0 ? -1.0 - (double)(r % 1000) / 1000 : 1.0 + (double)(r % 1000) / 1000, sizeof(T) == 8 ? 1000 : 120);
        if (r % 89 == 5) v = (r & 256) ? -0.0 : 0.0;
        if (r % 83 == 6) v = std::ldexp((double)(r % 7), sizeof(T) == 8 ? -1070 : -148);
        if (r % 8191 == 9) v = (r & 512) ? -INFINITY : INFINITY;
        x[i] = (T)v;
        unsigned long long k = seg_next() % kc.nkeys;
        if (kc.kind == 1 && seg_next() % 8 != 0) k = 0;
        if (kc.kind == 2) k &= ~1ull;
        keys[i] = (rs_i64)k;
      }
      if (kc.kind == 3) keys[kc.n / 2] = (seg_next() & 1) ? -1 : (rs_i64)kc.nkeys;
      for (unsigned grid : {1u, 3u}) {
        if (run_key_case<T, K>(kc.name, x, keys, kc.nkeys, b, grid, fold)) ++pass; else ++fail;
      }
      // The key-range path: ranges of 2 and 8 keys, one or two partition passes (digits of at
      // most 2 or 8 bits), tiles of 5 and 40 values. Its many small blocks make threads mode
      // (a thread per simulated thread and block) slow: there, blocks of up to 32 threads.
      if (kc.nkeys > 0 && (g_fibers || b <= 32)) {
        for (unsigned long long s : {1ull, 3ull}) {
          if (run_kr_case<T, K>(kc.name, x, keys, kc.nkeys, b, 2, fold, s, 2, 5)) ++pass; else ++fail;
          if (run_kr_case<T, K>(kc.name, x, keys, kc.nkeys, b, 3, fold, s, 8, 40)) ++pass; else ++fail;
        }
      }
    }
  }
}

static int run_segmented(unsigned long long seed, const std::vector<unsigned>& blocks) {
  g_seg_rng = seed * 0x9E3779B97F4A7C15ull + 1;
  int pass = 0, fail = 0;
  for (unsigned b : blocks) { if (run_seg_bad(b)) ++pass; else ++fail; }
  run_seg_fold<double, 3>(3, blocks, pass, fail);
  run_seg_fold<double, 2>(2, blocks, pass, fail);
  run_seg_fold<double, 8>(8, blocks, pass, fail);
  run_seg_fold<double, -52>(13, blocks, pass, fail);
  run_seg_fold<float, 3>(3, blocks, pass, fail);
  run_seg_fold<float, 5>(5, blocks, pass, fail);
  run_seg_fold<float, -21>(21, blocks, pass, fail);
  run_segcs_fold<double, -52>(3, blocks, pass, fail);
  run_segcs_fold<double, -52>(52, blocks, pass, fail);
  run_segcs_fold<float, -21>(2, blocks, pass, fail);
  run_segcs_fold<float, -21>(21, blocks, pass, fail);
  run_key_fold<double, 3>(3, blocks, pass, fail);
  run_key_fold<double, -52>(13, blocks, pass, fail);
  run_key_fold<float, 5>(5, blocks, pass, fail);
  if (g_seg_sparse_short == 0 || g_seg_dense_chunks == 0) {
    printf("FAIL seg sparse_mix: %llu short groups in sparse chunks, %llu chunks not sparse\n", g_seg_sparse_short, g_seg_dense_chunks);
    ++fail;
  }
  if (!g_quiet) printf("emu: segmented, row and keyed sums and segmented cumsums%s: %d passed, %d failed\n", g_fibers ? (g_warp == 32 ? " (fibers wave32)" : " (fibers wave64)") : "", pass, fail);
  return fail;
}

// --segmented with --mutate-syncs: every barrier the segmented kernels reach, removed in
// turn, must make a check fail (or the engine report a divergent barrier) in some order.
static int mutate_segmented(unsigned long long seed, const std::vector<unsigned>& blocks) {
  g_quiet = true;
  if (run_segmented(seed, blocks)) { printf("emu: the unmodified segmented kernels fail\n"); return 1; }
  const std::set<int> lines = g_sync_lines;
  int undetected = 0;
  for (int l : lines) {
    g_drop_line = l;
    int caught = -1;
    bool crashed = false;
    for (int sc = 0; sc < 3 && caught < 0; ++sc) {
      g_sched = sc;
      // In a child: a missing barrier can leave a group number unwritten, and reading the
      // offsets there can fault (on a GPU, garbage or a fault too): that counts as caught.
      fflush(stdout);
      const pid_t pid = fork();
      if (pid == 0) _exit(run_segmented(seed, blocks) ? 1 : 0);
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        caught = sc;
        crashed = !WIFEXITED(status);
      }
    }
    printf("emu: segmented, barrier at reprosum.cu:%d removed: %s\n", l, caught < 0 ? "NOT DETECTED" : crashed ? "caught (the run faulted)" : "caught");
    if (caught < 0) ++undetected;
  }
  g_drop_line = -1;
  printf("emu: --segmented --mutate-syncs wave%u: %zu barriers, %d removals not detected\n", g_warp, lines.size(), undetected);
  return undetected ? 1 : 0;
}

int main(int argc, char** argv) {
  bool mutate = false, expect_fail = false;
  unsigned long long random_seed = 0;  // 0: no generated cases
  unsigned long long seg_seed = 0;     // --segmented SEED: the segmented sums instead
  std::set<int> allowed;  // barriers whose removal no current caller can observe
  int a = 1;
  for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; ++a) {
    std::string o = argv[a];
    auto val = [&]() -> std::string { if (a + 1 >= argc) { fprintf(stderr, "emu: %s needs a value\n", o.c_str()); exit(2); } return argv[++a]; };
    if (o == "--warp") { g_fibers = true; g_warp = (unsigned)atoi(val().c_str()); }
    else if (o == "--sched") { std::string s = val(); g_sched = s == "desc" ? 1 : s == "rand" ? 2 : 0; }
    else if (o == "--variant") {
      std::string v = val();
      g_variant = v == "warpsync-tail" ? V_WARPSYNC_TAIL : v == "shfl-kwarp32" ? V_SHFL_KWARP32 : v == "shfl-warpsize" ? V_SHFL_WARPSIZE : V_NONE;
      if (g_variant == V_NONE && v != "none") { fprintf(stderr, "emu: unknown variant %s\n", v.c_str()); return 2; }
    }
    else if (o == "--drop-sync") g_drop_line = atoi(val().c_str());
    else if (o == "--mutate-syncs") mutate = true;
    else if (o == "--allow-undetected") allowed.insert(atoi(val().c_str()));
    else if (o == "--expect-fail") expect_fail = true;
    else if (o == "--random") random_seed = std::stoull(val());
    else if (o == "--segmented") seg_seed = std::stoull(val());
    else if (o == "--max-fold") g_max_fold = atoi(val().c_str());
    else if (o == "--ignore-start") {
      std::string v = val();
      g_ignore_start = v == "fixed" ? IS_FIXED : v == "general" ? IS_GENERAL : v == "tile0" ? IS_TILE0 : v == "lookback" ? IS_LOOKBACK : IS_NONE;
      if (g_ignore_start == IS_NONE) { fprintf(stderr, "emu: --ignore-start fixed|general|tile0|lookback\n"); return 2; }
    }
    else { fprintf(stderr, "emu: unknown option %s\n", o.c_str()); return 2; }
  }
  if (a >= argc && !seg_seed) { fprintf(stderr, "usage: emu [options] VECTORS [block ...]\n"); return 2; }
  if ((g_variant != V_NONE || mutate || g_drop_line >= 0) && !g_fibers) { fprintf(stderr, "emu: variants need the fiber engine (--warp W)\n"); return 2; }
  if (g_fibers && g_warp != 32 && g_warp != 64) { fprintf(stderr, "emu: warp width 32 or 64\n"); return 2; }
  if (seg_seed) {
    std::vector<unsigned> sb;
    for (int i = a; i < argc; ++i) sb.push_back((unsigned)atoi(argv[i]));
    if (sb.empty()) sb = {1, 3, 32, 64};
    if (mutate) {
      if (!g_fibers) { fprintf(stderr, "emu: --mutate-syncs needs the fiber engine (--warp W)\n"); return 2; }
      return mutate_segmented(seg_seed, sb);
    }
    return run_segmented(seg_seed, sb) ? 1 : 0;
  }
  std::vector<Case> cs = read_cases(argv[a]);
  if (random_seed) add_generated(cs, random_seed);
  std::vector<unsigned> blocks;
  for (int i = a + 1; i < argc; ++i) blocks.push_back((unsigned)atoi(argv[i]));
  if (blocks.empty()) blocks = {1, 3, 32, 64};
  const char* sched = g_sched == 1 ? "desc" : g_sched == 2 ? "rand" : "asc";
  int pass, fail, skip;
  if (mutate) {
    // Every barrier the kernels reach, removed in turn: each removal must make at least one
    // check fail (or the engine report a divergent barrier).
    g_quiet = true;
    run_all(cs, blocks, pass, fail, skip);
    if (fail) { printf("emu: the unmodified kernels fail (%d)\n", fail); return 1; }
    std::set<int> lines = g_sync_lines;
    int undetected = 0;
    const char* names[3] = {"asc", "desc", "rand"};
    for (int l : lines) {
      g_drop_line = l;
      int caught = -1;
      // A race shows only in some orders (a writer scheduled before its reader hides a
      // missing barrier): ascending, descending, then a random order.
      for (int sc = 0; sc < 3 && caught < 0; ++sc) {
        g_sched = sc;
        run_all(cs, blocks, pass, fail, skip);
        if (fail) caught = sc;
      }
      if (caught >= 0)
        printf("emu: barrier at reprosum.cu:%d removed: %d of %d checks fail (order %s)\n", l, fail, pass + fail, names[caught]);
      else if (allowed.count(l))
        printf("emu: barrier at reprosum.cu:%d removed: no check fails (allowed: no current caller reuses the memory it guards)\n", l);
      else
        printf("emu: barrier at reprosum.cu:%d removed: no check fails in any order  <-- NOT DETECTED\n", l);
      if (caught < 0 && !allowed.count(l)) ++undetected;
    }
    printf("emu: --mutate-syncs wave%u: %zu barriers, %d removals not detected\n", g_warp, lines.size(), undetected);
    return undetected ? 1 : 0;
  }
  run_all(cs, blocks, pass, fail, skip);
  if (g_fibers)
    printf("emu: fibers wave%u sched %s variant %d drop-sync %d: %d passed, %d failed, %d cases skipped (generated, long or past --max-fold)\n",
           g_warp, sched, (int)g_variant, g_drop_line, pass, fail, skip);
  else
    printf("emu: %d passed, %d failed, %d cases skipped (generated, long or past --max-fold)\n", pass, fail, skip);
  if (expect_fail) {
    printf("emu: expected failure: %s\n", fail ? "yes (the broken variant was caught)" : "NO, the broken variant passed");
    return fail ? 0 : 1;
  }
  return fail ? 1 : 0;
}
