//pass
//--blockDim=128 --gridDim=4
// The folder's own helper_math.h with float3 operators (+, -, *, unary -, +=).  Each
// thread accumulates into its own shared slot, then reads its neighbour's after the
// barrier.  Race-free.
#include "helper_math.h"

__global__ void relax(const float3 *pos, float *energy) {
  __shared__ float3 f[128];
  int t = threadIdx.x;
  float3 p = pos[blockIdx.x * 128 + t];
  f[t] = -p * 0.5f;
  f[t] += p + p;
  __syncthreads();
  float3 d = f[(t + 1) % 128] - f[t];
  energy[blockIdx.x * 128 + t] = dot(d, d);
}
