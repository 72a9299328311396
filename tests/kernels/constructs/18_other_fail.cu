//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: assert_fails=12
// 18_other_ok.cu with slots that two threads share ((t * 4) % 64: t and t + 16): the
// assertion (line R1) fails.  The store goes to the thread's own cell, so no race.

#include "annotations_extra.h"

__global__ void slots(int *out) {
  __shared__ int s[64];
  int slot = (threadIdx.x * 4) % 64;
  __assert(__implies(__same_group, __other_int(slot) != slot));  // R1
  s[threadIdx.x] = slot;
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
}
