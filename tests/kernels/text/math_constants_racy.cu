//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: races=11-12
// math_constants_ok.cu without the barrier: thread t reads rad[t ^ 1] as t ^ 1 writes it.
#include "math_constants.h"

__global__ void angles(const float *deg, float *out) {
  __shared__ float rad[128];
  int t = threadIdx.x;
  float d = deg[blockIdx.x * 128 + t];
  rad[t] = d == CUDART_INF_F ? CUDART_NAN_F : d * CUDART_PI_F / 180.0f;
  out[blockIdx.x * 128 + t] = rad[t ^ 1];
}
