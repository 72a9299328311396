//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// The fuzzer plants ../../canary/secret.h (outside this file's temp folder); reading it is a leak.
#include "../../canary/secret.h"
__global__ void k(int *a) {
  a[threadIdx.x] = 1;
}
