//xfail:data-race
//--local_size=32 --num_groups=4
// A barrier does not complete an async copy (only wait_group_events does): the tile may
// still be being filled while the work-items read it after the barrier.
__kernel void halves(__global const float *src, __global float *dst) {
  __local float tile[32];
  size_t l = get_local_id(0);
  event_t ev = async_work_group_copy(tile, src + 32 * get_group_id(0), 32, 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  dst[get_global_id(0)] = 0.5f * tile[l];
}
