// reprosum GPU portability header.
//
// The kernel text in reprosum.cu uses only what this header maps, so that one source
// compiles with nvcc (CUDA), with hipcc (HIP) and as plain C++ on the CPU (with a shim
// that the includer provides before including this file; see the RS_HOST_SHIM branch).
//
// What the kernels use: thread/block indices and dimensions, block barriers, dynamic
// shared memory, 32- and 64-bit integer atomic adds (global and shared memory), 32-bit
// atomic maximum and or (shared memory), 64-bit compare-and-swap (shared memory),
// device-wide fences, volatile loads, 16-byte vector loads and stores, bit casts,
// count-leading-zeros, round-to-nearest IEEE add/sub/mul and double-to-float conversion
// (no division: on AMD it compiles to FMAs). They use NO warp shuffles, ballots,
// warp-synchronous code or warp-size assumptions: correctness cannot depend on the warp
// width (32 on NVIDIA and RDNA, 64 on CDNA). No CUB, no cooperative groups, no inline assembly.
//
// Arithmetic: every floating-point operation in the deposit, renormalisation, merge and
// conversion goes through rs_add / rs_sub / rs_mul, which are the explicit
// round-to-nearest-even intrinsics on CUDA and HIP (never contracted into an FMA), and
// plain operators under the host shim (compiled with -ffp-contract=off). Build flags:
// nvcc -fmad=false -ftz=false -prec-div=true -prec-sqrt=true; hipcc -ffp-contract=off,
// no -ffast-math, no denormal flushing.
#ifndef REPROSUM_PORTABLE_H
#define REPROSUM_PORTABLE_H

#if defined(__CUDACC__) || defined(__HIPCC__)

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

#define RS_KERNEL extern "C" __global__
// Launch bounds of a kernel (between `void` and its name): at most `threads` per block, and
// registers few enough for `blocks` such blocks per multiprocessor. CUDA only: HIP keeps
// its defaults (the code objects are unchanged).
#if defined(__HIPCC__)
#define RS_BOUNDS(threads, blocks)
#else
#define RS_BOUNDS(threads, blocks) __launch_bounds__(threads, blocks)
#endif
#define RS_DEV static __device__ __forceinline__
// A member function (a constructor, an accessor) of a device-side struct.
#define RS_MEMBER __device__ __forceinline__
#define RS_TID ((unsigned)threadIdx.x)
#define RS_BID ((unsigned long long)blockIdx.x)
#define RS_BDIM ((unsigned)blockDim.x)
#define RS_GDIM ((unsigned long long)gridDim.x)
#define RS_SYNC() __syncthreads()
#define RS_FENCE() __threadfence()
#define RS_ATOMIC_ADD_U32(ptr, v) atomicAdd((ptr), (v))
// 64-bit atomic add (global or shared memory; the keyed sums' counts and cursors).
#define RS_ATOMIC_ADD_U64(ptr, v) atomicAdd((ptr), (v))
// 64-bit compare-and-swap in shared memory, giving the old word (the keyed sums' tables).
#define RS_ATOMIC_CAS_U64(ptr, cmp, v) atomicCAS((ptr), (cmp), (v))
// 32-bit atomic maximum and bitwise or in shared memory (the keyed sums' windows and flags).
#define RS_ATOMIC_MAX_U32(ptr, v) atomicMax((ptr), (v))
#define RS_ATOMIC_OR_U32(ptr, v) atomicOr((ptr), (v))
// Dynamic shared memory: one raw array, carved by offset (aligned to 16 bytes).
#define RS_DYN_SHARED(name) extern __shared__ __align__(16) unsigned char name[]

typedef unsigned long long rs_u64;
typedef unsigned int rs_u32;
typedef long long rs_i64;

RS_DEV double rs_add(double a, double b) { return __dadd_rn(a, b); }
RS_DEV double rs_sub(double a, double b) { return __dsub_rn(a, b); }
RS_DEV double rs_mul(double a, double b) { return __dmul_rn(a, b); }
RS_DEV float rs_add(float a, float b) { return __fadd_rn(a, b); }
RS_DEV float rs_sub(float a, float b) { return __fsub_rn(a, b); }
RS_DEV float rs_mul(float a, float b) { return __fmul_rn(a, b); }
RS_DEV float rs_d2f(double a) { return __double2float_rn(a); }

RS_DEV rs_u64 rs_bits(double x) { return (rs_u64)__double_as_longlong(x); }
RS_DEV rs_u32 rs_bits(float x) { return __float_as_uint(x); }
RS_DEV double rs_from_bits(rs_u64 b) { return __longlong_as_double((long long)b); }
RS_DEV float rs_from_bits(rs_u32 b) { return __uint_as_float(b); }
RS_DEV int rs_clz(rs_u64 x) { return __clzll((long long)x); }
RS_DEV int rs_clz(rs_u32 x) { return __clz((int)x); }
// 16-byte vector loads (the pointer is 16-byte aligned).
RS_DEV void rs_ld16(const double* p, double (&v)[2]) {
  double2 t = *reinterpret_cast<const double2*>(p);
  v[0] = t.x; v[1] = t.y;
}
RS_DEV void rs_ld16(const float* p, float (&v)[4]) {
  float4 t = *reinterpret_cast<const float4*>(p);
  v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
}
// 16-byte vector stores (the pointer is 16-byte aligned).
RS_DEV void rs_st16(double* p, const double (&v)[2]) {
  *reinterpret_cast<double2*>(p) = make_double2(v[0], v[1]);
}
RS_DEV void rs_st16(float* p, const float (&v)[4]) {
  *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
}

#elif defined(RS_HOST_SHIM)

// CPU build: the includer defines RS_KERNEL, RS_DEV, RS_TID, RS_BID, RS_BDIM, RS_GDIM,
// RS_SYNC, RS_FENCE, RS_ATOMIC_ADD_U32, RS_ATOMIC_ADD_U64, RS_ATOMIC_CAS_U64, RS_ATOMIC_MAX_U32,
// RS_ATOMIC_OR_U32 and RS_DYN_SHARED for its thread model, then
// includes this file, which supplies the arithmetic (with -ffp-contract=off).
#include <cstdint>
#include <cstring>
#ifndef RS_MEMBER
#define RS_MEMBER inline
#endif
#ifndef RS_BOUNDS
#define RS_BOUNDS(threads, blocks)
#endif
typedef unsigned long long rs_u64;
typedef unsigned int rs_u32;
typedef long long rs_i64;
RS_DEV double rs_add(double a, double b) { return a + b; }
RS_DEV double rs_sub(double a, double b) { return a - b; }
RS_DEV double rs_mul(double a, double b) { return a * b; }
RS_DEV float rs_add(float a, float b) { return a + b; }
RS_DEV float rs_sub(float a, float b) { return a - b; }
RS_DEV float rs_mul(float a, float b) { return a * b; }
RS_DEV float rs_d2f(double a) { return (float)a; }
RS_DEV rs_u64 rs_bits(double x) { rs_u64 b; std::memcpy(&b, &x, 8); return b; }
RS_DEV rs_u32 rs_bits(float x) { rs_u32 b; std::memcpy(&b, &x, 4); return b; }
RS_DEV double rs_from_bits(rs_u64 b) { double x; std::memcpy(&x, &b, 8); return x; }
RS_DEV float rs_from_bits(rs_u32 b) { float x; std::memcpy(&x, &b, 4); return x; }
RS_DEV int rs_clz(rs_u64 x) { return x ? __builtin_clzll(x) : 64; }
RS_DEV int rs_clz(rs_u32 x) { return x ? __builtin_clz(x) : 32; }
// A vector access at an address that is not 16-byte aligned faults on a GPU: here it traps.
RS_DEV void rs_check16(const void* p) { if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) __builtin_trap(); }
RS_DEV void rs_ld16(const double* p, double (&v)[2]) { rs_check16(p); v[0] = p[0]; v[1] = p[1]; }
RS_DEV void rs_ld16(const float* p, float (&v)[4]) { rs_check16(p); for (int i = 0; i < 4; ++i) v[i] = p[i]; }
RS_DEV void rs_st16(double* p, const double (&v)[2]) { rs_check16(p); p[0] = v[0]; p[1] = v[1]; }
RS_DEV void rs_st16(float* p, const float (&v)[4]) { rs_check16(p); for (int i = 0; i < 4; ++i) p[i] = v[i]; }

#else
#error "reprosum portable.h: compile with nvcc, hipcc, or define RS_HOST_SHIM"
#endif

#endif // REPROSUM_PORTABLE_H
