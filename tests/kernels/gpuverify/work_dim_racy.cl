//xfail:NOT_ALL_VERIFIED
//--local_size=[8] --num_groups=2
// Written with one size: get_work_dim() is 1, and every work-item writes cell 0.
__kernel void plane(__global int *cells) {
  size_t i = get_work_dim() == 2 ? get_global_id(1) * 16 + get_global_id(0) : 0;
  cells[i] = (int)get_global_id(0);
}
