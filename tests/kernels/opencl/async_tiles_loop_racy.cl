//xfail:data-race
//--local_size=64 --num_groups=8
// The racy twin of async_tiles_loop.cl: without the barrier, the next iteration's copy
// overwrites the tile while other work-items still read it (the wait orders only copies).
__kernel void tiles(__global const int *in, __global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  int acc = 0;
  for (int i = 0; i < 4; i++) {
    event_t e = async_work_group_copy(tile, in + (get_group_id(0) * 4 + i) * 64, 64, 0);
    wait_group_events(1, &e);
    acc += tile[63 - l];
  }
  out[get_global_id(0)] = acc;
}
