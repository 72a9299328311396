//pass
//--local_size=32 --num_groups=4
// Two copies with an event each, both named by the wait before either tile is read.
__kernel void pair_sum(__global const float *a, __global const float *b, __global float *out) {
  __local float ta[32];
  __local float tb[32];
  event_t ev[2];
  ev[0] = async_work_group_copy(ta, a + 32 * get_group_id(0), 32, 0);
  ev[1] = async_work_group_copy(tb, b + 32 * get_group_id(0), 32, 0);
  wait_group_events(2, ev);
  out[get_global_id(0)] = ta[31 - get_local_id(0)] + tb[get_local_id(0)];
}
