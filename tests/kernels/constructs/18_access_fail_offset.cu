//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: assert_fails=15
// 18_access_ok.cu where each thread also writes its neighbour's pair slot in a second
// array half: the claim that every write of s since the barrier is at the thread's own
// offset (line R1) fails for the second store.  No race (s[64 + t] is also own).

#include "annotations_extra.h"

__global__ void accesses(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  s[64 + t] = 0;
  __assert(__write_implies(s, __write_offset_bytes(s) == t * sizeof(int)));  // R1
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[t ^ 1] + s[64 + (t ^ 1)];
}
