//pass
//--local_size=64,32 --num_groups=2
// Sizes without brackets (GPUVerify's OpenCL form); a group of 2,048 work-items.
__kernel void rows(__local int *tile, __global int *out) {
  size_t me = get_local_id(1) * 64 + get_local_id(0);
  tile[me] = (int)me;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_group_id(0) * 2048 + me] = tile[2047 - me];
}
