//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=11-12
// cmath_ok.cu without the barrier: thread t reads s[63 - t] while 63 - t writes it.
#include <cmath>
#include <math.h>

__global__ void wave(const float *x, float *out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = sinf(x[t] * (float)M_PI) + fabsf(cosf(x[t]));
  float m = fminf(s[t], s[63 - t]);
  out[t] = m < INFINITY ? sqrtf(fabsf(m)) : 0.0f;
}
