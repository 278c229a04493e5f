// What a call that launches several kernels costs beyond the plain read-only sum, with no
// work in the extra kernels: the floor of any segmented sum that checks device offsets before
// it writes (issue 17). Timed as segmented.cu times its plain read (a memset of the result,
// the kernels, the result copied back; median of REPS calls after a warm-up), on the same
// kind of data (values uniform in [0, 1) in device memory):
//   plain            the plain read-only sum (plain_sum.cuh)
//   plain+E          E empty kernels queued before it (E = 1..4; the segmented sum queues
//                    four kernels beside the one that reads the values)
//   plain+prep       a kernel that checks 1e4-average segment offsets in device memory (no
//                    offset below the one before, the last the length) and finds each tile's
//                    first segment (tiles of 1024 positions), as rs_seg_prep does, before it
//   plain+prep+3E    that, and three empty kernels (the segmented sum's shape: prep, list,
//                    short groups, long groups, join)
//   pdl_*            plain, plain+prep+3E and plain+prep with every kernel launched with
//                    programmatic stream serialization (sm_90: each kernel lets the next one
//                    launch at once, then waits for the ones before it to finish)
//   plain_again      the plain sum again, last (the spread of the rows)
// Rows: who,method,type,N,median_us,G_elements_per_s,check (as the other GPU benches).
// Not reproducible; nothing here is reprosum's code. Build and run on a machine with a GPU:
//   nvcc -O3 -std=c++17 -arch=sm_90 gpu/benches/fixed_costs.cu -o fixed_costs
//   ./fixed_costs 1e8 1e9      (built for and run on sm_90: the pdl_* rows need it)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_timing.cuh"
#include "plain_sum.cuh"

static const int REPS = 11;

template <typename T>
__global__ void fill(T* x, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long z = i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
    x[i] = (T)((z >> 11) * (1.0 / 9007199254740992.0));
  }
}

__global__ void empty_kernel() {}

// The same kernels for launches with programmatic stream serialization (PDL, sm_90): each
// lets the next kernel launch at once, then waits for the ones before it to finish.
__device__ __forceinline__ void pdl_enter() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
#endif
}
__global__ void empty_pdl() { pdl_enter(); }

// err[0] = 1 for a bad offset; first[t] = the last segment that begins at or before t * tile.
template <bool PDL>
__global__ void prep(const unsigned long long* off, unsigned long long nseg, unsigned long long n,
                     unsigned long long tile, unsigned long long ntiles, unsigned long long* first,
                     unsigned* err) {
  if (PDL) pdl_enter();
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  const unsigned long long id = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  for (unsigned long long g = id; g < nseg; g += step) {
    const unsigned long long b = off[g], e = off[g + 1];
    if (e < b || (g == 0 && b != 0) || (g + 1 == nseg && e != n)) err[0] = 1u;
  }
  for (unsigned long long t = id; t < ntiles; t += step) {
    const unsigned long long p = t * tile;
    unsigned long long lo = 0, hi = nseg;
    while (hi - lo > 1) {
      const unsigned long long mid = lo + (hi - lo) / 2;
      if (off[mid] <= p) lo = mid; else hi = mid;
    }
    first[t] = lo;
  }
}

// Launches f<<<grid, block>>>(args...) with programmatic stream serialization.
template <typename... P, typename... A>
static void launch_pdl(void (*f)(P...), unsigned grid, unsigned block, A... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  CUDA(cudaLaunchKernelEx(&cfg, f, args...));
}

template <typename T>
static void run(size_t n, int sms, const char* ty) {
  T* x;
  CUDA(cudaMalloc(&x, n * sizeof(T)));
  fill<<<sms * 8, 256>>>(x, n);
  // Segments of lengths uniform in 0..2e4, as segmented.cu's seg_avg10000.
  std::vector<unsigned long long> off{0};
  unsigned long long s = 12345 + 10000;
  while (off.back() < n) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    off.push_back(std::min<unsigned long long>(n, off.back() + s % 20001));
  }
  const unsigned long long nseg = off.size() - 1, tile = 1024, ntiles = (n + tile - 1) / tile;
  unsigned long long *doff, *first;
  CUDA(cudaMalloc(&doff, off.size() * 8));
  CUDA(cudaMemcpy(doff, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
  CUDA(cudaMalloc(&first, ntiles * 8));
  // The sum, then the error words, in one buffer: one memset, one copy back.
  T* acc;
  CUDA(cudaMalloc(&acc, 16 + sizeof(T)));
  unsigned* err = reinterpret_cast<unsigned*>(reinterpret_cast<char*>(acc) + 8);
  CUDA(cudaDeviceSynchronize());
  struct Res { T v; unsigned e; };
  const unsigned pgrid = (unsigned)std::min<unsigned long long>((std::max(nseg, ntiles) + 255) / 256, sms * 8);
  // pdl: every kernel launched with programmatic stream serialization.
  auto call = [&](int empties, bool with_prep, Res* r, bool pdl = false) {
    CUDA(cudaMemsetAsync(acc, 0, 16));
    if (pdl) {
      if (with_prep) launch_pdl(prep<true>, pgrid, 256, (const unsigned long long*)doff, nseg, (unsigned long long)n, tile, ntiles, first, err);
      for (int e = 0; e < empties; ++e) launch_pdl(empty_pdl, sms * 4, 256);
      launch_pdl(plain_sum_kernel<T, typename PlainVec<T>::type, PlainVec<T>::W, true>, sms * 4, 512, (const T*)x, (long long)n, acc);
    } else {
      if (with_prep) prep<false><<<pgrid, 256>>>(doff, nseg, n, tile, ntiles, first, err);
      for (int e = 0; e < empties; ++e) empty_kernel<<<sms * 4, 256>>>();
      plain_sum(x, (long long)n, acc, sms);
    }
    unsigned char h[16];
    CUDA(cudaMemcpy(h, acc, 16, cudaMemcpyDeviceToHost));
    memcpy(&r->v, h, sizeof(T));
    memcpy(&r->e, h + 8, 4);
  };
  Res r0{}, r{};
  // The plain sum's atomics add the blocks' sums in any order: equal to a relative 1e-9
  // (f64) or 1e-3 (f32), as segmented.cu checks it.
  const double tol = sizeof(T) == 8 ? 1e-9 : 1e-3;
  auto good = [&](const Res& a, bool errs) {
    const double d = (double)a.v - (double)r0.v;
    return (d < 0 ? -d : d) <= tol * (double)r0.v && (!errs || a.e == 0);
  };
  const double plain = median_us(REPS, [&] { call(0, false, &r0); });
  printf("baseline,plain,%s,%zu,%.2f,%.2f,ok\n", ty, n, plain, n / plain / 1e3);
  for (int e = 1; e <= 4; ++e) {
    const double us = median_us(REPS, [&] { call(e, false, &r); });
    printf("baseline,plain+%dE,%s,%zu,%.2f,%.2f,%s\n", e, ty, n, us, n / us / 1e3, good(r, false) ? "ok" : "WRONG");
  }
  const double p = median_us(REPS, [&] { call(0, true, &r); });
  printf("baseline,plain+prep,%s,%zu,%.2f,%.2f,%s\n", ty, n, p, n / p / 1e3, good(r, true) ? "ok" : "WRONG");
  const double p3 = median_us(REPS, [&] { call(3, true, &r); });
  printf("baseline,plain+prep+3E,%s,%zu,%.2f,%.2f,%s\n", ty, n, p3, n / p3 / 1e3, good(r, true) ? "ok" : "WRONG");
  // The same with programmatic stream serialization.
  const double q0 = median_us(REPS, [&] { call(0, false, &r, true); });
  printf("baseline,pdl_plain,%s,%zu,%.2f,%.2f,%s\n", ty, n, q0, n / q0 / 1e3, good(r, false) ? "ok" : "WRONG");
  const double q3 = median_us(REPS, [&] { call(3, true, &r, true); });
  printf("baseline,pdl_plain+prep+3E,%s,%zu,%.2f,%.2f,%s\n", ty, n, q3, n / q3 / 1e3, good(r, true) ? "ok" : "WRONG");
  const double q1 = median_us(REPS, [&] { call(0, true, &r, true); });
  printf("baseline,pdl_plain+prep,%s,%zu,%.2f,%.2f,%s\n", ty, n, q1, n / q1 / 1e3, good(r, true) ? "ok" : "WRONG");
  // The plain sum again, last: the spread of the rows above.
  const double again = median_us(REPS, [&] { call(0, false, &r); });
  printf("baseline,plain_again,%s,%zu,%.2f,%.2f,%s\n", ty, n, again, n / again / 1e3, good(r, false) ? "ok" : "WRONG");
  printf("# %s %zu: plain / (plain+prep+3E) = %.1f%% (plain again: %.1f%%); with PDL %.1f%% (again %.1f%%)\n", ty, n,
         100.0 * plain / p3, 100.0 * again / p3, 100.0 * plain / q3, 100.0 * again / q3);
  fflush(stdout);
  CUDA(cudaFree(x));
  CUDA(cudaFree(doff));
  CUDA(cudaFree(first));
  CUDA(cudaFree(acc));
}

int main(int argc, char** argv) {
  int sms = 0;
  CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CUDA(cudaGetDeviceProperties(&prop, 0));
  printf("# %s, %d SMs\n", prop.name, sms);
  for (int a = 1; a < argc; ++a) {
    const size_t n = (size_t)atof(argv[a]);
    run<double>(n, sms, "f64");
    run<float>(n, sms, "f32");
  }
  return 0;
}
