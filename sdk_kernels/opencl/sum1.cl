//pass
//--local_size=32 --num_groups=1
// autosync: min_barriers=2 original_barriers=2
// Timing sum with interleaved addressing, as its CUDA twin (../sum1.cu), in OpenCL C: the
// time stamps come from the host (OpenCL C has no clock); work-item tid adds the partial
// sum 2^k cells away at step k, then EVERY work-item stores the group total into the one
// global cell -- a benign write-write pair: verified by default, a race under --no-benign.

__kernel void sum1(__global long *d_clocks, __global const long *d_stamps) {
  __local long s_clocks[32];
  unsigned int tid = get_local_id(0);
  s_clocks[tid] = d_stamps[tid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = 1; s < 32; s *= 2) {
    if (tid % (2 * s) == 0) {
      s_clocks[tid] += s_clocks[tid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  d_clocks[0] = s_clocks[0];
}
