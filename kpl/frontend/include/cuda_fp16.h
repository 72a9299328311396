/* AutoSync's declarations of CUDA's half precision (written for AutoSync from the public API,
 * not taken from CUDA).  __half and __half2 are structs of raw bits; every function is
 * declared WITHOUT a body, so the translator models it as a pure function of its arguments
 * (a value the verifier knows nothing about); the conversion to float is such a function of
 * the object (kpl/frontend/library.py).  No function here touches memory. */
#pragma once

struct __align__(2) __half { unsigned short __x; __device__ __host__ operator float() const; };
struct __align__(4) __half2 { __half x, y; };
typedef struct __half half;
typedef struct __half2 half2;
typedef struct __half __nv_half;
typedef struct __half2 __nv_half2;

extern "C++" {
/* conversions */
__device__ __host__ __half __float2half(float a);
__device__ __host__ __half __float2half_rn(float a);
__device__ __host__ __half __float2half_rz(float a);
__device__ __host__ float __half2float(__half a);
__device__ __host__ __half __double2half(double a);
__device__ __host__ __half2 __float2half2_rn(float a);
__device__ __host__ __half2 __floats2half2_rn(float a, float b);
__device__ __host__ __half2 __float22half2_rn(float2 a);
__device__ __host__ float2 __half22float2(__half2 a);
__device__ __host__ float __low2float(__half2 a);
__device__ __host__ float __high2float(__half2 a);
__device__ __half __low2half(__half2 a);
__device__ __half __high2half(__half2 a);
__device__ __half2 __half2half2(__half a);
__device__ __half2 __halves2half2(__half lo, __half hi);
__device__ __half2 __low2half2(__half2 a);
__device__ __half2 __high2half2(__half2 a);
__device__ __half2 __lows2half2(__half2 a, __half2 b);
__device__ __half2 __highs2half2(__half2 a, __half2 b);
__device__ __half2 __lowhigh2highlow(__half2 a);
__device__ __half __int2half_rn(int a);
__device__ __half __uint2half_rn(unsigned int a);
__device__ __half __short2half_rn(short a);
__device__ int __half2int_rn(__half a);
__device__ int __half2int_rz(__half a);
__device__ unsigned int __half2uint_rn(__half a);
__device__ short __half_as_short(__half a);
__device__ unsigned short __half_as_ushort(__half a);
__device__ __half __short_as_half(short a);
__device__ __half __ushort_as_half(unsigned short a);
__device__ __half __shfl_sync(unsigned int mask, __half var, int srcLane, int width = 32);
__device__ __half __shfl_down_sync(unsigned int mask, __half var, unsigned int delta, int width = 32);
__device__ __half __shfl_xor_sync(unsigned int mask, __half var, int laneMask, int width = 32);
__device__ __half2 __shfl_sync(unsigned int mask, __half2 var, int srcLane, int width = 32);
__device__ __half2 __shfl_down_sync(unsigned int mask, __half2 var, unsigned int delta, int width = 32);
__device__ __half2 __shfl_xor_sync(unsigned int mask, __half2 var, int laneMask, int width = 32);

/* arithmetic, comparisons and functions */
#define __AS_H2(T, F) __device__ T F(T a, T b);
#define __AS_H1(T, F) __device__ T F(T a);
#define __AS_HB(T, R, F) __device__ R F(T a, T b);
__AS_H2(__half, __hadd) __AS_H2(__half, __hsub) __AS_H2(__half, __hmul) __AS_H2(__half, __hdiv)
__AS_H2(__half, __hadd_sat) __AS_H2(__half, __hmul_sat) __AS_H2(__half, __hmax) __AS_H2(__half, __hmin)
__AS_H2(__half2, __hadd2) __AS_H2(__half2, __hsub2) __AS_H2(__half2, __hmul2) __AS_H2(__half2, __h2div)
__AS_H2(__half2, __hadd2_sat) __AS_H2(__half2, __hmul2_sat) __AS_H2(__half2, __hmax2) __AS_H2(__half2, __hmin2)
__AS_H1(__half, __hneg) __AS_H1(__half, __habs) __AS_H1(__half2, __hneg2) __AS_H1(__half2, __habs2)
__AS_H1(__half, hexp) __AS_H1(__half, hexp2) __AS_H1(__half, hexp10) __AS_H1(__half, hlog)
__AS_H1(__half, hlog2) __AS_H1(__half, hlog10) __AS_H1(__half, hsqrt) __AS_H1(__half, hrsqrt)
__AS_H1(__half, hrcp) __AS_H1(__half, hsin) __AS_H1(__half, hcos) __AS_H1(__half, hfloor)
__AS_H1(__half, hceil) __AS_H1(__half, htrunc) __AS_H1(__half, hrint)
__AS_H1(__half2, h2exp) __AS_H1(__half2, h2exp2) __AS_H1(__half2, h2exp10) __AS_H1(__half2, h2log)
__AS_H1(__half2, h2log2) __AS_H1(__half2, h2log10) __AS_H1(__half2, h2sqrt) __AS_H1(__half2, h2rsqrt)
__AS_H1(__half2, h2rcp) __AS_H1(__half2, h2sin) __AS_H1(__half2, h2cos) __AS_H1(__half2, h2floor)
__AS_H1(__half2, h2ceil) __AS_H1(__half2, h2trunc) __AS_H1(__half2, h2rint)
__AS_HB(__half, bool, __heq) __AS_HB(__half, bool, __hne) __AS_HB(__half, bool, __hlt)
__AS_HB(__half, bool, __hle) __AS_HB(__half, bool, __hgt) __AS_HB(__half, bool, __hge)
__AS_HB(__half2, __half2, __heq2) __AS_HB(__half2, __half2, __hne2) __AS_HB(__half2, __half2, __hlt2)
__AS_HB(__half2, __half2, __hle2) __AS_HB(__half2, __half2, __hgt2) __AS_HB(__half2, __half2, __hge2)
__AS_HB(__half2, bool, __hbeq2) __AS_HB(__half2, bool, __hblt2) __AS_HB(__half2, bool, __hbgt2)
__device__ __half __hfma(__half a, __half b, __half c);
__device__ __half2 __hfma2(__half2 a, __half2 b, __half2 c);
__device__ __half __hfma_sat(__half a, __half b, __half c);
__device__ bool __hisnan(__half a);
__device__ bool __hisinf(__half a);
__device__ __half2 __hisnan2(__half2 a);

/* operators (pure functions of their operands) */
#define __AS_HOPS(T)                                                                   \
  __device__ T operator+(const T &a, const T &b); __device__ T operator-(const T &a, const T &b); \
  __device__ T operator*(const T &a, const T &b); __device__ T operator/(const T &a, const T &b); \
  __device__ T operator-(const T &a); __device__ T operator+(const T &a);              \
  __device__ bool operator==(const T &a, const T &b); __device__ bool operator!=(const T &a, const T &b); \
  __device__ bool operator<(const T &a, const T &b); __device__ bool operator<=(const T &a, const T &b); \
  __device__ bool operator>(const T &a, const T &b); __device__ bool operator>=(const T &a, const T &b);
__AS_HOPS(__half)
__AS_HOPS(__half2)
#undef __AS_HOPS
/* compound assignments: with bodies, so the store is an assignment like any other */
__device__ inline __half &operator+=(__half &a, const __half &b) { a = a + b; return a; }
__device__ inline __half &operator-=(__half &a, const __half &b) { a = a - b; return a; }
__device__ inline __half &operator*=(__half &a, const __half &b) { a = a * b; return a; }
__device__ inline __half &operator/=(__half &a, const __half &b) { a = a / b; return a; }
__device__ inline __half2 &operator+=(__half2 &a, const __half2 &b) { a = a + b; return a; }
__device__ inline __half2 &operator-=(__half2 &a, const __half2 &b) { a = a - b; return a; }
__device__ inline __half2 &operator*=(__half2 &a, const __half2 &b) { a = a * b; return a; }
__device__ inline __half2 &operator/=(__half2 &a, const __half2 &b) { a = a / b; return a; }
#undef __AS_H2
#undef __AS_H1
#undef __AS_HB
}
