//pass
//--local_size=32 --num_groups=4
// Two copies into one tile, a wait between them: the first is complete before the second
// starts.
__kernel void two_fills(__global const int *a, __global const int *b, __global int *out) {
  __local int tile[32];
  event_t ev = async_work_group_copy(tile, a + 32 * get_group_id(0), 32, 0);
  wait_group_events(1, &ev);
  ev = async_work_group_copy(tile, b + 32 * get_group_id(0), 32, 0);
  wait_group_events(1, &ev);
  out[get_global_id(0)] = tile[get_local_id(0)];
}
