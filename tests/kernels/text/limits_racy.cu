//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: races=12-13,12-15
// limits_ok.cu without the barrier: thread 0 writes ident while the others read it.
#include <climits>
#include <float.h>

__global__ void minimum(const float *in, float *out, int *flags) {
  __shared__ float ident;
  int t = threadIdx.x;
  if (t == 0)
    ident = FLT_MAX;
  float v = fminf(in[t], ident);
  out[t] = v;
  flags[t] = v < ident ? SHRT_MAX : INT_MAX;
}
