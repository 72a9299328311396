//pass
//--blockDim=[16,16] --gridDim=[8,8]
// Tile transpose through a padded 2-D shared array (threadIdx.x and .y).

#include "annotations.h"

#define TILE 16

__global__ void tile_transpose(const float *in, float *out, int width) {
  __requires(width == 128);
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  int tx = blockIdx.y * TILE + threadIdx.x;
  int ty = blockIdx.x * TILE + threadIdx.y;
  out[ty * width + tx] = tile[threadIdx.x][threadIdx.y];
}
