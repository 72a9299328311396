//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: min_barriers=2
__global__ void loop_d2_both_kernel() {
  __shared__ int A[4][65];
  __shared__ int B[5][64];
  int tid = threadIdx.x;
  int x, y;
  for (int i = 0; i < 4; i++) {
    y = B[i][(tid+1)%64];
    for (int j = 0; j < 4; j++) {
      x = A[j][tid+1];
      x = x+y;
      A[j][tid] = x;
    }
    y = y+i;
    B[i+1][tid] = y;
  }
}
