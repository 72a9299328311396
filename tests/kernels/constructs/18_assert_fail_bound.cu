//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: assert_fails=13
// An assertion that is false for some threads: the author believed tid < 64 (a launch
// with 64 threads) but the kernel runs with 128.  The shared accesses are race-free
// (own cell, barrier, mirrored cell), so the ONLY error is the assertion.

#include "../annotations.h"

__global__ void mirror(const int *in, int *out) {
  __shared__ int s[128];
  int tid = threadIdx.x;
  __assert(tid < 64);  // R1
  s[tid] = in[blockIdx.x * 128 + tid];
  __syncthreads();
  out[blockIdx.x * 128 + tid] = s[127 - tid];
}
