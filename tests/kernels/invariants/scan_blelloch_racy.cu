//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=64
// autosync: races=24-24
// scan_blelloch_ok.cu with an off-by-one right index in the up-sweep (bi without the -1):
// thread t then writes offset*(2t+2), which thread t+1 reads as its left index.  Racy.

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
      unsigned bi = offset * (2 * tid + 2);
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
