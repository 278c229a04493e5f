// Baselines for the reprosum GPU bench (gpu/benches/run-gpu-bench.sh compiles this on the
// GPU machine with its nvcc, against the CCCL 3.5 headers of the nvidia-cuda-cccl wheel):
// a plain read-only sum kernel (16-byte loads), cub::DeviceReduce::Sum, CUB's gpu_to_gpu
// reproducible sum, cub::DeviceScan::InclusiveSum, and CUB's small-N sum and scan latency.
//
// Every method is timed the same way as reprosum's: the whole call on a device pointer,
// through to the result (the scalar copied to the host, or the scan output on the device,
// synchronised), median of repeated calls. Every answer is checked against a long double
// sum on the CPU of the same values; a result outside the tolerance is reported WRONG.
// Output: one line per measurement, "baseline,METHOD,TYPE,N,MEDIAN_US,GELEM_PER_S,STATUS".
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>

#include "plain_sum.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

__device__ __forceinline__ unsigned long long mix(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <typename T>
__global__ void fill(T* x, long long n, unsigned long long seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = (T)((mix(seed ^ (unsigned long long)i) >> 11) * (1.0 / 9007199254740992.0));
}

static double median_us(int reps, const std::function<void()>& f) {
  std::vector<double> t;
  for (int r = 0; r < 3; ++r) f();
  for (int r = 0; r < reps; ++r) {
    auto a = std::chrono::steady_clock::now();
    f();
    auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void row(const char* m, const char* ty, long long n, double us, bool ok) {
  printf("baseline,%s,%s,%lld,%.2f,%.2f,%s\n", m, ty, n, us, n / us / 1e3, ok ? "ok" : "WRONG");
  fflush(stdout);
}

template <typename T>
static void run(const char* ty, long long n, int reps, double tol) {
  T *x, *out, *scan;
  CK(cudaMalloc(&x, n * sizeof(T)));
  CK(cudaMalloc(&scan, n * sizeof(T)));
  CK(cudaMalloc(&out, 64));
  fill<<<4096, 256>>>(x, n, 12345 + n);
  CK(cudaGetLastError());
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), x, n * sizeof(T), cudaMemcpyDeviceToHost));
  long double ref = 0;
  for (long long i = 0; i < n; ++i) ref += h[i];
  auto close = [&](T v) { return std::fabs((long double)v - ref) <= tol * ref; };
  T host = 0;

  // Plain read-only sum.
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto plain = [&] {
    CK(cudaMemsetAsync(out, 0, sizeof(T)));
    plain_sum(x, n, out, sms);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&host, out, sizeof(T), cudaMemcpyDeviceToHost));
  };
  double us = median_us(reps, plain);
  row("plain_read_sum", ty, n, us, close(host));

  // cub::DeviceReduce::Sum (temp storage allocated once, reused).
  size_t bytes = 0;
  CK(cub::DeviceReduce::Sum(nullptr, bytes, x, out, n));
  void* tmp;
  CK(cudaMalloc(&tmp, std::max<size_t>(bytes, 1)));
  auto cubsum = [&] {
    CK(cub::DeviceReduce::Sum(tmp, bytes, x, out, n));
    CK(cudaMemcpy(&host, out, sizeof(T), cudaMemcpyDeviceToHost));
  };
  us = median_us(reps, cubsum);
  row("cub_reduce_sum", ty, n, us, close(host));
  CK(cudaFree(tmp));

  // CUB gpu_to_gpu (RFA) reproducible sum, environment API.
  auto g2g = [&] {
    CK(cub::DeviceReduce::Sum(x, out, n, cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)));
    CK(cudaMemcpy(&host, out, sizeof(T), cudaMemcpyDeviceToHost));
  };
  us = median_us(reps, g2g);
  T first = host;
  g2g();
  row("cub_gpu_to_gpu_sum", ty, n, us, close(host) && host == first);

  // cub::DeviceScan::InclusiveSum into a device output.
  bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, bytes, x, scan, n));
  CK(cudaMalloc(&tmp, std::max<size_t>(bytes, 1)));
  auto cubscan = [&] {
    CK(cub::DeviceScan::InclusiveSum(tmp, bytes, x, scan, n));
    CK(cudaDeviceSynchronize());
  };
  us = median_us(reps, cubscan);
  T last;
  CK(cudaMemcpy(&last, scan + (n - 1), sizeof(T), cudaMemcpyDeviceToHost));
  row("cub_inclusive_sum", ty, n, us, close(last));
  CK(cudaFree(tmp));
  CK(cudaFree(x));
  CK(cudaFree(scan));
  CK(cudaFree(out));
}

template <typename T>
static void latency(const char* ty) {
  const long long ns[] = {1, 64, 1024, 2048, 2049, 100000};
  T *x, *out;
  CK(cudaMalloc(&x, 100000 * sizeof(T)));
  CK(cudaMalloc(&out, 64));
  fill<<<64, 256>>>(x, 100000, 7);
  size_t bytes = 0;
  CK(cub::DeviceReduce::Sum(nullptr, bytes, x, out, 100000LL));
  void* tmp;
  CK(cudaMalloc(&tmp, std::max<size_t>(bytes, 1) * 2));
  for (long long n : ns) {
    T host;
    size_t b = 0;
    CK(cub::DeviceReduce::Sum(nullptr, b, x, out, n));
    auto f = [&] {
      CK(cub::DeviceReduce::Sum(tmp, b, x, out, n));
      CK(cudaMemcpy(&host, out, sizeof(T), cudaMemcpyDeviceToHost));
    };
    double us = median_us(200, f);
    row("cub_reduce_sum_latency", ty, n, us, true);
    auto g = [&] {
      CK(cub::DeviceReduce::Sum(x, out, n, cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)));
      CK(cudaMemcpy(&host, out, sizeof(T), cudaMemcpyDeviceToHost));
    };
    us = median_us(200, g);
    row("cub_gpu_to_gpu_latency", ty, n, us, true);
  }
  // CUB's inclusive scan at the cumsum latency's sizes (cuda_bench's CUMSUM_LATENCY_N),
  // synchronised as reprosum's call is.
  const long long scan_ns[] = {1, 64, 1024, 2048, 2049, 4097, 8193, 16384, 16385, 32768, 32769, 65537, 100000, 262145};
  T* big;
  T* scan;
  CK(cudaMalloc(&big, 262145 * sizeof(T)));
  CK(cudaMalloc(&scan, 262145 * sizeof(T)));
  fill<<<64, 256>>>(big, 262145, 7);
  size_t sbytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, sbytes, big, scan, 262145LL));
  void* stmp;
  CK(cudaMalloc(&stmp, std::max<size_t>(sbytes, 1)));
  for (long long n : scan_ns) {
    size_t b = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, b, big, scan, n));
    auto f = [&] {
      CK(cub::DeviceScan::InclusiveSum(stmp, b, big, scan, n));
      CK(cudaDeviceSynchronize());
    };
    row("cub_inclusive_sum_latency", ty, n, median_us(200, f), true);
  }
  CK(cudaFree(stmp));
  CK(cudaFree(big));
  CK(cudaFree(scan));
  auto empty = [&] {
    fill<<<1, 1>>>(out, 0, 0);
    T host;
    CK(cudaMemcpy(&host, out, sizeof(T), cudaMemcpyDeviceToHost));
  };
  row("empty_kernel_plus_copy", ty, 0, median_us(200, empty), true);
  CK(cudaFree(tmp));
  CK(cudaFree(x));
  CK(cudaFree(out));
}

int main(int argc, char** argv) {
  std::vector<long long> sizes = {1000000LL, 100000000LL, 1000000000LL};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back((long long)strtod(argv[i], nullptr));
  }
  latency<double>("f64");
  latency<float>("f32");
  for (long long n : sizes) {
    int reps = n >= 1000000000LL ? 10 : 30;
    run<double>("f64", n, reps, 1e-12);
    run<float>("f32", n, reps, 1e-3);
  }
  return 0;
}
