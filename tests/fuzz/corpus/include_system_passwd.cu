//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// A system-style include of an absolute path: refused unread (outside the allowed folders),
// one line at the include, as clang's sandbox refuses every include that leaves them.
#include </etc/passwd>
__global__ void k(int *a) {
  a[threadIdx.x] = 1;
}
