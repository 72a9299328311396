//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// /proc/self/environ would leak the environment into error messages.
#include "/proc/self/environ"
__global__ void k(int *a) {
  a[threadIdx.x] = 1;
}
