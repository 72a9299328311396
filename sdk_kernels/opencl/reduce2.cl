//pass
//--local_size=256 --num_groups=65536
// autosync: min_barriers=1 original_barriers=2
// Reduction #2 of the CUDA twin (../reduce2.cu) in OpenCL C: the local array is a
// __local parameter sized by the host.

__kernel void reduce2(__global int *g_idata, __global int *g_odata, unsigned int n,
                      __local int *sdata) {
  unsigned int tid = get_local_id(0);
  unsigned int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) g_odata[get_group_id(0)] = sdata[0];
}

