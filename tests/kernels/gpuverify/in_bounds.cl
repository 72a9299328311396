//pass
//--local_size=16 --num_groups=1 --check-array-bounds
// Each work-item writes its own slot of a 16-slot local array.
__kernel void slots(__global int *out) {
  __local int slot[16];
  slot[get_local_id(0)] = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_local_id(0)] = slot[15 - get_local_id(0)];
}
