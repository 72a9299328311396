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
bool __implies(bool a, bool b);
#define __AS_CLGVP(R, name) \
  R __attribute__((overloadable)) name(const __global void *p); \
  R __attribute__((overloadable)) name(const __local void *p);
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
#undef __AS_CLGVP
#undef __AS_CLGVPE
bool __same_group_impl(void);
bool __enabled(void);
int __other_int(int x);
bool __other_bool(bool x);
bool __uniform_int(int x);
bool __uniform_bool(bool x);
bool __distinct_int(int x);
bool __distinct_bool(bool x);
bool __at_most_one(bool x);
inline bool __is_pow2(unsigned x) { return x != 0 && (x & (x - 1)) == 0; }
int __return_val_int(void);
bool __return_val_bool(void);
float __return_val_float(void);
#ifndef __same_group
#define __same_group __same_group_impl()
#endif
