//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=64
// autosync: races=13-20
// tree_sum_ok.cu with n >= 1 allowed: for n == 1 the loop runs no step, so no barrier
// separates thread 1's initial write of s[1] from thread 0's read after the loop.  Racy.

#include "annotations.h"

__global__ void tree_sum(float *out, const float *a, unsigned n) {
  __requires(n >= 1 && n <= 256);
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
