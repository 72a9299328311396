//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: min_barriers=1
__global__ void loop_intra_kernel() {
  __shared__ int A[4][65];
  int tid = threadIdx.x;
  int x;
  for (int i = 0; i < 4; i++) {
    x = A[i][tid+1];
    A[i][tid] = x+i;
  }
}
