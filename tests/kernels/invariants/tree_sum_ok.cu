//pass
//--blockDim=256 --gridDim=64
// A tree sum whose width `d` halves from the parameter `n`, with the barrier at the top of
// each step; thread 0 reads s[1] after the loop.  Race-free because the loop runs at least
// once (n >= 2, so a barrier separates the initial writes from the read) and its last
// step (d == 2) only has thread 0 active: the code after a loop shares its epoch with the
// last step alone.

#include "annotations.h"

__global__ void tree_sum(float *out, const float *a, unsigned n) {
  __requires(n >= 2 && n <= 256);
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  s[tid] = a[blockIdx.x * 256 + tid];
  for (unsigned d = n; d > 1; d >>= 1) {
    __syncthreads();
    if (tid < d / 2)
      s[tid] += s[tid + d / 2];
  }
  if (tid == 0)
    out[blockIdx.x] = s[0] + s[1];
}
