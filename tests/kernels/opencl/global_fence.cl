//pass
//--local_size=128 --num_groups=8
// A work-item reads its neighbour's global element after a barrier with a global fence.
__kernel void neighbour(__global int *data, __global int *out) {
  size_t g = get_global_id(0);
  size_t l = get_local_id(0);
  data[g] = (int)l;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[g] = data[g ^ 1];
}
