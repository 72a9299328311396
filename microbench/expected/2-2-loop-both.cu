//pass
//--blockDim=64 --gridDim=1
// autosync: min_barriers=2
__global__ void loop_both_kernel(int n) {
  __shared__ int A[65];
  int tid = threadIdx.x;
  int x;
  for (int i = 0; i < n; i++) {
    __syncthreads();
    x = A[tid+1];
    x = x+i;
    __syncthreads();
    A[tid] += x;
  }
}
