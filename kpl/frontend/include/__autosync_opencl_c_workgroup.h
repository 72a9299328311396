/* AutoSync's OpenCL C prelude, part: the OpenCL 2.0 work-group and sub-group collectives
 * (written for AutoSync).  kpl/frontend/opencl_builtins.py models a work-group function as a
 * point every work-item must reach (a barrier that orders no memory: the specification
 * promises no fence) with a result new at each call -- the same in every work-item for all,
 * any, broadcast and reduce, its own for a scan.  Sub-group functions are values. */
#pragma once
#define __AS_CLWG(T) \
  T __attribute__((overloadable)) work_group_broadcast(T a, size_t x); \
  T __attribute__((overloadable)) work_group_broadcast(T a, size_t x, size_t y); \
  T __attribute__((overloadable)) work_group_broadcast(T a, size_t x, size_t y, size_t z); \
  T __attribute__((overloadable)) work_group_reduce_add(T x); \
  T __attribute__((overloadable)) work_group_reduce_min(T x); \
  T __attribute__((overloadable)) work_group_reduce_max(T x); \
  T __attribute__((overloadable)) work_group_scan_exclusive_add(T x); \
  T __attribute__((overloadable)) work_group_scan_exclusive_min(T x); \
  T __attribute__((overloadable)) work_group_scan_exclusive_max(T x); \
  T __attribute__((overloadable)) work_group_scan_inclusive_add(T x); \
  T __attribute__((overloadable)) work_group_scan_inclusive_min(T x); \
  T __attribute__((overloadable)) work_group_scan_inclusive_max(T x); \
  T __attribute__((overloadable)) sub_group_broadcast(T a, uint id); \
  T __attribute__((overloadable)) sub_group_reduce_add(T x); \
  T __attribute__((overloadable)) sub_group_reduce_min(T x); \
  T __attribute__((overloadable)) sub_group_reduce_max(T x); \
  T __attribute__((overloadable)) sub_group_scan_exclusive_add(T x); \
  T __attribute__((overloadable)) sub_group_scan_exclusive_min(T x); \
  T __attribute__((overloadable)) sub_group_scan_exclusive_max(T x); \
  T __attribute__((overloadable)) sub_group_scan_inclusive_add(T x); \
  T __attribute__((overloadable)) sub_group_scan_inclusive_min(T x); \
  T __attribute__((overloadable)) sub_group_scan_inclusive_max(T x);
__AS_CLWG(int) __AS_CLWG(uint) __AS_CLWG(long) __AS_CLWG(ulong) __AS_CLWG(float) __AS_CLWG(double)
#undef __AS_CLWG
int work_group_all(int predicate);
int work_group_any(int predicate);
int sub_group_all(int predicate);
int sub_group_any(int predicate);
