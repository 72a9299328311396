//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=11-13
// stdio_ok.cu with the barrier gone: printf is no synchronisation.
#include <cstdio>
#include <stdio.h>

__global__ void report(int *data) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = data[t] * 2;
  printf("thread %d wrote %d\n", t, s[t]);
  data[t] = s[(t + 1) % 64];
}
