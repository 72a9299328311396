//xfail:data-race
//--local_size=128 --num_groups=8
// The racy twin of global_fence.cl: a local fence does not order the global accesses.
__kernel void neighbour(__global int *data, __global int *out) {
  size_t g = get_global_id(0);
  size_t l = get_local_id(0);
  data[g] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = data[g ^ 1];
}
