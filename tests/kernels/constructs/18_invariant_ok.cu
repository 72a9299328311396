//pass
//--blockDim=64 --gridDim=4
// A loop invariant is checked at loop entry and after every iteration, and only then
// used by the loop abstraction: i stays a multiple of 64 away from t and below n + 64.
// Race-free: thread t touches only s[t + 64 k].

#include "annotations_extra.h"

__global__ void strided(const float *in, float *out, int n) {
  __requires(n == 512);
  __shared__ float s[512];
  int t = threadIdx.x;
  for (int i = t; __invariant(i % 64 == t), __invariant(i < n + 64), i < n; i += 64) {
    s[i] = in[blockIdx.x * n + i];
  }
  __syncthreads();
  for (int i = t; __invariant(i % 64 == t), i < n; i += 64) {
    out[blockIdx.x * n + i] = s[i] + s[(i + 64) % n];
  }
}
