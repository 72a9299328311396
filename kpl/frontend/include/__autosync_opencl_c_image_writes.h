/* AutoSync's OpenCL C prelude, part: writing images (written for AutoSync).  Declared so that
 * a kernel writing an image gets a clear "unsupported" error (kpl/frontend/calls.py,
 * HEADER_FAMILY) rather than clang's "undeclared identifier": AutoSync does not model image
 * memory, so it cannot tell whether two writes (or a write and a read) race. */
#pragma once
#define __AS_CLIMGW(T, C) \
  void __attribute__((overloadable)) write_imagef(T, C, float4); \
  void __attribute__((overloadable)) write_imagei(T, C, int4); \
  void __attribute__((overloadable)) write_imageui(T, C, uint4);
__AS_CLIMGW(write_only image2d_t, int2) __AS_CLIMGW(write_only image3d_t, int4)
__AS_CLIMGW(write_only image1d_t, int)
#if __OPENCL_C_VERSION__ >= 200
__AS_CLIMGW(read_write image2d_t, int2) __AS_CLIMGW(read_write image3d_t, int4)
__AS_CLIMGW(read_write image1d_t, int)
#endif
#undef __AS_CLIMGW
