//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
// autosync: assert_fails=14
// 18_implies_ok.cu with the implication the wrong way round (line R1): for t == 63 the
// premise holds and 127 - t == 64 is not below 64.  No race.

#include "annotations_extra.h"

__global__ void fold(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  __assert(__implies(t < 64, 127 - t < 64));  // R1
  out[blockIdx.x * 128 + t] = s[127 - t];
}
