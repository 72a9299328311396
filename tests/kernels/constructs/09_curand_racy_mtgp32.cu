//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: nvcc_needs=curand_kernel.h races=11-11
// 09_curand_ok_mtgp32.cu where every block draws from the first state: an MTGP32 state
// serves one block, and two blocks drawing from it race on it.

#include <curand_kernel.h>

__global__ void blockNoise(curandStateMtgp32 *perBlock, float *sums) {
  __shared__ float drawn[128];
  drawn[threadIdx.x] = curand_uniform(&perBlock[0]);
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int k = 0; k < 128; k++)
      total += drawn[k];
    sums[blockIdx.x] = total;
  }
}
