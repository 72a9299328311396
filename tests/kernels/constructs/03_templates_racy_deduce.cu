//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=64
// autosync: races=14-15
// 03_templates_ok_deduce.cu without the barrier: thread t reads s[255 - t] while thread
// 255 - t writes it.  The kernel is only instantiated through the deduced host launch.

#include "cuda_runtime.h"

template <typename T>
__global__ void scale_reverse(T *x, T a) {
  __shared__ T s[256];
  unsigned t = threadIdx.x;
  unsigned gid = blockIdx.x * 256 + t;
  s[t] = x[gid];  // R1
  x[gid] = s[255 - t] * a;  // R1
}

void launch_scale_reverse(float *d_x, float a, int n) {
  scale_reverse<<<n / 256, 256>>>(d_x, a);
}
