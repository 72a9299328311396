//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// vec_ops_ok.cu without the barrier: the writes of f[t] (line R1, and lines 17-19 of
// helper_math.h: operator+= of line R2) race with thread t - 1's read of it (line 10 of
// helper_math.h: operator- of line R1 R2).  Checked by tests/test_includes.py.
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
