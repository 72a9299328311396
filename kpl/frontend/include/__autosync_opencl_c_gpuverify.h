/* AutoSync's OpenCL C prelude, part: GPUVerify's annotation functions for OpenCL C kernels
 * (written for AutoSync; the CUDA twin is __autosync_gpuverify.h).  No bodies:
 * kpl/frontend/annotations.py gives each its meaning.  The pointer-taking ones are declared
 * once per address space (OpenCL C 1.2 has no generic pointers). */
#pragma once
void __requires(bool expr);
void __global_requires(bool expr);
void __ensures(bool expr);
void __assert(bool expr);
void __global_assert(bool expr);
void __assume(bool expr);
void __invariant(bool expr);
void __global_invariant(bool expr);
void __candidate_invariant(bool expr);
void __candidate_global_invariant(bool expr);
void __function_wide_invariant(bool expr);
void __function_wide_candidate_invariant(bool expr);
void __global_ensures(bool expr);
/* a barrier invariant: checked at the barrier that follows (its instantiations name the
 * threads GPUVerify assumes it for after the barrier; AutoSync does not assume it) */
void __barrier_invariant(bool expr);
void __barrier_invariant_binary(bool expr);
bool __implies(bool a, bool b);
#define __AS_CLGVP(R, name) \
  R __attribute__((overloadable)) name(const __global void *p); \
  R __attribute__((overloadable)) name(const __local void *p);
#define __AS_CLGVPV(name) \
  void __attribute__((overloadable)) name(const __global void *p); \
  void __attribute__((overloadable)) name(const __local void *p);
#define __AS_CLGVPE(name) \
  bool __attribute__((overloadable)) name(const __global void *p, bool expr); \
  bool __attribute__((overloadable)) name(const __local void *p, bool expr);
__AS_CLGVPE(__read_implies)
__AS_CLGVPE(__write_implies)
__AS_CLGVP(unsigned, __read_offset_bytes)
__AS_CLGVP(unsigned, __write_offset_bytes)
__AS_CLGVP(bool, __read)
__AS_CLGVP(bool, __write)
__AS_CLGVP(bool, __no_read)
__AS_CLGVP(bool, __no_write)
__AS_CLGVP(unsigned, __ptr_offset_bytes)
__AS_CLGVPV(__requires_fresh_array)
__AS_CLGVPV(__writes_to)
__AS_CLGVPV(__reads_from)
bool __attribute__((overloadable)) __atomic_has_taken_value(const __global void *p, unsigned off,
                                                           unsigned value);
bool __attribute__((overloadable)) __atomic_has_taken_value(const __local void *p, unsigned off,
                                                           unsigned value);
#undef __AS_CLGVP
#undef __AS_CLGVPE
#undef __AS_CLGVPV
bool __same_group_impl(void);
bool __enabled(void);
int __other_int(int x);
bool __other_bool(bool x);
bool __uniform_int(int x);
bool __uniform_bool(bool x);
bool __distinct_int(int x);
bool __distinct_bool(bool x);
bool __at_most_one(bool x);
bool __all(bool x);
bool __exclusive(bool x);
inline bool __is_pow2(unsigned x) { return x != 0 && (x & (x - 1)) == 0; }
int __return_val_int(void);
bool __return_val_bool(void);
float __return_val_float(void);
/* a value when the function was entered (in an __ensures of its contract) */
int __old_int(int x);
bool __old_bool(bool x);
float __old_float(float x);
void *__return_val_ptr(void);
#define __AS_GVRET(T, name) T name(void);
__AS_GVRET(int2, __return_val_int2) __AS_GVRET(int3, __return_val_int3) __AS_GVRET(int4, __return_val_int4)
__AS_GVRET(int8, __return_val_int8) __AS_GVRET(int16, __return_val_int16) __AS_GVRET(uint2, __return_val_uint2)
__AS_GVRET(uint3, __return_val_uint3) __AS_GVRET(uint4, __return_val_uint4) __AS_GVRET(uint8, __return_val_uint8)
__AS_GVRET(uint16, __return_val_uint16) __AS_GVRET(float2, __return_val_float2) __AS_GVRET(float3, __return_val_float3)
__AS_GVRET(float4, __return_val_float4) __AS_GVRET(float8, __return_val_float8) __AS_GVRET(float16, __return_val_float16)
#undef __AS_GVRET
/* GPUVerify's sum with no overflow: the sum, assumed not to overflow its type; and the
 * predicate form: the arguments' sum does not overflow */
#define __AS_GVADD(T, name) T __attribute__((overloadable)) name(T x, T y); \
  bool __attribute__((overloadable)) __add_noovfl(T x, T y); \
  bool __attribute__((overloadable)) __add_noovfl(T x, T y, T z); \
  bool __attribute__((overloadable)) __add_noovfl(T x, T y, T z, T w);
__AS_GVADD(char, __add_noovfl_char) __AS_GVADD(uchar, __add_noovfl_unsigned_char)
__AS_GVADD(short, __add_noovfl_short) __AS_GVADD(ushort, __add_noovfl_unsigned_short)
__AS_GVADD(int, __add_noovfl_int) __AS_GVADD(uint, __add_noovfl_unsigned_int)
__AS_GVADD(long, __add_noovfl_long) __AS_GVADD(ulong, __add_noovfl_unsigned_long)
#undef __AS_GVADD
#include "__autosync_gpuverify_macros.h"
/* uninterpreted functions: no body, a value that depends only on the arguments */
#define DECLARE_UF_UNARY(f, T1, R) R __uninterpreted_function_##f(T1); \
  inline R f(T1 a) { return __uninterpreted_function_##f(a); }
#define DECLARE_UF_BINARY(f, T1, T2, R) R __uninterpreted_function_##f(T1, T2); \
  inline R f(T1 a, T2 b) { return __uninterpreted_function_##f(a, b); }
#define DECLARE_UF_TERNARY(f, T1, T2, T3, R) R __uninterpreted_function_##f(T1, T2, T3); \
  inline R f(T1 a, T2 b, T3 c) { return __uninterpreted_function_##f(a, b, c); }
#ifndef __same_group
#define __same_group __same_group_impl()
#endif
