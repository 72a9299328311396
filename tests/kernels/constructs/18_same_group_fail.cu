//xfail:NOT_ALL_VERIFIED
//--blockDim=32 --gridDim=4
// autosync: assert_fails=11
// 18_same_group_ok.cu without the premise: threads of two different blocks have
// different blockIdx, so the assertion (line R1) fails.  No race.

#include "annotations_extra.h"

__global__ void per_block(float *out) {
  int b = blockIdx.x;
  __assert(__other_int(b) == b);  // R1
  out[b * 32 + threadIdx.x] = 1.0f;
}
