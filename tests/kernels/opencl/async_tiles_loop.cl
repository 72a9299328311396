//pass
//--local_size=64 --num_groups=8
// Tiles copied in a loop: each iteration's wait completes its copy before the tile is read,
// and the barrier ends the reads before the next iteration's copy.
__kernel void tiles(__global const int *in, __global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  int acc = 0;
  for (int i = 0; i < 4; i++) {
    event_t e = async_work_group_copy(tile, in + (get_group_id(0) * 4 + i) * 64, 64, 0);
    wait_group_events(1, &e);
    acc += tile[63 - l];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = acc;
}
