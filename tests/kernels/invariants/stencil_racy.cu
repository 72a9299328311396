//xfail:NOT_ALL_VERIFIED
//--blockDim=[32,8] --gridDim=[8,8]
// autosync: races=23-33
// stencil_ok.cu without the barrier before the tile is rewritten: the next slice's halo
// writes overlap this slice's neighbour reads in other threads.  Racy.

#include "annotations.h"

#define BX 32
#define BY 8

__global__ void stencil(float *out, const float *in, int dimx, int dimy, int dimz) {
  __requires(dimx == 256 && dimy == 64 && dimz <= 64);
  __shared__ float tile[BY + 2][BX + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int gx = blockIdx.x * BX + tx, gy = blockIdx.y * BY + ty;
  int slice = dimx * dimy;
  int idx = gy * dimx + gx;
  float below = in[idx];
  float here = in[idx + slice];
  for (int z = 1; z < dimz - 1; z++) {
    float above = in[idx + 2 * slice];
    tile[ty + 1][tx + 1] = here;
    if (tx == 0) {
      tile[ty + 1][0] = in[idx + slice - 1];
      tile[ty + 1][BX + 1] = in[idx + slice + BX];
    }
    if (ty == 0) {
      tile[0][tx + 1] = in[idx + slice - dimx];
      tile[BY + 1][tx + 1] = in[idx + slice + BY * dimx];
    }
    __syncthreads();
    float v = tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] +
              tile[ty + 2][tx + 1] + below + above - 6.0f * tile[ty + 1][tx + 1];
    out[idx + slice] = v;
    below = here;
    here = above;
    idx += slice;
  }
}
