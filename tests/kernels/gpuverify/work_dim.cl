//pass
//--local_size=8,4 --num_groups=2
// Written with two sizes: get_work_dim() is 2, and the work-item uses both ids.
__kernel void plane(__global int *cells) {
  size_t i = get_work_dim() == 2 ? get_global_id(1) * 16 + get_global_id(0) : 0;
  cells[i] = (int)get_global_id(0);
}
