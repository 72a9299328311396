/* AutoSync's OpenCL C prelude, part: reading images (written for AutoSync).  An image and a
 * sampler are opaque handles to the front end (kpl/frontend/types.py); a read is a pure
 * function of the handle and the coordinates (kpl/frontend/calls.py, VALUE_HEADERS): the
 * kernel writes no image -- write_image* is not declared here, so a kernel that writes one
 * is refused -- so no read can race (as for CUDA's textures, an image is taken not to share
 * memory with a buffer the kernel writes).  The sampler flags' values are ours (any distinct
 * constants do: only the host driver reads them). */
#pragma once
#define CLK_NORMALIZED_COORDS_FALSE 0
#define CLK_NORMALIZED_COORDS_TRUE 1
#define CLK_ADDRESS_NONE 0
#define CLK_ADDRESS_CLAMP_TO_EDGE 2
#define CLK_ADDRESS_CLAMP 4
#define CLK_ADDRESS_REPEAT 6
#define CLK_ADDRESS_MIRRORED_REPEAT 8
#define CLK_FILTER_NEAREST 16
#define CLK_FILTER_LINEAR 32
#define __AS_CLIMG(R, name) \
  R __attribute__((overloadable)) name(read_only image2d_t, sampler_t, float2); \
  R __attribute__((overloadable)) name(read_only image2d_t, sampler_t, int2); \
  R __attribute__((overloadable)) name(read_only image2d_t, int2); \
  R __attribute__((overloadable)) name(read_only image3d_t, sampler_t, float4); \
  R __attribute__((overloadable)) name(read_only image3d_t, sampler_t, int4); \
  R __attribute__((overloadable)) name(read_only image3d_t, int4); \
  R __attribute__((overloadable)) name(read_only image1d_t, sampler_t, float); \
  R __attribute__((overloadable)) name(read_only image1d_t, sampler_t, int); \
  R __attribute__((overloadable)) name(read_only image1d_t, int);
__AS_CLIMG(float4, read_imagef)
__AS_CLIMG(int4, read_imagei)
__AS_CLIMG(uint4, read_imageui)
#undef __AS_CLIMG
#define __AS_CLIMGQ(T) \
  int __attribute__((overloadable)) get_image_width(read_only T); \
  int __attribute__((overloadable)) get_image_height(read_only T);
__AS_CLIMGQ(image2d_t) __AS_CLIMGQ(image3d_t)
#undef __AS_CLIMGQ
int __attribute__((overloadable)) get_image_depth(read_only image3d_t);
