//xfail:NOT_ALL_VERIFIED
//--local_size=32 --num_groups=8
// The same writes, every race checked.
__kernel void share(__global int *cells) {
  cells[get_local_id(0)] = (int)get_group_id(0);
}
