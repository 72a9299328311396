//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=12-14,13-14
// vec_ops_ok.cu without the barrier: the writes of f[t] (lines R1, R2) race with thread
// t - 1's read of it (line R1, R2).
#include "helper_math.h"

__global__ void relax(const float3 *pos, float *energy) {
  __shared__ float3 f[128];
  int t = threadIdx.x;
  float3 p = pos[blockIdx.x * 128 + t];
  f[t] = -p * 0.5f;  // R1
  f[t] += p + p;  // R2
  float3 d = f[(t + 1) % 128] - f[t];  // R1 R2
  energy[blockIdx.x * 128 + t] = dot(d, d);
}
