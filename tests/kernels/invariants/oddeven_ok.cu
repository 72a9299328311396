//pass
//--blockDim=256 --gridDim=32
// Batcher's odd-even merge sort of 2 * blockDim keys per block.  Per merge size: one
// exchange at distance stride = size / 2 between pos and pos + stride, then strides
// halving, where only threads with (tid & (size/2 - 1)) >= stride exchange pos - stride and
// pos.  Trip counts depend on the parameter `len`: the loops are abstracted, and
// race-freedom needs `size` and `stride` powers of two at the heads.  Race-free.

#include "annotations.h"

#define TILE 512

__device__ void exchange(unsigned *keys, unsigned a, unsigned b) {
  unsigned x = keys[a], y = keys[b];
  if (x > y) {
    keys[a] = y;
    keys[b] = x;
  }
}

__global__ void oddeven_tile(unsigned *data, unsigned len) {
  __requires(len >= 2 && len <= TILE && (len & (len - 1)) == 0);
  __shared__ unsigned keys[TILE];
  unsigned tid = threadIdx.x;
  unsigned *blk = data + blockIdx.x * TILE;
  keys[tid] = blk[tid];
  keys[tid + TILE / 2] = blk[tid + TILE / 2];
  for (unsigned size = 2; size <= len; size <<= 1) {
    unsigned stride = size / 2;
    unsigned lane = tid & (stride - 1);
    __syncthreads();
    unsigned pos = 2 * tid - lane;
    exchange(keys, pos, pos + stride);
    stride >>= 1;
    for (; stride > 0; stride >>= 1) {
      __syncthreads();
      pos = 2 * tid - (tid & (stride - 1));
      if (lane >= stride)
        exchange(keys, pos - stride, pos);
    }
  }
  __syncthreads();
  blk[tid] = keys[tid];
  blk[tid + TILE / 2] = keys[tid + TILE / 2];
}
