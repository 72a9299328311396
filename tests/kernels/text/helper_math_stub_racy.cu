//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=12-13 nvcc_needs=helper_math.h
// helper_math_stub_ok.cu without the barrier.
#include "cuda_runtime.h"
#include "helper_math.h"

__global__ void segments(const float3 *pts, float *len, float3 *dir) {
  __shared__ float3 p[256];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * blockDim.x + t;
  p[t] = pts[g] * 2.0f;
  float3 d = p[(t + 1) % 256] - p[t];
  len[g] = length(d) + dot(d, d);
  dir[g] = normalize(d);
}
