//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=32
// autosync: races=18-18
// 16_loops_ok_pow2.cu with the barrier at the end of the step moved after the loop:
// thread 0 reads sh[2] in step s = 2 while thread 2 writes sh[2] in step s = 1 (line R1
// with itself, across loop iterations).

#include "../annotations.h"

__global__ void reduce_interleaved(const int *in, int *out, unsigned n) {
  __requires(n == 256);
  __shared__ int sh[256];
  unsigned tid = threadIdx.x;
  sh[tid] = in[blockIdx.x * n + tid];
  __syncthreads();
  for (unsigned s = 1; s < n; s *= 2) {
    if (tid % (2 * s) == 0)
      sh[tid] += sh[tid + s];  // R1
  }
  __syncthreads();
  if (tid == 0)
    out[blockIdx.x] = sh[0];
}
