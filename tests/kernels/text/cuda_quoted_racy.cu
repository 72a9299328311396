//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=13-15,14-15
// cuda_quoted_ok.cu without the barrier: thread t reads s[t + 1] while thread t + 1 writes it.
#include "cuda.h"
#include "cuda_runtime.h"
#include "device_launch_parameters.h"
#include "cuda_runtime_api.h"

__global__ void shift(const float *in, float *out) {
  __shared__ float s[129];
  unsigned t = threadIdx.x;
  if (t == 0) s[128] = 0.0f;
  s[t] = in[blockIdx.x * blockDim.x + t];
  out[blockIdx.x * blockDim.x + t] = s[t + 1];
}
