//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// Absolute include of a system file outside the kernel's folder.
#include "/etc/passwd"
__global__ void k(int *a) {
  a[threadIdx.x] = 1;
}
