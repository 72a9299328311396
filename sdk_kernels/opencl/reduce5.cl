//pass
//--local_size=256 --num_groups=32768
// autosync: min_barriers=3 original_barriers=5
// Reduction #5 of the CUDA twin (../reduce5.cu) in OpenCL C: two loads per work-item,
// then a completely unrolled tree for a group size known when the program is built
// (-DblockSize=..., 256 by default).  The local array is a __local parameter sized by
// the host.  Unlike the CUDA twin, the last six steps have barriers too (see below), in a
// loop; a barrier at the top of its body covers them all, so 3 barriers still suffice.

#ifndef blockSize
#define blockSize 256
#endif

__kernel void reduce5(__global int *g_idata, __global int *g_odata, unsigned int n,
                      __local int *sdata) {
  __requires(n == 1 << 24);

  // each work-item loads two elements (one group-width apart) and adds them
  unsigned int tid = get_local_id(0);
  unsigned int i = get_group_id(0) * (blockSize * 2) + get_local_id(0);

  int mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) {
    mySum += g_idata[i + blockSize];
  }
  sdata[tid] = mySum;
  barrier(CLK_LOCAL_MEM_FENCE);

  // reduction in local memory, fully unrolled for the block size known when the program
  // is built (the CUDA twin's template parameter)
  if (blockSize >= 512) {
    if (tid < 256) {
      sdata[tid] = mySum = mySum + sdata[tid + 256];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (blockSize >= 256) {
    if (tid < 128) {
      sdata[tid] = mySum = mySum + sdata[tid + 128];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (blockSize >= 128) {
    if (tid < 64) {
      sdata[tid] = mySum = mySum + sdata[tid + 64];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // the last 64 values: the CUDA twin adds them up in one warp without barriers
  // (warp-synchronous code).  OpenCL C promises no group of work-items smaller than the
  // work-group that runs in lock-step (a sub-group's size is the device's), so here the
  // same tree goes on with a barrier after every step.
  for (unsigned int s = 32; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // write result for this group to global memory
  if (tid == 0) g_odata[get_group_id(0)] = sdata[0];
}
