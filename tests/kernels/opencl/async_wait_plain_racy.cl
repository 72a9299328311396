//xfail:data-race
//--local_size=64 --num_groups=8
// wait_group_events completes the group's async copies only: it does not order the plain
// write of tile[l] before it with another work-item's plain read after it (a barrier would).
__kernel void shift_after_wait(__global const int *in, __global int *out) {
  __local int tile[65];
  __local int buf[64];
  size_t l = get_local_id(0);
  tile[l] = in[get_global_id(0)];
  event_t e = async_work_group_copy(buf, in + get_group_id(0) * 64, 64, 0);
  wait_group_events(1, &e);
  out[get_global_id(0)] = tile[l + 1] + buf[63 - l];
}
