/* AutoSync's CUDA prelude: read by clang before every kernel (kpl/frontend/clang.py).
 *
 * Written for AutoSync, not taken from CUDA or clang.  It declares what device code may use
 * without an include: the qualifiers, the built-in variables, vector types, barriers, fences,
 * atomics, warp intrinsics and the math library.  A function declared here WITHOUT a body is
 * modelled by the translator (kpl/frontend/models.py says how: a barrier, an atomic, a memory read,
 * or a pure function of its arguments); one WITH a body is inlined like user code.  A function
 * without a body that the user declares is an error: it is never silently ignored.
 */
#pragma once

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __device_builtin__
#define __builtin_align__(n) __align__(n)
#define __grid_constant__
#define __CUDACC__ 1
#define CUDART_VERSION 12000
#define __CUDA_API_VERSION 12000

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;
#ifndef NULL
#define NULL 0
#endif

/* ------------------------------------------------------------------ vector types */
#define __AS_VEC1(T, N, A) struct __align__(A) N##1 { T x; }; typedef struct N##1 N##1; \
  __device__ __host__ N##1 make_##N##1(T x);
#define __AS_VEC2(T, N, A) struct __align__(A) N##2 { T x, y; }; typedef struct N##2 N##2; \
  __device__ __host__ N##2 make_##N##2(T x, T y);
#define __AS_VEC3(T, N) struct N##3 { T x, y, z; }; typedef struct N##3 N##3; \
  __device__ __host__ N##3 make_##N##3(T x, T y, T z);
#define __AS_VEC4(T, N, A) struct __align__(A) N##4 { T x, y, z, w; }; typedef struct N##4 N##4; \
  __device__ __host__ N##4 make_##N##4(T x, T y, T z, T w);
#define __AS_VECS(T, N, S) __AS_VEC1(T, N, S) __AS_VEC2(T, N, 2 * S) __AS_VEC3(T, N) \
  __AS_VEC4(T, N, (4 * S > 16 ? 16 : 4 * S))
__AS_VECS(signed char, char, 1)
__AS_VECS(unsigned char, uchar, 1)
__AS_VECS(short, short, 2)
__AS_VECS(unsigned short, ushort, 2)
__AS_VECS(int, int, 4)
__AS_VECS(unsigned int, uint, 4)
__AS_VECS(long, long, 8)
__AS_VECS(unsigned long, ulong, 8)
__AS_VECS(long long, longlong, 8)
__AS_VECS(unsigned long long, ulonglong, 8)
__AS_VECS(float, float, 4)
__AS_VECS(double, double, 8)
#undef __AS_VEC1
#undef __AS_VEC2
#undef __AS_VEC3
#undef __AS_VEC4
#undef __AS_VECS

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
typedef struct dim3 dim3;

/* ------------------------------------------------------------------ built-in variables */
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

/* ------------------------------------------------------------------ barriers and fences */
extern "C" {
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ void __trap(void);
__device__ void __brkpt(void);
__device__ void __nanosleep(unsigned int ns);
}

/* ------------------------------------------------------------------ atomics */
#define __AS_ATOMIC_OPS(T)                                                   \
  __device__ T atomicAdd(T *address, T val);                                 \
  __device__ T atomicSub(T *address, T val);                                 \
  __device__ T atomicExch(T *address, T val);                                \
  __device__ T atomicMin(T *address, T val);                                 \
  __device__ T atomicMax(T *address, T val);                                 \
  __device__ T atomicAnd(T *address, T val);                                 \
  __device__ T atomicOr(T *address, T val);                                  \
  __device__ T atomicXor(T *address, T val);                                 \
  __device__ T atomicCAS(T *address, T compare, T val);                      \
  __device__ T atomicAdd_block(T *address, T val);                           \
  __device__ T atomicAdd_system(T *address, T val);                          \
  __device__ T atomicExch_block(T *address, T val);                          \
  __device__ T atomicCAS_block(T *address, T compare, T val);                \
  __device__ T atomicMin_block(T *address, T val);                           \
  __device__ T atomicMax_block(T *address, T val);
__AS_ATOMIC_OPS(int)
__AS_ATOMIC_OPS(unsigned int)
__AS_ATOMIC_OPS(unsigned long long)
__AS_ATOMIC_OPS(long long)
#undef __AS_ATOMIC_OPS
__device__ float atomicAdd(float *address, float val);
__device__ double atomicAdd(double *address, double val);
__device__ float atomicExch(float *address, float val);
__device__ float atomicAdd_block(float *address, float val);
__device__ float atomicMax(float *address, float val);
__device__ float atomicMin(float *address, float val);
__device__ unsigned int atomicInc(unsigned int *address, unsigned int val);
__device__ unsigned int atomicDec(unsigned int *address, unsigned int val);

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

/* ------------------------------------------------------------------ math (float and double) */
#define __AS_MATH1(F) extern "C" __device__ __host__ double F(double x); \
  extern "C" __device__ __host__ float F##f(float x);
#define __AS_MATH2(F) extern "C" __device__ __host__ double F(double x, double y); \
  extern "C" __device__ __host__ float F##f(float x, float y);
__AS_MATH1(sqrt) __AS_MATH1(rsqrt) __AS_MATH1(cbrt) __AS_MATH1(rcbrt) __AS_MATH1(exp)
__AS_MATH1(exp2) __AS_MATH1(exp10) __AS_MATH1(expm1) __AS_MATH1(log) __AS_MATH1(log2)
__AS_MATH1(log10) __AS_MATH1(log1p) __AS_MATH1(sin) __AS_MATH1(cos) __AS_MATH1(tan)
__AS_MATH1(asin) __AS_MATH1(acos) __AS_MATH1(atan) __AS_MATH1(sinh) __AS_MATH1(cosh)
__AS_MATH1(tanh) __AS_MATH1(asinh) __AS_MATH1(acosh) __AS_MATH1(atanh) __AS_MATH1(sinpi)
__AS_MATH1(cospi) __AS_MATH1(fabs) __AS_MATH1(floor) __AS_MATH1(ceil) __AS_MATH1(trunc)
__AS_MATH1(round) __AS_MATH1(rint) __AS_MATH1(nearbyint) __AS_MATH1(erf) __AS_MATH1(erfc)
__AS_MATH1(erfinv) __AS_MATH1(erfcinv) __AS_MATH1(lgamma) __AS_MATH1(tgamma)
__AS_MATH1(normcdf) __AS_MATH1(normcdfinv) __AS_MATH1(logb) __AS_MATH1(j0) __AS_MATH1(j1)
__AS_MATH1(y0) __AS_MATH1(y1)
__AS_MATH2(pow) __AS_MATH2(atan2) __AS_MATH2(fmod) __AS_MATH2(remainder) __AS_MATH2(fmin)
__AS_MATH2(fmax) __AS_MATH2(fdim) __AS_MATH2(hypot) __AS_MATH2(copysign) __AS_MATH2(nextafter)
#undef __AS_MATH1
#undef __AS_MATH2
extern "C" {
__device__ __host__ double fma(double x, double y, double z);
__device__ __host__ float fmaf(float x, float y, float z);
__device__ __host__ double ldexp(double x, int e);
__device__ __host__ float ldexpf(float x, int e);
__device__ __host__ double scalbn(double x, int e);
__device__ __host__ float scalbnf(float x, int e);
__device__ __host__ long lround(double x);
__device__ __host__ long lroundf(float x);
__device__ __host__ long long llround(double x);
__device__ __host__ long long llroundf(float x);
__device__ __host__ long lrint(double x);
__device__ __host__ long lrintf(float x);
__device__ __host__ int ilogb(double x);
__device__ __host__ int ilogbf(float x);
__device__ __host__ int abs(int x);
__device__ __host__ long labs(long x);
__device__ __host__ long long llabs(long long x);
__device__ __host__ int min(int a, int b);
__device__ __host__ int max(int a, int b);
__device__ __host__ unsigned int umin(unsigned int a, unsigned int b);
__device__ __host__ unsigned int umax(unsigned int a, unsigned int b);
__device__ __host__ long long llmin(long long a, long long b);
__device__ __host__ long long llmax(long long a, long long b);
__device__ __host__ unsigned long long ullmin(unsigned long long a, unsigned long long b);
__device__ __host__ unsigned long long ullmax(unsigned long long a, unsigned long long b);
__device__ __host__ int isnan(double x);
__device__ __host__ int isinf(double x);
__device__ __host__ int isfinite(double x);
__device__ __host__ int signbit(double x);
__device__ void sincosf(float x, float *s, float *c);
__device__ void sincos(double x, double *s, double *c);
__device__ float __fdividef(float x, float y);
__device__ float __expf(float x);
__device__ float __exp10f(float x);
__device__ float __logf(float x);
__device__ float __log2f(float x);
__device__ float __log10f(float x);
__device__ float __sinf(float x);
__device__ float __cosf(float x);
__device__ float __tanf(float x);
__device__ float __powf(float x, float y);
__device__ float __saturatef(float x);
__device__ float __frsqrt_rn(float x);
__device__ float __fsqrt_rn(float x);
__device__ float __frcp_rn(float x);
__device__ double __drcp_rn(double x);
__device__ float __fadd_rn(float x, float y);
__device__ float __fadd_rz(float x, float y);
__device__ float __fsub_rn(float x, float y);
__device__ float __fmul_rn(float x, float y);
__device__ float __fmul_rz(float x, float y);
__device__ float __fdiv_rn(float x, float y);
__device__ float __fmaf_rn(float x, float y, float z);
__device__ double __dadd_rn(double x, double y);
__device__ double __dmul_rn(double x, double y);
__device__ double __fma_rn(double x, double y, double z);
__device__ int __float2int_rn(float x);
__device__ int __float2int_rz(float x);
__device__ int __float2int_rd(float x);
__device__ int __float2int_ru(float x);
__device__ unsigned int __float2uint_rn(float x);
__device__ unsigned int __float2uint_rz(float x);
__device__ float __int2float_rn(int x);
__device__ float __uint2float_rn(unsigned int x);
__device__ int __double2int_rn(double x);
__device__ int __double2int_rz(double x);
__device__ float __double2float_rn(double x);
__device__ int __double2hiint(double x);
__device__ int __double2loint(double x);
__device__ double __hiloint2double(int hi, int lo);
}
/* the C++ overloads of the float versions, as nvcc's math headers give device code */
#define __AS_OVL1(F) __device__ __host__ inline float F(float x) { return F##f(x); }
#define __AS_OVL2(F) __device__ __host__ inline float F(float x, float y) { return F##f(x, y); }
__AS_OVL1(sqrt) __AS_OVL1(rsqrt) __AS_OVL1(cbrt) __AS_OVL1(exp) __AS_OVL1(exp2) __AS_OVL1(expm1)
__AS_OVL1(log) __AS_OVL1(log2) __AS_OVL1(log10) __AS_OVL1(log1p) __AS_OVL1(sin) __AS_OVL1(cos)
__AS_OVL1(tan) __AS_OVL1(asin) __AS_OVL1(acos) __AS_OVL1(atan) __AS_OVL1(sinh) __AS_OVL1(cosh)
__AS_OVL1(tanh) __AS_OVL1(fabs) __AS_OVL1(floor) __AS_OVL1(ceil) __AS_OVL1(trunc) __AS_OVL1(round)
__AS_OVL1(rint) __AS_OVL1(erf) __AS_OVL1(erfc) __AS_OVL1(lgamma) __AS_OVL1(tgamma)
__AS_OVL2(pow) __AS_OVL2(atan2) __AS_OVL2(fmod) __AS_OVL2(fmin) __AS_OVL2(fmax) __AS_OVL2(hypot)
__AS_OVL2(copysign)
#undef __AS_OVL1
#undef __AS_OVL2
__device__ __host__ inline float abs(float x) { return fabsf(x); }
__device__ __host__ inline double abs(double x) { return fabs(x); }
__device__ __host__ inline long long abs(long long x) { return llabs(x); }
__device__ __host__ inline float fma(float x, float y, float z) { return fmaf(x, y, z); }
__device__ __host__ inline float pow(float x, int y) { return powf(x, (float)y); }
__device__ __host__ inline double pow(double x, int y) { return pow(x, (double)y); }
__device__ __host__ inline unsigned int min(unsigned int a, unsigned int b) { return umin(a, b); }
__device__ __host__ inline unsigned int max(unsigned int a, unsigned int b) { return umax(a, b); }
__device__ __host__ inline unsigned int min(int a, unsigned int b) { return umin((unsigned int)a, b); }
__device__ __host__ inline unsigned int max(int a, unsigned int b) { return umax((unsigned int)a, b); }
__device__ __host__ inline unsigned int min(unsigned int a, int b) { return umin(a, (unsigned int)b); }
__device__ __host__ inline unsigned int max(unsigned int a, int b) { return umax(a, (unsigned int)b); }
__device__ __host__ inline long long min(long long a, long long b) { return llmin(a, b); }
__device__ __host__ inline long long max(long long a, long long b) { return llmax(a, b); }
__device__ __host__ inline unsigned long long min(unsigned long long a, unsigned long long b) { return ullmin(a, b); }
__device__ __host__ inline unsigned long long max(unsigned long long a, unsigned long long b) { return ullmax(a, b); }
__device__ __host__ inline float min(float a, float b) { return fminf(a, b); }
__device__ __host__ inline float max(float a, float b) { return fmaxf(a, b); }
__device__ __host__ inline double min(double a, double b) { return fmin(a, b); }
__device__ __host__ inline double max(double a, double b) { return fmax(a, b); }
__device__ __host__ inline double min(float a, double b) { return fmin((double)a, b); }
__device__ __host__ inline double max(float a, double b) { return fmax((double)a, b); }
__device__ __host__ inline double min(double a, float b) { return fmin(a, (double)b); }
__device__ __host__ inline double max(double a, float b) { return fmax(a, (double)b); }

/* ------------------------------------------------------------------ memory, printf, assert */
extern "C" {
__device__ __host__ void *memcpy(void *dst, const void *src, size_t n);
__device__ __host__ void *memset(void *dst, int value, size_t n);
__device__ __host__ int printf(const char *format, ...);
__device__ void *malloc(size_t n);
__device__ void free(void *p);
__host__ __device__ void __assertfail(const char *message, const char *file, unsigned int line,
                                      const char *function, size_t size);
}

/* ------------------------------------------------------------------ textures (read-only) */
enum cudaTextureReadMode { cudaReadModeElementType, cudaReadModeNormalizedFloat };
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
template <typename T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture { int normalized; int filterMode; int addressMode[3]; };
template <typename T> __device__ T tex1Dfetch(texture<T, 1, cudaReadModeElementType> t, int x);
template <typename T> __device__ T tex1D(texture<T, 1, cudaReadModeElementType> t, float x);
template <typename T> __device__ T tex2D(texture<T, 2, cudaReadModeElementType> t, float x, float y);
template <typename T> __device__ T tex3D(texture<T, 3, cudaReadModeElementType> t, float x, float y, float z);
template <typename T> __device__ float tex2D(texture<T, 2, cudaReadModeNormalizedFloat> t, float x, float y);
template <typename T> __device__ float tex1Dfetch(texture<T, 1, cudaReadModeNormalizedFloat> t, int x);
template <typename T> __device__ T tex1Dfetch(cudaTextureObject_t t, int x);
template <typename T> __device__ T tex1D(cudaTextureObject_t t, float x);
template <typename T> __device__ T tex2D(cudaTextureObject_t t, float x, float y);
template <typename T> __device__ T tex3D(cudaTextureObject_t t, float x, float y, float z);

/* ------------------------------------------------------------------ host side: launches */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
typedef enum cudaError cudaError_t;
extern "C" cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0,
                                         cudaStream_t stream = 0);
#include "__autosync_runtime.h"
#include "__autosync_gpuverify.h"
