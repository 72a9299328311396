/* AutoSync's OpenCL C prelude, part: writing images (written for AutoSync).  Bodiless: the
 * translator makes each call a write of the pixel, in global memory named after the image
 * parameter (kpl/frontend/opencl_builtins.py); a read_write image is refused there. */
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
