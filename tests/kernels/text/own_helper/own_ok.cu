//pass
//--blockDim=128 --gridDim=1
// The folder's own "helper_math.h" is read (not the stub): scale3 writes p[t] through a
// pointer; the barrier orders those writes before the neighbour's read.  Race-free.
#include "helper_math.h"

__global__ void scaled(const float3 *in, float *out) {
  __shared__ float3 p[128];
  int t = threadIdx.x;
  p[t] = in[t];
  scale3(&p[t], 0.5f);
  __syncthreads();
  out[t] = dot3(p[t], p[(t + 1) % 128]);
}
