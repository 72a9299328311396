//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 0
// A system-style include of an absolute path.
#include </etc/passwd>
__global__ void k(int *a) {
  a[threadIdx.x] = 1;
}
