//pass
//--local_size=32 --num_groups=8 --only-intra-group
// Work-items of different groups write the same cells (a race between groups only), and
// GPUVerify's option asks for races inside a group alone.
__kernel void share(__global int *cells) {
  cells[get_local_id(0)] = (int)get_group_id(0);
}
