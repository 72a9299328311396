//pass
//--blockDim=128 --gridDim=4
// Quoted includes of the CUDA headers, as real code writes them: none is in this folder,
// so each falls back to AutoSync's bundled stubs.  Shift-by-one through shared memory with
// a barrier between the write and the neighbour's read.  Race-free.
#include "cuda.h"
#include "cuda_runtime.h"
#include "device_launch_parameters.h"
#include "cuda_runtime_api.h"

__global__ void shift(const float *in, float *out) {
  __shared__ float s[129];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  if (t == 0)
    s[128] = 0.0f;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[t + 1];
}
