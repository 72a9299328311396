//pass
//--local_size=[8,8] --num_groups=[2,2]
// Each work-item writes its own pixel of the output image, from a read-only input image.
__kernel void invert(read_only image2d_t src, write_only image2d_t dst) {
  int2 at = (int2)(get_global_id(0), get_global_id(1));
  uint4 p = read_imageui(src, at);
  write_imageui(dst, at, (uint4)(255) - p);
}
