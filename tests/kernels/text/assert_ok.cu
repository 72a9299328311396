//pass
//--blockDim=64 --gridDim=1
// <assert.h> and <cassert>: assert(e) in device code has no memory effect.  Race-free.
#include <assert.h>
#include <cassert>

__global__ void checked(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  assert(t < 64);
  s[t] = in[t];
  __syncthreads();
  assert(s[t] == in[t]);
  out[t] = s[(t + 32) % 64];
}
