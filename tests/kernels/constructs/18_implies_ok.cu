//pass
//--blockDim=128 --gridDim=2
// __implies(a, b): b must hold where a does.  Threads of the upper half read the mirror
// cell of the lower half, after the barrier.  Race-free.

#include "annotations_extra.h"

__global__ void fold(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  __assert(__implies(t >= 64, 127 - t < 64));
  out[blockIdx.x * 128 + t] = s[127 - t];
}
