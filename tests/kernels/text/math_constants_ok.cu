//pass
//--blockDim=128 --gridDim=8
// "math_constants.h": CUDART_PI_F, CUDART_INF_F, CUDART_NAN_F as CUDA defines them.
// Each thread writes its own angle, then reads its neighbour's after the barrier.
#include "math_constants.h"

__global__ void angles(const float *deg, float *out) {
  __shared__ float rad[128];
  int t = threadIdx.x;
  float d = deg[blockIdx.x * 128 + t];
  rad[t] = d == CUDART_INF_F ? CUDART_NAN_F : d * CUDART_PI_F / 180.0f;
  __syncthreads();
  out[blockIdx.x * 128 + t] = rad[t ^ 1];
}
