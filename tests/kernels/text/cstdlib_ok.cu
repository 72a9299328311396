//pass
//--blockDim=64 --gridDim=1
// <cstdlib> and <stdlib.h>: abs() in device code.  Each thread owns s[t]; after the
// barrier every thread reads the mirror slot.  Race-free.
#include <cstdlib>
#include <stdlib.h>

__global__ void mirror(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = abs(in[t] - 32);
  __syncthreads();
  out[t] = s[63 - t];
}
