//pass
//--blockDim=[16,16] --gridDim=[64,64]
// autosync: min_barriers=1 original_barriers=1
// Matrix transpose through a shared tile padded by one column (no bank conflicts);
// reads and writes to global memory are both coalesced.

#include "annotations.h"

#define BLOCK_DIM 16

__global__ void transpose(float *odata, float *idata, int width, int height) {
  __requires(width == 1024);
  __requires(height == 1024);
  __shared__ float block[BLOCK_DIM][BLOCK_DIM + 1];

  // read the tile into shared memory
  unsigned int xIndex = blockIdx.x * BLOCK_DIM + threadIdx.x;
  unsigned int yIndex = blockIdx.y * BLOCK_DIM + threadIdx.y;
  if ((xIndex < width) && (yIndex < height)) {
    unsigned int index_in = yIndex * width + xIndex;
    block[threadIdx.y][threadIdx.x] = idata[index_in];
  }
  __syncthreads();

  // write the transposed tile back
  xIndex = blockIdx.y * BLOCK_DIM + threadIdx.x;
  yIndex = blockIdx.x * BLOCK_DIM + threadIdx.y;
  if ((xIndex < height) && (yIndex < width)) {
    unsigned int index_out = yIndex * height + xIndex;
    odata[index_out] = block[threadIdx.x][threadIdx.y];
  }
}
