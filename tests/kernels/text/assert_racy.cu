//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=11-13
// assert_ok.cu without the barrier: an assert is no synchronisation.
#include <assert.h>
#include <cassert>

__global__ void checked(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  assert(t < 64);
  out[t] = s[(t + 32) % 64];
}
