//pass
//--blockDim=32 --gridDim=1
// autosync: min_barriers=1
__global__ void loop_d2_intra_kernel() {
  __shared__ int A[16][33];
  __shared__ int B[16][33];
  int tid = threadIdx.x;
  int x, y;
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      x = A[i*4+j][tid+1];
      y = B[i*4+j][tid+1];
      __syncthreads();
      A[i*4+j][tid] = x+y;
      B[i*4+j][tid] = x-y;
    }
  }
}
