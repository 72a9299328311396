//pass
//--blockDim=32 --gridDim=1
// autosync: min_barriers=2 original_barriers=2
// Clock-style timing sum: each of 32 threads records a clock value in shared memory, a
// tree reduction (stride halving, barrier after every step) adds them up, and afterwards
// EVERY thread stores the block total into the one global cell -- a benign write-write
// pair (all store the same value): verified by default, a race under --no-benign.
// Two barriers: stage -> first step, and each step -> the next (the last one also orders
// the final step before the reads of s_clocks[0]).

__global__ void sum0(long long *d_clocks) {
  __shared__ long long s_clocks[32];
  unsigned int tid = threadIdx.x;
  s_clocks[tid] = clock64();
  __syncthreads();
  for (int i = 16; i > 0; i /= 2) {
    if (tid < i) {
      s_clocks[tid] += s_clocks[tid + i];
    }
    __syncthreads();
  }
  d_clocks[0] = s_clocks[0];
}
