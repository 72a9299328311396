//pass
//--blockDim=64 --gridDim=1
// autosync: min_barriers=1
__global__ void loop_inter_kernel() {
  __shared__ int A[5][64];
  int tid = threadIdx.x;
  int x;
  for (int i = 0; i < 4; i++) {
    __syncthreads();
    x = A[i][(tid+1)%64];
    x = x+i;
    A[i+1][tid] = x;
  }
}
