//pass
//--blockDim=64 --gridDim=1
// autosync: min_barriers=1
__global__ void if_kernel() {
  __shared__ int A[66];
  int tid = threadIdx.x;
  int x;
  x = 0;
  if (tid%2==0) {
    x = A[tid+2];
  }
  __syncthreads();
  if (tid%6==0) {
    A[tid] += x;
  }
}
