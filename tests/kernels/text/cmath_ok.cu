//pass
//--blockDim=64 --gridDim=1
// <cmath> and <math.h>: M_PI, INFINITY and the math functions in device code.  A two-step
// tree: writes, barrier, pairwise reads into a second array.  Race-free.
#include <cmath>
#include <math.h>

__global__ void wave(const float *x, float *out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = sinf(x[t] * (float)M_PI) + fabsf(cosf(x[t]));
  __syncthreads();
  float m = fminf(s[t], s[63 - t]);
  out[t] = m < INFINITY ? sqrtf(fabsf(m)) : 0.0f;
}
