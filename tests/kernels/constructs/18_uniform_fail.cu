//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: assert_fails=13
// 18_uniform_ok.cu asserting uniformity of a value that differs between threads (line
// R1).  The loop bound is still the uniform count, so there is no race or divergence.

#include "annotations_extra.h"

__global__ void tiles(const float *in, float *out, int n) {
  __requires(n == 256);
  __shared__ float s[64];
  int tiles = n / 64;
  __assert(__uniform_int(tiles + (threadIdx.x & 1)));  // R1
  float acc = 0.0f;
  for (int k = 0; k < tiles; k++) {
    s[threadIdx.x] = in[k * 64 + threadIdx.x];
    __syncthreads();
    acc += s[63 - threadIdx.x];
    __syncthreads();
  }
  out[blockIdx.x * 64 + threadIdx.x] = acc;
}
