//pass
//--blockDim=256 --gridDim=16
// autosync: nvcc_needs=helper_math.h
// "helper_math.h" is NOT in this folder: the bundled stub stands for it (vector operators
// modelled natively, dot/length/normalize declared).  Each thread stages one point in
// shared memory; after the barrier it reads its neighbour's.  Race-free.
#include "cuda_runtime.h"
#include "helper_math.h"

__global__ void segments(const float3 *pts, float *len, float3 *dir) {
  __shared__ float3 p[256];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * blockDim.x + t;
  p[t] = pts[g] * 2.0f;
  __syncthreads();
  float3 d = p[(t + 1) % 256] - p[t];
  len[g] = length(d) + dot(d, d);
  dir[g] = normalize(d);
}
