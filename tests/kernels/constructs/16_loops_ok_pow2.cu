//pass
//--blockDim=256 --gridDim=32
// Interleaved-addressing reduction with a power-of-two stride s = 1, 2, 4, ... < n and
// n == 256 given by __requires.  In a step, thread tid with tid % (2s) == 0 writes sh[tid]
// and reads sh[tid + s]; tid + s is an odd multiple of s, never a multiple of 2s, so no
// cell read in a step is written in it.  Proving it needs the loop invariant "s is a power
// of two".  Race-free.

#include "../annotations.h"

__global__ void reduce_interleaved(const int *in, int *out, unsigned n) {
  __requires(n == 256);
  __shared__ int sh[256];
  unsigned tid = threadIdx.x;
  sh[tid] = in[blockIdx.x * n + tid];
  __syncthreads();
  for (unsigned s = 1; s < n; s *= 2) {
    if (tid % (2 * s) == 0)
      sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sh[0];
}
