//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: assert_fails=13
// 18_invariant_ok.cu with an invariant that holds at entry but is not maintained: after
// the first iteration i == t + 64, which is not below 64 (line R1).  Race-free accesses.

#include "annotations_extra.h"

__global__ void strided(const float *in, float *out, int n) {
  __requires(n == 512);
  __shared__ float s[512];
  int t = threadIdx.x;
  for (int i = t; __invariant(i < 64), i < n; i += 64) {  // R1
    s[i] = in[blockIdx.x * n + i];
  }
  __syncthreads();
  for (int i = t; __invariant(i % 64 == t), i < n; i += 64) {
    out[blockIdx.x * n + i] = s[i] + s[(i + 64) % n];
  }
}
