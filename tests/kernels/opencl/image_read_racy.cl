//xfail:data-race
//--local_size=[8,8] --num_groups=[4,4]
// The racy twin of image_read.cl: without the barrier the reversed read of the tile races
// with its write.
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void shade(__global float *dst, read_only image2d_t img, __local float *tile) {
  const sampler_t near = CLK_NORMALIZED_COORDS_FALSE | CLK_FILTER_NEAREST;
  int x = get_global_id(0), y = get_global_id(1);
  float4 c = read_imagef(img, near, (float2)(x + 0.5f, y + 0.5f));
  uint4 d = read_imageui(img, edge, (int2)(x, y));
  int4 e = read_imagei(img, (int2)(x, y));
  size_t l = get_local_id(1) * 8 + get_local_id(0);
  tile[l] = c.x + d.y + e.z + get_image_width(img);
  dst[y * 32 + x] = tile[63 - l];
}
