//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=32
// autosync: races=14-15
// oddeven_ok.cu with an off-by-one exchange distance in the inner loop (pos - stride + 1):
// two threads' pairs then share a key.  Racy.

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
        exchange(keys, pos - stride + 1, pos);
    }
  }
  __syncthreads();
  blk[tid] = keys[tid];
  blk[tid + TILE / 2] = keys[tid + TILE / 2];
}
