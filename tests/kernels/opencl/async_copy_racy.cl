//xfail:data-race
//--local_size=64 --num_groups=8
// The racy twin of async_copy.cl: the tile is read before the copy is waited for.
__kernel void copy_reverse(__global const int *in, __global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  event_t e = async_work_group_copy(tile, in + get_group_id(0) * 64, 64, 0);
  out[get_global_id(0)] = tile[63 - l];
  wait_group_events(1, &e);
}
