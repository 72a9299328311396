/* AutoSync's OpenCL C prelude, part: the work-group's asynchronous copies (written for
 * AutoSync).  kpl/frontend/opencl.py models a copy as the group reading its source and writing
 * its destination at the call, and wait_group_events as a work-group barrier. */
#pragma once
#define __AS_CLASYNC(T) \
  event_t __attribute__((overloadable)) async_work_group_copy(__local T *dst, const __global T *src, size_t n, event_t e); \
  event_t __attribute__((overloadable)) async_work_group_copy(__global T *dst, const __local T *src, size_t n, event_t e); \
  event_t __attribute__((overloadable)) async_work_group_strided_copy(__local T *dst, const __global T *src, size_t n, size_t stride, event_t e); \
  event_t __attribute__((overloadable)) async_work_group_strided_copy(__global T *dst, const __local T *src, size_t n, size_t stride, event_t e);
__AS_CLASYNC(char) __AS_CLASYNC(uchar) __AS_CLASYNC(short) __AS_CLASYNC(ushort) __AS_CLASYNC(int)
__AS_CLASYNC(uint) __AS_CLASYNC(long) __AS_CLASYNC(ulong) __AS_CLASYNC(float) __AS_CLASYNC(double)
__AS_CLASYNC(float2) __AS_CLASYNC(float4) __AS_CLASYNC(int2) __AS_CLASYNC(int4)
#undef __AS_CLASYNC
void wait_group_events(int n, event_t *events);
