//pass
//--local_size=32 --num_groups=1
// autosync: min_barriers=2 original_barriers=2
// Timing sum of the CUDA twin (../sum0.cu) in OpenCL C: OpenCL C has no clock, so each
// work-item's time stamp comes from the host (d_stamps); then the same tree reduction
// (stride halving, a barrier after every step), and EVERY work-item stores the group total
// into the one global cell -- a benign write-write pair: verified by default, a race under
// --no-benign.

__kernel void sum0(__global long *d_clocks, __global const long *d_stamps) {
  __local long s_clocks[32];
  unsigned int tid = get_local_id(0);
  s_clocks[tid] = d_stamps[tid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 16; i > 0; i /= 2) {
    if (tid < i) {
      s_clocks[tid] += s_clocks[tid + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  d_clocks[0] = s_clocks[0];
}
