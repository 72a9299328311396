//pass
//--blockDim=128 --gridDim=8
// autosync: nvcc_needs=curand_kernel.h
// The MTGP32 generator: one state per block, shared by the block's threads (at most 256),
// each drawing its own number from it.  The block's draws are summed in shared memory.

#include <curand_kernel.h>

__global__ void blockNoise(curandStateMtgp32 *perBlock, float *sums) {
  __shared__ float drawn[128];
  drawn[threadIdx.x] = curand_uniform(&perBlock[blockIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int k = 0; k < 128; k++)
      total += drawn[k];
    sums[blockIdx.x] = total;
  }
}
