// The GPU sum and cumulative sum from each memory kind a user passes (issue 16, item 5):
// device (cudaMalloc), managed (cudaMallocManaged, prefetched to the device, and resident on
// the host), pinned host (cudaMallocHost) and pageable host (malloc), beside baselines
// measured in the same run on the same buffers: a plain read-only sum kernel over device
// and managed memory, the host-to-device copy of the input (and, for a cumulative sum, the
// copy back), and the CPU library (adn_sum_*_fold / adn_cumsum_*_fold, all threads) on the
// host memory. Every reprosum result is checked by bits against the CPU library's (the sum's
// bits; every element of a cumulative sum), each row says ok or WRONG.
//
// Rows as the other GPU benches print them (gpu/benches/bench_table.py reads them):
//   who,method,type,N,median_us,G_elements_per_s,check
//
// Build and run on a machine with a GPU (libreprosum.a built with the cuda feature):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude gpu/benches/memory_kinds.cu \
//        target/release/libreprosum.a -lcuda -o memory_kinds
//   ./memory_kinds 1e8 1e9
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench_timing.cuh"
#include "plain_sum.cuh"
#include "reprosum.h"

static const int REPS = 5;

static void row(const char* who, const char* m, const char* ty, size_t n, double us, bool ok) {
  printf("%s,%s,%s,%zu,%.2f,%.2f,%s\n", who, m, ty, n, us, n / us / 1e3, ok ? "ok" : "WRONG");
  fflush(stdout);
}

struct Api64 {
  typedef double T;
  static const char* name() { return "f64"; }
  static adn_status cpu_sum(const T* x, size_t n, T* o) { return adn_sum_f64_fold(x, n, 3, o); }
  static adn_status gpu_sum(const T* x, size_t n, T* o) { return adn_cuda_sum_f64_fold(x, n, 3, o); }
  static adn_status cpu_cumsum(const T* x, T* o, size_t n) { return adn_cumsum_f64_fold(x, o, n, 3); }
  static adn_status gpu_cumsum(const T* x, T* o, size_t n) { return adn_cuda_cumsum_f64_fold(x, o, n, 3); }
};

struct Api32 {
  typedef float T;
  static const char* name() { return "f32"; }
  static adn_status cpu_sum(const T* x, size_t n, T* o) { return adn_sum_f32_fold(x, n, 3, o); }
  static adn_status gpu_sum(const T* x, size_t n, T* o) { return adn_cuda_sum_f32_fold(x, n, 3, o); }
  static adn_status cpu_cumsum(const T* x, T* o, size_t n) { return adn_cumsum_f32_fold(x, o, n, 3); }
  static adn_status gpu_cumsum(const T* x, T* o, size_t n) { return adn_cuda_cumsum_f32_fold(x, o, n, 3); }
};

enum Kind { DEVICE, MANAGED_ON_DEVICE, MANAGED_ON_HOST, PINNED, PAGEABLE };
static const char* kind_name[] = {"device", "managed_on_device", "managed_on_host", "pinned", "pageable"};

template <typename T>
static T* alloc(Kind k, size_t n) {
  void* p = nullptr;
  size_t bytes = n * sizeof(T);
  switch (k) {
    case DEVICE: CUDA(cudaMalloc(&p, bytes)); break;
    case MANAGED_ON_DEVICE:
    case MANAGED_ON_HOST: CUDA(cudaMallocManaged(&p, bytes)); break;
    case PINNED: CUDA(cudaMallocHost(&p, bytes)); break;
    case PAGEABLE:
      p = malloc(bytes);
      if (!p) { fprintf(stderr, "malloc %zu bytes failed\n", bytes); exit(2); }
      break;
  }
  return (T*)p;
}

template <typename T>
static void release(Kind k, T* p) {
  switch (k) {
    case DEVICE:
    case MANAGED_ON_DEVICE:
    case MANAGED_ON_HOST: CUDA(cudaFree(p)); break;
    case PINNED: CUDA(cudaFreeHost(p)); break;
    case PAGEABLE: free(p); break;
  }
}

// Where managed memory lives before each timed call: on the device (prefetched), or on
// the host (prefetched back, as after the CPU wrote it).
static void place(Kind k, void* p, size_t bytes) {
  cudaMemLocation loc;
  if (k == MANAGED_ON_DEVICE) {
    loc.type = cudaMemLocationTypeDevice;
    loc.id = 0;
  } else if (k == MANAGED_ON_HOST) {
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
  } else {
    return;
  }
  CUDA(cudaMemPrefetchAsync(p, bytes, loc, 0, 0));
  CUDA(cudaDeviceSynchronize());
}

static int sms = 132;

template <typename A>
static void run(size_t n) {
  typedef typename A::T T;
  const char* ty = A::name();
  std::vector<T> host(n);
  uint64_t s = 0x243F6A8885A308D3ull;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    double m = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    host[i] = (T)(m * (double)(1 << (s % 20)));
  }
  T want = 0;
  double cpu_us = median_us(REPS, [&] {
    if (A::cpu_sum(host.data(), n, &want) != ADN_OK) exit(3);
  });
  row("reprosum", "cpu_sum_all_threads", ty, n, cpu_us, true);
  std::vector<T> want_c(n), got_c(n);
  double cpu_c_us = median_us(REPS, [&] {
    if (A::cpu_cumsum(host.data(), want_c.data(), n) != ADN_OK) exit(3);
  });
  row("reprosum", "cpu_cumsum_all_threads", ty, n, cpu_c_us, true);
  T* dev_scratch = alloc<T>(DEVICE, n);
  T* dsum;
  CUDA(cudaMalloc(&dsum, sizeof(T)));
  for (int ki = 0; ki < 5; ++ki) {
    Kind k = (Kind)ki;
    T* x = alloc<T>(k, n);
    T* out = alloc<T>(k, n);
    size_t bytes = n * sizeof(T);
    CUDA(cudaMemcpy(x, host.data(), bytes, cudaMemcpyDefault));
    char m[96];
    // The sum.
    T got = 0;
    bool ok = true;
    // Managed memory is placed before each call, outside the timing.
    std::vector<double> t;
    A::gpu_sum(x, n, &got);  // warm-up
    for (int r = 0; r < REPS; ++r) {
      place(k, x, bytes);
      double t0 = now_us();
      adn_status st = A::gpu_sum(x, n, &got);
      t.push_back(now_us() - t0);
      ok = ok && st == ADN_OK && memcmp(&got, &want, sizeof(T)) == 0;
    }
    std::sort(t.begin(), t.end());
    snprintf(m, sizeof m, "sum_%s", kind_name[k]);
    row("reprosum", m, ty, n, t[t.size() / 2], ok);
    // Its baseline: a plain read of memory the device can read (device, managed), or the
    // copy of host memory to the device (pinned, pageable) that any GPU sum of it needs.
    t.clear();
    for (int r = 0; r < REPS; ++r) {
      place(k, x, bytes);
      double t0 = now_us();
      if (k == PINNED || k == PAGEABLE) {
        CUDA(cudaMemcpy(dev_scratch, x, bytes, cudaMemcpyHostToDevice));
      } else {
        CUDA(cudaMemset(dsum, 0, sizeof(T)));
        plain_sum(x, (long long)n, dsum, sms);
        T h;
        CUDA(cudaMemcpy(&h, dsum, sizeof(T), cudaMemcpyDeviceToHost));
      }
      t.push_back(now_us() - t0);
    }
    std::sort(t.begin(), t.end());
    snprintf(m, sizeof m, "%s_%s", (k == PINNED || k == PAGEABLE) ? "h2d_copy" : "plain_read_sum", kind_name[k]);
    row("baseline", m, ty, n, t[t.size() / 2], true);
    // The cumulative sum (output in the same kind: the library's rule).
    t.clear();
    ok = true;
    for (int r = 0; r < REPS; ++r) {
      place(k, x, bytes);
      place(k, out, bytes);
      double t0 = now_us();
      adn_status st = A::gpu_cumsum(x, out, n);
      t.push_back(now_us() - t0);
      ok = ok && st == ADN_OK;
    }
    CUDA(cudaMemcpy(got_c.data(), out, bytes, cudaMemcpyDefault));
    ok = ok && memcmp(got_c.data(), want_c.data(), bytes) == 0;
    std::sort(t.begin(), t.end());
    snprintf(m, sizeof m, "cumsum_%s", kind_name[k]);
    row("reprosum", m, ty, n, t[t.size() / 2], ok);
    if (k == PINNED || k == PAGEABLE) {
      t.clear();
      for (int r = 0; r < REPS; ++r) {
        double t0 = now_us();
        CUDA(cudaMemcpy(dev_scratch, x, bytes, cudaMemcpyHostToDevice));
        CUDA(cudaMemcpy(out, dev_scratch, bytes, cudaMemcpyDeviceToHost));
        t.push_back(now_us() - t0);
      }
      std::sort(t.begin(), t.end());
      snprintf(m, sizeof m, "h2d_d2h_copy_%s", kind_name[k]);
      row("baseline", m, ty, n, t[t.size() / 2], true);
    }
    release(k, x);
    release(k, out);
  }
  CUDA(cudaFree(dev_scratch));
  CUDA(cudaFree(dsum));
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    printf("SKIP memory_kinds: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp p;
  CUDA(cudaGetDeviceProperties(&p, 0));
  sms = p.multiProcessorCount;
  printf("# device 0: %s, %d SMs; %d reps, median\n", p.name, sms, REPS);
  for (int i = 1; i < argc; ++i) {
    size_t n = (size_t)strtod(argv[i], nullptr);
    if (n == 0) {
      fprintf(stderr, "usage: memory_kinds N...\n");
      return 2;
    }
    run<Api64>(n);
    run<Api32>(n);
  }
  return 0;
}
