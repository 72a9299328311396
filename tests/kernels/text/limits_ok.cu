//pass
//--blockDim=128 --gridDim=1
// <climits> and <float.h>: INT_MAX, SHRT_MAX, FLT_MAX as identity elements of a min
// reduction.  Thread 0 publishes the identity, the barrier orders it before the reads.
#include <climits>
#include <float.h>

__global__ void minimum(const float *in, float *out, int *flags) {
  __shared__ float ident;
  int t = threadIdx.x;
  if (t == 0)
    ident = FLT_MAX;
  __syncthreads();
  float v = fminf(in[t], ident);
  out[t] = v;
  flags[t] = v < ident ? SHRT_MAX : INT_MAX;
}
