//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: min_barriers=1
__global__ void main_kernel() {
  __shared__ int A[65];
  int tid = threadIdx.x;
  int x;
  x = A[tid+1];
  x = x+11;
  A[tid] += x;
}
