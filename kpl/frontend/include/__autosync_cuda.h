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

/* ------------------------------------------------------------------ host side: launches */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
typedef enum cudaError cudaError_t;
extern "C" cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0,
                                         cudaStream_t stream = 0);
