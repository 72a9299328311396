//pass
//--blockDim=64 --gridDim=2
// __uniform_int(e): e has the same value in both threads of the pair (every thread).  The
// tile count depends only on the parameter, so the loop around the barrier is uniform.

#include "annotations_extra.h"

__global__ void tiles(const float *in, float *out, int n) {
  __requires(n == 256);
  __shared__ float s[64];
  int tiles = n / 64;
  __assert(__uniform_int(tiles));
  float acc = 0.0f;
  for (int k = 0; k < tiles; k++) {
    s[threadIdx.x] = in[k * 64 + threadIdx.x];
    __syncthreads();
    acc += s[63 - threadIdx.x];
    __syncthreads();
  }
  out[blockIdx.x * 64 + threadIdx.x] = acc;
}
