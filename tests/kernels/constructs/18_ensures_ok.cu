//pass
//--blockDim=128 --gridDim=2
// __ensures of a __device__ function is checked where it returns (every return, and the
// end of its body); __return_val_int() is the value returned.  wrap() always lands in
// [0, n).  Race-free: thread t writes s[wrap(t + 1)], a permutation, before the barrier.

#include "annotations_extra.h"

__device__ int wrap(int i, int n) {
  __requires(n > 0 && i >= 0 && i < 2 * n);
  __ensures(__return_val_int() >= 0 && __return_val_int() < n);
  if (i >= n) {
    return i - n;
  }
  return i;
}

__global__ void rotate(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[wrap(t + 1, 128)] = in[blockIdx.x * 128 + t];
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[t];
}
