//xfail:data-race
//--local_size=[8,8] --num_groups=[2,2]
// The racy twin of image_write.cl: every work-item of a row writes the row's first pixel,
// with values that differ.
__kernel void invert(read_only image2d_t src, write_only image2d_t dst) {
  int2 at = (int2)(get_global_id(0), get_global_id(1));
  uint4 p = read_imageui(src, at);
  write_imageui(dst, (int2)(0, at.y), (uint4)(255) - p);
}
