/* AutoSync's CUDA prelude, part: warp intrinsics, bit operations and cached loads (written for AutoSync).
 * Read only by files that name one of the functions it declares (kpl/frontend/clang.py
 * chooses the parts by the identifiers of the kernel's file), so that clang's AST stays small. */
#pragma once
/* ------------------------------------------------------------------ warp intrinsics */
#define __AS_SHFL(T)                                                                    \
  __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = 32);     \
  __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32); \
  __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32); \
  __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = 32); \
  __device__ T __shfl(T var, int srcLane, int width = 32);                              \
  __device__ T __shfl_up(T var, unsigned int delta, int width = 32);                    \
  __device__ T __shfl_down(T var, unsigned int delta, int width = 32);                  \
  __device__ T __shfl_xor(T var, int laneMask, int width = 32);
__AS_SHFL(int)
__AS_SHFL(unsigned int)
__AS_SHFL(long)
__AS_SHFL(unsigned long)
__AS_SHFL(long long)
__AS_SHFL(unsigned long long)
__AS_SHFL(float)
__AS_SHFL(double)
#undef __AS_SHFL
extern "C" {
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ unsigned int __ballot(int predicate);
__device__ int __any(int predicate);
__device__ int __all(int predicate);
__device__ unsigned int __activemask(void);
__device__ unsigned int __match_any_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __lanemask_lt(void);
__device__ int __popc(unsigned int x);
__device__ int __popcll(unsigned long long x);
__device__ int __clz(int x);
__device__ int __clzll(long long x);
__device__ int __ffs(int x);
__device__ int __ffsll(long long x);
__device__ unsigned int __brev(unsigned int x);
__device__ int __mul24(int x, int y);
__device__ unsigned int __umul24(unsigned int x, unsigned int y);
__device__ int __mulhi(int x, int y);
__device__ unsigned int __umulhi(unsigned int x, unsigned int y);
__device__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s);
__device__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift);
__device__ int __float_as_int(float x);
__device__ unsigned int __float_as_uint(float x);
__device__ float __int_as_float(int x);
__device__ float __uint_as_float(unsigned int x);
__device__ long long __double_as_longlong(double x);
__device__ double __longlong_as_double(long long x);
__device__ long long clock64(void);
__device__ int clock(void);
}

/* __ldg and friends read memory: given bodies, so the read is an access like any other */
template <typename T> __device__ __forceinline__ T __ldg(const T *p) { return *p; }
template <typename T> __device__ __forceinline__ T __ldcg(const T *p) { return *p; }
template <typename T> __device__ __forceinline__ T __ldca(const T *p) { return *p; }
template <typename T> __device__ __forceinline__ T __ldcs(const T *p) { return *p; }
template <typename T> __device__ __forceinline__ T __ldlu(const T *p) { return *p; }
template <typename T> __device__ __forceinline__ void __stcg(T *p, T v) { *p = v; }
template <typename T> __device__ __forceinline__ void __stcs(T *p, T v) { *p = v; }
template <typename T> __device__ __forceinline__ void __stwt(T *p, T v) { *p = v; }

