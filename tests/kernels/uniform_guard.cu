//pass
//--blockDim=[16,16] --gridDim=[64,64]
// A barrier under a guard that the __requires facts make true for every thread:
// 64 blocks of 16 threads cover exactly 1024 columns and rows, so no divergence.

#include "annotations.h"

__global__ void guarded_tile(float *dst, const float *src, int imageW, int imageH) {
  __requires(imageW == 1024);
  __requires(imageH == 1024);
  __shared__ float tile[16][16];
  const int ix = blockDim.x * blockIdx.x + threadIdx.x;
  const int iy = blockDim.y * blockIdx.y + threadIdx.y;
  if (ix < imageW && iy < imageH) {
    tile[threadIdx.y][threadIdx.x] = src[imageW * iy + ix];
    __syncthreads();
    dst[imageW * iy + ix] = tile[15 - threadIdx.y][15 - threadIdx.x];
  }
}
