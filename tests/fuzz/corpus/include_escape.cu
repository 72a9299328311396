//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// Include-escape attempts: a verifier must read none of these (exit 2 with one line).
#include "../../../../../../../../etc/passwd"
__global__ void k(int *a) {
  a[threadIdx.x] = 1;
}
