//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: assert_fails=13
// __assert(false) on a path some thread reaches (the last thread of each block handles
// the tail): an assertion failure, its own kind of error.  No data race: every thread
// writes its own out cell.

#include "../annotations.h"

__global__ void tail_guard(const float *in, float *out) {
  int gid = blockIdx.x * 128 + threadIdx.x;
  if (threadIdx.x == 127) {
    __assert(false);  // R1
  }
  out[gid] = in[gid] * 0.5f;
}
