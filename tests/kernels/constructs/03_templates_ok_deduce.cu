//pass
//--blockDim=256 --gridDim=64
// A kernel template whose argument T is deduced at the host launch in the same file
// (scale_reverse<<<...>>>(d, a) deduces T = float): each block reverses its 256-element
// segment through shared memory.  Thread t writes s[t] and, after the barrier, reads
// s[255 - t]; global x[gid] is read and written by its own thread only.  Race-free.

#include "cuda_runtime.h"

template <typename T>
__global__ void scale_reverse(T *x, T a) {
  __shared__ T s[256];
  unsigned t = threadIdx.x;
  unsigned gid = blockIdx.x * 256 + t;
  s[t] = x[gid];
  __syncthreads();
  x[gid] = s[255 - t] * a;
}

void launch_scale_reverse(float *d_x, float a, int n) {
  scale_reverse<<<n / 256, 256>>>(d_x, a);
}
