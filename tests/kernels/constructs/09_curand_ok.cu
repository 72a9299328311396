//pass
//--blockDim=256 --gridDim=16
// autosync: nvcc_needs=curand_kernel.h
// Monte-Carlo estimate of pi with the curand device API: every thread owns
// states[gid] in global memory (curand_init with its own subsequence, curand_uniform
// advances only that state), counts hits in a register and the block adds the counts in
// shared memory with a barrier-separated tree reduction.  Race-free.

#include <curand_kernel.h>

__global__ void pi_hits(curandState *states, unsigned long long seed, unsigned *hits) {
  __shared__ unsigned s[256];
  unsigned tid = threadIdx.x;
  unsigned gid = blockIdx.x * 256 + tid;
  curand_init(seed, gid, 0, &states[gid]);
  curandState local = states[gid];
  unsigned count = 0;
  for (int i = 0; i < 64; ++i) {
    float x = curand_uniform(&local);
    float y = curand_uniform(&local);
    if (x * x + y * y <= 1.0f)
      ++count;
  }
  states[gid] = local;
  s[tid] = count;
  __syncthreads();
  for (unsigned half = 128; half > 0; half >>= 1) {
    if (tid < half)
      s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid == 0)
    hits[blockIdx.x] = s[0];
}
