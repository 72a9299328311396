//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// Two __global__ kernels with one name (a redefinition: bad input).
__global__ void twin(int *a) {
  __shared__ int s[64];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[63 - threadIdx.x];
}
__global__ void twin(int *a) {
  __shared__ int s[64];
  s[threadIdx.x] = a[threadIdx.x];
  a[threadIdx.x] = s[63 - threadIdx.x];
}
