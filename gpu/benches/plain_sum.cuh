// The plain read-only sum every GPU bench measures reprosum against (cub_baselines.cu,
// segmented.cu, memory_kinds.cu): 16-byte loads, four per thread and step, per-thread sums,
// a block reduction, one atomic per block. Not reproducible; it measures the read ceiling.
#pragma once
#include <cuda_runtime.h>

// PDL: launched with programmatic stream serialization (fixed_costs.cu): the kernel lets the
// next one launch at once and waits for the kernels before it before it reads or writes.
template <typename T, typename V, int W, bool PDL = false>
__global__ void plain_sum_kernel(const T* x, long long n, T* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (PDL) {
    cudaTriggerProgrammaticLaunchCompletion();
    cudaGridDependencySynchronize();
  }
#endif
  __shared__ T sh[1024];
  T acc = 0;
  const long long nv = n / W;
  const V* xv = reinterpret_cast<const V*>(x);
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < nv; i += 4 * stride) {
    V a = xv[i], b = xv[i + stride], c = xv[i + 2 * stride], d = xv[i + 3 * stride];
    const T* pa = reinterpret_cast<const T*>(&a);
    const T* pb = reinterpret_cast<const T*>(&b);
    const T* pc = reinterpret_cast<const T*>(&c);
    const T* pd = reinterpret_cast<const T*>(&d);
#pragma unroll
    for (int k = 0; k < W; ++k) acc += pa[k] + pb[k] + pc[k] + pd[k];
  }
  for (; i < nv; i += stride) {
    V a = xv[i];
    const T* pa = reinterpret_cast<const T*>(&a);
#pragma unroll
    for (int k = 0; k < W; ++k) acc += pa[k];
  }
  for (long long j = nv * W + blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n; j += stride) acc += x[j];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, sh[0]);
}

// The 16-byte vector each type is read by, and its values per vector.
template <typename T> struct PlainVec;
template <> struct PlainVec<double> { typedef double2 type; static const int W = 2; };
template <> struct PlainVec<float> { typedef float4 type; static const int W = 4; };

// Launches the plain read-only sum of n values at x (16-byte aligned) into *out (which the
// caller zeroes first): 4 blocks of 512 threads per multiprocessor.
template <typename T>
static inline void plain_sum(const T* x, long long n, T* out, int sms) {
  plain_sum_kernel<T, typename PlainVec<T>::type, PlainVec<T>::W><<<sms * 4, 512>>>(x, n, out);
}
