//pass
//--local_size=256 --num_groups=64
// autosync: min_barriers=1 original_barriers=1
// Add a per-group value to the two elements each work-item owns, as its CUDA twin
// (../uniform_add.cu), in OpenCL C.

__kernel void uniformAdd(__global float *g_data, __global float *uniforms, int n, int blockOffset, int baseIndex) {
  __requires(n == 32768);
  __requires(baseIndex == 0);
  __local float uni;
  if (get_local_id(0) == 0) uni = uniforms[get_group_id(0) + blockOffset];
  unsigned int address = mul24(get_group_id(0), (get_local_size(0) << 1)) + baseIndex + get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  // the second element is only updated when it lies inside the array
  g_data[address] += uni;
  g_data[address + get_local_size(0)] += (get_local_id(0) + get_local_size(0) < n) * uni;
}
