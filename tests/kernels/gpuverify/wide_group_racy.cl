//xfail:NOT_ALL_VERIFIED
//--local_size=64,32 --num_groups=2
// The same rows without the barrier.
__kernel void rows(__local int *tile, __global int *out) {
  size_t me = get_local_id(1) * 64 + get_local_id(0);
  tile[me] = (int)me;
  out[get_group_id(0) * 2048 + me] = tile[2047 - me];
}
