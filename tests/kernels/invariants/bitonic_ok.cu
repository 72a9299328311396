//pass
//--blockDim=256 --gridDim=32
// Bitonic sort of 2 * blockDim keys per block in shared memory, the comparator network
// written with a growing `size` and a shrinking `stride` (both powers of two).  For a
// power-of-two stride, pos = 2*tid - (tid & (stride - 1)) puts thread tid's pair
// (pos, pos + stride) apart from every other thread's.  The sizes depend on the parameter
// `len`, so both loops are abstracted and need `stride` (and `size`) to be powers of two
// at the loop heads (a non-power-of-two `len` would make the last phase racy, hence the
// __requires).  Race-free.

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
      __syncthreads();
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
