//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: assert_fails=15
// 18_access_ok.cu with a claim about the writes that the odd threads break: only even
// threads write s before the barrier, so __write(s) (line R1) fails for the odd ones.

#include "annotations_extra.h"

__global__ void accesses(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  if ((t & 1) == 0) {
    s[t] = in[blockIdx.x * 64 + t];
  }
  __assert(__write(s));  // R1
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[t & ~1];
}
