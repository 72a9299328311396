//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=9-9
// A pointer never set has an indeterminate value, not null: the test may pass, and then
// every thread writes A[0].
__global__ void uninit_kernel(int *A) {
  int *p;
  if (p != 0)
    A[0] = threadIdx.x;
  A[threadIdx.x + 1] = 2;
}
