// What the reprosum-side GPU benches (segmented.cu, segcumsum.cu, memory_kinds.cu,
// fixed_costs.cu) share: a CUDA error check that exits, and the timing of a call (one
// warm-up, then the median of `reps` calls on the host clock, each call synchronising
// itself).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA(x)                                                                            \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(2);                                                                             \
    }                                                                                      \
  } while (0)

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The median of `reps` timed calls of f, after one untimed call.
template <typename F>
static double median_us(int reps, F f) {
  std::vector<double> t;
  f();  // warm-up
  for (int r = 0; r < reps; ++r) {
    double t0 = now_us();
    f();
    t.push_back(now_us() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
