//xfail:ASSERTION_ERROR
//--local_size=16 --num_groups=1 --check-array-bounds
// The last work-item writes one past the end of the array.
__kernel void slots(__global int *out) {
  __local int slot[16];
  slot[get_local_id(0) + 1] = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_local_id(0)] = slot[15 - get_local_id(0)];
}
