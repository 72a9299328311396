//pass
//--local_size=256 --num_groups=128
// autosync: min_barriers=1 original_barriers=1
// Final pass of a large scan, as its CUDA twin (../uniformUpdate.cu), in OpenCL C: add
// each group's offset (read once into local memory by work-item 0) to four elements per
// work-item.

__kernel void uniformUpdate(__global uint4 *d_Data, __global uint *d_Buffer) {
  __local uint buf;
  uint pos = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (get_local_id(0) == 0) {
    buf = d_Buffer[get_group_id(0)];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint4 data4 = d_Data[pos];
  data4.x += buf;
  data4.y += buf;
  data4.z += buf;
  data4.w += buf;
  d_Data[pos] = data4;
}
