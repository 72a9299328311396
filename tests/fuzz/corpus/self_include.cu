//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// The file includes itself: must end (error or guard), not recurse forever.
#include "self_include.cu"
__global__ void k(int *a) {
  a[threadIdx.x] = 1;
}
