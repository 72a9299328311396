//pass
//--blockDim=[32,8] --gridDim=[8,8]
// A 3D 7-point stencil in the style of FDTD3d: each block owns a 32x8 column of the
// volume and marches it through `dimz` slices, staging the current slice plus a one-cell
// halo in a shared tile.  The tile is rewritten every slice, so a barrier before the
// rewrite orders it after the previous slice's reads and one after it orders the reads.
// The trip count depends on the parameter `dimz`: the loop is abstracted, and the global
// store's index advances by one slice per iteration (a monotone, strided counter), which
// keeps two threads' stores apart (the grid covering exactly one slice: the __requires).
// Race-free.

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
    __syncthreads();
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
