/* AutoSync's declarations of CUDA's bfloat16 (written for AutoSync from the public API, not
 * taken from CUDA): structs of raw bits and functions WITHOUT bodies, modelled as pure
 * functions of their arguments (kpl/frontend/library.py). */
#pragma once
#include <cuda_fp16.h>

struct __align__(2) __nv_bfloat16 { unsigned short __x; __device__ __host__ operator float() const; };
struct __align__(4) __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef struct __nv_bfloat16 nv_bfloat16;
typedef struct __nv_bfloat162 nv_bfloat162;

extern "C++" {
__device__ __host__ __nv_bfloat16 __float2bfloat16(float a);
__device__ __host__ __nv_bfloat16 __float2bfloat16_rn(float a);
__device__ __host__ __nv_bfloat16 __double2bfloat16(double a);
__device__ __host__ float __bfloat162float(__nv_bfloat16 a);
__device__ __host__ __nv_bfloat162 __float2bfloat162_rn(float a);
__device__ __host__ __nv_bfloat162 __floats2bfloat162_rn(float a, float b);
__device__ __host__ __nv_bfloat162 __float22bfloat162_rn(float2 a);
__device__ __host__ float2 __bfloat1622float2(__nv_bfloat162 a);
__device__ __host__ float __low2float(__nv_bfloat162 a);
__device__ __host__ float __high2float(__nv_bfloat162 a);
__device__ __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a);
__device__ __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a);
__device__ __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a);
__device__ __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 lo, __nv_bfloat16 hi);
__device__ __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c);
__device__ __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hneg(__nv_bfloat16 a);
__device__ __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b);
__device__ __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b);
__device__ __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b);
__device__ __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c);
__device__ __nv_bfloat16 hexp(__nv_bfloat16 a);
__device__ __nv_bfloat16 hsqrt(__nv_bfloat16 a);
__device__ __nv_bfloat16 hrsqrt(__nv_bfloat16 a);
__device__ __nv_bfloat162 h2exp(__nv_bfloat162 a);
__device__ __nv_bfloat162 h2sqrt(__nv_bfloat162 a);
#define __AS_BOPS(T)                                                                   \
  __device__ T operator+(const T &a, const T &b); __device__ T operator-(const T &a, const T &b); \
  __device__ T operator*(const T &a, const T &b); __device__ T operator/(const T &a, const T &b); \
  __device__ T operator-(const T &a);                                                  \
  __device__ bool operator==(const T &a, const T &b); __device__ bool operator!=(const T &a, const T &b); \
  __device__ bool operator<(const T &a, const T &b); __device__ bool operator<=(const T &a, const T &b); \
  __device__ bool operator>(const T &a, const T &b); __device__ bool operator>=(const T &a, const T &b);
__AS_BOPS(__nv_bfloat16)
__AS_BOPS(__nv_bfloat162)
#undef __AS_BOPS
__device__ inline __nv_bfloat16 &operator+=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { a = a + b; return a; }
__device__ inline __nv_bfloat16 &operator*=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { a = a * b; return a; }
__device__ inline __nv_bfloat162 &operator+=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { a = a + b; return a; }
__device__ inline __nv_bfloat162 &operator*=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { a = a * b; return a; }
}
