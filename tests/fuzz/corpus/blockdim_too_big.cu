//--blockDim=2048 --gridDim=1
// fuzz-expect-exit: 2
// 2,048 threads per block: more than CUDA's limit of 1,024.
__global__ void big(int *a) {
  __shared__ int s[2048];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[2047 - threadIdx.x];
}
