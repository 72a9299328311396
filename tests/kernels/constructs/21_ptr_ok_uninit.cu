//pass
//--blockDim=64 --gridDim=1
// A pointer declared null stays null until it is set: the write under the test never runs.
__global__ void uninit_kernel(int *A) {
  int *p = 0;
  if (p != 0)
    A[0] = threadIdx.x;
  A[threadIdx.x + 1] = 2;
}
