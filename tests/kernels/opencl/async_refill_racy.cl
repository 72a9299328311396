//xfail:data-race
//--local_size=64 --num_groups=8
// A second copy into the tile overwrites elements other work-items are still reading: the
// first wait completed the first copy, not the plain reads of its result.
__kernel void refill(__global const int *in, __global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  event_t e = async_work_group_copy(tile, in, 64, 0);
  wait_group_events(1, &e);
  int a = tile[63 - l];
  e = async_work_group_copy(tile, in + 64, 64, 0);
  wait_group_events(1, &e);
  out[get_global_id(0)] = a + tile[l];
}
