//pass
//--blockDim=128 --gridDim=8
// Local and system includes.

#include <cuda.h>
#include <stdio.h>
#include "local_include.h"

__global__ void mirror(float *data) {
  __shared__ float s[LI_BLOCK];
  int tid = threadIdx.x;
  s[tid] = data[blockIdx.x * LI_BLOCK + tid];
  __syncthreads();
  data[blockIdx.x * LI_BLOCK + tid] = s[li_mirror(tid)];
}
