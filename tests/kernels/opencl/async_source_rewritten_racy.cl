//xfail:data-race
//--local_size=32 --num_groups=4
// The racy twin of async_source_rewritten.cl: the slice is overwritten before the wait, while
// another work-item's part of the copy may still read it.
__kernel void scale_in_place(__global float *buf) {
  __local float tile[32];
  size_t l = get_local_id(0);
  event_t ev = async_work_group_copy(tile, buf + 32 * get_group_id(0), 32, 0);
  buf[get_global_id(0)] = 3.0f;
  wait_group_events(1, &ev);
  buf[get_global_id(0)] += tile[31 - l];
}
