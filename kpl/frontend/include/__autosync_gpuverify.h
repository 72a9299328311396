/* GPUVerify's annotation functions, declared for every kernel as GPUVerify does (its own
 * header is included automatically), so a kernel written for GPUVerify needs no include.
 * Written for AutoSync.  They have no bodies: kpl/frontend/annotations.py gives each its
 * meaning.  A kernel's own annotations.h may declare them again with the same types. */
#pragma once
__device__ void __requires(bool expr);
__device__ void __global_requires(bool expr);
__device__ void __ensures(bool expr);
__device__ void __assert(bool expr);
__device__ void __global_assert(bool expr);
__device__ void __assume(bool expr);
__device__ void __invariant(bool expr);
__device__ void __global_invariant(bool expr);
__device__ void __candidate_invariant(bool expr);
__device__ void __candidate_global_invariant(bool expr);
__device__ void __function_wide_invariant(bool expr);
__device__ void __function_wide_candidate_invariant(bool expr);
__device__ void __global_ensures(bool expr);
__device__ void __requires_fresh_array(const volatile void *p);
__device__ void __writes_to(const volatile void *p);
__device__ void __reads_from(const volatile void *p);
__device__ bool __atomic_has_taken_value(const volatile void *p, unsigned offset, unsigned value);
__device__ bool __exclusive(bool x);
/* a barrier invariant: checked at the barrier that follows (its instantiations name the
 * threads GPUVerify assumes it for after the barrier; AutoSync does not assume it) */
__device__ void __barrier_invariant(bool expr);
__device__ void __barrier_invariant_binary(bool expr);
__device__ bool __implies(bool a, bool b);
__device__ bool __read_implies(const volatile void *p, bool expr);
__device__ bool __write_implies(const volatile void *p, bool expr);
__device__ unsigned __read_offset_bytes(const volatile void *p);
__device__ unsigned __write_offset_bytes(const volatile void *p);
__device__ bool __read(const volatile void *p);
__device__ bool __write(const volatile void *p);
__device__ bool __no_read(const volatile void *p);
__device__ bool __no_write(const volatile void *p);
__device__ bool __same_group_impl(void);
__device__ bool __enabled(void);
__device__ int __other_int(int x);
__device__ bool __other_bool(bool x);
__device__ bool __uniform_int(int x);
__device__ bool __uniform_bool(bool x);
__device__ bool __distinct_int(int x);
__device__ bool __distinct_bool(bool x);
__device__ bool __at_most_one(bool x);
__device__ unsigned __ptr_offset_bytes(const volatile void *p);
__device__ const void *__ptr_base(const volatile void *p);
__device__ inline bool __is_pow2(unsigned x) { return x != 0 && (x & (x - 1)) == 0; }
__device__ int __return_val_int(void);
__device__ bool __return_val_bool(void);
__device__ float __return_val_float(void);
/* a value when the function was entered (in an __ensures of its contract) */
__device__ int __old_int(int x);
__device__ bool __old_bool(bool x);
__device__ float __old_float(float x);
__device__ void *__return_val_ptr(void);
#define __AS_GVRET(T, name) __device__ T name(void);
__AS_GVRET(int2, __return_val_int2) __AS_GVRET(int3, __return_val_int3)
__AS_GVRET(int4, __return_val_int4) __AS_GVRET(uint2, __return_val_uint2)
__AS_GVRET(uint3, __return_val_uint3) __AS_GVRET(uint4, __return_val_uint4)
__AS_GVRET(float2, __return_val_float2) __AS_GVRET(float3, __return_val_float3)
__AS_GVRET(float4, __return_val_float4)
#undef __AS_GVRET
/* GPUVerify's sum with no overflow: the sum, assumed not to overflow its type; and the
 * predicate form: the arguments' sum does not overflow */
#define __AS_GVADD(T, name) __device__ T name(T x, T y); \
  __device__ bool __add_noovfl(T x, T y); __device__ bool __add_noovfl(T x, T y, T z); \
  __device__ bool __add_noovfl(T x, T y, T z, T w);
__AS_GVADD(char, __add_noovfl_char) __AS_GVADD(unsigned char, __add_noovfl_unsigned_char)
__AS_GVADD(short, __add_noovfl_short) __AS_GVADD(unsigned short, __add_noovfl_unsigned_short)
__AS_GVADD(int, __add_noovfl_int) __AS_GVADD(unsigned int, __add_noovfl_unsigned_int)
__AS_GVADD(long long, __add_noovfl_long) __AS_GVADD(unsigned long long, __add_noovfl_unsigned_long)
#undef __AS_GVADD
#include "__autosync_gpuverify_macros.h"
/* uninterpreted functions: no body, a value that depends only on the arguments */
#define DECLARE_UF_UNARY(f, T1, R) __device__ R __uninterpreted_function_##f(T1); \
  __device__ inline R f(T1 a) { return __uninterpreted_function_##f(a); }
#define DECLARE_UF_BINARY(f, T1, T2, R) __device__ R __uninterpreted_function_##f(T1, T2); \
  __device__ inline R f(T1 a, T2 b) { return __uninterpreted_function_##f(a, b); }
#define DECLARE_UF_TERNARY(f, T1, T2, T3, R) \
  __device__ R __uninterpreted_function_##f(T1, T2, T3); \
  __device__ inline R f(T1 a, T2 b, T3 c) { return __uninterpreted_function_##f(a, b, c); }
#ifndef __same_group
#define __same_group __same_group_impl()
#endif
