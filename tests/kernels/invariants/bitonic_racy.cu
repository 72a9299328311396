//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=32
// autosync: races=15-15
// bitonic_ok.cu without the barrier in the inner loop of the merge phase: one stride's
// exchanges overlap the next stride's in other threads.  Racy.

#include "annotations.h"

#define TILE 512

__device__ void exchange(unsigned *keys, unsigned a, unsigned b, unsigned up) {
  unsigned x = keys[a], y = keys[b];
  if ((x > y) == (up != 0)) {
    keys[a] = y;
    keys[b] = x;
  }
}

__global__ void bitonic_tile(unsigned *data, unsigned len) {
  __requires(len >= 2 && len <= TILE && (len & (len - 1)) == 0);
  __shared__ unsigned keys[TILE];
  unsigned tid = threadIdx.x;
  unsigned *blk = data + blockIdx.x * TILE;
  keys[tid] = blk[tid];
  keys[tid + TILE / 2] = blk[tid + TILE / 2];
  for (unsigned size = 2; size < len; size <<= 1) {
    unsigned up = (tid & (size / 2)) != 0;
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      unsigned pos = 2 * tid - (tid & (stride - 1));
      exchange(keys, pos, pos + stride, up);
    }
  }
  for (unsigned stride = len / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned pos = 2 * tid - (tid & (stride - 1));
    exchange(keys, pos, pos + stride, 1);
  }
  __syncthreads();
  blk[tid] = keys[tid];
  blk[tid + TILE / 2] = keys[tid + TILE / 2];
}
