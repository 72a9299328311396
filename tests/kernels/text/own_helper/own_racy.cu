//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// own_ok.cu with the barrier before scale3: its writes (lines 10-12 of the folder's
// helper_math.h, called at line R1) race with the neighbour's read (line R1).
#include "helper_math.h"

__global__ void scaled(const float3 *in, float *out) {
  __shared__ float3 p[128];
  int t = threadIdx.x;
  p[t] = in[t];
  __syncthreads();
  scale3(&p[t], 0.5f);  // R1
  out[t] = dot3(p[t], p[(t + 1) % 128]);  // R1
}
