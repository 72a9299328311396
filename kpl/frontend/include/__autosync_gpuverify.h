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
__device__ bool __implies(bool a, bool b);
__device__ bool __read_implies(const void *p, bool expr);
__device__ bool __write_implies(const void *p, bool expr);
__device__ unsigned __read_offset_bytes(const void *p);
__device__ unsigned __write_offset_bytes(const void *p);
__device__ bool __read(const void *p);
__device__ bool __write(const void *p);
__device__ bool __no_read(const void *p);
__device__ bool __no_write(const void *p);
__device__ bool __same_group_impl(void);
__device__ bool __enabled(void);
__device__ int __other_int(int x);
__device__ bool __other_bool(bool x);
__device__ bool __uniform_int(int x);
__device__ bool __uniform_bool(bool x);
__device__ bool __distinct_int(int x);
__device__ bool __distinct_bool(bool x);
__device__ bool __at_most_one(bool x);
__device__ unsigned __ptr_offset_bytes(const void *p);
__device__ const void *__ptr_base(const void *p);
__device__ inline bool __is_pow2(unsigned x) { return x != 0 && (x & (x - 1)) == 0; }
__device__ int __return_val_int(void);
__device__ bool __return_val_bool(void);
__device__ float __return_val_float(void);
#ifndef __same_group
#define __same_group __same_group_impl()
#endif
