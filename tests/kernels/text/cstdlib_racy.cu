//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=11-12
// cstdlib_ok.cu without the barrier.
#include <cstdlib>
#include <stdlib.h>

__global__ void mirror(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = abs(in[t] - 32);
  out[t] = s[63 - t];
}
