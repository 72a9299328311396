//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
// autosync: assert_fails=12
// 18_ensures_ok.cu with an off-by-one on the fall-through path (return i + 1): for
// i == n - 1 it returns n, outside the promised range (line R1).  The race-free part
// is unchanged apart from the index, which the kernel bounds itself (% 128).

#include "annotations_extra.h"

__device__ int wrap(int i, int n) {
  __requires(n > 0 && i >= 0 && i < 2 * n);
  __ensures(__return_val_int() >= 0 && __return_val_int() < n);  // R1
  if (i >= n) {
    return i - n;
  }
  return i + 1;
}

__global__ void rotate(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[wrap(t, 128) % 128] = in[blockIdx.x * 128 + t];
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[t];
}
