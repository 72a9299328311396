//xfail:data-race
//--local_size=32 --num_groups=4
// One copy statement in a loop, waited for only after the loop: the iterations' copies into
// the tile are in flight together.
__kernel void rounds(__global const int *src, __global int *out) {
  __local int tile[32];
  event_t ev = 0;
  for (int r = 0; r < 3; r++)
    ev = async_work_group_copy(tile, src + 32 * r, 32, ev);
  wait_group_events(1, &ev);
  out[get_global_id(0)] = tile[get_local_id(0)];
}
