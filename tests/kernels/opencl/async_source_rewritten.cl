//pass
//--local_size=32 --num_groups=4
// The group copies its slice of buf into local memory, waits, then overwrites the slice:
// the copy's reads are complete before the writes (the copy's work-items never race with
// each other: each element is copied once).
__kernel void scale_in_place(__global float *buf) {
  __local float tile[32];
  size_t l = get_local_id(0);
  event_t ev = async_work_group_copy(tile, buf + 32 * get_group_id(0), 32, 0);
  wait_group_events(1, &ev);
  buf[get_global_id(0)] = 3.0f * tile[31 - l];
}
