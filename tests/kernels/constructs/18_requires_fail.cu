//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: assert_fails=10
// 18_requires_ok.cu with the caller passing gid + 1: the last thread of the grid breaks
// the callee's precondition (line R1).  No race: each thread still writes its own cell.

#include "annotations_extra.h"

__device__ float scaled(const float *v, int i, int n) {
  __requires(i >= 0 && i < n);  // R1
  return 2.0f * v[i];
}

__global__ void scale(const float *in, float *out) {
  int gid = blockIdx.x * 64 + threadIdx.x;
  out[gid] = scaled(in, gid + 1, 256);
}
