// The GPU segmented cumulative sum (issue 17) beside baselines measured in the same run on
// the same device buffers: CUB's DeviceScan::InclusiveSumByKey (not reproducible; its keys
// are each position's segment number, built once outside the timing), CUB's
// DeviceScan::InclusiveSum and reprosum's adn_cuda_cumsum over the whole array (no
// segments: what a scan costs). Every reprosum result is checked by bits against the CPU
// library (adn_segmented_cumsum_*, all threads) on a host copy; CUB's against reprosum's to a
// relative 1e-9 (f64) or 1e-3 (f32) (the values are uniform in [0, 1): no cancellation).
// Each row says ok or WRONG.
//
// Rows as the other GPU benches print them (gpu/benches/bench_table.py reads them):
//   who,method,type,N,median_us,G_elements_per_s,check
// The method names the layout: segcumsum_avgL (segments of random lengths 0..2L).
//
// Build and run on a machine with a GPU (libreprosum.a built with the cuda feature):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude gpu/benches/segcumsum.cu \
//        target/release/libreprosum.a -lpthread -ldl -lm -lrt -lutil -lgcc_s -o segcumsum
//   ./segcumsum 1e8
#include <cub/device/device_scan.cuh>
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
#include "reprosum.h"

static const int REPS = 7;

static void row(const char* who, const std::string& m, const char* ty, size_t n, double us, bool ok) {
  printf("%s,%s,%s,%zu,%.2f,%.2f,%s\n", who, m.c_str(), ty, n, us, n / us / 1e3, ok ? "ok" : "WRONG");
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

struct Api64 {
  typedef double T;
  static const char* name() { return "f64"; }
  static double tol() { return 1e-9; }
  static adn_status cpu(const T* x, T* out, const size_t* o, size_t s) { return adn_segmented_cumsum_f64(x, out, o, s, 3); }
  static adn_status gpu(const T* x, T* out, const size_t* o, size_t s) { return adn_cuda_segmented_cumsum_f64(x, out, o, s, 3); }
  static adn_status scan(const T* x, T* out, size_t n) { return adn_cuda_cumsum_f64(x, out, n); }
};

struct Api32 {
  typedef float T;
  static const char* name() { return "f32"; }
  static double tol() { return 1e-3; }
  static adn_status cpu(const T* x, T* out, const size_t* o, size_t s) { return adn_segmented_cumsum_f32(x, out, o, s, 3); }
  static adn_status gpu(const T* x, T* out, const size_t* o, size_t s) { return adn_cuda_segmented_cumsum_f32(x, out, o, s, 3); }
  static adn_status scan(const T* x, T* out, size_t n) { return adn_cuda_cumsum_f32(x, out, n); }
};

template <typename T>
static bool close(const std::vector<T>& got, const std::vector<T>& ref, double tol) {
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], r = ref[i];
    if (!(std::fabs(g - r) <= tol * std::max(1.0, std::fabs(r)))) return false;
  }
  return true;
}

template <typename A>
static void bench(size_t n) {
  typedef typename A::T T;
  const char* ty = A::name();
  T *x, *out;
  CUDA(cudaMalloc(&x, n * sizeof(T)));
  CUDA(cudaMalloc(&out, n * sizeof(T)));
  fill<<<1024, 256>>>(x, n, 42);
  CUDA(cudaDeviceSynchronize());
  std::vector<T> hx(n), cpu(n), got(n);
  CUDA(cudaMemcpy(hx.data(), x, n * sizeof(T), cudaMemcpyDeviceToHost));
  // The whole array: reprosum's cumsum and CUB's InclusiveSum.
  adn_status st = ADN_OK;
  const double us_scan = median_us(REPS, [&] { st = A::scan(x, out, n); });
  row("reprosum", "cumsum_whole", ty, n, us_scan, st == ADN_OK);
  size_t tb = 0;
  CUDA(cub::DeviceScan::InclusiveSum(nullptr, tb, x, out, (int)n));
  void* tmp;
  CUDA(cudaMalloc(&tmp, tb + 1));
  const double us_cub_scan = median_us(REPS, [&] {
    CUDA(cub::DeviceScan::InclusiveSum(tmp, tb, x, out, (int)n));
    CUDA(cudaDeviceSynchronize());
  });
  row("baseline", "cub_inclusive_sum_whole", ty, n, us_cub_scan, true);
  CUDA(cudaFree(tmp));
  for (size_t avg : {(size_t)32, (size_t)10000}) {
    std::vector<size_t> off{0};
    unsigned long long s = 12345 + avg;
    while (off.back() < n) {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      off.push_back(std::min(n, off.back() + (size_t)(s % (2 * avg + 1))));
    }
    const size_t nseg = off.size() - 1;
    std::vector<int> keys(n);
    for (size_t g = 0; g < nseg; ++g)
      for (size_t p = off[g]; p < off[g + 1]; ++p) keys[p] = (int)g;
    size_t* doff;
    int* dkeys;
    CUDA(cudaMalloc(&doff, off.size() * sizeof(size_t)));
    CUDA(cudaMalloc(&dkeys, n * sizeof(int)));
    CUDA(cudaMemcpy(doff, off.data(), off.size() * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(dkeys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    const std::string m = "segcumsum_avg" + std::to_string(avg);
    bool ok = A::cpu(hx.data(), cpu.data(), off.data(), nseg) == ADN_OK;
    const double us = median_us(REPS, [&] { st = A::gpu(x, out, doff, nseg); });
    CUDA(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    ok = ok && st == ADN_OK && std::memcmp(got.data(), cpu.data(), n * sizeof(T)) == 0;
    row("reprosum", m, ty, n, us, ok);
    const double ush = median_us(REPS, [&] { st = A::gpu(x, out, off.data(), nseg); });
    CUDA(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    row("reprosum", m + "_host_offsets", ty, n, ush, st == ADN_OK && std::memcmp(got.data(), cpu.data(), n * sizeof(T)) == 0);
    tb = 0;
    CUDA(cub::DeviceScan::InclusiveSumByKey(nullptr, tb, dkeys, x, out, (int)n));
    CUDA(cudaMalloc(&tmp, tb + 1));
    const double uc = median_us(REPS, [&] {
      CUDA(cub::DeviceScan::InclusiveSumByKey(tmp, tb, dkeys, x, out, (int)n));
      CUDA(cudaDeviceSynchronize());
    });
    CUDA(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    row("baseline", m + "_cub_inclusive_sum_by_key", ty, n, uc, close(got, cpu, A::tol()));
    CUDA(cudaFree(tmp));
    CUDA(cudaFree(dkeys));
    CUDA(cudaFree(doff));
  }
  CUDA(cudaFree(out));
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
