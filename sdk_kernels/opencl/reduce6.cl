//pass
//--local_size=256 --num_groups=64
// autosync: min_barriers=3 original_barriers=5
// Reduction #6 of the CUDA twin (../reduce6.cu) in OpenCL C: like #5, but each work-item
// first accumulates a grid-strided sequence of inputs, so a fixed number of groups handles
// any n.  blockSize and nIsPow2 are known when the program is built (-D...; the CUDA
// twin's template parameters).  Unlike the CUDA twin, the last six steps have barriers
// too (see below), in a loop; a barrier at the top of its body covers them all, so 3
// barriers still suffice.

#ifndef blockSize
#define blockSize 256
#endif
#ifndef nIsPow2
#define nIsPow2 1
#endif

__kernel void reduce6(__global int *g_idata, __global int *g_odata, unsigned int n,
                      __local int *sdata) {
  __requires(n == 1 << 24);

  // the number of groups is fixed by the launch: each work-item walks the input with a
  // grid-sized stride, adding two elements (one group-width apart) per step
  unsigned int tid = get_local_id(0);
  unsigned int i = get_group_id(0) * blockSize * 2 + get_local_id(0);
  unsigned int gridSize = blockSize * 2 * get_num_groups(0);
  int mySum = 0;

  while (i < n) {
    mySum += g_idata[i];
    // the bound check on the second element is only needed when n is not a power of 2
    if (nIsPow2 || i + blockSize < n) {
      mySum += g_idata[i + blockSize];
    }
    i += gridSize;
  }

  // each work-item puts its own sum into local memory
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
