//pass
//--blockDim=128 --gridDim=64
// __requires / __ensures / __assert / __assume / __implies on a strided copy.

#include "annotations.h"

__global__ void strided_copy(const float *in, float *out, int n, int stride) {
  __requires(n == 8192);
  __requires(stride == 1);
  __ensures(__implies(threadIdx.x == 0, true));
  __shared__ float s[128];
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  __assume(gid < n);
  s[tid] = in[gid * stride];
  __syncthreads();
  __assert(__implies(tid < 64, tid + 64 < 128));
  out[gid] = s[(tid + 64) % 128];
}
