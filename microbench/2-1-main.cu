//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: min_barriers=1
__global__ void main2_kernel() {
  __shared__ int A[65];
  __shared__ int B[65];
  int tid = threadIdx.x;
  int x, y;
  x = A[tid+1];
  y = B[tid+1];
  A[tid] = x+y;
  B[tid] = x-y;
}
