//pass
//--blockDim=64 --gridDim=1
// <cstdio> and <stdio.h>: printf in device code prints and touches no shared or global
// data.  The barrier orders each write before the neighbour's read.  Race-free.
#include <cstdio>
#include <stdio.h>

__global__ void report(int *data) {
  __shared__ int s[64];
  int t = threadIdx.x;
  printf("thread %d reads %d\n", t, data[t]);
  s[t] = data[t] * 2;
  __syncthreads();
  data[t] = s[(t + 1) % 64];
}
