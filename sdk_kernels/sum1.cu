//pass
//--blockDim=32 --gridDim=1
// autosync: min_barriers=2 original_barriers=2
// Clock-style timing sum, interleaved addressing: thread tid adds the partial sum 2^k
// cells away at step k (only every 2^(k+1)-th thread works), after which EVERY thread
// stores the block total into the one global cell -- a benign write-write pair: verified
// by default, a race under --no-benign.  Two barriers: one before the tree, one after each
// step (the last also orders the final step before the reads of s_clocks[0]).

__global__ void sum1(long long *d_clocks) {
  __shared__ long long s_clocks[32];
  unsigned int tid = threadIdx.x;
  s_clocks[tid] = clock64();
  __syncthreads();
  for (unsigned int s = 1; s < 32; s *= 2) {
    if (tid % (2 * s) == 0) {
      s_clocks[tid] += s_clocks[tid + s];
    }
    __syncthreads();
  }
  d_clocks[0] = s_clocks[0];
}
