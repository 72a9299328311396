//pass
//--blockDim=256 --gridDim=64
// autosync: min_barriers=1 original_barriers=1
// Add a per-block uniform value to the two elements each thread owns (the blocks of the
// scan were processed two elements per thread).

#include "annotations.h"

__global__ void uniformAdd(float *g_data, float *uniforms, int n, int blockOffset, int baseIndex) {
  __requires(n == 32768);
  __requires(baseIndex == 0);
  __shared__ float uni;
  if (threadIdx.x == 0) uni = uniforms[blockIdx.x + blockOffset];
  unsigned int address = __mul24(blockIdx.x, (blockDim.x << 1)) + baseIndex + threadIdx.x;
  __syncthreads();
  // the second element is only updated when it lies inside the array
  g_data[address] += uni;
  g_data[address + blockDim.x] += (threadIdx.x + blockDim.x < n) * uni;
}
