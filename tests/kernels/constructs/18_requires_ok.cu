//pass
//--blockDim=64 --gridDim=4
// __requires inside a __device__ function is checked at every (inlined) call: every
// caller here passes an index below the bound, so the precondition holds.  Race-free:
// each thread writes its own cell.

#include "annotations_extra.h"

__device__ float scaled(const float *v, int i, int n) {
  __requires(i >= 0 && i < n);
  return 2.0f * v[i];
}

__global__ void scale(const float *in, float *out) {
  int gid = blockIdx.x * 64 + threadIdx.x;
  out[gid] = scaled(in, gid, 256);
}
