// The GPU segmented and row sums (issue 17) beside baselines measured in the same run on the
// same device buffers: a plain read-only sum kernel over the whole array (the memory
// ceiling; the offsets' bytes are counted too in the segmented rows' G/s), CUB's
// DeviceSegmentedReduce::Sum (not reproducible) on the same offsets, and a plain per-row
// kernel (one warp per row, not reproducible; with scalar loads, and with 16-byte loads) for
// the row sums. Every reprosum result is
// checked by bits against the CPU library (adn_segmented_sum_*, adn_sum_rows_*, all threads)
// on a host copy; each CUB / plain result against reprosum's to a relative 1e-9 (f64) or 1e-3
// (f32) (the values are uniform in [0, 1): no cancellation). Each row says ok or WRONG.
//
// Rows as the other GPU benches print them (gpu/benches/bench_table.py reads them):
//   who,method,type,N,median_us,G_elements_per_s,check
// The method names the layout: seg_avgL (segments of random lengths 0..2L), rows_RxC,
// keyed_K (keys uniform over K; _host_keys: the keys in host memory).
//
// Build and run on a machine with a GPU (libreprosum.a built with the cuda feature; the
// CCCL headers of the nvidia-cuda-cccl wheel):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -I$CCCL gpu/benches/segmented.cu \
//        target/release/libreprosum.a -lpthread -ldl -lm -lrt -lutil -lgcc_s -o segmented
//   ./segmented 1e8 1e9
// SEGMENTED_PARTS=seg,rows,keyed (any of them; default all) times only the parts named;
// SEGMENTED_AVGS=32,2000,10000 sets the segments' average lengths (default 32 and 10000);
// SEGMENTED_FOLD=K the fold of every reprosum call (default 3; the CPU check uses the same).
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_timing.cuh"
#include "plain_sum.cuh"
#include "reprosum.h"

static const int REPS = 7;

// Whether SEGMENTED_PARTS (a comma-separated list; unset: every part) names this part.
static bool part(const char* name) {
  const char* p = getenv("SEGMENTED_PARTS");
  if (!p) return true;
  const std::string list = std::string(",") + p + ",";
  return list.find(std::string(",") + name + ",") != std::string::npos;
}

// The segments' average lengths (SEGMENTED_AVGS, comma-separated; default 32 and 10000).
static std::vector<size_t> averages() {
  const char* p = getenv("SEGMENTED_AVGS");
  std::vector<size_t> out;
  for (const char* q = p ? p : ""; *q;) {
    out.push_back((size_t)strtoull(q, nullptr, 10));
    const char* c = strchr(q, ',');
    if (!c) break;
    q = c + 1;
  }
  if (out.empty()) out = {32, 10000};
  return out;
}

// The fold of every reprosum call (SEGMENTED_FOLD; default 3). Not a number: the bench
// stops with a message (a fold the library does not take is its own error, a WRONG row).
static unsigned fold() {
  static const unsigned f = [] {
    const char* p = getenv("SEGMENTED_FOLD");
    if (!p) return 3u;
    char* end = nullptr;
    const unsigned long v = strtoul(p, &end, 10);
    if (end == p || *end != '\0' || v > 1000) {
      fprintf(stderr, "segmented: SEGMENTED_FOLD=%s is not a fold\n", p);
      exit(2);
    }
    return (unsigned)v;
  }();
  return f;
}

// reprosum's rows at a fold other than 3 name it: method_kK.
static void row(const char* who, const std::string& m, const char* ty, size_t n, double us, bool ok) {
  const std::string k = fold() != 3 && std::string(who) == "reprosum" ? "_k" + std::to_string(fold()) : "";
  printf("%s,%s%s,%s,%zu,%.2f,%.2f,%s\n", who, m.c_str(), k.c_str(), ty, n, us, n / us / 1e3, ok ? "ok" : "WRONG");
  fflush(stdout);
}

__device__ __forceinline__ unsigned long long mix(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <typename T>
__global__ void fill(T* x, size_t n, unsigned long long seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = (T)((mix(seed ^ i) >> 11) * (1.0 / 9007199254740992.0));
}

// One warp per row (not reproducible across block shapes; the plain per-row baseline).
template <typename T>
__global__ void plain_rows(const T* x, size_t rows, size_t cols, size_t stride, T* out) {
  const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  for (size_t r = warp; r < rows; r += (size_t)gridDim.x * blockDim.x / 32) {
    T s = 0;
    for (size_t c = lane; c < cols; c += 32) s += x[r * stride + c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) out[r] = s;
  }
}

// One warp per row with 16-byte loads (W values of T per vector V; each row starts on a
// 16-byte boundary: stride * sizeof(T) a multiple of 16), the rest of a row one value at a
// time. Not reproducible; the stronger per-row baseline.
template <typename T, typename V, int W>
__global__ void plain_rows_vec(const T* x, size_t rows, size_t cols, size_t stride, T* out) {
  const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  const size_t nv = cols / W;
  for (size_t r = warp; r < rows; r += (size_t)gridDim.x * blockDim.x / 32) {
    const T* xr = x + r * stride;
    const V* xv = reinterpret_cast<const V*>(xr);
    T s = 0;
    for (size_t c = lane; c < nv; c += 32) {
      V a = xv[c];
      const T* pa = reinterpret_cast<const T*>(&a);
#pragma unroll
      for (int k = 0; k < W; ++k) s += pa[k];
    }
    for (size_t c = nv * W + lane; c < cols; c += 32) s += xr[c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) out[r] = s;
  }
}

static void plain_rows_16(const double* x, size_t rows, size_t cols, double* out) {
  plain_rows_vec<double, double2, 2><<<132 * 16, 256>>>(x, rows, cols, cols, out);
}
static void plain_rows_16(const float* x, size_t rows, size_t cols, float* out) {
  plain_rows_vec<float, float4, 4><<<132 * 16, 256>>>(x, rows, cols, cols, out);
}

// The entry points of one type (SUF: f64 or f32), at fold(); TOL: the baselines' relative
// tolerance against reprosum's result.
#define SEGMENTED_API(NAME, TYPE, SUF, TOL)                                                                              \
  struct NAME {                                                                                                          \
    typedef TYPE T;                                                                                                      \
    static const char* name() { return #SUF; }                                                                           \
    static double tol() { return TOL; }                                                                                  \
    static adn_status cpu_seg(const T* x, const size_t* o, size_t s, T* out) { return adn_segmented_sum_##SUF(x, o, s, fold(), out); } \
    static adn_status gpu_seg(const T* x, const size_t* o, size_t s, T* out) { return adn_cuda_segmented_sum_##SUF(x, o, s, fold(), out); } \
    static adn_status cpu_rows(const T* x, size_t r, size_t c, size_t st, T* out) { return adn_sum_rows_##SUF(x, r, c, st, fold(), out); } \
    static adn_status gpu_rows(const T* x, size_t r, size_t c, size_t st, T* out) { return adn_cuda_sum_rows_##SUF(x, r, c, st, fold(), out); } \
    static adn_status cpu_key(const T* x, const int64_t* k, size_t n, size_t nk, T* out) { return adn_sum_by_key_##SUF(x, k, n, nk, fold(), out); } \
    static adn_status gpu_key(const T* x, const int64_t* k, size_t n, size_t nk, T* out) { return adn_cuda_sum_by_key_##SUF(x, k, n, nk, fold(), out); } \
  };
SEGMENTED_API(Api64, double, f64, 1e-9)
SEGMENTED_API(Api32, float, f32, 1e-3)

template <typename T>
static bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <typename T>
static bool close(const std::vector<T>& got, const std::vector<T>& ref, double tol) {
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], r = ref[i];
    if (std::fabs(g - r) > tol * std::max(1.0, std::fabs(r))) return false;
  }
  return true;
}

template <typename A>
static void bench(size_t n) {
  typedef typename A::T T;
  const char* ty = A::name();
  T* x;
  CUDA(cudaMalloc(&x, n * sizeof(T)));
  fill<<<1024, 256>>>(x, n, 42);
  CUDA(cudaDeviceSynchronize());
  std::vector<T> hx(n);
  CUDA(cudaMemcpy(hx.data(), x, n * sizeof(T), cudaMemcpyDeviceToHost));
  T* acc;
  CUDA(cudaMalloc(&acc, sizeof(T)));
  int sms = 0;
  CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double plain = median_us(REPS, [&] {
    CUDA(cudaMemsetAsync(acc, 0, sizeof(T)));
    plain_sum(x, (long long)n, acc, sms);
    T v;
    CUDA(cudaMemcpy(&v, acc, sizeof(T), cudaMemcpyDeviceToHost));
  });
  row("baseline", "plain_read_sum", ty, n, plain, true);
  for (size_t avg : averages()) {
    if (!part("seg")) break;
    // Random lengths 0..2 avg, the last segment taking the rest.
    std::vector<size_t> off{0};
    unsigned long long s = 12345 + avg;
    while (off.back() < n) {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      off.push_back(std::min(n, off.back() + (size_t)(s % (2 * avg + 1))));
    }
    const size_t nseg = off.size() - 1;
    size_t* doff;
    CUDA(cudaMalloc(&doff, off.size() * sizeof(size_t)));
    CUDA(cudaMemcpy(doff, off.data(), off.size() * sizeof(size_t), cudaMemcpyHostToDevice));
    T* out;
    CUDA(cudaMalloc(&out, nseg * sizeof(T)));
    // Elements counted: the values plus the offsets' bytes in values.
    const size_t counted = n + off.size() * sizeof(size_t) / sizeof(T);
    const std::string m = "seg_avg" + std::to_string(avg);
    std::vector<T> cpu(nseg), gpu(nseg), cub(nseg);
    bool ok = A::cpu_seg(hx.data(), off.data(), nseg, cpu.data()) == ADN_OK;
    adn_status st = ADN_OK;
    const double us = median_us(REPS, [&] { st = A::gpu_seg(x, doff, nseg, out); });
    CUDA(cudaMemcpy(gpu.data(), out, nseg * sizeof(T), cudaMemcpyDeviceToHost));
    ok = ok && st == ADN_OK && same_bits(cpu, gpu);
    row("reprosum", m, ty, counted, us, ok);
    // The same call with the offsets on the host.
    const double ush = median_us(REPS, [&] { st = A::gpu_seg(x, off.data(), nseg, out); });
    CUDA(cudaMemcpy(gpu.data(), out, nseg * sizeof(T), cudaMemcpyDeviceToHost));
    row("reprosum", m + "_host_offsets", ty, counted, ush, st == ADN_OK && same_bits(cpu, gpu));
    size_t tb = 0;
    CUDA(cub::DeviceSegmentedReduce::Sum(nullptr, tb, x, out, (int)nseg, doff, doff + 1));
    void* tmp;
    CUDA(cudaMalloc(&tmp, tb + 1));
    const double uc = median_us(REPS, [&] {
      CUDA(cub::DeviceSegmentedReduce::Sum(tmp, tb, x, out, (int)nseg, doff, doff + 1));
      CUDA(cudaDeviceSynchronize());
    });
    CUDA(cudaMemcpy(cub.data(), out, nseg * sizeof(T), cudaMemcpyDeviceToHost));
    row("baseline", m + "_cub_segmented_reduce", ty, counted, uc, close(cub, cpu, A::tol()));
    CUDA(cudaFree(tmp));
    CUDA(cudaFree(out));
    CUDA(cudaFree(doff));
  }
  for (auto rc : {std::make_pair((size_t)10000, (size_t)10000), std::make_pair((size_t)1000000, (size_t)64)}) {
    const size_t rows = rc.first, cols = rc.second;
    if (rows * cols > n || !part("rows")) continue;
    const std::string m = "rows_" + std::to_string(rows) + "x" + std::to_string(cols);
    T* out;
    CUDA(cudaMalloc(&out, rows * sizeof(T)));
    std::vector<T> cpu(rows), gpu(rows), pl(rows);
    bool ok = A::cpu_rows(hx.data(), rows, cols, cols, cpu.data()) == ADN_OK;
    adn_status st = ADN_OK;
    const double us = median_us(REPS, [&] { st = A::gpu_rows(x, rows, cols, cols, out); });
    CUDA(cudaMemcpy(gpu.data(), out, rows * sizeof(T), cudaMemcpyDeviceToHost));
    row("reprosum", m, ty, rows * cols, us, ok && st == ADN_OK && same_bits(cpu, gpu));
    const double up = median_us(REPS, [&] {
      plain_rows<<<132 * 16, 256>>>(x, rows, cols, cols, out);
      CUDA(cudaDeviceSynchronize());
    });
    CUDA(cudaMemcpy(pl.data(), out, rows * sizeof(T), cudaMemcpyDeviceToHost));
    row("baseline", m + "_plain_warp_per_row", ty, rows * cols, up, close(pl, cpu, A::tol()));
    const double uv = median_us(REPS, [&] {
      plain_rows_16(x, rows, cols, out);
      CUDA(cudaDeviceSynchronize());
    });
    CUDA(cudaMemcpy(pl.data(), out, rows * sizeof(T), cudaMemcpyDeviceToHost));
    row("baseline", m + "_plain_warp_per_row_16b", ty, rows * cols, uv, close(pl, cpu, A::tol()));
    CUDA(cudaFree(out));
  }
  // Keyed sums of the device values, keys uniform over 1e3 and 1e5, with the keys on the
  // device and on the host (checked and staged by the host: what a C caller with a host
  // array gets).
  for (size_t nkeys : {(size_t)1000, (size_t)100000}) {
    if (!part("keyed")) break;
    std::vector<int64_t> keys(n);
    unsigned long long s = 777 + nkeys;
    for (size_t i = 0; i < n; ++i) {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      keys[i] = (int64_t)(s % nkeys);
    }
    int64_t* dkeys;
    CUDA(cudaMalloc(&dkeys, n * sizeof(int64_t)));
    CUDA(cudaMemcpy(dkeys, keys.data(), n * sizeof(int64_t), cudaMemcpyHostToDevice));
    T* out;
    CUDA(cudaMalloc(&out, nkeys * sizeof(T)));
    const std::string m = "keyed_" + std::to_string(nkeys);
    std::vector<T> cpu(nkeys), gpu(nkeys);
    const bool ok = A::cpu_key(hx.data(), keys.data(), n, nkeys, cpu.data()) == ADN_OK;
    adn_status st = ADN_OK;
    const double us = median_us(REPS, [&] { st = A::gpu_key(x, dkeys, n, nkeys, out); });
    CUDA(cudaMemcpy(gpu.data(), out, nkeys * sizeof(T), cudaMemcpyDeviceToHost));
    row("reprosum", m, ty, n, us, ok && st == ADN_OK && same_bits(cpu, gpu));
    const double ush = median_us(REPS, [&] { st = A::gpu_key(x, keys.data(), n, nkeys, out); });
    CUDA(cudaMemcpy(gpu.data(), out, nkeys * sizeof(T), cudaMemcpyDeviceToHost));
    row("reprosum", m + "_host_keys", ty, n, ush, ok && st == ADN_OK && same_bits(cpu, gpu));
    CUDA(cudaFree(out));
    CUDA(cudaFree(dkeys));
  }
  CUDA(cudaFree(acc));
  CUDA(cudaFree(x));
}

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back((size_t)atof(argv[i]));
  if (sizes.empty()) sizes = {(size_t)1e8};
  for (size_t n : sizes) {
    bench<Api64>(n);
    bench<Api32>(n);
  }
  return 0;
}
