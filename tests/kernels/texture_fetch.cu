//pass
//--blockDim=[16,16] --gridDim=[32,32]
// A 2-D texture fetch (classic texture reference) staged through shared memory.

#include "annotations.h"

texture<uchar4, 2, cudaReadModeElementType> tex;

__global__ void tex_blur(uchar4 *dst, int imageW) {
  __requires(imageW == 512);
  __shared__ uchar4 tile[16][16];
  int ix = blockIdx.x * 16 + threadIdx.x;
  int iy = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = tex2D(tex, ix + 0.5f, iy + 0.5f);
  __syncthreads();
  uchar4 a = tile[threadIdx.y][15 - threadIdx.x];
  dst[iy * imageW + ix] = make_uchar4(a.x, a.y, a.z, 255);
}
