//pass
//--local_size=64 --num_groups=8
// The race-free twin of async_refill_racy.cl: a barrier ends the reads of the first tile
// before the second copy; each wait completes its copy for the whole group.
__kernel void refill(__global const int *in, __global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  event_t e = async_work_group_copy(tile, in, 64, 0);
  wait_group_events(1, &e);
  int a = tile[63 - l];
  barrier(CLK_LOCAL_MEM_FENCE);
  e = async_work_group_copy(tile, in + 64, 64, 0);
  wait_group_events(1, &e);
  out[get_global_id(0)] = a + tile[l];
}
