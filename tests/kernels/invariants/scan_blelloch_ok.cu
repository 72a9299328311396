//pass
//--blockDim=256 --gridDim=64
// Work-efficient (Blelloch) exclusive scan of 2 * blockDim elements per block: an up-sweep
// whose distance `d` halves while `offset` doubles, then a down-sweep the other way.  The
// trip counts depend on the parameter `n`, so both loops are abstracted: race-freedom
// needs `offset` a power of two (then offset*(2t+1)-1 and offset*(2u+2)-1 never meet) and
// small enough that offset*(2t+2) does not wrap, and `offset` must not reach 0 in the
// down-sweep (it would if n were not a power of two: all threads then hit temp[-1]).
// Race-free.

#include "annotations.h"

#define TILE 512

__global__ void scan_blelloch(float *out, const float *in, unsigned n) {
  __shared__ float temp[TILE];
  __requires(n >= 2 && n <= TILE && (n & (n - 1)) == 0);
  unsigned tid = threadIdx.x;
  float *blk = (float *)in + blockIdx.x * TILE;
  temp[2 * tid] = blk[2 * tid];
  temp[2 * tid + 1] = blk[2 * tid + 1];
  unsigned offset = 1;
  for (unsigned d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      unsigned ai = offset * (2 * tid + 1) - 1;
      unsigned bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (tid == 0)
    temp[n - 1] = 0;
  for (unsigned d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      unsigned ai = offset * (2 * tid + 1) - 1;
      unsigned bi = offset * (2 * tid + 2) - 1;
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  out[blockIdx.x * TILE + 2 * tid] = temp[2 * tid];
  out[blockIdx.x * TILE + 2 * tid + 1] = temp[2 * tid + 1];
}
