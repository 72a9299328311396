/* AutoSync's OpenCL C prelude: read by clang before every OpenCL C kernel (``-x cl``,
 * kpl/frontend/clang.py), instead of clang's own opencl-c.h (``-cl-no-stdinc``).
 *
 * Written for AutoSync.  It declares what OpenCL C device code may use without an include:
 * the scalar and vector type names, the work-item functions, barriers and fences, and the
 * sub-group functions.  As in the CUDA prelude, a function declared here WITHOUT a body is
 * modelled by the translator (kpl/frontend/opencl.py says how); the others parts
 * (atomics, math, asynchronous copies) are read only by files that name something in them.
 */
#pragma once

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
#ifndef NULL
#define NULL ((void *)0)
#endif
#define true 1
#define false 0
#define CHAR_BIT 8
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 0xffffffffU
#define FLT_MAX 0x1.fffffep127f
#define FLT_MIN 0x1.0p-126f
#define FLT_EPSILON 0x1.0p-23f
#define MAXFLOAT FLT_MAX
#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define M_PI_F 3.14159274101257f
#define M_PI 3.141592653589793

/* ------------------------------------------------------------------ vector types */
#define __AS_CLVEC(T, N) \
  typedef T N##2 __attribute__((ext_vector_type(2))); \
  typedef T N##3 __attribute__((ext_vector_type(3))); \
  typedef T N##4 __attribute__((ext_vector_type(4))); \
  typedef T N##8 __attribute__((ext_vector_type(8))); \
  typedef T N##16 __attribute__((ext_vector_type(16)));
__AS_CLVEC(char, char)
__AS_CLVEC(uchar, uchar)
__AS_CLVEC(short, short)
__AS_CLVEC(ushort, ushort)
__AS_CLVEC(int, int)
__AS_CLVEC(uint, uint)
__AS_CLVEC(long, long)
__AS_CLVEC(ulong, ulong)
__AS_CLVEC(float, float)
__AS_CLVEC(double, double)
#undef __AS_CLVEC

/* ------------------------------------------------------------------ work-items */
#define __AS_CL __attribute__((overloadable))
uint get_work_dim(void);
size_t get_global_size(uint dim);
size_t get_global_id(uint dim);
size_t get_local_size(uint dim);
size_t get_enqueued_local_size(uint dim);
size_t get_local_id(uint dim);
size_t get_num_groups(uint dim);
size_t get_group_id(uint dim);
size_t get_global_offset(uint dim);
size_t get_global_linear_id(void);
size_t get_local_linear_id(void);

/* ------------------------------------------------------------------ barriers and fences */
typedef uint cl_mem_fence_flags;
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define CLK_IMAGE_MEM_FENCE 4
typedef enum memory_scope {
  memory_scope_work_item = __OPENCL_MEMORY_SCOPE_WORK_ITEM,
  memory_scope_work_group = __OPENCL_MEMORY_SCOPE_WORK_GROUP,
  memory_scope_device = __OPENCL_MEMORY_SCOPE_DEVICE,
  memory_scope_all_svm_devices = __OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES,
  memory_scope_all_devices = __OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES,
  memory_scope_sub_group = __OPENCL_MEMORY_SCOPE_SUB_GROUP
} memory_scope;
typedef enum memory_order {
  memory_order_relaxed = __ATOMIC_RELAXED,
  memory_order_acquire = __ATOMIC_ACQUIRE,
  memory_order_release = __ATOMIC_RELEASE,
  memory_order_acq_rel = __ATOMIC_ACQ_REL,
  memory_order_seq_cst = __ATOMIC_SEQ_CST
} memory_order;
void barrier(cl_mem_fence_flags flags);
void __AS_CL work_group_barrier(cl_mem_fence_flags flags);
void __AS_CL work_group_barrier(cl_mem_fence_flags flags, memory_scope scope);
void __AS_CL sub_group_barrier(cl_mem_fence_flags flags);
void __AS_CL sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope);
void mem_fence(cl_mem_fence_flags flags);
void read_mem_fence(cl_mem_fence_flags flags);
void write_mem_fence(cl_mem_fence_flags flags);
void __AS_CL atomic_work_item_fence(cl_mem_fence_flags flags, memory_order order, memory_scope scope);

/* ------------------------------------------------------------------ vector loads and stores */
/* vloadN / vstoreN: N consecutive elements (kpl/frontend/opencl_builtins.py); here, not in a
 * part, because their names are made by the macro */
#define __AS_CLVLS(T, N) \
  T##N __attribute__((overloadable)) vload##N(size_t offset, const __global T *p); \
  T##N __attribute__((overloadable)) vload##N(size_t offset, const __local T *p); \
  T##N __attribute__((overloadable)) vload##N(size_t offset, const __constant T *p); \
  void __attribute__((overloadable)) vstore##N(T##N data, size_t offset, __global T *p); \
  void __attribute__((overloadable)) vstore##N(T##N data, size_t offset, __local T *p);
#define __AS_CLVL(T) __AS_CLVLS(T, 2) __AS_CLVLS(T, 3) __AS_CLVLS(T, 4)
__AS_CLVL(float) __AS_CLVL(int) __AS_CLVL(uint)
#undef __AS_CLVL
#undef __AS_CLVLS

/* ------------------------------------------------------------------ output */
int printf(__constant const char *restrict format, ...);

/* ------------------------------------------------------------------ sub-groups */
uint get_sub_group_size(void);
uint get_max_sub_group_size(void);
uint get_num_sub_groups(void);
uint get_enqueued_num_sub_groups(void);
uint get_sub_group_id(void);
uint get_sub_group_local_id(void);
